"""After the blows: a kill, a GM's wound, the end of a battle, rest and healing.

One module of `engine.commands`, which loads it when one of its classes is first named."""

from typing import Literal

from pydantic import Field

from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel


class Kill(CommandModel):
    type: Literal["kill"] = "kill"
    combatant: CombatantName
    reason: str = ""


class GmWound(CommandModel):
    """A-LOG-1: the GM's ruling of a wound from outside the blows (a fall, fire, a trap, poison)."""

    type: Literal["gm_wound"] = "gm_wound"
    combatant: CombatantName
    level: int
    reason: str = ""


class EndBattle(CommandModel):
    """F-HEAL-1, F-STUN-1: the battle is over."""

    type: Literal["end_battle"] = "end_battle"


class Rest(CommandModel):
    """F-HEAL-1, F-HEAL-3: a short rest erases Scratches; each week heals one level."""

    type: Literal["rest"] = "rest"
    combatants: tuple[CombatantName, ...] = ()
    weeks: int = Field(default=0, ge=0, le=52)


class Heal(CommandModel):
    """F-HEAL-2: a healing skill roll on a patient, by a combatant or a healer of a given level."""

    type: Literal["heal"] = "heal"
    patient: CombatantName
    healer: CombatantName | None = None
    skill_level: int | None = None
    skill: str | None = None
    mod: int = 0
