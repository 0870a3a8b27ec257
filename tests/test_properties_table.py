"""The log's properties over random sessions that use the whole table: melee against
several foes, shots, stun and pulled punches, healing and rest, phase initiative with
bartering, tie orders, held actions and spare dice (hypothesis).

A-REPLAY-1: after every command the live state equals the state replayed from the log.
A-LOG-1:    a refused command writes nothing.
A-UNDO-1:   undo then redo changes nothing.
A-VERIFY-1: the log of any session verifies (hash chain and rules re-check).

Sessions are played by `tests.test_properties.play`, with every roll typed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fudge_combat.cli.render import status_json
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.wounds import LEVEL_BY_NAME
from tests.conftest import make_fights, start
from fudge_combat.projections.fold import replay
from fudge_combat.engine.kernel.state import FightState
from tests.test_properties import (NAMES, SETTINGS, Session, Step, dice_pool, live_equals_replayed, opening, play,
                                   typing_, without)

who = st.sampled_from(NAMES)
pair = st.permutations(NAMES).map(lambda names: names[:2])
level = st.sampled_from(list(LEVEL_BY_NAME.values())[1:5])

# --- a simultaneous Fudge fight with the wound and ranged options on ---------------------

blows = st.one_of(
    st.builds(lambda p, stun, head: cmd.Exchange(first=p[0], second=p[1],
                                                 stun=(p[0],) if stun else (), head=(p[1],) if head else ()),
              pair, st.booleans(), st.booleans()),
    st.builds(lambda p, lvl: cmd.Exchange(first=p[0], second=p[1], pull=((p[0], lvl),)), pair, level),
    st.builds(lambda p, m: cmd.Exchange(first=p[0], second=p[1], magic=((p[0], m),)), pair, st.sampled_from([-1, 1])),
    st.builds(lambda p, rd: cmd.Exchange(first=p[0], second=p[1], targeting=cmd.Targeting(called="sword arm", called_rd=rd)),
              pair, st.integers(2, 3)),
)
melee = st.builds(lambda lone, target: cmd.Melee(lone=lone, foes=tuple(n for n in NAMES if n != lone),
                                                 target=target if target != lone else None),
                  who, who)
shots = st.builds(lambda p, aware, back, difficulty: cmd.Shoot(shooter=p[0], target=p[1], aware=aware and not back,
                                                               weapon="thrown" if aware and not back else None,
                                                               shoot_back=back, difficulty=difficulty),
                  pair, st.booleans(), st.booleans(), st.integers(-2, 2))
aftermath = st.one_of(
    st.builds(lambda p: cmd.Heal(patient=p[0], healer=p[1]), pair),
    st.builds(lambda names, weeks: cmd.Rest(combatants=names, weeks=weeks),
              st.sampled_from([(), ("Ann",), ("Bob", "Cid")]), st.integers(0, 2)),
    st.just(cmd.EndBattle()),
)
spend = st.builds(lambda a, u, s: cmd.SpendPoint(combatant=a, use=u, shift=s if u == "skill" else None),
                  who, st.sampled_from(["skill", "luck", "scratch", "ticking"]), st.sampled_from([1, -1]))
wide_command = st.one_of(blows, blows, blows, melee, shots, shots, aftermath, spend,
                         st.just(cmd.Undo()), st.just(cmd.Redo()))
wide_session = st.builds(lambda names, steps: opening(names) + steps,
                         st.sampled_from([NAMES]),
                         st.lists(st.builds(Step, wide_command, dice_pool, typing_), min_size=3, max_size=14))

# --- a Crunch Time phase fight ------------------------------------------------------------

@dataclass(frozen=True)
class ActorActs:
    """The current actor attacks, shoots, or spends on his last roll: resolved when the step is played."""

    pick: int
    kind: str = "attack"

    def command(self, state: FightState) -> Any:
        actor = state.combatants[state.turn.combatant].name if state.turn else "Ann"
        others = [n for n in NAMES if n.lower() != actor.lower()]
        target = others[self.pick % len(others)]
        if self.kind == "shoot":
            return cmd.Shoot(shooter=actor, target=target, aware=True, weapon="propelled")
        if self.kind in ("spare", "skill", "luck"):
            return cmd.SpendPoint(combatant=actor, use=self.kind, shift=1 if self.kind == "skill" else None)
        return cmd.Attack(attacker=actor, target=target)


phase_command = st.one_of(
    st.builds(lambda s: cmd.StartRound(surprised=s), st.sampled_from([(), ("Bob",)])),
    st.builds(lambda n, t, a, d: cmd.Barter(combatant=n, trade=t, alter=a, direction=d),
              who, st.integers(0, 3), st.integers(0, 3), st.sampled_from([1, -1])),
    st.just(cmd.NextTurn()),
    st.builds(lambda p: cmd.Attack(attacker=p[0], target=p[1]), pair),
    st.builds(lambda p: cmd.OrderTies(order=p), pair),
    st.just(cmd.HoldAction()),
    st.builds(lambda n, free: cmd.RollTrait(combatant=n, trait="Sword", difficulty=1, free=free), who, st.booleans()),
    st.just(cmd.Undo()), st.just(cmd.Redo()),
)
# A turn: the next actor attacks or shoots, and may then spend on that roll.
turn = st.builds(lambda pick, kind, spend: [cmd.NextTurn(), ActorActs(pick, kind)] + ([ActorActs(0, spend)] if spend else []),
                 st.integers(0, 1), st.sampled_from(["attack", "attack", "shoot"]),
                 st.sampled_from([None, None, "spare", "skill", "luck"]))
phase_moves = st.one_of(phase_command.map(lambda one: [one]), turn, turn)
phase_session = st.builds(
    lambda moves, pools: opening(NAMES) + [Step(c, p) for c, p in zip(
        [cmd.StartRound()] + [c for m in moves for c in m], pools)],
    st.lists(phase_moves, min_size=4, max_size=10), st.lists(dice_pool, min_size=30, max_size=30))


def play_resolving(session: Session, steps: list[Step], after_each: Any = None) -> Session:
    """`play`, one step at a time, turning each ActorActs into the command it means now."""
    for item in steps:
        if isinstance(item.command, ActorActs):
            item = replace(item, command=item.command.command(session.state))
        play(session, [item], after_each)
    return session


def wide() -> Session:
    fights = make_fights()
    name = start(fights, "prop", dice="entered", damage_roll="4dF_free", death_three_levels=True,
                 death_needs_incapacitated=True, head_blow_knockout=True)
    return Session(fights, name, fights.state(name))


def phases() -> Session:
    fights = make_fights()
    name = start(fights, "prop", rules="fudge-phases", dice="entered", spares_as_points=True,
                 crunch_downgrades=True)
    return Session(fights, name, fights.state(name))


def undo_redo_changes_nothing(session: Session, item: Step, outcome: Any) -> None:
    if isinstance(item.command, (cmd.Undo, cmd.Redo)):
        return
    fights, name = session.fights, session.name
    before = status_json(outcome.state)
    fights.execute(name, cmd.Undo())
    after = fights.execute(name, cmd.Redo()).state
    assert without(status_json(after), "last_seq") == without(before, "last_seq")
    assert after == replay(fights.log(name))
    session.state = after


@SETTINGS
@given(wide_session)
def test_A_REPLAY_1_A_LOG_1_A_VERIFY_1_melee_shots_stun_and_healing_sessions(steps: list[Step]) -> None:
    """A-REPLAY-1, A-LOG-1, A-VERIFY-1 with F-MULTI, F-RNG, F-STUN, F-HEAL, F-DEATH in play."""
    session = play(wide(), steps, live_equals_replayed)
    assert verify(session.fights.store.read(session.name)).ok


@SETTINGS
@given(phase_session)
def test_A_REPLAY_1_A_LOG_1_A_VERIFY_1_phase_initiative_sessions(steps: list[Step]) -> None:
    """A-REPLAY-1, A-LOG-1, A-VERIFY-1 with PH-1, PH-2, PH-3, PH-4, PH-5, CT-BARTER, CT-SPARE in play."""
    session = play_resolving(phases(), steps, live_equals_replayed)
    assert verify(session.fights.store.read(session.name)).ok


@SETTINGS
@given(st.one_of(wide_session.map(lambda s: (wide, s)), phase_session.map(lambda s: (phases, s))))
def test_A_UNDO_1_undo_then_redo_changes_nothing_at_the_whole_table(case: Any) -> None:
    """A-UNDO-1 after every applied command of either kind of session."""
    setup, steps = case
    session = play_resolving(setup(), steps, undo_redo_changes_nothing)
    assert verify(session.fights.store.read(session.name)).ok


def test_the_sessions_reach_the_commands_they_are_meant_to() -> None:
    """The strategies are not vacuous: a fixed session applies melee, shots, heals and phase turns."""
    wide_steps = opening(NAMES) + [
        Step(cmd.Melee(lone="Ann", foes=("Bob", "Cid")), {"ann": [(1, 1, 0, 0)] * 2, "bob": [(0, 0, 0, 0)] * 2,
                                                           "cid": [(-1, 0, 0, 0)] * 2}),
        Step(cmd.Shoot(shooter="Bob", target="Cid", difficulty=0), {"bob": [(1, 1, 1, 0)] * 2}),
        Step(cmd.Heal(patient="Cid", healer="Ann"), {"ann": [(1, 1, 1, 1)] * 2}),
        Step(cmd.EndBattle(), {}),
    ]
    session = play(wide(), wide_steps, live_equals_replayed)
    assert [type(s.command).__name__ for s, _ in session.applied][-4:] == ["Melee", "Shoot", "Heal", "EndBattle"]
    phase_steps = opening(NAMES) + [
        Step(cmd.StartRound(), {"ann": [(1, 1, 0, -1)], "bob": [(1, 0, 0, -1)], "cid": [(0, 0, -1, -1)]}),
        Step(cmd.Barter(combatant="Ann", trade=0, alter=1, direction=1), {}),
        Step(cmd.NextTurn(), {}),
        Step(cmd.Attack(attacker="Ann", target="Cid"), {"ann": [(0, 0, 0, 0)] * 2, "cid": [(0, 0, 0, 0)] * 2}),
    ]
    session = play(phases(), phase_steps, live_equals_replayed)
    assert session.refused == 0 and len(session.applied) == len(phase_steps)
    assert verify(session.fights.store.read(session.name)).ok
