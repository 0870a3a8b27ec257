"""How long exact odds take: one action per preset, and whole duels, on this machine.

    .venv/bin/python bench/odds.py [--runs 5] [--cli]

Each figure is the median (wall time and CPU time) of `--runs` in-process runs of `engine.odds.duel` (a fresh chain
each run: nothing is memoised across runs), on Snorri and Brynhild (examples/sheets)
with default wound tracks unless the row says otherwise. `--cli` also times
`fudge odds SHEET SHEET --duel` as a fresh process (start-up included).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fudge_combat.events.records import json_form  # noqa: E402
from fudge_combat.engine.odds import duel as odds  # noqa: E402
from fudge_combat.engine.kernel.presets import resolve  # noqa: E402
from fudge_combat.engine.kernel.sheets import parse_sheet  # noqa: E402

SHEETS = [ROOT / "examples" / "sheets" / f"{name}.toml" for name in ("snorri", "brynhild")]


def fight(preset: str, **options: Any) -> tuple[Any, odds.Match]:
    house = None
    if options:
        import json
        house = "\n".join([f'extends = "{preset}"'] + [f"{k} = {json.dumps(v)}" for k, v in options.items()])
    label, resolved = resolve(preset, house)
    sheets = [(json_form(parse_sheet(p.read_text(), p.name)), p.name) for p in SHEETS]
    state, names = odds.setup(label, resolved, sheets)
    return state, odds.Match(*names)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children: on a shared machine it moves less than wall time."""
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def median_seconds(work: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of `runs` runs, and the last result."""
    wall, cpu, result = [], [], None
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), cpu_seconds()
        result = work()
        wall.append(time.perf_counter() - start)
        cpu.append(cpu_seconds() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cli", action="store_true", help="also time `fudge odds --duel` as a fresh process")
    args = parser.parse_args()
    rows: list[tuple[str, float, float, str]] = []
    for preset in ("fudge", "fudge-phases", "atari-isev", "fate"):
        state, match = fight(preset)
        wall, cpu, result = median_seconds(lambda: odds.single_action(state, match), args.runs)
        rows.append((f"one action, {preset}", wall, cpu, f"{len(result.outcomes)} outcomes"))
    duels = [
        ("duel, fudge (realistic track)", {}),
        ("duel, fudge, damage_roll = 4dF_limited", {"damage_roll": "4dF_limited"}),
        ("duel, fudge, min-mid-max (3d6)", {"damage_system": "min_mid_max"}),
        ("duel, fudge, cinematic track", {"wound_boxes": "cinematic"}),
    ]
    duels.append(("duel, fate (boxes 2, 2, 2)", {"preset": "fate"}))
    for label, options in duels:
        preset = options.pop("preset", "fudge")
        state, match = fight(preset, **options)
        wall, cpu, result = median_seconds(lambda: odds.duel(state, match), args.runs)
        rows.append((label, wall, cpu, f"{result.states} states, P({result.winners[0][0]}) = "
                                       f"{float(result.winners[0][1]):.4f}"))
    if args.cli:
        command = [sys.executable, "-m", "fudge_combat.cli.main", "odds", *map(str, SHEETS), "--duel"]
        wall, cpu, _ = median_seconds(lambda: subprocess.run(command, cwd=ROOT, check=True, capture_output=True),
                                      args.runs)
        rows.append(("`fudge odds --duel` (fresh process)", wall, cpu, "start-up included"))
    width = max(len(r[0]) for r in rows)
    print(f"| {'measure':<{width}} | wall | CPU | note |")
    print(f"|{'-' * (width + 2)}|-----:|----:|------|")
    for label, wall, cpu, note in rows:
        print(f"| {label:<{width}} | {wall * 1000:,.0f} ms | {cpu * 1000:,.0f} ms | {note} |")


if __name__ == "__main__":
    main()
