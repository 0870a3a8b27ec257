"""Rules of the Atari Isev campaign (seed 000) that a Fudge fight may take as options: a Health chart for
the wound track (`wound_chart = "health"`, AI-WND-1), initiative derived from three attributes
(`initiative = "ranked"`, AI-INIT-1, in `ranked`), declarations before a rolled initiative (AI-WAIT, AI-MULTI-ATK), and
willpower against wounds and spells (AI-WILL-1, AI-WILL-2).

They are here, among Fudge's parts, because a Fudge fight's options reach them: the Atari Isev ruleset
(`rulesets.atari_isev`) is composed from Fudge and these, never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec import Struct

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.wounds import LEVELS, NEAR_DEATH
from fudge_combat.engine.rulesets.fudge import ranked
from fudge_combat.engine.rulesets.fudge.rolls import next_action, roll_event, settle_roll
from fudge_combat.engine.rulesets.fudge.sides import combatant
from fudge_combat.events import structs as ev

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import ResistSpell, Willpower


class HealthChart(Struct, frozen=True):
    """AI-WND-1: lowest damage for Scratch..Near Death, and boxes per level."""

    thresholds: tuple[int, int, int, int, int]
    boxes: tuple[int, int, int, int, int]


# AI-WND-1 (RULES.md table; where 000 says "etc." the two-point bands continue).
HEALTH_CHARTS: Mapping[int, HealthChart] = {
    -3: HealthChart((1, 2, 3, 5, 7), (1, 1, 1, 1, 1)),
    -2: HealthChart((1, 2, 4, 6, 8), (2, 1, 1, 1, 1)),
    -1: HealthChart((1, 3, 5, 7, 9), (2, 1, 1, 1, 1)),
    0: HealthChart((1, 3, 5, 7, 9), (3, 1, 1, 1, 1)),
    1: HealthChart((1, 3, 5, 7, 9), (4, 1, 1, 1, 1)),
    2: HealthChart((1, 3, 5, 7, 9), (4, 2, 1, 1, 1)),
    3: HealthChart((1, 4, 7, 9, 11), (4, 2, 1, 1, 1)),
    4: HealthChart((1, 3, 5, 7, 9), (5, 3, 2, 1, 1)),
}


def health_chart(health: int) -> HealthChart:
    """AI-WND-1: the chart of a Health level (beyond the table, its nearest end)."""
    return HEALTH_CHARTS[max(-3, min(4, health))]


def spell_reduction(caster: int, target: int) -> int:
    """AI-WILL-2: caster >= target: full effect (0); else reduced by the difference."""
    return max(0, target - caster)


def steel_levels(result_level: int, fair: int = 0) -> int:
    """AI-WILL-1: each level of the Will result above Fair lowers the effective wound one level."""
    return max(0, result_level - fair)


def check_declaration(state: FightState, who: Combatant, decl: ev.Declaration, atari_isev: bool) -> None:
    """AI-MULTI-ATK: two attacks need a light weapon or a weapon in each hand, never a two-handed one.

    A declaration before a rolled initiative; waiting, two attacks or avoidances and multi-strike are
    only declared under the Atari Isev ruleset (`atari_isev`)."""
    ranked.check_declaration(state, decl)
    if state.options.initiative not in ranked.SYSTEMS and (decl.wait or decl.hasty or decl.two_attacks):
        raise RuleError("waiting/hurrying, hasty attacks and a second attack 3 initiative levels later "
                        "(AI-WAIT, F-INIT-3, AI-MULTI-ATK) change a rolled initiative total: they need "
                        "initiative = \"ranked\" or \"opposed\"; phase initiative gives one action per phase")
    if not atari_isev and (decl.wait or decl.two_attacks or decl.two_avoidances or decl.sweep):
        raise RuleError("waiting/hurrying, two attacks, two avoidances and multi-strike are Atari Isev options "
                        "(ruleset = \"atari-isev\"); the Fudge ruleset offers a hasty attack (F-INIT-3)")
    if decl.two_attacks:
        weapon = who.fighter.sheet.weapon
        if weapon is not None and weapon.two_handed:
            raise RuleError(f"{who.name}'s {weapon.name} is two-handed: no second attack (AI-MULTI-ATK)")
        if not (weapon is None or weapon.light or who.fighter.sheet.off_hand is not None):
            raise RuleError(f"two attacks need a small light weapon or a weapon in each hand; {who.name} has "
                            f"only a {weapon.name} (AI-MULTI-ATK)")
    if decl.sweep:
        weapon = who.fighter.sheet.weapon
        if weapon is None or weapon.light:
            raise RuleError(f"a multi-strike needs a weapon that sweeps (e.g. a long sword), not "
                            f"{'bare hands' if weapon is None else 'a ' + weapon.name} (AI-SWEEP)")
    if decl.two_avoidances == "parry-parry":
        weapon = who.fighter.sheet.weapon
        if not (who.fighter.sheet.off_hand or who.fighter.sheet.shield or (weapon and weapon.light)):
            raise RuleError("parry-parry needs two suitable objects or one small fast one (AI-MULTI-AVD)")


def willpower(state: FightState, c: Willpower, dice: Dice) -> list[ev.Event]:
    """AI-WILL-1: Will vs Fair; each level above Fair lowers the effective wound status for the scene."""
    who = combatant(state, c.combatant)
    if who.track.level >= NEAR_DEATH:
        raise RuleError(f"{who.name} is {LEVELS[who.track.level]}: no willpower roll (AI-WILL-1)")
    action = next_action(state)
    trait, level, _ = who.fighter.trait("Will", state.options)
    mods = tuple([ev.Modifier(name="GM modifier", value=c.mod)] if c.mod else [])
    rolled = roll_event(action, who.name, trait, 4, dice)
    outcome = settle_roll(who.name, trait, level, sum(rolled.faces), mods,
                               {"difficulty": state.options.default_difficulty}, False, action)
    return [rolled, outcome, ev.WillSteeled(combatant=who.name, action=action,
                                            levels=steel_levels(outcome.result, state.options.default_difficulty))]


def resist_spell(state: FightState, c: ResistSpell, dice: Dice) -> list[ev.Event]:
    """AI-WILL-2: both roll Will. Recorded as the target's roll opposed by the caster's: a margin above 0
    is how much the spell is reduced; a tie or less leaves it full (so a fudge point re-reads it the same way)."""
    caster, target = combatant(state, c.caster), combatant(state, c.target)
    action = next_action(state)
    trait, level, _ = target.fighter.trait("Will", state.options)
    foe_trait, foe_level, _ = caster.fighter.trait("Will", state.options)
    theirs = roll_event(action, target.name, trait, 4, dice)
    mine = roll_event(action, caster.name, foe_trait, 4, dice)
    resolved = dict(opponent=caster.name, opponent_trait=foe_trait, opponent_level=foe_level,
                    opponent_roll=sum(mine.faces), opponent_modifiers=())
    outcome = settle_roll(target.name, trait, level, sum(theirs.faces), (), resolved, False, action)
    return [mine, theirs, outcome]
