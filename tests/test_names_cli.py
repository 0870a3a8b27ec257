"""Forgiving input at the table, each command its own process on a store file: names typed short or in any
case, the actor who has the turn as the default attacker, `NAME:TARGET` in Fate, and "did you mean" for
names, fights, commands, options, traits and house-rule options. A refusal is one line on stderr and
writes nothing; what is written holds the full names (A-LOG-1) and verifies (A-VERIFY-1).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"


class Table:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.db = tmp / "fudge.db"

    def __call__(self, *args: Any) -> str:
        done = fudge(*map(str, args), store=self.db)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def fails(self, *args: Any, code: int = 1) -> str:
        """A refusal: the exit code, nothing on stdout, one `error:` line on stderr, nothing written."""
        before = self.events()
        done = fudge(*map(str, args), store=self.db)
        assert (done.returncode, done.stdout) == (code, ""), (args, done.stdout, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
        assert self.events() == before
        return lines[0]

    def events(self) -> int:
        if not self.db.exists():
            return 0
        with sqlite3.connect(self.db) as db:
            return int(db.execute("SELECT count(*) FROM events").fetchone()[0])

    def issued(self, fight: str) -> list[dict[str, Any]]:
        return [e["issued"] for e in json.loads(self("log", fight, "--json")) if e["issued"]]


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def test_names_typed_short_or_in_any_case_are_logged_whole(table: Table) -> None:
    """`sn`, `BRY`: the exchange, its sealed declaration, its typed dice; the log holds Snorri and Brynhild."""
    table("new", "duel")
    table("join", SHEETS / "snorri.toml")
    table("join", SHEETS / "brynhild.toml")
    table("join", SHEETS / "snorri.toml", "--as", "Bjorn the Bold")
    table("declare", "SN", "--sealed", "--all-out-offense")
    out = table("exchange", "sn", "BRY", "--dice", "sn=+ 0 0 0", "--dice", "bry=- 0 0 0", "--dice", "SNO=0 0 0 0")
    assert "Snorri's sealed declaration opens: all-out offense" in out, out
    assert "Snorri rolls Sword: + 0 0 0" in out and "Brynhild rolls Axe: - 0 0 0" in out, out
    assert "unused dice: Snorri 0 0 0 0 (not needed: Snorri rolled only Sword)" in out.splitlines()  # before the consequences
    exchange = table.issued("duel")[-1]
    assert (exchange["type"], exchange["first"], exchange["second"]) == ("exchange", "Snorri", "Brynhild")
    assert [r["combatant"] for r in exchange["reveals"]] == ["Snorri"]  # the seal opened for a short name
    assert "hash chain intact, rules agree" in table("verify")


def test_an_ambiguous_or_unknown_name_is_refused_with_the_candidates(table: Table) -> None:
    table("new", "duel")
    table("join", SHEETS / "snorri.toml")
    table("join", SHEETS / "brynhild.toml")
    table("join", SHEETS / "brynhild.toml", "--as", "Bjorn")
    assert table.fails("exchange", "sn", "b") == "error: 'b' could be Brynhild or Bjorn: type more of the name"
    assert table.fails("roll", "snorri", "Sword", "--opposed", "brinhild") == (
        "error: no combatant 'brinhild' in duel: did you mean Brynhild? (combatants: Snorri, Brynhild, Bjorn)")
    assert table.fails("wound", "zed", "Hurt") == "error: no combatant 'zed' in duel; combatants: Snorri, Brynhild, Bjorn"
    assert table.fails("exchange", "sn", "bry", "--dice", "b=0 0 0 0") == (
        "error: 'b' could be Brynhild or Bjorn: type more of the name")
    assert "nobody has the turn: these rules give no turns (F-INIT-1); or name both: `fudge exchange FIRST SECOND`" \
        in table.fails("exchange", "bry")
    assert "or name both: `fudge shoot SHOOTER TARGET`" in table.fails("shoot", "bry")


def test_fights_are_found_by_a_unique_beginning_in_any_case(table: Table) -> None:
    table("new", "duel")
    table("new", "dusk")
    assert table("use", "DUE").strip() == "current fight: duel"
    assert table.fails("status", "--fight", "du") == "error: 'du' could be duel or dusk: type more of the name"
    assert table.fails("replay", "dule").startswith("error: no fight named 'dule' in ")
    assert table.fails("replay", "dule").endswith(": did you mean duel? (`fudge fights` lists them)")
    assert "duel" in table("status", "--fight", "DUE")


def test_PH_1_under_phases_the_actor_who_has_the_turn_attacks_the_one_target_named(table: Table) -> None:
    """PH-1: `fudge next` gives the turn; `fudge attack bry` is the actor's attack on Brynhild."""
    table("new", "phases", "--rules", "fudge-phases")
    table("join", SHEETS / "snorri.toml")
    table("join", SHEETS / "brynhild.toml")
    assert "`fudge round` rolls initiative" in table.fails("attack", "bry")
    table("round", "--dice", "snorri=+ + + +", "--dice", "brynhild=- - - - -")
    assert "Snorri acts" in table("next")
    out = table("attack", "bry", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0")
    assert "Snorri rolls Sword" in out and "Brynhild rolls" in out, out
    attack = table.issued("phases")[-1]
    assert (attack["type"], attack["attacker"], attack["target"]) == ("attack", "Snorri", "Brynhild")
    usage = table.fails("attack", "sn", "bry", "bry", code=2)
    assert usage == ("error: invalid value for '[ATTACKER] TARGET': one name or two, not 3 (sn bry bry): "
                     "see `fudge attack --help`")


def test_AI_INIT_2_under_atari_isev_the_actor_of_the_turn_attacks(table: Table) -> None:
    """AI-INIT-2: the highest total acts first; `fudge attack cut` is Max's attack."""
    table("new", "tavern", "--rules", "atari-isev")
    table("join", SHEETS / "max.toml")
    table("join", SHEETS / "cutthroat.toml")
    table("round", "--dice", "max=+ + 0 0", "--dice", "cutthroat=0 0 0 0")
    table("next")
    table("attack", "CUT", "--weapon", "unarmed", "--dice", "max=0 0 0 0", "--dice", "cut=- - 0 0",
          "--dice", "max=0 0 0 0")
    attack = table.issued("tavern")[-1]
    assert (attack["attacker"], attack["target"]) == ("Max", "Cutthroat")
    assert table.fails("heal", "cut", "--by", "max", "--skill", "Helth") == (
        "error: Max has no trait 'Helth': did you mean Health?")


def test_FT_INIT_fate_turns_the_actor_attacks_and_NAME_colon_TARGET_is_NAME_greater_TARGET(table: Table,
                                                                                           tmp_path: Path) -> None:
    """FT-INIT: the first in Alertness order who has not acted attacks the one defender named; `a:b` is
    `a>b` in an exchange and in its options (a shell would read `>` as a redirection)."""
    house = tmp_path / "turns.toml"
    house.write_text('extends = "fate"\npace = "turn"\ninitiative = "alertness"\n')
    table("new", "turns", "--house", house)
    for sheet, *name in (("cyrus",), ("finn",), ("guard", "--as", "Guard-A"), ("guard", "--as", "Guard-B")):
        table("join", SHEETS / f"{sheet}.toml", *name)
    table("fate", "round", "--dice", "cyrus=0000", "--dice", "finn=0000", "--dice", "guard-a=0000",
          "--dice", "guard-b=0000")
    assert table.fails("fate", "attack", "gu") == "error: 'gu' could be Guard-A or Guard-B: type more of the name"
    table("fate", "attack", "guard-a", "--dice", "fi=0 0 0 0", "--dice", "guard-a=0 0 0 0")
    attack = table.issued("turns")[-1]
    assert (attack["attack"]["combatant"], attack["defense"]["combatant"]) == ("Finn", "Guard-A")

    table("new", "brawl", "--rules", "fate")
    table("join", SHEETS / "cyrus.toml")
    table("join", SHEETS / "guard.toml", "--as", "Guard-A")
    assert table.fails("fate", "exchange", "cy:guard-a", "guard-a:cy", "--skill", "cy=Sword") == (
        "error: Cyrus has no trait 'Sword': did you mean Swords?")
    table("fate", "exchange", "cy:guard-a", "GUARD-A:c", "--defensive", "guard", "--mod", "cy:guard-a=2",
          "--dice", "cy=0 0 0 0", "--dice", "guard-a=0 0 0 0")
    exchange = table.issued("brawl")[-1]
    assert [(a["combatant"], a["target"], a["defensive"]) for a in exchange["actions"]] == [
        ("Cyrus", "Guard-A", False), ("Guard-A", "Cyrus", True)]
    assert exchange["mods"] == [{"combatant": "Cyrus", "kind": "GM", "against": "Guard-A", "value": 2}]
    assert "hash chain intact, rules agree" in table("verify", "brawl")


def test_did_you_mean_for_commands_options_and_house_rules_in_one_line(table: Table, tmp_path: Path) -> None:
    assert table.fails("atack", code=2) == "error: no such command 'atack' (did you mean attack?): see `fudge --help`"
    assert table.fails("fate", "exchnge", code=2) == (
        "error: no such command 'exchnge' (did you mean exchange?): see `fudge fate --help`")
    assert table.fails("exchange", "a", "b", "--dise", "0000", code=2) == (
        "error: no such option --dise (did you mean --dice?): see `fudge exchange --help`")
    house = tmp_path / "house.toml"
    house.write_text('extends = "fudge"\ndamage_rol = "none"\n')
    assert table.fails("new", "duel", "--house", house) == (
        f"error: {house}: unknown option 'damage_rol': did you mean damage_roll or graze_damage_roll?")
    assert table.fails("new", "duel", "--rules", "fudg").startswith(
        "error: unknown rules 'fudg': did you mean fudge? (presets: fudge, ")
