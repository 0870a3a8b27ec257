"""Fudge's sheet (`fudge sheet`, asked through Fudge's Reading): the template to fill in, and what `fudge sheet
check` reads of a sheet after its traits: the damage factors (F-DMG) and the wound track (F-WND).

A variant of Fudge writes its own template from this one (`Variant`: the sections it writes otherwise) and
reads a sheet with Fudge's wound track beside its own sections (Atari Isev's `sheet`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct

from fudge_combat.engine.kernel.sheet_text import level, row

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.options import RuleOptions
    from fudge_combat.engine.kernel.state import Combatant, FightState


class Variant(Struct, frozen=True):
    """The sections of the template a variant of Fudge writes otherwise: each a function of the options and
    the levels they name (`fair`, `skill`: the ladder's Fair and one above), giving its lines."""

    gifts: str  # the gifts the rules read, for the comment on `gifts`
    attributes: Callable[[RuleOptions, str], list[str]]
    skills: Callable[[RuleOptions, str, str], list[str]]  # after `Sword`
    defend: str  # the `defend` line of [combat], with its comment
    weapon: tuple[str, ...]  # after Fudge's [weapon] lines
    wounds: str  # the comment on [wounds]
    tail: tuple[str, ...]  # after the [wounds] lines


def _attributes(options: RuleOptions, fair: str) -> list[str]:
    return [row(f"Strength = {fair}", "F-DMG-1: offensive damage factor"),
            row(f'"Damage Capacity" = {fair}', "F-DMG-2: defensive damage factor"),
            row(f"Agility = {fair}", "F-INIT, PH-3: initiative and dodging"),
            row(f"Perception = {fair}")]


def _skills(options: RuleOptions, fair: str, skill: str) -> list[str]:
    return [row(f"#Dodge = {fair}", "F-RNG-2: avoids a shot (default: Agility)"),
            row(f"#Bow = {fair}", "F-RNG: a ranged skill")]


FUDGE = Variant(
    gifts="High/Low Pain Threshold (F-DC), Combat Reflexes (F-INIT-2)", attributes=_attributes, skills=_skills,
    defend=row('defend = "Sword"', "the trait that defends (default: attack)"), weapon=(),
    wounds="this fighter's own boxes (default: the rules')", tail=())


def template(name: str, options: RuleOptions, variant: Variant = FUDGE) -> list[str]:
    """The template's lines after the head: every field a Fudge sheet may hold, valid as written."""
    fair = level(options, 0)
    skill = level(options, 1)
    points = options.default_fudge_points
    return [
        row(f"name = {json.dumps(name)}", "as the fight shows it (`fudge join --as` gives another)"),
        row('kind = "pc"', "pc, npc (no fudge points unless given here) or major"),
        row(f"fudge_points = {points}", f"C-FP-1: left out, a PC has {points} under these rules, an NPC "
                                        f"{options.npc_fudge_points}"),
        row("scale = 0", "F-DMG: Strength and Mass Scale, 0 for a human, +1 and up for bigger"),
        row('#side = "heroes"', "who fights together (default: the combatant's own name)"),
        row('#gifts = ["High Pain Threshold"]', f"gifts the rules read: {variant.gifts}"),
        row('#track = "pawn"', "F-WND-7: an NPC pawn's short track (Hurt, then out of the battle)"),
        "",
        row("[attributes]", "an attribute left out is " + level(options, options.missing_attribute).strip('"')),
        *variant.attributes(options, fair),
        "",
        row("[skills]", "a skill left out rolls at " + level(options, options.unlisted_skill).strip('"')),
        row(f"Sword = {skill}"),
        *variant.skills(options, fair, skill),
        "",
        "[combat]",
        row('attack = "Sword"', "the skill a blow rolls"),
        variant.defend,
        row('#ranged = "Bow"', "F-RNG: the skill a shot rolls (default: attack)"),
        row('#dodge = "Dodge"', "F-RNG-2: the trait that avoids a shot"),
        "",
        "[weapon]",
        row('name = "sword"'),
        row("damage = 2", "F-DMG-1: size + sharp + magic (a sword +2, a dagger +0, a greatsword +3)"),
        row("#blunt_heavy = false", "F-DMG-5: a blunt heavy weapon halves armor (option)"),
        row("#muscle_powered = true", "false: a gun or crossbow, Strength not added"),
        row('#ranged = "thrown"', "F-RNG-2: thrown or propelled, how a shot with it is dodged"),
        row("#tech = 0", "F-TECH: its tech level on the Scale track"),
        *variant.weapon,
        "",
        "[armor]",
        row('name = "leather"'),
        row("protection = 1", "F-DMG-2: +1 leather, +2 heavy leather or chain, +3 plate"),
        row("#tech = 0", "F-TECH: its tech level on the Scale track"),
        "",
        row("#[shield]", "F-MOD-4: a shield adds to the defense"),
        row('#size = "medium"', "small, medium or large"),
        "",
        row("#[wounds]", variant.wounds),
        row(f"#boxes = {list(options.wound_boxes)}", "Scratch, Hurt, Very Hurt, Incapacitated, Near Death"),
        *variant.tail,
    ]


def check(state: FightState, who: Combatant) -> list[str]:
    """Fudge's sections after the traits: the damage factors and the wound track."""
    return damage_factors(state, who) + track(state, who)


def damage_factors(state: FightState, who: Combatant) -> list[str]:
    """F-DMG: the offensive and defensive damage factors, and the options that change how damage is read."""
    from fudge_combat.engine.rulesets.fudge import damage

    opts, fighter, sheet = state.options, who.fighter, who.fighter.sheet
    weapon = sheet.weapon
    strength = fighter.trait("Strength", opts)[1]
    offense = damage.offensive_factor(fighter, opts)
    what = (f"{weapon.name} {weapon.damage:+d}" if weapon else f"no weapon {damage.NO_WEAPON:+d}")
    uses_strength = weapon is None or weapon.muscle_powered
    out = ["damage factors (F-DMG)",
           f"  offensive  {offense:+d}  = {'Strength ' + format(strength, '+d') + ', ' if uses_strength else ''}"
           f"Scale {sheet.scale:+d}, {what}"]
    armor = sheet.armor.protection if sheet.armor else 0
    parts = [f"Scale {sheet.scale:+d}", f"{sheet.armor.name if sheet.armor else 'no armor'} {armor:+d}"]
    if opts.dc_in_defense:
        parts.insert(0, f"Damage Capacity {fighter.trait('Damage Capacity', opts)[1]:+d}")
    out.append(f"  defensive  {damage.defensive_factor(fighter, fighter, opts):+d}  = {', '.join(parts)}")
    if sheet.shield:
        out.append(f"  shield     {sheet.shield.size} (F-MOD-4: to the defense roll)")
    if opts.damage_capacity != "modifier":
        out.append(f"  Damage Capacity as {opts.damage_capacity} (F-DC)")
    if opts.damage_system == "min_mid_max":
        out.append("  damage rolled min-mid-max (F-MMM)")
    return out + [""]


def track(state: FightState, who: Combatant) -> list[str]:
    """F-WND: the fighter's wound track, each level's boxes and what it leaves him, and the damage bands."""
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound
    from fudge_combat.engine.rulesets.fudge.campaign import health_chart
    from fudge_combat.engine.rulesets.fudge.tracks import DamageCapacityTrack, is_pawn, track_of
    from fudge_combat.engine.kernel.wounds import LEVELS, Mark
    from fudge_combat.engine.kernel.state import replace

    opts, sheet = state.options, who.fighter.sheet
    thresholds = opts.wound_thresholds
    if opts.wound_chart == "health" and not sheet.wounds:
        thresholds = health_chart(who.fighter.trait("Health", opts)[1]).thresholds
    kind = "an NPC pawn's (F-WND-7)" if is_pawn(sheet) else \
        "on Damage Capacity (F-WND-8)" if isinstance(who.track, DamageCapacityTrack) else \
        "the sheet's own boxes" if sheet.wounds else \
        "Health's chart (AI-WND-1)" if opts.wound_chart == "health" else "the rules' boxes (F-WND-2)"
    out = [f"wound track, {kind}"]
    if isinstance(who.track, DamageCapacityTrack):
        out += capacity_track(state, who)
    else:
        cells = []
        for rank, boxes in enumerate(who.track.boxes, start=1):
            marked = replace(who, track=track_of(who.fighter, who.boxes, (Mark(rank, 1),), opts))
            effect = "no actions" if not marked.track.can_act else f"{acting_wound(state, marked)[1]:+d}"
            cells.append(f"{LEVELS[rank]} {'[ ]' * len(boxes)} {effect}" if boxes else f"{LEVELS[rank]} (no box)")
        out += ["  " + "  ".join(cells[:3]), "  " + "  ".join(cells[3:])]
    bands = []
    for index, low in enumerate(thresholds):
        high = thresholds[index + 1] - 1 if index + 1 < len(thresholds) else None
        span = f"{low}" if high == low else f"{low}-{high}" if high is not None else f"{low}+"
        bands.append(f"{span} {LEVELS[index + 1]}")
    out.append(f"  damage {', '.join(bands)} (F-DMG-4" + (", AI-WND-1)" if opts.wound_chart == "health" else ")"))
    return out + [""]


def capacity_track(state: FightState, who: Combatant) -> list[str]:
    """F-WND-8: the level and penalty after each hit worse than a Scratch, until no actions are left."""
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound
    from fudge_combat.engine.kernel.state import replace
    from fudge_combat.engine.rulesets.fudge.tracks import DamageCapacityTrack, track_of
    from fudge_combat.engine.kernel.wounds import HURT, LEVELS, Mark

    opts = state.options
    capacity = who.track
    assert isinstance(capacity, DamageCapacityTrack)  # asked for such a track only
    out = [f"  Damage Capacity {state.ladder.name(capacity.capacity)} ({capacity.capacity:+d}), a level lower "
           f"per hit worse than a Scratch (three Scratches: a hit)"]
    steps = []
    for hits in range(1, 12):
        track = track_of(who.fighter, who.boxes, tuple(Mark(HURT, seq) for seq in range(1, hits + 1)), opts)
        hit = replace(who, track=track)
        effect = "no actions" if not track.can_act else f"{acting_wound(state, hit)[1]:+d}"
        steps.append(f"{hits} hit{'s' if hits > 1 else ''}: {LEVELS[track.level]} {effect}")
        if not track.can_act:
            break
    return out + ["  " + ", ".join(steps[i:i + 3]) for i in range(0, len(steps), 3)]
