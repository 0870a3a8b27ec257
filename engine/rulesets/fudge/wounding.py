"""From a won blow to a wound level, every number kept: F-DMG-3, F-DMG-4, F-GRAZE, F-DROLL, F-MMM, F-TECH.

`strike` is the one way a hit (melee or ranged) becomes an `ev.Hit`. The
damage factor (F-DMG-1, F-DMG-2, plus a tech-level Scale, F-TECH), the relative
degree (counted `relative_degree_weight` times, F-DMG-4), the all-out bonus
and the damage roll of the fight's mode give damage points, read on the
wound thresholds; or, under min-mid-max, a 3d6 read by the bonus tables.

Readings taken (the text leaves them open):
- `1dF_level` shifts a wound only: a blow that does no damage stays harmless,
  and the shift stops at Near Death (never Dead) and at Undamaged.
- `parity` reads the two action rolls (the dice totals, C-ACT-1): an even
  attacker total adds 1 to the offensive factor, an even defender total 1 to
  the defensive factor. A defender who did not roll (unaware) adds nothing.
  On a graze the net of the two moves the graze one level at most (F-GRAZE-2).
- Min-mid-max uses the graze rule unchanged (no 3d6 on RD +1); a relative
  degree below 2 (the RD 0 of a won all-out tie) has no bonus. A total bonus
  above 4 reads the sum of all three dice. The all-out bonus is added to the
  value read, not to the reading bonus (Rachel's +1 in the text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fudge_combat.engine.rulesets.fudge.damage import blow, defensive_factor, needs_damage_roll, offensive_factor, rolled_damage
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.sheets import Fighter
from fudge_combat.engine.kernel.wounds import NEAR_DEATH, UNDAMAGED, level_for_damage
from fudge_combat.events import structs as ev

# (attacker, count, sides) -> the recorded damage roll; sides None = Fudge dice
RollDamage = Callable[..., ev.DiceRolled]

MMM_READS = ("min", "mid", "max", "max+min", "sum")  # F-MMM: the die read for a total bonus of 0..4
NEW_ROLL_MODES = ("1dF_damage", "1dF_level", "parity", "4dF_free")


def tech_difference(attacker: Fighter, defender: Fighter, options: RuleOptions) -> int | None:
    """F-TECH: weapon tech minus armor tech, as a Scale difference; None unless both have a tech level."""
    weapon, armor = attacker.sheet.weapon, defender.sheet.armor
    if not options.tech_scale or weapon is None or armor is None or weapon.tech is None or armor.tech is None:
        return None
    return weapon.tech - armor.tech


def mmm_bonus(factor: int, relative_degree: int, options: RuleOptions) -> int:
    """F-MMM: the die-reading bonus of the damage factor plus that of the relative degree."""
    zero, one, two = options.mmm_factor_steps
    if factor < zero:
        deep = options.mmm_deep_penalty
        factor_bonus = -2 if deep is not None and factor <= deep else -1
    else:
        factor_bonus = 2 if factor >= two else 1 if factor >= one else 0
    rd_one, rd_two = options.mmm_rd_steps
    rd_bonus = 2 if relative_degree >= rd_two else 1 if relative_degree >= rd_one else 0
    return factor_bonus + rd_bonus


def mmm_read(faces: Sequence[int], bonus: int) -> tuple[str, int]:
    """F-MMM: which value of the 3d6 a total bonus reads (the median is the middle value, not the middle die)."""
    low, mid, high = sorted(faces)
    read = MMM_READS[min(bonus, len(MMM_READS) - 1)]
    value = {"min": low, "mid": mid, "max": high, "max+min": high + low, "sum": low + mid + high}[read]
    return read, value


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


def strike(attacker: Fighter, defender: Fighter, names: tuple[str, str], relative_degree: int, bonus: int,
           options: RuleOptions, roll_damage: RollDamage, attack_roll: int | None = None,
           defense_roll: int | None = None, itemize: bool = False,
           **extra: int | None) -> tuple[ev.Hit, list[ev.DiceRolled]]:
    """The hit `names[0]` lands on `names[1]` and the damage rolls it took (F-DMG-3, F-GRAZE, F-DROLL, F-MMM).

    `attack_roll` and `defense_roll` are the action rolls' dice totals, read by the `parity` mode.
    `itemize` records the offensive and defensive factors even without a tech level (a blow
    whose event is new; melee blows keep the fields they always had, so older logs verify).
    `extra` holds further numbers to record on the hit (bullets of a burst, F-RNG-5).
    """
    offensive = offensive_factor(attacker, options)
    defensive = defensive_factor(defender, attacker, options)
    tech = tech_difference(attacker, defender, options)
    factor = offensive - defensive + (tech or 0)
    record: dict[str, Any] = dict(extra)
    if tech is not None or itemize:
        record.update(offensive=offensive, defensive=defensive, tech=tech)
    graze = relative_degree == 1
    rolls: list[ev.DiceRolled] = []
    base: dict[str, Any] = dict(attacker=names[0], defender=names[1], relative_degree=relative_degree, damage_factor=factor,
                bonus=bonus)

    if options.damage_system == "min_mid_max" and not graze:
        total = mmm_bonus(factor, relative_degree, options)
        record["mmm_bonus"] = total
        if total < 0:  # no damage is possible: the dice are not even rolled
            return ev.Hit(**base, graze=False, calculated=0, damage_roll=None, damage=0, level=UNDAMAGED,
                          **record), rolls
        rolled = roll_damage(names[0], 3, 6)
        rolls.append(rolled)
        read, value = mmm_read(rolled.faces, total)
        damage = value + bonus
        record.update(mmm_read=read, mmm_value=value)
        return ev.Hit(**base, graze=False, calculated=damage, damage_roll=None, damage=damage,
                      level=level_for_damage(damage, options.wound_thresholds), **record), rolls

    mode = options.damage_roll if options.damage_system == "factors" else "none"
    if mode in NEW_ROLL_MODES:
        record["damage_roll_mode"] = mode
    rolls_here = mode != "none" and needs_damage_roll(relative_degree, options)
    roll: int | None = None
    parity = 0
    if rolls_here and mode == "parity":
        even = (1 if attack_roll is not None and attack_roll % 2 == 0 else 0,
                1 if defense_roll is not None and defense_roll % 2 == 0 else 0)
        record["parity"] = even
        parity = even[0] - even[1]
    elif rolls_here:
        rolled = roll_damage(names[0], 1 if mode.startswith("1dF") else 4, None)
        rolls.append(rolled)
        roll = sum(rolled.faces)

    if graze:  # F-GRAZE-1, F-GRAZE-2, F-GRAZE-3: the graze table; any roll moves it one level at most, by its sign
        moved = blow(relative_degree, factor, bonus, roll if roll is not None else (parity or None), options)
        return ev.Hit(**base, graze=True, calculated=moved.calculated, damage_roll=roll, damage=None,
                      level=moved.level, **record), rolls

    weight = options.relative_degree_weight
    if weight != 1:
        record["rd_weight"] = weight
    calculated = relative_degree * weight + factor + bonus + parity
    damage = rolled_damage(calculated, roll, mode)
    level = level_for_damage(damage, options.wound_thresholds)
    if mode == "1dF_level" and roll is not None and level > UNDAMAGED:
        shifted = max(UNDAMAGED, min(level + roll, NEAR_DEATH))
        record["level_shift"] = shifted - level
        level = shifted
    return ev.Hit(**base, graze=False, calculated=calculated, damage_roll=roll, damage=damage, level=level,
                  **record), rolls
