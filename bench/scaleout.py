"""`fudge sim` scale-out: `--jobs 2` against `--jobs 1` through the command line, and a local Dask cluster
of two worker processes against one process; a markdown table to paste into bench/README.md.

    .venv/bin/python bench/scaleout.py                          # every preset, -n 20000, best of 3
    .venv/bin/python bench/scaleout.py -n 20000 100000 --presets fudge fate --repeat 5
    .venv/bin/python bench/scaleout.py --no-dask                # the command line and run_batch only
    .venv/bin/python bench/scaleout.py --old /tmp/sim-old -n 20000   # another checkout's command beside this one's

For each preset its demo pair duels (as `bench/sim.py`), sides one and two, `--seed 7 --json`:
- *command*: `python -m fudge_combat.cli.main sim ... -n N --jobs 1` and `--jobs 2` as fresh processes, in turns
  (1 2, 2 1, ...), `--repeat` times; the best wall clock of each and their ratio, the speed-up the
  target asks for. Both print the same bytes (checked). *CPU*: user + system seconds of the command's
  own process and of its worker (`getrusage` in the command's process at its exit: the pool's worker
  has been joined by then), from the best run. *start-up*: the same command with `-n 1` (imports,
  the sheets, the opening, the statistics): serial whatever `--jobs`, so the command's speed-up is
  at most (start-up + work) / (start-up + work / 2), printed as *bound*;
- *run*: `sim.batch.run_batch` in this process (everything the command does after its imports),
  `jobs=1` and `jobs=2` in turns, best wall clock, and the CPU of this process and of its worker;
- *Dask*: then, a `distributed.LocalCluster` of two worker processes of one thread each is started
  (its scheduler runs in this process, so nothing else is measured while it runs), one warm-up run
  per preset, and `run_batch` with `executor="dask"` against `jobs=1` in turns; CPU: this process and
  the two workers (`Client.run`).
Wall-clock speed-ups need two idle cores: the load average is printed at the start and at the end.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import structlog

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fudge_combat.events.records import json_form  # noqa: E402
from fudge_combat.engine.kernel.presets import resolve  # noqa: E402
from fudge_combat.engine.kernel.sheets import parse_sheet  # noqa: E402
from fudge_combat.sim.runner import Entrant, Setup, fast_plan, opening_of  # noqa: E402

DUELS = {"fudge": ("snorri", "brynhild"), "fudge-phases": ("leroy", "brynhild"), "atari-isev": ("max", "cutthroat"),
         "fate": ("cyrus", "finn")}
SIDES = ("one", "two")

# The command, run as `python -c` so that it reports its own CPU and its children's when it ends.
COMMAND = """import os, resource, runpy, sys
sys.argv = ["fudge", *sys.argv[1:]]
try:
    runpy.run_module("cli.main", run_name="__main__", alter_sys=True)
finally:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.environ["SCALEOUT_CPU"], "w") as out:
        out.write(f"{own.ru_utime + own.ru_stime} {kids.ru_utime + kids.ru_stime}")
"""


def setup_for(preset: str) -> Setup:
    label, options = resolve(preset)
    entrants = []
    for name, side in zip(DUELS[preset], SIDES):
        sheet = parse_sheet((ROOT / "examples" / "sheets" / f"{name}.toml").read_text(), f"{name}.toml")
        entrants.append(Entrant(json_form(sheet), f"{name}.toml", side))
    return Setup(label, json_form(options), tuple(entrants))


def command(preset: str, n: int, jobs: int, scratch: Path, root: Path = ROOT) -> tuple[float, float, float, bytes]:
    """(wall seconds, CPU of the command's process, CPU of its workers, its stdout), the code of `root`."""
    sheets = [str(ROOT / "examples" / "sheets" / f"{name}.toml") for name in DUELS[preset]]
    sides = [arg for side in SIDES for arg in ("--side", side)]
    argv = [sys.executable, "-c", COMMAND, "--store", str(scratch / "fudge.db"), "sim", *sheets, "-r", preset,
            *sides, "-n", str(n), "--seed", "7", "--json", "--jobs", str(jobs)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update(PYTHONPATH=str(root), SCALEOUT_CPU=str(scratch / "cpu"), FUDGE_KEY_FILE=str(scratch / "key"))
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, check=True)
    wall = time.perf_counter() - started
    own, workers = map(float, (scratch / "cpu").read_text().split())
    return wall, own, workers, done.stdout


def cpu_now() -> tuple[float, float]:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def in_turns(runs: dict[str, Callable[[], tuple[float, ...]]], repeat: int) -> dict[str, tuple[float, ...]]:
    """Each run `repeat` times, in turns (A B, B A, ...); for each, the measures of its fastest run."""
    got: dict[str, list[tuple[float, ...]]] = {key: [] for key in runs}
    for turn in range(repeat):
        for key in (list(runs) if turn % 2 == 0 else list(reversed(runs))):
            got[key].append(runs[key]())
    return {key: min(values) for key, values in got.items()}


def batch(setup: Setup, n: int, **how: Any) -> tuple[float, float, float]:
    """(wall seconds, CPU of this process, CPU of the workers it joined) of one `run_batch`."""
    from fudge_combat.sim.batch import run_batch

    before, started = cpu_now(), time.perf_counter()
    run_batch(setup, 7, n, **how)
    wall, after = time.perf_counter() - started, cpu_now()
    return wall, after[0] - before[0], after[1] - before[1]


def on_dask(setup: Setup, n: int, client: Any, address: str) -> tuple[float, float, float]:
    """(wall seconds, CPU of this process, CPU of the cluster's workers) of one `run_batch` on the cluster."""
    before = sum(client.run(time.process_time).values())
    wall, own, _ = batch(setup, n, executor="dask", scheduler=address)
    return wall, own, sum(client.run(time.process_time).values()) - before


def row(preset: str, path: str, n: int, one: tuple[float, ...], other: tuple[float, ...]) -> str:
    wall, own, workers = other
    return (f"| {preset} ({path}) | {n:,} | {one[0]:.2f} s ({one[1]:.2f}) | {wall:.2f} s ({own:.2f} + {workers:.2f}) "
            f"| **{one[0] / wall:.2f}x** |")


def side_by_side(old: Path, presets: list[str], counts: list[int], repeat: int) -> None:
    """The command with `--jobs 1` and `--jobs 2` from another checkout's root and from this one, the four
    in turns, best wall clock of each; every run prints the same bytes."""
    load = os.getloadavg()
    print(f"old {old}, new {ROOT}; load average {load[0]:.2f} at the start; best of {repeat}, in turns\n")
    rows = []
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        for preset in presets:
            for n in counts:
                outputs: set[bytes] = set()

                def run(root: Path, jobs: int) -> tuple[float, ...]:
                    wall, own, workers, out = command(preset, n, jobs, scratch, root)
                    outputs.add(out)
                    return wall, own, workers

                got = in_turns({(label, jobs): (lambda root=root, jobs=jobs: run(root, jobs))
                                for label, root in (("old", old), ("new", ROOT)) for jobs in (1, 2)}, repeat)
                assert len(outputs) == 1, f"{preset}: the runs print different results"
                cells = [f"| {preset} | {n:,} |"]
                for label in ("old", "new"):
                    one, two = got[(label, 1)], got[(label, 2)]
                    cells.append(f" {one[0]:.2f} s ({one[1]:.2f}) | {two[0]:.2f} s ({two[1]:.2f} + {two[2]:.2f}) | "
                                 f"**{one[0] / two[0]:.2f}x** |")
                rows.append("".join(cells))
                print(rows[-1], flush=True)
    load = os.getloadavg()
    print("\n| preset | n | old `--jobs 1` | old `--jobs 2` | old speed-up | new `--jobs 1` | new `--jobs 2` "
          "| new speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(f"\nload average {load[0]:.2f} at the end")


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, nargs="+", default=[20000], help="fights per run (several: each)")
    parser.add_argument("--presets", nargs="+", default=list(DUELS), choices=list(DUELS))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measure, in turns (the best counts)")
    parser.add_argument("--no-dask", action="store_true", help="no Dask cluster")
    parser.add_argument("--no-run", action="store_true", help="the command line only (no run_batch in this process)")
    parser.add_argument("--old", type=Path, help="another checkout's root: its command beside this one's, in turns")
    args = parser.parse_args()
    if args.old:
        side_by_side(args.old.resolve(), args.presets, args.n, args.repeat)
        return
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start; "
          f"best of {args.repeat}, in turns\n", flush=True)
    setups = {preset: setup_for(preset) for preset in args.presets}
    paths = {preset: "fast" if fast_plan(setup, opening_of(setup)) is not None else "engine"
             for preset, setup in setups.items()}
    cli_rows, run_rows, dask_rows = [], [], []
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        for preset, setup in setups.items():
            start = in_turns({"one": lambda: command(preset, 1, 1, scratch)[:3]}, args.repeat)["one"]
            for n in args.n:
                outputs: dict[int, bytes] = {}

                def run_command(jobs: int) -> tuple[float, ...]:
                    wall, own, workers, out = command(preset, n, jobs, scratch)
                    outputs[jobs] = out
                    return wall, own, workers

                got = in_turns({"one": lambda: run_command(1), "two": lambda: run_command(2)}, args.repeat)
                assert outputs[1] == outputs[2], f"{preset}: --jobs 1 and --jobs 2 print different results"
                one, two = got["one"], got["two"]
                work = one[1] - start[1]  # CPU of the fights and their statistics, beyond a one-fight run
                bound = (start[1] + work) / (start[1] + work / 2)
                cli_rows.append(f"| {preset} ({paths[preset]}) | {n:,} | {start[0]:.2f} s ({start[1]:.2f}) | "
                                f"{one[0]:.2f} s ({one[1]:.2f}) | {two[0]:.2f} s ({two[1]:.2f} + {two[2]:.2f}) | "
                                f"**{one[0] / two[0]:.2f}x** | {bound:.2f}x |")
                print(cli_rows[-1], flush=True)
                if not args.no_run:
                    got = in_turns({"one": lambda: batch(setup, n, jobs=1), "two": lambda: batch(setup, n, jobs=2)},
                                   args.repeat)
                    run_rows.append(row(preset, paths[preset], n, got["one"], got["two"]))
                    print(run_rows[-1], flush=True)
    if not args.no_dask:  # after the rest: the cluster's scheduler runs in this process and its CPU counts here
        os.environ["DASK_LOGGING__DISTRIBUTED"] = "error"  # the cluster's workers too: no lines per worker
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            for preset, setup in setups.items():
                batch(setup, min(2000, max(args.n)), executor="dask", scheduler=cluster.scheduler_address)  # warm-up
                for n in args.n:
                    got = in_turns({"one": lambda: batch(setup, n, jobs=1),
                                    "dask": lambda: on_dask(setup, n, client, cluster.scheduler_address)}, args.repeat)
                    dask_rows.append(row(preset, paths[preset], n, got["one"], got["dask"]))
                    print(dask_rows[-1], flush=True)
    load = os.getloadavg()
    print("\nThe command, `fudge sim SHEETS -r PRESET -n N --seed 7 --json`, fresh processes; wall clock "
          "(CPU seconds: the command's process + its worker):\n")
    print("| preset (path) | n | start-up: `-n 1` | `--jobs 1` | `--jobs 2` | speed-up | bound |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(cli_rows))
    for rows, title, other in ((run_rows, "this process's workers", "`jobs=2`"),
                               (dask_rows, "the cluster's two workers, one thread each", "Dask")):
        if rows:
            print(f"\n`sim.batch.run_batch` (the run, after the imports) in this process, `jobs=1`, against "
                  f"{other}; wall clock (CPU seconds: this process + {title}):\n")
            print(f"| preset (path) | n | `jobs=1` | {other} | speed-up |")
            print("|---|---:|---:|---:|---:|")
            print("\n".join(rows))
    print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end")


if __name__ == "__main__":
    main()
