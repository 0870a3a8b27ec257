"""`fudge sim` throughput: one-on-one duels per second per core for each preset, and the `--jobs 2` speed-up.

    .venv/bin/python bench/sim.py [--duels 2000] [--repeat 3] [--policy plain] [--profile PRESET]

For each preset, its demo's two fighters duel (`fudge`: Snorri and Brynhild,
`fudge-phases`: Leroy and Brynhild, `atari-isev`: Max and the Cutthroat, `fate`: Cyrus
and Finn, on two sides):
- *light/core*: the simulation's own path (`sim.runner.LightSession`: the service's
  step, `service.step.step`, on records kept in memory, nothing appended), in this process: duels per CPU second;
- *service/core*: the same fights through `service.fights.Fights` over a `MemoryStore`
  (the JSON body and hash chain of every record), for comparison;
- *jobs 1*, *jobs 2*: duels per wall-clock second in this process, and split
  over two worker processes (`sim.parallel.run_on` with a `ProcessPoolExecutor`,
  pool start-up included); the speed-up is their ratio.
Serial and two-process runs alternate, `--repeat` times each; the best of each counts.
`--profile PRESET` prints cProfile's top functions for a batch of that preset's duels.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import logging
import os
import pstats
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import structlog

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.options import PRESETS, resolve  # noqa: E402
from engine.sheets import parse_sheet  # noqa: E402
from sim.parallel import run_on, run_serial  # noqa: E402
from sim.runner import (Entrant, ServiceSession, Setup, derived_bytes, derived_ids, fight_seed,  # noqa: E402
                        play)
from service.fights import Fights  # noqa: E402
from store.memory import MemoryStore  # noqa: E402

DUELS = {"fudge": ("snorri", "brynhild"), "fudge-phases": ("leroy", "brynhild"), "atari-isev": ("max", "cutthroat"),
         "fate": ("cyrus", "finn")}


def setup_for(preset: str, policy: str) -> Setup:
    label, options = resolve(preset)
    entrants = []
    for name, side in zip(DUELS[preset], ("one", "two")):
        sheet = parse_sheet((ROOT / "examples" / "sheets" / f"{name}.toml").read_text(), f"{name}.toml")
        entrants.append(Entrant(sheet.model_dump(mode="json"), f"{name}.toml", side))
    return Setup(label, options.model_dump(mode="json"), tuple(entrants), policy)


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall seconds, this process's CPU seconds)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def service_duels(setup: Setup, n: int) -> None:
    for index in range(n):
        seed = fight_seed(1, index)
        fights = Fights(MemoryStore(), clock=lambda: "t", new_id=derived_ids(seed), random_bytes=derived_bytes(seed))
        play(ServiceSession(fights, "sim"), setup)


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duels", type=int, default=2000)
    parser.add_argument("--policy", default="plain")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measure (the best counts)")
    parser.add_argument("--profile", metavar="PRESET")
    parser.add_argument("--presets", nargs="*", default=[p for p in DUELS if p in PRESETS], help="presets to measure")
    args = parser.parse_args()
    if args.profile:
        setup = setup_for(args.profile, args.policy)
        profile = cProfile.Profile()
        profile.runcall(run_serial, setup, 1, args.duels)
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
        print(out.getvalue())
        return
    print(f"{args.duels} duels per preset, policy {args.policy}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("per core: duels per CPU second of this process; jobs 1 and jobs 2: duels per wall-clock second")
    print(f"{'preset':<14}{'light/core':>11}{'service/core':>13}{'jobs 1':>8}{'jobs 2':>8}{'speed-up':>10}")
    for preset in args.presets:
        setup = setup_for(preset, args.policy)
        run_serial(setup, 1, 20)  # warm-up

        def two() -> None:
            with ProcessPoolExecutor(max_workers=2) as pool:
                run_on(pool, setup, 1, args.duels, jobs=2)
        serial, cpu, parallel = [], [], []
        for _ in range(args.repeat):  # alternated, best of each: other work on the machine only slows a run down
            wall, used = timed(lambda: run_serial(setup, 1, args.duels))
            serial.append(wall)
            cpu.append(used)
            parallel.append(timed(two)[0])
        few = max(50, args.duels // 10)
        _, service_cpu = timed(lambda: service_duels(setup, few))
        print(f"{preset:<14}{args.duels / min(cpu):>11,.0f}{few / service_cpu:>13,.0f}{args.duels / min(serial):>8,.0f}"
              f"{args.duels / min(parallel):>8,.0f}{min(serial) / min(parallel):>9.2f}x")

if __name__ == "__main__":
    main()
