"""Replay from scratch against the eventsourcing peer: this checkout beside an older one, in one run.

    python bench/rebuild.py --old ../before [--old-python PATH] [--new-python PATH] [--events 10000] [--rounds 5]
                            [--replays 7] [--split] [--prototypes]

Builds a `fudge` fight of about N events once (bench/replay.py's `build`, this checkout's), then runs in
turns, the order rotated every round:
- a child process of each checkout, started from its own root by its own interpreter (`--old-python`,
  `--new-python`; by default `<root>/.venv/bin/python`, refused if it imports another checkout's
  `fudge_combat`: bench/checkouts.py), timing
  `Fights(store).loader.rebuild(name, last)`: what a command does when no snapshot serves (the voiding rows
  first, then every row read a page at a time, validated and folded into every projection), on a
  fresh connection each time, `--replays` times after one warm-up, CPU and wall time;
- the peer (bench/peer_eventsourcing.py, run with the peer's venv as bench/replay.py makes it): an
  aggregate of as many events, `repository.get` as many times, CPU and wall time.
A checkout before store schema 4 reads a copy of the fight at schema 3 (`checkouts.schema3`: the same rows,
which it would refuse at schema 4). Each figure is the median over every replay of every round. `--split` adds where this checkout's
replay goes, per event, in this process (the collector paused, as the replay runs); `--prototypes` two
changes of the store's design, measured without being made (`prototypes`).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import chain
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import structlog  # noqa: E402
from checkouts import CHECK, add_options, environment, python_for, readable_copy, schema3  # noqa: E402

CHILD = CHECK + """import gc, json, logging, sys, time
import structlog
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
path, name, replays = sys.argv[1], sys.argv[2], int(sys.argv[3])
def one():
    store = SqliteStore(path)
    state = Fights(store).loader.rebuild(name, store.last_seq(name))
    store.close()
    return state
one()
cpu, wall = [], []
for _ in range(replays):
    gc.collect()
    started, started_cpu = time.perf_counter(), time.process_time()
    state = one()
    cpu.append(time.process_time() - started_cpu)
    wall.append(time.perf_counter() - started)
    del state
print(json.dumps({"cpu": cpu, "wall": wall}))
"""


def ours(python: str, root: Path, path: Path, replays: int) -> dict[str, list[float]]:
    out = subprocess.run([python, "-c", CHILD, str(path), "long", str(replays)], cwd=root, env=environment(),
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def peer(python: str, folder: str, events: int, replays: int) -> dict[str, Any]:
    out = subprocess.run([python, str(ROOT / "bench" / "peer_eventsourcing.py"), "--events", str(events),
                          "--replays", str(replays), "--db", str(Path(folder) / f"peer-{time.time_ns()}.db")],
                         check=True, capture_output=True, text=True)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return {"cpu": found["cpu"], "wall": found["seconds"], "events": found["events"], "version": found["version"]}


def split(path: Path, runs: int = 9) -> list[tuple[str, float]]:
    """This checkout's replay taken apart, per event: reading the pages, decoding them, folding."""
    from fudge_combat.events.decoder import decoder
    from fudge_combat.projections import fast
    from fudge_combat.projections.fast import rebuild
    from fudge_combat.service.fights import Fights
    from fudge_combat.store.sqlite import SqliteStore

    store = SqliteStore(path)
    fights = Fights(store)
    last = store.last_seq("long")
    rows = list(chain.from_iterable(fights.reads.pages("long", last)))
    decode = decoder()

    def decoded() -> None:  # each record dropped as the next is read, as the replay does
        for _, body in rows:
            decode(body)

    def timed(fn: Any) -> float:
        samples = []
        for _ in range(runs):
            gc.collect()
            gc.disable()
            started = time.process_time()
            fn()
            samples.append(time.process_time() - started)
            gc.enable()
        return statistics.median(samples) / last * 1e6

    def bare(fold: Any) -> Any:  # an own handler that folds nothing
        return lambda s, r, e: s

    read = timed(lambda: list(chain.from_iterable(fights.reads.pages("long", last))))
    parse = timed(decoded)
    whole = timed(lambda: rebuild(rows, set(), lambda seq: None))
    own = dict(fast._OWN)
    fast._OWN.update((kind, bare) for kind in own)
    try:
        without = timed(lambda: rebuild(rows, set(), lambda seq: None))
    finally:
        fast._OWN.update(own)
    replay = timed(lambda: fights.loader.rebuild("long", last))
    store.close()
    return [("read the rows, a page at a time", read), ("decode and validate them (the structs' decoder)", parse),
            ("fold (rebuild of the decoded rows, less the decoding)", whole - parse),
            ("of which the fold's own handlers (`projections.fast._OWN`: the same rebuild with each folding "
             "nothing, less it)", whole - without),
            ("the voiding rows read first, and the rest", replay - whole - read),
            ("the whole replay (`Loader.rebuild`)", replay)]


def prototypes(path: Path, rounds: int = 10, per: int = 3) -> list[tuple[str, float, float]]:
    """Two changes of the store's design named as ways to a faster replay, measured in this process on copies
    of the bench fight without being made (each the median of `rounds` x `per` runs, the two sides in turns):
    - the index of the log's rows by type (store schema 4), by which the voiding rows a replay reads first are
      found without reading every row: `Loader.rebuild` on the store as it is, beside a copy without the
      index (`schema3`);
    - the fight's id and the previous row's hash in columns of their own, out of the stored body (117 of
      its 483 bytes): reading and decoding the bodies without those two fields (a struct derived as the
      envelope's, less them), beside the bodies as they are. Only the read is measured: the chain's hash
      would then be taken over the columns and the body, a change of the log's format;
    and two changes of how it is read: the store's connection reading the file through a memory map
    (`PRAGMA mmap_size`: `Loader.rebuild` on the same file both ways), and the derived decoder called once
    per page of 1,024 rows (a JSON array of their bodies) instead of once per row.
    Each: (what, as it is, prototype), CPU ms."""
    import sqlite3
    import typing

    import msgspec

    from fudge_combat.events.decoder import _decoder
    from fudge_combat.service.fights import Fights
    from fudge_combat.store import sqlite as sqlite_store

    unindexed_path = schema3(path, path.with_name("unindexed.db"))

    def replay(where: Path) -> None:
        store = sqlite_store.SqliteStore(where)
        Fights(store).loader.rebuild("long", store.last_seq("long"))
        store.close()

    def mapped(where: Path) -> None:  # the same replay, its connection reading the file through a memory map
        store = sqlite_store.SqliteStore(where)
        store.db.execute("PRAGMA mmap_size=1073741824")
        Fights(store).loader.rebuild("long", store.last_seq("long"))
        store.close()

    decode = _decoder()
    record = decode.type
    hints = typing.get_type_hints(record, include_extras=True)
    defaults = (msgspec.NODEFAULT,) * (len(record.__struct_fields__) - len(record.__struct_defaults__)) \
        + record.__struct_defaults__
    fields = [(name, hints[name], msgspec.field(name=key) if default is msgspec.NODEFAULT else
               msgspec.field(name=key, default=default))
              for name, key, default in zip(record.__struct_fields__, record.__struct_encode_fields__, defaults)
              if name not in ("fight", "prev")]
    shorter = msgspec.json.Decoder(msgspec.defstruct("Shorter", fields, kw_only=True, frozen=True,
                                                     forbid_unknown_fields=True))
    full_path, short_path = path.with_name("full.db"), path.with_name("short.db")
    with sqlite3.connect(path) as source:
        rows = source.execute("SELECT seq, body FROM events ORDER BY fight, seq").fetchall()
    source.close()
    for where, strip in ((full_path, False), (short_path, True)):
        with sqlite3.connect(where) as db:
            db.execute("CREATE TABLE events (fight INTEGER, seq INTEGER, body TEXT, PRIMARY KEY (fight, seq)) "
                       "WITHOUT ROWID")
            db.executemany("INSERT INTO events VALUES (1, ?, ?)", [
                (seq, json.dumps({k: v for k, v in json.loads(body).items() if k not in ("fight", "prev")},
                                 sort_keys=True, separators=(",", ":"), ensure_ascii=False) if strip else body)
                for seq, body in rows])
        db.close()

    def read(where: Path, decoder: Any) -> None:
        with sqlite3.connect(where) as db:
            for _, body in db.execute("SELECT seq, body FROM events WHERE fight = 1 ORDER BY seq"):
                decoder.decode(body)
        db.close()

    bodies = [body for _, body in rows]
    pages = [bodies[start:start + 1024] for start in range(0, len(bodies), 1024)]
    listed = msgspec.json.Decoder(list[record])  # type: ignore[valid-type]  # a type built at run time
    sides: dict[str, Any] = {
        "voiding rows: no index (schema 3) / the index by type (schema 4)": (lambda: replay(unindexed_path),
                                                                             lambda: replay(path)),
        "rows read and decoded: as stored / without fight and prev": (lambda: read(full_path, decode),
                                                                      lambda: read(short_path, shorter)),
        "the replay: read as now / through a memory map": (lambda: replay(path), lambda: mapped(path)),
        "rows decoded: a call per row / a call per page": (
            lambda: [decode.decode(body) for body in bodies],
            lambda: [listed.decode("[" + ",".join(page) + "]") for page in pages])}
    out = []
    for label, (now, then) in sides.items():
        times: dict[str, list[float]] = {"now": [], "then": []}
        for round_ in range(rounds):
            for key in (("now", "then") if round_ % 2 else ("then", "now")):
                for _ in range(per):
                    gc.collect()
                    started = time.process_time()
                    (now if key == "now" else then)()
                    times[key].append(time.process_time() - started)
        out.append((label, statistics.median(times["now"]) * 1e3, statistics.median(times["then"]) * 1e3))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the root of the older checkout")
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--replays", type=int, default=7)
    parser.add_argument("--peer-python", help="a Python with eventsourcing 9.5.x (default: .venv-peer, made on first use)")
    parser.add_argument("--split", action="store_true", help="where this checkout's replay goes, per event")
    parser.add_argument("--prototypes", action="store_true",
                        help="measure changes of the store's design and of the reads without making them "
                             "(see `prototypes`)")
    add_options(parser)
    args = parser.parse_args()
    roots = {"old": args.old.resolve(), "new": ROOT}
    pythons = {"old": python_for(roots["old"], args.old_python), "new": python_for(ROOT, args.new_python)}
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    sys.path.insert(0, str(ROOT / "bench"))
    import replay as bench_replay  # noqa: PLC0415

    python = bench_replay.peer_python(args.peer_python)
    for label, root in roots.items():
        subprocess.run([pythons[label], "-m", "compileall", "-q", str(root)], check=True, capture_output=True)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        count, _, _ = bench_replay.build(path, "long", args.events)
        stores = {"old": readable_copy(path, Path(folder) / "old.db", pythons["old"], roots["old"]), "new": path}
        runs: dict[str, Any] = {"old": {"cpu": [], "wall": []}, "new": {"cpu": [], "wall": []},
                                "peer": {"cpu": [], "wall": []}}
        order = ["old", "new", "peer"]
        peer_events, peer_version = 0, ""
        for round_ in range(args.rounds):
            for key in order[round_ % 3:] + order[: round_ % 3]:
                if key == "peer":
                    found = peer(python, folder, count, args.replays)
                    peer_events, peer_version = found["events"], found["version"]
                else:
                    found = ours(pythons[key], roots[key], stores[key], args.replays)
                runs[key]["cpu"] += found["cpu"]
                runs[key]["wall"] += found["wall"]
        parts = split(path) if args.split else []
        tried = prototypes(path) if args.prototypes else []
    load_after = os.getloadavg()

    med = {key: {kind: statistics.median(values) for kind, values in run.items()} for key, run in runs.items()}
    per = {"old": count, "new": count, "peer": peer_events}
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in load_before)} before, {', '.join(f'{x:.1f}' for x in load_after)} after; "
          f"{args.rounds} rounds in turns, {args.replays} replays each; median of "
          f"{args.rounds * args.replays} per side; eventsourcing {peer_version}")
    print()
    print(f"| replay from scratch | old ({count:,} events) | new ({count:,} events) | peer ({peer_events:,} events) |")
    print("|---|---:|---:|---:|")
    for kind, label in (("cpu", "CPU"), ("wall", "wall")):
        print(f"| {label} ms | {med['old'][kind] * 1e3:.0f} | {med['new'][kind] * 1e3:.0f} | "
              f"{med['peer'][kind] * 1e3:.0f} |")
        print(f"| {label} µs per event | " + " | ".join(
            f"{med[key][kind] / per[key] * 1e6:.1f}" for key in ("old", "new", "peer")) + " |")
        print(f"| **peer's {label} time per event / ours** | {_ratio(med, per, 'old', kind)} | "
              f"**{_ratio(med, per, 'new', kind)}** | 1.00x |")
    if parts:
        print()
        print("| where the new replay goes (in-process, collector paused, median of 9) | µs per event |")
        print("|---|---:|")
        for label, value in parts:
            print(f"| {label} | {value:.1f} |")
    if tried:
        print()
        print("| prototype (in-process, in turns, median of 30) | as it is, CPU ms | prototype, CPU ms |")
        print("|---|---:|---:|")
        for label, now, then in tried:
            print(f"| {label} | {now:.1f} | {then:.1f} |")


def _ratio(med: dict[str, Any], per: dict[str, int], key: str, kind: str) -> str:
    return f"{(med['peer'][kind] / per['peer']) / (med[key][kind] / per[key]):.2f}x"


if __name__ == "__main__":
    main()
