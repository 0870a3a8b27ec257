"""The embedded default store: one SQLite file, one transaction per command."""

from __future__ import annotations

import functools
import sqlite3
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Iterable, Iterator
from typing import Any

from fudge_combat.events.rows import Row
from fudge_combat.store.base import Conflict, DuplicateCommand, FightInfo, StoreError, UnknownFight, checked_append
from fudge_combat.store import snapshots
from fudge_combat.store.requests import PENDING, Request, from_row as request_row
from fudge_combat.store.secrets import SecretFile
from fudge_combat.store.snapshots import Snapshot
from fudge_combat.store.views import View, from_row as view_row

STORE_SCHEMA = "4"

# The log's tables, as the first store schema made them (tests/fixtures/store_schema1.sql): one statement each,
# since a migration runs them inside a write's own transaction (sqlite3's executescript would commit it).
LOG_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS fights (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    fight_id TEXT NOT NULL,
    parent TEXT,
    fork_seq INTEGER,
    created_at TEXT NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS events (
    fight INTEGER NOT NULL REFERENCES fights(id),
    seq INTEGER NOT NULL,
    command TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (fight, seq)
) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS commands (
    fight INTEGER NOT NULL REFERENCES fights(id),
    command TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    PRIMARY KEY (fight, command)
) WITHOUT ROWID""",
    "CREATE TABLE IF NOT EXISTS secrets (key TEXT PRIMARY KEY, value TEXT NOT NULL)",  # emptied: see store.secrets
)

# A cache, not part of the log (store.snapshots): one row per fight, replaced as the fight grows.
SNAPSHOTS = """
CREATE TABLE IF NOT EXISTS snapshots (
    fight INTEGER PRIMARY KEY REFERENCES fights(id),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    version TEXT NOT NULL,
    body BLOB NOT NULL,
    mac TEXT NOT NULL
)
"""

# Read models (store.views): one row per fight and view, replaced by every append.
VIEWS = """
CREATE TABLE IF NOT EXISTS views (
    fight INTEGER NOT NULL REFERENCES fights(id),
    name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    version TEXT NOT NULL,
    body TEXT NOT NULL,
    mac TEXT NOT NULL,
    PRIMARY KEY (fight, name)
) WITHOUT ROWID
"""

# Players' requests waiting for the GM (store.requests): rows inserted by the players' server, settled by the
# GM's play. Not the log: a request changes no fight until the GM accepts it as a command.
REQUESTS = """
CREATE TABLE IF NOT EXISTS requests (
    fight INTEGER NOT NULL REFERENCES fights(id),
    id TEXT NOT NULL,
    fighter TEXT NOT NULL,
    link TEXT NOT NULL,
    at TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    said TEXT NOT NULL,
    PRIMARY KEY (fight, id)
) WITHOUT ROWID
"""

# The log's rows by type (schema 4): a replay reads the few voiding rows first (`rows_of_types`), which without
# it is a walk through every row of the fight, bodies and all.
EVENTS_BY_TYPE = "CREATE INDEX IF NOT EXISTS events_by_type ON events(fight, type)"

# The schema, version by version: MIGRATIONS[v] takes a store at version v to v + 1. Schema 1 (the first
# stores) had no table for the caches; they were made by the first append that stored one. Schema 2 has
# them from the start. Each stored schema is kept as a golden fixture (tests/fixtures/store_schemaN.sql).
# A read never writes: an older store is read as it is (caches missing meaning "fold the log"), and its
# first write migrates it inside that write's own transaction, so a failed write leaves the old file.
MIGRATIONS: dict[str, tuple[str, tuple[str, ...]]] = {"1": ("2", (SNAPSHOTS, VIEWS)), "2": ("3", (REQUESTS,)),
                                                      "3": ("4", (EVENTS_BY_TYPE,))}
SCHEMAS: dict[str, tuple[str, ...]] = {"1": LOG_TABLES, "2": (*LOG_TABLES, SNAPSHOTS, VIEWS),
                                       "3": (*LOG_TABLES, SNAPSHOTS, VIEWS, REQUESTS),
                                       "4": (*LOG_TABLES, SNAPSHOTS, VIEWS, REQUESTS, EVENTS_BY_TYPE)}
CACHES = frozenset({"snapshots", "views"})  # tables whose rows are caches: a store may lack them, never the log's
SCHEMA = ";\n".join(SCHEMAS[STORE_SCHEMA]) + ";"  # the whole current schema, as one script

POLL = 0.1  # seconds between two reads of a fight followed by `wait_for_change`
SEQ_MAX = 2**62  # past any log's end; a number the GM types may be larger than SQLite's integers
BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)

# What an SQLite error code (its primary part) says about the store file or the machine.
PROBLEMS = {
    sqlite3.SQLITE_FULL: "the disk is full: free some space and run the command again",
    sqlite3.SQLITE_READONLY: "it is read-only: check the permissions of the file and of its folder",
    sqlite3.SQLITE_PERM: "permission denied: check the permissions of the file and of its folder",
    sqlite3.SQLITE_CANTOPEN: "it cannot be opened: check that its folder exists and can be written",
    sqlite3.SQLITE_IOERR: "the disk failed to read or write it",
    sqlite3.SQLITE_NOTADB: "it is not an SQLite database: is --store the right file?",
    sqlite3.SQLITE_CORRUPT: "the file is damaged (database disk image is malformed)",
    sqlite3.SQLITE_BUSY: "another command holds it: run the command again",
    sqlite3.SQLITE_LOCKED: "another command holds it: run the command again",
    sqlite3.SQLITE_NOLFS: "the file is too large for this system",
}


def store_problem(exc: sqlite3.Error) -> str | None:
    """The GM's reading of an SQLite error on the store (full, read-only, damaged...); None for a defect."""
    code = getattr(exc, "sqlite_errorcode", None)
    problem = PROBLEMS.get(code & 0xFF) if isinstance(code, int) else None
    return f"{problem} ({exc})" if problem and str(exc) not in problem else problem


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _rollback(db: sqlite3.Connection) -> None:
    """End a failed transaction; SQLite has already ended one a full disk interrupted."""
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the error that stopped the transaction is the one to report


def _signature(path: Path) -> tuple[int, int] | None:
    """The file's size and modification time; None: no file, or an empty one (a store not yet begun)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_size, found.st_mtime_ns) if found.st_size > 0 else None


SMALLEST_DATABASE = 512  # bytes: one page of the smallest page size


def _sqlite_header(path: Path) -> bool:
    """False for a file that cannot be an SQLite database. SQLite itself reads a file of one byte as an
    empty database, which a first write would then overwrite; an empty file, or one that is not a regular
    file, is left for SQLite to judge.

    Judged by the file's size alone, never by opening it: closing any descriptor of a file drops every
    POSIX lock this process holds on it, the locks this process's open connections to the store rely on.
    Another process would then take their write-ahead log for abandoned, checkpoint it and delete it, and
    the writes after that would reach no other process until this one closed. A database is at least one
    page (512 bytes), so a shorter file that is not empty is not one; a longer one SQLite judges by its
    header as it first reads it (SQLITE_NOTADB, with nothing written)."""
    try:
        found = path.stat()
    except OSError:
        return True  # SQLite's own error names the cause
    if not stat.S_ISREG(found.st_mode):
        return True
    return found.st_size == 0 or found.st_size >= SMALLEST_DATABASE


def _seq(value: int | None) -> int:
    """A seq or count as SQLite takes it: None and anything past any log are SEQ_MAX, below zero is -1."""
    return SEQ_MAX if value is None else max(-1, min(value, SEQ_MAX))


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def _columns(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    """Each table of a database with the names of its columns, in order (SQLite's own tables left out)."""
    found: dict[str, tuple[str, ...]] = {}
    for table, column in db.execute(
            "SELECT m.name, c.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c "
            "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite~_%' ESCAPE '~' ORDER BY m.name, c.cid"):
        found[table] = (*found.get(table, ()), column)
    return found


@functools.cache
def _shape(version: str) -> dict[str, tuple[str, ...]]:
    """The tables and columns of a store schema, as its statements make them."""
    db = sqlite3.connect(":memory:")
    try:
        for statement in SCHEMAS[version]:
            db.execute(statement)
        return _columns(db)
    finally:
        db.close()


def _run(db: sqlite3.Connection, statements: Iterable[str]) -> None:
    """Statements inside the transaction that is open (sqlite3's executescript would commit it first)."""
    for statement in statements:
        db.execute(statement)


class SqliteStore:
    """Append-only: rows are inserted, never updated or deleted.

    A store file is made by the first write, never by a read: until then (no file, or an empty
    one) the store reads as empty from a read-only placeholder. Reading a file never changes it: no
    journal mode is set, no table made, no schema migrated before a write; the first write does all
    that in its own transaction (`_writing`). A file that is an SQLite database of something else,
    recognised by its tables' columns, is refused and left untouched.
    """

    notifies = False  # a file has no notifications: `wait_for_change` polls it

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._secrets: SecretFile | None = None
        self.version: str | None = STORE_SCHEMA  # the file's schema, once read (`_recognise`); None: not begun
        self._ready = False  # this connection has checked (or made, or migrated) the schema inside a write
        self._wal = False  # the file is known to be in write-ahead-log mode (set by the first write)
        if self.path.is_dir():
            raise StoreError(f"the store {self.path} is a folder: name a store file (--store FILE)")
        self.pending = True  # no file, or none with fudge's tables yet: reads go to the placeholder
        self._blank: tuple[int, int] | None = None  # the signature of a file read as not yet begun
        found = self._look() if _signature(self.path) is not None else None
        self._db = found or self._placeholder()

    @property
    def db(self) -> sqlite3.Connection:
        """The connection; a store that had no file reads the file as soon as one exists."""
        if self.pending and (seen := _signature(self.path)) is not None and seen != self._blank:
            if (found := self._look()) is not None:
                self._db.close()
                self._db = found
        return self._db

    @staticmethod
    def _placeholder() -> sqlite3.Connection:
        """An empty store in memory that refuses writes (a write opens the file: `_materialize`)."""
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.executescript(SCHEMA)
        db.execute("PRAGMA query_only=ON")
        return db

    def _look(self) -> sqlite3.Connection | None:
        """The file that exists now, read as it is: a fudge store's connection, which then replaces the
        placeholder; None for a file with no table yet (an SQLite file another program left empty)."""
        signature = _signature(self.path)
        connection = self._open()
        if self.version is None and not _columns(connection):
            connection.close()
            self._blank = signature
            return None
        self.pending = False
        return connection

    def _materialize(self) -> None:
        """Open (and create) the store file for the first write of a store that had none."""
        if self.pending:
            connection = self._open()
            self._db.close()
            self._db, self.pending = connection, False

    def _unbegin(self) -> None:
        """After a first write that failed: a file still without tables reads from the placeholder again."""
        try:
            blank = not _columns(self._db)
        except sqlite3.Error:
            return
        if blank:
            self._db.close()
            self._db, self.pending, self._blank = self._placeholder(), True, _signature(self.path)

    def _open(self) -> sqlite3.Connection:
        """A connection to the file, its schema recognised; nothing is written to the file here. A store
        being begun (`pending`) may create the file; a read never does."""
        if not _sqlite_header(self.path):
            raise StoreError(f"{self.path} is not a fudge store (it is not an SQLite database); "
                             "fudge leaves it as it is: give another --store file")
        uri = f"{self.path.absolute().as_uri()}?mode={'rwc' if self.pending else 'rw'}"
        try:
            db = sqlite3.connect(uri, uri=True, timeout=10.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {self.path}: {store_problem(exc) or exc}") from None
        try:
            db.execute("PRAGMA synchronous=FULL")  # settings of this connection: neither touches the file
            db.execute("PRAGMA foreign_keys=ON")
            self.version = self._recognise(db)
        except sqlite3.Error as exc:
            db.close()
            if _code(exc) == sqlite3.SQLITE_NOTADB:
                raise StoreError(f"{self.path} is not a fudge store (it is not an SQLite database); "
                                 "fudge leaves it as it is: give another --store file") from None
            raise StoreError(f"cannot open the store {self.path}: {store_problem(exc) or exc}") from None
        except BaseException:
            db.close()
            raise
        return db

    def _recognise(self, db: sqlite3.Connection) -> str | None:
        """The file's store schema, recognised by its tables and their columns (a table's name alone says
        nothing: another program may have a table `fights`): the version its stamp names, or None for a
        file fudge may begin. That is a file with no table, or one with the first schema's tables alone,
        unstamped and without a fight: a store the first versions began (tables, then the stamp) that a
        kill stopped between the two. Anything else is another program's database, refused as it is.

        Read in one read transaction (a write's own, or one begun here, which writes nothing): the tables
        and the stamp of one moment, never the tables before a migration another process commits and the
        stamp after it."""
        if db.in_transaction:
            return self._recognised(db)
        db.execute("BEGIN")
        try:
            return self._recognised(db)
        finally:
            _rollback(db)

    def _recognised(self, db: sqlite3.Connection) -> str | None:
        found = _columns(db)
        if not found:
            return None
        newest = _shape(STORE_SCHEMA)
        if found.get("meta") == newest["meta"] and (stamp := _meta(db, "store_schema")) is not None:
            if stamp not in SCHEMAS:
                raise StoreError(f"{self.path} has store schema {stamp[:20]}; this version reads {STORE_SCHEMA}: "
                                 "a newer fudge wrote it, read it with that version")
            expected = {**{name: columns for name, columns in newest.items() if name in found}, **_shape(stamp)}
            for name in CACHES - set(found):  # a cache's table dropped: read as no cache, made again by a write
                expected.pop(name, None)
            unlike = sorted(name for name, columns in expected.items() if found.get(name) != columns)
            if unlike:
                raise self._foreign(f"its table {unlike[0]} has other columns than fudge's" if unlike[0] in found
                                    else f"it has no table {unlike[0]}")
            return stamp
        first = _shape("1")
        begun = set(found) == set(first) and all(found[name] == first[name] for name in found)
        if begun and db.execute("SELECT count(*) FROM fights").fetchone()[0] == 0:
            return None
        listed = ", ".join(name[:40] for name in sorted(found)[:3]) + (", ..." if len(found) > 3 else "")
        raise self._foreign(f"its tables: {listed}")

    def _foreign(self, why: str) -> StoreError:
        return StoreError(f"{self.path} is an SQLite database but not a fudge store ({why}); "
                          "fudge leaves it as it is: give another --store file")

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write, all or nothing: the file made if it has none, and inside the write's own transaction
        its schema made or migrated to this version's (`_prepare`). A failure at any step leaves the file
        as it was. The file goes to write-ahead-log mode after its first write has committed: a switch
        that changes the file's header, so never made by a read nor before the write is known to succeed."""
        self._materialize()
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if _code(exc) in BUSY:
                raise Conflict(f"the store is busy ({exc}); run the command again") from None
            raise self._unwritten(exc) from None
        try:
            self._prepare(db)
            yield db
            db.execute("COMMIT")
            self.version, self._ready = STORE_SCHEMA, True
        except BaseException as exc:
            _rollback(db)
            if self.version is None:
                self._unbegin()
            if isinstance(exc, sqlite3.Error) and store_problem(exc):
                raise self._unwritten(exc) from None
            raise
        if not self._wal:
            try:
                self._wal = db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
            except sqlite3.OperationalError:
                pass  # another process reads it at this moment: the next write switches it

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Inside a write's transaction, the schema as this version writes it: made in a file not yet begun,
        migrated step by step from an older one. Read again here, since another process may have begun or
        migrated the file since this one opened it."""
        if self._ready:
            return
        version = self._recognise(db)
        if version is None:
            _run(db, SCHEMAS[STORE_SCHEMA])
            db.execute("INSERT OR IGNORE INTO meta VALUES ('store_schema', ?)", (STORE_SCHEMA,))
        while version in MIGRATIONS:
            version, statements = MIGRATIONS[version]
            _run(db, statements)
            db.execute("UPDATE meta SET value = ? WHERE key = 'store_schema'", (version,))

    def _meta(self, key: str) -> str | None:
        return _meta(self.db, key)

    def close(self) -> None:
        self._db.close()

    def _id(self, name: str) -> int:
        row = self.db.execute("SELECT id FROM fights WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise UnknownFight(f"no fight named {name!r} in {self.path}; `fudge fights` lists them")
        return int(row[0])

    def fights(self) -> list[FightInfo]:
        rows = self.db.execute("SELECT name, fight_id, parent, fork_seq, created_at FROM fights ORDER BY id")
        return [FightInfo(*row) for row in rows]

    def fight(self, name: str) -> FightInfo:
        row = self.db.execute(
            "SELECT name, fight_id, parent, fork_seq, created_at FROM fights WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise UnknownFight(f"no fight named {name!r} in {self.path}; `fudge fights` lists them")
        return FightInfo(*row)

    def read(self, name: str, upto: int | None = None) -> list[Row]:
        fight = self._id(name)
        rows = self._fetch(
            "SELECT seq, command, type, body, hash FROM events WHERE fight = ? AND seq <= ? ORDER BY seq",
            (fight, _seq(upto)))
        return [Row(*row) for row in rows]

    def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """The rows of a query on the log. A row edited into bytes that are not UTF-8 is read all the same
        (its invalid bytes as lone surrogates, which no hash matches): `verify` then names its seq, where
        sqlite3's own decoding would stop every read of the fight with an error naming none."""
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc):
                raise
        self.db.text_factory = lambda raw: raw.decode("utf-8", "surrogateescape")
        try:
            return self.db.execute(sql, params).fetchall()
        finally:
            self.db.text_factory = str

    def bodies(self, name: str, upto: int | None = None) -> list[str]:
        """The bodies of `read` alone: what a replay parses (no row objects, no other columns)."""
        fight = self._id(name)
        rows = self._fetch("SELECT body FROM events WHERE fight = ? AND seq <= ? ORDER BY seq",
                           (fight, _seq(upto)))
        return [body for (body,) in rows]

    def bodies_page(self, name: str, seq: int, limit: int, upto: int | None = None) -> list[tuple[int, str]]:
        """(seq, body) of up to `limit` rows from `seq` on (to `upto`): a long log read a page at a time,
        so that a replay holds one page of text, not the whole log's."""
        return self._fetch("SELECT seq, body FROM events WHERE fight = ? AND seq >= ? AND seq <= ? ORDER BY seq "
                           "LIMIT ?", (self._id(name), _seq(seq), _seq(upto), _seq(limit)))

    def rows_of_types(self, name: str, types: Iterable[str], upto: int | None = None) -> list[Row]:
        """The rows of these event types, in order (the few voiding events a replay looks for first)."""
        kinds = sorted(types)
        # By the index where the file has it (schema 4; SQLite's planner would walk the key, for its order);
        # a file read before its first write migrates it has none, and is read as before.
        indexed = self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'events_by_type' "
                                  "AND tbl_name = 'events'").fetchone() is not None
        rows = self._fetch(
            f"SELECT seq, command, type, body, hash FROM events {'INDEXED BY events_by_type ' if indexed else ''}"
            f"WHERE fight = ? AND seq <= ? AND type IN ({', '.join('?' * len(kinds))}) ORDER BY seq",
            (self._id(name), _seq(upto), *kinds))
        return [Row(*row) for row in rows]

    def command_seqs(self, name: str, command: str, upto: int | None = None) -> list[int]:
        """The seqs of one command's events, read within the span the commands table gives."""
        fight = self._id(name)
        span = self.db.execute("SELECT first_seq, last_seq FROM commands WHERE fight = ? AND command = ?",
                               (fight, command)).fetchone()
        if span is None:
            return []
        rows = self.db.execute("SELECT seq FROM events WHERE fight = ? AND seq BETWEEN ? AND ? AND seq <= ? "
                               "AND command = ? ORDER BY seq", (fight, span[0], span[1], _seq(upto), command))
        return [seq for (seq,) in rows]

    def last_seq(self, name: str) -> int:
        fight = self._id(name)
        row = self.db.execute("SELECT max(seq) FROM events WHERE fight = ?", (fight,)).fetchone()
        return int(row[0] or 0)

    def tail(self, name: str) -> tuple[int, str]:
        fight = self._id(name)
        rows = self._fetch("SELECT seq, hash FROM events WHERE fight = ? ORDER BY seq DESC LIMIT 1", (fight,))
        return (int(rows[0][0]), rows[0][1]) if rows else (0, "0" * 64)

    def wait_for_change(self, name: str, seq: int, timeout: float) -> int:
        """The fight's last seq once it is past `seq`, or as it is after `timeout` seconds: a file has no
        notifications, so its last seq is read every POLL seconds (store.postgres listens instead)."""
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            last = self.last_seq(name)
            left = deadline - time.monotonic()
            if last > seq or left <= 0:
                return last
            time.sleep(min(POLL, left))

    def has_command(self, name: str, command: str) -> bool:
        fight = self._id(name)
        return self.db.execute("SELECT 1 FROM commands WHERE fight = ? AND command = ?",
                               (fight, command)).fetchone() is not None

    def append(self, name: str, expected_last_seq: int, rows: list[Row], *,
               create: FightInfo | None = None, snapshot: Snapshot | None = None, views: tuple[View, ...] = ()) -> None:
        with self._writing() as db:
            if create is not None:
                if db.execute("SELECT 1 FROM fights WHERE name = ?", (name,)).fetchone():
                    raise StoreError(f"a fight named {name!r} already exists; pick another name")
                db.execute("INSERT INTO fights (name, fight_id, parent, fork_seq, created_at) VALUES (?,?,?,?,?)",
                           (name, create.fight_id, create.parent, create.fork_seq, create.created_at))
            fight = self._id(name)
            last = db.execute("SELECT max(seq) FROM events WHERE fight = ?", (fight,)).fetchone()[0] or 0
            spans = checked_append(last, expected_last_seq, rows)
            for command in spans:
                if db.execute("SELECT 1 FROM commands WHERE fight = ? AND command = ?",
                              (fight, command)).fetchone():
                    raise DuplicateCommand(f"that command was already applied to {name}")
            db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?)",
                           [(fight, r.seq, r.command, r.type, r.body, r.hash) for r in rows])
            db.executemany("INSERT INTO commands VALUES (?,?,?,?)",
                           [(fight, c, min(s), max(s)) for c, s in spans.items()])
            if snapshot is not None:
                self._save_snapshot(fight, snapshot)
            if views:
                db.execute(VIEWS)
                db.executemany("INSERT OR REPLACE INTO views VALUES (?,?,?,?,?,?,?)",
                               [(fight, v.name, v.seq, v.hash, v.version, v.body, v.mac) for v in views])

    def _unwritten(self, exc: sqlite3.Error) -> StoreError:
        """A write the file or the machine refused (full disk, read-only file): nothing of it was stored."""
        return StoreError(f"cannot write to the store {self.path}: {store_problem(exc) or exc}; nothing was written")

    # --- the cached projection (store.snapshots) --------------------------------------
    def snapshot(self, name: str) -> Snapshot | None:
        try:
            row = self.db.execute("SELECT seq, hash, version, body, mac FROM snapshots WHERE fight = ?",
                                  (self._id(name),)).fetchone()
        except sqlite3.OperationalError:  # a store written before snapshots: no table yet
            return None
        return snapshots.from_row(row, name) if row else None  # a cell edited to another type: None

    def rows_from(self, name: str, seq: int) -> list[Row]:
        """The rows from `seq` on (the log after a snapshot, and the snapshot's own event)."""
        rows = self._fetch(
            "SELECT seq, command, type, body, hash FROM events WHERE fight = ? AND seq >= ? ORDER BY seq",
            (self._id(name), _seq(seq)))
        return [Row(*row) for row in rows]

    def rows_back(self, name: str, seq: int, limit: int) -> list[Row]:
        """Up to `limit` rows at or before `seq`, newest first: a page of the log read backwards."""
        rows = self._fetch(
            "SELECT seq, command, type, body, hash FROM events WHERE fight = ? AND seq <= ? ORDER BY seq DESC LIMIT ?",
            (self._id(name), _seq(seq), _seq(limit)))
        return [Row(*row) for row in rows]

    def _save_snapshot(self, fight: int, snapshot: Snapshot) -> None:
        self.db.execute(SNAPSHOTS)
        self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?,?,?,?)",
                        (fight, snapshot.seq, snapshot.hash, snapshot.version, snapshot.body, snapshot.mac))

    def view(self, name: str, view: str) -> View | None:
        """A read model of the fight (store.views), as last stored."""
        try:
            row = self.db.execute("SELECT seq, hash, version, body, mac FROM views WHERE fight = ? AND name = ?",
                                  (self._id(name), view)).fetchone()
        except sqlite3.OperationalError:  # a store written before read models: no table yet
            return None
        return view_row(view, row, name) if row else None

    def views_under(self, name: str, prefix: str) -> dict[str, View]:
        """The fight's views whose name starts with `prefix`, in one query (a view stored in parts)."""
        try:
            rows = self.db.execute("SELECT name, seq, hash, version, body, mac FROM views WHERE fight = ? "
                                   "AND name >= ? AND substr(name, 1, ?) = ?",
                                   (self._id(name), prefix, len(prefix), prefix)).fetchall()
        except sqlite3.OperationalError:  # a store written before read models: no table yet
            return {}
        return {row[0]: found for row in rows if (found := view_row(row[0], row[1:], name)) is not None}

    def snapshot_key(self, create: bool = False) -> bytes | None:
        """The HMAC key of snapshots: this user's, kept outside the store (see `store.snapshots`)."""
        return snapshots.local_key(create)

    def user_secrets(self) -> SecretFile:
        """The GM's seeds and sealed declarations: this user's, kept outside the store (store.secrets)."""
        if self._secrets is None:
            self._secrets = SecretFile()
        return self._secrets

    def legacy_secrets(self) -> dict[str, str]:
        """Secrets that older versions kept in the store's own `secrets` table (moved out by the service)."""
        return dict(self.db.execute("SELECT key, value FROM secrets"))

    def forget_legacy_secrets(self) -> None:
        """Deletes the store's own secrets, overwriting their bytes (secure_delete) and the write-ahead log."""
        self._materialize()
        self.db.execute("PRAGMA secure_delete=ON")
        with self._writing() as db:
            db.execute("DELETE FROM secrets")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # --- players' requests (store.requests): not the log, so a row is settled in place -------
    def add_request(self, name: str, request: Request) -> None:
        with self._writing() as db:
            db.execute("INSERT INTO requests VALUES (?,?,?,?,?,?,?,?)",
                       (self._id(name), request.id, request.fighter, request.link, request.at, request.body,
                        request.state, request.said))

    def requests(self, name: str, state: str | None = None) -> list[Request]:
        """The fight's requests, oldest first (`state`: those alone); a row not of its types is left out."""
        where, params = ("AND state = ?", (state,)) if state else ("", ())
        try:
            rows = self.db.execute("SELECT id, fighter, link, at, body, state, said FROM requests WHERE fight = ? "
                                   f"{where} ORDER BY at, id", (self._id(name), *params)).fetchall()
        except sqlite3.OperationalError:  # a store of an older schema, not yet written by this version
            return []
        return [found for row in rows if (found := request_row(row)) is not None]

    def settle_request(self, name: str, request_id: str, state: str, said: str, was: str = PENDING) -> bool:
        """A request answered, once: False if it was not in state `was` (another session answered it)."""
        with self._writing() as db:
            done = db.execute("UPDATE requests SET state = ?, said = ? WHERE fight = ? AND id = ? AND state = ?",
                              (state, said, self._id(name), request_id, was))
            return done.rowcount == 1

    def setting(self, key: str) -> str | None:
        return self._meta(key)

    def set_setting(self, key: str, value: str) -> None:
        with self._writing() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
