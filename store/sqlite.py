"""The embedded default store: one SQLite file, one transaction per command."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from store.base import CONFLICT, Conflict, DuplicateCommand, FightInfo, Row, StoreError, UnknownFight
from store import snapshots
from store.secrets import SecretFile
from store.snapshots import Snapshot
from store.views import View

STORE_SCHEMA = "1"

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


class SqliteStore:
    """Append-only: rows are inserted, never updated or deleted."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._secrets: SecretFile | None = None
        try:
            self.db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            version = self._meta("store_schema")
            if version is None:
                self.db.executescript("BEGIN IMMEDIATE;" + SCHEMA + "COMMIT;")
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('store_schema', ?)", (STORE_SCHEMA,))
            elif version != STORE_SCHEMA:
                raise StoreError(f"{self.path} has store schema {version}; this version reads {STORE_SCHEMA}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from None

    def _meta(self, key: str) -> str | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.OperationalError:
            return None
        return row[0] if row else None

    def close(self) -> None:
        self.db.close()

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
            (fight, upto if upto is not None else 2**62))
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
                           (fight, upto if upto is not None else 2**62))
        return [body for (body,) in rows]

    def last_seq(self, name: str) -> int:
        fight = self._id(name)
        row = self.db.execute("SELECT max(seq) FROM events WHERE fight = ?", (fight,)).fetchone()
        return int(row[0] or 0)

    def tail(self, name: str) -> tuple[int, str]:
        fight = self._id(name)
        rows = self._fetch("SELECT seq, hash FROM events WHERE fight = ? ORDER BY seq DESC LIMIT 1", (fight,))
        return (int(rows[0][0]), rows[0][1]) if rows else (0, "0" * 64)

    def has_command(self, name: str, command: str) -> bool:
        fight = self._id(name)
        return self.db.execute("SELECT 1 FROM commands WHERE fight = ? AND command = ?",
                               (fight, command)).fetchone() is not None

    def append(self, name: str, expected_last_seq: int, rows: list[Row], *,
               create: FightInfo | None = None, snapshot: Snapshot | None = None, views: tuple[View, ...] = ()) -> None:
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise Conflict(f"the store is busy ({exc}); run the command again") from None
        try:
            if create is not None:
                if db.execute("SELECT 1 FROM fights WHERE name = ?", (name,)).fetchone():
                    raise StoreError(f"a fight named {name!r} already exists; pick another name")
                db.execute("INSERT INTO fights (name, fight_id, parent, fork_seq, created_at) VALUES (?,?,?,?,?)",
                           (name, create.fight_id, create.parent, create.fork_seq, create.created_at))
            fight = self._id(name)
            last = db.execute("SELECT max(seq) FROM events WHERE fight = ?", (fight,)).fetchone()[0] or 0
            if last != expected_last_seq:
                raise Conflict(CONFLICT)
            if [r.seq for r in rows] != list(range(expected_last_seq + 1, expected_last_seq + 1 + len(rows))):
                raise StoreError("rows out of sequence")
            spans: dict[str, list[int]] = {}
            for row in rows:
                spans.setdefault(row.command, []).append(row.seq)
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
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # --- the cached projection (store.snapshots) --------------------------------------
    def snapshot(self, name: str) -> Snapshot | None:
        try:
            row = self.db.execute("SELECT seq, hash, version, body, mac FROM snapshots WHERE fight = ?",
                                  (self._id(name),)).fetchone()
        except sqlite3.OperationalError:  # a store written before snapshots: no table yet
            return None
        return Snapshot(row[0], row[1], row[2], bytes(row[3]), row[4]) if row else None

    def rows_from(self, name: str, seq: int) -> list[Row]:
        """The rows from `seq` on (the log after a snapshot, and the snapshot's own event)."""
        rows = self._fetch(
            "SELECT seq, command, type, body, hash FROM events WHERE fight = ? AND seq >= ? ORDER BY seq",
            (self._id(name), seq))
        return [Row(*row) for row in rows]

    def rows_back(self, name: str, seq: int, limit: int) -> list[Row]:
        """Up to `limit` rows at or before `seq`, newest first: a page of the log read backwards."""
        rows = self._fetch(
            "SELECT seq, command, type, body, hash FROM events WHERE fight = ? AND seq <= ? ORDER BY seq DESC LIMIT ?",
            (self._id(name), seq, limit))
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
        return View(view, *row) if row else None

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
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
