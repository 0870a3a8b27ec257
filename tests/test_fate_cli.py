"""Fate from the command line: `fudge fate ...`, `fudge end-scene`, `fudge status` (FT-*)."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import SHEETS, Fudge, fresh_logging, fudge  # noqa: F401  (fixtures)


def tavern(fudge: Fudge, house: str | None = None) -> None:
    args = ["new", "tavern", "--rules", "fate"] + (["--house", house] if house else [])
    fudge(*args)
    fudge("join", SHEETS / "cyrus.toml")
    fudge("join", SHEETS / "finn.toml")
    fudge("join", SHEETS / "guard.toml", "--as", "Guard-A")
    fudge("join", SHEETS / "guard.toml", "--as", "Guard-B")


def test_FT_PACE_FT_MOD_FT_MULTI_an_exchange_from_the_command_line(fudge: Fudge) -> None:
    """FT-PACE, FT-MOD, FT-MULTI, FT-TRACK-3: two guards outnumber Cyrus; B's Great clips him; status shows -1 next."""
    tavern(fudge)
    out = fudge("fate", "exchange", "Cyrus", "Guard-A>Cyrus", "Guard-B>Cyrus",
                "--outnumbering", "Guard-A>Cyrus", "--outnumbering", "Guard-B>Cyrus",
                "--dice", "cyrus=0 0 0 0", "--dice", "guard-a=0 0 0 0", "--dice", "guard-b=+ 0 0 0").stdout
    assert "Guard-B Great vs Cyrus Good: MoS +1 → Clipped" in out
    assert "Cyrus is Clipped, by Guard-B" in out
    status = fudge("status", "--long").stdout
    assert "penalties: next action -1, this scene +0, beyond the scene +0 (next roll -1)" in status
    cyrus = fudge.who("Cyrus")
    assert cyrus["fate"]["boxes"]["Clipped"] == 1 and cyrus["fate"]["next_action"] == -1
    fudge("end-scene")
    assert fudge.who("Cyrus")["fate"]["boxes"]["Clipped"] == 0


def test_FT_PTS_points_and_aspects_from_the_command_line_refused_cleanly(fudge: Fudge) -> None:
    """FT-PTS: `fudge spend NAME skill` and `fudge fate point` add +1; a checked box and an empty pool are refused;
    the scene's summary counts each fighter's points spent and aspects invoked."""
    tavern(fudge)
    fudge("fate", "exchange", "Finn>Guard-A", "Guard-A>Finn", "--skill", "Finn=Throwing",
          "--dice", "finn=+ 0 0 0", "--dice", "guard-a=0 0 0 0")
    out = fudge("spend", "Finn", "skill", "--shift", "+1").stdout
    assert "Finn Superb vs Guard-A Fair: MoS +3 → Hurt" in out
    assert "Finn spends 1 fate point: skill +1" in out and "fudge point" not in out
    out = fudge("fate", "aspect", "Finn", "Underhanded", "--box", "1", "--dice", "finn=+ + 0 0").stdout
    assert "Finn checks Underhanded box 1" in out
    before = fudge.written()
    assert "already checked" in fudge.fails("fate", "aspect", "Finn", "Underhanded", "--box", "1",
                                            "--dice", "finn=0 0 0 0")
    assert "no fate points left" in fudge.fails("fate", "point", "Guard-A")
    assert "no aspect" in fudge.fails("fate", "aspect", "Finn", "Lucky", "--dice", "finn=0 0 0 0")
    assert fudge.written() == before
    fudge("fate", "point", "Finn")
    assert fudge.who("Finn")["fate"]["fate_points"] == 1
    said = fudge("end-scene").stdout.splitlines()  # the scene's summary: points spent, aspects invoked
    fighters = {line.split()[0]: line for line in said if line.startswith("  ") and " stands, " in line}
    assert fighters["Finn"].endswith("stands, Unharmed              2 fate points spent, 1 aspect invoked"), said
    assert sorted(fighters) == ["Cyrus", "Finn", "Guard-A", "Guard-B"]
    assert all("invoked" not in line for name, line in fighters.items() if name != "Finn"), said


def test_FT_SIMPLE_a_rating_outside_0_to_4_is_refused_at_join(fudge: Fudge, tmp_path: Path) -> None:
    """FT-SIMPLE: a weapon rated 5 is refused under simple arms; nothing is written."""
    house = tmp_path / "simple.toml"
    house.write_text('extends = "fate"\narms = "simple"\n')
    tavern(fudge, str(house))
    ogre = tmp_path / "ogre.toml"
    ogre.write_text('name = "Ogre"\n[skills]\nClub = "Great"\n[combat]\nattack = "Club"\n'
                    '[fate_weapon]\nname = "tree trunk"\nrating = 5\n')
    before = fudge.written()
    assert "outside 0..4" in fudge.fails("join", ogre)
    assert fudge.written() == before


def test_FT_INIT_FT_HEAL_1_turns_and_recovery_from_the_command_line(fudge: Fudge, tmp_path: Path) -> None:
    """FT-INIT: `fudge fate round` rolls Alertness (all roll 0: Finn, Good, first); FT-HEAL-1: `fudge fate recover`."""
    house = tmp_path / "turns.toml"
    house.write_text('extends = "fate"\npace = "turn"\ninitiative = "alertness"\n')
    tavern(fudge, str(house))
    out = fudge("fate", "round", "--dice", "cyrus=0000", "--dice", "finn=0000", "--dice", "guard-a=0000",
                "--dice", "guard-b=0000").stdout
    assert "order by rolled Alertness, then Tactics, then combat skill: Finn" in out
    assert "Finn's turn" in fudge.fails("fate", "attack", "Cyrus", "Guard-A", "--dice", "cyrus=0000",
                                        "--dice", "guard-a=0000")
    fudge("fate", "attack", "Finn", "Guard-A", "--skill", "Throwing", "--mod", "Finn=4",
          "--dice", "finn=0 0 0 0", "--dice", "guard-a=0 0 0 0")
    assert fudge.who("Guard-A")["fate"]["boxes"]["Injured"] == 1
    out = fudge("fate", "recover", "Guard-A", "--level", "Great", "--dice", "healer=0 0 0 0").stdout
    assert "heals in 5 days" in out
    assert fudge.who("Guard-A")["fate"]["boxes"]["Injured"] == 0


def test_FT_INIT_FT_SIMPLE_the_example_house_files_set_up(fudge: Fudge) -> None:
    """FT-INIT, FT-SIMPLE: examples/house/fate-turns.toml and fate-simple-arms.toml start fights."""
    house = SHEETS.parent / "house"
    fudge("new", "turns", "--rules", "fate", "--house", house / "fate-turns.toml")
    shown = {line.split()[1]: line.split()[3] for line in fudge("rules", "show").stdout.splitlines()
             if line.startswith("* ")}
    assert (shown["pace"], shown["initiative"]) == ("turn", "alertness")
    fudge("new", "simple", "--rules", "fate", "--house", house / "fate-simple-arms.toml")
    fudge("join", SHEETS / "cyrus.toml")
    fudge("join", SHEETS / "guard.toml", "--as", "Guard-A")
    out = fudge("fate", "exchange", "Cyrus>Guard-A", "Guard-A", "--dice", "cyrus=+ 0 0 0",
                "--dice", "guard-a=0 0 0 0").stdout
    assert "MoS 2 + weapon 2 - armor 1 (FT-SIMPLE)" in out


def test_FT_PACE_a_fate_attack_on_a_fudge_fight_says_it_is_a_fate_command(fudge: Fudge) -> None:
    """One name or two, `fudge fate attack` on a Fudge fight is refused as a Fate command, not as a missing turn."""
    fudge("new", "duel")
    fudge("join", SHEETS / "snorri.toml")
    fudge("join", SHEETS / "brynhild.toml")
    for names in (("bry",), ("snorri", "brynhild")):
        assert "`fudge fate attack` is a Fate command: this fight runs fudge rules" in fudge.fails("fate", "attack", *names)
