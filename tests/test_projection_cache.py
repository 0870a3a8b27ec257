"""The cached projection (store.snapshots) is the state a replay of the log gives, or it is not used.

Each check opens the store afresh (as the next `fudge` command does) and compares the state it
reads with a replay of the whole log from scratch (A-REPLAY-1).
"""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.pmap import LOGGED, MISSING
from fudge_combat.engine.kernel.rewind import UNKNOWN
from fudge_combat.projections.fold import replay
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.engine.rulesets.fate.state import FateState, fate_of
from fudge_combat.store import schema, snapshots
from fudge_combat.service.fights import Fights
from fudge_combat.store.log import log
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, sheet, start
from tests.processes import fudge


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
    found = fights.loader.from_snapshot(name, *fights.store.tail(name))
    return found.state if found else None


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
        db.execute("UPDATE snapshots SET body = ?", (schema.encode(FightState(), UNKNOWN),))
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
    # A-UNDO-1: the undo is folded past from the undo history the snapshot carries (engine.kernel.rewind)
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


def snapshot_seq(path: Path) -> int:
    with sqlite3.connect(path) as db:
        seq: int = db.execute("SELECT seq FROM snapshots").fetchone()[0]
    db.close()
    return seq


def test_a_command_that_read_its_state_from_the_store_leaves_the_snapshot_at_the_tip(tmp_path: Path) -> None:
    """A one-shot command (a service that reads the fight from the store) writes a snapshot at its last
    event, so the next one reads no record after it; a session holding its state writes one only every
    `max(32, seq // 64)` events, and a fresh service after it again at the tip."""
    path = tmp_path / "fudge.db"
    fight(path)
    session = opened(path)
    for _ in range(3):  # the first command reads from the store; the next two hold its state
        exchange(session)
    tip = session.store.last_seq("fight")
    assert snapshot_seq(path) < tip  # the session's later commands left it behind
    one_shot = opened(path)
    exchange(one_shot)
    assert snapshot_seq(path) == one_shot.store.last_seq("fight") > tip
    consistent(path)


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


def test_a_store_from_someone_else_never_decodes_its_snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot is trusted only under this user's key, kept outside the store: a store file received
    from another machine (whose key is not ours) is read from its log, and its bodies are never decoded."""
    db = tmp_path / "theirs.db"
    monkeypatch.setenv("FUDGE_KEY_FILE", str(tmp_path / "their.key"))
    exchange(fight(db))
    assert from_cache(db) is not None  # under their key, their snapshot is good
    monkeypatch.setenv("FUDGE_KEY_FILE", str(tmp_path / "our.key"))
    monkeypatch.setattr(snapshots, "decode", lambda *a, **k: pytest.fail("decoded a snapshot made under another key"))
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


# --- snapshots of an older format ------------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def old_store(folder: Path) -> tuple[Path, Path]:
    """A store whose snapshot is a pickle (format 2) at the fight's last event, signed with the key given
    beside it, as the code before msgpack left it (tests/fixtures/README.md): (the store, the key file)."""
    path, key = folder / "fudge.db", folder / "snapshot.key"
    with sqlite3.connect(path) as db:
        db.executescript((FIXTURES / "snapshot_format2.sql").read_text())
    key.write_text((FIXTURES / "snapshot_format2.key").read_text())
    key.chmod(0o600)
    return path, key


def no_pickle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any use of pickle from now on fails the test."""
    import _pickle

    def refuse(*args: Any, **kwargs: Any) -> Any:
        pytest.fail("pickle was used to read a snapshot")

    for module in (pickle, _pickle):
        for name in ("loads", "load", "Unpickler"):
            monkeypatch.setattr(module, name, refuse)


def test_a_pickled_snapshot_of_the_format_before_is_never_unpickled_and_the_fight_is_read_from_its_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A GM's store from before msgpack snapshots: its pickle is of another version, so it is not used (no
    warning: it is simply stale), the state is folded from the log, and the next write stores this format."""
    path, key = old_store(tmp_path)
    monkeypatch.setenv("FUDGE_KEY_FILE", str(key))
    with sqlite3.connect(path) as db:
        version, body, seq = db.execute("SELECT version, body, seq FROM snapshots").fetchone()
    assert body[:2] == b"\x80\x05" and version != snapshots.code_version()  # a pickle, by the code before
    assert seq == opened(path).store.last_seq("duel")  # at the last event: it would be read, were it this format
    no_pickle(monkeypatch)
    snapshots._IGNORED.clear()
    assert from_cache(path, "duel") is None
    state = opened(path).state("duel")
    assert state == replayed(path, "duel") and state.find("Bob").marks
    assert not snapshots._IGNORED  # stale, not damaged: no warning
    fights = opened(path)
    fights.execute("duel", cmd.Undo())  # a write stores a snapshot of this format; the undo reads the log
    fights.execute("duel", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    with sqlite3.connect(path) as db:
        version, body = db.execute("SELECT version, body FROM snapshots").fetchone()
    assert version == snapshots.code_version() and body[:2] != b"\x80\x05"
    consistent(path, "duel")


def test_a_snapshot_of_format_3_with_fates_fields_of_their_own_is_not_misread_but_folded_from_the_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Fate fight's store from before a ruleset's fields were its own part of the state (snapshot format 3:
    Fate's boxes, clip and order were fields of the state beside the shared ones; tests/fixtures/README.md).
    Its snapshot is of another version, so it is not used (no warning: stale, not damaged), and its body is
    not of this format's schema either (the decoder refuses it rather than reading Fate's fields as others).
    The state is folded from the log, with Fate's boxes where the rules keep them (FT-TRACK-2), and the
    next write stores this format, which reads back as the replay."""
    path, key = tmp_path / "fudge.db", tmp_path / "snapshot.key"
    with sqlite3.connect(path) as db:
        db.executescript((FIXTURES / "snapshot_format3.sql").read_text())
    key.write_text((FIXTURES / "snapshot_format3.key").read_text())
    key.chmod(0o600)
    monkeypatch.setenv("FUDGE_KEY_FILE", str(key))
    with sqlite3.connect(path) as db:
        version, body, seq = db.execute("SELECT version, body, seq FROM snapshots").fetchone()
    assert version != snapshots.code_version() and seq > 1  # written by the code before, partway through
    with pytest.raises(msgspec.ValidationError):
        schema.decode(body)
    snapshots._IGNORED.clear()
    assert from_cache(path, "tavern") is None
    state = opened(path).state("tavern")
    assert state == replayed(path, "tavern") and not snapshots._IGNORED
    assert type(state.part) is FateState
    assert {who: [m.box for m in marks] for who, marks in fate_of(state).marks.items() if marks} == {
        "cyrus": ["clipped"], "finn": ["clipped"], "guard-a": ["hurt", "injured"]}
    opened(path).execute("tavern", cmd.Undo())  # a write stores a snapshot of this format
    with sqlite3.connect(path) as db:
        version, = db.execute("SELECT version FROM snapshots").fetchone()
    assert version == snapshots.code_version()
    assert type(consistent(path, "tavern").part) is FateState


def test_a_pickled_snapshot_read_by_fudge_as_a_gm_runs_it_never_loads_pickle(tmp_path: Path) -> None:
    """The same store through `fudge`, each command its own process: the reads and a write answer as on the
    log, and the interpreter never imports pickle (`-X importtime` lists every module a process imports)."""
    path, key = old_store(tmp_path)
    for args in (("status", "--json"), ("undo",), ("status", "--json")):
        done = fudge(*args, store=path, key=key, env={"PYTHONPROFILEIMPORTTIME": "1"}, fresh=True)  # its imports
        imported = [line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
        assert done.returncode == 0 and len(imported) > 50, done.stderr[-2000:]
        assert not {"pickle", "_pickle"} & set(imported), args
        assert "not used" not in done.stderr, done.stderr[-2000:]
    assert json.loads(done.stdout)["last_seq"] == opened(path).store.last_seq("duel")


def test_a_snapshot_after_a_fudge_point_keeps_the_events_it_voided_in_the_log(tmp_path: Path) -> None:
    """C-FP-2, A-UNDO-1: a fudge point's void takes events out of the state; its undo history holds them as
    seqs whose event is the log's (the pickled format refused such a history: the snapshot was not used).
    A fresh process reads the snapshot, then undoes the point from it: the same as a replay each time."""
    path = tmp_path / "fudge.db"
    fights = fight(path)
    exchange(fights)
    fights.execute("fight", cmd.SpendPoint(combatant="Ann", use="skill", shift=1))
    held = fights.loader.held("fight")  # the state and history the service holds after the point
    (_, voided), = [(name, items) for name, items in held.done.done[-1].keys if name == "events"]
    assert any(before not in (LOGGED, MISSING) for _, before in voided)  # the events the point voided
    snap = snapshots.pack((held.state, held.done), fights.store.fight("fight").fight_id, held.last_seq,
                          held.last_hash, fights.store.snapshot_key())
    with sqlite3.connect(path) as db:  # the snapshot at the point, as if it had fallen due there
        db.execute("UPDATE snapshots SET seq = ?, hash = ?, version = ?, body = ?, mac = ?",
                   (snap.seq, snap.hash, snap.version, snap.body, snap.mac))
    snapshots._IGNORED.clear()
    loaded = opened(path)
    found = loaded.loader.from_snapshot("fight", *loaded.store.tail("fight"))
    assert found is not None and found.snapshot_seq == held.last_seq and not snapshots._IGNORED
    (_, kept), = [(name, items) for name, items in found.done.done[-1].keys if name == "events"]
    assert [key for key, _ in kept] == [key for key, _ in voided]
    assert [before is LOGGED for _, before in kept] == [before is not MISSING for _, before in voided]
    assert found.state == replayed(path)
    undone = opened(path)
    undone.execute("fight", cmd.Undo())  # from the snapshot's history (engine.kernel.rewind), not the log
    after = undone.loader.held("fight")
    assert after.state == replayed(path) and after.state.find("Ann").fudge_points == 3
    assert after.records is None and after.done.undone  # the log was not read; a redo is known


def test_a_state_the_schema_cannot_store_fails_no_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot is a cache: if a state held a value the schema has no type for (a defect), the command is
    still appended, with a warning, and the next read folds the log."""
    path = tmp_path / "fudge.db"
    before = fight(path).store.last_seq("fight")

    def refuse(*args: Any) -> bytes:
        raise TypeError("a set where a map is stored")

    warned: list[str] = []
    monkeypatch.setattr(schema, "encode", refuse)
    monkeypatch.setattr(log, "warning", lambda event, **values: warned.append(event))
    with sqlite3.connect(path) as db:  # no snapshot: the next command's falls due
        db.execute("DELETE FROM snapshots")
    opened(path).execute("fight", cmd.Undo())
    assert warned == ["snapshot not stored"]
    monkeypatch.undo()
    assert opened(path).store.last_seq("fight") == before + 1
    assert from_cache(path) is None  # no snapshot at the undo: the fight is read from its log
    assert opened(path).state("fight") == replayed(path)
