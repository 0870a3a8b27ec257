"""How long exact odds take: one action per preset, and whole duels, on this machine.

    .venv/bin/python bench/odds.py [--runs 5] [--cli]

Each figure is the median of `--runs` in-process runs of `engine.odds` (a fresh chain
each run: nothing is memoised across runs), on Snorri and Brynhild (examples/sheets)
with default wound tracks unless the row says otherwise. `--cli` also times
`fudge odds SHEET SHEET --duel` as a fresh process (start-up included).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import odds  # noqa: E402
from engine.options import resolve  # noqa: E402
from engine.sheets import parse_sheet  # noqa: E402

SHEETS = [ROOT / "examples" / "sheets" / f"{name}.toml" for name in ("snorri", "brynhild")]


def fight(preset: str, **options: Any) -> tuple[Any, odds.Match]:
    house = None
    if options:
        import json
        house = "\n".join([f'extends = "{preset}"'] + [f"{k} = {json.dumps(v)}" for k, v in options.items()])
    label, resolved = resolve(preset, house)
    sheets = [(parse_sheet(p.read_text(), p.name).model_dump(mode="json"), p.name) for p in SHEETS]
    state, names = odds.setup(label, resolved, sheets)
    return state, odds.Match(*names)


def median_seconds(work: Callable[[], Any], runs: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cli", action="store_true", help="also time `fudge odds --duel` as a fresh process")
    args = parser.parse_args()
    rows: list[tuple[str, float, str]] = []
    for preset in ("fudge", "fudge-phases", "atari-isev"):
        state, match = fight(preset)
        seconds, result = median_seconds(lambda: odds.single_action(state, match), args.runs)
        rows.append((f"one action, {preset}", seconds, f"{len(result.outcomes)} outcomes"))
    duels = [
        ("duel, fudge (realistic track)", {}),
        ("duel, fudge, damage_roll = 4dF_limited", {"damage_roll": "4dF_limited"}),
        ("duel, fudge, min-mid-max (3d6)", {"damage_system": "min_mid_max"}),
        ("duel, fudge, cinematic track", {"wound_boxes": "cinematic"}),
    ]
    for label, options in duels:
        state, match = fight("fudge", **options)
        seconds, result = median_seconds(lambda: odds.duel(state, match), args.runs)
        rows.append((label, seconds, f"{result.states} states, P({result.winners[0][0]}) = "
                                     f"{float(result.winners[0][1]):.4f}"))
    if args.cli:
        command = [sys.executable, "-m", "cli.main", "odds", *map(str, SHEETS), "--duel"]
        seconds, _ = median_seconds(lambda: subprocess.run(command, cwd=ROOT, check=True, capture_output=True),
                                    args.runs)
        rows.append(("`fudge odds --duel` (fresh process)", seconds, "start-up included"))
    width = max(len(r[0]) for r in rows)
    print(f"| {'measure':<{width}} | median | note |")
    print(f"|{'-' * (width + 2)}|-------:|------|")
    for label, seconds, note in rows:
        print(f"| {label:<{width}} | {seconds * 1000:,.0f} ms | {note} |")


if __name__ == "__main__":
    main()
