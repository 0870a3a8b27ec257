"""Other rolls at the table: a trait roll, a shot, a melee, a story element, a fudge point, Atari Isev's
willpower, spell resistance and heroic avoidance.

One module of `engine.commands`, which loads it when one of its classes is first named."""

from typing import Literal

from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel, Reveal


class RollTrait(CommandModel):
    """C-ACT: any other action roll, unopposed, opposed, or situational."""

    type: Literal["roll"] = "roll"
    combatant: CombatantName
    trait: str | None
    difficulty: int | None = None
    opponent: CombatantName | None = None
    opponent_trait: str | None = None
    mod: int = 0
    opponent_mod: int = 0
    advantage: bool = False
    free: bool = False  # under phase initiative: not an action in phase order (a reaction, a GM-called roll)
    median: bool = False  # C-ACT-5: three rolls, the median counts


class SpendPoint(CommandModel):
    type: Literal["spend"] = "spend"
    combatant: CombatantName
    use: Literal["panache", "skill", "luck", "scratch", "ticking", "spare"]  # spare: CT-SPARE
    target: int | None = None
    shift: Literal[1, -1] | None = None


class Shoot(CommandModel):
    """F-RNG: a ranged attack; the GM sets the difficulty from range, light and cover."""

    type: Literal["shoot"] = "shoot"
    shooter: CombatantName
    target: CombatantName
    difficulty: int | None = None
    aware: bool = False
    weapon: Literal["thrown", "propelled"] | None = None
    shoot_back: bool = False
    back_difficulty: int | None = None
    burst: int | None = None
    burst_bonus: int | None = None
    mod: int = 0
    defense_mod: int = 0
    skill: str | None = None
    dodge: str | None = None


class Melee(CommandModel):
    """F-MULTI: a lone fighter against several foes, one roll compared with each foe's."""

    type: Literal["melee"] = "melee"
    lone: CombatantName
    foes: tuple[CombatantName, ...]
    target: CombatantName | None = None
    sweep: tuple[CombatantName, ...] = ()
    sweep_penalty: int = 1
    ignore: tuple[CombatantName, ...] = ()
    max_foes: int | None = None
    mod: int = 0
    magic: tuple[tuple[CombatantName, int], ...] = ()
    min_hit: int | None = None
    reveals: tuple[Reveal, ...] = ()
    foe_mods: tuple[tuple[CombatantName, int], ...] = ()  # F-MOD-2: the GM's modifier to one foe (footing, light)


class StoryRoll(CommandModel):
    """F-PACE-1: a story element's roll for one PC's chosen trait; the GM narrates what follows."""

    type: Literal["story"] = "story"
    combatant: CombatantName
    trait: str
    mod: int = 0
    median: bool = False
    element: str = ""


class Willpower(CommandModel):
    """AI-WILL-1: a Will roll (story inspiration) lowers the effective wound status for the scene."""

    type: Literal["willpower"] = "willpower"
    combatant: CombatantName
    mod: int = 0


class ResistSpell(CommandModel):
    """AI-WILL-2: caster and target roll Will; the target's excess reduces the spell."""

    type: Literal["resist_spell"] = "resist_spell"
    caster: CombatantName
    target: CombatantName


class HeroicAvoidance(CommandModel):
    """AI-HEROIC: roll with the blow just taken: one wound level less, then an Agility roll vs Fair."""

    type: Literal["heroic"] = "heroic"
    combatant: CombatantName
    target: int | None = None
