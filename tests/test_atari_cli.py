"""Atari Isev at the table through the real CLI (CliRunner, SQLite file): round, next, attack with
--avoid/--pos/--weapon, declare --wait/--two-attacks, willpower, heroic, and the error contract."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog

from tests.test_cli import SHEETS, Fudge


@pytest.fixture(autouse=True)
def fresh_logging():
    yield
    structlog.reset_defaults()


@pytest.fixture
def tavern(tmp_path: Path) -> Fudge:
    fudge = Fudge(tmp_path)
    fudge("new", "tavern", "--rules", "atari-isev")
    fudge("join", SHEETS / "max.toml")
    fudge("join", SHEETS / "cutthroat.toml")
    return fudge


def test_AI_WND_2_AI_INIT_2_knife_fight_at_the_table(tavern: Fudge) -> None:
    """AI-INIT-2, AI-ATK-2, AI-WND-2: the seed's knife fight typed at the table ends with Max Very Hurt (-2)."""
    out = tavern("round", "--dice", "max=+ + 0 0", "--dice", "cutthroat=0 0 0 0").stdout
    assert "Max initiative: Initiative Mediocre + + 0 0 = +2 → +1" in out
    assert "initiative +1: Max acts" in tavern("next").stdout
    tavern("attack", "max", "cutthroat", "--weapon", "unarmed",
           "--dice", "max=0 0 0 0", "--dice", "cutthroat=- - 0 0", "--dice", "max=0 0 0 0")
    tavern("next")
    tavern("attack", "cutthroat", "max", "--dice", "cutthroat=+ + 0 0", "--dice", "max=0 0 0 0",
           "--dice", "cutthroat=+ 0 0 0")
    assert (tavern.who("Max")["wound_level"], tavern.who("Max")["penalty"]) == ("Hurt", -1)
    tavern("round", "--dice", "max=0 0 0 +", "--dice", "cutthroat=0 0 0 0")
    assert "simultaneous with Cutthroat" in tavern("next").stdout
    tavern("attack", "max", "cutthroat", "--weapon", "unarmed",
           "--dice", "max=0 + 0 0", "--dice", "cutthroat=- 0 0 0", "--dice", "max=0 0 0 0")
    tavern("next")
    tavern("attack", "cutthroat", "max", "--dice", "cutthroat=+ + 0 0", "--dice", "max=0 0 0 0",
           "--dice", "cutthroat=- 0 0 0")
    assert (tavern.who("Max")["wound_level"], tavern.who("Max")["penalty"]) == ("Very Hurt", -2)
    assert tavern.status()["phase"] == "+0"
    assert tavern.who("Max")["initiative"] == {"total": 0, "automatic": False, "declared": None, "will_relief": 0}
    assert "initiative +0" in tavern("status").stdout
    assert "hash chain intact, rules agree" in tavern("verify", "tavern").stdout


def test_AI_ATK_1_a_second_avoidance_is_refused_and_nothing_written(tavern: Fudge) -> None:
    """AI-ATK-1: one free avoidance; asking for another is one line on stderr, nothing written."""
    tavern("declare", "max", "--two-attacks")
    tavern("round", "--dice", "max=+ + + 0", "--dice", "cutthroat=0 0 0 0")
    tavern("next")
    tavern("attack", "max", "cutthroat", "--dice", "max=- - - -", "--dice", "cutthroat=0 0 0 0")
    tavern("next")
    before = tavern.written()
    error = tavern.fails("attack", "cutthroat", "max", "--avoid", "dodge", "--dice", "cutthroat=0 0 0 0",
                         "--dice", "max=0 0 0 0")
    assert "no avoidance left" in error and "--avoid none" in error
    assert tavern.written() == before
    tavern("attack", "cutthroat", "max", "--avoid", "none", "--pos", "behind", "--dice", "cutthroat=- - - -",
           "--dice", "cutthroat=0 0 0 0")
    tavern("next")
    error = tavern.fails("attack", "max", "cutthroat", "--avoid", "dodge", "--dice", "max=0 0 0 0",
                         "--dice", "cutthroat=0 0 0 0")
    assert "already used it" in error
    assert "--pos is one of" in tavern.fails("attack", "max", "cutthroat", "--pos", "sideways")


def test_AI_WAIT_AI_WILL_1_AI_HEROIC_commands(tavern: Fudge) -> None:
    """AI-WAIT declared before the roll; AI-WILL-1 willpower; AI-HEROIC heroic avoidance, at the table."""
    assert "hurry +2" in tavern("declare", "max", "--wait", "2").stdout
    assert "-2..+2" in tavern.fails("declare", "cutthroat", "--wait", "3")
    out = tavern("round", "--dice", "max=0 0 0 0", "--dice", "cutthroat=+ + 0 0").stdout
    assert "hurrying" in out
    tavern("next")
    tavern("attack", "cutthroat", "max", "--dice", "cutthroat=+ + + 0", "--dice", "max=+ + 0 0",
           "--dice", "cutthroat=0 0 0 0")
    assert tavern.who("Max")["wound_level"] == "Very Hurt"
    tavern("heroic", "max", "--dice", "max=+ 0 0 0")
    assert tavern.who("Max")["wound_level"] == "Hurt"
    out = tavern("willpower", "max", "--dice", "max=+ 0 0 0").stdout
    assert "1 level lighter" in out
    assert "lighter this scene" in tavern("status", "--long").stdout


def test_AI_LAD_the_preset_is_listed(tavern: Fudge) -> None:
    """AI-LAD: `fudge rules` lists atari-isev; `rules show` prints its options."""
    assert "atari-isev" in tavern("rules").stdout
    shown = tavern("rules", "show", "atari-isev").stdout
    assert "wound_chart" in shown and "health" in shown


def test_AI_SWEEP_avoid_with_also_once_for_all_or_once_per_foe(tmp_path: Path) -> None:
    """AI-SWEEP at the table: the foes of a multi-strike avoid; `--avoid` once for every foe, or once per foe
    (target first); any other count is one line on stderr and nothing written."""
    fudge = Fudge(tmp_path)
    fudge("new", "hall", "--rules", "atari-isev")
    for who in ("dwarzuga", "max", "cutthroat"):
        fudge("join", SHEETS / f"{who}.toml")
    fudge("declare", "dwarzuga", "--sweep")
    fudge("round", "--dice", "dwarzuga=+ + + +", "--dice", "max=0 0 0 0", "--dice", "cutthroat=0 0 0 0")
    fudge("next")
    before = fudge.written()
    assert "--avoid is given once for every foe" in fudge.fails(
        "attack", "dwarzuga", "max", "--also", "cutthroat", "--avoid", "dodge", "--avoid", "dodge", "--avoid", "none")
    assert fudge.written() == before
    fudge("attack", "dwarzuga", "max", "--also", "cutthroat", "--avoid", "none", "--avoid", "dodge",
          "--dice", "dwarzuga=+ + + 0", "--dice", "dwarzuga=0 0 0 0", "--dice", "dwarzuga=+ + + 0",
          "--dice", "cutthroat=- - - -", "--dice", "dwarzuga=0 0 0 0")
    blows = [e for e in fudge.log() if e["type"] == "exchange_resolved"]
    assert [(b["sides"][1]["combatant"], b["sides"][1]["trait"]) for b in blows] == [
        ("Max", "no avoidance"), ("Cutthroat", "Dodge")]


def test_AI_WILL_1_status_shows_the_penalty_the_rolls_use(tavern: Fudge) -> None:
    """AI-WILL-1: Max is Very Hurt (-2); a Great willpower result lightens it two levels, to a Scratch: his
    next roll takes no wound penalty, and `status` shows the same penalty (the mark stays Very Hurt)."""
    tavern("round", "--dice", "max=0 0 0 0", "--dice", "cutthroat=+ + 0 0")
    tavern("next")
    tavern("attack", "cutthroat", "max", "--dice", "cutthroat=+ + + 0", "--dice", "max=0 0 0 0",
           "--dice", "cutthroat=0 0 0 0")
    assert (tavern.who("Max")["wound_level"], tavern.who("Max")["penalty"]) == ("Very Hurt", -2)
    tavern("willpower", "max", "--dice", "max=+ + 0 0")
    shown = tavern.who("Max")
    assert (shown["wound_level"], shown["penalty"], shown["acts_as"]) == ("Very Hurt", 0, "Scratch")
    assert "Very Hurt (acts as Scratch, willpower)," in tavern("status", "--long").stdout
    tavern("next")
    tavern("attack", "max", "cutthroat", "--dice", "max=0 0 0 0", "--dice", "cutthroat=0 0 0 0")
    blow = [e for e in tavern.log() if e["type"] == "exchange_resolved"][-1]
    used = sum(m["value"] for m in blow["sides"][0]["modifiers"] if m["name"].startswith("wound"))
    assert used == shown["penalty"]
