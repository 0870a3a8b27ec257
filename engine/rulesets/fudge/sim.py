"""What the simulator reads of a Fudge fight (`kernel.sim_rules`): the wound track (F-WND), a directed
attack, and a fudge point spent to stay in the fight (C-FP-2, F-DEATH-3)."""

from __future__ import annotations

from typing import Any

from fudge_combat.engine.kernel.sim_rules import SimRules
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.wounds import LEVELS, VERY_HURT
from fudge_combat.engine.rulesets.fudge.command_structs import Attack
from fudge_combat.engine.rulesets.fudge.command_structs import SpendPoint
from fudge_combat.events import structs as ev


def track_able(state: FightState, who: Combatant) -> bool:
    return who.track.can_act


def track_wound(state: FightState, who: Combatant) -> str:
    return LEVELS[who.track.level]


def track_in_force(state: FightState, who: Combatant, seq: int) -> bool:
    return any(m.seq == seq for m in who.marks)


def rounds_of(state: FightState) -> int:
    return state.round


def track_read(state: FightState, who: Combatant) -> tuple[bool, int]:
    track = who.track
    return track.can_act, track.level  # the level is its name's rank in LEVELS


def fudge_attack(state: FightState, who: Combatant, target: Combatant) -> Any:
    return Attack(attacker=who.name, target=target.name)


def fudge_save(state: FightState, who: Combatant, blow: ev.WoundMarked, seq: int) -> SpendPoint | None:
    """C-FP-2, F-DEATH-3: a blow that would take this fighter out costs a point: Still Ticking when it
    kills, Only a Scratch when it would leave him unable to act."""
    if who.fudge_points <= 0 or blow.still_ticking:
        return None
    if who.track.dead:
        return SpendPoint(combatant=who.name, use="ticking", target=seq)
    if not who.track.can_act and blow.level > 1:
        return SpendPoint(combatant=who.name, use="scratch", target=seq)
    return None


SIM = SimRules(able=track_able, wound=track_wound, levels=LEVELS, badly=LEVELS[VERY_HURT], blows=(ev.WoundMarked,),
               in_force=track_in_force, rounds=rounds_of, attack=fudge_attack, save=fudge_save, read=track_read)
