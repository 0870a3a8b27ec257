"""F-STUN-1: what being stunned does to a combatant's next actions.

Reading taken: a Stun lasts from the blow to the end of the next round ("one
combat turn"), Very Stunned to the end of the second round after the blow.
In a simultaneous exchange a stunned fighter only defends: its roll counts
(with the penalty) but it cannot hit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import Combatant, FightState

STUN_PENALTY = {"stun": -1, "very_stunned": -2}
LABEL = {"stun": "Stunned", "very_stunned": "Very Stunned"}


def effect(state: FightState, who: Combatant) -> str | None:
    """The stun effect on `who` now, if any."""
    if who.stunned is None:
        return None
    kind, until = who.stunned
    return kind if state.round <= until else None


def modifiers(state: FightState, who: Combatant, role: str) -> list[ev.Modifier]:
    """Stun: -1 to defend (an exchange is defense for a stunned fighter); Very Stunned: -2 to all."""
    kind = effect(state, who)
    if kind is None or (kind == "stun" and role == "act"):
        return []
    return [ev.Modifier(name=f"{LABEL[kind].lower()} (F-STUN-1)", value=STUN_PENALTY[kind])]


def can_attack(state: FightState, who: Combatant) -> bool:
    return effect(state, who) is None


def refuse_attack(state: FightState, who: Combatant) -> None:
    kind = effect(state, who)
    if kind is not None:
        raise RuleError(f"{who.name} is {LABEL[kind]} and cannot attack this round (F-STUN-1)")


def refuse_all_out_defense(state: FightState, who: Combatant, declaration: ev.Declaration) -> None:
    kind = effect(state, who)
    if kind is not None and declaration.all_out is not None:
        raise RuleError(f"{who.name} is {LABEL[kind]}: no all-out offense or defense this round (F-STUN-1)")
