"""A club's server at the command line (store.postgres): each command its own process on a throwaway
PostgreSQL server (tests/pgserver.py), two GMs each in their own folder (snapshot key, secrets file).

Two GMs run their own fights and share a third; neither sees the other's fights unless shared; the
current fight is each GM's own; dice seeds stay in each GM's secrets file, never in the database; a
fight moves from a laptop's SQLite file to the server and back, byte for byte, verifying on both.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.store.sqlite import SqliteStore
from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"


class GM:
    """`fudge` as one GM of the server: their name ($FUDGE_GM) and their own folder."""

    def __init__(self, name: str, url: str, folder: Path) -> None:
        self.name, self.url, self.folder = name, url, folder
        folder.mkdir()

    def __call__(self, *args: Any, ok: bool = True, store: str | Path | None = None) -> subprocess.CompletedProcess[str]:
        done = fudge(*map(str, args), store=store or self.url, cwd=self.folder,
                     env={"FUDGE_GM": self.name, "FUDGE_SECRETS_FILE": str(self.folder / "secrets.db")})
        if ok:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def fights(self) -> list[str]:
        return [f["name"] for f in json.loads(self("fights", "--json").stdout)]


@pytest.fixture
def club(pg_url: str, tmp_path: Path) -> tuple[GM, GM]:
    return GM("alice", pg_url, tmp_path / "alice"), GM("bob", pg_url, tmp_path / "bob")


def rows_in(url: str, sql: str) -> list[Any]:
    import psycopg

    with psycopg.connect(url) as db:
        return db.execute(sql).fetchall()  # type: ignore[arg-type]


def test_A_LOG_1_two_GMs_run_their_own_fights_and_share_a_third(club: tuple[GM, GM]) -> None:
    alice, bob = club
    alice("new", "crypt")
    alice("join", SHEETS / "snorri.toml")
    alice("join", SHEETS / "brynhild.toml")
    alice("exchange", "Snorri", "Brynhild")
    bob("new", "tavern")
    bob("join", SHEETS / "snorri.toml")
    assert alice.fights() == ["crypt"] and bob.fights() == ["tavern"]  # each sees their own alone
    refused = bob("status", "--fight", "crypt", ok=False)
    assert refused.returncode != 0 and "no fight named 'crypt'" in refused.stderr
    assert "Traceback" not in refused.stderr
    written = bob("join", SHEETS / "brynhild.toml", "--fight", "crypt", ok=False)
    assert written.returncode != 0 and "no fight named 'crypt'" in written.stderr
    bob("new", "crypt")  # names are each GM's own: alice's crypt is neither refused nor revealed
    assert bob.fights() == ["tavern", "crypt"] and alice.fights() == ["crypt"]
    assert "already exists" in bob("new", "crypt", ok=False).stderr  # his own crypt is

    alice("new", "arena")  # the shared fight: alice's, shared with bob
    alice("join", SHEETS / "snorri.toml")
    assert "shared with bob" in alice("share", "arena", "--with", "bob").stdout
    not_hers = bob("share", "arena", "--with", "carol", ok=False)
    assert "only its owner shares it" in not_hers.stderr
    assert bob.fights() == ["tavern", "crypt", "arena"] and alice.fights() == ["crypt", "arena"]
    bob("use", "arena")
    bob("join", SHEETS / "brynhild.toml")  # bob writes the shared fight
    # bob rolls with dice he enters: the fight's dice seed is in alice's secrets file, not his
    no_seed = bob("exchange", "Snorri", "Brynhild", ok=False)
    assert "not among this machine's secrets" in no_seed.stderr
    bob("exchange", "Snorri", "Brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0")  # entered dice, all blank
    alice("exchange", "Snorri", "Brynhild", "--fight", "arena")  # alice rolls with her seed

    # the current fight is each GM's: bob's is arena, alice's is still the last she made
    assert json.loads(alice("status", "--json").stdout)["fight"] == "arena"
    assert json.loads(bob("status", "--json").stdout)["fight"] == "arena"
    alice("use", "crypt")
    assert json.loads(alice("status", "--json").stdout)["fight"] == "crypt"
    assert json.loads(bob("status", "--json").stdout)["fight"] == "arena"
    for gm in (alice, bob):
        assert "verified" in gm("verify", "arena").stdout

    # secrets: each GM's own file; the database holds commitments, never a seed
    kept = {gm.name: dict(sqlite3.connect(gm.folder / "secrets.db").execute("SELECT fight, value FROM secrets"))
            for gm in (alice, bob)}
    fight_ids = {f"{owner}/{name}": fight_id for owner, name, fight_id in rows_in(
        alice.url, "SELECT owner, name, fight_id FROM fights")}
    hers = {fight_ids["alice/crypt"], fight_ids["alice/arena"]}
    assert hers <= kept["alice"].keys() and not hers & kept["bob"].keys()
    assert {fight_ids["bob/tavern"], fight_ids["bob/crypt"]} <= kept["bob"].keys()
    stored = "\n".join(body for (body,) in rows_in(alice.url, "SELECT body FROM events"))
    assert all(seed not in stored for gm in kept.values() for seed in gm.values())
    owners = sorted(rows_in(alice.url, "SELECT name, owner FROM fights"))
    assert owners == [("arena", "alice"), ("crypt", "alice"), ("crypt", "bob"), ("tavern", "bob")]


def test_A_LOG_1_a_fight_moves_from_sqlite_to_the_server_and_back_byte_for_byte(club: tuple[GM, GM], tmp_path: Path) -> None:
    alice, _ = club
    laptop = alice.folder / "laptop.db"
    alice("new", "duel", store=laptop)
    alice("join", SHEETS / "snorri.toml", store=laptop)
    alice("join", SHEETS / "brynhild.toml", store=laptop)
    alice("exchange", "Snorri", "Brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0", store=laptop)
    alice("branch", "what-if", store=laptop)
    rows = {name: SqliteStore(laptop).read(name) for name in ("duel", "what-if")}

    out = alice("store", "copy", laptop, alice.url).stdout
    assert out.count("hash chain verified in both stores") == 2
    assert "verified" in alice("verify", "duel").stdout  # on the server, with the seed from her secrets
    alice("exchange", "Snorri", "Brynhild", "--fight", "duel")  # the fight goes on, on the server, with her seed
    again = alice("store", "copy", laptop, alice.url, "--fight", "duel", ok=False)
    assert again.returncode != 0 and "already holds another fight named duel" in again.stderr

    back = alice.folder / "back.db"
    alice("store", "copy", alice.url, back)
    from fudge_combat.store.postgres import PostgresStore

    server = PostgresStore(alice.url, gm="alice")
    assert SqliteStore(back).read("what-if") == rows["what-if"] == server.read("what-if")
    assert SqliteStore(back).read("duel")[: len(rows["duel"])] == rows["duel"]
    assert SqliteStore(back).read("duel") == server.read("duel")
    assert SqliteStore(back).fight("what-if") == server.fight("what-if") == SqliteStore(laptop).fight("what-if")
    assert "verified" in alice("verify", "duel", store=back).stdout
    assert "already in" in alice("store", "copy", back, alice.url, "--fight", "what-if").stdout


def test_share_on_a_store_file_and_an_unreachable_server_are_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "gm"
    folder.mkdir()
    done = fudge("share", "duel", "--with", "bob", store=folder / "fudge.db")
    assert done.returncode != 0 and done.stderr.startswith("error: sharing needs a club's server")
    gone = fudge("fights", store=f"postgresql://fudge:secret@/none?host={tmp_path}/nowhere", cwd=folder)
    assert gone.returncode != 0 and gone.stderr.startswith("error: cannot reach the store postgresql://fudge:***@")
    assert "secret" not in gone.stderr and "Traceback" not in gone.stderr and len(gone.stderr.splitlines()) == 1


def test_FUDGE_STORE_names_the_server_as_well_as_a_file(pg_url: str, tmp_path: Path) -> None:
    import os
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update(PYTHONPATH=str(ROOT), FUDGE_STORE=pg_url, FUDGE_GM="carol", FUDGE_KEY_FILE=str(tmp_path / "key"),
               FUDGE_SECRETS_FILE=str(tmp_path / "secrets.db"), NO_COLOR="1")
    for args in (["new", "by-env"], ["fights"]):
        done = subprocess.run([sys.executable, "-m", "fudge_combat.cli.main", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
    assert "by-env" in done.stdout
    assert not (tmp_path / "fudge.db").exists()  # no file store was made beside it
    from fudge_combat.store.postgres import PostgresStore

    assert [f.name for f in PostgresStore(pg_url, gm="carol").fights()] == ["by-env"]
    assert PostgresStore(pg_url, gm="carol").owner("by-env") == "carol"


def test_a_play_session_on_the_server_tells_the_story_it_tells_on_a_file(pg_server: Any, tmp_path: Path) -> None:
    """`fudge play` (one process, a pool of connections on a server) under each preset's script: the same
    output, line for line, as on a SQLite file (every die typed; ids and receipts masked)."""
    from tests.test_play import SCRIPTS, masked

    for preset, script in SCRIPTS.items():
        folder = tmp_path / preset
        folder.mkdir()
        on_file = fudge("play", store=folder / "fudge.db", input=script, cwd=ROOT,
                        key=folder / "file.key", env={"FUDGE_SECRETS_FILE": str(folder / "file.secrets")})
        on_server = fudge("play", store=pg_server.database(), input=script, cwd=ROOT, key=folder / "server.key",
                          env={"FUDGE_GM": preset, "FUDGE_SECRETS_FILE": str(folder / "server.secrets"),
                               "XDG_STATE_HOME": str(folder / "state")})
        assert on_server.returncode == on_file.returncode == 0, on_server.stderr
        assert on_server.stderr == on_file.stderr
        assert masked(on_server.stdout) == masked(on_file.stdout)


def test_GMs_who_log_in_as_their_own_roles_cannot_read_each_others_fights_even_in_SQL(pg_server: Any) -> None:
    """Row-level security (store schema 2, held by schema 3's rights): a GM's role sees and writes, whatever SQL it runs, only the
    fights it owns and those shared with it, and only its own settings and caches."""
    import itertools

    import psycopg

    from fudge_combat.events.rows import Row
    from fudge_combat.store.base import FightInfo, StoreError
    from fudge_combat.store.postgres import PostgresStore

    url = pg_server.database()
    admin = PostgresStore(url)
    admin.upgrade()  # the club's admin role makes the tables (`fudge club init`)
    suffix = url.split("@/", 1)[1].split("?")[0]  # the database's name: roles are the whole server's
    alice_role, bob_role = f"alice_{suffix}", f"bob_{suffix}"
    assert admin.add_gm(alice_role) and admin.add_gm(bob_role)  # `fudge club add-gm`: each role made
    alice_url, bob_url = (url.replace("fudge@", f"{role}@") for role in (alice_role, bob_role))
    alice, bob = PostgresStore(alice_url), PostgresStore(bob_url)
    assert (alice.gm, bob.gm) == (alice_role, bob_role)  # no FUDGE_GM: the role is the GM
    counter = itertools.count()

    def rows(first: int, count: int = 1) -> list[Row]:
        command = f"c{next(counter)}"
        return [Row(seq, command, "note", "{}", f"{seq:064x}") for seq in range(first, first + count)]

    alice.append("crypt", 0, rows(1, 3), create=FightInfo("crypt", "id-crypt"))
    alice.set_setting("current", "crypt")
    bob.append("tavern", 0, rows(1), create=FightInfo("tavern", "id-tavern"))
    bob.set_setting("current", "tavern")
    with psycopg.connect(bob_url, autocommit=True) as db:
        assert db.execute("SELECT name FROM fights").fetchall() == [("tavern",)]
        assert db.execute("SELECT count(*) FROM events").fetchone() == (1,)
        assert db.execute("SELECT gm, value FROM settings").fetchall() == [(bob_role, "tavern")]
        (crypt,) = rows_in(url, "SELECT id FROM fights WHERE name = 'crypt'")[0]  # as the club's admin
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            db.execute("INSERT INTO events VALUES (%s, 4, 'forged', 'note', '{}', 'h')", (crypt,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            db.execute("INSERT INTO shares VALUES (%s, %s, %s)", (crypt, bob_role, alice_role))
    with pytest.raises(StoreError, match="no fight named 'crypt'"):
        bob.read("crypt")
    alice.share("crypt", bob_role)
    with psycopg.connect(bob_url, autocommit=True) as db:
        assert sorted(db.execute("SELECT name FROM fights").fetchall()) == [("crypt",), ("tavern",)]
        assert db.execute("SELECT count(*) FROM events").fetchone() == (4,)
    bob.append("crypt", 3, rows(4))  # a shared fight is written by both
    assert [r.seq for r in alice.read("crypt")] == [1, 2, 3, 4]
    with pytest.raises(StoreError, match="only its owner shares it"):
        bob.share("crypt", "carol")
    with psycopg.connect(alice_url, autocommit=True) as db:
        assert db.execute("SELECT name FROM fights").fetchall() == [("crypt",)]  # bob's tavern stays his


def test_the_live_board_is_woken_by_the_servers_notification(pg_url: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`fudge serve` on a server follows the fight through LISTEN/NOTIFY: a stream waiting for a change is
    woken by the append's commit, not by a poll (both are set far beyond the test's wait)."""
    import asyncio
    import threading

    pytest.importorskip("starlette", reason="the serve extra is not installed: pip install '.[serve]'")
    from fudge_combat.cli.context import store_at
    from fudge_combat.cli.web import app
    from fudge_combat.service.fights import Fights

    alice = GM("alice", pg_url, tmp_path / "alice")
    alice("new", "duel")
    alice("join", SHEETS / "snorri.toml")
    alice("join", SHEETS / "brynhild.toml")
    monkeypatch.setenv("FUDGE_GM", "alice")
    store = store_at(pg_url)
    assert store.notifies
    board = app.Board(Fights(store), "duel")
    board.poll()
    seq = store.last_seq("duel")
    monkeypatch.setattr(app, "WAIT", 120.0)
    monkeypatch.setattr(app, "POLL", 120.0)
    woken = threading.Event()
    waiting = threading.Thread(target=lambda: (asyncio.run(board.changed()), woken.set()), daemon=True)
    waiting.start()
    alice("exchange", "snorri", "brynhild")
    assert woken.wait(60), "the append's NOTIFY did not wake the board"
    assert store.last_seq("duel") > seq
    assert board.poll()["seq"] == store.last_seq("duel")  # and the page is rebuilt at the new event


def test_fight_names_are_each_GMs_and_a_share_names_a_GM_the_club_knows(club: tuple[GM, GM]) -> None:
    """Bob's `new crypt` neither fails on nor reveals alice's crypt; shared with him, hers is listed as
    alice/crypt beside his own; a share with a GM the club does not list is refused in one line."""
    alice, bob = club
    alice("new", "crypt")
    bob("new", "crypt")
    unknown = alice("share", "crypt", "--with", "nosuchgm", ok=False)
    assert unknown.returncode == 1 and unknown.stderr.startswith("error: no GM named 'nosuchgm'")
    assert "fudge club add-gm nosuchgm" in unknown.stderr and len(unknown.stderr.splitlines()) == 1
    alice("share", "crypt", "--with", "bob")
    assert bob.fights() == ["alice/crypt", "crypt"] and alice.fights() == ["crypt"]  # in the order made
    assert "Snorri" in bob("join", SHEETS / "snorri.toml", "--fight", "alice/crypt").stdout
    assert "Snorri" in alice("status").stdout and "Snorri" not in bob("status", "--fight", "crypt").stdout
    assert "already exists" in bob("new", "alice/crypt", ok=False).stderr
