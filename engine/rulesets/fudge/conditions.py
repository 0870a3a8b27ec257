"""Conditions and leaving (docs/table.md, "Conditions"): what the GM marks on a fighter, how it runs out, and a
fighter who leaves the fight without wounds. Part of the lifecycle every ruleset composes.

A condition is shown, not applied: the rules' own states are named here with what the rules say of them, so
the GM sees the reminder, and applies a modifier where the rules give one (`--mod`). Stun, knockout and
Fate's boxes stay the rules' own marks (F-STUN-1, FT-TRACK); a condition never changes a roll or a turn.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.state import Condition, FightState, replace
from fudge_combat.engine.rulesets.fudge.evolving import with_item
from fudge_combat.engine.rulesets.fudge.sides import combatant
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import ClearCondition, Leave, MarkCondition

# The rules' own states, by the name the GM types, with what the rules say of each (RULES.md's IDs). Any other
# name is a free-text condition.
NAMED: dict[str, str] = {
    "stunned": "no attack or all-out defense, -1 to defend (F-STUN-1)",
    "knocked down": "knocked back 1-2 m by a heroic avoidance (AI-HEROIC)",
    "prone": "on the ground: -2 offence (AI-POS)",
    "surprised": "caught unaware: phases one level lower (PH-5), cannot dodge a shot (F-RNG-2)",
    "on fire": "burning: a wound the GM rules each round (A-LOG-1, `fudge wound`)",
    "disarmed": "weapon lost: fights unarmed (FT-MANEUVER disarm, F-DMG)",
    "grappled": "held: the GM's modifier to act (C-ACT-1)",
    "blinded": "cannot see: the GM's modifier to act (C-ACT-1)",
    "hidden": "out of sight: unaware foes (F-RNG-2)",
}
HOW = {"fled": "fled", "surrendered": "surrendered", "left": "left the fight"}


def condition_name(typed: str) -> str:
    """A condition's name as kept: spaces trimmed and runs of white space made one; refused when empty or
    holding control characters (a name is shown on one line of the board)."""
    name = " ".join(typed.split())
    if not name:
        raise RuleError("a condition needs a name: one of the rules' own (" + ", ".join(NAMED) + ") or your own words")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise RuleError(f"a condition's name cannot hold control characters: {name!r}")
    return name


def _find(conditions: tuple[Condition, ...], name: str) -> Condition | None:
    return next((c for c in conditions if c.name.lower() == name.lower()), None)


# --- decide ---------------------------------------------------------------------------------------------

def mark(state: FightState, c: MarkCondition, dice: Dice) -> list[ev.Event]:
    """Marked again, a condition takes its new length and note (one of each name on a fighter)."""
    who = combatant(state, c.combatant)
    name = condition_name(c.condition)
    if any(unicodedata.category(ch).startswith("C") and ch not in "\t" for ch in c.note):
        raise RuleError("a condition's note cannot hold control characters")
    known = _find(who.conditions, name)
    return [ev.ConditionMarked(combatant=who.name, condition=known.name if known else name, round=state.round,
                               rounds=c.rounds, note=c.note.strip())]


def clear(state: FightState, c: ClearCondition, dice: Dice) -> list[ev.Event]:
    who = combatant(state, c.combatant)
    name = condition_name(c.condition)
    known = _find(who.conditions, name)
    if known is None:
        marked = ", ".join(x.name for x in who.conditions)
        raise RuleError(f"{who.name} is not marked {name}; "
                        + (f"marked: {marked}" if marked else "no condition is marked on them"))
    return [ev.ConditionCleared(combatant=who.name, condition=known.name)]


def leave(state: FightState, c: Leave, dice: Dice) -> list[ev.Event]:
    who = combatant(state, c.combatant)
    if who.left:
        raise RuleError(f"{who.name} has already {HOW[who.left]}")
    if who.track.dead:
        raise RuleError(f"{who.name} is dead and cannot leave the fight")
    return [ev.CombatantLeft(combatant=who.name, how=c.how)]


# --- evolve ---------------------------------------------------------------------------------------------

def _marked(s: FightState, r: Recorded, e: ev.ConditionMarked) -> FightState:
    who = s.combatants[e.combatant.lower()]
    until = e.round + e.rounds if e.rounds is not None else None
    kept = tuple(x for x in who.conditions if x.name.lower() != e.condition.lower())
    updated = replace(who, conditions=kept + (Condition(e.condition, e.note, until, r.seq),))
    return replace(s, combatants=with_item(s.combatants, who.key, updated))


def _cleared(s: FightState, r: Recorded, e: ev.ConditionCleared) -> FightState:
    who = s.combatants[e.combatant.lower()]
    kept = tuple(x for x in who.conditions if x.name.lower() != e.condition.lower())
    return replace(s, combatants=with_item(s.combatants, who.key, replace(who, conditions=kept)))


def expire(s: FightState, round_: int) -> FightState:
    """A timed condition is gone at the start of the round it was marked to last until (`until`)."""
    for key, who in list(s.combatants.items()):
        if who.conditions and any(x.until is not None and x.until <= round_ for x in who.conditions):
            kept = tuple(x for x in who.conditions if x.until is None or x.until > round_)
            s = replace(s, combatants=with_item(s.combatants, key, replace(who, conditions=kept)))
    return s


# --- describe -------------------------------------------------------------------------------------------

def _describe_marked(e: ev.ConditionMarked, ladder: object, points: str) -> str:
    """"Snorri is prone until round 3 (2 rounds): tripped": it begins as the consequence line does, so a
    command's output says it once (cli.outcome)."""
    lasting = "" if e.rounds is None else f" until round {e.round + e.rounds} ({e.rounds} round{'' if e.rounds == 1 else 's'})"
    note = f": {e.note}" if e.note else ""
    return f"{e.combatant} is {e.condition}{lasting}{note}"


def _describe_cleared(e: ev.ConditionCleared, ladder: object, points: str) -> str:
    return f"{e.combatant} is no longer {e.condition}"


def _describe_left(e: ev.CombatantLeft, ladder: object, points: str) -> str:
    return f"{e.combatant} {HOW[e.how]}: out of the fight without wounds"
