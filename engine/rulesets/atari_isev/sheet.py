"""Atari Isev's sheet (`fudge sheet`, asked through its Reading): Fudge's template with its own attributes,
parry and dodge skills, light weapons and off hand (`fudge.sheet.Variant`), and what `fudge sheet check` reads
of a sheet after its traits: basic damage and protection (AI-DMG-1), Fudge's wound track, and the derived
initiative, dodge and parry (AI-INIT-1, AI-ATK)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.sheet_text import level, row
from fudge_combat.engine.rulesets.fudge import sheet as fudge

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.options import RuleOptions
    from fudge_combat.engine.kernel.state import Combatant, FightState


def _attributes(options: RuleOptions, fair: str) -> list[str]:
    return [row(f"Health = {fair}", "AI-WND-1: picks the wound chart (boxes and damage thresholds)"),
            row(f"Strength = {fair}", "AI-DMG-1: basic damage = Strength + weapon + Scale"),
            row(f"Agility = {fair}", "AI-INIT-1: initiative is the mean of Perception, Agility, Intuition"),
            row(f"Perception = {fair}"),
            row(f"Intuition = {fair}"),
            row(f"Will = {fair}", "AI-WILL-1: willpower against wound penalties"),
            row(f"#Initiative = {fair}", "AI-INIT-1: overrides the derived initiative")]


def _skills(options: RuleOptions, fair: str, skill: str) -> list[str]:
    return [row(f'"Sword Parry" = {skill}', "AI-ATK: a skill named with `parry` parries"),
            row(f"#Dodge = {fair}", "AI-ATK: a skill named with `dodge` dodges (without one: "
                                    + level(options, options.unlisted_skill).strip('"') + ")")]


VARIANT = fudge.Variant(
    gifts=fudge.FUDGE.gifts + ", Ambidextrous", attributes=_attributes, skills=_skills,
    defend=row('defend = "Sword Parry"', "the avoidance (a name with `dodge` dodges)"),
    weapon=(row("#light = false", "AI-MULTI-ATK: a small light weapon allows two attacks"), row("#two_handed = false")),
    wounds="this fighter's own boxes (default: the rules', or Health's chart)",
    tail=("", row("#[off_hand]", "AI-MULTI-ATK: a weapon in the other hand"),
          row('#name = "dagger"'), row("#damage = 0"), row("#light = true")))


def template(name: str, options: RuleOptions) -> list[str]:
    """The template's lines after the head: Fudge's, with Atari Isev's own sections."""
    return fudge.template(name, options, VARIANT)


def check(state: FightState, who: Combatant) -> list[str]:
    """Atari Isev's sections after the traits: its damage, Fudge's wound track, the derived traits."""
    return damage(state, who) + fudge.track(state, who) + derived(state, who)


def damage(state: FightState, who: Combatant) -> list[str]:
    """AI-DMG-1: basic damage (Strength, the weapon, Scale), the off hand's, and protection."""
    from fudge_combat.engine.rulesets.atari_isev.rules import basic_damage, protection, weapon_of

    opts, fighter, sheet = state.options, who.fighter, who.fighter.sheet
    held = weapon_of(fighter, None)
    out = ["damage (AI-DMG-1)",
           f"  basic damage  {basic_damage(fighter, held, opts):+d}  Strength, {held.name} {held.damage:+d}, "
           f"Scale {sheet.scale:+d}"]
    if sheet.off_hand is not None:
        out.append(f"  off hand      {basic_damage(fighter, sheet.off_hand, opts):+d}  {sheet.off_hand.name}")
    worn = f"{sheet.armor.name} {sheet.armor.protection:+d}" if sheet.armor else "no armor +0"
    out.append(f"  protection    {protection(fighter):+d}  {worn}, Scale {sheet.scale:+d}")
    return out + [""]


def derived(state: FightState, who: Combatant) -> list[str]:
    """AI-INIT-1, AI-ATK: the initiative, dodge and parry a fighter rolls, worked out from his sheet."""
    from fudge_combat.engine.rulesets.atari_isev.blows import skill_like
    from fudge_combat.engine.rulesets.fudge.ranked import derived_initiative

    opts, fighter = state.options, who.fighter
    name, value = derived_initiative(fighter, opts)
    combat = fighter.sheet.combat
    dodge = skill_like(who, "dodge", "Dodge", state)
    parry = skill_like(who, "parry", (combat.defend or combat.attack) if combat else "Brawling", state)
    ladder = state.ladder
    return ["derived (Atari Isev)",
            f"  initiative  {ladder.name(value)} ({value:+d})  {'from the sheet' if 'sheet' in name else 'mean of Perception, Agility, Intuition'} (AI-INIT-1)",
            f"  dodge       {ladder.name(dodge[1])} ({dodge[1]:+d})  {dodge[0]} (AI-ATK)",
            f"  parry       {ladder.name(parry[1])} ({parry[1]:+d})  {parry[0]} (AI-ATK)",
            ""]
