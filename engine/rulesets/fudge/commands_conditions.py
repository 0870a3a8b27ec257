"""Conditions and leaving: a state the GM marks on a fighter or takes off, a fighter who leaves the fight.

One module of `engine.commands`, which loads it when one of its classes is first named."""

from typing import Literal

from pydantic import Field

from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel

# A condition's name and note as the GM may type them: short enough for the board's line
CONDITION_LENGTH, NOTE_LENGTH = 40, 200


class MarkCondition(CommandModel):
    """A condition on a fighter: one of the rules' own states (engine.rulesets.fudge.conditions.NAMED) or free
    text, for `rounds` rounds (None: until unmarked), with a note."""

    type: Literal["mark_condition"] = "mark_condition"
    combatant: CombatantName
    condition: str = Field(min_length=1, max_length=CONDITION_LENGTH)
    rounds: int | None = Field(default=None, ge=1, le=100)
    note: str = Field(default="", max_length=NOTE_LENGTH)


class ClearCondition(CommandModel):
    """A condition taken off a fighter."""

    type: Literal["clear_condition"] = "clear_condition"
    combatant: CombatantName
    condition: str = Field(min_length=1, max_length=CONDITION_LENGTH)


class Leave(CommandModel):
    """A fighter out of the fight without wounds: he fled, surrendered, or left."""

    type: Literal["leave"] = "leave"
    combatant: CombatantName
    how: Literal["fled", "surrendered", "left"] = "left"
