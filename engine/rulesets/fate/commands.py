"""Fate's commands (seed 004): an exchange, a scene, a round, an attack or a turn passed; aspects, the end of a scene,
recovery from an injury."""

from typing import Literal

from pydantic import BaseModel, ConfigDict

from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel


class FateAction(BaseModel):
    """What one combatant declares for a Fate exchange, scene or attack."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: CombatantName
    target: CombatantName | None = None
    skill: str | None = None
    defensive: bool = False  # FT-DEF-2: +1, inflicts nothing
    non_combat: bool = False  # FT-DEF-1: a win is only a Scratch
    unaware: bool = False  # FT-DROP: not expecting the attack
    maneuver: str | None = None  # FT-MANEUVER
    maneuver_needs: Literal["clipped", "hurt", "injured", "taken_out"] = "clipped"
    maneuver_kind: Literal["plain", "disarm", "finesse"] = "plain"
    non_lethal: bool = False  # FT-HEAL-1
    mod: int = 0


class FateMod(BaseModel):
    """FT-MOD, FT-ARMS dramatic: a modifier to one combatant, against one foe or everyone."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: CombatantName
    kind: Literal["superior weapon", "superior armor", "superior position", "outnumbering", "flanking",
                  "surrounding", "GM"]
    against: CombatantName | None = None
    value: int = 1


class FateExchange(CommandModel):
    """FT-PACE exchange: all declare, all roll, each compared with whom they oppose."""

    type: Literal["fate_exchange"] = "fate_exchange"
    actions: tuple[FateAction, ...]
    mods: tuple[FateMod, ...] = ()
    mobile: bool = False  # FT-ADV-2 Flex: both sides have room to move


class FateScene(CommandModel):
    """FT-PACE scene: one roll each; the total difference, or paired sub-fights."""

    type: Literal["fate_scene"] = "fate_scene"
    actions: tuple[FateAction, ...]
    mods: tuple[FateMod, ...] = ()
    mode: Literal["total", "paired"] = "paired"


class FateRound(CommandModel):
    """FT-INIT: a new round of turns, ordered by Alertness, Tactics, combat skill."""

    type: Literal["fate_round"] = "fate_round"


class FateAttack(CommandModel):
    """FT-PACE turn: the actor attacks; the defender rolls defence."""

    type: Literal["fate_attack"] = "fate_attack"
    attack: FateAction
    defense: FateAction
    mods: tuple[FateMod, ...] = ()
    mobile: bool = False


class FatePass(CommandModel):
    """FT-INIT (a reading, engine.rulesets.fate.rules): the actor passes his turn (used with no action), or holds it to act
    after the next fighter who still has a turn this round."""

    type: Literal["fate_pass"] = "fate_pass"
    combatant: CombatantName | None = None  # who the GM says has the turn (checked); None: whoever has it
    hold: bool = False


class CheckAspect(CommandModel):
    """FT-PTS: check an aspect's box for a reroll."""

    type: Literal["check_aspect"] = "check_aspect"
    combatant: CombatantName
    aspect: str
    box: int | None = None
    target: int | None = None


class EndScene(CommandModel):
    """FT-TRACK-3: the scene ends."""

    type: Literal["end_scene"] = "end_scene"


class RecoverInjury(CommandModel):
    """FT-HEAL-1: one Injured box heals, in days cut by a medicine roll."""

    type: Literal["recover_injury"] = "recover_injury"
    combatant: CombatantName
    healer: CombatantName | None = None
    skill_level: int | None = None
    activity: Literal["rest", "light"] = "rest"
    mod: int = 0


