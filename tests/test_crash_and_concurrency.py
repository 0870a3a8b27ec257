"""The SQLite and PostgreSQL stores under crashes and concurrent writers (A-LOG-1, A-VERIFY-1).

(a) A writer killed with SIGKILL in the middle of a stream of commands leaves
    a valid log: `verify` passes and every command is fully there or fully
    absent (the `commands` table's spans match the events).
(b) Two processes appending to one fight from the same stale read: one
    succeeds, the other gets "the fight changed since you read it"; nothing
    is lost or duplicated. Deterministic: both read, then meet at a barrier
    inside `append`, then both append with the same expected sequence number.
(c) A retried command id is applied once.

Every test runs on a SQLite file and on a throwaway PostgreSQL server (tests/pgserver.py): `target`
is the file's path or the database's URL.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.events.rows import Row
from fudge_combat.store.base import Conflict
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"
CONFLICT_TEXT = "the fight changed since you read it"

WRITER = r'''
import logging
import random
import sys
import time

import structlog

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events.structs import Declaration
from fudge_combat.service.fights import Fights

target, fight, seed, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))  # stdout is our pipe
written = 0
current = ""


def statement(sql) -> None:
    # Every statement of a transaction takes a moment, so a random kill often lands inside one.
    time.sleep(0.002)
    if mode == "torn" and written == 3 and str(sql).startswith("INSERT INTO commands"):
        # The command's events are inserted, its COMMIT is not: wait here to be killed.
        print("inside", current, flush=True)
        time.sleep(120)


if target.startswith("postgresql://"):
    import psycopg

    from fudge_combat.store.postgres import PostgresStore

    def traced(method):
        def run(self, query, *args, **kwargs):
            statement(query)
            return method(self, query, *args, **kwargs)
        return run

    for name in ("execute", "executemany"):
        setattr(psycopg.Cursor, name, traced(getattr(psycopg.Cursor, name)))
        if name == "execute":
            setattr(psycopg.Connection, name, traced(getattr(psycopg.Connection, name)))
    store = PostgresStore(target)
else:
    from fudge_combat.store.sqlite import SqliteStore

    store = SqliteStore(target)
    store.db.set_trace_callback(statement)
fights = Fights(store)
while True:
    pick = rng.random()
    if pick < 0.45:
        command = cmd.Exchange(first="Snorri", second="Brynhild")
    elif pick < 0.6:
        command = cmd.RollTrait(combatant=rng.choice(["Snorri", "Brynhild"]), trait="Perception", difficulty=1)
    elif pick < 0.7:
        command = cmd.Declare(combatant="Brynhild", declaration=Declaration(all_out=rng.choice(["offense", "defense"])))
    elif pick < 0.9:
        command = cmd.Undo()
    else:
        command = cmd.Redo()
    current = f"{mode}-{seed}-{written}"
    try:
        fights.execute(fight, command, command_id=current)
    except RuleError:
        continue  # an incapacitated fighter, nothing to redo: the loop goes on
    written += 1
    if written == 3:
        print("writing", flush=True)
'''


def open_store(target: Path | str) -> Any:
    """The store at a file's path (SQLite) or a database's URL (PostgreSQL)."""
    if isinstance(target, str):
        from fudge_combat.store.postgres import PostgresStore

        return PostgresStore(target)
    return SqliteStore(target)


def query(target: Path | str, sql: str, params: tuple[Any, ...]) -> list[Any]:
    """A query on the store's own tables (`?` for each parameter), beside the store's code."""
    if isinstance(target, str):
        import psycopg

        with psycopg.connect(target) as pg:
            return pg.execute(sql.replace("?", "%s"), params).fetchall()  # type: ignore[arg-type]
    with sqlite3.connect(target) as db:
        found = db.execute(sql, params).fetchall()
    db.close()
    return found


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_url"))
    return tmp_path / "store.db"


def set_up(path: Path | str, name: str) -> Fights:
    fights = make_fights(open_store(path))
    fights.new(name, "fudge", _options())
    for who in ("snorri", "brynhild"):
        sheet = parse_sheet((SHEETS / f"{who}.toml").read_text(), f"{who}.toml")
        fights.execute(name, cmd.Join(sheet=json_form(sheet), source=f"{who}.toml"))
    return fights


def _options() -> dict[str, Any]:
    return json_form(resolve("fudge")[1])


def command_spans_match_events(path: Path | str, name: str) -> int:
    """Every command in the `commands` table has exactly its span of events, and no event lacks one."""
    ((fight,),) = query(path, "SELECT id FROM fights WHERE name = ?", (name,))
    events: dict[str, list[int]] = {}
    for seq, command in query(path, "SELECT seq, command FROM events WHERE fight = ? ORDER BY seq", (fight,)):
        events.setdefault(command, []).append(seq)
    spans = {command: (first, last) for command, first, last in
             query(path, "SELECT command, first_seq, last_seq FROM commands WHERE fight = ?", (fight,))}
    assert spans.keys() == events.keys()
    for command, seqs in events.items():
        first, last = spans[command]
        assert seqs == list(range(first, last + 1)), command
    all_seqs = sorted(seq for seqs in events.values() for seq in seqs)
    assert all_seqs == list(range(1, len(all_seqs) + 1))
    return len(all_seqs)


def check_after_crash(path: Path | str, name: str) -> list[Row]:
    """verify passes, commands are whole, and the store takes a new command at once (no lock left)."""
    store = open_store(path)
    rows = store.read(name)
    report = verify(rows)
    assert report.ok, report.problems
    assert command_spans_match_events(path, name) == len(rows)
    extra = f"Extra{len(rows)}"  # a join always applies (the writer may have undone everyone else's)
    Fights(store).execute(name, cmd.Join(sheet={"name": extra}, source="extra.toml"))
    assert store.read(name)[-1].type == "combatant_joined"
    store.close()
    return rows


def writer(script: Path, path: Path | str, attempt: int, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(script), str(path), "crash", str(attempt), mode],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})  # the project, installed or not


def kill(process: subprocess.Popen[str]) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_A_LOG_1_a_writer_killed_with_SIGKILL_leaves_a_valid_log(tmp_path: Path, target: Path | str) -> None:
    """A-LOG-1, A-VERIFY-1: kill -9 at random moments of a stream of commands, five times;
    each time the log verifies, every command is whole, and the writer had made progress."""
    path = target
    set_up(path, "crash").store.close()  # type: ignore[attr-defined]
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    chooser = random.Random(20260101)
    count = 3
    for attempt in range(5):
        process = writer(script, path, attempt, "random")
        try:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "writing"
            time.sleep(chooser.uniform(0.0, 0.3))
        finally:
            kill(process)
        rows = check_after_crash(path, "crash")
        assert len(rows) >= count + 3  # three whole commands at least (one event or more each) before the kill
        count = len(rows) + 1  # and the check's own join


def test_A_LOG_1_a_writer_killed_inside_its_transaction_leaves_no_trace_of_that_command(
        tmp_path: Path, target: Path | str) -> None:
    """A-LOG-1: killed after inserting a command's events but before COMMIT: the command is absent, all of it."""
    path = target
    set_up(path, "crash").store.close()  # type: ignore[attr-defined]
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    for attempt in range(2):
        before = open_store(path).read("crash")
        process = writer(script, path, attempt, "torn")
        try:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "writing"
            line = process.stdout.readline().split()
            assert line[0] == "inside"
        finally:
            kill(process)
        torn = line[1]
        rows = check_after_crash(path, "crash")
        assert rows[: len(before)] == before
        assert torn not in {r.command for r in rows}
        assert len({r.command for r in rows[len(before):]}) == 3  # the three commands before it, whole
        assert query(path, "SELECT count(*) FROM commands WHERE command = ?", (torn,)) == [(0,)]


# --- two writers ------------------------------------------------------------------

def _race(path: Path | str, name: str, barrier: Any, command_id: str, faces: str, results: Any) -> None:
    """A child process: read the fight, decide, meet the other writer, then append."""
    store = open_store(path)
    append = store.append

    def held(*args: Any, **kwargs: Any) -> None:
        barrier.wait(timeout=60)
        append(*args, **kwargs)

    store.append = held
    fights = Fights(store)
    given = DiceInput(by_roller={"snorri": [tuple(int(f) for f in faces.split(","))]})
    try:
        fights.execute(name, cmd.RollTrait(combatant="Snorri", trait="Sword", difficulty=1), given,
                       command_id=command_id)
        results.put((command_id, "ok", ""))
    except Conflict as exc:
        results.put((command_id, "conflict", str(exc)))
    except Exception as exc:  # reported to the parent, which fails the test
        results.put((command_id, "error", repr(exc)))


def race(path: Path | str, name: str, writers: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(writers))
    results = context.Queue()
    processes = [context.Process(target=_race, args=(path, name, barrier, command_id, faces, results))
                 for command_id, faces in writers]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    return sorted(outcomes, key=lambda o: o[1])


def test_A_LOG_1_two_processes_append_from_one_read_one_gets_the_conflict(target: Path | str) -> None:
    path = target
    set_up(path, "race")
    before = open_store(path).read("race")
    outcomes = race(path, "race", [("writer-a", "1,0,0,0"), ("writer-b", "-1,0,0,0")])
    assert [o[1] for o in outcomes] == ["conflict", "ok"], outcomes
    assert CONFLICT_TEXT in outcomes[0][2]
    winner, loser = outcomes[1][0], outcomes[0][0]
    rows = open_store(path).read("race")
    assert rows[: len(before)] == before  # nothing lost
    new = rows[len(before):]
    assert {r.command for r in new} == {winner} and len(new) == 2  # the winner's roll, once; no trace of the loser
    assert [r.type for r in new] == ["dice_rolled", "action_resolved"]
    assert verify(rows).ok
    assert command_spans_match_events(path, "race") == len(rows)
    # the loser runs its command again on the new state, and it goes through
    again = make_fights(open_store(path)).execute(
        "race", cmd.RollTrait(combatant="Snorri", trait="Sword", difficulty=1), dice("snorri=0 0 0 0"),
        command_id=loser)
    assert not again.replayed and len(open_store(path).read("race")) == len(rows) + 2


def test_A_LOG_1_the_same_command_sent_twice_at_once_is_applied_once(target: Path | str) -> None:
    """(b)+(c): a retried command racing its first attempt: one applies it, the other is refused."""
    path = target
    set_up(path, "race")
    before = len(open_store(path).read("race"))
    outcomes = race(path, "race", [("same-id", "1,0,0,0"), ("same-id", "1,0,0,0")])
    assert [o[1] for o in outcomes] == ["conflict", "ok"], outcomes
    retried = make_fights(open_store(path)).execute(
        "race", cmd.RollTrait(combatant="Snorri", trait="Sword", difficulty=1), dice("snorri=+ 0 0 0"),
        command_id="same-id")
    assert retried.replayed and retried.records == ()
    rows = open_store(path).read("race")
    assert len(rows) == before + 2 and [r.command for r in rows].count("same-id") == 2
    assert verify(rows).ok


def test_A_LOG_1_a_retried_command_id_is_applied_once(target: Path | str) -> None:
    """(c): the first attempt committed but its caller never heard back; the retry writes nothing."""
    path = target
    fights = set_up(path, "fight")
    roll = cmd.RollTrait(combatant="Snorri", trait="Sword", difficulty=1)
    first = fights.execute("fight", roll, dice("snorri=+ 0 0 0"), command_id="table-7")
    assert not first.replayed and len(first.records) == 2
    rows = open_store(path).read("fight")
    for retry in (fights, make_fights(open_store(path))):  # the same shell, and a new process's shell
        outcome = retry.execute("fight", roll, dice("snorri=+ 0 0 0"), command_id="table-7")
        assert outcome.replayed and outcome.records == ()
        assert outcome.state == fights.state("fight")
    assert open_store(path).read("fight") == rows
    assert open_store(path).has_command("fight", "table-7")


def test_A_LOG_1_a_duplicate_command_id_never_reaches_the_log_twice(target: Path | str) -> None:
    """Below the shell, the store itself refuses a command id it already holds (a second line of defence)."""
    path = target
    fights = set_up(path, "fight")
    store = open_store(path)
    last = store.read("fight")[-1]
    forged = Row(last.seq + 1, last.command, last.type, last.body, last.hash)
    with pytest.raises(Exception, match="already applied"):
        store.append("fight", last.seq, [forged])
    assert store.read("fight") == fights.store.read("fight")
    assert command_spans_match_events(path, "fight") == last.seq
