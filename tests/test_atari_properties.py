"""Properties of random Atari Isev sessions (hypothesis), generated dice from the fight's seed.

A session: Max, the Cutthroat and the Duellist; declarations, rounds, turns,
attacks with any avoidance and position, willpower, heroic avoidance, fudge
points, undo and redo, in any order. After every command:
A-REPLAY-1 (with AI-INIT-2, AI-ATK-1): the state the command returned equals
the state replayed from the log; A-LOG-1: a refused command writes nothing;
A-VERIFY-1: at the end the whole log re-decides to what was recorded.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from fudge_combat.events.records import json_form
from fudge_combat.cli.render import status_json
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.events.structs import Declaration
from fudge_combat.projections.fold import replay
from tests.atari_helpers import SHEETS
from tests.conftest import make_fights, start
from fudge_combat.engine.kernel.sheets import parse_sheet

NAMES = ("Max", "Cutthroat", "Duellist")
JOINS = [cmd.Join(sheet=json_form(parse_sheet((SHEETS / f"{n.lower()}.toml").read_text(), n)),
                  source=f"{n.lower()}.toml") for n in NAMES]

who = st.sampled_from(NAMES)
pair = st.permutations(NAMES).map(lambda names: names[:2])
declaration = st.one_of(
    st.builds(lambda p: Declaration(posture=p), st.integers(-2, 2)),
    st.builds(lambda w: Declaration(wait=w), st.integers(-2, 2)),
    st.just(Declaration(two_attacks=True)),
    st.sampled_from([Declaration(two_avoidances=k) for k in ("dodge-dodge", "parry-parry", "dodge-parry")]),
    st.just(Declaration(sweep=True)),
)
attack = st.builds(
    lambda p, avoid, pos, back: cmd.Attack(attacker=p[0], target=p[1], avoid=avoid, position=pos, target_back=back),
    pair, st.sampled_from([None, None, "dodge", "parry", "dodge-parry", "none"]),
    st.sampled_from([(), (), ("behind",), ("prone",)]), st.booleans())
# "*": whoever has the turn (so most attacks are in order and resolve), against the named target
in_turn = st.builds(lambda a, t: replace(a, attacker="*", target=t), attack, who)
command = st.one_of(
    st.just(cmd.StartRound()), st.just(cmd.NextTurn()), st.just(cmd.NextTurn()), attack, in_turn, in_turn, in_turn,
    st.builds(lambda n, d: cmd.Declare(combatant=n, declaration=d), who, declaration),
    st.builds(lambda n: cmd.Willpower(combatant=n), who),
    st.builds(lambda n: cmd.HeroicAvoidance(combatant=n), who),
    st.builds(lambda n, u: cmd.SpendPoint(combatant=n, use=u, shift=1 if u == "skill" else None),
              who, st.sampled_from(["skill", "luck", "scratch"])),
    st.just(cmd.Undo()), st.just(cmd.Redo()),
)


# a round as a GM plays it: the initiative roll, then turns and attacks in order
round_block = st.tuples(in_turn, in_turn, in_turn, who).map(
    lambda a: [cmd.StartRound(), cmd.NextTurn(), a[0], cmd.NextTurn(), a[1], cmd.NextTurn(), a[2]])
session = st.lists(st.one_of(round_block, command.map(lambda c: [c])), min_size=3, max_size=10).map(
    lambda blocks: [c for block in blocks for c in block])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session)
def test_AI_INIT_2_AI_ATK_1_random_sessions_replay_verify_and_refuse_cleanly(commands: list[Any]) -> None:
    """AI-INIT-2, AI-ATK-1 with A-REPLAY-1, A-LOG-1, A-VERIFY-1 over random sessions."""
    fights = make_fights()
    start(fights, "fight", "atari-isev")
    for join in JOINS:
        fights.execute("fight", join)
    for command in commands:
        state = fights.state("fight")
        if isinstance(command, cmd.Attack) and command.attacker == "*":
            actor = state.combatants[state.turn.combatant].name if state.turn else "Max"
            target = command.target if command.target != actor else NAMES[(NAMES.index(actor) + 1) % 3]
            command = replace(command, attacker=actor, target=target)
        before = fights.store.last_seq("fight")
        try:
            outcome = fights.execute("fight", command)
        except (RuleError, InputError):
            assert fights.store.last_seq("fight") == before
            continue
        assert status_json(outcome.state) == status_json(replay(fights.log("fight")))
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems
