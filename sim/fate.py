"""Fate fights in the simulator (ruleset = "fate", FT): read through Fate's boxes, played with Fate's commands.

Registered only when the engine has Fate's rules (`engine.rulesets.fate.rules`). What it adds
is one entry per table: a `View` (taken out, the worst box), a `save` for the
sensible policy (a fate point, +1 to the roll, when an exchange takes the
fighter out, FT-PTS), the attack command of a turn, and the exchange and turn
paces (FT-PACE). Scenes (one roll each for the whole scene) are not simulated.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine import commands as cmd
from fudge_combat.events import models as ev
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.rulesets.fate.state import fate_of
from fudge_combat.sim import policies, rulesets
from fudge_combat.sim.driver import ATTACKS, PACES, Driver

FATE_LEVELS = ("Undamaged", "Clipped", "Hurt", "Injured", "Taken Out", "Dead")
BOX_LEVEL = {"clipped": "Clipped", "hurt": "Hurt", "injured": "Injured", "taken_out": "Taken Out"}


def marks(state: FightState, who: Combatant) -> tuple[Any, ...]:
    return tuple(fate_of(state).marks.get(who.key, ()))


def able(state: FightState, who: Combatant) -> bool:
    """FT-TRACK-3: Taken Out is out of the fight; so is a combatant the GM ruled dead."""
    return not who.track.dead and not any(m.box == "taken_out" for m in marks(state, who))


def wound(state: FightState, who: Combatant) -> str:
    if who.track.dead:
        return "Dead"
    worst = max((FATE_LEVELS.index(BOX_LEVEL[m.box]) for m in marks(state, who)), default=0)
    return FATE_LEVELS[worst]


def in_force(state: FightState, who: Combatant, seq: int) -> bool:
    return any(m.seq == seq for m in marks(state, who))


def rounds(state: FightState) -> int:
    """Turns count rounds; exchanges count the exchanges in force."""
    if state.options.pace == "turn":
        return state.round
    return sum(1 for e in state.events.values() if isinstance(e, ev.FateResolved))


def fate_save(state: FightState, who: Combatant, blow: Any, seq: int) -> cmd.SpendPoint | None:
    """FT-PTS: a fate point (+1 to the fighter's roll in the latest exchange) when it took him out."""
    if blow.box != "taken_out" or who.fudge_points <= 0:
        return None
    return cmd.SpendPoint(combatant=who.name, use="skill", shift=1)


def action(who: Combatant, target: Combatant | None, declaration: ev.Declaration | None) -> Any:
    """FT-DEF-2: a fighter who would defend all-out fights defensively (+1, inflicts nothing)."""
    defensive = declaration is not None and declaration.all_out == "defense"
    return cmd.FateAction(combatant=who.name, target=target.name if target else None, defensive=defensive)


def attack(state: FightState, who: Combatant, target: Combatant) -> Any:
    return cmd.FateAttack(attack=cmd.FateAction(combatant=who.name, target=target.name),
                          defense=cmd.FateAction(combatant=target.name))


def exchanges(driver: Driver) -> None:
    """FT-PACE exchange: everyone able declares a target and all roll at once, until one side stands."""
    fought = 0
    while not driver.over() and fought < driver.max_rounds:
        state = driver.state
        actions = [action(who, driver.policy(who).target(state, who, policies.foes(state, who)),
                          driver.policy(who).declaration(state, who)) for who in driver.able()]
        driver.must(cmd.FateExchange(actions=tuple(actions)))
        fought += 1


def turns(driver: Driver) -> None:
    """FT-PACE turn, FT-INIT: rounds of attacks in Alertness order (phase initiative: as any phase fight)."""
    from fudge_combat.engine.rulesets.fate import rules as fate

    if driver.state.options.initiative != "alertness":
        driver.alternating()
        return
    while not driver.over() and driver.state.round < driver.max_rounds:
        driver.must(cmd.FateRound())
        while not driver.over():
            actor = fate.next_actor(driver.state)
            if actor is None:
                break
            target = driver.policy(actor).target(driver.state, actor, policies.foes(driver.state, actor))
            if target is None or not driver.may(attack(driver.state, actor, target)):
                break  # a turn the rules refuse ends the round: the next one orders everyone again


if hasattr(cmd, "FateExchange") and hasattr(ev, "FateBoxMarked"):
    rulesets.VIEWS["fate"] = rulesets.View(able, wound, FATE_LEVELS, "Injured", (ev.FateBoxMarked,), in_force,
                                           rounds)
    policies.SAVES["fate"] = fate_save
    ATTACKS["fate"] = attack
    PACES["exchange"] = exchanges
    PACES["turn"] = turns
