"""Two checkouts of this project measured side by side: replay, one-shot commands, `fudge sim`.

    python bench/side_by_side.py --old ../before [--new .] [--old-python PATH] [--new-python PATH]
                                 [--rounds 3] [--runs 15]

Each checkout is measured with its own code and its own bench scripts (`bench/replay.py`'s `build`,
`full`, `floor` and `cold`; `bench/sim.py`'s `setup_for`), in child processes started from its root by
its own interpreter (`--old-python`, `--new-python`; by default `<root>/.venv/bin/python`, a venv with
that checkout installed editable), so nothing of one checkout is imported by the other: the project
installs as one package, `fudge_combat`, so the interpreter, not PYTHONPATH, chooses the code, and each
child refuses to run if its `fudge_combat` is not under its root (`bench/checkouts.py`). Old and new run in
turns (A B A B ..., the order swapped every round) so that load from elsewhere on a shared
machine hits both alike; each figure is the median over the rounds (or the runs).

- replay: each checkout's `bench/replay.py` `full` (`Fights(store)._replay` since the derived decoder,
  `Fights.replayed` before) of a ~10,000-event fight from SQLite into every projection, median of
  `--replays` in each child, `--rounds` children per checkout;
- commands: `fudge status` and `fudge attack A B` (dice that always miss) on a ~1,000-event fight,
  fresh processes (`python -m fudge_combat.cli.main`), next to `python -c "import pydantic, typer"` (the
  new checkout's interpreter): wall clock and CPU time (user + system) of the child, median of `--runs`
  (the least and the most printed as they come), after one warm-up run of each;
- sim: `sim.parallel.run_serial` of `--duels` plain-policy duels per preset (the light path of
  `fudge sim`, one process), duels per CPU second of the child, `--rounds` children per checkout.

Both trees are byte-compiled first (`compileall`): this machine sets PYTHONDONTWRITEBYTECODE=1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from checkouts import CHECK, add_options, environment, python_for

HERE = Path(__file__).resolve().parent.parent

PRELUDE = CHECK + """import importlib.util, json, logging, sys, time
from pathlib import Path
import structlog
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
def bench(name):
    spec = importlib.util.spec_from_file_location("bench_" + name, Path("bench") / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
"""

BUILD = PRELUDE + """r = bench("replay")
path = Path(sys.argv[1])
long, _, _ = r.build(path, "long", int(sys.argv[2]))
short, _, _ = r.build(path, "short", int(sys.argv[3]))
print(json.dumps({"long": long, "short": short, "pair": r.able_pair(path, "short")}))
"""

REPLAY = PRELUDE + """r = bench("replay")
path = Path(sys.argv[1])
print(json.dumps(r.interleaved({"floor": lambda: r.floor(path, "long"), "full": lambda: r.full(path, "long"),
                                "cold": lambda: r.cold(path, "long")}, int(sys.argv[2]))))
"""

SIM = PRELUDE + """s = bench("sim")
from fudge_combat.sim.parallel import run_serial
rates = {}
for preset in sys.argv[2:]:
    setup = s.setup_for(preset, "plain")
    run_serial(setup, 1, 20)
    started = time.process_time()
    run_serial(setup, 1, int(sys.argv[1]))
    rates[preset] = int(sys.argv[1]) / (time.process_time() - started)
print(json.dumps(rates))
"""

PRESETS = ("fudge", "fudge-phases", "atari-isev", "fate")


def child(python: str, root: Path, code: str, *args: str) -> Any:
    """Run `code` in a fresh `python` from `root` (that checkout's interpreter); its JSON answer."""
    done = subprocess.run([python, "-c", code, *args], cwd=root, env=environment(), capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"error: a child process in {root} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_turns(labels: list[str], rounds: int, measure: Callable[[str], Any]) -> dict[str, list[Any]]:
    """`measure(label)` for each checkout in turns, the order swapped every round."""
    results: dict[str, list[Any]] = {label: [] for label in labels}
    for turn in range(rounds):
        for label in labels if turn % 2 == 0 else list(reversed(labels)):
            results[label].append(measure(label))
    return results


def commands(roots: dict[str, Path], pythons: dict[str, str], fights: dict[str, Any], dbs: dict[str, Path],
             runs: int) -> dict[str, list[tuple[float, float]]]:
    """Wall-clock and CPU seconds of `fudge status`, `fudge attack` per checkout and of the imports, each run,
    all in turns."""
    calls = {}
    for label in roots:
        base = [pythons[label], "-m", "fudge_combat.cli.main"]
        db, (a, b) = dbs[label], fights[label]["pair"]
        env = {**environment(), "FUDGE_STORE": str(db)}
        calls[f"{label} status"] = (base + ["--store", str(db), "status", "--fight", "short"], env, db.parent)
        calls[f"{label} attack"] = (base + ["--store", str(db), "attack", a, b, "--fight", "short",
                                            "--dice", f"{a}=----", "--dice", f"{b}=++++"], env, db.parent)
    calls["imports"] = ([pythons["new"], "-c", "import pydantic, typer"], environment(), HERE)

    def run(key: str) -> tuple[float, float]:
        """Wall-clock and CPU (user + system) seconds of one run."""
        argv, env, cwd = calls[key]
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        if status:
            sys.exit(f"error: `{' '.join(argv)}` failed:\n{process.stderr.read().decode().strip() if process.stderr else ''}")
        if process.stderr:
            process.stderr.close()
        return seconds, usage.ru_utime + usage.ru_stime

    for key in calls:  # warm-up: OS caches, and the read model `fudge status` shows
        run(key)
    samples: dict[str, list[tuple[float, float]]] = {key: [] for key in calls}
    keys = list(calls)
    for turn in range(runs):
        for key in keys if turn % 2 == 0 else reversed(keys):
            samples[key].append(run(key))
    return samples


def ratio(new: float, old: float) -> str:
    return f"{new / old:.2f}x"


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def spread(values: list[float], scale: float = 1000) -> str:
    """The least and the most of `values`, scaled (ms by default): the spread of a median."""
    return f"{min(values) * scale:,.0f}-{max(values) * scale:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="root of the checkout before the change")
    parser.add_argument("--new", type=Path, default=HERE, help="root of the checkout after it (default: this one)")
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--status-events", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=3, help="child processes per checkout for replay and sim")
    parser.add_argument("--replays", type=int, default=7, help="replays per child")
    parser.add_argument("--runs", type=int, default=15, help="runs of each one-shot command")
    parser.add_argument("--duels", type=int, default=1000, help="duels per preset per child")
    parser.add_argument("--skip", nargs="*", default=[], choices=["replay", "commands", "sim"])
    add_options(parser)
    args = parser.parse_args()
    roots = {"old": args.old.resolve(), "new": args.new.resolve()}
    pythons = {"old": python_for(roots["old"], args.old_python), "new": python_for(roots["new"], args.new_python)}
    labels = list(roots)
    for label, root in roots.items():
        packages = [p for p in ("engine", "events", "projections", "store", "service", "sim", "cli", "examples")
                    if (root / p).is_dir()]
        subprocess.run([pythons[label], "-m", "compileall", "-q", *packages], cwd=root, check=True,
                       capture_output=True)
    print(f"old: {roots['old']} ({pythons['old']}); new: {roots['new']} ({pythons['new']})")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load average at start {load()}")
    rows = [("measure", "old", "new", "new/old")]
    with tempfile.TemporaryDirectory() as folder:
        dbs = {label: Path(folder) / label / "bench.db" for label in roots}
        fights = {}
        for label, root in roots.items():
            dbs[label].parent.mkdir()
            fights[label] = child(pythons[label], root, BUILD, str(dbs[label]), str(args.events),
                                  str(args.status_events))
        if "replay" not in args.skip:
            got = in_turns(labels, args.rounds, lambda label: child(
                pythons[label], roots[label], REPLAY, str(dbs[label]), str(args.replays)))
            for key, name in (("full", f"replay from scratch, {fights['new']['long']:,} events"),
                              ("cold", "cached projection (next command's read)"),
                              ("floor", "floor: SELECT + json.loads")):
                old, new = (statistics.median(r[key] for r in got[label]) for label in ("old", "new"))
                rows.append((name, f"{old * 1000:.0f} ms", f"{new * 1000:.0f} ms", ratio(new, old)))
                print(f"  {name}: old {[round(r[key] * 1000) for r in got['old']]} ms, "
                      f"new {[round(r[key] * 1000) for r in got['new']]} ms", flush=True)
            print(f"  load average after the replays {load()}", flush=True)
        if "commands" not in args.skip:
            procs = commands(roots, pythons, fights, dbs, args.runs)
            for what in ("status", "attack"):
                for index, clock in enumerate(("wall clock", "CPU")):
                    got = {label: [run[index] for run in procs[f"{label} {what}"]] for label in ("old", "new")}
                    old, new = (statistics.median(got[label]) for label in ("old", "new"))
                    rows.append((f"`fudge {what}`, {fights['new']['short']:,}-event fight, fresh process, {clock}",
                                 f"{old * 1000:.0f} ms", f"{new * 1000:.0f} ms", ratio(new, old)))
                    print(f"  {what}, {clock}: old {spread(got['old'])} ms, new {spread(got['new'])} ms "
                          f"(least-most of {args.runs})", flush=True)
            for index, clock in enumerate(("wall clock", "CPU")):
                rows.append((f'`python -c "import pydantic, typer"`, {clock}',
                             f"{statistics.median(run[index] for run in procs['imports']) * 1000:.0f} ms", "", ""))
            print(f"  load average after the commands {load()}", flush=True)
        if "sim" not in args.skip:
            got = in_turns(labels, args.rounds, lambda label: child(
                pythons[label], roots[label], SIM, str(args.duels), *PRESETS))
            for preset in PRESETS:
                old, new = (statistics.median(r[preset] for r in got[label]) for label in ("old", "new"))
                rows.append((f"`fudge sim` {preset}, duels per CPU second", f"{old:,.0f}", f"{new:,.0f}",
                             ratio(new, old)))
                print(f"  sim {preset}: old {[round(r[preset]) for r in got['old']]}, "
                      f"new {[round(r[preset]) for r in got['new']]}", flush=True)
    print(f"load average at end {load()}")
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for number, row in enumerate(rows):
        print("| " + " | ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                                for i, (cell, w) in enumerate(zip(row, widths))) + " |")
        if number == 0:
            print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|")


if __name__ == "__main__":
    main()
