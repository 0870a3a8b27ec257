"""`fudge sheet`: a sheet template to fill in, a check of how the rules read a sheet, and the JSON Schemas of
the sheet and house-rules files for editors.

Nothing here is a rule: the check joins the sheet to a fight of its own through the same `decide` as
`fudge join` (so it refuses what `join` refuses, in the same words), then shows what the engine's own
functions read of it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from fudge_combat.events.records import json_form
from fudge_combat.cli.context import echo, guard, house_rules, read_file, write_file
from fudge_combat.cli.terminal import safe
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.reading import ruleset_named, ruleset_of

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.options import RuleOptions
    from fudge_combat.engine.kernel.state import Combatant, FightState

app = typer.Typer()
sheet_app = typer.Typer(help="Character sheets: a template to fill in, a check of how the rules read one, "
                             "the JSON Schemas editors check them with.", no_args_is_help=True)
app.add_typer(sheet_app, name="sheet")

RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Preset: see `fudge rules`.")]
HouseOpt = Annotated[Optional[Path], typer.Option("--house", help="House-rules TOML: extends a preset, overrides options.")]


@sheet_app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="The character's name.")],
    output: Annotated[Optional[Path], typer.Option(
        "--output", "-o", help="The file to write (default: NAME.toml here; - for the terminal).")] = None,
    rules: RulesOpt = "fudge",
    house: HouseOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the file if it exists.")] = False,
) -> None:
    """Write a commented sheet to fill in, valid as written.

    Every field a sheet may hold under these rules, in the GM's words: `fudge join` takes the file
    unchanged, and the optional fields are commented out (`#key = ...`). An existing file is never
    overwritten without --force."""
    from fudge_combat.engine.kernel.sheets import parse_sheet

    with guard():
        rules_name, options = house_rules(rules, house)
        rules_args = (f" --rules {rules}" if rules != "fudge" else "") + (f" --house {house}" if house else "")
        text = template(name, rules_name, options, rules_args)
        parse_sheet(text, f"sheet name {name!r}")  # the name is checked as a sheet checks it
        if output is not None and str(output) == "-":
            echo(text, nl=False, lines=True)
            return
        path = output if output is not None else Path(f"{file_name(name)}.toml")
        if path.exists() and not force:
            raise InputError(f"{path} exists: name another file with -o, or overwrite it with --force")
        write_file(path, text)
        echo(f"wrote {path}: fill it in, then `fudge sheet check {path}{rules_args}`")


def file_name(name: str) -> str:
    """`Grok the Orc` -> `grok-the-orc`: a file name any shell takes without quotes."""
    return re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-") or "sheet"


def template(name: str, rules_name: str, options: RuleOptions, rules_args: str = "") -> str:
    """The sheet template of a ruleset: live fields hold a value that joins; `#key = ...` lines are optional.
    `rules_args`: how `fudge sheet check` is told these rules (`--rules fate`, `--house FILE`)."""
    ladder = _ladder_text(options)
    rules = ruleset_named(options.ruleset)
    body = rules.sheet_template(name, options)
    head = [f"# A character sheet for {rules_name} ({options.ruleset} rules). Fill it in; then",
            f"# `fudge sheet check FILE{rules_args}` shows how the rules read it, and",
            "# `fudge join FILE` brings it into the current fight.",
            "# Levels: " + ladder + ", or a signed number.",
            "# A line starting with `#` and no space is optional: delete the `#` to use it.",
            "# Editors with Even Better TOML (taplo) check the file against schemas/sheet.schema.json",
            "# when its first line is `#:schema PATH/schemas/sheet.schema.json`.",
            ""]
    return "\n".join(head + body) + "\n"


def _ladder_text(options: RuleOptions) -> str:
    from fudge_combat.engine.kernel.ladder import ladder_of

    return ", ".join(name for name, _ in ladder_of(options).names)


@sheet_app.command("check")
def check(
    sheet: Annotated[Path, typer.Argument(help="The sheet (TOML).")],
    rules: RulesOpt = "fudge",
    house: HouseOpt = None,
) -> None:
    """Check a sheet as `fudge join` would, and show how the rules read it.

    Errors are the one line `fudge join` gives. A valid sheet shows its traits and levels, the damage
    factors (F-DMG), the wound track, Atari Isev's derived traits (AI-INIT-1, AI-DMG-1) or Fate's
    boxes, aspects and arms. Nothing is stored."""
    from fudge_combat.engine.odds.duel import setup
    from fudge_combat.engine.kernel.sheets import parse_sheet, unlisted_combat_traits

    with guard():
        rules_name, options = house_rules(rules, house)
        parsed = parse_sheet(read_file(sheet, "sheet"), str(sheet))
        state, names = setup(rules_name, options, [(json_form(parsed), str(sheet))])
        warnings = unlisted_combat_traits(parsed, state.options, state.ladder, str(sheet))
        who = state.combatants[names[0].lower()]
        lines = [f"{sheet}: a valid sheet under {rules_name}", ""] + reading(state, who)
        lines += [f"warning: {w}" for w in warnings]
        echo("\n".join(safe(line) for line in lines), lines=True)


def reading(state: FightState, who: Combatant) -> list[str]:
    """What the rules read of one combatant, section by section."""
    sheet = who.fighter.sheet
    points = f"{ruleset_of(state).points} points"
    side = f", side {sheet.side}" if sheet.side else ""
    lines = [f"{who.name} ({sheet.kind}{side}, scale {sheet.scale:+d}, {points} {who.fudge_points})"]
    if sheet.gifts:
        lines.append(f"gifts: {', '.join(sheet.gifts)}")
    lines.append("")
    lines += _traits(state, who)
    rules = ruleset_of(state)
    return lines + rules.sheet_check(state, who)


def _traits(state: FightState, who: Combatant) -> list[str]:
    ladder, opts, sheet = state.ladder, state.options, who.fighter.sheet
    roles: dict[str, list[str]] = {}
    combat = sheet.combat
    for role in ("attack", "defend", "ranged", "dodge"):
        trait = getattr(combat, role, None) if combat else None
        if trait:
            roles.setdefault(who.fighter.trait(trait, opts)[0].lower(), []).append(role)
    rows = [(k, v, "attribute") for k, v in who.fighter.attributes.items()]
    rows += [(k, v, "skill") for k, v in who.fighter.skills.items()]
    width = max((len(k) for k, _, _ in rows), default=5)
    lines = ["traits (C-LAD)"]
    for key, value, kind in rows:
        plus = "+" if key in who.fighter.plus else ""
        used = f"  [{', '.join(roles[key.lower()])}]" if key.lower() in roles else ""
        lines.append(f"  {key:<{width}}  {ladder.name(value)}{plus} ({value:+d}) {kind}{used}")
    for role in ("attack", "defend", "ranged", "dodge"):
        trait = getattr(combat, role, None) if combat else None
        if trait and who.fighter.trait(trait, opts)[2] != "sheet":
            _, level, source = who.fighter.trait(trait, opts)
            lines.append(f"  {trait}: not on the sheet, rolls at the default {ladder.name(level)} "
                         f"as a {'missing attribute' if source == 'missing attribute' else 'skill'} [{role}] (C-ACT-1)")
    if not combat:
        lines.append("  no [combat] table: a blow names no skill (give attack = SKILL)")
    return lines + [""]


@sheet_app.command("schema")
def schema(
    house: Annotated[bool, typer.Option("--house", help="The house-rules file's schema, not the sheet's.")] = False,
) -> None:
    """Print the JSON Schema of a sheet file, or with --house of a house-rules file.

    Made from the models the files are read with; schemas/ in the source holds both, for editors
    (docs/sheets.md)."""
    with guard():
        echo(schema_text(house), nl=False, lines=True)


def schema_text(house: bool) -> str:
    return json.dumps(house_schema() if house else sheet_schema(), indent=2, ensure_ascii=False) + "\n"


SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


# What each field of a sheet means, in a GM's words: the schema's descriptions (editors show them on hover).
SHEET_WORDS = {
    "name": "the combatant's name, as the fight shows it (`fudge join --as` gives another)",
    "kind": "pc, npc (no fudge points unless given) or major (a major NPC)",
    "side": "who fights together (default: the combatant's own name)",
    "scale": "F-DMG: Strength and Mass Scale, 0 for a human",
    "fudge_points": "C-FP-1: the fudge-point pool (default: the rules' for a PC, none for an NPC)",
    "attributes": "attribute = level: a ladder name (Fair, Good...) or a signed number",
    "skills": "skill = level: a ladder name (Fair, Good...) or a signed number",
    "gifts": "gifts the rules read: High/Low Pain Threshold (F-DC), Combat Reflexes (F-INIT-2), Ambidextrous (AI)",
    "combat": "the traits a blow, a defense, a shot and a dodge roll",
    "weapon": "F-DMG-1: the weapon in hand",
    "armor": "F-DMG-2: the armor worn",
    "shield": "F-MOD-4: a shield",
    "wounds": "this fighter's own wound boxes (default: the rules')",
    "track": "F-WND-7: `pawn` for an NPC pawn's short track",
    "off_hand": "AI-MULTI-ATK: a weapon in the other hand",
    "aspects": "FT-PTS: aspect = number of check boxes (a reroll each)",
    "fate_weapon": "FT-ARMS: a Fate weapon, by name from the simple table or with a rating",
    "fate_armor": "FT-ARMS: Fate armor, by name from the simple table or with a rating",
    "attack": "the skill a blow rolls",
    "defend": "the trait that defends (default: attack); under Atari Isev a name with `dodge` dodges",
    "ranged": "F-RNG: the skill a shot rolls (default: attack); on a weapon: thrown or propelled",
    "dodge": "F-RNG-2: the trait that avoids a shot (default: Dodge, else Agility)",
    "protection": "F-DMG-2: +1 leather, +2 heavy leather or chain, +3 plate",
    "blunt_heavy": "F-DMG-5: a blunt heavy weapon halves armor (option)",
    "muscle_powered": "false: a gun or crossbow, Strength is not added",
    "tech": "F-TECH: its tech level on the Scale track (GM-set)",
    "light": "AI-MULTI-ATK: a small light weapon (dagger, fist) allows two attacks",
    "two_handed": "held in both hands",
    "size": "small, medium or large",
    "boxes": "boxes for Scratch, Hurt, Very Hurt, Incapacitated, Near Death",
    "rating": "FT-SIMPLE: a rating 0..4 (a house rule raises the limit)",
    "type": "FT-ADV-1: armor type 0..8 (arms = \"advanced\")",
    # Words for a field of one model only (`Model.field`), where the same name means another thing.
    "Weapon.name": "the weapon's name, as the log shows it (a sword, an axe)",
    "Armor.name": "the armor's name, as the log shows it",
    "FateWeapon.name": "the weapon's name: under simple arms, a name from the table gives its rating",
    "FateArmor.name": "the armor's name: under simple arms, a name from the table gives its rating",
    "FateWeapon.attributes": "FT-ADV-2: its advanced attributes, a list such as [\"AP\", \"Flex\"]",
}


def editor_ready(node: Any, words: dict[str, str] | None = None) -> Any:
    """A schema as a TOML editor reads it: TOML has no null, so `null` choices and defaults go; a field
    without a description takes the GM's words for it."""
    if isinstance(node, list):
        return [editor_ready(item, words) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: editor_ready(v, words) for k, v in node.items() if not (k == "default" and v is None)}
    choices = [c for c in out.get("anyOf", ()) if c != {"type": "null"}]
    if "anyOf" in out:
        if len(choices) == 1:
            del out["anyOf"]
            out = {**choices[0], **out}
        else:
            out["anyOf"] = choices
    if words and isinstance(out.get("properties"), dict):
        for key, field in out["properties"].items():
            said = words.get(f"{out.get('title')}.{key}", words.get(key))
            if isinstance(field, dict) and "description" not in field and said is not None:
                field["description"] = said
    return out


def sheet_schema() -> dict[str, Any]:
    """The sheet model's schema, with `fate_points` (read as `fudge_points`, C-FP-4) beside it."""
    from fudge_combat.engine.kernel.models import Sheet

    schema = editor_ready(Sheet.model_json_schema(), SHEET_WORDS)
    schema["properties"]["fate_points"] = {"type": "integer", "minimum": 0, "title": "Fate Points",
                                           "description": "C-FP-4: the fudge-point pool under its Fate name "
                                                          "(give it or fudge_points, not both)"}
    schema["not"] = {"required": ["fate_points", "fudge_points"]}
    return {"$schema": SCHEMA_DIALECT, **schema,
            "title": "fudge character sheet",
            "description": "A character sheet for `fudge join` (levels are ladder names or signed numbers)."}


def house_schema() -> dict[str, Any]:
    """The options' schema as a house file writes them: `extends` and `name` beside them, `ladder` as a name or a
    [ladder] table, named wound tables, every option optional."""
    from fudge_combat.engine.kernel.models import WOUND_BOXES, WOUND_THRESHOLDS, RuleOptions
    from fudge_combat.engine.kernel.presets import presets
    from fudge_combat.engine.kernel.registry import names as ruleset_names

    schema = editor_ready(RuleOptions.model_json_schema())
    props = schema["properties"]
    ruleset = {**props["ruleset"], "enum": ruleset_names()}  # a name of the rulesets there are, built in or installed
    ruleset.pop("maxLength", None)
    props["ruleset"] = dict(sorted(ruleset.items()))  # in the order the schema lists a choice's keys
    props["ladder"] = {"anyOf": [props["ladder"], {
        "type": "object", "additionalProperties": {"type": "integer"},
        "description": "C-LAD-1: a house ladder, `Name = value` for each level, one step apart"}],
        "description": props["ladder"].get("description", "")}
    for key, names in (("wound_thresholds", WOUND_THRESHOLDS), ("wound_boxes", WOUND_BOXES)):
        props[key] = {"anyOf": [props[key], {"enum": list(names)}], "description": props[key].get("description", "")}
    schema["properties"] = {
        "extends": {"enum": list(presets()), "description": "the preset these house rules start from"},
        "name": {"type": "string", "minLength": 1, "description": "the house rules' name, as `fudge status` shows it"},
        **props}
    schema.pop("required", None)
    return {"$schema": SCHEMA_DIALECT, **schema, "title": "fudge house rules",
            "description": "House rules for `fudge new --house`: a preset (extends) and the options it changes."}
