"""Who has the turn, and who still fights: the two questions every view of a running fight asks
(the board, the consequences of a command, the odds before the dice, `fudge play`'s `a TARGET`)."""

from __future__ import annotations

from fudge_combat.engine.decide import decider_of
from fudge_combat.engine.kernel.state import Combatant, FightState


def current_actor(state: FightState) -> Combatant | None:
    """Who has the turn: the actor `fudge next` gave it to (phases, rolled initiative), or the next in
    Fate's Alertness order (FT-INIT); None when the rules have no turns or none is given yet."""
    if state.turn is not None:
        return state.combatants.get(state.turn.combatant)
    if state.options.initiative == "alertness" and state.fate_order:
        from fudge_combat.engine.rulesets.fate.rules import next_actor

        return next_actor(state)
    return None


def still_fights(state: FightState, who: Combatant) -> bool:
    """`who` is still in the fight as the fight's ruleset reads it: able to act (F-WND-1, F-STUN-1,
    F-WND-6), or in Fate not Taken Out (FT-TRACK-3)."""
    return decider_of(state).still_fights(state, who)
