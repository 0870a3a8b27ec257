"""Rolls: a recorded roll of the dice, the outcome of a trait roll, and the damage dice of a blow.

Part of the shared toolkit every ruleset builds on (it imports no ruleset).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import FightState

DamageDice = Callable[..., ev.DiceRolled]  # (attacker, count=4, sides=None): a recorded damage roll


def roll_event(action: int, roller: str, purpose: str, count: int, dice: Dice,
               sides: int | None = None) -> ev.DiceRolled:
    rolled = dice.roll(roller, count, purpose) if sides is None else dice.roll(roller, count, purpose, sides=sides)
    return ev.DiceRolled(action=action, roller=roller, purpose=purpose, faces=rolled.faces,
                         source=rolled.source, stream=rolled.stream, draw=rolled.draw, sides=sides,
                         substitute=rolled.substitute)


def next_action(state: FightState) -> int:
    return state.last_seq + 1


def settle_roll(name: str, trait: str, level: int, roll: int, mods: tuple[ev.Modifier, ...],
                resolved: dict[str, Any], advantage: bool, action: int, **extra: Any) -> ev.ActionResolved:
    """C-ACT-2, C-ACT-3: success and margin of an unopposed or opposed roll."""
    result = level + roll + sum(m.value for m in mods)
    if resolved.get("opponent") is not None:
        foe_result = (resolved["opponent_level"] + resolved["opponent_roll"]
                      + sum(m.value for m in resolved["opponent_modifiers"]))
        margin = result - foe_result
        return ev.ActionResolved(action=action, combatant=name, trait=trait, level=level, roll=roll,
                                 modifiers=mods, result=result, margin=margin, success=margin > 0,
                                 opponent_result=foe_result, advantage=advantage, **resolved, **extra)
    margin = result - resolved["difficulty"]
    success = extra.pop("automatic", False) or margin >= 0
    return ev.ActionResolved(action=action, combatant=name, trait=trait, level=level, roll=roll,
                             modifiers=mods, result=result, margin=margin, success=success,
                             advantage=advantage, automatic=success and margin < 0, **resolved, **extra)


def advantage_events(state: FightState, outcome: ev.ActionResolved,
                     earlier: ev.AdvantageGained | None = None) -> list[ev.Event]:
    """F-MOD-7: a successful roll for advantage gives the foe a penalty next round.

    `earlier` is the advantage a re-resolved roll had won: the same foe and round stand.
    """
    if not (outcome.advantage and outcome.success):
        return []
    foe_key = earlier.over.lower() if earlier else state.advantage_open.get(outcome.combatant.lower())
    if foe_key is None:
        return []
    return [ev.AdvantageGained(combatant=outcome.combatant, over=state.combatants[foe_key].name,
                               modifier=state.options.advantage_penalty,
                               round=earlier.round if earlier else state.round + 1, action=outcome.action)]


def damage_roller(action: int, dice: Dice, reuse: Sequence[ev.DiceRolled] = ()) -> DamageDice:
    pool = list(reuse)

    def roll(attacker: str, count: int = 4, sides: int | None = None) -> ev.DiceRolled:
        for index, old in enumerate(pool):
            if old.roller.lower() == attacker.lower() and len(old.faces) == count and old.sides == sides:
                return pool.pop(index)
        return roll_event(action, attacker, "damage", count, dice, sides)

    return roll
