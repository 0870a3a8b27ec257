"""Properties of random Fate sessions (hypothesis), generated dice from the fight's seed.

A session: Cyrus, Finn and two guards; exchanges with any targets, stances and
modifiers, fate points, aspect rerolls, scene ends, undo and redo, in any
order. After every command: A-REPLAY-1 the state returned equals the state
replayed from the log; A-LOG-1 a refused command writes nothing; at the end
A-VERIFY-1 the whole log re-decides to what was recorded, and (FT-TRACK-2) no
box type holds more marks than it has boxes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.demos import join, join_as
from cli.render import status_json
from engine import commands as cmd
from engine.audit import verify
from engine.errors import InputError, RuleError
from projections.fold import replay
from tests.conftest import make_fights, start

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
    for marks in state.fate_marks.values():
        for box, room in capacity.items():
            assert sum(1 for m in marks if m.box == box) <= room
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems
