"""Store schema versions and their migrations, from the oldest store a GM may hold (A-LOG-1).

The oldest SQLite store is `fixtures/store_schema1.sql` (the first schema, no cache tables) filled with
the schema-1 golden logs; it is read as it is, migrated by its first write, and copied to a PostgreSQL
server, whose schema is made by its own first write. A store of a schema newer than the code is refused.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
import pytest

from engine import commands as cmd
from engine.audit import verify
from events.envelope import load
from events.rows import Row
from store.base import StoreError
from store.sqlite import STORE_SCHEMA, SqliteStore
from tests.conftest import make_fights

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def old_logs() -> dict[str, list[Row]]:
    """The golden schema-1 logs that verify, by a name of their own."""
    logs: dict[int, list[Row]] = {}
    for line in (FIXTURES / "schema1_logs.jsonl").read_text().splitlines():
        r = json.loads(line)
        logs.setdefault(r["log"], []).append(Row(r["seq"], r["command"], r["type"], r["body"], r["hash"]))
    return {f"log-{n}": rows for n, rows in logs.items() if verify(rows).ok}


def oldest_store(path: Path) -> dict[str, list[Row]]:
    """A store file as the first version wrote it: the first schema, the old logs in its tables."""
    logs = old_logs()
    with sqlite3.connect(path) as db:
        db.executescript((FIXTURES / "store_schema1.sql").read_text())
        for number, (name, rows) in enumerate(logs.items(), 1):
            db.execute("INSERT INTO fights VALUES (?, ?, ?, NULL, NULL, ?)",
                       (number, name, load(rows[0].body).fight, "2026-01-01"))
            db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?)",
                           [(number, r.seq, r.command, r.type, r.body, r.hash) for r in rows])
            spans: dict[str, list[int]] = {}
            for r in rows:
                spans.setdefault(r.command, []).append(r.seq)
            db.executemany("INSERT INTO commands VALUES (?,?,?,?)", [(number, c, min(s), max(s)) for c, s in spans.items()])
    db.close()
    return logs


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


def test_A_LOG_1_the_oldest_sqlite_store_is_read_as_it_is_and_migrated_by_its_first_write(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    logs = oldest_store(path)
    assert len(logs) >= 10
    store = SqliteStore(path)
    for name, rows in logs.items():
        assert store.read(name) == rows and verify(store.read(name)).ok
    assert store.snapshot(next(iter(logs))) is None  # no cache table yet: the log is folded
    assert schema(path) == "1" and "snapshots" not in tables(path)  # reading wrote nothing
    name, rows = next((n, r) for n, r in logs.items() if load(r[0].body).event.type == "fight_started")
    make_fights(store).execute(name, cmd.Join(sheet={"name": "Newcomer"}, source="newcomer.toml"))
    assert schema(path) == STORE_SCHEMA == "2" and {"snapshots", "views"} <= tables(path)
    again = SqliteStore(path)
    assert again.read(name)[: len(rows)] == rows and verify(again.read(name)).ok
    assert all(again.read(other) == old for other, old in logs.items() if other != name)


def test_a_fresh_sqlite_store_has_the_current_schema_and_every_table(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SqliteStore(path).set_setting("current", "x")
    assert schema(path) == STORE_SCHEMA and {"fights", "events", "commands", "snapshots", "views"} <= tables(path)


def test_a_store_of_a_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SqliteStore(path).set_setting("current", "x")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'store_schema'")
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="store schema 99; this version reads 2"):
        SqliteStore(path)
    assert path.read_bytes() == before


def test_A_LOG_1_the_oldest_store_moves_to_postgresql_and_back_byte_for_byte(tmp_path: Path, pg_url: str) -> None:
    """The oldest SQLite store's logs copied onto a server (whose tables its first write makes) and back."""
    from store.postgres import STORE_SCHEMA as PG_SCHEMA, PostgresStore

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
    from store.postgres import PostgresStore

    PostgresStore(pg_url, gm="alice").set_setting("current", "x")
    with PostgresStore(pg_url)._db() as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'store_schema'")
    with pytest.raises(StoreError, match="store schema 99; this version reads 3"):
        PostgresStore(pg_url)


def test_a_database_that_is_not_a_fudge_store_is_refused_untouched(pg_url: str) -> None:
    import psycopg

    from store.postgres import PostgresStore

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
    write brings it to schema 3, the share kept and its owner filled in, its GMs listed."""
    import psycopg

    from store.postgres import MIGRATIONS, STORE_SCHEMA as PG_SCHEMA, PostgresStore

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
        assert db.execute("SELECT value FROM meta").fetchall() == [(PG_SCHEMA,)] == [("3",)]
        assert db.execute("SELECT fight, gm, owner FROM shares").fetchall() == [(1, "bob", "alice")]
        assert db.execute("SELECT relname FROM pg_class WHERE relrowsecurity ORDER BY relname").fetchall() == [
            ("commands",), ("events",), ("fights",), ("gms",), ("settings",), ("shares",), ("snapshots",), ("views",)]
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
