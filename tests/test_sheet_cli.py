"""`fudge sheet`: the template joins as written under every preset, `check` refuses what `join` refuses and
shows what the rules read (worked by hand from the sheets below), and the committed JSON Schemas are the
models' own and accept exactly the example files."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
import jsonschema
import pytest

from fudge_combat.events.records import json_form
from fudge_combat.cli.sheet import schema_text, template
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.odds.duel import setup
from fudge_combat.engine.kernel.presets import PRESETS, resolve
from fudge_combat.engine.kernel.sheets import parse_sheet, unlisted_combat_traits
from tests.processes import fudge

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"
HOUSES = ROOT / "examples" / "house"
OPTIONAL = re.compile(r"^#(?=[\w\"\[])")  # `#key = ...` or `#[table]`: an optional line of the template


def validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((ROOT / "schemas" / f"{kind}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def joins(text: str, rules: str, house: str | None = None) -> list[str]:
    """The sheet joins a fight of these rules through `decide`, as `fudge join` does; its warnings."""
    label, options = resolve(rules, house)
    sheet = parse_sheet(text, "template")
    state, _ = setup(label, options, [(json_form(sheet), "template")])
    return unlisted_combat_traits(sheet, state.options, state.ladder, "template")


@pytest.mark.parametrize("kind", ["sheet", "house"])
def test_committed_schemas_are_the_models_own(kind: str) -> None:
    """schemas/*.schema.json are what `fudge sheet schema [--house]` prints today: regenerate them after a
    change to the sheet or the options (docs/sheets.md)."""
    assert (ROOT / "schemas" / f"{kind}.schema.json").read_text() == schema_text(kind == "house")


def test_every_example_file_meets_its_schema() -> None:
    sheets, houses = validator("sheet"), validator("house")
    for path in SHEETS.glob("*.toml"):
        assert not list(sheets.iter_errors(tomllib.loads(path.read_text()))), path
    for path in HOUSES.glob("*.toml"):
        assert not list(houses.iter_errors(tomllib.loads(path.read_text()))), path


@pytest.mark.parametrize("broken", [
    'name = "A"\nfudge_point = 2\n',  # a misspelt key
    'name = "A"\n[weapon]\ndamage = "big"\n',  # a number expected
    'name = "A"\nkind = "boss"\n',  # not one of the kinds
    'name = "A"\nfate_points = 1\nfudge_points = 1\n',  # one pool, two names (C-FP-4)
    'name = "A"\n[shield]\nsize = "huge"\n',
])
def test_the_schema_refuses_what_the_reader_refuses(broken: str) -> None:
    with pytest.raises(InputError):
        parse_sheet(broken, "broken")
    assert list(validator("sheet").iter_errors(tomllib.loads(broken)))


def test_a_house_ladder_table_and_named_tables_meet_the_house_schema() -> None:
    """C-LAD-1, F-WND-2, F-DMG-4: a [ladder] table and named tracks are house-file forms the options' own
    model does not take as they are written; the house schema does, and refuses an unknown option."""
    house = 'extends = "fudge"\nwound_boxes = "cinematic"\nwound_thresholds = "epic"\n[ladder]\nLow = -1\nMid = 0\nHigh = 1\n'
    resolve("fudge", house)  # the reader takes it
    houses = validator("house")
    assert not list(houses.iter_errors(tomllib.loads(house)))
    assert list(houses.iter_errors({"extends": "fudge", "wound_box": [3, 1, 1, 1, 1]}))
    assert list(houses.iter_errors({"extends": "gurps"}))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_template_joins_as_written_and_with_every_optional_line(preset: str) -> None:
    """The template is a valid sheet of its ruleset with no warning; with each optional line uncommented it
    still reads and joins (a trait it names but lacks only warns, C-ACT-1), and both meet the schema."""
    _, options = resolve(preset)
    text = template("Grok the Orc", preset, options)
    assert joins(text, preset) == []
    assert parse_sheet(text, "t").name == "Grok the Orc"
    every = "\n".join(OPTIONAL.sub("", line) for line in text.splitlines())
    assert every != text
    joins(every, preset)
    sheets = validator("sheet")
    for written in (text, every):
        assert not list(sheets.iter_errors(tomllib.loads(written)))


def test_a_house_ladders_template_is_written_in_its_levels() -> None:
    """C-LAD-1: under a house ladder the template's levels are the ladder's own names, and it joins."""
    house = 'extends = "fudge"\n[ladder]\nLow = -1\nMid = 0\nHigh = 1\n'
    label, options = resolve("fudge", house)
    text = template("Ann", label, options, " --house ours.toml")
    assert "# Levels: Low, Mid, High, or a signed number." in text and 'Strength = "Mid"' in text
    assert "`fudge sheet check FILE --house ours.toml`" in text
    assert joins(text, "fudge", house) == []


def test_sheet_new_writes_a_file_that_fudge_join_takes_and_never_overwrites(tmp_path: Path) -> None:
    store = tmp_path / "fudge.db"
    made = fudge("sheet", "new", "Kara", "--rules", "atari-isev", store=store)
    path = tmp_path / "kara.toml"
    assert made.returncode == 0, made.stderr
    assert path.is_file() and "kara.toml" in made.stdout
    written = path.read_text()
    assert fudge("new", "duel", "--rules", "atari-isev", store=store).returncode == 0
    joined = fudge("join", str(path), store=store)
    assert joined.returncode == 0 and joined.stdout == "Kara joins duel (side Kara)\n", joined.stderr
    again = fudge("sheet", "new", "Kara", store=store)
    assert again.returncode != 0 and again.stdout == ""
    assert again.stderr == "error: kara.toml exists: name another file with -o, or overwrite it with --force\n"
    assert path.read_text() == written
    forced = fudge("sheet", "new", "Kara", "--force", store=store)  # the fudge preset's template now
    assert forced.returncode == 0 and path.read_text() != written
    shown = fudge("sheet", "new", "Kara", "-o", "-", "--rules", "fate", store=store)
    assert shown.stdout.startswith("# A character sheet for fate") and 'name = "Kara"' in shown.stdout


def test_check_shows_fudge_damage_factors_and_track(tmp_path: Path) -> None:
    """F-DMG-1, F-DMG-2, F-WND-2: Snorri (Strength Good +1, Scale 0, a +4 sword) has an offensive factor of
    1 + 0 + 4 = +5; (Damage Capacity Good +1, heavy leather +2) a defensive factor of +3; the fudge preset's
    track is 3 Scratch boxes and one of each other level, Hurt -1, Very Hurt -2 (F-MOD-1)."""
    done = fudge("sheet", "check", str(SHEETS / "snorri.toml"), store=tmp_path / "fudge.db")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"offensive +\+5 ", out) and re.search(r"defensive +\+3 ", out)
    assert "Scratch [ ][ ][ ] +0  Hurt [ ] -1  Very Hurt [ ] -2" in out
    assert "Incapacitated [ ] no actions" in out
    assert re.search(r"Sword +Great \(\+2\) skill +\[attack, defend\]", out)
    assert not (tmp_path / "fudge.db").exists()  # nothing stored


def test_check_shows_a_damage_capacity_track_and_a_pawn(tmp_path: Path) -> None:
    """F-WND-8: on a Damage Capacity track Snorri (DC Good, +1) is Fair after one hit (still a Scratch),
    Mediocre after two (Hurt, -1), Poor after three (Very Hurt), below Terrible after five (Incapacitated).
    F-WND-7: a pawn has one Hurt box, then is out of the battle; a Scratch marks nothing."""
    house = tmp_path / "dc.toml"
    house.write_text('extends = "fudge"\ndc_track = true\ndc_in_defense = false\n')
    done = fudge("sheet", "check", str(SHEETS / "snorri.toml"), "--house", str(house), store=tmp_path / "db")
    assert done.returncode == 0, done.stderr
    assert "1 hit: Scratch +0, 2 hits: Hurt -1, 3 hits: Very Hurt -2" in done.stdout
    assert "5 hits: Incapacitated no actions" in done.stdout
    assert re.search(r"defensive +\+2 +=  ?Scale", done.stdout)  # no Damage Capacity in the defense now
    pawn = tmp_path / "thug.toml"
    pawn.write_text('name = "Thug"\nkind = "npc"\ntrack = "pawn"\n[skills]\nClub = "Fair"\n[combat]\nattack = "Club"\n')
    done = fudge("sheet", "check", str(pawn), store=tmp_path / "db")
    assert "an NPC pawn's (F-WND-7)" in done.stdout
    assert "Scratch (no box)  Hurt [ ] -1" in done.stdout and "Incapacitated [ ] no actions" in done.stdout


def test_check_shows_atari_isev_derived_traits(tmp_path: Path) -> None:
    """AI-INIT-1, AI-DMG-1, AI-WND-1: Dwarzuga's initiative is round((Perception 0 + Agility 0 + Intuition -1)
    / 3) = 0, Fair; basic damage Strength +1 + axe +2 + Scale +1 = +4; Health Good reads the +1 chart: four
    Scratch boxes."""
    done = fudge("sheet", "check", str(SHEETS / "dwarzuga.toml"), "--rules", "atari-isev", store=tmp_path / "db")
    assert done.returncode == 0, done.stderr
    assert re.search(r"initiative +Fair \(\+0\) +mean of Perception, Agility, Intuition", done.stdout)
    assert re.search(r"basic damage +\+4 ", done.stdout)
    assert "Scratch [ ][ ][ ][ ] +0" in done.stdout and "Health's chart" in done.stdout


def test_check_shows_fate_boxes_and_aspects(tmp_path: Path) -> None:
    """FT-TRACK-1, FT-PTS: the fate preset's 2/2/2 boxes and Taken Out; Cyrus's aspect Brawler with 2 boxes."""
    done = fudge("sheet", "check", str(SHEETS / "cyrus.toml"), "--rules", "fate", store=tmp_path / "db")
    assert done.returncode == 0, done.stderr
    assert "Clipped [ ][ ]  Hurt [ ][ ]  Injured [ ][ ]  Taken Out [ ]" in done.stdout
    assert "Brawler [ ][ ]" in done.stdout and "fate points 3" in done.stdout


@pytest.mark.parametrize("text", [
    'name = "Ann"\n[skills]\nSword = "Grand"\n[combat]\nattack = "Sword"\n',  # not a level
    'name = "Ann"\n[skills]\nSword = "Good"\n[combat]\nattack = "Swrod"\n',  # a typo of a trait
    'name = "Ann"\n[weapon]\ndamage = 2\nsharp = true\n',  # an unknown key
])
def test_check_refuses_what_join_refuses_in_the_same_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "ann.toml"
    path.write_text(text)
    store = tmp_path / "fudge.db"
    checked = fudge("sheet", "check", str(path), store=store)
    assert fudge("new", "duel", store=store).returncode == 0
    joined = fudge("join", str(path), store=store)
    assert checked.returncode != 0 and checked.stdout == ""
    assert checked.stderr.startswith("error: ") and checked.stderr.count("\n") == 1
    assert checked.stderr == joined.stderr


def test_the_template_names_every_field_of_its_ruleset() -> None:
    """Every top-level field a sheet may hold appears in some template (live or optional), and each ruleset's
    own: Fate's aspects and arms in Fate's, Atari Isev's off hand in its own."""
    from fudge_combat.engine.kernel.sheets import Sheet

    texts = {p: template("A", p, resolve(p)[1]) for p in PRESETS}
    keys = {p: {m.group(1) for m in re.finditer(r"^#?\[?\"?([a-z_]+)", t, re.M)} for p, t in texts.items()}
    every = set().union(*keys.values())
    assert set(Sheet.__struct_fields__) <= every
    assert {"aspects", "fate_weapon", "fate_armor", "fate_points"} <= keys["fate"]
    assert "off_hand" in keys["atari-isev"] and "off_hand" not in keys["fudge"]


def test_a_field_name_shared_by_two_models_is_described_for_each() -> None:
    """`name` is the combatant's on a sheet and the weapon's on a weapon: an editor shows each its own words."""
    schema = json.loads(schema_text(house=False))
    defs = schema["$defs"]
    assert "combatant" in schema["properties"]["name"]["description"]
    assert defs["Weapon"]["properties"]["name"]["description"].startswith("the weapon's name")
    assert defs["FateArmor"]["properties"]["name"]["description"].startswith("the armor's name")
    assert "list" in defs["FateWeapon"]["properties"]["attributes"]["description"]
