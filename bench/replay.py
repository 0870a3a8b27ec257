"""Replay throughput, command latency and appends, measured side by side on this machine.

    .venv/bin/python bench/replay.py [--events 10000] [--status-events 1000] [--runs 15] [--profile]
    .venv/bin/python bench/replay.py --commands-only [--status-events 1000] [--runs 15]

1. Builds a `fudge` fight of about N events in a SQLite store through the same service
   the CLI uses (service.fights.Fights): exchanges, trait rolls, declarations, fudge-point
   spends, undos and redos, new rounds, fresh fighters joining as others fall. Then times,
   interleaved (median of several runs, each on a fresh connection):
   - the floor: SELECT of the fight's rows plus json.loads of each body (and the same with the
     garbage collector paused, as the replay runs: store.bulk);
   - full replay: what the service does when it has no cached projection (Loader.rebuild): the
     voiding rows first, then the same rows a page at a time, every one validated (the derived
     decoder, events.decoder) and folded into every projection (projections.rebuild); and the log
     as records (events.records.load_all) folded by projections.fold.replay
     (Fights.replayed);
   - the parse alone and the fold alone, to show where the time goes;
   - a cold read through the service (`Fights(...).state`): the cached projection, if valid;
   - the peer: the `eventsourcing` library (9.5.x, SQLite recorder) replaying one aggregate of
     as many events (bench/peer_eventsourcing.py, run in its own venv, `.venv-peer`, made on
     first use with pip; `--peer-python` to use another interpreter, `--no-peer` to skip).
2. Builds a fight of about M events and times `fudge status` and `fudge attack` on it as fresh
   processes, next to `python -c "import pydantic, typer"`, the floors of a pydantic model and of
   a one-option Typer program, and `python -c pass` (`--commands-only`: only this).
3. Appends: a short durable run (the store's own `synchronous=FULL`, one transaction per
   command, as the CLI writes) gives commands/s; undo/redo latency on the long fight.

The long fights are written with `PRAGMA synchronous=OFF` so that building them is quick (what
is measured is reading them back). `--profile` adds cProfile's top functions for one replay.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import json
import logging
import os
import pstats
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import structlog  # noqa: E402

from fudge_combat.events.records import json_form  # noqa: E402
from fudge_combat.engine import commands as cmd  # noqa: E402
from fudge_combat.engine.kernel.errors import RuleError  # noqa: E402
from fudge_combat.engine.kernel.presets import resolve  # noqa: E402
from fudge_combat.events.structs import Declaration  # noqa: E402
from fudge_combat.projections.fold import replay  # noqa: E402
from fudge_combat.store.bulk import paused_gc  # noqa: E402
from fudge_combat.service.fights import Fights  # noqa: E402
from fudge_combat.store.sqlite import SqliteStore  # noqa: E402

HOUSE = 'extends = "fudge"\ndamage_roll = "4dF_limited"\n'


def sheet(name: str, number: int) -> dict[str, Any]:
    """Sturdy fighters (Superb damage capacity, armor) so a fight lasts many exchanges."""
    return {"name": name, "kind": "pc", "fudge_points": 3,
            "attributes": {"Strength": "Good", "Damage Capacity": "Superb", "Perception": "Fair"},
            "skills": {"Sword": ["Fair", "Good", "Great"][number % 3]},
            "combat": {"attack": "Sword", "defend": "Sword"},
            "weapon": {"name": "sword", "damage": 1 + number % 2}, "armor": {"name": "mail", "protection": 2}}


def build(path: Path, name: str, events: int, durable: bool = False) -> tuple[int, dict[str, int], float]:
    """Write a fight of at least `events` events; returns (events, commands by kind, seconds)."""
    store = SqliteStore(path)
    if not durable:
        store.db.execute("PRAGMA synchronous=OFF")
    fights = Fights(store, views=False)
    label, options = resolve("fudge", HOUSE)
    started = time.perf_counter()
    fights.new(name, label, json_form(options))
    kinds: dict[str, int] = {}
    numbers = itertools.count()
    fighters: list[str] = []
    latest: list[Any] = [None]  # the state the last command returned (no replay while building)

    def run(command: Any) -> bool:
        try:
            latest[0] = fights.execute(name, command).state
        except RuleError:
            return False
        kinds[type(command).__name__] = kinds.get(type(command).__name__, 0) + 1
        return True

    def recruit() -> None:
        """Whoever cannot act leaves the rotation; fresh fighters join until three can fight."""
        state = latest[0]
        if state is not None:
            fighters[:] = [f for f in fighters if state.find(f) and state.find(f).track.can_act]
        while len(fighters) < 3:
            number = next(numbers)
            who = f"F{number}"
            run(cmd.Join(sheet=sheet(who, number), source="bench"))
            fighters.append(who)

    recruit()
    step = 0
    while store.last_seq(name) < events:
        step += 1
        a, b = fighters[step % 3], fighters[(step + 1) % 3]
        # Undo, redo and fudge-point spends void events: about one command in twelve (they once
        # replayed the whole log; engine.kernel.rewind and service.step.refolded answer them now).
        if step % 61 == 0:
            done = run(cmd.Undo()) and run(cmd.Undo()) and run(cmd.Redo())
        elif step % 41 == 0:
            done = run(cmd.SpendPoint(combatant=a, use="luck"))
        elif step % 37 == 0:
            done = run(cmd.SpendPoint(combatant=b, use="skill", shift=1))
        elif step % 11 == 0:
            done = run(cmd.RollTrait(combatant=b, trait="Perception", difficulty=1))
        elif step % 7 == 0:
            done = run(cmd.Declare(combatant=a, declaration=Declaration(all_out="offense")))
        elif step % 5 == 0:
            done = run(cmd.StartRound())
        else:
            done = run(cmd.Exchange(first=a, second=b))
        if not done:
            recruit()
    seconds = time.perf_counter() - started
    count = store.last_seq(name)
    store.close()
    return count, kinds, seconds


def command_latency(path: Path, name: str, runs: int = 6) -> tuple[float, float]:
    """Median seconds of one trait roll, and of one undo or redo, on the long fight (durable store, warm service)."""
    fights = Fights(SqliteStore(path), views=False)
    state = fights.state(name)
    roller = next(c.name for c in state.combatants.values() if c.track.can_act)
    fights.execute(name, cmd.StartRound())  # loads the log into the service once, as a long-lived writer would
    rolls, voiding = [], []
    for _ in range(runs):
        started = time.perf_counter()
        fights.execute(name, cmd.RollTrait(combatant=roller, trait="Perception", difficulty=1))
        rolls.append(time.perf_counter() - started)
        for command in (cmd.Undo(), cmd.Redo()):
            started = time.perf_counter()
            fights.execute(name, command)
            voiding.append(time.perf_counter() - started)
    fights.store.close()
    return statistics.median(rolls), statistics.median(voiding)


def median_time(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


SELECT = "SELECT e.body FROM events e JOIN fights f ON e.fight = f.id WHERE f.name = ? ORDER BY e.seq"


def floor(path: Path, name: str) -> int:
    """The least any replay must do: read the rows, parse the JSON."""
    db = sqlite3.connect(path)
    bodies = [json.loads(body) for (body,) in db.execute(SELECT, (name,))]
    db.close()
    return len(bodies)


PEER_SELECT = "SELECT state FROM stored_events ORDER BY originator_id, originator_version"


def peer_floor(path: Path) -> tuple[int, float]:
    """The same floor on the peer's own rows (its SQLite recorder's table): (rows, bytes per row)."""
    db = sqlite3.connect(path)
    states = [state for (state,) in db.execute(PEER_SELECT)]
    bodies = [json.loads(state) for state in states]
    db.close()
    return len(bodies), sum(map(len, states)) / len(states)


def floor_paused(path: Path, name: str) -> int:
    """The floor with the cyclic garbage collector paused, as the replay runs (store.bulk)."""
    with paused_gc():
        return floor(path, name)


def fold_paused(records: list[Any]) -> Any:
    with paused_gc():
        return replay(records)


def parse(path: Path, name: str) -> list[Any]:
    """The log as the service reads it: every body parsed and validated (Fights.log)."""
    store = SqliteStore(path)
    records = Fights(store).log(name)
    store.close()
    return records


def full(path: Path, name: str) -> Any:
    """What a command does without a cached projection (`Loader.rebuild`): the voiding rows first, then every
    row read a page at a time, validated (the derived decoder, events.decoder) and folded into every
    projection (projections.rebuild)."""
    store = SqliteStore(path)
    state = Fights(store).loader.rebuild(name, store.last_seq(name))
    store.close()
    return state


def same_states(path: Path, name: str) -> Any:
    """The three reads give one state (checked with the store open: a replay leaves its actions' events in
    the log, read back when compared)."""
    store = SqliteStore(path)
    fights = Fights(store)
    state = fights.loader.rebuild(name, store.last_seq(name))
    assert Fights(store).state(name) == state, "the cached projection is the replayed state"
    assert Fights(store).replayed(name)[1] == state, "the replay from scratch is the records' fold"
    store.close()
    return state


def records_and_fold(path: Path, name: str) -> Any:
    """The log as pydantic records and their fold (`Fights.replayed`: what `fudge verify` and the tests read)."""
    store = SqliteStore(path)
    _, state = Fights(store).replayed(name)
    store.close()
    return state


def cold(path: Path, name: str) -> Any:
    """What the next `fudge` command reads: the service on a fresh connection (the cached projection)."""
    store = SqliteStore(path)
    state = Fights(store).state(name)
    store.close()
    return state


def interleaved(fns: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    """Median seconds of each function, run in turns so that load on the machine hits them alike."""
    samples: dict[str, list[float]] = {key: [] for key in fns}
    for _ in range(runs):
        for key, fn in fns.items():
            started = time.perf_counter()
            fn()
            samples[key].append(time.perf_counter() - started)
    return {key: statistics.median(values) for key, values in samples.items()}


PEER = ROOT / ".venv-peer"
PACKAGES = ("engine", "events", "projections", "store", "service", "sim", "cli", "examples")


def peer_python(given: str | None) -> str:
    """An interpreter with `eventsourcing` 9.5.x: the given one, or a venv made on first use."""
    if given:
        return given
    python = PEER / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PEER)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "eventsourcing>=9.5,<9.6"], check=True)
    return str(python)


def peer(python: str, folder: str, events: int, replays: int) -> dict[str, Any]:
    out = subprocess.run([python, str(ROOT / "bench" / "peer_eventsourcing.py"), "--events", str(events),
                          "--replays", str(replays), "--db", str(Path(folder) / "peer.db")],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def profile(path: Path, name: str, top: int = 18) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    full(path, name)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def table(rows: list[tuple[str, str, str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = []
    for index, row in enumerate(rows):
        lines.append(f"| {row[0]:<{widths[0]}} | {row[1]:>{widths[1]}} | {row[2]:<{widths[2]}} |")
        if index == 0:
            lines.append(f"|{'-' * (widths[0] + 2)}|{'-' * (widths[1] + 1)}:|{'-' * (widths[2] + 2)}|")
    return "\n".join(lines)


def able_pair(path: Path, name: str) -> tuple[str, str]:
    state = cold(path, name)
    names = [c.name for c in state.combatants.values() if c.track.can_act]
    return names[0], names[1]


TYPER_COMMAND = """import sys, typer
app = typer.Typer(add_completion=False)
@app.command()
def status(fight: str = typer.Option("", "--fight")) -> None:
    pass
sys.argv = ["fudge", "--fight", "short"]
app()
"""


def quiet(argv: list[str], folder: str, env: dict[str, str]) -> None:
    """Run one command, its output kept; if it fails, stop with what it wrote on stderr, not a bare exit status."""
    done = subprocess.run(argv, capture_output=True, text=True, cwd=folder, env=env)
    if done.returncode:
        sys.exit(f"error: `{' '.join(argv)}` exited {done.returncode}:\n{done.stderr.strip()}")


def commands(path: Path, folder: str, fudge_cmd: list[str], runs: int) -> dict[str, float]:
    """Median seconds of `fudge status` and `fudge attack` as fresh processes, with the imports and floors next to them.

    The fight was written by the service alone: the warm-up `fudge attack` leaves the read model
    `fudge status` shows (cli.views), as any `fudge` command does.
    """
    # Python writes no bytecode cache here (PYTHONDONTWRITEBYTECODE=1): without one every `fudge`
    # would compile this project's sources at start, while pydantic and typer come compiled.
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(ROOT / p) for p in PACKAGES)],
                   check=True, capture_output=True)
    # The commands run in the temporary folder, as a user would; the project is not installed,
    # so its root goes on the path (before any PYTHONPATH given) or `-m fudge_combat.cli.main` is not found.
    path_entries = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "FUDGE_STORE": str(path), "PYTHONPATH": os.pathsep.join(path_entries)}
    status = fudge_cmd + ["--store", str(path), "status", "--fight", "short"]
    a, b = able_pair(path, "short")
    attack = fudge_cmd + ["--store", str(path), "attack", a, b, "--fight", "short",
                          "--dice", f"{a}=----", "--dice", f"{b}=++++"]  # always a miss: the fight can go on
    quiet(status, folder, env)  # warm the OS caches
    quiet(attack, folder, env)
    python = [sys.executable, "-c"]
    runs_of = {"status": status, "attack": attack, "imports": python + ["import pydantic, typer"],
               "one_model": python + ["import pydantic, typer\nclass A(pydantic.BaseModel):\n    x: int"],
               "typer": python + [TYPER_COMMAND],
               "typer_engine": python + ["import fudge_combat.events.models, fudge_combat.engine.decide\n" + TYPER_COMMAND],
               "bare": python + ["pass"]}
    return interleaved({key: (lambda c=c: quiet(c, folder, env))
                        for key, c in runs_of.items()}, runs)


def command_rows(small: int, procs: dict[str, float]) -> list[tuple[str, str, str]]:
    ratio = lambda key: procs[key] / procs["imports"]  # noqa: E731
    return [
        (f"`fudge status`, {small:,}-event fight (subprocess)", f"{procs['status'] * 1000:.0f} ms",
         f"{ratio('status'):.2f}x the imports (target <= 1.5)"),
        (f"`fudge attack`, {small:,}-event fight (subprocess)", f"{procs['attack'] * 1000:.0f} ms",
         f"{ratio('attack'):.2f}x the imports (target <= 1.5)"),
        ('`python -c "import pydantic, typer"`', f"{procs['imports'] * 1000:.0f} ms", ""),
        ('`python -c "import pydantic, typer"` + one `BaseModel` class', f"{procs['one_model'] * 1000:.0f} ms",
         f"{ratio('one_model'):.2f}x the imports: pydantic's model machinery loads here"),
        ("a Typer program of one command with one option, run", f"{procs['typer'] * 1000:.0f} ms",
         f"{ratio('typer'):.2f}x the imports: Typer coerces options with pydantic TypeAdapters"),
        ("the same + `import fudge_combat.events.models, fudge_combat.engine.decide` (what `fudge attack` must load)",
         f"{procs['typer_engine'] * 1000:.0f} ms", f"{ratio('typer_engine'):.2f}x the imports"),
        ('`python -c "pass"`', f"{procs['bare'] * 1000:.0f} ms", ""),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000, help="events in the replayed fight")
    parser.add_argument("--status-events", type=int, default=1_000, help="events in the `fudge status` fight")
    parser.add_argument("--runs", type=int, default=15, help="runs of each subprocess timing")
    parser.add_argument("--replays", type=int, default=7, help="runs of each replay timing")
    parser.add_argument("--durable-events", type=int, default=300, help="events written durably for the append rate")
    parser.add_argument("--peer-python", help="a Python with eventsourcing 9.5.x (default: .venv-peer, made on first use)")
    parser.add_argument("--no-peer", action="store_true", help="skip the eventsourcing comparison")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions for one full replay")
    parser.add_argument("--commands-only", action="store_true",
                        help="only the command timings (`fudge status`, `fudge attack` and the imports next to them)")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    fudge = Path(sys.executable).with_name("fudge")
    fudge_cmd = [str(fudge)] if fudge.exists() else [sys.executable, "-m", "fudge_combat.cli.main"]
    python = None if args.no_peer or args.commands_only else peer_python(args.peer_python)

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        if args.commands_only:
            small, _, _ = build(path, "short", args.status_events)
            procs = commands(path, folder, fudge_cmd, args.runs)
            print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
                  f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; subprocesses: median of {args.runs}, "
                  "interleaved")
            print(table([("measure", "median", "against the target"), *command_rows(small, procs)]))
            return
        count, kinds, build_s = build(path, "long", args.events)
        small, _, _ = build(path, "short", args.status_events)
        durable, durable_kinds, durable_s = build(Path(folder) / "durable.db", "durable", args.durable_events,
                                                  durable=True)

        records = parse(path, "long")
        size = sum(len(body.encode()) for (body,) in sqlite3.connect(path).execute(SELECT, ("long",))) / count
        times = interleaved({
            "floor": lambda: floor(path, "long"),
            "floor_paused": lambda: floor_paused(path, "long"),
            "parse": lambda: parse(path, "long"),
            "fold": lambda: fold_paused(records),
            "full": lambda: full(path, "long"),
            "records": lambda: records_and_fold(path, "long"),
            "cold": lambda: cold(path, "long"),
        }, args.replays)
        state = same_states(path, "long")
        the_peer = peer(python, folder, count, args.replays) if python else None
        # the floor once more, right after the peer, so both sides of the ratio see the same machine
        floor_after = median_time(lambda: floor(path, "long"), args.replays)
        if the_peer:
            peer_db = Path(folder) / "peer.db"
            peer_rows, peer_size = peer_floor(peer_db)
            peer_floor_s = median_time(lambda: peer_floor(peer_db), args.replays)

        procs = commands(path, folder, fudge_cmd, args.runs)
        hotspots = profile(path, "long") if args.profile else ""
        roll_s, voiding_s = command_latency(path, "long")

    floor_s, parse_s, fold_s, full_s, cold_s = (times[k] for k in ("floor", "parse", "fold", "full", "cold"))
    rate = lambda seconds: f"{count / seconds:,.0f} events/s"  # noqa: E731
    rows = [
        ("measure", "median", "rate; against the target"),
        (f"replay floor: SELECT + json.loads, {count:,} events", f"{floor_s * 1000:.0f} ms",
         f"{rate(floor_s)}; rows of {size:.0f} bytes on average"),
        ("the floor with the garbage collector paused", f"{times['floor_paused'] * 1000:.0f} ms",
         rate(times["floor_paused"])),
        (f"SELECT + load (pydantic envelope), {count:,} events", f"{parse_s * 1000:.0f} ms", rate(parse_s)),
        (f"fold.replay of parsed records, {count:,} events", f"{fold_s * 1000:.0f} ms", rate(fold_s)),
        (f"the log as pydantic records and their fold (`Fights.replayed`), {count:,} events",
         f"{times['records'] * 1000:.0f} ms", rate(times["records"])),
        (f"**replay from scratch: SELECT + decode + fold, {count:,} events**", f"{full_s * 1000:.0f} ms",
         f"{rate(full_s)}; {floor_s / full_s:.2f}x the floor's speed (target >= 0.5); "
         f"{times['floor_paused'] / full_s:.2f}x the paused floor's"),
        (f"**state as the next command reads it (cached projection), {count:,} events**",
         f"{cold_s * 1000:.0f} ms", f"{rate(cold_s)}; {floor_s / cold_s:.2f}x the floor's speed"),
    ]
    if the_peer:
        peer_s = statistics.median(the_peer["seconds"])
        rows += [
            (f"peer: eventsourcing {the_peer['version']} replays {the_peer['events']:,} events (SQLite)",
             f"{peer_s * 1000:.0f} ms", f"{the_peer['events'] / peer_s:,.0f} events/s "
             f"(floor just after: {floor_after * 1000:.0f} ms)"),
            (f"the peer's floor: SELECT + json.loads of its {peer_rows:,} rows", f"{peer_floor_s * 1000:.0f} ms",
             f"rows of {peer_size:.0f} bytes on average; 5x the peer's speed is {peer_s / 5 * 1000:.0f} ms"),
            ("**replay from scratch vs the peer**", f"{peer_s / full_s:.2f}x",
             f"faster (target >= 5); {peer_s / floor_after / (full_s / floor_s):.2f}x with each side "
             "divided by the floor timed next to it"),
            ("**cached projection vs the peer**", f"{peer_s / cold_s:.2f}x",
             f"faster (target >= 5); {peer_s / floor_after / (cold_s / floor_s):.2f}x floor-normalised"),
        ]
    rows += command_rows(small, procs) + [
        (f"one trait roll appended to the {count:,}-event fight (in-process)", f"{roll_s * 1000:.0f} ms",
         "folds only its new events"),
        (f"one undo or redo on the {count:,}-event fight (in-process)", f"{voiding_s * 1000:.0f} ms",
         "from the undo history (engine.kernel.rewind), no replay"),
        (f"appends, durable (synchronous=FULL), {sum(durable_kinds.values())} commands, {durable} events",
         f"{durable_s:.1f} s", f"{sum(durable_kinds.values()) / durable_s:,.0f} commands/s, "
         f"{durable / durable_s:,.0f} events/s"),
        (f"appends, build (synchronous=OFF), {count:,} events", f"{build_s:.1f} s",
         f"{sum(kinds.values()) / build_s:,.0f} commands/s, {count / build_s:,.0f} events/s"),
    ]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; replays: median of {args.replays}, "
          f"subprocesses: median of {args.runs}, interleaved")
    print(f"long fight: {count:,} events, {sum(kinds.values()):,} commands "
          f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
          f"{len(state.combatants)} combatants, round {state.round}")
    print(table(rows))
    if hotspots:
        print(hotspots)


if __name__ == "__main__":
    main()
