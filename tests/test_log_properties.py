"""Properties of the log over random command sequences (hypothesis).

A-REPLAY-1: the live state equals the state replayed from the store.
A-UNDO-1: undo then redo changes nothing.
A-BRANCH-1: a branch at N has exactly the parent's effective state as of N.
A-VERIFY-1, A-LOG-1: no sequence of commands corrupts the hash chain; a refused command writes nothing.
"""

from __future__ import annotations

import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.render import status_json
from engine import commands as cmd
from engine.audit import verify
from engine.errors import RuleError
from events.models import Declaration
from store.sqlite import SqliteStore
from tests.conftest import make_fights, sheet, start

NAMES = ("Ann", "Bob", "Cid")

command = st.one_of(
    st.builds(lambda a, b: ("exchange", cmd.Exchange(first=a, second=b)), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.builds(lambda a, b: ("attack", cmd.Attack(attacker=a, target=b)), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.builds(lambda a, d: ("roll", cmd.RollTrait(combatant=a, trait="Sword", difficulty=d)),
              st.sampled_from(NAMES), st.integers(-2, 3)),
    st.builds(lambda a, o: ("declare", cmd.Declare(combatant=a, declaration=Declaration(all_out=o))),
              st.sampled_from(NAMES), st.sampled_from(["offense", "defense", None])),
    st.builds(lambda a, u, s: ("spend", cmd.SpendPoint(combatant=a, use=u, shift=s)), st.sampled_from(NAMES),
              st.sampled_from(["panache", "skill", "luck", "scratch", "ticking"]), st.sampled_from([1, -1])),
    st.just(("undo", cmd.Undo())),
    st.just(("redo", cmd.Redo())),
)
script = st.tuples(st.binary(min_size=32, max_size=32), st.lists(command, min_size=1, max_size=14))


def fight(seed, store=None):
    """A three-fighter fight whose generated dice come from a hypothesis-chosen seed."""
    fights = make_fights(store)
    fights.random_bytes = lambda n: (seed * 2)[:n]
    name = start(fights, "prop", damage_roll="4dF_limited")
    for who, points in zip(NAMES, (2, 1, 0)):
        fights.execute(name, cmd.Join(sheet=sheet(who, skills={"Sword": "Good"}, attack="Sword", weapon=3,
                                                  armor=1, fudge_points=points), source="t"))
    return fights, name


def run(fights, name, commands):
    """Apply each command; a refused one must leave the store exactly as it was."""
    live = None
    for _, command in commands:
        before = fights.store.read(name)
        try:
            live = fights.execute(name, command)
        except RuleError:
            assert fights.store.read(name) == before
    return live


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(script)
def test_A_REPLAY_1_live_state_equals_replayed_state(steps):
    fights, name = fight(steps[0])
    live = run(fights, name, steps[1])
    replayed = fights.state(name)
    if live is not None:
        assert status_json(live.state) == status_json(replayed)
    assert replayed.last_seq == fights.store.last_seq(name)


@SETTINGS
@given(script)
def test_A_UNDO_1_undo_then_redo_changes_nothing(steps):
    fights, name = fight(steps[0])
    run(fights, name, steps[1])
    before = status_json(fights.state(name))
    try:
        fights.execute(name, cmd.Undo())
    except RuleError:
        return  # nothing to undo: the fight is only its joins
    fights.execute(name, cmd.Redo())
    after = status_json(fights.state(name))
    before.pop("last_seq"), after.pop("last_seq")
    assert after == before


@SETTINGS
@given(script, st.integers(1, 200))
def test_A_BRANCH_1_branch_has_the_parents_state_at_the_fork(steps, where):
    fights, name = fight(steps[0])
    run(fights, name, steps[1])
    rows = fights.store.read(name)
    starts = [r.seq for i, r in enumerate(rows) if i + 1 == len(rows) or rows[i + 1].command != r.command]
    fork = starts[where % len(starts)]
    fights.branch(name, "branch", fork)
    assert fights.store.read("branch")[:fork] == rows[:fork]  # a prefix of the parent's history
    parent = status_json(fights.state(name, as_of=fork))
    child = status_json(fights.state("branch"))
    for view in (parent, child):
        view.pop("fight"), view.pop("last_seq")
    assert child == parent


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(script)
def test_A_VERIFY_1_A_LOG_1_no_command_sequence_corrupts_the_chain(steps):
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(f"{folder}/fudge.db")
        fights, name = fight(steps[0], store)
        run(fights, name, steps[1])
        report = verify(store.read(name))
        assert report.ok, report.problems
        store.close()
