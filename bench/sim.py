"""`fudge sim` throughput: duels per CPU second for each preset, and what `--jobs 2` and a Dask cluster gain.

    .venv/bin/python bench/sim.py [--duels 20000] [--repeat 3] [--policy plain] [--presets ...]
    .venv/bin/python bench/sim.py --jobs-duels 20000 --dask      # the scale-out measures too
    .venv/bin/python bench/sim.py --profile fudge                # cProfile's top functions
    .venv/bin/python bench/sim.py --old /tmp/sim-old             # another checkout's code beside this one's

For each preset, its demo's two fighters duel (`fudge`: Snorri and Brynhild,
`fudge-phases`: Leroy and Brynhild, `atari-isev`: Max and the Cutthroat, `fate`: Cyrus
and Finn, on two sides):
- *sim/core*: `sim.parallel.run_serial`, what `fudge sim` runs in one process (the fast
  path of the ruleset, `engine.rulesets.<name>.fast`, where it takes the setup, else the engine), duels per CPU second;
  *path* says which played;
- *engine/core*: the same fights with the fast path off (`Setup(fast=False)`, `fudge sim
  --engine`): every fight through the service's step on records kept in memory;
- *service/core*: the same fights through `service.fights.Fights` over a `MemoryStore`
  (the JSON body and hash chain of every record), for comparison;
- with `--jobs-duels N`: `sim.batch.run_batch` of N fights with `jobs=1` and `jobs=2`
  (everything `fudge sim` does after reading its files: the opening, the first fight, the
  pool, the statistics), alternated `--repeat` times, the best wall-clock time of each; the
  speed-up is their ratio; *CPU x* is the CPU time of the two-job run (this process and its
  workers) over the one-job run's: 1.00 means the split repeats no work;
- with `--dask` too: the same N fights on a local Dask cluster of two worker processes of one
  thread each (`distributed.LocalCluster`), after one warm-up run, against `jobs=1`.
CPU seconds are the figure least disturbed by other work on a shared machine; wall-clock
speed-ups need two idle cores, so the load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import logging
import os
import pstats
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import structlog
from msgspec.structs import replace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fudge_combat.events.records import json_form  # noqa: E402
from fudge_combat.engine.kernel.presets import PRESETS, resolve  # noqa: E402
from fudge_combat.engine.kernel.sheets import parse_sheet  # noqa: E402
from fudge_combat.sim.parallel import run_serial  # noqa: E402
from fudge_combat.sim.runner import (Entrant, ServiceSession, Setup, derived_bytes, derived_ids, fight_seed,  # noqa: E402
                        fast_plan, opening_of, play)
from fudge_combat.service.fights import Fights  # noqa: E402
from fudge_combat.store.memory import MemoryStore  # noqa: E402

DUELS = {"fudge": ("snorri", "brynhild"), "fudge-phases": ("leroy", "brynhild"), "atari-isev": ("max", "cutthroat"),
         "fate": ("cyrus", "finn")}


def setup_for(preset: str, policy: str) -> Setup:
    label, options = resolve(preset)
    entrants = []
    for name, side in zip(DUELS[preset], ("one", "two")):
        sheet = parse_sheet((ROOT / "examples" / "sheets" / f"{name}.toml").read_text(), f"{name}.toml")
        entrants.append(Entrant(json_form(sheet), f"{name}.toml", side))
    return Setup(label, json_form(options), tuple(entrants), policy)


def cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds of this process and the workers it started and joined)."""
    wall, used = time.perf_counter(), cpu()
    fn()
    return time.perf_counter() - wall, cpu() - used


def rate(setup: Setup, n: int, repeat: int) -> float:
    """Duels per CPU second of this process, the best of `repeat` runs of `run_serial`."""
    best = 0.0
    for _ in range(repeat):
        started = time.process_time()
        run_serial(setup, 1, n)
        best = max(best, n / (time.process_time() - started))
    return best


def service_duels(setup: Setup, n: int) -> None:
    for index in range(n):
        seed = fight_seed(1, index)
        fights = Fights(MemoryStore(), clock=lambda: "t", new_id=derived_ids(seed), random_bytes=derived_bytes(seed))
        play(ServiceSession(fights, "sim"), setup)


def scale_out(setup: Setup, n: int, repeat: int, dask: Any) -> dict[str, float]:
    """Best wall-clock seconds of `run_batch` with one job, two jobs and (with `dask`, a scheduler
    address) a Dask cluster, in turns; and the CPU time of the two-job run over the one-job run's."""
    from fudge_combat.sim.batch import run_batch

    runs: dict[str, Any] = {"one": lambda: run_batch(setup, 1, n, jobs=1),
                            "two": lambda: run_batch(setup, 1, n, jobs=2)}
    if dask:
        runs["dask"] = lambda: run_batch(setup, 1, n, executor="dask", scheduler=dask)
        run_batch(setup, 1, min(n, 2000), executor="dask", scheduler=dask)  # warm-up: the workers import
    walls: dict[str, list[float]] = {key: [] for key in runs}
    cpus: dict[str, list[float]] = {key: [] for key in runs}
    for turn in range(repeat):
        for key in runs if turn % 2 == 0 else reversed(runs):
            wall, used = timed(runs[key])
            walls[key].append(wall)
            cpus[key].append(used)
    out = {key: min(values) for key, values in walls.items()}
    out["cpu"] = min(cpus["two"]) / min(cpus["one"])
    return out


OLD_AND_NEW = """import importlib.util, json, logging, sys, time
from pathlib import Path
import structlog
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
spec = importlib.util.spec_from_file_location("bench_sim", Path("bench") / "sim.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
from fudge_combat.sim.parallel import run_serial
rates = {}
for preset, n in json.loads(sys.argv[1]).items():
    setup = bench.setup_for(preset, "plain")
    run_serial(setup, 1, 20)
    started = time.process_time()
    run_serial(setup, 1, n)
    rates[preset] = n / (time.process_time() - started)
print(json.dumps(rates))
"""


def side_by_side(old: Path, counts: dict[str, int], rounds: int) -> None:
    """`run_serial` of each preset's plain duels in child processes of each checkout (its own code and its
    own `setup_for`), old and new in turns, the order swapped every round; medians of the rounds."""
    import json
    import statistics

    spec = importlib.util.spec_from_file_location("side_by_side", ROOT / "bench" / "side_by_side.py")
    helpers = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(helpers)  # type: ignore[union-attr]
    roots = {"old": old.resolve(), "new": ROOT}
    for root in roots.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", "engine", "events", "projections", "store",
                        "service", "sim", "cli"], cwd=root, check=True, capture_output=True)
    print(f"old {roots['old']}, new {roots['new']}; load average {os.getloadavg()[0]:.1f}")
    from checkouts import python_for  # bench/, this script's folder

    pythons = {label: python_for(root) for label, root in roots.items()}  # each checkout's own interpreter
    got = helpers.in_turns(list(roots), rounds,
                           lambda label: helpers.child(pythons[label], roots[label], OLD_AND_NEW, json.dumps(counts)))
    print(f"{'preset':<14}{'duels':>7}{'old':>9}{'new':>9}{'new/old':>9}   (duels per CPU second, median of {rounds})")
    for preset, n in counts.items():
        before, after = (statistics.median(r[preset] for r in got[label]) for label in ("old", "new"))
        print(f"{preset:<14}{n:>7}{before:>9,.0f}{after:>9,.0f}{after / before:>8.1f}x   "
              f"old {[round(r[preset]) for r in got['old']]}, new {[round(r[preset]) for r in got['new']]}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duels", type=int, default=20000, help="duels per preset on the path `fudge sim` takes")
    parser.add_argument("--engine-duels", type=int, default=1000, help="duels per preset through the engine")
    parser.add_argument("--jobs-duels", type=int, default=0, help="fights of the scale-out runs (0: none)")
    parser.add_argument("--dask", action="store_true", help="and on a local two-worker Dask cluster")
    parser.add_argument("--policy", default="plain")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measure (the best counts)")
    parser.add_argument("--profile", metavar="PRESET")
    parser.add_argument("--old", type=Path, help="another checkout's root: its run_serial beside this one's, in turns")
    parser.add_argument("--rounds", type=int, default=5, help="child processes per checkout with --old")
    parser.add_argument("--presets", nargs="*", default=[p for p in DUELS if p in PRESETS], help="presets to measure")
    args = parser.parse_args()
    if args.old:
        counts = {p: args.duels if p in ("fudge", "fate") else args.engine_duels for p in args.presets}
        side_by_side(args.old, counts, args.rounds)
        return
    if args.profile:
        setup = setup_for(args.profile, args.policy)
        profile = cProfile.Profile()
        profile.runcall(run_serial, setup, 1, args.duels)
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
        print(out.getvalue())
        return
    print(f"policy {args.policy}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("sim, engine and service: duels per CPU second of this process")
    header = f"{'preset':<14}{'path':>7}{'sim/core':>10}{'engine/core':>13}{'service/core':>14}"
    if args.jobs_duels:
        header += f"{'jobs 2':>9}{'CPU x':>7}" + (f"{'dask 2':>9}" if args.dask else "")
    print(header)
    cluster = None
    if args.jobs_duels and args.dask:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        for preset in args.presets:
            setup = setup_for(preset, args.policy)
            engine = replace(setup, fast=False)
            path = "fast" if fast_plan(setup, opening_of(setup)) is not None else "engine"
            run_serial(setup, 1, 20)  # warm-up
            quick = rate(setup, args.duels if path == "fast" else args.engine_duels, args.repeat)
            slow = rate(engine, args.engine_duels, args.repeat)
            few = max(50, args.engine_duels // 10)
            _, service_cpu = timed(lambda: service_duels(setup, few))
            line = f"{preset:<14}{path:>7}{quick:>10,.0f}{slow:>13,.0f}{few / service_cpu:>14,.0f}"
            if args.jobs_duels:
                walls = scale_out(setup, args.jobs_duels, args.repeat, cluster.scheduler_address if cluster else None)
                line += f"{walls['one'] / walls['two']:>8.2f}x{walls['cpu']:>7.2f}"
                if cluster:
                    line += f"{walls['one'] / walls['dask']:>8.2f}x"
                line += f"   (jobs 1: {walls['one']:.2f} s wall)"
            print(line, flush=True)
    finally:
        if cluster is not None:
            cluster.close()
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
