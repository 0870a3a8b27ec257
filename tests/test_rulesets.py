"""Presets and house rules: named tables, house ladders, combinations refused, `rules show`, demos.

C-LAD-1, C-LAD-4, C-LAD-5 on a house ladder; F-WND-2's named tracks; the
combination check that runs when a fight is set up (and never on replay).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import PRESETS, option_rule, resolve
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from tests.conftest import sheet
from tests.test_cli import Fudge, fudge  # noqa: F401  (the fixture)

NINE = """
extends = "fudge"
name = "fudge9"
[ladder]
Abysmal = -4
Terrible = -3
Poor = -2
Mediocre = -1
Fair = 0
Good = 1
Great = 2
Superb = 3
Legendary = 4
"""


def test_F_WND_2_named_tracks_stand_for_their_boxes() -> None:
    """F-WND-2: `realistic`, `cinematic` and `epic` name the boxes; the boxes are what a fight stores."""
    boxes = {name: resolve("fudge", f'wound_boxes = "{name}"')[1].wound_boxes
             for name in ("realistic", "cinematic", "epic")}
    assert boxes == {"realistic": (3, 1, 1, 1, 1), "cinematic": (4, 2, 1, 1, 1), "epic": (3, 2, 2, 1, 1)}
    assert resolve("fudge", "wound_boxes = [3, 3, 2, 1, 1]")[1].wound_boxes == (3, 3, 2, 1, 1)
    assert json_form(resolve("fudge", 'wound_boxes = "cinematic"')[1])["wound_boxes"] == [4, 2, 1, 1, 1]
    with pytest.raises(InputError, match="unknown track 'heroic'.*realistic, cinematic, epic"):
        resolve("fudge", 'wound_boxes = "heroic"')


def test_C_LAD_1_C_LAD_4_C_LAD_5_a_house_ladder_reads_and_shows_its_own_levels(fights: Fights) -> None:
    """C-LAD-1, C-LAD-4, C-LAD-5: a [ladder] table; sheets read on it; results beyond it show the excess."""
    label, options = resolve("fudge", NINE)
    assert (label, options.ladder) == ("fudge9", "house")
    assert options.ladder_levels[0] == ("Abysmal", -4) and options.ladder_levels[-1] == ("Legendary", 4)
    fights.new("nine", label, json_form(options))
    fights.execute("nine", cmd.Join(sheet=sheet("Ogre", skills={"Club": "Legendary"}, attributes={"Agility": "abysmal"},
                                                attack="Club"), source="ogre.toml"))
    state = fights.state("nine")
    ogre = state.combatants["ogre"].fighter
    assert (ogre.skills["Club"], ogre.attributes["Agility"]) == (4, -4)
    assert [state.ladder.name(v) for v in (-6, -4, 0, 4, 6)] == ["Abysmal-2", "Abysmal", "Fair", "Legendary", "Legendary+2"]
    with pytest.raises(InputError, match="unknown level 'Epic' on the house ladder.*Abysmal \\(-4\\)"):
        state.ladder.parse("Epic")
    # The ladder lives in the fight's first event: a replay reads the same levels.
    assert replay(fights.log("nine")).ladder.name(4) == "Legendary"


@pytest.mark.parametrize("table, problem", [
    ("Poor = -2\nFair = 0\nGood = 1", "one step apart"),
    ("Poor = -1\nFair = 0\nfair = 1", "names a level twice"),
    ("Poor = -1\nFair = 0", "at least three levels"),
    ('Poor = -1\nFair = "zero"\nGood = 1', "whole number"),
])
def test_C_LAD_1_a_broken_house_ladder_is_refused_with_the_reason(table: str, problem: str) -> None:
    """C-LAD-1: levels are whole numbers one step apart, each named once."""
    with pytest.raises(InputError, match=problem):
        resolve("fudge", f'extends = "fudge"\n[ladder]\n{table}\n')


@pytest.mark.parametrize("house, reason", [
    ('initiative = "phases-crunch"', "simultaneous rounds need no turn order"),
    ('pace = "story"\ninitiative = "opposed"', "story elements"),
    ('pace = "alternating"\ninitiative = "phases-classic"\nbartering = "crunch"', "needs initiative = \"phases-crunch\""),
    ('pace = "alternating"\ninitiative = "phases-crunch"\nbartering = "classic"', "needs initiative = \"phases-classic\""),
    ('spares_as_points = true', "CT-SPARE"),
    ('pace = "alternating"\nphase_declaration = "structured"', "PH-4"),
    ('ladder = "house"', "needs a \\[ladder\\] table"),
])
def test_a_combination_that_makes_no_sense_is_refused_with_a_reason(house: str, reason: str) -> None:
    """F-INIT-1, F-PACE-1, PH-6: options that cannot run together are refused when a fight is set up."""
    with pytest.raises(InputError, match=reason):
        resolve("fudge", house)


def test_a_refused_combination_writes_nothing(fudge: Fudge, tmp_path: Path) -> None:
    """`fudge new` with a bad combination: one line on stderr, no fight, nothing stored."""
    house = tmp_path / "bad.toml"
    house.write_text('extends = "fudge"\ninitiative = "phases-crunch"\n')
    fudge("new", "other")  # a store with a fight in it (reading commands such as `fights` never create one)
    before = fudge.written()
    assert "simultaneous rounds need no turn order" in fudge.fails("new", "bad", "--house", house)
    assert fudge.written() == before


def test_the_check_is_for_new_fights_never_for_replay(fights: Fights) -> None:
    """A fight recorded under looser checks replays: the options in its first event are taken as they are."""
    loose = json_form(RuleOptions(initiative="phases-crunch"))  # simultaneous pace with phases
    fights.new("old", "fudge", loose)
    fights.execute("old", cmd.Join(sheet=sheet("Ann"), source="ann.toml"))
    assert replay(fights.log("old")).options.initiative == "phases-crunch"


def test_every_option_names_the_rule_it_comes_from() -> None:
    """Every option carries a RULES.md ID, so `rules show` can print it."""
    for field in RuleOptions.__struct_fields__:
        assert option_rule(field), field


def test_rules_show_prints_every_option_its_rule_and_what_differs(fudge: Fudge, tmp_path: Path) -> None:
    out = fudge("rules", "show", "fudge-phases").stdout.splitlines()
    assert out[0] == "fudge-phases"
    rows = {line[2:].split()[0]: line for line in out[1:]}
    assert set(rows) == set(RuleOptions.__struct_fields__)
    assert rows["initiative"].startswith("*") and "phases-crunch" in rows["initiative"] and "F-INIT-1" in rows["initiative"]
    assert rows["ladder"].startswith(" ") and "fudge7" in rows["ladder"]
    house = tmp_path / "nine.toml"
    house.write_text(NINE)
    shown = fudge("rules", "show", "fudge", "--house", house).stdout
    assert "fudge9" in shown and "Abysmal -4, Terrible -3" in shown
    fudge("new", "duel", "--house", house)
    recorded = fudge("rules", "show").stdout
    assert recorded.splitlines()[0] == "fudge9 (recorded in fight duel)" and "Legendary +4" in recorded
    assert "fudge rules show PRESET --house FILE" in fudge.fails("rules", "show", "--house", house)


def test_rules_lists_the_presets(fudge: Fudge) -> None:
    listed = fudge("rules").stdout
    for name in PRESETS:
        assert name in listed


@pytest.mark.parametrize("which", ["fudge", "fudge-phases", "atari-isev"])
def test_each_demo_plays_and_verifies(fudge: Fudge, which: str) -> None:
    """`fudge demo NAME` plays its fight into the store; the log verifies (A-VERIFY-1)."""
    out = fudge("demo", which).stdout
    assert out.splitlines()[-2].startswith("-- verify ") and ": ok (" in out.splitlines()[-2]
    fight = out.split(":", 1)[0].removeprefix("== ")
    assert fudge("verify", fight).stdout.startswith(f"{fight}: ")


def test_demo_lists_and_refuses_an_unknown_name(fudge: Fudge) -> None:
    listed = fudge("demo", "--list").stdout
    assert "fudge-phases" in listed and "fudge " in listed
    assert "no demo 'chess'; demos: fudge, fudge-phases, atari-isev" in fudge.fails("demo", "chess")


def test_the_phases_demo_ends_as_scripted(fudge: Fudge) -> None:
    """PH-1, PH-3, PH-5, CT-BARTER-1: the demo's bartered round ends with Brynhild Incapacitated by Theodora."""
    fudge("demo", "fudge-phases")
    brynhild = fudge.who("Brynhild", "--fight", "demo-fudge-phases")
    assert brynhild["wound_level"] == "Incapacitated"
    leroy = fudge.who("Leroy", "--fight", "demo-fudge-phases")
    assert leroy["wound_level"] == "Hurt"


def test_F_WND_2_a_track_of_the_wrong_length_says_what_it_needs() -> None:
    """F-WND-2: boxes are five numbers, Scratch to Near Death."""
    with pytest.raises(InputError, match="five numbers of boxes .*not 2"):
        resolve("fudge", "wound_boxes = [1, 2]")


def test_C_FP_1_an_npc_has_no_points_unless_its_sheet_says(fights: Fights) -> None:
    """C-FP-1: the pool comes from the sheet; without one, the ruleset's default, and none for an NPC."""
    label, options = resolve("fudge", "default_fudge_points = 3")
    fights.new("pool", label, json_form(options))
    for name, kind, points in (("Hero", "pc", None), ("Thug", "npc", None), ("Boss", "npc", 2), ("Rival", "major", None)):
        fights.execute("pool", cmd.Join(sheet=sheet(name, kind=kind, fudge_points=points), source=f"{name}.toml"))
    pools = {c.name: c.fudge_points for c in fights.state("pool").combatants.values()}
    assert pools == {"Hero": 3, "Thug": 0, "Boss": 2, "Rival": 3}


def test_F_WND_1_status_says_who_cannot_act_instead_of_a_penalty(fudge: Fudge) -> None:
    """F-WND-1: Incapacitated and worse take no actions: `status` says so rather than showing a penalty."""
    fudge("demo", "fudge-phases")
    line = next(l for l in fudge("status", "--long", "--fight", "demo-fudge-phases").stdout.splitlines() if "Brynhild (" in l)
    assert "Incapacitated (cannot act)" in line and "-2" not in line


def test_a_missing_house_file_is_one_line_everywhere(fudge: Fudge, tmp_path: Path) -> None:
    """`new`, `rules show` and `odds` name a house-rules file they cannot read, on one line, writing nothing."""
    missing = tmp_path / "nowhere.toml"
    fudge("new", "other")  # a store with a fight in it (reading commands such as `fights` never create one)
    before = fudge.written()
    for args in (("new", "duel", "--house", missing), ("rules", "show", "fudge", "--house", missing)):
        assert f"cannot read house rules {missing}" in fudge.fails(*args)
    assert fudge.written() == before
