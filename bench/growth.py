"""Growth with the fight's length: replay, one command, append, undo and redo at 1k, 10k and 100k events,
two checkouts side by side.

    python bench/growth.py --old ../before [--new .] [--old-python PATH] [--new-python PATH]
                           [--sizes 1000,10000,100000] [--runs 3]

The fights are built once (`bench/replay.py`'s `build`, run by the new checkout: exchanges, rolls,
declarations, fudge points, undos and redos, fighters joining as others fall); each checkout then
reads and extends its own copy of each, so each writes and reads its own snapshots. Every figure
is CPU time (user + system) of a child process started from the checkout's root by that checkout's
own interpreter (`--old-python`, `--new-python`; by default `<root>/.venv/bin/python`: the project
installs as one package, `fudge_combat`, so the interpreter, not PYTHONPATH, chooses the code, and a
child refuses to run other code; `bench/checkouts.py`), so the machine's other load counts little; old
and new run in turns (A B A B), and each figure is the median of `--runs`:

- replay: `Fights(store).state(name)` with no snapshot key (a replay from scratch through the
  service), µs per event: each child replays the fight at least twice (a short one until
  20,000 events are folded) and keeps the least, so no size pays the process's first-use costs
  (schemas built on first use) and the others not; and the peak RSS of a child that replays it
  once;
- command: `fudge attack A B` (dice that always miss) as a fresh process on the fight, its
  snapshot in place (one warm-up run first): CPU time and peak RSS;
- append, undo, redo: in one warm process (the service as a long-lived writer holds it), a trait
  roll appended, then an undo and a redo, each timed alone, median over `--steps`; then the
  append again with the status read model stored beside it (store.views, as every `fudge` command
  writes it; the first service is made with `views=False`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from checkouts import CHECK, add_options, environment, python_for, readable_copy

HERE = Path(__file__).resolve().parent.parent

PRELUDE = CHECK + """import importlib.util, json, logging, os, resource, sys, time
from pathlib import Path
import structlog
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
def bench(name):
    spec = importlib.util.spec_from_file_location("bench_" + name, Path("bench") / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
cpu = time.process_time
"""

BUILD = PRELUDE + """r = bench("replay")
count, kinds, _ = r.build(Path(sys.argv[1]), "long", int(sys.argv[2]))
print(json.dumps({"events": count, "commands": kinds}))
"""

REPLAY = PRELUDE + """from fudge_combat.store.sqlite import SqliteStore
from fudge_combat.service.fights import Fights
store = SqliteStore(sys.argv[1])
events = store.last_seq("long")
times = []
# Timed: replayed at least twice, the least kept (no first-use cost); for the peak RSS: once.
for _ in range(1 if sys.argv[2] == "rss" else max(2, 20_000 // events)):
    started = cpu()
    state = Fights(store).state("long")
    times.append(cpu() - started)
    del state
print(json.dumps({"seconds": min(times), "events": events,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

LATENCY = PRELUDE + """from fudge_combat.engine import commands as cmd
from fudge_combat.store.sqlite import SqliteStore
from fudge_combat.service.fights import DiceInput, Fights
try:
    from fudge_combat.engine.kernel.dice import parse_faces
except ImportError:  # a baseline from before the rulesets' packages: engine/ was one folder
    from fudge_combat.engine.dice import parse_faces
def service(views):
    try:  # a baseline from before the board's projection: the CLI handed its read model to the service
        from fudge_combat.cli.views import STATUS
    except ImportError:
        return Fights(SqliteStore(sys.argv[1]), views=views)
    return Fights(SqliteStore(sys.argv[1]), read_models=(STATUS,) if views else ())
fights = service(views=False)  # the append alone; the read model below
state = fights.state("long")
roller = next(c.name for c in state.combatants.values() if c.track.can_act)
fights.execute("long", cmd.StartRound())  # the service warm, as a long-lived writer holds it
times = {"append": [], "undo": [], "redo": []}
for _ in range(int(sys.argv[2])):
    for key, command in (("append", cmd.RollTrait(combatant=roller, trait="Perception", difficulty=1)),
                         ("undo", cmd.Undo()), ("redo", cmd.Redo())):
        dice = DiceInput()
        dice.by_roller[roller.lower()] = [parse_faces("+0-0")]  # typed: no seed needed
        started = cpu()
        fights.execute("long", command, dice if key == "append" else None)
        times[key].append(cpu() - started)
viewed = service(views=True)  # the same append as the CLI makes it: with the status read model
viewed.execute("long", cmd.StartRound())
times["viewed"] = []
for _ in range(int(sys.argv[2])):
    dice = DiceInput()
    dice.by_roller[roller.lower()] = [parse_faces("+0-0")]
    started = cpu()
    viewed.execute("long", cmd.RollTrait(combatant=roller, trait="Perception", difficulty=1), dice)
    times["viewed"].append(cpu() - started)
print(json.dumps(times))
"""

EVENTS = PRELUDE + """from fudge_combat.store.sqlite import SqliteStore
print(SqliteStore(sys.argv[1]).last_seq("long"))
"""

PAIR = PRELUDE + """from fudge_combat.store.sqlite import SqliteStore
from fudge_combat.service.fights import Fights
state = Fights(SqliteStore(sys.argv[1])).state("long")
print(json.dumps([c.name for c in state.combatants.values() if c.track.can_act][:2]))
"""


PYTHONS: dict[Path, str] = {}  # each checkout's root: its interpreter (`python_for`)


def child(root: Path, code: str, *args: str, env: dict[str, str]) -> Any:
    done = subprocess.run([PYTHONS[root], "-c", code, *args], cwd=root, capture_output=True, text=True,
                          env=environment(env))
    if done.returncode:
        sys.exit(f"error: a child in {root} failed:\n{done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def command(root: Path, argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """CPU seconds and peak RSS (KiB) of one `fudge` command run as a fresh process."""
    process = subprocess.Popen([PYTHONS[root], "-m", "fudge_combat.cli.main", *argv], cwd=root,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment(env))
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        sys.exit(f"error: `fudge {' '.join(argv)}` in {root} exited {process.returncode}: "
                 f"{process.stderr.read().decode()[-1000:] if process.stderr else ''}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="root of the checkout before the change")
    parser.add_argument("--new", type=Path, default=HERE, help="root of the checkout after it (default: this one)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="fight lengths, in events")
    parser.add_argument("--runs", type=int, default=3, help="children per figure and checkout")
    parser.add_argument("--steps", type=int, default=5, help="appends, undos and redos timed in each latency child")
    parser.add_argument("--latency-runs", type=int, default=1, help="latency children per checkout, in turns")
    parser.add_argument("--fights", type=Path, help="a folder of fights built before (f<size>.db), reused")
    parser.add_argument("--only", choices=("all", "latency", "command"), default="all",
                        help="measure only the warm-service latencies, or only those and the command")
    add_options(parser)
    args = parser.parse_args()
    roots = {"old": args.old.resolve(), "new": args.new.resolve()}
    PYTHONS.update({roots["old"]: python_for(roots["old"], args.old_python),
                    roots["new"]: python_for(roots["new"], args.new_python)})
    sizes = [int(size) for size in args.sizes.split(",")]
    for root in roots.values():
        subprocess.run([PYTHONS[root], "-m", "compileall", "-q", *(str(root / p) for p in (
            "engine", "events", "projections", "store", "service", "sim", "cli", "examples"))],
            check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as folder:
        base = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "XDG_STATE_HOME": str(Path(folder) / "state")}
        no_key = {**base, "FUDGE_KEY_FILE": str(Path(folder) / "none" / "snapshot.key")}
        results: dict[tuple[str, int], dict[str, Any]] = {}
        for size in sizes:
            built = args.fights / f"f{size}.db" if args.fights else Path(folder) / f"f{size}.db"
            if not built.exists():
                print(f"building {size:,} events ...", file=sys.stderr)
                # A key of its own: built with `no_key`, the build made that key and its snapshots, and the
                # new checkout's "replays" then read them (the old one's code digest refused them).
                child(roots["new"], BUILD, str(built), str(size),
                      env={**base, "FUDGE_KEY_FILE": str(Path(folder) / "build" / "snapshot.key")})
            copies = {}
            for label in roots:  # each the same rows, at the store schema its checkout reads
                copies[label] = readable_copy(built, Path(folder) / f"{label}-{size}.db", PYTHONS[roots[label]],
                                              roots[label])
            samples: dict[str, dict[str, list[Any]]] = {label: {} for label in roots}
            for run in range(args.runs if args.only == "all" else 0):
                order = list(roots) if run % 2 == 0 else list(roots)[::-1]
                for label in order:
                    got = child(roots[label], REPLAY, str(copies[label]), "time", env=no_key)
                    samples[label].setdefault("replay", []).append(got["seconds"])
                    got = child(roots[label], REPLAY, str(copies[label]), "rss", env=no_key)
                    samples[label].setdefault("rss", []).append(got["rss"])
                    samples[label]["events"] = [got["events"]]
            for label in roots:
                samples[label].setdefault("replay", [float("nan")])
                samples[label].setdefault("rss", [0])
                samples[label].setdefault("events", [child(roots[label], EVENTS, str(copies[label]), env=no_key)])
            for label in roots:  # each checkout's own key and snapshot, a warm-up command writing it
                env = {**base, "FUDGE_KEY_FILE": str(Path(folder) / label / "snapshot.key")}
                samples[label]["env"] = [env]
                a, b = child(roots[label], PAIR, str(copies[label]), env=env)
                samples[label]["argv"] = [["--store", str(copies[label]), "attack", a, b, "--fight", "long",
                                           "--dice", f"{a}=----", "--dice", f"{b}=++++"]]
                command(roots[label], samples[label]["argv"][0], env)
            for run in range(args.runs if args.only != "latency" else 0):
                order = list(roots) if run % 2 == 0 else list(roots)[::-1]
                for label in order:
                    seconds, rss = command(roots[label], samples[label]["argv"][0], samples[label]["env"][0])
                    samples[label].setdefault("command", []).append(seconds)
                    samples[label].setdefault("command_rss", []).append(rss)
            for label in roots:
                samples[label].setdefault("command", [float("nan")])
                samples[label].setdefault("command_rss", [0])
            for run in range(args.latency_runs):  # each child's median kept; the median of those shown
                for label in (list(roots) if run % 2 == 0 else list(roots)[::-1]):
                    got = child(roots[label], LATENCY, str(copies[label]), str(args.steps),
                                env=samples[label]["env"][0])
                    for key, values in got.items():
                        samples[label].setdefault(key, []).append(statistics.median(values))
            for label in roots:
                s = samples[label]
                results[(label, size)] = {
                    "events": s["events"][0],
                    "replay_us": statistics.median(s["replay"]) / s["events"][0] * 1e6,
                    "rss_mib": max(s["rss"]) / 1024,
                    "command_ms": statistics.median(s["command"]) * 1000,
                    "command_mib": statistics.median(s["command_rss"]) / 1024,
                    **{key: statistics.median(s[key]) * 1000 for key in ("append", "undo", "redo", "viewed")},
                }
                print(f"  {label} {size:,}: " + ", ".join(f"{k} {v:,.1f}" for k, v in results[(label, size)].items()),
                      file=sys.stderr)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; CPU time, median of {args.runs} "
          f"(latencies: of {args.steps}), old and new in turns")
    rows = [("measure", *[f"{label} {size // 1000}k" for size in sizes for label in roots])]
    for key, name, unit in (("replay_us", "replay from scratch, µs per event", "{:.1f}"),
                            ("rss_mib", "peak RSS of that replay, MiB", "{:.0f}"),
                            ("command_ms", "`fudge attack`, fresh process, CPU ms", "{:.0f}"),
                            ("command_mib", "`fudge attack`, peak RSS, MiB", "{:.0f}"),
                            ("append", "append a trait roll (warm service), CPU ms", "{:.2f}"),
                            ("undo", "undo (warm service), CPU ms", "{:.2f}"),
                            ("redo", "redo (warm service), CPU ms", "{:.2f}"),
                            ("viewed", "append with the status read model, as the CLI writes, CPU ms", "{:.2f}")):
        rows.append((name, *[unit.format(results[(label, size)][key]) for size in sizes for label in roots]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        print("| " + " | ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                                for i, (cell, w) in enumerate(zip(row, widths))) + " |")
        if index == 0:
            print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|")
    print(json.dumps({f"{label} {size}": value for (label, size), value in results.items()}))


if __name__ == "__main__":
    main()
