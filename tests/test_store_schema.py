"""Store schema versions and their migrations, from the oldest store a GM may hold (A-LOG-1).

Every stored schema of the SQLite backend is kept as a golden fixture, `fixtures/store_schemaN.sql`, never
regenerated; `old_store` fills one with the schema-1 golden logs, in the journal mode the store had. A store
is read as it is (its bytes unchanged: tests/test_store_files.py reads each through the CLI), migrated by its
first write in that write's own transaction, and copied to a PostgreSQL server, whose schema is made by its
own first write. A store of a schema newer than the code is refused.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.events.records import load
from fudge_combat.events.rows import Row
from fudge_combat.store import sqlite as sqlite_store
from fudge_combat.store.base import FightInfo, StoreError
from fudge_combat.store.sqlite import STORE_SCHEMA, SqliteStore
from tests.conftest import make_fights

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ROOT = FIXTURES.parent.parent


def stored_schemas() -> list[str]:
    """The schema versions kept as golden fixtures, oldest first."""
    return sorted((p.stem.removeprefix("store_schema") for p in FIXTURES.glob("store_schema*.sql")), key=int)


def old_logs() -> dict[str, list[Row]]:
    """The golden schema-1 logs that verify, by a name of their own."""
    logs: dict[int, list[Row]] = {}
    for line in (FIXTURES / "schema1_logs.jsonl").read_text().splitlines():
        r = json.loads(line)
        logs.setdefault(r["log"], []).append(Row(r["seq"], r["command"], r["type"], r["body"], r["hash"]))
    return {f"log-{n}": rows for n, rows in logs.items() if verify(rows).ok}


def fight_of(name: str, rows: list[Row]) -> FightInfo:
    """The fights-table row a store holds for a log: its fight id is its last segment's (a branch or an
    imported log begins with another fight's events), a branch's parent and fork point its own event's."""
    records = [load(row.body) for row in rows]
    own = records[-1].fight
    branch = next((r.event for r in records if r.fight == own and r.event.type == "branch_started"), None)
    return FightInfo(name, own, getattr(branch, "parent", None), getattr(branch, "fork_seq", None), "2026-01-01")


def old_store(path: Path, version: str = "1", journal: str = "wal") -> dict[str, list[Row]]:
    """A store file as the version that wrote schema `version` left it: the golden tables, the old logs in
    them, and the file's journal mode (`wal`, as every version set it; `delete`, as a copy of the file made
    by another tool may have it)."""
    logs = old_logs()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA journal_mode={journal}")
    db.executescript(f"BEGIN;{(FIXTURES / f'store_schema{version}.sql').read_text()}COMMIT;")
    db.execute("BEGIN")
    for number, (name, rows) in enumerate(logs.items(), 1):
        info = fight_of(name, rows)
        db.execute("INSERT INTO fights VALUES (?, ?, ?, ?, ?, ?)",
                   (number, name, info.fight_id, info.parent, info.fork_seq, info.created_at))
        db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?)",
                       [(number, r.seq, r.command, r.type, r.body, r.hash) for r in rows])
        spans: dict[str, list[int]] = {}
        for r in rows:
            spans.setdefault(r.command, []).append(r.seq)
        db.executemany("INSERT INTO commands VALUES (?,?,?,?)", [(number, c, min(s), max(s)) for c, s in spans.items()])
    db.execute("COMMIT")
    db.close()
    return logs


def oldest_store(path: Path) -> dict[str, list[Row]]:
    return old_store(path, stored_schemas()[0])


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        found = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    return found


def schema(path: Path) -> str:
    with sqlite3.connect(path) as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = 'store_schema'").fetchone()
    db.close()
    return str(value)


def sidecars(path: Path) -> list[str]:
    """The files SQLite keeps beside a database while it is open or after a crash (journal, WAL, index)."""
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))


def journal_mode(path: Path) -> str:
    """The journal mode the file's header records (bytes 18 and 19: 2 for WAL, 1 for a rollback journal)."""
    return "wal" if path.read_bytes()[18:20] == b"\x02\x02" else "rollback"


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_A_LOG_1_the_oldest_sqlite_store_is_read_as_it_is_and_migrated_by_its_first_write(
        tmp_path: Path, journal: str) -> None:
    path = tmp_path / "old.db"
    logs = oldest_store(path) if journal == "wal" else old_store(path, "1", journal)
    assert len(logs) >= 10
    before = path.read_bytes()
    store = SqliteStore(path)
    for name, rows in logs.items():
        assert store.read(name) == rows and verify(store.read(name), store.fight(name).fight_id).ok
    assert store.snapshot(next(iter(logs))) is None  # no cache table yet: the log is folded
    assert schema(path) == "1" and "snapshots" not in tables(path)  # reading wrote nothing
    assert path.read_bytes() == before
    name, rows = next((n, r) for n, r in logs.items() if load(r[0].body).event.type == "fight_started")
    make_fights(store).execute(name, cmd.Join(sheet={"name": "Newcomer"}, source="newcomer.toml"))
    assert schema(path) == STORE_SCHEMA == "4" and {"snapshots", "views"} <= tables(path)
    assert journal_mode(path) == "wal"  # set once the first write has committed
    again = SqliteStore(path)
    assert again.read(name)[: len(rows)] == rows and verify(again.read(name), again.fight(name).fight_id).ok
    assert all(again.read(other) == old for other, old in logs.items() if other != name)


def layout(db: sqlite3.Connection) -> dict[str, Any]:
    """A schema as SQLite holds it, whatever the text that made it: each table's columns (type, NOT NULL,
    default, key), foreign keys, indexes and whether it has a rowid."""
    found: dict[str, Any] = {}
    for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
        indexes = db.execute("SELECT name, \"unique\", origin FROM pragma_index_list(?) ORDER BY name", (name,))
        found[name] = (db.execute("SELECT * FROM pragma_table_xinfo(?)", (name,)).fetchall(),
                       db.execute("SELECT * FROM pragma_foreign_key_list(?)", (name,)).fetchall(),
                       [(*index, db.execute("SELECT name FROM pragma_index_info(?)", (index[0],)).fetchall())
                        for index in indexes.fetchall()],
                       "WITHOUT ROWID" in sql.upper())
    return found


def layout_of(path: Path) -> dict[str, Any]:
    db = sqlite3.connect(path)
    try:
        return layout(db)
    finally:
        db.close()


def test_every_stored_schema_is_a_golden_fixture_and_each_migrates_to_what_a_new_store_holds(tmp_path: Path) -> None:
    """A new schema version needs its fixture (the newest must be what the code makes), the code's own
    definition of every older schema (store.sqlite.SCHEMAS, by which a store is recognised) must still be
    its fixture's, and a store of each, migrated by a first write, ends as a new store begins."""
    assert stored_schemas() == [str(v) for v in range(1, int(STORE_SCHEMA) + 1)] == list(sqlite_store.SCHEMAS)
    fresh = tmp_path / "fresh.db"
    SqliteStore(fresh).set_setting("current", "x")
    for version in stored_schemas():
        path = tmp_path / f"schema{version}.db"
        old_store(path, version)
        made = sqlite3.connect(":memory:")
        for statement in sqlite_store.SCHEMAS[version]:
            made.execute(statement)
        assert layout_of(path) == layout(made), version
        made.close()
        assert schema(path) == version
        SqliteStore(path).set_setting("current", "x")
        assert schema(path) == STORE_SCHEMA and layout_of(path) == layout_of(fresh), version


def failing_migration(monkeypatch: pytest.MonkeyPatch) -> None:
    """Schema 1's migration, failing after its last table is made: the step before its stamp."""
    target, statements = sqlite_store.MIGRATIONS["1"]
    monkeypatch.setitem(sqlite_store.MIGRATIONS, "1", (target, (*statements, "INSERT INTO no_such_table VALUES (1)")))


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_A_LOG_1_a_first_write_that_fails_inside_its_migration_leaves_the_old_file_byte_for_byte(
        tmp_path: Path, journal: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    logs = old_store(path, "1", journal)
    before, name = path.read_bytes(), next(iter(logs))
    failing_migration(monkeypatch)
    store = SqliteStore(path)
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        make_fights(store).execute(name, cmd.Join(sheet={"name": "Newcomer"}, source="newcomer.toml"))
    assert store.read(name) == logs[name]  # the same handle reads on, from the old file
    store.close()
    assert path.read_bytes() == before and sidecars(path) == []
    monkeypatch.undo()
    store = SqliteStore(path)
    make_fights(store).execute(name, cmd.Join(sheet={"name": "Newcomer"}, source="newcomer.toml"))
    assert schema(path) == STORE_SCHEMA and store.read(name)[-1].type == "combatant_joined"


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_A_LOG_1_a_first_write_refused_after_its_migration_takes_the_migration_back_with_it(
        tmp_path: Path, journal: str) -> None:
    """The migration and the write are one transaction: a write refused once the tables are made leaves none."""
    path = tmp_path / "old.db"
    logs = old_store(path, "1", journal)
    before, (name, rows) = path.read_bytes(), next(iter(logs.items()))
    store = SqliteStore(path)
    with pytest.raises(StoreError, match="already exists"):
        store.append(name, 0, rows[:1], create=FightInfo(name, "another id"))
    store.close()
    assert path.read_bytes() == before and sidecars(path) == []


KILLED_MIGRATION = """
import sys, time
from fudge_combat.engine import commands as cmd
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import make_fights

store = SqliteStore(sys.argv[1])


def statement(sql: str) -> None:
    if "CREATE TABLE IF NOT EXISTS views" in sql:  # the migration's second table: wait here to be killed
        print("inside", flush=True)
        time.sleep(120)


store.db.set_trace_callback(statement)
make_fights(store).execute(sys.argv[2], cmd.Join(sheet={"name": "Newcomer"}, source="newcomer.toml"))
"""


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_A_LOG_1_a_writer_killed_inside_the_migration_leaves_the_old_store(tmp_path: Path, journal: str) -> None:
    """SIGKILL between the migration's two tables: the file keeps its old bytes and schema, reads as
    before (a rollback journal the kill left is rolled back by the next reader, as SQLite recovers a
    file), and the next write migrates it."""
    path = tmp_path / "old.db"
    logs = old_store(path, "1", journal)
    before, name = path.read_bytes(), next(iter(logs))
    script = tmp_path / "migrate.py"
    script.write_text(KILLED_MIGRATION)
    process = subprocess.Popen([sys.executable, str(script), str(path), name], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert process.stdout is not None and process.stdout.readline() == "inside\n"
    finally:
        process.kill()
        process.wait()
    assert path.read_bytes() == before
    store = SqliteStore(path)
    assert all(store.read(n) == rows for n, rows in logs.items())
    assert schema(path) == "1" and "snapshots" not in tables(path) and path.read_bytes() == before
    make_fights(store).execute(name, cmd.Join(sheet={"name": "Newcomer"}, source="newcomer.toml"))
    assert schema(path) == STORE_SCHEMA and {"snapshots", "views"} <= tables(path)
    assert verify(store.read(name), store.fight(name).fight_id).ok


def test_a_fresh_sqlite_store_has_the_current_schema_and_every_table(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SqliteStore(path).set_setting("current", "x")
    assert schema(path) == STORE_SCHEMA and {"fights", "events", "commands", "snapshots", "views"} <= tables(path)


def test_the_voiding_rows_are_read_by_their_index_once_a_write_has_made_it_and_alike_before(tmp_path: Path) -> None:
    """Schema 4 adds an index of the log's rows by type: a replay's first read (the voiding rows) goes by it
    once a write has migrated the store, and a store of schema 3, read as it is, gives the same rows
    without it (its file unchanged)."""
    from fudge_combat.service.caches import VOIDING_TYPES

    path = tmp_path / "old.db"
    logs = old_store(path, "3")
    before = path.read_bytes()
    store = SqliteStore(path)
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    found = {name: store.rows_of_types(name, VOIDING_TYPES) for name in logs}
    assert found == {name: [row for row in rows if row.type in VOIDING_TYPES] for name, rows in logs.items()}
    assert sum(map(len, found.values())) >= 3  # the golden logs undo, redo and void
    assert statements and not any("INDEXED BY" in sql for sql in statements)
    store.close()
    assert path.read_bytes() == before and schema(path) == "3"
    SqliteStore(path).set_setting("current", "x")  # the first write migrates it
    assert schema(path) == STORE_SCHEMA
    store = SqliteStore(path)
    statements.clear()
    store.db.set_trace_callback(statements.append)
    assert {name: store.rows_of_types(name, VOIDING_TYPES) for name in logs} == found
    read = [sql for sql in statements if "FROM events" in sql]
    assert read and all("INDEXED BY events_by_type" in sql for sql in read)
    plan = store.db.execute("EXPLAIN QUERY PLAN " + read[0]).fetchall()
    assert any("INDEX events_by_type" in str(step) for step in plan), plan
    store.close()


def test_a_store_of_a_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SqliteStore(path).set_setting("current", "x")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'store_schema'")
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="store schema 99; this version reads 4"):
        SqliteStore(path)
    assert path.read_bytes() == before


def test_A_LOG_1_the_oldest_store_moves_to_postgresql_and_back_byte_for_byte(tmp_path: Path, pg_url: str) -> None:
    """The oldest SQLite store's logs copied onto a server (whose tables its first write makes) and back."""
    from fudge_combat.store.postgres import STORE_SCHEMA as PG_SCHEMA, PostgresStore

    path = tmp_path / "old.db"
    logs = oldest_store(path)
    server = PostgresStore(pg_url, gm="alice")
    assert server.fights() == []  # a read makes nothing
    source = SqliteStore(path)
    for name in logs:
        server.append(name, 0, source.read(name), create=source.fight(name))
    assert server.setting("store_schema") is None
    with server._db() as db:  # the stamp is the schema's, not a GM's setting
        assert db.execute("SELECT value FROM meta WHERE key = 'store_schema'").fetchone()[0] == PG_SCHEMA
    back = SqliteStore(tmp_path / "back.db")
    for name, rows in logs.items():
        assert server.read(name) == rows and server.fight(name) == source.fight(name)
        back.append(name, 0, server.read(name), create=server.fight(name))
        assert back.read(name) == rows and verify(back.read(name)).ok


def test_a_postgresql_store_of_a_newer_schema_is_refused(pg_url: str) -> None:
    from fudge_combat.store.postgres import PostgresStore

    PostgresStore(pg_url, gm="alice").set_setting("current", "x")
    with PostgresStore(pg_url)._db() as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'store_schema'")
    with pytest.raises(StoreError, match="store schema 99; this version reads 4"):
        PostgresStore(pg_url)


def test_a_database_that_is_not_a_fudge_store_is_refused_untouched(pg_url: str) -> None:
    import psycopg

    from fudge_combat.store.postgres import PostgresStore

    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("CREATE TABLE fights (who TEXT)")
        db.execute("INSERT INTO fights VALUES ('the club bowling league')")
    store = PostgresStore(pg_url, gm="alice")
    assert store.fights() == []  # no stamp: read as an empty store, its own table never read
    with pytest.raises(StoreError, match="is not a fudge store"):
        store.set_setting("current", "x")
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT * FROM fights").fetchall() == [("the club bowling league",)]
        assert db.execute("SELECT to_regclass('meta')").fetchone() == (None,)


def test_the_oldest_postgresql_schema_is_migrated_by_its_first_write(pg_url: str) -> None:
    """Schema 1 (no row-level security, shares without their fight's owner) with a fight shared: the first
    write brings it to schema 4, the share kept and its owner filled in, its GMs listed, the requests' table
    made under row-level security."""
    import psycopg

    from fudge_combat.store.postgres import MIGRATIONS, STORE_SCHEMA as PG_SCHEMA, PostgresStore

    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute(MIGRATIONS[0])  # type: ignore[arg-type]
        db.execute("INSERT INTO meta VALUES ('store_schema', '1')")
        db.execute("INSERT INTO fights (owner, name, fight_id, created_at) VALUES ('alice', 'crypt', 'id', 'then')")
        db.execute("INSERT INTO events VALUES (1, 1, 'c1', 'note', '{}', 'h1')")
        db.execute("INSERT INTO shares VALUES (1, 'bob')")
    bob = PostgresStore(pg_url, gm="bob")
    assert [f.name for f in bob.fights()] == ["crypt"]  # read as it is: nothing written
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT value FROM meta").fetchall() == [("1",)]
    bob.set_setting("current", "crypt")
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT value FROM meta").fetchall() == [(PG_SCHEMA,)] == [("4",)]
        assert db.execute("SELECT fight, gm, owner FROM shares").fetchall() == [(1, "bob", "alice")]
        assert db.execute("SELECT relname FROM pg_class WHERE relrowsecurity ORDER BY relname").fetchall() == [
            ("commands",), ("events",), ("fights",), ("gms",), ("requests",), ("settings",), ("shares",), ("snapshots",),
            ("views",)]
        assert db.execute("SELECT name FROM gms ORDER BY name").fetchall() == [("alice",), ("bob",)]
    assert bob.read("crypt")[0].hash == "h1" and bob.setting("current") == "crypt"


def test_store_copy_reads_fight_names_as_every_command_does(tmp_path: Path) -> None:
    """`fudge store copy --fight` takes a name in any case or its unique beginning, with did-you-mean."""
    from tests.processes import ROOT, fudge

    laptop, other = tmp_path / "laptop.db", tmp_path / "other.db"
    assert fudge("new", "Crypt-Raid", store=laptop).returncode == 0
    assert fudge("join", str(ROOT / "examples" / "sheets" / "snorri.toml"), store=laptop).returncode == 0
    done = fudge("store", "copy", str(laptop), str(other), "--fight", "crypt", store=laptop)
    assert done.returncode == 0 and done.stdout.startswith("Crypt-Raid: "), done.stderr
    missed = fudge("store", "copy", str(laptop), str(other), "--fight", "cript-raid", store=laptop)
    assert missed.returncode == 1 and "did you mean Crypt-Raid?" in missed.stderr


def _first_writer(path: Path, number: int, start: Any, done: Any) -> None:
    try:
        start.wait()
        store = SqliteStore(path)
        store.append(f"new-{number}", 0, [Row(1, f"c{number}", "note", "{}", "h")],
                     create=FightInfo(f"new-{number}", f"id-{number}"))
        store.set_setting("current", f"new-{number}")
        done.put("written")
    except BaseException as exc:  # noqa: BLE001 - reported to the test, which names it
        done.put(repr(exc))


def _reader(path: Path, names: list[str], start: Any, done: Any) -> None:
    try:
        start.wait()
        for _ in range(40):
            store = SqliteStore(path)
            assert [f.name for f in store.fights()][: len(names)] == names
            store.close()
        done.put("read")
    except BaseException as exc:  # noqa: BLE001
        done.put(repr(exc))


@pytest.mark.parametrize("start", ["no file", "schema 1, wal", "schema 1, delete"])
def test_A_LOG_1_processes_that_begin_or_migrate_one_store_at_once_leave_it_whole(tmp_path: Path, start: str) -> None:
    """Six first writes at the same moment, each its own process, on a path with no file or on an old store,
    with readers opening it all the while: every write lands, once; the file is made or migrated once and
    stays whole, and each reader finds a fudge store every time."""
    import multiprocessing

    path = tmp_path / "store.db"
    names = [] if start == "no file" else list(old_store(path, "1", start.rpartition(" ")[2]))
    context = multiprocessing.get_context("fork")
    begin, done = context.Barrier(9), context.Queue()
    processes = [context.Process(target=_first_writer, args=(path, n, begin, done)) for n in range(6)]
    processes += [context.Process(target=_reader, args=(path, names, begin, done)) for _ in range(3)]
    for process in processes:
        process.start()
    results = sorted(done.get(timeout=60) for _ in processes)
    for process in processes:
        process.join(timeout=10)
    assert results == ["read"] * 3 + ["written"] * 6
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT value FROM meta WHERE key = 'store_schema'").fetchall() == [(STORE_SCHEMA,)]
    finally:
        db.close()
    store = SqliteStore(path)
    assert sorted(f.name for f in store.fights()) == sorted([*names, *(f"new-{n}" for n in range(6))])
    fresh = tmp_path / "fresh.db"
    SqliteStore(fresh).set_setting("current", "x")
    assert journal_mode(path) == "wal" and layout_of(path) == layout_of(fresh)


def test_a_store_is_recognised_as_it_is_at_one_moment_while_another_process_migrates_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process's first write commits the migration just after this one has read the file's tables:
    this one's stamp is read in the same read transaction, so it sees the old schema whole (its tables and
    stamp 1), not the old tables under the new stamp, which would read as another program's database."""
    path = tmp_path / "old.db"
    logs = old_store(path, "1")
    read_tables = sqlite_store._columns
    migrated: list[str] = []

    def then_migrated(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
        found = read_tables(db)
        if not migrated:
            migrated.append("by another")
            SqliteStore(path).set_setting("current", "log-0")
        return found

    monkeypatch.setattr(sqlite_store, "_columns", then_migrated)
    store = SqliteStore(path)
    assert migrated and store.version == "1" and schema(path) == STORE_SCHEMA
    assert all(store.read(name) == rows for name, rows in logs.items())
