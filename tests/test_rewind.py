"""A fight that grows without its commands growing (engine.kernel.rewind, engine.kernel.pmap.EventMap, the streamed
replay, the snapshot's undo history): each answer the fast paths give is the answer of a replay.

A-REPLAY-1: after every command of a random session (tests/test_properties.py's sessions: joins,
            exchanges, rolls, fudge points, rounds, undo, redo), the state the service holds equals
            `replay` of the log, and a fresh service on the same SQLite file (its snapshot, the undo
            history it carries, the commands folded after it) reads the same state.
A-UNDO-1:   the command the undo history would void, and the undo it would cancel on a redo, are
            the ones `engine.kernel.history.undo_target` and `redo_target` find by reading the whole log;
            an undo then a redo gives back the same state.
C-FP-2:     a fudge point still finds the latest roll and the roll's events when the state's events
            stayed in the log (a snapshot keeps only their seqs).
F-DEATH-2:  the round a re-resolved blow belongs to is found by bisection over the round starts.
"""

from __future__ import annotations

import pickle
import tempfile
from typing import Any
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel import history
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.harm import round_start_at
from fudge_combat.engine.kernel.pmap import LOGGED, MISSING, EventMap, PMap
from fudge_combat.engine.kernel.rewind import UNKNOWN
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from fudge_combat.store import snapshots
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, sheet, start
from tests.test_properties import new_session, play, session

SLOW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.data_too_large])


def agrees_with_the_log(fights: Fights, name: str) -> None:
    """The undo history's answers are the log's (A-UNDO-1), when it claims to know them."""
    log = fights.log(name)
    gone = history.voided(log)
    done = fights.loader.load(name).done
    if done.knows_undo():
        try:
            expected = history.undo_target(log, gone)
        except RuleError:
            assert not done.done, "the history names a command to undo where the log has none"
        else:
            assert done.done and (done.done[-1].command, done.done[-1].first) == expected
    if done.knows_redo():
        try:
            undo, _ = history.redo_target(log, gone)
        except RuleError:
            assert not done.undone, "the history names an undo to cancel where the log has none"
        else:
            assert done.undone and done.undone[-1][0] == undo


@SLOW
@given(session)
def test_A_REPLAY_1_A_UNDO_1_fast_paths_give_the_replayed_state_and_the_logs_targets(steps):
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "fudge.db")
        try:
            def check(session, item, outcome):
                log = session.fights.log(session.name)
                assert outcome.state == replay(log)
                agrees_with_the_log(session.fights, session.name)
                fresh = Fights(SqliteStore(Path(folder) / "fudge.db"))  # the next process: snapshot and history
                assert fresh.state(session.name) == outcome.state
                agrees_with_the_log(fresh, session.name)
                fresh.store.close()

            session = play(new_session(store), steps, after_each=check)
            fights, name = session.fights, session.name
            before = fights.state(name)
            try:
                fights.execute(name, cmd.Undo())
            except RuleError:
                return
            fights.execute(name, cmd.Redo())
            after = fights.state(name)
            assert after.last_seq == before.last_seq + 2
            assert FightState.__eq__(after, replay(fights.log(name)))
            for field in FightState.__struct_fields__:
                if field != "last_seq":
                    assert getattr(after, field) == getattr(before, field), field
        finally:
            store.close()


def test_C_FP_2_a_point_spent_on_a_roll_whose_events_stayed_in_the_log(tmp_path: Path) -> None:
    """The snapshot keeps the actions' events as seqs only; the point still reads the roll it changes."""
    path = tmp_path / "fudge.db"
    fights = Fights(SqliteStore(path))
    start(fights, "fight")
    for name in ("Ann", "Bob"):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword",
                                                     weapon=2, fudge_points=3), source="test"))
    rolled = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("ann=----"))
    for _ in range(35):  # a snapshot is written every 32 events or so: one falls after the roll
        fights.execute("fight", cmd.StartRound())
    later = Fights(SqliteStore(path))  # a fresh process: the state from the snapshot
    state = later.state("fight")
    raw = state.events._data()
    assert raw[rolled.records[0].seq] is LOGGED, "the snapshot left the roll's event in the log"
    spent = later.execute("fight", cmd.SpendPoint(combatant="Ann", use="skill", shift=1))
    assert spent.records[0].event.target == rolled.records[0].seq  # found through FightState.index
    assert later.state("fight") == replay(later.log("fight"))


def test_a_snapshot_holds_no_event_of_an_action(tmp_path: Path) -> None:
    """Format 2: the snapshot's body names the events' seqs only, whatever the fight's length."""
    fights = Fights(SqliteStore(tmp_path / "fudge.db"))
    start(fights, "fight")
    for name in ("Ann", "Bob"):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword",
                                                     weapon=2, fudge_points=9), source="test"))
    for _ in range(40):
        fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=1), dice("ann=+0-0"))
    state = fights.state("fight")
    snap = snapshots.pack((state, UNKNOWN), "id", 1, "h", b"k" * 32)
    assert b"dice_rolled" not in snap.body  # an event would carry its type
    found, _ = snapshots.decode(snap.body)
    assert set(found.events) == set(state.events) and len(state.events) >= 40
    assert all(value is LOGGED for value in found.events._data().values())


def as_stored(change: Any) -> Any:
    """A change as a snapshot keeps it: an event the change put back is the log's (LOGGED)."""
    keys = tuple((name, tuple((key, before if name != "events" or before is MISSING else LOGGED)
                              for key, before in items)) for name, items in change.keys)
    return (change.command, change.first, change.values, keys)


@SLOW
@given(session)
def test_a_snapshot_holds_the_state_and_undo_history_the_service_held(steps):
    """After every command of a random fight (fudge points' voids, undos and redos among them), the
    service's state and undo history come back from a snapshot's body as they were: every field of the
    state, each persistent map still persistent, each change of the history with its values and keys."""
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "fudge.db")
        try:
            def check(session, item, outcome):
                held = session.fights.loader.held(session.name)
                state, done = snapshots.decode(snapshots.pack((held.state, held.done), "id", 1, "h",
                                                              b"k" * 32).body)
                state.events.read_from(held.state.events.__getitem__)
                assert state == held.state
                for field in FightState.__struct_fields__:
                    assert type(getattr(state, field)) is type(getattr(held.state, field)), field
                assert [as_stored(c) for c in done.done] == [as_stored(c) for c in held.done.done]
                assert [(u, as_stored(c)) for u, c in done.undone] == [(u, as_stored(c)) for u, c in held.done.undone]
                assert done.exact == held.done.exact

            play(new_session(store), steps, after_each=check)
        finally:
            store.close()


def test_an_event_map_reads_what_it_left_in_the_log() -> None:
    reads = []
    events = EventMap(logged=(3, 5))
    events.read_from(lambda seq: reads.append(seq) or f"event {seq}")
    assert events[5] == "event 5" and events.get(3) == "event 3" and events.get(4) is None
    assert events[5] == "event 5" and reads == [5, 3], "a value read is kept"
    newer = events.set(7, "seven")
    assert dict(newer.items()) == {3: "event 3", 5: "event 5", 7: "seven"} and 7 not in events
    assert pickle.loads(pickle.dumps(newer)) == newer  # a plain pickle keeps the values


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3) | st.none()), max_size=30))
def test_a_pmap_tells_its_changes_since_an_older_version(operations):
    older = PMap({0: 0, 1: 1})
    newer = older
    for key, value in operations:
        newer = newer.delete(key) if value is None else newer.set(key, value)
    changes = newer.changes_since(older)
    assert changes is not None
    # putting back the values the changes name gives the older version again
    back = newer
    for key, value in changes.items():
        back = back.delete(key) if value is MISSING else back.set(key, value)
    assert dict(back.items()) == dict(older.items())
    assert PMap({9: 9}).changes_since(older) is None  # not a version of it


@given(st.lists(st.integers(1, 500), unique=True).map(sorted), st.integers(0, 600))
def test_F_DEATH_2_the_round_a_blow_belongs_to_by_bisection(starts, action):
    indexed = PMap(dict(enumerate(starts)))
    earlier = [seq for seq in starts if seq <= action]
    assert round_start_at(indexed, action) == (earlier[-1] if earlier else 0)
