"""The embedded default store: one SQLite file, one transaction per command."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from collections.abc import Iterable
from typing import Any

from events.rows import Row
from store.base import Conflict, DuplicateCommand, FightInfo, StoreError, UnknownFight, checked_append
from store import snapshots
from store.secrets import SecretFile
from store.snapshots import Snapshot
from store.views import View, from_row as view_row

STORE_SCHEMA = "2"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fights (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    fight_id TEXT NOT NULL,
    parent TEXT,
    fork_seq INTEGER,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    fight INTEGER NOT NULL REFERENCES fights(id),
    seq INTEGER NOT NULL,
    command TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (fight, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS commands (
    fight INTEGER NOT NULL REFERENCES fights(id),
    command TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    PRIMARY KEY (fight, command)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS secrets (key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- emptied: see store.secrets
"""

# A cache, not part of the log (store.snapshots): one row per fight, replaced as the fight grows.
SNAPSHOTS = """
CREATE TABLE IF NOT EXISTS snapshots (
    fight INTEGER PRIMARY KEY REFERENCES fights(id),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    version TEXT NOT NULL,
    body BLOB NOT NULL,
    mac TEXT NOT NULL
);
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
) WITHOUT ROWID;
"""


# The schema, version by version: MIGRATIONS[v] takes a store at version v to v + 1. Schema 1 (the first
# stores) had no table for the caches; they were made by the first append that stored one. Schema 2 has
# them from the start. A store is migrated by its first write, in that write's own transaction's stead
# (a read never writes: an older store is read as it is, caches missing meaning "fold the log").
MIGRATIONS: dict[str, tuple[str, str]] = {"1": ("2", SNAPSHOTS + VIEWS)}

FUDGE_TABLES = frozenset({"meta", "fights", "events", "commands", "secrets", "snapshots", "views"})
POLL = 0.1  # seconds between two reads of a fight followed by `wait_for_change`
SEQ_MAX = 2**62  # past any log's end; a number the GM types may be larger than SQLite's integers

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


def _rollback(db: sqlite3.Connection) -> None:
    """End a failed transaction; SQLite has already ended one a full disk interrupted."""
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the error that stopped the transaction is the one to report


def _has_file(path: Path) -> bool:
    """A store file with something in it (an empty file is a store not yet begun)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _seq(value: int | None) -> int:
    """A seq or count as SQLite takes it: None and anything past any log are SEQ_MAX, below zero is -1."""
    return SEQ_MAX if value is None else max(-1, min(value, SEQ_MAX))


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def _unfinished(db: sqlite3.Connection, tables: set[str]) -> bool:
    """A store that older versions began and a kill stopped before its stamp: fudge's tables, no fight."""
    if not tables <= FUDGE_TABLES or "fights" not in tables:
        return False
    try:
        return db.execute("SELECT count(*) FROM fights").fetchone()[0] == 0
    except sqlite3.Error:
        return False


class SqliteStore:
    """Append-only: rows are inserted, never updated or deleted.

    A store file is made by the first write, never by a read: until then (no file, or an empty
    one) the store reads as empty from a read-only placeholder. A file that is an SQLite
    database of something else is refused and left untouched.
    """

    notifies = False  # a file has no notifications: `wait_for_change` polls it

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._secrets: SecretFile | None = None
        self.version = STORE_SCHEMA  # the file's schema, once read (`_adopt`)
        if self.path.is_dir():
            raise StoreError(f"the store {self.path} is a folder: name a store file (--store FILE)")
        has_file = _has_file(self.path)
        self.pending = not has_file  # no file yet: the first write makes it (or another process does)
        self._db = self._placeholder() if self.pending else self._open()

    @property
    def db(self) -> sqlite3.Connection:
        """The connection; a store that had no file reads the file as soon as one exists."""
        if self.pending and _has_file(self.path):
            self._materialize()
        return self._db

    @staticmethod
    def _placeholder() -> sqlite3.Connection:
        """An empty store in memory that refuses writes (a write opens the file: `_materialize`)."""
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.executescript(SCHEMA)
        db.execute("PRAGMA query_only=ON")
        return db

    def _materialize(self) -> None:
        """Open (and create) the store file for the first write of a store that had none."""
        if self.pending:
            connection = self._open()
            self._db.close()
            self._db, self.pending = connection, False

    def _open(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {self.path}: {store_problem(exc) or exc}") from None
        try:
            self._adopt(db)
        except sqlite3.Error as exc:
            db.close()
            raise StoreError(f"cannot open the store {self.path}: {store_problem(exc) or exc}") from None
        except BaseException:
            db.close()
            raise
        return db

    def _adopt(self, db: sqlite3.Connection) -> None:
        """Check the file is a fudge store (or empty) before anything is written to it, then set it up."""
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = _meta(db, "store_schema") if "meta" in tables else None
        if version is None and tables and not _unfinished(db, tables):
            listed = ", ".join(sorted(tables - FUDGE_TABLES)[:3] or sorted(tables)[:3])
            raise StoreError(f"{self.path} is an SQLite database but not a fudge store (its tables: {listed}); "
                             "fudge leaves it as it is: give another --store file")
        self.version = version or STORE_SCHEMA
        if version is not None and version != STORE_SCHEMA and version not in MIGRATIONS:
            raise StoreError(f"{self.path} has store schema {version}; this version reads {STORE_SCHEMA}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        if version is None:  # the tables and the stamp together: a kill leaves both or neither
            try:
                db.executescript(f"BEGIN IMMEDIATE;{SCHEMA}{SNAPSHOTS}{VIEWS}"
                                 f"INSERT OR IGNORE INTO meta VALUES ('store_schema', '{STORE_SCHEMA}');COMMIT;")
            except BaseException:
                _rollback(db)
                raise

    def _meta(self, key: str) -> str | None:
        return _meta(self.db, key)

    def _migrate(self) -> None:
        """Bring an older store to this schema before its first write, one step per transaction."""
        while self.version in MIGRATIONS:
            target, script = MIGRATIONS[self.version]
            try:
                self.db.executescript(f"BEGIN IMMEDIATE;{script}"
                                      f"UPDATE meta SET value = '{target}' WHERE key = 'store_schema';COMMIT;")
            except sqlite3.Error as exc:
                _rollback(self.db)
                raise self._unwritten(exc) from None
            self.version = self._meta("store_schema") or target

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
        rows = self._fetch(
            f"SELECT seq, command, type, body, hash FROM events WHERE fight = ? AND seq <= ? "
            f"AND type IN ({', '.join('?' * len(kinds))}) ORDER BY seq", (self._id(name), _seq(upto), *kinds))
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
        self._materialize()
        self._migrate()
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise Conflict(f"the store is busy ({exc}); run the command again") from None
            raise self._unwritten(exc) from None
        try:
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
            db.execute("COMMIT")
        except BaseException as exc:
            _rollback(db)
            if isinstance(exc, sqlite3.Error) and store_problem(exc):
                raise self._unwritten(exc) from None
            raise

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
        self.db.execute("PRAGMA secure_delete=ON")
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM secrets")
            self.db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise Conflict(f"the store is busy ({exc}); run the command again") from None
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def setting(self, key: str) -> str | None:
        return self._meta(key)

    def set_setting(self, key: str, value: str) -> None:
        self._materialize()
        self._migrate()
        try:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        except sqlite3.Error as exc:
            if not store_problem(exc):
                raise
            raise self._unwritten(exc) from None
