"""A club's server attacked by its own members (store.postgres, schema 4), on a real PostgreSQL server.

The club is set up as docs/club.md says (`fudge club init`, `fudge club add-gm` for each GM's own role).
Alice runs two fights through the CLI: `crypt`, shared with carol only, and `arena`, shared with bob. Bob
then runs raw SQL under his own role against each of them, for every table of the schema and every verb
(SELECT, INSERT, UPDATE, DELETE, TRUNCATE), listens for the server's notifications, tries the schema
itself, and runs the CLI with FUDGE_GM naming alice. Each attempt is refused or sees nothing (a shared
fight's log he may read: sharing is for that), and afterwards every table holds what it held before and
alice's fights verify.

What sharing grants (reading the fight's log and appending to it) is not an attack and is not tried here;
tests/test_postgres.py runs it. A table the schema gains without its cases here fails
`test_every_table_of_the_schema_has_its_attacks`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.store.postgres import STORE_SCHEMA
from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
VERBS = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")

# table -> verb -> statements bob runs against alice's fight %(fight)s (alice is %(alice)s, bob %(bob)s).
# A SELECT names alice's rows; every other statement tries to add, change or remove them.
ATTACKS: dict[str, dict[str, list[str]]] = {
    "meta": {
        "SELECT": ["SELECT key, value FROM meta"],
        "INSERT": ["INSERT INTO meta VALUES ('owner', %(bob)s)"],
        "UPDATE": ["UPDATE meta SET value = '99'"],
        "DELETE": ["DELETE FROM meta"],
        "TRUNCATE": ["TRUNCATE meta"],
    },
    "fights": {
        "SELECT": ["SELECT * FROM fights WHERE id = %(fight)s"],
        "INSERT": ["INSERT INTO fights (owner, name, fight_id, created_at) VALUES (%(alice)s, 'forged', 'f', 'now')",
                   "INSERT INTO fights (id, owner, name, fight_id, created_at) "
                   "VALUES (%(fight)s + 1000, %(bob)s, 'next-id', 'f', 'now')"],
        "UPDATE": ["UPDATE fights SET owner = %(bob)s, name = 'crypt-bobs' WHERE id = %(fight)s",
                   "UPDATE fights SET fight_id = 'other' WHERE id = %(fight)s",
                   "UPDATE fights SET created_at = 'never' WHERE id = %(fight)s",  # the one column FOR UPDATE asks for
                   "SELECT setval('fights_id_seq', 1)"],
        "DELETE": ["DELETE FROM fights WHERE id = %(fight)s"],
        "TRUNCATE": ["TRUNCATE fights CASCADE"],
    },
    "events": {
        "SELECT": ["SELECT * FROM events WHERE fight = %(fight)s"],
        "INSERT": ["INSERT INTO events VALUES (%(fight)s, 999, 'forged', 'note', '{}', 'h')"],
        "UPDATE": ["UPDATE events SET body = '{}' WHERE fight = %(fight)s"],
        "DELETE": ["DELETE FROM events WHERE fight = %(fight)s"],
        "TRUNCATE": ["TRUNCATE events"],
    },
    "commands": {
        "SELECT": ["SELECT * FROM commands WHERE fight = %(fight)s"],
        "INSERT": ["INSERT INTO commands VALUES (%(fight)s, 'forged', 999, 999)"],
        "UPDATE": ["UPDATE commands SET last_seq = 0 WHERE fight = %(fight)s"],
        "DELETE": ["DELETE FROM commands WHERE fight = %(fight)s"],
        "TRUNCATE": ["TRUNCATE commands"],
    },
    "shares": {
        "SELECT": ["SELECT * FROM shares WHERE fight = %(fight)s"],
        "INSERT": ["INSERT INTO shares VALUES (%(fight)s, %(bob)s, %(bob)s)",  # the README's attack, and its twin
                   "INSERT INTO shares VALUES (%(fight)s, %(bob)s, %(alice)s)",
                   "INSERT INTO shares VALUES (%(fight)s, 'dave', %(alice)s)"],
        "UPDATE": ["UPDATE shares SET gm = %(bob)s WHERE fight = %(fight)s"],
        "DELETE": ["DELETE FROM shares WHERE fight = %(fight)s"],
        "TRUNCATE": ["TRUNCATE shares"],
    },
    "settings": {
        "SELECT": ["SELECT * FROM settings WHERE gm = %(alice)s"],
        "INSERT": ["INSERT INTO settings VALUES (%(alice)s, 'current', 'forged')"],
        "UPDATE": ["UPDATE settings SET value = 'forged' WHERE gm = %(alice)s"],
        "DELETE": ["DELETE FROM settings WHERE gm = %(alice)s"],
        "TRUNCATE": ["TRUNCATE settings"],
    },
    "snapshots": {
        "SELECT": ["SELECT * FROM snapshots WHERE fight = %(fight)s AND gm = %(alice)s"],
        "INSERT": ["INSERT INTO snapshots VALUES (%(fight)s, %(alice)s, 1, 'h', 'v', '\\x00', 'mac') "
                   "ON CONFLICT (fight, gm) DO UPDATE SET mac = 'forged'"],
        "UPDATE": ["UPDATE snapshots SET mac = 'forged' WHERE fight = %(fight)s AND gm = %(alice)s"],
        "DELETE": ["DELETE FROM snapshots WHERE fight = %(fight)s AND gm = %(alice)s"],
        "TRUNCATE": ["TRUNCATE snapshots"],
    },
    "views": {
        "SELECT": ["SELECT * FROM views WHERE fight = %(fight)s AND gm = %(alice)s"],
        "INSERT": ["INSERT INTO views VALUES (%(fight)s, %(alice)s, 'status', 1, 'h', 'v', '{}', 'mac') "
                   "ON CONFLICT (fight, gm, name) DO UPDATE SET mac = 'forged'"],
        "UPDATE": ["UPDATE views SET mac = 'forged' WHERE fight = %(fight)s AND gm = %(alice)s"],
        "DELETE": ["DELETE FROM views WHERE fight = %(fight)s AND gm = %(alice)s"],
        "TRUNCATE": ["TRUNCATE views"],
    },
    "requests": {
        "SELECT": ["SELECT * FROM requests WHERE fight = %(fight)s"],
        "INSERT": ["INSERT INTO requests VALUES (%(fight)s, 'forged', 'Snorri', 'link', 'now', '{}', 'pending', '')"],
        "UPDATE": ["UPDATE requests SET state = 'accepted', said = 'forged' WHERE fight = %(fight)s",
                   "UPDATE requests SET body = '{\"kind\": \"spend\"}' WHERE fight = %(fight)s"],
        "DELETE": ["DELETE FROM requests WHERE fight = %(fight)s"],
        "TRUNCATE": ["TRUNCATE requests"],
    },
    "gms": {
        "SELECT": ["SELECT name FROM gms"],
        "INSERT": ["INSERT INTO gms VALUES ('mallory')"],
        "UPDATE": ["UPDATE gms SET name = 'mallory' WHERE name = %(alice)s"],
        "DELETE": ["DELETE FROM gms WHERE name = %(alice)s"],
        "TRUNCATE": ["TRUNCATE gms CASCADE"],
    },
}

# What a second GM reads by design: the schema's version, the club's GMs (a share names one), and the
# log of a fight shared with him. Every other SELECT sees no row of alice's.
READABLE = {("meta", False), ("meta", True), ("gms", False), ("gms", True),
            ("fights", True), ("events", True), ("commands", True), ("shares", True), ("requests", True)}
# Appending to a shared fight's log is what sharing grants (a forged row then fails `fudge verify`), and so
# is running its players' requests (a request changes no fight until a GM accepts it as a command).
GRANTED = {("events", "INSERT", True), ("commands", "INSERT", True), ("requests", "INSERT", True),
           ("requests", "UPDATE", True)}

SCHEMA_ATTACKS = [
    "ALTER TABLE fights DISABLE ROW LEVEL SECURITY",
    "DROP POLICY gm_fights_read ON fights",
    "ALTER TABLE fights DISABLE TRIGGER fight_unchanged",
    "CREATE TABLE public.mine (x int)",
    "CREATE FUNCTION public.mine() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "CREATE POLICY everyone ON fights USING (true)",
    "ALTER TABLE fights OWNER TO CURRENT_USER",
    "DROP TABLE events CASCADE",
]


@dataclass
class Club:
    url: str  # the admin's
    urls: dict[str, str]  # each GM's own role's
    roles: dict[str, str]  # GM -> role name
    folders: dict[str, Path]
    fights: dict[bool, int]  # shared with bob? -> alice's fight's row id
    names: dict[bool, str]

    def fudge(self, gm: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`fudge` as a GM logged in under their own role (no FUDGE_GM unless `env` gives one), in their folder
        (their key, secrets and state)."""
        folder = self.folders[gm]
        return fudge(*args, store=self.urls[gm], cwd=folder, key=folder / "snapshot.key",
                     env={"FUDGE_SECRETS_FILE": str(folder / "secrets.db"), **(env or {})})

    def ok(self, gm: str, *args: str) -> str:
        done = self.fudge(gm, *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def dump(self) -> dict[str, list[Any]]:
        """Every row of every table, as the admin reads them."""
        import psycopg

        with psycopg.connect(self.url) as db:
            return {table: sorted(map(repr, db.execute(f"SELECT * FROM {table}").fetchall()))  # type: ignore[arg-type]
                    for table in tables_of(db)}

    def params(self, shared: bool) -> dict[str, Any]:
        return {"fight": self.fights[shared], "alice": self.roles["alice"], "bob": self.roles["bob"]}


def tables_of(db: Any) -> list[str]:
    return [name for (name,) in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                                           "ORDER BY tablename").fetchall()]


@pytest.fixture(scope="module")
def club(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Club:
    url = pg_server.database()
    suffix = url.split("@/", 1)[1].split("?")[0]  # roles are the whole server's: one set per database
    roles = {gm: f"{gm}_{suffix}" for gm in ("alice", "bob", "carol")}
    folders = {gm: tmp_path_factory.mktemp(gm) for gm in roles}
    urls = {gm: url.replace("fudge@", f"{role}@") for gm, role in roles.items()}
    made = Club(url, urls, roles, folders, {}, {False: "crypt", True: "arena"})
    for args in (["club", "init"], *(["club", "add-gm", role] for role in roles.values())):  # as the admin's role
        done = subprocess.run([sys.executable, "-m", "fudge_combat.cli.main", "--store", url, *args], capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=folders["alice"], timeout=120)
        assert done.returncode == 0, done.stderr
    for name, other in (("crypt", "carol"), ("arena", "bob")):
        made.ok("alice", "new", name)
        made.ok("alice", "join", str(SHEETS / "snorri.toml"))
        made.ok("alice", "join", str(SHEETS / "brynhild.toml"))
        made.ok("alice", "exchange", "Snorri", "Brynhild")
        made.ok("alice", "share", name, "--with", roles[other])
        made.ok("alice", "invite", "Snorri")
        ask(urls["alice"], name)  # Snorri's player asks (the players' server adds it as alice's store)
    made.ok("bob", "new", "tavern")
    import psycopg

    with psycopg.connect(url) as db:
        for shared, name in made.names.items():
            made.fights[shared] = db.execute("SELECT id FROM fights WHERE name = %s AND owner = %s",
                                             (name, roles["alice"])).fetchone()[0]
        for table, where in (("snapshots", "fight = %s AND gm = %s"), ("views", "fight = %s AND gm = %s")):
            for fight in made.fights.values():  # the caches the attacks aim at exist
                assert db.execute(f"SELECT count(*) FROM {table} WHERE {where}", (fight, roles["alice"])).fetchone()[0]
        for fight in made.fights.values():  # and the request
            assert db.execute("SELECT count(*) FROM requests WHERE fight = %s", (fight,)).fetchone()[0] == 1
    return made


def ask(url: str, name: str) -> None:
    """A request of Snorri's player in fight `name`, added as the players' server adds it."""
    from fudge_combat.store.postgres import PostgresStore
    from fudge_combat.store.requests import Request

    store = PostgresStore(url)
    store.add_request(name, Request(id="r1", fighter="Snorri", link="l1", at="2026-11-28T20:00:00Z",
                                    body='{"kind": "spend", "use": "luck"}'))
    assert [r.id for r in store.requests(name)] == ["r1"]


def attacks() -> list[Any]:
    return [pytest.param(table, verb, sql, shared, id=f"{table}-{verb}-{'shared' if shared else 'not-shared'}-{n}")
            for table, verbs in ATTACKS.items() for verb, statements in verbs.items()
            for n, sql in enumerate(statements) for shared in (False, True) if (table, verb, shared) not in GRANTED]


def test_every_table_of_the_schema_has_its_attacks(club: Club) -> None:
    import psycopg

    with psycopg.connect(club.url) as db:
        assert set(tables_of(db)) == set(ATTACKS), "a table without attacks here: add its cases"
    assert all(set(verbs) == set(VERBS) for verbs in ATTACKS.values())


@pytest.mark.parametrize(("table", "verb", "sql", "shared"), attacks())
def test_a_second_GM_in_raw_SQL_is_refused_or_sees_nothing(club: Club, table: str, verb: str, sql: str,
                                                           shared: bool) -> None:
    import psycopg

    before = club.dump()
    with psycopg.connect(club.urls["bob"], autocommit=True) as db:
        try:
            cursor = db.execute(sql, club.params(shared))  # type: ignore[arg-type]
        except psycopg.errors.InsufficientPrivilege:
            outcome = "refused"
        else:
            rows = cursor.fetchall() if cursor.description else []
            outcome = "rows" if rows else "changed" if cursor.rowcount > 0 and verb != "SELECT" else "nothing"
    if verb == "SELECT" and (table, shared) in READABLE:
        assert outcome == "rows"  # readable by design: checked below to be exactly what he may see
        with psycopg.connect(club.urls["bob"]) as db:
            seen = db.execute(sql, club.params(shared)).fetchall()  # type: ignore[arg-type]
        if table == "meta":
            assert seen == [("store_schema", STORE_SCHEMA)]
        elif table == "gms":
            assert sorted(seen) == sorted((role,) for role in club.roles.values())
        elif table == "shares":
            assert [row[1] for row in seen] == [club.roles["bob"]]  # his own share, not carol's
        elif table == "requests":
            assert [row[:3] for row in seen] == [(club.fights[True], "r1", "Snorri")]  # the shared fight's alone
    else:
        assert outcome in ("refused", "nothing"), (sql, outcome)
    assert club.dump() == before


def test_the_schema_is_the_admins(club: Club) -> None:
    import psycopg

    before = club.dump()
    for sql in SCHEMA_ATTACKS:
        with psycopg.connect(club.urls["bob"], autocommit=True) as db:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(sql)  # type: ignore[arg-type]
    assert club.dump() == before


@pytest.mark.parametrize("shared", [False, True], ids=["not-shared", "shared"])
def test_a_second_GM_who_LISTENs_hears_nothing_of_the_fight(club: Club, shared: bool) -> None:
    """Any role may LISTEN on any channel: the notification an append sends is empty."""
    import psycopg

    with psycopg.connect(club.urls["bob"], autocommit=True) as db:
        for channel in ("fudge", f"fudge_{club.roles['alice']}", f"fudge_{club.fights[shared]}"):
            db.execute(f'LISTEN "{channel}"')  # type: ignore[arg-type]
        club.ok("alice", "join", str(SHEETS / ("finn.toml" if shared else "fionn.toml")), "--fight", club.names[shared])
        heard = list(db.notifies(timeout=5, stop_after=1))
    assert heard and all(n.payload == "" and n.channel == "fudge" for n in heard)


# The CLI as bob's role, naming himself alice (FUDGE_GM): (arguments, which fight). On the shared
# fight only what sharing does not grant is tried.
CLI_ATTACKS = [
    *[(args, False) for args in (["status", "--fight", "crypt"], ["log", "--fight", "crypt"], ["verify", "crypt"],
                                 ["export", "crypt"], ["join", str(SHEETS / "finn.toml"), "--fight", "crypt"],
                                 ["undo", "--fight", "crypt"], ["branch", "crypt-bobs", "--fight", "crypt"],
                                 ["use", "crypt"], ["share", "crypt", "--with", "BOB"])],
    *[(args, True) for args in (["share", "arena", "--with", "CAROL"], ["club", "upgrade"], ["club", "init"],
                                ["club", "add-gm", "mallory"], ["new", "crypt-forged"])],
]


@pytest.mark.parametrize(("args", "shared"), CLI_ATTACKS, ids=[" ".join(a[:2]) for a, _ in CLI_ATTACKS])
def test_a_second_GM_through_the_CLI_naming_himself_alice_is_refused_in_one_line(club: Club, args: list[str],
                                                                                 shared: bool) -> None:
    """FUDGE_GM names a GM, it does not authenticate one: bob's role is held to bob's rights whatever it says.
    (Bob as himself is refused the same way: tests/test_postgres.py.)"""
    before = club.dump()
    named = [club.roles["bob"] if a == "BOB" else club.roles["carol"] if a == "CAROL" else a for a in args]
    done = club.fudge("bob", *named, env={"FUDGE_GM": club.roles["alice"]})
    assert done.returncode not in (0, 70), (named, done.stdout, done.stderr)
    assert done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1, done.stderr
    assert club.dump() == before


def test_the_owners_fights_verify_unchanged_afterwards(club: Club) -> None:
    """Last in the file: after every attack above, alice's fights verify and her listing is as she made it."""
    for name in club.names.values():
        assert "hash chain intact" in club.ok("alice", "verify", name)
    import json

    assert [f["name"] for f in json.loads(club.ok("alice", "fights", "--json"))] == ["crypt", "arena"]
