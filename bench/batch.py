"""`fudge sim --batch` against the fast path it stands beside: duels per CPU second, in one run, in turns.

    .venv/bin/python bench/batch.py [--fast-duels 20000] [--batch-duels 1000000] [--repeat 5]
    .venv/bin/python bench/batch.py --command              # the whole command too: `fudge sim` in a child
    .venv/bin/python bench/batch.py --smallest             # a few hundred duels: that the script runs

The `fudge` preset's demo duel (Snorri and Brynhild, on two sides) with the `plain` and `reckless`
policies, and the `fate` preset's (Cyrus and Finn) with `plain`:
- *fast*: `sim.batch.run_batch` as `fudge sim` calls it in one process (the fast path,
  `engine.rulesets.fudge.fast`, with the engine's dice), `--fast-duels` fights;
- *batch*: `sim.batch.run_batch(..., vectorised=True)` as `fudge sim --batch` calls it (the batch kernel,
  `engine.rulesets.fudge.batch`, with the batch's keyed dice), `--batch-duels` fights;
the two in turns, the order swapped every round, each figure the median (and range) of `--repeat` runs,
in duels per CPU second of this process (`time.process_time`). With `--command`, the same through
the command: `fudge sim ... -n N --json` in a child, its user + system CPU, with and without `--batch`
(start-up included: a large -n is where --batch is for).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fudge_combat.events.records import json_form  # noqa: E402
from fudge_combat.engine.kernel.presets import resolve  # noqa: E402
from fudge_combat.engine.kernel.sheets import parse_sheet  # noqa: E402
from fudge_combat.sim.batch import run_batch  # noqa: E402
from fudge_combat.sim.runner import Entrant, Setup  # noqa: E402

SHEETS = ROOT / "examples" / "sheets"
STORE = Path(tempfile.mkdtemp(prefix="fudge-bench-")) / "fudge.db"  # a run writes nothing there (no --keep)


DUELS = {"fudge": ("snorri", "brynhild"), "fate": ("cyrus", "finn")}


def setup_for(preset: str, policy: str) -> Setup:
    label, options = resolve(preset)
    entrants = tuple(Entrant(json_form(parse_sheet((SHEETS / f"{name}.toml").read_text(), f"{name}.toml")),
                             f"{name}.toml", side) for name, side in zip(DUELS[preset], ("one", "two")))
    return Setup(label, json_form(options), entrants, policy)


def rate(setup: Setup, n: int, vectorised: bool) -> float:
    started = time.process_time()
    run_batch(setup, 1, n, vectorised=vectorised)
    return n / (time.process_time() - started)


def child_cpu(args: list[str]) -> float:
    """User + system CPU seconds of one `fudge` child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(STORE), *args],
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):>11,.0f} ({min(values):,.0f} to {max(values):,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fast-duels", type=int, default=20_000)
    parser.add_argument("--batch-duels", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--command", action="store_true", help="also time `fudge sim` in a child, with and without --batch")
    parser.add_argument("--smallest", action="store_true", help="a few hundred duels, one round: the script runs")
    args = parser.parse_args()
    if args.smallest:
        args.fast_duels, args.batch_duels, args.repeat = 200, 500, 1
    print(f"load average {os.getloadavg()[0]:.2f}; fast {args.fast_duels:,} duels, batch {args.batch_duels:,} a run, "
          f"{args.repeat} runs each, in turns")
    print(f"{'duel':<15} {'fast (duels/CPU-s)':>28} {'batch (duels/CPU-s)':>28} {'batch / fast':>13}")
    for preset, policy in (("fudge", "plain"), ("fudge", "reckless"), ("fate", "plain")):
        setup = setup_for(preset, policy)
        rate(setup, 100, False), rate(setup, 100, True)  # warm: imports, the opening
        fast: list[float] = []
        batch: list[float] = []
        for turn in range(args.repeat):
            order = [(False, args.fast_duels, fast), (True, args.batch_duels, batch)]
            for vectorised, n, out in order if turn % 2 == 0 else reversed(order):
                out.append(rate(setup, n, vectorised))
        print(f"{preset + ' ' + policy:<15} {spread(fast):>28} {spread(batch):>28} "
              f"{statistics.median(batch) / statistics.median(fast):>12.1f}x")
    if args.command:
        sheets = [str(SHEETS / "snorri.toml"), str(SHEETS / "brynhild.toml")]
        for n in (100_000, 1_000_000):
            walls: dict[str, list[float]] = {"fast": [], "batch": []}
            for turn in range(args.repeat):
                order = [("fast", []), ("batch", ["--batch"])]
                for key, extra in order if turn % 2 == 0 else reversed(order):
                    walls[key].append(child_cpu(["sim", *sheets, "-n", str(n), "--seed", "7", "--json", *extra]))
            fast_s, batch_s = statistics.median(walls["fast"]), statistics.median(walls["batch"])
            print(f"fudge sim -n {n:,}: {fast_s:.2f} s of CPU without --batch, {batch_s:.2f} s with "
                  f"({fast_s / batch_s:.1f}x; ranges {min(walls['fast']):.2f}-{max(walls['fast']):.2f}, "
                  f"{min(walls['batch']):.2f}-{max(walls['batch']):.2f})")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
