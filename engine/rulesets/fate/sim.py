"""What the simulator reads of a Fate fight (`kernel.sim_rules`): Fate's boxes (FT-TRACK) instead of the
wound track, Fate's attack on a turn, a fate point spent when an exchange took a fighter out (FT-PTS), and
the commands of its two paces (FT-PACE): an exchange where everyone acts at once, and rounds in Alertness
order (FT-INIT). Scenes (one roll each for the whole scene) are not simulated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fudge_combat.engine.kernel.sim_rules import SimRules
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.rulesets.fate.command_structs import FateAction, FateAttack, FateExchange, FateRound
from fudge_combat.engine.rulesets.fate.state import fate_of
from fudge_combat.engine.rulesets.fudge.command_structs import SpendPoint
from fudge_combat.events import structs as ev

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


def fate_save(state: FightState, who: Combatant, blow: Any, seq: int) -> SpendPoint | None:
    """FT-PTS: a fate point (+1 to the fighter's roll in the latest exchange) when it took him out."""
    if blow.box != "taken_out" or who.fudge_points <= 0:
        return None
    return SpendPoint(combatant=who.name, use="skill", shift=1)


def attack(state: FightState, who: Combatant, target: Combatant) -> Any:
    return FateAttack(attack=FateAction(combatant=who.name, target=target.name),
                      defense=FateAction(combatant=target.name))


def action(who: Combatant, target: Combatant | None, declaration: ev.Declaration | None) -> FateAction:
    """FT-DEF-2: a fighter who would defend all-out fights defensively (+1, inflicts nothing)."""
    defensive = declaration is not None and declaration.all_out == "defense"
    return FateAction(combatant=who.name, target=target.name if target else None, defensive=defensive)


def exchange(state: FightState, chosen: Sequence[tuple[Combatant, Combatant | None, Any]]) -> FateExchange:
    """FT-PACE exchange: everyone able declares a target and all roll at once."""
    return FateExchange(actions=tuple(action(who, target, declaration) for who, target, declaration in chosen))


def new_round(state: FightState) -> FateRound | None:
    """FT-INIT: a round of turns in Alertness order (None under phase initiative: turns as any phase fight's)."""
    return FateRound() if state.options.initiative == "alertness" else None


def next_actor(state: FightState) -> Combatant | None:
    """FT-INIT: whose turn it is in this round's order."""
    from fudge_combat.engine.rulesets.fate.rules import next_actor as first_to_act

    return first_to_act(state)


SIM = SimRules(able=able, wound=wound, levels=FATE_LEVELS, badly="Injured", blows=(ev.FateBoxMarked,),
               in_force=in_force, rounds=rounds, attack=attack, save=fate_save, exchange=exchange,
               new_round=new_round, next_actor=next_actor)
