"""A club's night: N GM processes at once, each writing its own fight and, every SHARE-th command, one
fight they all share; commands per second and write conflicts, on one SQLite file and on one PostgreSQL
server side by side (the same commands, the same machine, one run).

    python bench/club.py [--gms 4] [--commands 150] [--share 4]

Each GM is a process with its own service (service.fights.Fights) and store connection, its own snapshot
key and secrets file. A command is a trait roll with dice the GM enters (no seed: the shared fight's is
its owner's). A conflict (another GM appended to the shared fight since this one read it) is counted and
the command run again, as a GM would. The server is a throwaway one (tests/pgserver.py) with fsync on,
as SQLite's store runs `synchronous=FULL`: both make every command durable before it returns.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))


def quiet() -> None:
    """Warnings only, on stderr: the table of figures is stdout."""
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
                        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))


def store_of(target: str, gm: str) -> Any:
    if target.startswith("postgresql://"):
        from fudge_combat.store.postgres import PostgresStore

        return PostgresStore(target, gm=gm)
    from fudge_combat.store.sqlite import SqliteStore

    return SqliteStore(target)


def set_up(target: str, gms: int, folder: Path) -> None:
    """Each GM's own fight, and the shared one (gm0's, shared with the others), two fighters in each."""
    from fudge_combat.engine import commands as cmd
    from fudge_combat.engine.kernel.presets import resolve
    from fudge_combat.events.records import json_form
    from fudge_combat.service.fights import Fights

    options = json_form(resolve("fudge")[1])
    if target.startswith("postgresql://"):  # the club's admin sets the server up and names its GMs (`fudge club`)
        from fudge_combat.store.postgres import PostgresStore

        admin = PostgresStore(target)
        admin.upgrade()
        for n in range(gms):
            admin.add_gm(f"gm{n}", role=False)  # one role for all: what is measured is the GMs' load, not their roles
    for n in range(gms):
        os.environ["FUDGE_SECRETS_FILE"] = str(folder / f"gm{n}.secrets")
        store = store_of(target, f"gm{n}")
        fights = Fights(store, views=False)  # the log and its snapshots alone, as measured before
        for name in [f"own-{n}"] + (["shared"] if n == 0 else []):
            fights.new(name, "fudge", options, make_current=False)
            for who in ("Snorri", "Brynhild"):
                fights.execute(name, cmd.Join(sheet={"name": who, "skills": {"Sword": "Good"}}, source="bench"))
        if n == 0 and hasattr(store, "share"):
            for other in range(1, gms):
                store.share("shared", f"gm{other}")


def gm(target: str, n: int, commands: int, share: int, folder: str, barrier: Any, results: Any) -> None:
    """One GM: `commands` rolls, every `share`-th on the shared fight; conflicts counted and run again."""
    os.environ["FUDGE_SECRETS_FILE"] = str(Path(folder) / f"gm{n}.secrets")
    os.environ["FUDGE_KEY_FILE"] = str(Path(folder) / f"gm{n}.key")
    quiet()
    from fudge_combat.engine import commands as cmd
    from fudge_combat.service.fights import DiceInput, Fights
    from fudge_combat.store.base import Conflict

    fights = Fights(store_of(target, f"gm{n}"), views=False)
    roll = cmd.RollTrait(combatant="Snorri", trait="Sword", difficulty=1)
    fights.state(f"own-{n}")
    fights.state("shared")
    conflicts = 0
    barrier.wait()
    began = time.perf_counter()
    for i in range(commands):
        name = "shared" if i % share == share - 1 else f"own-{n}"
        while True:
            try:
                fights.execute(name, roll, DiceInput(by_roller={"snorri": [(1, 0, -1, 0)]}))
                break
            except Conflict:
                conflicts += 1
    results.put((n, began, time.perf_counter(), conflicts))


def run(target: str, gms: int, commands: int, share: int, folder: Path) -> dict[str, Any]:
    folder.mkdir()
    set_up(target, gms, folder)
    names = [f"own-{n}" for n in range(gms)] + ["shared"]
    before = {name: store_of(target, "gm0" if name in ("own-0", "shared") else f"gm{name[4:]}").last_seq(name)
              for name in names}
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(gms), context.Queue()
    processes = [context.Process(target=gm, args=(target, n, commands, share, str(folder), barrier, results))
                 for n in range(gms)]
    for process in processes:
        process.start()
    done = [results.get(timeout=600) for _ in processes]
    for process in processes:
        process.join()
    wall = max(d[2] for d in done) - min(d[1] for d in done)
    on_shared = sum(1 for i in range(commands) if i % share == share - 1)
    wanted = {name: 2 * (on_shared * gms if name == "shared" else commands - on_shared) for name in names}  # 2 events a roll
    grown = {name: store_of(target, "gm0" if name in ("own-0", "shared") else f"gm{name[4:]}").last_seq(name)
             - before[name] for name in names}
    return {"commands/s": gms * commands / wall, "wall s": wall, "commands on the shared fight": on_shared * gms,
            "conflicts (run again)": sum(d[3] for d in done),
            "events lost or duplicated": sum(abs(grown[name] - wanted[name]) for name in names)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gms", type=int, default=4)
    parser.add_argument("--commands", type=int, default=150, help="commands per GM")
    parser.add_argument("--share", type=int, default=4, help="every SHARE-th command goes to the shared fight")
    args = parser.parse_args()
    quiet()
    from tests.pgserver import Server, binaries

    found = binaries()
    with tempfile.TemporaryDirectory(prefix="fudge-club-") as scratch:
        folder = Path(scratch)
        figures = {"SQLite file": run(str(folder / "club.db"), args.gms, args.commands, args.share, folder / "sqlite")}
        if found is None:
            print("no PostgreSQL server binary: SQLite only", file=sys.stderr)
        else:
            server = Server(found, durable=True)
            try:
                server.start()
                figures["PostgreSQL server"] = run(server.database(), args.gms, args.commands, args.share, folder / "pg")
            finally:
                server.stop()
    print(f"{args.gms} GMs x {args.commands} commands, every {args.share}th on the shared fight")
    keys = list(next(iter(figures.values())))
    print(f"| measure | {' | '.join(figures)} |")
    print(f"|---|{'---:|' * len(figures)}")
    for key in keys:
        print(f"| {key} | {' | '.join(f'{f[key]:,.1f}' if isinstance(f[key], float) else f'{f[key]:,}' for f in figures.values())} |")


if __name__ == "__main__":
    main()
