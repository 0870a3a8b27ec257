"""A club's server: the same store on PostgreSQL (psycopg 3), one transaction per command.

The tables are SQLite's (store.sqlite), with the same row bytes and hash chain, and two additions
for several GMs on one server: every fight has an `owner` (the GM's name: `FUDGE_GM`, else the
connection's PostgreSQL role) and may be shared with other GMs (`shares`); a GM sees and writes only
the fights they own or that were shared with them. Settings (the current fight) are per GM, and so
are the caches (a snapshot or view is under its GM's own key). A GM's secrets and snapshot key stay
in the GM's own files (store.secrets, store.snapshots): the database never holds them.

Fight names are unique per GM: another GM's fight of the same name is neither refused nor revealed (a
shared fight whose name is also one of yours is seen as OWNER/NAME). GMs who log in as roles of their own
(`fudge club add-gm`) are held to their fights by row-level security whatever SQL they run (schema 3: only
the verbs fudge uses, a fight's row never changed, a share made by the fight's owner alone, `meta` and the
schema the admin's); GMs who share one role and name themselves with FUDGE_GM, by fudge's queries alone.
Every append ends with an empty `pg_notify('fudge', '')`, sent at its commit: `wait_for_change` listens on
one connection per store, and each waiter reads its own fight back (under row-level security) to see
whether it changed, so a notification tells another GM nothing.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from psycopg import errors

from fudge_combat.events.rows import Row
from fudge_combat.store import snapshots
from fudge_combat.store.base import CONFLICT, Conflict, DuplicateCommand, FightInfo, StoreError, UnknownFight, checked_append
from fudge_combat.store.secrets import SecretFile
from fudge_combat.store.requests import PENDING, Request, from_row as request_row
from fudge_combat.store.snapshots import Snapshot
from fudge_combat.store.views import View, from_row as view_row

STORE_SCHEMA = "4"
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
    # 3: the server holds against its own GMs. Names are unique per GM, never server-wide (another GM's
    # name is not revealed by a refusal). The GMs the club knows are listed (`gms`: a share names one of
    # them). A fight's row is never changed by anyone: GMs keep the one column of UPDATE that `SELECT ...
    # FOR UPDATE` asks for (the lock writers take turns under), and the trigger refuses every UPDATE. A
    # share's owner is the fight's, filled in by the server (a function that reads `fights` as the
    # tables' owner), so only the fight's owner passes the share's check. Each verb has its own policy.
    # The GMs' rights themselves are granted by `grant` (`fudge club init`, `add-gm`, `upgrade`).
    2: """
ALTER TABLE fights DROP CONSTRAINT fights_name_key;
ALTER TABLE fights ADD CONSTRAINT fights_owner_name_key UNIQUE (owner, name);
CREATE TABLE gms (name TEXT PRIMARY KEY);
INSERT INTO gms SELECT owner FROM fights UNION SELECT gm FROM shares UNION SELECT gm FROM settings;
ALTER TABLE shares ADD FOREIGN KEY (gm) REFERENCES gms(name);
ALTER TABLE gms ENABLE ROW LEVEL SECURITY;
CREATE POLICY gm_gms ON gms FOR SELECT USING (true);

CREATE FUNCTION fudge_fight_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a fight''s row is never changed (its owner, name and id are fixed)'
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER fight_unchanged BEFORE UPDATE ON fights FOR EACH ROW EXECUTE FUNCTION fudge_fight_unchanged();
CREATE FUNCTION fudge_share_owner() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    NEW.owner := (SELECT owner FROM fights WHERE id = NEW.fight);
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION fudge_fight_unchanged(), fudge_share_owner() FROM PUBLIC;
CREATE TRIGGER share_owner BEFORE INSERT OR UPDATE ON shares FOR EACH ROW EXECUTE FUNCTION fudge_share_owner();

DROP POLICY gm_fights ON fights;
CREATE POLICY gm_fights_read ON fights FOR SELECT
    USING (owner = current_user OR id IN (SELECT fight FROM shares WHERE gm = current_user));
CREATE POLICY gm_fights_lock ON fights FOR UPDATE
    USING (owner = current_user OR id IN (SELECT fight FROM shares WHERE gm = current_user));
CREATE POLICY gm_fights_new ON fights FOR INSERT WITH CHECK (owner = current_user);
DROP POLICY gm_shares ON shares;
CREATE POLICY gm_shares_read ON shares FOR SELECT USING (gm = current_user OR owner = current_user);
CREATE POLICY gm_shares_new ON shares FOR INSERT WITH CHECK (owner = current_user);
DROP POLICY gm_events ON events;
CREATE POLICY gm_events_read ON events FOR SELECT USING (fight IN (SELECT id FROM fights));
CREATE POLICY gm_events_new ON events FOR INSERT WITH CHECK (fight IN (SELECT id FROM fights));
DROP POLICY gm_commands ON commands;
CREATE POLICY gm_commands_read ON commands FOR SELECT USING (fight IN (SELECT id FROM fights));
CREATE POLICY gm_commands_new ON commands FOR INSERT WITH CHECK (fight IN (SELECT id FROM fights));
""",
    # 4: players' requests (store.requests), as the SQLite store keeps them: added by the players' server a
    # GM runs, answered by a GM's play; of the fights the GM sees, as their log is. Not the log: a request
    # is settled in place (its state and what the player's page says of it, the only columns a GM updates).
    3: """
CREATE TABLE requests (
    fight BIGINT NOT NULL REFERENCES fights(id),
    id TEXT NOT NULL,
    fighter TEXT NOT NULL,
    link TEXT NOT NULL,
    at TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    said TEXT NOT NULL,
    PRIMARY KEY (fight, id)
);
ALTER TABLE requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY gm_requests_read ON requests FOR SELECT USING (fight IN (SELECT id FROM fights));
CREATE POLICY gm_requests_new ON requests FOR INSERT WITH CHECK (fight IN (SELECT id FROM fights));
CREATE POLICY gm_requests_answer ON requests FOR UPDATE USING (fight IN (SELECT id FROM fights))
    WITH CHECK (fight IN (SELECT id FROM fights));
""",
}
assert len(MIGRATIONS) == int(STORE_SCHEMA)

# A GM's rights (schema 3; 4 adds the requests), granted to each GM's own role: only the verbs fudge uses. The log and the
# shares are read and added to, never changed; a GM's own settings and caches are upserted; `meta` and the
# list of GMs are read. No DELETE, TRUNCATE, REFERENCES or TRIGGER anywhere; no table of a GM's making.
GRANTS = """
GRANT SELECT ON meta, gms TO {role};
GRANT SELECT, INSERT (owner, name, fight_id, parent, fork_seq, created_at), UPDATE (created_at) ON fights TO {role};
GRANT USAGE ON SEQUENCE fights_id_seq TO {role};
GRANT SELECT, INSERT ON events, commands, shares TO {role};
GRANT SELECT, INSERT, UPDATE ON settings, snapshots, views TO {role};
GRANT SELECT, INSERT, UPDATE (state, said) ON requests TO {role};
"""
TABLES = ("meta", "fights", "events", "commands", "shares", "settings", "snapshots", "views", "gms", "requests")

VISIBLE = "(owner = %(gm)s OR id IN (SELECT fight FROM shares WHERE gm = %(gm)s))"
RETRY_WITHIN = 10.0  # seconds a command that lost its connection waits for the server to take a new one
LISTEN_RETRY = 1.0  # seconds between two attempts to listen again, and between two reads meanwhile
T = TypeVar("T")

# psycopg_pool says on its logger when it drops a connection a restarted server closed: the pool's own
# business (it opens another). Without a handler of its own, Python's last resort would print it on the
# GM's terminal, in the middle of `fudge play`'s transcript.
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())


def shown(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"^(\w+://[^:/@]*):[^@/]*@", r"\1:***@", url)


def _seq(value: int | None) -> int:
    return SEQ_MAX if value is None else max(-1, min(value, SEQ_MAX))


def _connection_lost(exc: psycopg.Error) -> bool:
    """The server went away or is restarting (not a refusal of the statement itself): worth one more try."""
    state = exc.sqlstate or ""
    return state == "" or state.startswith(("08", "57P"))


class PostgresStore:
    """The EventStore on a PostgreSQL server. `pool` (a psycopg_pool.ConnectionPool) serves a process that
    runs many commands (a table's session, a server); without one, the store keeps one connection."""

    path: Path | None = None  # no store file: messages name `where`
    notifies = True  # an append's NOTIFY wakes `wait_for_change` (LISTEN on one connection of the store's own)

    def __init__(self, url: str, gm: str | None = None, pool: Any = None) -> None:
        self.url, self.where = url, shown(url)
        self._pool = pool
        self._connection: psycopg.Connection[Any] | None = None
        self._secrets: SecretFile | None = None
        self._ids: dict[str, int] = {}
        self._known = False  # the GM is on the server's list of GMs (`gms`)
        self._attempt = threading.local()  # per thread: has the running write begun its COMMIT?
        self._listening: _Listener | None = None
        self._listener_made = threading.Lock()
        self._version = self._run(self._schema_version)
        if self._version > int(STORE_SCHEMA):
            raise StoreError(f"{self.where} has store schema {self._version}; this version reads {STORE_SCHEMA}")
        self.gm = gm or self._run(lambda db: db.execute("SELECT current_user").fetchone()[0])

    @classmethod
    def pooled(cls, url: str, gm: str | None = None, size: int = 4) -> PostgresStore:
        """A store whose every call borrows a connection from a pool of `size` (psycopg_pool): for a
        process that serves many commands (a table's session, `fudge serve`). `close` closes the pool.
        Each connection is checked before it is lent (a restarted server closed them all)."""
        from psycopg_pool import ConnectionPool

        pool = ConnectionPool(url, min_size=1, max_size=size, kwargs={"autocommit": True}, open=False,
                              check=ConnectionPool.check_connection)
        try:
            pool.open(wait=True, timeout=30)
        except Exception as exc:  # the pool's own timeout, or the server refusing
            pool.close()
            raise StoreError(f"cannot reach the store {shown(url)}: {_first_line(exc)}") from None
        return cls(url, gm, pool)

    # --- connections ------------------------------------------------------------------------
    @contextmanager
    def _db(self, patient: bool = False) -> Iterator[psycopg.Connection[Any]]:
        """A connection; `patient`: after one was lost, wait up to RETRY_WITHIN seconds for the server."""
        if self._pool is not None:
            with self._pool.connection(timeout=RETRY_WITHIN if patient else None) as db:
                yield db
            return
        if self._connection is None or self._connection.closed or self._connection.broken:
            deadline = time.monotonic() + (RETRY_WITHIN if patient else 0)
            while True:
                try:
                    self._connection = psycopg.connect(self.url, autocommit=True)
                    break
                except psycopg.Error as exc:
                    if time.monotonic() >= deadline or not _connection_lost(exc):
                        raise StoreError(f"cannot reach the store {self.where}: {_first_line(exc)}") from None
                    time.sleep(0.2)
        yield self._connection

    @contextmanager
    def _transaction(self, db: psycopg.Connection[Any]) -> Iterator[None]:
        """A write's transaction; it notes when its COMMIT is sent (a connection lost then may have written)."""
        self._attempt.committing, self._attempt.writing = False, True
        with db.transaction():
            yield
            self._attempt.committing = True

    def _run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`work` on a connection; a lost server or a refused login is one line, not a traceback.

        A connection lost before anything was committed (a server restarted between two commands of a
        session, or under one) is taken again, once, silently: `work` runs again from its start."""
        for attempt in (1, 2):
            self._attempt.committing = self._attempt.writing = False
            try:
                with self._db(patient=attempt > 1) as db:
                    return work(db)
            except (errors.UniqueViolation, errors.SerializationFailure, errors.DeadlockDetected) as exc:
                raise Conflict(f"{CONFLICT} ({_first_line(exc)})") from None
            except psycopg.OperationalError as exc:
                if not _connection_lost(exc):
                    raise StoreError(f"the store {self.where}: {_first_line(exc)}{self._unwritten()}") from None
                if self._attempt.committing:
                    raise StoreError(f"the connection to the store {self.where} was lost as the command committed "
                                     f"({_first_line(exc)}): `fudge log` shows whether it was written") from None
                if attempt > 1:
                    raise StoreError(f"the store {self.where}: {_first_line(exc)}{self._unwritten()} "
                                     "(tried twice: is the server up?)") from None
            except (psycopg.DataError, psycopg.IntegrityError, psycopg.InternalError,
                    errors.InsufficientPrivilege) as exc:  # the GM's rights or a value: not a defect
                raise StoreError(f"the store {self.where}: {_first_line(exc)}{self._unwritten()}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _unwritten(self) -> str:
        """What a failed call adds to its line: a write says nothing was written; a read says nothing of writing."""
        return "; nothing was written" if getattr(self._attempt, "writing", False) else ""

    def close(self) -> None:
        if self._listening is not None:
            self._listening.stop()
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
        with self._transaction(db):
            self._migrate(db)
        self._version = int(STORE_SCHEMA)

    def _migrate(self, db: psycopg.Connection[Any]) -> int:
        """Inside a transaction: the tables made or brought to this schema, each GM's role given the rights
        of this schema (store 3 takes back the broad grants of before). The schema it found."""
        db.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
        found = version = self._schema_version(db)
        while version < int(STORE_SCHEMA):
            try:
                db.execute(MIGRATIONS[version])
            except errors.DuplicateTable as exc:  # a table of the same name, in a database that is not ours
                raise StoreError(f"{self.where} is not a fudge store ({_first_line(exc)}): fudge leaves it as "
                                 "it is; give another database") from None
            except errors.InsufficientPrivilege:  # a GM's own role: the tables are the admin's
                raise StoreError(f"{self.where} has store schema {found} and this fudge writes schema {STORE_SCHEMA}: "
                                 "ask the club's admin to run `fudge club upgrade` (nothing was written)") from None
            version += 1
            db.execute("INSERT INTO meta VALUES ('store_schema', %s) "
                       "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(version),))
        if 0 < found < 3:  # the roles the admin granted tables to by hand (the README of schema 2) are GMs
            db.execute("INSERT INTO gms SELECT DISTINCT grantee FROM information_schema.role_table_grants "
                       "WHERE table_schema = current_schema() AND table_name = 'fights' "
                       "AND grantee NOT IN (current_user, 'PUBLIC') ON CONFLICT DO NOTHING")
        if found < int(STORE_SCHEMA):
            for (role,) in db.execute("SELECT name FROM gms JOIN pg_roles ON rolname = name ORDER BY name").fetchall():
                self._grant(db, role)
        return found

    @staticmethod
    def _grant(db: psycopg.Connection[Any], role: str) -> None:
        """The GM's role gets this schema's rights, and none other on fudge's tables."""
        from psycopg import sql

        who = sql.Identifier(role)
        db.execute(sql.SQL("REVOKE ALL ON {} FROM {}").format(
            sql.SQL(", ").join(sql.Identifier(t) for t in TABLES), who))
        db.execute(sql.SQL("REVOKE ALL ON SEQUENCE fights_id_seq FROM {}").format(who))
        for line in GRANTS.strip().splitlines():
            db.execute(sql.SQL(line.rstrip(";").replace("{role}", "{}")).format(who))

    def _admin(self, db: psycopg.Connection[Any]) -> bool:
        """Whether this connection's role owns the tables (the club's admin)."""
        return bool(db.execute("SELECT pg_has_role(current_user, relowner, 'MEMBER') FROM pg_class "
                               "WHERE oid = 'meta'::regclass").fetchone()[0])

    def _rows(self, sql: str, params: dict[str, Any]) -> list[Any]:
        """A read; a server without the tables yet reads as an empty store."""
        def read(db: psycopg.Connection[Any]) -> list[Any]:
            if self._version == 0:
                self._version = self._schema_version(db)
                if self._version == 0:
                    return []
            return db.execute(sql, params).fetchall()
        return self._run(read)

    # --- the club's admin (`fudge club`) ----------------------------------------------------------
    def schema_version(self) -> int:
        """The store schema the server holds now (0: no tables yet)."""
        return self._run(self._schema_version)

    def upgrade(self) -> tuple[int, int]:
        """Make or migrate the tables and give every GM's role this schema's rights, in one transaction:
        the club's admin only. (The schema found, the schema now.)"""
        def write(db: psycopg.Connection[Any]) -> int:
            with self._transaction(db):
                if self._schema_version(db) > 0 and not self._admin(db):
                    raise StoreError(f"only the club's admin (the role that owns the tables of {self.where}) "
                                     "runs `fudge club init` and `fudge club upgrade`")
                found = self._migrate(db)
                if found == int(STORE_SCHEMA):  # nothing to migrate: the rights are given again all the same
                    for (role,) in db.execute("SELECT name FROM gms JOIN pg_roles ON rolname = name").fetchall():
                        self._grant(db, role)
                try:  # PostgreSQL 15's default; older servers let every role make tables beside fudge's
                    with db.transaction():
                        db.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
                except errors.InsufficientPrivilege:
                    pass  # the schema is not the admin's: its owner decides
            return found
        found = self._run(write)
        self._version = int(STORE_SCHEMA)
        return found, int(STORE_SCHEMA)

    def add_gm(self, name: str, role: bool = True) -> bool:
        """Put `name` on the club's list of GMs and (`role`) give the PostgreSQL role of that name a GM's
        rights, making it (LOGIN, no password yet) if there is none. Whether a role was made."""
        from psycopg import sql

        def write(db: psycopg.Connection[Any]) -> bool:
            made = False
            with self._transaction(db):
                if self._schema_version(db) < int(STORE_SCHEMA):
                    raise StoreError(f"{self.where} has no store of schema {STORE_SCHEMA} yet: "
                                     "`fudge club init` (or `fudge club upgrade`) first")
                if not self._admin(db):
                    raise StoreError(f"only the club's admin (the role that owns the tables of {self.where}) adds GMs")
                if role:
                    found = db.execute("SELECT rolsuper OR rolbypassrls, pg_has_role(rolname, "
                                       "(SELECT relowner FROM pg_class WHERE oid = 'meta'::regclass), 'MEMBER') "
                                       "FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
                    if found is not None and (found[0] or found[1]):
                        raise StoreError(f"the role {name} owns the tables or passes row-level security (a superuser): "
                                         "it cannot be held to its own fights; give the GM a role of their own")
                    if found is None:
                        try:
                            with db.transaction():
                                db.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
                        except errors.InsufficientPrivilege as exc:
                            raise StoreError(f"cannot make the role {name} ({_first_line(exc)}): a superuser makes it "
                                             f"(CREATE ROLE \"{name}\" LOGIN), then run this again") from None
                        made = True
                    self._grant(db, name)
                db.execute("INSERT INTO gms VALUES (%s) ON CONFLICT DO NOTHING", (name,))
            return made
        return self._run(write)

    def _register(self, db: psycopg.Connection[Any]) -> None:
        """A GM who writes is on the list of GMs (a club whose GMs name themselves with FUDGE_GM lists them
        so); a GM's own role is listed by the admin (`add-gm`) and may not add itself."""
        if self._known:
            return
        if db.execute("SELECT 1 FROM gms WHERE name = %s", (self.gm,)).fetchone() is None:
            try:
                with db.transaction():
                    db.execute("INSERT INTO gms VALUES (%s) ON CONFLICT DO NOTHING", (self.gm,))
            except errors.InsufficientPrivilege:
                return  # a role granted by hand, not listed: others cannot share with it until the admin adds it
        self._known = True

    # --- the log ------------------------------------------------------------------------------
    def _visible(self, db: psycopg.Connection[Any] | None = None) -> list[tuple[int, str, FightInfo]]:
        """The fights this GM sees, in the order they were made: (row id, owner, info under the name the GM
        knows it by). A GM's own fights keep their names; a fight shared with them whose name another fight
        they see also has is known as OWNER/NAME."""
        sql = (f"SELECT id, owner, name, fight_id, parent, fork_seq, created_at FROM fights WHERE {VISIBLE} "
               "ORDER BY id")
        found = (self._rows(sql, {"gm": self.gm}) if db is None
                 else db.execute(sql, {"gm": self.gm}).fetchall())
        names = Counter(row[2] for row in found)
        return [(int(row_id), owner, FightInfo(name if owner == self.gm or names[name] == 1 else f"{owner}/{name}",
                                               *rest)) for row_id, owner, name, *rest in found]

    def _find(self, name: str, db: psycopg.Connection[Any] | None = None) -> tuple[int, str, FightInfo]:
        found = [seen for seen in self._visible(db) if seen[2].name == name]
        if not found:
            raise UnknownFight(f"no fight named {name!r} in {self.where}; `fudge fights` lists them")
        return min(found, key=lambda seen: seen[1] != self.gm)  # a GM's own fight first

    def _id(self, name: str) -> int:
        """The fight's row id, once looked up: a fight is never renamed, deleted nor unshared, so a fight
        this GM saw stays theirs to see (one query less for every read of a command)."""
        if name not in self._ids:
            self._ids[name] = self._find(name)[0]
        return self._ids[name]

    def fights(self) -> list[FightInfo]:
        return [info for _, _, info in self._visible()]

    def fight(self, name: str) -> FightInfo:
        return self._find(name)[2]

    def owner(self, name: str) -> str:
        return self._find(name)[1]

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
            with self._transaction(db):
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
                    if rows:  # empty: any GM may LISTEN, so the notification names nothing (`wait_for_change`)
                        cursor.execute("SELECT pg_notify(%s, '')", (CHANNEL,))
        self._run(write)

    def _create(self, db: psycopg.Connection[Any], name: str, create: FightInfo) -> int:
        """The fight's row, under a name unique among the fights this GM sees (another GM's names are
        theirs: neither refused nor revealed)."""
        taken = f"a fight named {name!r} already exists; pick another name"
        if any(info.name == name for _, _, info in self._visible(db)):
            raise StoreError(taken)
        self._register(db)
        made = db.execute("INSERT INTO fights (owner, name, fight_id, parent, fork_seq, created_at) "
                          "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (owner, name) DO NOTHING RETURNING id",
                          (self.gm, name, create.fight_id, create.parent, create.fork_seq, create.created_at)).fetchone()
        if made is None:
            raise StoreError(taken)
        return int(made[0])

    def _locked(self, db: psycopg.Connection[Any], name: str) -> int:
        fight = self._find(name, db)[0]
        found = db.execute(f"SELECT id FROM fights WHERE id = %(id)s AND {VISIBLE} FOR UPDATE",
                           {"id": fight, "gm": self.gm}).fetchone()
        if found is None:
            raise UnknownFight(f"no fight named {name!r} in {self.where}; `fudge fights` lists them")
        return int(found[0])

    # --- several GMs ----------------------------------------------------------------------------
    def share(self, name: str, gm: str) -> None:
        """Let `gm`, a GM the club knows, see and write the fight; only its owner may share it."""
        def write(db: psycopg.Connection[Any]) -> None:
            self._ready(db)
            with self._transaction(db):
                fight = self._locked(db, name)
                owner = self._find(name, db)[1]
                if owner != self.gm:
                    raise StoreError(f"{name} is {owner}'s fight: only its owner shares it")
                if gm == owner:
                    raise StoreError(f"{name} is already yours: name another GM to share it with")
                if db.execute("SELECT 1 FROM gms WHERE name = %s", (gm,)).fetchone() is None:
                    raise StoreError(f"no GM named {gm!r} on {self.where}: check the name, or ask the club's admin "
                                     f"to run `fudge club add-gm {gm}`")
                db.execute("INSERT INTO shares (fight, gm) VALUES (%s, %s) ON CONFLICT DO NOTHING", (fight, gm))
        self._run(write)

    def shared_with(self, name: str) -> list[str]:
        return [gm for (gm,) in self._rows("SELECT gm FROM shares WHERE fight = %(fight)s ORDER BY gm",
                                           {"fight": self._id(name)})]

    # --- live updates ------------------------------------------------------------------------------
    def wait_for_change(self, name: str, seq: int, timeout: float) -> int:
        """The fight's last seq once it is past `seq`, or as it is when `timeout` seconds have passed.

        Every waiter of this store (each page of `fudge serve`, in a thread of its own) shares one LISTEN
        connection: a notification (empty: it names no fight) wakes them all, and each reads its own
        fight's last seq (under the GM's rights). The log is read after the LISTEN is in place, so an
        append committed in between is not missed; while the listener reconnects, the log is read every
        LISTEN_RETRY seconds."""
        self._id(name)
        deadline = time.monotonic() + max(timeout, 0.0)
        listener = self._listener()
        while True:
            heard, listening = listener.heard(min(deadline, time.monotonic() + RETRY_WITHIN))
            last = self.last_seq(name)
            left = deadline - time.monotonic()
            if last > seq or left <= 0:
                return last
            listener.wait(heard, left if listening else min(left, LISTEN_RETRY))

    def _listener(self) -> _Listener:
        with self._listener_made:
            if self._listening is None:
                self._listening = _Listener(self.url)
            return self._listening

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

    # --- players' requests (store.requests): not the log, so a row is settled in place -------
    def add_request(self, name: str, request: Request) -> None:
        def write(db: psycopg.Connection[Any]) -> None:
            self._ready(db)
            with self._transaction(db):
                db.execute("INSERT INTO requests VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                           (self._id(name), request.id, request.fighter, request.link, request.at, request.body,
                            request.state, request.said))
        self._run(write)

    def requests(self, name: str, state: str | None = None) -> list[Request]:
        """The fight's requests, oldest first (`state`: those alone); a row not of its types is left out.
        A server of an older schema, not yet written by this version, has none."""
        if self._version and self._version < 4:
            return []
        where = "AND state = %(state)s" if state else ""
        rows = self._rows("SELECT id, fighter, link, at, body, state, said FROM requests WHERE fight = %(fight)s "
                          f"{where} ORDER BY at, id", {"fight": self._id(name), "state": state})
        return [found for row in rows if (found := request_row(tuple(row))) is not None]

    def settle_request(self, name: str, request_id: str, state: str, said: str, was: str = PENDING) -> bool:
        """A request answered, once: False if it was not in state `was` (another session answered it)."""
        def write(db: psycopg.Connection[Any]) -> bool:
            self._ready(db)
            with self._transaction(db):
                done = db.execute("UPDATE requests SET state = %s, said = %s WHERE fight = %s AND id = %s AND state = %s",
                                  (state, said, self._id(name), request_id, was))
                return done.rowcount == 1
        return self._run(write)

    def setting(self, key: str) -> str | None:
        found = self._rows("SELECT value FROM settings WHERE gm = %(gm)s AND key = %(key)s", {"gm": self.gm, "key": key})
        return found[0][0] if found else None

    def set_setting(self, key: str, value: str) -> None:
        def write(db: psycopg.Connection[Any]) -> None:
            self._ready(db)
            with self._transaction(db):
                self._register(db)
                db.execute("INSERT INTO settings VALUES (%s, %s, %s) ON CONFLICT (gm, key) DO UPDATE SET value = excluded.value",
                           (self.gm, key, value))
        self._run(write)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class _Listener:
    """One LISTEN connection, in a thread of its own, shared by every `wait_for_change` of a store.

    `changes` counts what may have changed a fight: a notification, or the connection made again (one
    may have been missed meanwhile). A waiter notes it, reads its fight, and waits for it to move."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.changes = 0
        self.listening = False
        self.stopped = threading.Event()
        self.moved = threading.Condition()
        self.thread = threading.Thread(target=self._listen, name="fudge-listen", daemon=True)
        self.thread.start()

    def heard(self, until: float) -> tuple[int, bool]:
        """(changes so far, whether LISTEN is in place), once it is or `until` (a monotonic time) has passed."""
        with self.moved:
            self.moved.wait_for(lambda: self.listening, timeout=max(0.0, until - time.monotonic()))
            return self.changes, self.listening

    def wait(self, heard: int, timeout: float) -> None:
        with self.moved:
            self.moved.wait_for(lambda: self.changes != heard, timeout=timeout)

    def _moved(self, listening: bool) -> None:
        with self.moved:
            self.changes += 1
            self.listening = listening
            self.moved.notify_all()

    def _listen(self) -> None:
        while not self.stopped.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as db:
                    db.execute(f"LISTEN {CHANNEL}")
                    self._moved(True)
                    while not self.stopped.is_set():
                        for _ in db.notifies(timeout=LISTEN_RETRY):
                            self._moved(True)
            except psycopg.Error:
                pass  # the server went away: the waiters read the log meanwhile, and say so if it cannot be read
            self._moved(False)
            self.stopped.wait(LISTEN_RETRY)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=2 * LISTEN_RETRY)
