"""F-PACE-1 story elements and C-ACT-5 median of three (001 4.2.1).

The engine records the rolls and the result; the GM narrates what follows.
Reading: the GM's story modifier already weighs wounds, fatigue, footing,
surprise and the plan (the text lists them), so no wound penalty is added
on top of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.rolls import roll_event
from fudge_combat.engine.rulesets.fudge.sides import able
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import FightState

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import StoryRoll

STORY_ONLY = "this fight is told in story elements (F-PACE-1): `fudge story NAME TRAIT --mod N` rolls for a PC's plan"


def median(values: list[int]) -> int:
    """C-ACT-5: the middle of three results (it may equal the high or the low one)."""
    return sorted(values)[len(values) // 2]


def decide_story(state: FightState, c: StoryRoll, dice: Dice) -> list[ev.Event]:
    opts = state.options
    if opts.pace != "story":
        raise RuleError("story elements need pace = \"story\" (F-PACE-1); in this fight use `fudge roll` "
                        "(with --median for three rolls)")
    limit = opts.story_modifier_limit
    if not -limit <= c.mod <= limit:
        raise RuleError(f"a story element's modifier runs from -{limit} to +{limit} (F-PACE-1), not {c.mod:+d}")
    who = able(state, c.combatant)
    trait, level, _ = who.fighter.trait(c.trait, opts)
    action = state.last_seq + 1
    rolled = [roll_event(action, who.name, trait, 4, dice) for _ in range(3 if c.median else 1)]
    mods = (ev.Modifier(name="story modifier", value=c.mod),) if c.mod else ()
    totals = tuple(sum(r.faces) for r in rolled)
    results = tuple(level + c.mod + t for t in totals)
    return [*rolled, ev.StoryRolled(action=action, combatant=who.name, trait=trait, level=level, modifiers=mods,
                                    rolls=totals, results=results, result=median(list(results)),
                                    median=c.median, element=c.element)]
