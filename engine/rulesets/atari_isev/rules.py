"""AI: the Atari Isev campaign's tables and the arithmetic of a blow (seed 000).

Pure data and functions; `engine.rulesets.atari_isev.blows` turns commands into events with them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.sheets import Fighter, Weapon
from fudge_combat.engine.kernel.wounds import LEVELS, UNDAMAGED, level_for_damage
from fudge_combat.engine.rulesets.fudge.campaign import health_chart
from fudge_combat.events import structs as ev

NO_AVOIDANCE = "no avoidance"


# AI-WAIT: initiative change -> (attack, avoidance) modifiers.
WAIT_TABLE: Mapping[int, tuple[int, int]] = {2: (-1, -2), 1: (-1, -1), 0: (0, 0), -1: (1, 0), -2: (1, 1)}

# AI-POST: posture -> attack modifier; the defence modifier is its opposite.
POSTURE_NAME = {2: "all-out offence", 1: "aggressive", 0: "normal", -1: "defensive", -2: "all-out defence"}

# AI-POS: the attacker's position -> offence modifier.
OFFENCE_POSITION: Mapping[str, int] = {"behind": 2, "back": -2, "above": 1, "below": -1, "prone": -2}
# AI-POS: a defender with his back to the enemy -> dodge and parry modifiers.
BACK_TO_ENEMY = {"dodge": -1, "parry": -2}

# AI-RNG-2: (kind of missile, avoidance) -> (mildest, harshest) modifier; the GM picks within.
RANGED_AVOIDANCE: Mapping[tuple[str, str], tuple[int, int]] = {
    ("thrown", "dodge"): (0, 0), ("thrown", "shield"): (0, 0), ("thrown", "parry"): (-1, -3),
    ("propelled", "dodge"): (-1, -1), ("propelled", "shield"): (-2, -2), ("propelled", "parry"): (-3, -5),
}

# Reading: fists and feet add +0 (000 lists the fist among small light weapons; it gives no value).
UNARMED = Weapon(name="unarmed", damage=0, light=True)


def weapon_of(fighter: Fighter, which: str | None) -> Weapon:
    """The weapon a blow uses: the sheet's (or unarmed without one), the off-hand one, or bare hands."""
    if which == "unarmed":
        return UNARMED
    if which == "off-hand":
        return fighter.sheet.off_hand or UNARMED
    return fighter.sheet.weapon or UNARMED


def basic_damage(attacker: Fighter, weapon: Weapon, options: RuleOptions) -> int:
    """AI-DMG-1: Strength + weapon + attacker's Scale."""
    strength = attacker.trait("Strength", options)[1] if weapon.muscle_powered else 0
    return strength + weapon.damage + attacker.sheet.scale


def protection(defender: Fighter) -> int:
    """AI-DMG-1: armor + defender's Scale."""
    return (defender.sheet.armor.protection if defender.sheet.armor else 0) + defender.sheet.scale


def result(side: ev.Side) -> int:
    assert side.result is not None
    return side.result


LuckDice = Callable[[str], ev.DiceRolled]


def settle(options: RuleOptions, fighters: Mapping[str, Fighter], sides: Sequence[ev.Side], min_hit: int,
           luck_dice: LuckDice) -> tuple[str, tuple[ev.Hit, ...], tuple[ev.DiceRolled, ...]]:
    """AI-ATK-2, AI-ATK-3, AI-DMG-1, AI-GRAZE, AI-SCALE, AI-WND-1: one attack against its avoidance.

    `sides[0]` attacks; the rest are the target's avoidance rolls (two for a
    dodge-parry against one blow: the best counts, AI-MULTI-AVD) or one
    `no avoidance` side whose result is the level compared with (Poor, or a
    ranged difficulty). Against an avoidance the attack must exceed it; with
    none it needs only reach `min_hit` (Poor shifted by Scale, F-HIT-1), and
    RD = result - Poor may then be negative (a Sylthaen's Terrible blow on a
    Duerager hits at RD -1). Either way the result must reach `min_hit`.
    """
    attack, defences = sides[0], sides[1:]
    best = max(defences, key=result)
    avoided = best.trait != NO_AVOIDANCE
    rd = result(attack) - result(best)
    hits: list[ev.Hit] = []
    rolls: list[ev.DiceRolled] = []
    if result(attack) >= min_hit and (rd >= 1 or not avoided):
        attacker, defender = fighters[attack.combatant.lower()], fighters[best.combatant.lower()]
        factor = basic_damage(attacker, weapon_of(attacker, attack.weapon), options) - protection(defender)
        rolled = luck_dice(attack.combatant)
        rolls.append(rolled)
        luck = sum(rolled.faces)
        calculated = factor + rd
        damage = calculated + luck
        graze = rd == 1
        if graze:
            damage = min(damage, options.graze_max_damage)
        damage = max(0, damage)
        chart = health_chart(defender.trait("Health", options)[1])
        level = level_for_damage(damage, chart.thresholds) if damage > 0 else UNDAMAGED
        hits.append(ev.Hit(attacker=attack.combatant, defender=best.combatant, relative_degree=rd,
                           damage_factor=factor, bonus=0, graze=graze, calculated=calculated,
                           damage_roll=luck, damage=damage, level=level))
    return describe(attack, best, hits, avoided), tuple(hits), tuple(rolls)


def describe(attack: ev.Side, best: ev.Side, hits: Sequence[ev.Hit], avoided: bool) -> str:
    if not hits:
        if avoided and result(attack) <= result(best):
            return f"{best.combatant} avoids the blow ({best.trait})"
        return f"{attack.combatant} misses {best.combatant}"
    hit = hits[0]
    what = LEVELS[hit.level] if hit.level else "no wound"
    return f"{hit.attacker} {'grazes' if hit.graze else 'hits'} {hit.defender}: {what}"


def heroic_level(level: int) -> int:
    """AI-HEROIC: a wound one class less severe (never below Undamaged)."""
    return max(UNDAMAGED, level - 1)


