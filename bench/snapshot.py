"""A snapshot's write and read on a long fight, and its size: two checkouts side by side.

    python bench/snapshot.py --old ../before [--new .] [--old-python PATH] [--new-python PATH] [--fights DIR]
                             [--sizes 10000,100000] [--runs 5]

The fights are built once by the new checkout (`bench/replay.py`'s `build`, as bench/growth.py builds
them: exchanges, trait rolls, declarations, fudge points, undos and redos, fighters joining as others
fall; `--fights DIR` reuses DIR/f<size>.db). Each checkout then works on its own copy, in child
processes started from its own root by its own interpreter (`--old-python`, `--new-python`; by default
`<root>/.venv/bin/python`, refused if it imports another checkout's `fudge_combat`: bench/checkouts.py),
old and new in turns (A B A B). A child
reads the fight through the service (`Fights.state`: from its log, the build's snapshots being under
another key) and runs 64 commands (trait rolls, new rounds, undos and redos), so that the service
holds an undo history of some 40 commands; then, in that warm process, it times its checkout's own
`store.snapshots.pack` (encode and sign the state and its history: what a command pays when a
snapshot falls due) and `unpack` (check the MAC, decode, check, with the garbage collector paused as
the service reads it: what the next command pays before it folds), the least of `--repeats`, CPU
time. Each figure is the median over `--runs` children; the size is the body's bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from checkouts import CHECK, add_options, environment, python_for, readable_copy

HERE = Path(__file__).resolve().parent.parent

PRELUDE = """import importlib.util, json, logging, sys, time
from pathlib import Path
import structlog
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
"""

BUILD = PRELUDE + """spec = importlib.util.spec_from_file_location("bench_replay", Path("bench") / "replay.py")
replay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(replay)
count, _, _ = replay.build(Path(sys.argv[1]), "long", int(sys.argv[2]))
print(json.dumps(count))
"""

MEASURE = PRELUDE + """from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.dice import parse_faces
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store import snapshots
from fudge_combat.store.bulk import paused_gc
from fudge_combat.store.sqlite import SqliteStore
fights = Fights(SqliteStore(sys.argv[1]), views=False)
state = fights.state("long")
roller = next(c.name for c in state.combatants.values() if c.track.can_act)
for number in range(64):  # a full undo history (engine.kernel.rewind.DEPTH)
    dice = DiceInput()
    dice.by_roller[roller.lower()] = [parse_faces("+0-0")]
    command = (cmd.StartRound() if number % 8 == 0 else cmd.Undo() if number % 8 == 5 else cmd.Redo()
               if number % 8 == 6 else cmd.RollTrait(combatant=roller, trait="Perception", difficulty=1))
    try:
        fights.execute("long", command, dice)
    except RuleError:
        pass
loaded = fights.loader.held("long")
assert loaded is not None
info = fights.store.fight("long")
key = bytes(range(32))
args = (info.fight_id, loaded.last_seq, loaded.last_hash, key)
repeats = int(sys.argv[2])
pack, unpack = [], []
for _ in range(repeats):
    started = time.process_time()
    snap = snapshots.pack((loaded.state, loaded.done), *args)
    pack.append(time.process_time() - started)
    started = time.process_time()
    with paused_gc():  # as the service reads a snapshot (service.caches)
        found = snapshots.unpack(snap, *args)
    unpack.append(time.process_time() - started)
    assert found is not None, "the snapshot did not read back"
print(json.dumps({"pack": min(pack), "unpack": min(unpack), "bytes": len(snap.body), "events": loaded.last_seq,
                  "fighters": len(loaded.state.combatants), "history": len(loaded.done.done)}))
"""


PYTHONS: dict[Path, str] = {}  # each checkout's root: its interpreter (`python_for`)


def child(root: Path, code: str, *args: str, env: dict[str, str]) -> Any:
    done = subprocess.run([PYTHONS[root], "-c", CHECK + code, *args], cwd=root, capture_output=True, text=True,
                          env=environment(env))
    if done.returncode:
        sys.exit(f"error: a child in {root} failed:\n{done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="root of the checkout before the change")
    parser.add_argument("--new", type=Path, default=HERE, help="root of the checkout after it (default: this one)")
    parser.add_argument("--sizes", default="10000,100000", help="fight lengths, in events")
    parser.add_argument("--runs", type=int, default=5, help="children per checkout and size, in turns")
    parser.add_argument("--repeats", type=int, default=5, help="packs and unpacks timed in each child (the least kept)")
    parser.add_argument("--fights", type=Path, help="a folder of fights built before (f<size>.db), reused")
    add_options(parser)
    args = parser.parse_args()
    roots = {"old": args.old.resolve(), "new": args.new.resolve()}
    PYTHONS.update({roots["old"]: python_for(roots["old"], args.old_python),
                    roots["new"]: python_for(roots["new"], args.new_python)})
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "XDG_STATE_HOME": str(Path(folder) / "state"),
               "FUDGE_KEY_FILE": str(Path(folder) / "none" / "snapshot.key")}
        results: dict[tuple[str, int], dict[str, float]] = {}
        for size in sizes:
            built = args.fights / f"f{size}.db" if args.fights else Path(folder) / f"f{size}.db"
            if not built.exists():
                print(f"building {size:,} events ...", file=sys.stderr)
                # A key of its own: the children then read the fight from its log, both checkouts alike
                child(roots["new"], BUILD, str(built), str(size),
                      env={**env, "FUDGE_KEY_FILE": str(Path(folder) / "build" / "snapshot.key")})
            samples: dict[str, list[dict[str, Any]]] = {label: [] for label in roots}
            readable = {label: readable_copy(built, Path(folder) / f"{label}-{size}-first.db", PYTHONS[root], root)
                        for label, root in roots.items()}  # the same rows, at the store schema each checkout reads
            for run in range(args.runs):
                for label in (list(roots) if run % 2 == 0 else list(roots)[::-1]):
                    copy = Path(folder) / f"{label}-{size}.db"
                    shutil.copy(readable[label], copy)  # each child starts from the same fight
                    samples[label].append(child(roots[label], MEASURE, str(copy), str(args.repeats), env=env))
            for label, got in samples.items():
                results[(label, size)] = {key: statistics.median(sample[key] for sample in got)
                                          for key in ("pack", "unpack", "bytes", "events", "fighters", "history")}
                print(f"  {label} {size:,}: {results[(label, size)]}", file=sys.stderr)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; CPU time, median of {args.runs} children "
          f"(each the least of {args.repeats}), old and new in turns")
    print()
    print("| fight | measure | old | new | new/old |")
    print("|---|---|---:|---:|---:|")
    for size in sizes:
        old, new = results[("old", size)], results[("new", size)]
        fight = f"{new['events']:,.0f} events, {new['fighters']:,.0f} fighters"
        for key, name, unit, scale in (("pack", "write (`pack`), ms", "{:.1f}", 1000),
                                       ("unpack", "read (`unpack`), ms", "{:.1f}", 1000),
                                       ("bytes", "body, KB", "{:,.0f}", 1 / 1000)):
            print(f"| {fight} | {name} | {unit.format(old[key] * scale)} | {unit.format(new[key] * scale)} "
                  f"| {new[key] / old[key]:.2f}x |")
    print(json.dumps({f"{label} {size}": value for (label, size), value in results.items()}))


if __name__ == "__main__":
    main()
