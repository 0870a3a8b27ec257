"""Properties of random Fate sessions (hypothesis), generated dice from the fight's seed.

A session: Cyrus, Finn and two guards; exchanges with any targets, stances and
modifiers, fate points, aspect rerolls, scene ends, undo and redo, in any
order. At the turn pace (FT-INIT): rounds, attacks (most by the actor), turns
passed or held, with the same points, rerolls, scene ends, undo and redo; the
status names whose turn it is, the first in the order still to act.

After every command: A-REPLAY-1 the state returned equals the state replayed
from the log; A-LOG-1 a refused command writes nothing; at the end A-VERIFY-1
the whole log re-decides to what was recorded, and (FT-TRACK-2) no box type
holds more marks than it has boxes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fudge_combat.cli.demos import join, join_as
from fudge_combat.cli.render import status_json
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.engine.rulesets.fate.rules import is_taken_out, marks_of
from fudge_combat.engine.turns import current_actor
from fudge_combat.projections.fold import replay
from tests.conftest import make_fights, start
from fudge_combat.engine.rulesets.fate.state import fate_of

NAMES = ("Cyrus", "Finn", "Guard-A", "Guard-B")
JOINS = [join("cyrus"), join("finn"), join_as("guard", "Guard-A"), join_as("guard", "Guard-B")]

action = st.builds(
    lambda name, target, stance, mod: cmd.FateAction(
        combatant=name, target=target if target != name else None, defensive=stance == "defensive",
        non_combat=stance == "non_combat", skill="Tumbling" if stance == "non_combat" else None, mod=mod),
    st.sampled_from(NAMES), st.sampled_from(NAMES + (None,)), st.sampled_from(["attack", "attack", "defensive",
                                                                                 "non_combat"]),
    st.integers(-1, 4))
exchange = st.builds(
    lambda actions, out: cmd.FateExchange(
        actions=tuple({a.combatant: a for a in actions}.values()),
        mods=tuple(cmd.FateMod(combatant=a, kind="outnumbering", against=b) for a, b in out)),
    st.lists(action, min_size=2, max_size=4),
    st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=2))
command = st.one_of(
    exchange, exchange, exchange,
    st.builds(lambda n: cmd.SpendPoint(combatant=n, use="skill", shift=1), st.sampled_from(NAMES)),
    st.builds(lambda n, a: cmd.CheckAspect(combatant=n, aspect=a), st.sampled_from(("Cyrus", "Finn")),
              st.sampled_from(("Brawler", "Underhanded"))),
    st.just(cmd.EndScene()), st.just(cmd.Undo()), st.just(cmd.Redo()),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(command, min_size=3, max_size=12))
def test_FT_PTS_FT_TRACK_2_random_sessions_replay_verify_and_refuse_cleanly(commands: list[Any]) -> None:
    """FT-PTS, FT-TRACK-2, FT-PACE with A-REPLAY-1, A-LOG-1, A-VERIFY-1 over random sessions."""
    fights = make_fights()
    start(fights, "fight", "fate")
    for joined in JOINS:
        fights.execute("fight", joined)
    for command in commands:
        before = fights.store.last_seq("fight")
        try:
            outcome = fights.execute("fight", command)
        except (RuleError, InputError):
            assert fights.store.last_seq("fight") == before
            continue
        assert status_json(outcome.state) == status_json(replay(fights.log("fight")))
    state = fights.state("fight")
    capacity = dict(zip(("clipped", "hurt", "injured", "taken_out"), (*state.options.fate_boxes, 1)))
    for marks in fate_of(state).marks.values():
        for box, room in capacity.items():
            assert sum(1 for m in marks if m.box == box) <= room
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems



def actor_or(state: Any, name: str | None) -> str:
    """`name`, or (None) whoever has the turn (Cyrus when nobody has), so that most attacks drawn are in turn."""
    if name is not None:
        return name
    who = current_actor(state)
    return who.name if who is not None else NAMES[0]


def blow(state: Any, who: str | None, foe: int, defensive: bool) -> cmd.FateAttack:
    """An attack by `who` (None: the actor) on the `foe`-th of the others."""
    attacker = actor_or(state, who)
    target = [name for name in NAMES if name != attacker][foe]
    return cmd.FateAttack(attack=cmd.FateAction(combatant=attacker, target=target),
                          defense=cmd.FateAction(combatant=target, defensive=defensive))


# Each step is a function of the fight as it stands: a command, most often the actor's.
attack = st.builds(lambda who, foe, defensive: lambda state: blow(state, who, foe, defensive),
                   st.sampled_from((None, None, None) + NAMES), st.integers(0, len(NAMES) - 2), st.booleans())
turn_command = st.one_of(
    attack, attack, attack, st.just(lambda state: cmd.FateRound()),
    st.builds(lambda who, hold: lambda state: cmd.FatePass(combatant=who, hold=hold),
              st.sampled_from((None, None, None) + NAMES), st.booleans()),
    st.builds(lambda n: lambda state: cmd.SpendPoint(combatant=n, use="skill", shift=1), st.sampled_from(NAMES)),
    st.builds(lambda n, a: lambda state: cmd.CheckAspect(combatant=n, aspect=a), st.sampled_from(("Cyrus", "Finn")),
              st.sampled_from(("Brawler", "Underhanded"))),
    st.just(lambda state: cmd.EndScene()), st.just(lambda state: cmd.Undo()), st.just(lambda state: cmd.Redo()),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(turn_command, min_size=3, max_size=16))
def test_FT_INIT_random_turn_sessions_replay_verify_and_name_the_turn(steps: list[Any]) -> None:
    """FT-INIT, FT-PTS with A-REPLAY-1, A-LOG-1, A-VERIFY-1: turns passed, held and taken, points, undo and redo
    in any order. After each command the state equals the replayed log's; the status's turn is the first in the
    round's order who has not had his turn and is not Taken Out; the order keeps everyone once."""
    fights = make_fights()
    start(fights, "fight", "fate", pace="turn", initiative="alertness")
    for joined in JOINS:
        fights.execute("fight", joined)
    fights.execute("fight", cmd.FateRound())
    for step in steps:
        before = fights.store.last_seq("fight")
        try:
            outcome = fights.execute("fight", step(fights.state("fight")))
        except (RuleError, InputError):
            assert fights.store.last_seq("fight") == before
            continue
        state = outcome.state
        assert status_json(state) == status_json(replay(fights.log("fight")))
        waiting = [state.combatants[key].name for key in fate_of(state).order if key not in fate_of(state).acted
                   and not is_taken_out(marks_of(state, state.combatants[key]))]
        assert status_json(state)["turn"] == (waiting[0] if waiting else None)
        assert sorted(fate_of(state).order) == sorted(set(fate_of(state).order))
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems
