"""The cached projection (store.snapshots) is the state a replay of the log gives, or it is not used.

Each check opens the store afresh (as the next `fudge` command does) and compares the state it
reads with a replay of the whole log from scratch (A-REPLAY-1).
"""

from __future__ import annotations

import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine import commands as cmd
from projections.fold import replay
from engine.state import FightState
from store import snapshots
from service.fights import Fights
from store.sqlite import SqliteStore
from tests.conftest import dice, sheet, start


def opened(path: Path) -> Fights:
    """A new service on the file, as the next `fudge` command opens it."""
    return Fights(SqliteStore(path))


def fight(path: Path) -> Fights:
    fights = opened(path)
    start(fights, "fight")
    for name in ("Ann", "Bob"):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword",
                                                     weapon=2, fudge_points=3), source="test"))
    return fights


def exchange(fights: Fights, name: str = "fight") -> None:
    fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))


def from_cache(path: Path, name: str = "fight") -> FightState | None:
    """What a fresh process reads through the snapshot alone (None: it would replay)."""
    fights = opened(path)
    found = fights._from_snapshot(name, *fights.store.tail(name))
    return found[0] if found else None


def replayed(path: Path, name: str = "fight") -> FightState:
    fights = opened(path)
    return replay(fights.log(name))


def consistent(path: Path, name: str = "fight") -> FightState:
    cached = from_cache(path, name)
    assert cached is not None, "the last command left a usable snapshot"
    assert cached == replayed(path, name)
    assert opened(path).state(name) == cached
    return cached


def test_A_REPLAY_1_the_snapshot_is_the_replayed_state_after_append_undo_redo_and_branch(tmp_path: Path) -> None:
    """A-REPLAY-1, A-UNDO-1, A-BRANCH-1: after every kind of command the cached state equals a replay."""
    path = tmp_path / "fudge.db"
    fights = fight(path)
    consistent(path)
    exchange(fights)
    hurt = consistent(path)
    assert hurt.find("Bob").marks, "the blow landed, so the state is not the empty one"
    opened(path).execute("fight", cmd.Undo())
    undone = consistent(path)
    assert not undone.find("Bob").marks
    opened(path).execute("fight", cmd.Redo())
    assert consistent(path).find("Bob").marks == hurt.find("Bob").marks
    opened(path).branch("fight", "what-if", 3)
    assert not consistent(path, "what-if").find("Bob").marks
    assert consistent(path, "what-if").name == "what-if"
    assert consistent(path).find("Bob").marks == hurt.find("Bob").marks


def test_A_REPLAY_1_a_command_run_from_a_snapshot_appends_what_a_replaying_one_would(tmp_path: Path) -> None:
    """A-REPLAY-1: a fresh service (state from the snapshot, no log parsed) decides and folds the same."""
    path = tmp_path / "fudge.db"
    fight(path)
    exchange(opened(path))
    exchange(opened(path))
    assert consistent(path).find("Bob").marks


def test_a_tampered_snapshot_is_ignored_and_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "fudge.db"
    fights = fight(path)
    exchange(fights)
    truth = replayed(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshots SET body = ?", (pickle.dumps(FightState()),))
    assert from_cache(path) is None
    assert opened(path).state("fight") == truth
    exchange(opened(path))  # the next command writes a good one again
    consistent(path)


def test_a_snapshot_of_another_event_or_of_other_code_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fudge.db"
    fights = fight(path)
    with sqlite3.connect(path) as db:
        old = db.execute("SELECT seq, hash, version, body, mac FROM snapshots").fetchone()
    exchange(fights)
    opened(path).execute("fight", cmd.Undo())
    with sqlite3.connect(path) as db:  # an older snapshot with an exchange and its undo after it
        db.execute("UPDATE snapshots SET seq = ?, hash = ?, version = ?, body = ?, mac = ?", old)
    # A-UNDO-1: the undo is folded past from the undo history the snapshot carries (engine.rewind)
    assert from_cache(path) == replayed(path)
    assert opened(path).state("fight") == replayed(path)
    with sqlite3.connect(path) as db:  # a snapshot claiming a later event than it holds
        db.execute("UPDATE snapshots SET seq = ?, hash = (SELECT hash FROM events ORDER BY seq DESC LIMIT 1)",
                   (opened(path).store.last_seq("fight"),))
    assert from_cache(path) is None
    exchange(opened(path))
    consistent(path)
    monkeypatch.setattr(snapshots, "_VERSION", ["other code"])
    assert from_cache(path) is None
    assert opened(path).state("fight") == replayed(path)


def test_an_older_snapshot_is_caught_up_by_folding_the_events_after_it(tmp_path: Path) -> None:
    """Events after the snapshot that void nothing are folded onto it: the same state as a replay."""
    path = tmp_path / "fudge.db"
    fights = fight(path)
    with sqlite3.connect(path) as db:
        old = db.execute("SELECT seq, hash, version, body, mac FROM snapshots").fetchone()
    exchange(fights)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshots SET seq = ?, hash = ?, version = ?, body = ?, mac = ?", old)
    cached = from_cache(path)
    assert cached is not None and cached == replayed(path) and cached.find("Bob").marks


def test_reading_a_fight_writes_nothing(tmp_path: Path) -> None:
    """A store written before snapshots (none kept) is replayed; a read never writes the cache."""
    path = tmp_path / "fudge.db"
    fight(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM snapshots")
    before = _dump(path)
    assert opened(path).state("fight") == replayed(path)
    assert _dump(path) == before


def _dump(path: Path) -> Any:
    with sqlite3.connect(path) as db:
        return list(db.iterdump())


def test_a_store_from_someone_else_never_unpickles_its_snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot is trusted only under this user's key, kept outside the store: a store file received
    from another machine (whose key is not ours) is read from its log, and pickle never runs on it."""
    db = tmp_path / "theirs.db"
    monkeypatch.setenv("FUDGE_KEY_FILE", str(tmp_path / "their.key"))
    exchange(fight(db))
    assert from_cache(db) is not None  # under their key, their snapshot is good
    monkeypatch.setenv("FUDGE_KEY_FILE", str(tmp_path / "our.key"))
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("unpickled a snapshot made under another key"))
    assert from_cache(db) is None
    assert opened(db).state("fight") == replayed(db)
    exchange(opened(db))  # our next command writes a snapshot under our key, readable by us alone
    assert (tmp_path / "our.key").stat().st_mode & 0o077 == 0
    monkeypatch.undo()


def test_without_a_place_for_the_key_there_are_no_snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No usable key file (an unwritable place): commands still work, folding the log each time."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("FUDGE_KEY_FILE", str(blocker / "snapshot.key"))
    db = tmp_path / "fight.db"
    exchange(fight(db))
    assert from_cache(db) is None
    assert opened(db).state("fight") == replayed(db)
