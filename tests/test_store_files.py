"""Store files through the CLI, as a GM meets them (A-LOG-1): every stored schema read fight by fight,
each command its own process, with the file's bytes the same after every read; the first write migrating
an old store; another program's SQLite database, or a file that is no database, refused in one line and
left as it is; an empty file or a new path becoming a store on its first write, even when two processes
begin it at once.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from fudge_combat.engine.audit import verify
from fudge_combat.service.history import export_lines
from fudge_combat.store.sqlite import STORE_SCHEMA, SqliteStore
from tests.processes import ROOT, fudge
from tests.test_store_schema import journal_mode, old_logs, old_store, schema, sidecars, stored_schemas, tables

SHEET = str(ROOT / "examples" / "sheets" / "snorri.toml")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """The single `error:` line of a refused command, checked for what it must say (not exit 70)."""
    line = result.stderr
    assert result.returncode == 1 and result.stdout == "", (result.returncode, result.stdout, line)
    assert line.startswith("error: ") and line.count("\n") == 1 and "Traceback" not in line, line
    assert all(word in line for word in words), line
    return line


@pytest.mark.parametrize("version", stored_schemas())
def test_A_LOG_1_every_stored_schema_is_read_through_the_cli_fight_by_fight_without_a_change(
        tmp_path: Path, version: str) -> None:
    """`fights`, then `status`, `log` and `verify` of each fight (a branch, whose log begins with its
    parent's events, among them), each its own process: each answers from the old file, and the file's
    bytes are the same after every one, with no journal or WAL file left beside it."""
    path = tmp_path / "old.db"
    logs = old_store(path, version)
    before = digest(path)

    listed = fudge("fights", "--json", store=path)
    assert listed.returncode == 0, listed.stderr
    assert [(f["name"], f["events"]) for f in json.loads(listed.stdout)] == [(n, len(r)) for n, r in logs.items()]
    assert digest(path) == before
    branches = [f for f in json.loads(listed.stdout) if f["parent"]]
    assert branches, "the golden logs hold a branch: its fight id is not its first event's"

    def read(name: str) -> None:
        rows = logs[name]
        status = fudge("status", "--json", "--fight", name, store=path)
        assert status.returncode == 0, status.stderr
        assert (json.loads(status.stdout)["fight"], json.loads(status.stdout)["last_seq"]) == (name, len(rows))
        assert digest(path) == before, f"status --fight {name} changed the file"
        log = fudge("log", "--json", "--fight", name, store=path)
        assert log.returncode == 0, log.stderr
        assert [(e["seq"], e["type"], e["command"]) for e in json.loads(log.stdout)] == [
            (r.seq, r.type, r.command) for r in rows]
        assert digest(path) == before, f"log --fight {name} changed the file"
        checked = fudge("verify", "--fight", name, store=path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.startswith(f"{name}: {len(rows)} events verified: hash chain intact")
        assert f"receipt {len(rows)}:{rows[-1].hash[:32]}" in checked.stdout
        assert digest(path) == before, f"verify --fight {name} changed the file"

    with ThreadPoolExecutor(max_workers=2) as pool:  # two fights at a time: readers side by side, as GMs run them
        list(pool.map(read, logs))
    assert digest(path) == before and sidecars(path) == [] and journal_mode(path) == "wal"
    assert schema(path) == version


def test_A_LOG_1_reading_a_rollback_journal_store_keeps_its_journal_mode_and_bytes(tmp_path: Path) -> None:
    """A store file in rollback-journal mode (a copy another tool made): no read switches it to WAL, and no
    journal file is left by any read command."""
    path = tmp_path / "old.db"
    logs = old_store(path, stored_schemas()[0], journal="delete")
    before, (name, rows) = digest(path), next(iter(logs.items()))
    for args in (["fights"], ["status", "--fight", name], ["status", "--json", "--fight", name],
                 ["log", "--fight", name], ["verify", "--fight", name], ["export", "--fight", name],
                 ["report", name], ["report", "--format", "md", name]):
        done = fudge(*args, store=path)
        assert done.returncode == 0, (args, done.stderr)
        assert digest(path) == before and sidecars(path) == [] and journal_mode(path) == "rollback", args


def test_A_LOG_1_the_first_write_through_the_cli_migrates_an_old_store_and_every_fight_reads_on(
        tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    logs = old_store(path, stored_schemas()[0], journal="delete")
    name = next(n for n, rows in logs.items() if rows[0].type == "fight_started" and len(rows) < 10)
    joined = fudge("join", SHEET, "--fight", name, store=path)
    assert joined.returncode == 0, joined.stderr
    assert schema(path) == STORE_SCHEMA and {"snapshots", "views"} <= tables(path) and journal_mode(path) == "wal"
    store = SqliteStore(path)
    for other, rows in logs.items():
        kept = store.read(other)
        assert kept[: len(rows)] == rows and verify(kept, store.fight(other).fight_id).ok
        assert len(kept) == len(rows) or other == name
    assert store.read(name)[-1].type == "combatant_joined"
    checked = fudge("verify", "--fight", name, store=path)
    assert checked.returncode == 0 and "hash chain intact" in checked.stdout, checked.stdout + checked.stderr


# --- files that are not fudge stores ----------------------------------------------------------------------

def sqlite_file(path: Path, *statements: str, journal: str = "delete") -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA journal_mode={journal}")
    for statement in statements:
        db.execute(statement)
    db.close()


FUDGE_TABLES = ("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "CREATE TABLE fights (id INTEGER PRIMARY KEY, name TEXT, fight_id TEXT, parent TEXT, fork_seq INTEGER, "
                "created_at TEXT)", "CREATE TABLE events (fight INTEGER, seq INTEGER, command TEXT, type TEXT, "
                "body TEXT, hash TEXT)", "CREATE TABLE commands (fight INTEGER, command TEXT, first_seq INTEGER, "
                "last_seq INTEGER)", "CREATE TABLE secrets (key TEXT PRIMARY KEY, value TEXT)")

# Another program's databases: by table name alone, some could pass for a store being begun or a store.
FOREIGN = {
    "a table named fights, empty": ["CREATE TABLE fights (who TEXT)"],
    "a table named fights, in WAL mode": ["CREATE TABLE fights (who TEXT)", "INSERT INTO fights VALUES ('league')"],
    "fudge's table names, other columns": ["CREATE TABLE meta (k TEXT, v TEXT)", "CREATE TABLE fights (who TEXT)",
                                           "CREATE TABLE events (what TEXT)", "CREATE TABLE commands (c TEXT)",
                                           "CREATE TABLE secrets (s TEXT)"],
    "a stamp, but fights of its own": ["CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                                       "INSERT INTO meta VALUES ('store_schema', '2')",
                                       "CREATE TABLE fights (who TEXT)"],
    "a fudge store's tables and one more, unstamped": [*FUDGE_TABLES, "CREATE TABLE bowling (lane INTEGER)"],
    "a people table": ["CREATE TABLE people (id INTEGER, name TEXT)", "INSERT INTO people VALUES (1, 'Ada')"],
}


@pytest.fixture(scope="module")
def commands(tmp_path_factory: pytest.TempPathFactory) -> list[list[str]]:
    """Reads and writes, each refused alike (every one for the first kind of file, a read and a write for
    the others): the import's log is a golden one, exported beside no store."""
    exported = tmp_path_factory.mktemp("export") / "log.jsonl"
    name, rows = next(iter(old_logs().items()))
    exported.write_text("\n".join(export_lines(name, rows)) + "\n")
    return [["fights"], ["status"], ["log"], ["verify"], ["new", "duel"], ["join", SHEET],
            ["import", str(exported), "--as", "copy"]]


@pytest.mark.parametrize("kind", list(FOREIGN))
def test_another_programs_sqlite_database_is_refused_in_one_line_and_never_changed(
        tmp_path: Path, kind: str, commands: list[list[str]]) -> None:
    path = tmp_path / "theirs.db"
    sqlite_file(path, *FOREIGN[kind], journal="wal" if "WAL" in kind else "delete")
    before, beside = digest(path), sorted(p.name for p in tmp_path.iterdir())
    for args in commands if kind == "a table named fights, empty" else (["status"], ["new", "duel"]):
        one_line(fudge(*args, store=path), str(path), "is an SQLite database but not a fudge store",
                 "give another --store file")
        assert digest(path) == before and sorted(p.name for p in tmp_path.iterdir()) == beside, args


NOT_SQLITE = {
    "text": b"my notes, not a store\n" * 50,
    "random bytes": bytes((i * 7919 + 13) % 256 for i in range(8192)),
    "a few bytes": b"x",
    "an SQLite header and nothing else": b"SQLite format 3\x00" + b"\x00" * 84,
}


@pytest.mark.parametrize("kind", list(NOT_SQLITE))
def test_a_file_that_is_not_an_sqlite_database_is_refused_in_one_line_and_never_changed(
        tmp_path: Path, kind: str, commands: list[list[str]]) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(NOT_SQLITE[kind])
    for args in commands if kind == "text" else (["status"], ["new", "duel"]):
        one_line(fudge(*args, store=path), str(path), "not a fudge store")
        assert path.read_bytes() == NOT_SQLITE[kind] and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


# --- stores not yet begun ----------------------------------------------------------------------------------

@pytest.mark.parametrize("start", ["no file", "an empty file", "an SQLite file without tables",
                                   "a store begun without its stamp"])
def test_a_store_not_yet_begun_reads_as_empty_unchanged_and_becomes_a_store_on_its_first_write(
        tmp_path: Path, start: str) -> None:
    """No file, an empty one, an SQLite database with no table, or the tables the first versions made before
    their stamp (a kill between the two): reads find no fight and change nothing; `new` makes the store."""
    path = tmp_path / "fudge.db"
    if start == "an empty file":
        path.write_bytes(b"")
    elif start == "an SQLite file without tables":
        sqlite_file(path, "PRAGMA user_version = 7")
    elif start == "a store begun without its stamp":
        first = (ROOT / "tests" / "fixtures" / "store_schema1.sql").read_text()
        sqlite_file(path, *[s for s in first.split(";") if "CREATE TABLE" in s])
    before = path.read_bytes() if path.exists() else None
    listed = fudge("fights", store=path)
    assert listed.returncode == 0 and "no fights" in listed.stdout, listed.stdout + listed.stderr
    refused = fudge("status", store=path)
    assert refused.returncode == 1 and "no current fight" in refused.stderr, refused.stderr
    assert (path.read_bytes() if path.exists() else None) == before and sidecars(path) == []
    made = fudge("new", "duel", store=path)
    assert made.returncode == 0, made.stderr
    assert schema(path) == STORE_SCHEMA and journal_mode(path) == "wal"
    assert [f.name for f in SqliteStore(path).fights()] == ["duel"]


def test_processes_beginning_one_new_store_at_once_make_one_whole_store(tmp_path: Path) -> None:
    """Four `fudge new` at the same moment on a path with no file: each fight is made, the store once."""
    path = tmp_path / "fudge.db"
    names = [f"duel-{n}" for n in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda name: fudge("new", name, store=path), names))
    assert [r.returncode for r in results] == [0] * 4, [r.stderr for r in results]
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT value FROM meta WHERE key = 'store_schema'").fetchall() == [(STORE_SCHEMA,)]
    finally:
        db.close()
    assert sorted(f.name for f in SqliteStore(path).fights()) == names and journal_mode(path) == "wal"
    for name in names:
        checked = fudge("verify", "--fight", name, store=path)
        assert checked.returncode == 0, checked.stdout + checked.stderr

