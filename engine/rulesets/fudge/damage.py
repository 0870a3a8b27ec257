"""F-DMG, F-GRAZE, F-DROLL: from a won blow to a wound level."""

from __future__ import annotations

from msgspec import Struct

from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.sheets import Fighter
from fudge_combat.engine.kernel.wounds import HURT, SCRATCH, UNDAMAGED, level_for_damage

NO_WEAPON = -1  # F-DMG-1: no weapon and no martial art


def offensive_factor(attacker: Fighter, options: RuleOptions) -> int:
    """F-DMG-1: Strength (muscle-powered weapons) + Strength Scale + weapon."""
    weapon = attacker.sheet.weapon
    strength = attacker.trait("Strength", options)[1]
    if weapon is None:
        return strength + attacker.sheet.scale + NO_WEAPON
    return (strength if weapon.muscle_powered else 0) + attacker.sheet.scale + weapon.damage


def defensive_factor(defender: Fighter, attacker: Fighter, options: RuleOptions) -> int:
    """F-DMG-2 (+ F-DMG-5): Damage Capacity + Mass Scale + armor."""
    armor = defender.sheet.armor.protection if defender.sheet.armor else 0
    weapon = attacker.sheet.weapon
    if weapon is not None and weapon.blunt_heavy and options.blunt_heavy_halves_armor:
        armor //= 2
    capacity = defender.trait("Damage Capacity", options)[1] if options.dc_in_defense else 0
    return capacity + defender.sheet.scale + armor


def damage_factor(attacker: Fighter, defender: Fighter, options: RuleOptions) -> int:
    """F-DMG-3: offensive factor minus defensive factor."""
    return offensive_factor(attacker, options) - defensive_factor(defender, attacker, options)


def limited_roll(calculated: int, roll: int) -> int:
    """F-DROLL `4dF_limited`: the three limits of Fudge 4.6.1 on a situational damage roll."""
    if calculated > 0:
        return max(1, calculated + min(roll, calculated))
    return max(0, min(calculated + roll, 1))


def rolled_damage(calculated: int, roll: int | None, mode: str) -> int:
    """F-DROLL: the damage of a blow from its calculated damage and the damage roll (None: none rolled),
    as the damage-roll option reads them (`1dF_level` shifts the level instead: the damage is as calculated)."""
    if mode == "4dF_limited":
        return limited_roll(calculated, roll) if roll is not None else max(0, calculated)
    if mode in ("4dF_free", "1dF_damage") and roll is not None:
        return max(0, calculated + roll)
    return max(0, calculated)


class Blow(Struct, frozen=True):
    """How a hit became a wound: every number on the way, for the log."""

    relative_degree: int
    damage_factor: int
    bonus: int
    graze: bool
    calculated: int
    damage_roll: int | None
    damage: int | None  # None for a graze: it reads a table, not points
    level: int


def needs_damage_roll(relative_degree: int, options: RuleOptions) -> bool:
    """F-DROLL, F-GRAZE-2: a hit rolls for damage unless there is no damage roll, or it is a graze and grazes roll none."""
    if options.damage_roll == "none":
        return False
    return relative_degree != 1 or options.graze_damage_roll


def blow(relative_degree: int, factor: int, bonus: int, roll: int | None, options: RuleOptions) -> Blow:
    """F-DMG-3, F-GRAZE-1, F-GRAZE-2, F-GRAZE-3, F-DROLL: the wound level of a hit.

    A graze (RD +1) reads the graze table; a damage bonus outside the factor
    (all-out) raises it one level (F-GRAZE-3); a damage roll moves it at most
    one level (F-GRAZE-2, our reading: by the roll's sign); the result never
    passes `graze_cap`.
    """
    if relative_degree == 1:
        scratch_at, hurt_at = options.graze_table
        level = UNDAMAGED if factor < scratch_at else SCRATCH if factor < hurt_at else HURT
        if bonus > 0:
            level += 1
        if roll is not None:
            level += (roll > 0) - (roll < 0)
        level = max(UNDAMAGED, min(level, options.graze_cap))
        return Blow(relative_degree, factor, bonus, True, factor + relative_degree + bonus, roll, None, level)
    calculated = relative_degree + factor + bonus
    damage = max(0, calculated) if roll is None else limited_roll(calculated, roll)
    return Blow(relative_degree, factor, bonus, False, calculated, roll, damage,
                level_for_damage(damage, options.wound_thresholds))
