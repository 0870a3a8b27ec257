"""Wounds at the command line: `heal`, `rest`, `end`, and `exchange`/`attack` with --stun, --pull,
--head (F-HEAL-1, F-HEAL-2, F-HEAL-3, F-STUN-1, F-STUN-2, F-STUN-3); status shows stun state and healed marks; bad input is one line
on stderr and writes nothing.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import FEX_HOUSE, SHEETS, Fudge, fresh_logging, fudge  # noqa: F401 (fixtures)

ROUND_1 = ("--dice", "snorri=+000", "--dice", "brynhild=-000", "--dice", "snorri=--00")  # F-EX: Brynhild Hurt


def start(fudge: Fudge) -> Fudge:  # noqa: F811
    fudge("new", "duel", "--rules", "fudge", "--house", FEX_HOUSE)
    fudge("join", SHEETS / "snorri.toml")
    fudge("join", SHEETS / "brynhild.toml")
    return fudge


def test_F_HEAL_2_heal_at_the_command_line(fudge: Fudge) -> None:  # noqa: F811
    """F-HEAL-2: `fudge heal NAME --level Good` rolls for a healer outside the fight."""
    start(fudge)
    fudge("exchange", "snorri", "brynhild", *ROUND_1)
    assert fudge.who("Brynhild")["wound_level"] == "Hurt"
    out = fudge("heal", "brynhild", "--level", "Good", "--dice", "0 0 0 0").stdout
    assert "healer Medicine Good +0 = Good: Brynhild heals 1 level: Hurt -> healed" in out
    assert fudge.who("Brynhild")["wound_level"] == "Undamaged"


def test_F_HEAL_1_F_HEAL_3_rest_and_end(fudge: Fudge) -> None:  # noqa: F811
    """F-HEAL-1: `fudge end` erases Scratches; F-HEAL-3: `fudge rest --weeks 1` heals a level."""
    start(fudge)
    fudge("exchange", "snorri", "brynhild", *ROUND_1)
    fudge("exchange", "snorri", "brynhild", "--dice", "snorri=+000", "--dice", "brynhild=+000",
          "--dice", "snorri=0000")  # F-EX round 3: a graze, Scratch
    assert fudge.who("Brynhild")["boxes"]["Scratch"][0] == "Scratch"
    assert "Scratches are erased (1)" in fudge("end").stdout
    assert fudge.who("Brynhild")["boxes"]["Scratch"] == [None, None, None]
    assert "week 1: Brynhild heals 1 level: Hurt -> healed" in fudge("rest", "brynhild", "--weeks", "1").stdout
    assert fudge.who("Brynhild")["wound_level"] == "Undamaged"


def test_F_STUN_1_F_STUN_2_stun_and_pull_at_the_command_line(fudge: Fudge) -> None:  # noqa: F811
    """F-STUN-1: `--stun NAME` turns Brynhild's Hurt into a Stun shown in status; F-STUN-2: `--pull`."""
    start(fudge)
    out = fudge("exchange", "snorri", "brynhild", *ROUND_1, "--stun", "snorri").stdout
    assert "Brynhild is Stunned (a stunning Hurt)" in out
    brynhild = fudge.who("Brynhild")
    assert brynhild["wound_level"] == "Undamaged"
    assert brynhild["stun"] == {"marks": 1, "effect": "Stunned", "until_round": 2}
    assert "Stunned until round 2" in fudge("status").stdout
    fudge("end")
    assert "stun" not in fudge.who("Brynhild")
    out = fudge("exchange", "snorri", "brynhild", *ROUND_1, "--pull", "snorri=scratch").stdout
    assert "Brynhild is wounded: Scratch (F-STUN-2: pulled to Scratch)" in out
    assert "stun" not in fudge.who("Snorri") and "healed" not in fudge.who("Snorri")


def test_F_STUN_bad_input_is_one_line_and_writes_nothing(fudge: Fudge) -> None:  # noqa: F811
    """F-STUN-2, F-HEAL-2: unknown wound level, a --pull without NAME=, a heal with no healer: refused."""
    start(fudge)
    before = fudge.written()
    assert "unknown wound level" in fudge.fails("exchange", "snorri", "brynhild", *ROUND_1, "--pull", "snorri=Bruised")
    assert "NAME=LEVEL" in fudge.fails("exchange", "snorri", "brynhild", *ROUND_1, "--pull", "Scratch")
    assert "no combatant 'odin' in duel" in fudge.fails("exchange", "snorri", "brynhild", *ROUND_1, "--stun", "odin")
    assert "say who heals" in fudge.fails("heal", "brynhild")
    assert "nobody has a wound" in fudge.fails("rest")
    assert fudge.written() == before


def test_F_HEAL_help_texts(fudge: Fudge) -> None:  # noqa: F811
    """F-HEAL-1, F-HEAL-2, F-HEAL-3: the commands explain themselves."""
    assert "Good heals every wound one level" in fudge("heal", "--help").stdout
    assert "Weeks of rest" in fudge("rest", "--help").stdout
    assert "Scratches are erased" in fudge("end", "--help").stdout


def test_F_WND_7_F_WND_8_status_shows_pawns_and_the_damage_capacity_track(fudge: Fudge, tmp_path) -> None:  # noqa: F811
    """F-WND-7: a pawn sheet (`track = "pawn"`) shows its track and goes out (a pawn's track wins over
    dc_track); F-WND-8: the Damage Capacity track in status."""
    house = tmp_path / "dc.toml"
    house.write_text('extends = "fudge"\ndc_track = true\ndc_in_defense = false\n')
    fudge("new", "dc", "--rules", "fudge", "--house", house)
    fudge("join", SHEETS / "snorri.toml")
    pawn = tmp_path / "thug.toml"
    pawn.write_text('name = "Thug"\nkind = "npc"\ntrack = "pawn"\n[skills]\nBrawling = "Fair"\n'
                    '[combat]\nattack = "Brawling"\n[attributes]\n"Damage Capacity" = "Mediocre"\n')
    fudge("join", pawn)
    thug = fudge.who("Thug")
    assert thug["track"] == "pawn" and "damage_capacity" not in thug  # a pawn keeps its own track
    snorri = fudge.who("Snorri")
    assert snorri["damage_capacity"] == {"undamaged": "Good", "now": "Good", "hits": 0}
    fudge("exchange", "snorri", "thug", "--dice", "snorri=0000", "--dice", "thug=0000")  # Great vs Fair: RD 2
    thug = fudge.who("Thug")
    assert thug["out"] == "out of the battle" and thug["wound_level"] == "Incapacitated"
    assert "pawn (Undamaged, Hurt, Out of the battle); out of the battle" in fudge("status", "--long").stdout
    assert "Damage Capacity Good (0 hits from Good)" in fudge("status", "--long").stdout


def test_F_WND_3_F_WND_1_an_overflowing_wound_says_where_he_ends_and_that_he_is_out(tmp_path: Path) -> None:
    """F-WND-3, F-WND-4, F-WND-1: a Very Hurt blow on a Very Hurt fighter overflows to Incapacitated: the line
    says he is out of the fight (Incapacitated), not "wounded: Very Hurt"; a Scratch on him says he stays
    Very Hurt. The command's output, `log` and `replay` say the same, each read as of its event, and an
    undone wound's line in `log` still says what it did then."""
    fudge = Fudge(tmp_path)
    fudge("new", "climb")
    sheet_file = tmp_path / "grok.toml"
    sheet_file.write_text('name = "Grok"\n')
    fudge("join", sheet_file)
    fudge("wound", "grok", "Very Hurt", "--reason", "a fall")
    scratch = fudge("wound", "grok", "Scratch", "--reason", "thorns").stdout
    assert "Grok is wounded: Very Hurt (a Scratch blow) (the GM's ruling: thorns)" in scratch
    out = fudge("wound", "grok", "Very Hurt", "--reason", "a rock").stdout
    line = "Grok is out of the fight (Incapacitated): a Very Hurt blow (the GM's ruling: a rock)"
    assert line in out and "wounded: Very Hurt" not in out
    fudge("undo")
    for command in ("log", "replay"):
        shown = fudge(command).stdout
        assert line in shown and "Grok is wounded: Very Hurt (a Scratch blow)" in shown, command
