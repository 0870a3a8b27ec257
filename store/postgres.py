"""A club's server: the same store on PostgreSQL (psycopg 3), one transaction per command.

The tables are SQLite's (store.sqlite), with the same row bytes and hash chain, and two additions
for several GMs on one server: every fight has an `owner` (the GM's name: `FUDGE_GM`, else the
connection's PostgreSQL role) and may be shared with other GMs (`shares`); a GM sees and writes only
the fights they own or that were shared with them. Settings (the current fight) are per GM, and so
are the caches (a snapshot or view is under its GM's own key). A GM's secrets and snapshot key stay
in the GM's own files (store.secrets, store.snapshots): the database never holds them.

Fight names are unique on the server (a club's fights have one name each, whoever runs them). GMs who
log in as roles of their own are held to their fights by row-level security too (schema 2), whatever SQL
they run; GMs who share one role and name themselves with FUDGE_GM, by fudge's queries alone.
Every append ends with `pg_notify('fudge', ...)`, sent at its commit: `wait_for_change` listens.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from psycopg import errors

from events.rows import Row
from store import snapshots
from store.base import CONFLICT, Conflict, DuplicateCommand, FightInfo, StoreError, UnknownFight, checked_append
from store.secrets import SecretFile
from store.snapshots import Snapshot
from store.views import View, from_row as view_row

STORE_SCHEMA = "2"
CHANNEL = "fudge"
SEQ_MAX = 2**62
LOCK = 0x66756467  # the advisory lock taken while the tables are made or migrated ("fudg")

# The schema, version by version: MIGRATIONS[v] takes a store at version v to v + 1 (v = 0: no tables).
MIGRATIONS: dict[int, str] = {
    0: """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE fights (
    id BIGSERIAL PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL UNIQUE,
    fight_id TEXT NOT NULL,
    parent TEXT,
    fork_seq BIGINT,
    created_at TEXT NOT NULL
);
CREATE TABLE events (
    fight BIGINT NOT NULL REFERENCES fights(id),
    seq BIGINT NOT NULL,
    command TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (fight, seq)
);
CREATE TABLE commands (
    fight BIGINT NOT NULL REFERENCES fights(id),
    command TEXT NOT NULL,
    first_seq BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    PRIMARY KEY (fight, command)
);
CREATE TABLE shares (fight BIGINT NOT NULL REFERENCES fights(id), gm TEXT NOT NULL, PRIMARY KEY (fight, gm));
CREATE TABLE settings (gm TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (gm, key));
CREATE TABLE snapshots (
    fight BIGINT NOT NULL REFERENCES fights(id),
    gm TEXT NOT NULL,
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL,
    version TEXT NOT NULL,
    body BYTEA NOT NULL,
    mac TEXT NOT NULL,
    PRIMARY KEY (fight, gm)
);
CREATE TABLE views (
    fight BIGINT NOT NULL REFERENCES fights(id),
    gm TEXT NOT NULL,
    name TEXT NOT NULL,
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL,
    version TEXT NOT NULL,
    body TEXT NOT NULL,
    mac TEXT NOT NULL,
    PRIMARY KEY (fight, gm, name)
);
""",
    # 2: row-level security for GMs who log in as their own roles. The role that made the tables owns them
    # and is not bound by it (a club whose GMs share one role and name themselves with FUDGE_GM relies on
    # fudge's own queries); any other role sees and writes only its own fights and those shared with it,
    # whatever SQL it runs. `shares` keeps the fight's owner, so its policy need not read `fights`.
    1: """
ALTER TABLE shares ADD COLUMN owner TEXT;
UPDATE shares SET owner = (SELECT owner FROM fights WHERE fights.id = shares.fight);
ALTER TABLE shares ALTER COLUMN owner SET NOT NULL;
ALTER TABLE fights ENABLE ROW LEVEL SECURITY;
ALTER TABLE shares ENABLE ROW LEVEL SECURITY;
ALTER TABLE events ENABLE ROW LEVEL SECURITY;
ALTER TABLE commands ENABLE ROW LEVEL SECURITY;
ALTER TABLE snapshots ENABLE ROW LEVEL SECURITY;
ALTER TABLE views ENABLE ROW LEVEL SECURITY;
ALTER TABLE settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY gm_shares ON shares USING (gm = current_user OR owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY gm_fights ON fights
    USING (owner = current_user OR id IN (SELECT fight FROM shares WHERE gm = current_user))
    WITH CHECK (owner = current_user);
CREATE POLICY gm_events ON events USING (fight IN (SELECT id FROM fights));
CREATE POLICY gm_commands ON commands USING (fight IN (SELECT id FROM fights));
CREATE POLICY gm_snapshots ON snapshots USING (gm = current_user AND fight IN (SELECT id FROM fights));
CREATE POLICY gm_views ON views USING (gm = current_user AND fight IN (SELECT id FROM fights));
CREATE POLICY gm_settings ON settings USING (gm = current_user);
""",
}
assert len(MIGRATIONS) == int(STORE_SCHEMA)

VISIBLE = "(owner = %(gm)s OR id IN (SELECT fight FROM shares WHERE gm = %(gm)s))"
T = TypeVar("T")


def shown(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"^(\w+://[^:/@]*):[^@/]*@", r"\1:***@", url)


def _seq(value: int | None) -> int:
    return SEQ_MAX if value is None else max(-1, min(value, SEQ_MAX))


class PostgresStore:
    """The EventStore on a PostgreSQL server. `pool` (a psycopg_pool.ConnectionPool) serves a process that
    runs many commands (a table's session, a server); without one, the store keeps one connection."""

    path: Path | None = None  # no store file: messages name `where`
    notifies = True  # an append's NOTIFY wakes `wait_for_change` (LISTEN on a connection of its own)

    def __init__(self, url: str, gm: str | None = None, pool: Any = None) -> None:
        self.url, self.where = url, shown(url)
        self._pool = pool
        self._connection: psycopg.Connection[Any] | None = None
        self._secrets: SecretFile | None = None
        self._ids: dict[str, int] = {}
        self._version = self._run(self._schema_version)
        if self._version > int(STORE_SCHEMA):
            raise StoreError(f"{self.where} has store schema {self._version}; this version reads {STORE_SCHEMA}")
        self.gm = gm or self._run(lambda db: db.execute("SELECT current_user").fetchone()[0])

    @classmethod
    def pooled(cls, url: str, gm: str | None = None, size: int = 4) -> PostgresStore:
        """A store whose every call borrows a connection from a pool of `size` (psycopg_pool): for a
        process that serves many commands (a table's session, `fudge serve`). `close` closes the pool."""
        from psycopg_pool import ConnectionPool

        pool = ConnectionPool(url, min_size=1, max_size=size, kwargs={"autocommit": True}, open=False)
        try:
            pool.open(wait=True, timeout=30)
        except Exception as exc:  # the pool's own timeout, or the server refusing
            pool.close()
            raise StoreError(f"cannot reach the store {shown(url)}: {_first_line(exc)}") from None
        return cls(url, gm, pool)

    # --- connections ------------------------------------------------------------------------
    @contextmanager
    def _db(self) -> Iterator[psycopg.Connection[Any]]:
        if self._pool is not None:
            with self._pool.connection() as db:
                yield db
            return
        if self._connection is None or self._connection.closed:
            try:
                self._connection = psycopg.connect(self.url, autocommit=True)
            except psycopg.Error as exc:
                raise StoreError(f"cannot reach the store {self.where}: {_first_line(exc)}") from None
        yield self._connection

    def _run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`work` on a connection; a lost server or a refused login is one line, not a traceback."""
        try:
            with self._db() as db:
                return work(db)
        except (errors.UniqueViolation, errors.SerializationFailure, errors.DeadlockDetected) as exc:
            raise Conflict(f"{CONFLICT} ({_first_line(exc)})") from None
        except (psycopg.OperationalError, psycopg.DataError, psycopg.IntegrityError, psycopg.InternalError,
                errors.InsufficientPrivilege) as exc:  # the server, the GM's rights or a value: not a defect
            raise StoreError(f"the store {self.where}: {_first_line(exc)}; nothing was written") from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._connection is not None:
            self._connection.close()

    # --- the schema -------------------------------------------------------------------------
    @staticmethod
    def _schema_version(db: psycopg.Connection[Any]) -> int:
        if db.execute("SELECT to_regclass('meta')").fetchone()[0] is None:
            return 0
        row = db.execute("SELECT value FROM meta WHERE key = 'store_schema'").fetchone()
        if row is None:
            raise StoreError("the database has a table `meta` but is not a fudge store: give another --store")
        return int(row[0])

    def _ready(self, db: psycopg.Connection[Any]) -> None:
        """Make or migrate the tables before the first write (a read never makes them), one process at a time."""
        if self._version == int(STORE_SCHEMA):
            return
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
            version = self._schema_version(db)
            while version < int(STORE_SCHEMA):
                try:
                    db.execute(MIGRATIONS[version])  # type: ignore[call-overload]
                except errors.DuplicateTable as exc:  # a table of the same name, in a database that is not ours
                    raise StoreError(f"{self.where} is not a fudge store ({_first_line(exc)}): fudge leaves it as "
                                     "it is; give another database") from None
                version += 1
                db.execute("INSERT INTO meta VALUES ('store_schema', %s) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(version),))
        self._version = version

    def _rows(self, sql: str, params: dict[str, Any]) -> list[Any]:
        """A read; a server without the tables yet reads as an empty store."""
        def read(db: psycopg.Connection[Any]) -> list[Any]:
            if self._version == 0:
                self._version = self._schema_version(db)
                if self._version == 0:
                    return []
            return db.execute(sql, params).fetchall()  # type: ignore[call-overload]
        return self._run(read)

    # --- the log ------------------------------------------------------------------------------
    def _id(self, name: str) -> int:
        """The fight's row id, once looked up: a fight is never renamed, deleted nor unshared, so a fight
        this GM saw stays theirs to see (one query less for every read of a command)."""
        if name in self._ids:
            return self._ids[name]
        found = self._rows(f"SELECT id FROM fights WHERE name = %(name)s AND {VISIBLE}", {"name": name, "gm": self.gm})
        if not found:
            raise UnknownFight(f"no fight named {name!r} in {self.where}; `fudge fights` lists them")
        self._ids[name] = int(found[0][0])
        return self._ids[name]

    def fights(self) -> list[FightInfo]:
        found = self._rows(f"SELECT name, fight_id, parent, fork_seq, created_at FROM fights WHERE {VISIBLE} "
                           "ORDER BY id", {"gm": self.gm})
        return [FightInfo(*row) for row in found]

    def fight(self, name: str) -> FightInfo:
        found = self._rows(f"SELECT name, fight_id, parent, fork_seq, created_at FROM fights "
                           f"WHERE name = %(name)s AND {VISIBLE}", {"name": name, "gm": self.gm})
        if not found:
            raise UnknownFight(f"no fight named {name!r} in {self.where}; `fudge fights` lists them")
        return FightInfo(*found[0])

    def owner(self, name: str) -> str:
        return str(self._rows("SELECT owner FROM fights WHERE id = %(id)s", {"id": self._id(name)})[0][0])

    def _events(self, name: str, where: str, values: dict[str, Any], order: str = "seq") -> list[Row]:
        found = self._rows(f"SELECT seq, command, type, body, hash FROM events WHERE fight = %(fight)s AND {where} "
                           f"ORDER BY {order}", {"fight": self._id(name), **values})
        return [Row(*row) for row in found]

    def read(self, name: str, upto: int | None = None) -> list[Row]:
        return self._events(name, "seq <= %(upto)s", {"upto": _seq(upto)})

    def bodies(self, name: str, upto: int | None = None) -> list[str]:
        found = self._rows("SELECT body FROM events WHERE fight = %(fight)s AND seq <= %(upto)s ORDER BY seq",
                           {"fight": self._id(name), "upto": _seq(upto)})
        return [body for (body,) in found]

    def rows_from(self, name: str, seq: int) -> list[Row]:
        return self._events(name, "seq >= %(seq)s", {"seq": _seq(seq)})

    def rows_back(self, name: str, seq: int, limit: int) -> list[Row]:
        return self._events(name, "seq <= %(seq)s", {"seq": _seq(seq), "limit": max(0, _seq(limit))},
                            "seq DESC LIMIT %(limit)s")

    def bodies_page(self, name: str, seq: int, limit: int, upto: int | None = None) -> list[tuple[int, str]]:
        """(seq, body) of up to `limit` rows from `seq` on (to `upto`): a long log read a page at a time."""
        return [(int(s), b) for s, b in self._rows(
            "SELECT seq, body FROM events WHERE fight = %(fight)s AND seq >= %(seq)s AND seq <= %(upto)s "
            "ORDER BY seq LIMIT %(limit)s",
            {"fight": self._id(name), "seq": _seq(seq), "upto": _seq(upto), "limit": max(0, _seq(limit))})]

    def rows_of_types(self, name: str, types: Iterable[str], upto: int | None = None) -> list[Row]:
        """The rows of these event types, in order."""
        return self._events(name, "seq <= %(upto)s AND type = ANY(%(types)s)",
                            {"upto": _seq(upto), "types": sorted(types)})

    def command_seqs(self, name: str, command: str, upto: int | None = None) -> list[int]:
        """The seqs of one command's events, read within the span the commands table gives."""
        found = self._rows(
            "SELECT e.seq FROM commands c JOIN events e ON e.fight = c.fight AND e.seq BETWEEN c.first_seq AND c.last_seq "
            "WHERE c.fight = %(fight)s AND c.command = %(command)s AND e.command = %(command)s AND e.seq <= %(upto)s "
            "ORDER BY e.seq", {"fight": self._id(name), "command": command, "upto": _seq(upto)})
        return [int(seq) for (seq,) in found]

    def last_seq(self, name: str) -> int:
        found = self._rows("SELECT coalesce(max(seq), 0) FROM events WHERE fight = %(fight)s", {"fight": self._id(name)})
        return int(found[0][0])

    def tail(self, name: str) -> tuple[int, str]:
        found = self._rows("SELECT seq, hash FROM events WHERE fight = %(fight)s ORDER BY seq DESC LIMIT 1",
                           {"fight": self._id(name)})
        return (int(found[0][0]), found[0][1]) if found else (0, "0" * 64)

    def has_command(self, name: str, command: str) -> bool:
        return bool(self._rows("SELECT 1 FROM commands WHERE fight = %(fight)s AND command = %(command)s",
                               {"fight": self._id(name), "command": command}))

    def append(self, name: str, expected_last_seq: int, rows: list[Row], *, create: FightInfo | None = None,
               snapshot: Snapshot | None = None, views: tuple[View, ...] = ()) -> None:
        """One transaction: the fight's row locked (FOR UPDATE) so writers to one fight take turns, the
        expected last seq checked, the rows, their command spans and caches inserted, and a NOTIFY sent."""
        def write(db: psycopg.Connection[Any]) -> None:
            self._ready(db)
            with db.transaction():
                fight = self._create(db, name, create) if create is not None else self._locked(db, name)
                last = db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE fight = %s", (fight,)).fetchone()[0]
                spans = checked_append(last, expected_last_seq, rows)
                if db.execute("SELECT 1 FROM commands WHERE fight = %s AND command = ANY(%s)",
                              (fight, list(spans))).fetchone():
                    raise DuplicateCommand(f"that command was already applied to {name}")
                with db.cursor() as cursor:  # INSERT, not COPY: COPY is refused under row-level security
                    cursor.executemany("INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s)",
                                       [(fight, r.seq, r.command, r.type, r.body, r.hash) for r in rows])
                    cursor.executemany("INSERT INTO commands VALUES (%s, %s, %s, %s)",
                                       [(fight, c, min(s), max(s)) for c, s in spans.items()])
                    if snapshot is not None:
                        cursor.execute(
                            "INSERT INTO snapshots VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (fight, gm) DO UPDATE "
                            "SET seq = excluded.seq, hash = excluded.hash, version = excluded.version, "
                            "body = excluded.body, mac = excluded.mac",
                            (fight, self.gm, snapshot.seq, snapshot.hash, snapshot.version, snapshot.body, snapshot.mac))
                    cursor.executemany(
                        "INSERT INTO views VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (fight, gm, name) "
                        "DO UPDATE SET seq = excluded.seq, hash = excluded.hash, version = excluded.version, "
                        "body = excluded.body, mac = excluded.mac",
                        [(fight, self.gm, v.name, v.seq, v.hash, v.version, v.body, v.mac) for v in views])
                    if rows:
                        cursor.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{fight}:{rows[-1].seq}"))
        self._run(write)

    def _create(self, db: psycopg.Connection[Any], name: str, create: FightInfo) -> int:
        made = db.execute("INSERT INTO fights (owner, name, fight_id, parent, fork_seq, created_at) "
                          "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (name) DO NOTHING RETURNING id",
                          (self.gm, name, create.fight_id, create.parent, create.fork_seq, create.created_at)).fetchone()
        if made is None:
            raise StoreError(f"a fight named {name!r} already exists; pick another name")
        return int(made[0])

    def _locked(self, db: psycopg.Connection[Any], name: str) -> int:
        found = db.execute(f"SELECT id FROM fights WHERE name = %(name)s AND {VISIBLE} FOR UPDATE",
                           {"name": name, "gm": self.gm}).fetchone()
        if found is None:
            raise UnknownFight(f"no fight named {name!r} in {self.where}; `fudge fights` lists them")
        return int(found[0])

    # --- several GMs ----------------------------------------------------------------------------
    def share(self, name: str, gm: str) -> None:
        """Let `gm` see and write the fight; only its owner may share it."""
        def write(db: psycopg.Connection[Any]) -> None:
            self._ready(db)
            with db.transaction():
                fight = self._locked(db, name)
                owner = db.execute("SELECT owner FROM fights WHERE id = %s", (fight,)).fetchone()[0]
                if owner != self.gm:
                    raise StoreError(f"{name} is {owner}'s fight: only its owner shares it")
                db.execute("INSERT INTO shares (fight, gm, owner) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                           (fight, gm, owner))
        self._run(write)

    def shared_with(self, name: str) -> list[str]:
        return [gm for (gm,) in self._rows("SELECT gm FROM shares WHERE fight = %(fight)s ORDER BY gm",
                                           {"fight": self._id(name)})]

    # --- live updates ------------------------------------------------------------------------------
    def wait_for_change(self, name: str, seq: int, timeout: float) -> int:
        """The fight's last seq once it is past `seq`, or as it is when `timeout` seconds have passed.

        LISTEN on a connection of its own, then the log is read (so an append committed in between is
        not missed), then the NOTIFY of the next append wakes it."""
        self._id(name)
        deadline = time.monotonic() + max(timeout, 0.0)
        try:
            with psycopg.connect(self.url, autocommit=True) as listener:
                listener.execute(f"LISTEN {CHANNEL}")
                while True:
                    last = self.last_seq(name)
                    left = deadline - time.monotonic()
                    if last > seq or left <= 0:
                        return last
                    for _ in listener.notifies(timeout=left, stop_after=1):
                        pass  # any append wakes it; the read above says whether it was this fight's
        except psycopg.OperationalError as exc:
            raise StoreError(f"the store {self.where}: {_first_line(exc)}") from None

    # --- caches (each GM's own, under the GM's own key) ----------------------------------------------
    def snapshot_key(self, create: bool = False) -> bytes | None:
        return snapshots.local_key(create)

    def snapshot(self, name: str) -> Snapshot | None:
        found = self._rows("SELECT seq, hash, version, body, mac FROM snapshots WHERE fight = %(fight)s AND gm = %(gm)s",
                           {"fight": self._id(name), "gm": self.gm})
        return snapshots.from_row(found[0], name) if found else None

    def view(self, name: str, view: str) -> View | None:
        found = self._rows("SELECT seq, hash, version, body, mac FROM views "
                           "WHERE fight = %(fight)s AND gm = %(gm)s AND name = %(view)s",
                           {"fight": self._id(name), "gm": self.gm, "view": view})
        return view_row(view, found[0], name) if found else None

    def views_under(self, name: str, prefix: str) -> dict[str, View]:
        found = self._rows("SELECT name, seq, hash, version, body, mac FROM views WHERE fight = %(fight)s "
                           "AND gm = %(gm)s AND left(name, length(%(prefix)s)) = %(prefix)s",
                           {"fight": self._id(name), "gm": self.gm, "prefix": prefix})
        return {row[0]: view for row in found if (view := view_row(row[0], row[1:], name)) is not None}

    # --- the GM's secrets (their own file) and settings (their own rows) -------------------------------
    def user_secrets(self) -> SecretFile:
        if self._secrets is None:
            self._secrets = SecretFile()
        return self._secrets

    def legacy_secrets(self) -> dict[str, str]:
        return {}  # this store never held secrets

    def forget_legacy_secrets(self) -> None:
        pass

    def setting(self, key: str) -> str | None:
        found = self._rows("SELECT value FROM settings WHERE gm = %(gm)s AND key = %(key)s", {"gm": self.gm, "key": key})
        return found[0][0] if found else None

    def set_setting(self, key: str, value: str) -> None:
        def write(db: psycopg.Connection[Any]) -> None:
            self._ready(db)
            db.execute("INSERT INTO settings VALUES (%s, %s, %s) ON CONFLICT (gm, key) DO UPDATE SET value = excluded.value",
                       (self.gm, key, value))
        self._run(write)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
