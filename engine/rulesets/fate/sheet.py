"""Fate's sheet (`fudge sheet`, asked through Fate's Reading): the template to fill in, and what `fudge sheet
check` reads of a sheet after its traits: the boxes (FT-TRACK-1), the aspects (FT-PTS) and the arms (FT-ARMS)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.sheet_text import level, row

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.options import RuleOptions
    from fudge_combat.engine.kernel.state import Combatant, FightState


def template(name: str, options: RuleOptions) -> list[str]:
    """The template's lines after the head: every field a Fate sheet may hold, valid as written."""
    average, fair = level(options, 0), level(options, 1)
    return [
        row(f"name = {json.dumps(name)}", "as the fight shows it (`fudge join --as` gives another)"),
        row('kind = "pc"', "pc, npc or major"),
        row("fate_points = 3", "FT-PTS: +1 to a roll each"),
        row('#side = "heroes"', "who fights together (default: the combatant's own name)"),
        "",
        row("[skills]", "a skill left out rolls at " + level(options, options.unlisted_skill).strip('"')),
        row(f"Swords = {fair}"),
        row(f"Alertness = {average}", "FT-INIT: orders turns"),
        row(f"Tactics = {average}", "FT-INIT: breaks ties"),
        "",
        row("[aspects]", "FT-PTS: an aspect and its check boxes (a reroll each)"),
        row("Brave = 1"),
        "",
        "[combat]",
        row('attack = "Swords"', "the skill an exchange or attack rolls"),
        row('#defend = "Swords"', "the skill that defends in turns (default: attack)"),
        "",
        row("[fate_weapon]", "FT-ARMS: superior +1 (dramatic); a rating under arms = \"simple\""),
        row('name = "sword"', "a name from the simple table, or give a rating"),
        row("#rating = 2", f"FT-SIMPLE: 0..{options.arms_rating_limit}"),
        row('#attributes = ["AP"]', "FT-ADV-2: AP, APx2, Flex, Vicious, Vcsx2, Locking"),
        "",
        row("[fate_armor]"),
        row('name = "leather"', "a name from the simple table, or give a rating"),
        row("#rating = 1", f"FT-SIMPLE: 0..{options.arms_rating_limit}"),
        row("#type = 1", "FT-ADV-1: armor type 0..8 under arms = \"advanced\""),
    ]


def check(state: FightState, who: Combatant) -> list[str]:
    """What the rules read of a joined sheet after its traits: the boxes, the aspects, the arms' ratings."""
    from fudge_combat.engine.rulesets.fate import rules as fate

    opts = state.options
    boxes = dict(zip(("Clipped", "Hurt", "Injured"), opts.fate_boxes))
    out = ["boxes (FT-TRACK-1)",
           "  " + "  ".join(f"{k} {'[ ]' * n}" for k, n in boxes.items()) + "  Taken Out [ ]"]
    aspects = who.fighter.sheet.aspects
    if aspects:
        out += ["", "aspects (FT-PTS)"] + [f"  {a} {'[ ]' * n}" for a, n in aspects.items()]
    out += ["", f"arms (FT-ARMS, {opts.arms})"]
    sheet = who.fighter.sheet
    if opts.arms == "dramatic":
        out.append(f"  weapon {sheet.fate_weapon.name if sheet.fate_weapon else 'none'}, "
                   f"armor {sheet.fate_armor.name if sheet.fate_armor else 'none'} (superior arms: +1 by the GM)")
    else:
        out.append(f"  weapon {sheet.fate_weapon.name if sheet.fate_weapon else 'none'} {fate.weapon_rating(who):+d}, "
                   f"armor {sheet.fate_armor.name if sheet.fate_armor else 'none'} {fate.armor_rating(who):+d}")
    return out + [""]
