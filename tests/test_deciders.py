"""One Decider per ruleset (Fudge, Atari Isev, Fate): each its own table, never changed by another; a command
a ruleset lacks is refused with a line naming it (FT-PACE, AI-RNG, AI-HEROIC); `is_terminal` says when at
most one side still fights (F-WND-1, FT-TRACK-3)."""

from __future__ import annotations

import pytest

from fudge_combat.engine.rulesets.atari_isev import blows as atari
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import DECIDERS
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.state import FightState, RulesPart
from fudge_combat.engine.rulesets.fate import decider as fate
from fudge_combat.engine.rulesets.fudge import decider as fudge
from fudge_combat.engine.rulesets.fate.state import FateState
from fudge_combat.service.fights import Fights
from tests.conftest import sheet, start

EVERY_COMMAND = {kind for decider in DECIDERS.values() for kind in (*decider.table, *decider.refusals)}


@pytest.mark.parametrize("name", sorted(DECIDERS))
def test_every_command_is_decided_or_refused_with_a_line_naming_the_ruleset(name: str) -> None:
    """FT-PACE, AI-RNG, AI-HEROIC: no command falls through to a generic refusal; a refused one names the
    ruleset the fight runs (as the GM chose it, or in words)."""
    decider = DECIDERS[name]
    assert set(decider.table) & set(decider.refusals) == set()
    assert set(decider.table) | set(decider.refusals) == EVERY_COMMAND
    for kind in decider.refusals:
        line = decider.refusal(kind)
        assert decider.name in line or decider.title in line, line


def test_each_ruleset_keeps_its_own_handlers() -> None:
    """Building Atari Isev's and Fate's tables changed nothing in Fudge's: each ruleset's own handler stands."""
    assert fudge.TABLE[cmd.Attack] is fudge.attack
    assert fudge.TABLE[cmd.RollTrait] is fudge.roll_trait
    assert DECIDERS["atari-isev"].table[cmd.Attack] is atari.attack
    assert cmd.Shoot not in DECIDERS["atari-isev"].table and cmd.Shoot in fudge.TABLE
    assert DECIDERS["fate"].table[cmd.Join] is fate.join and fudge.TABLE[cmd.Join] is not fate.join
    assert cmd.FateExchange not in fudge.TABLE


@pytest.mark.parametrize("rules,part", [("fudge", RulesPart), ("atari-isev", RulesPart), ("fate", FateState)])
def test_each_ruleset_keeps_its_own_part_of_the_state(fights: Fights, rules: str, part: type) -> None:
    """A fight starts with the part of the state its ruleset's Decider names (FT-TRACK's boxes, FT-INIT's order
    are Fate's alone); Fudge and Atari Isev keep nothing beyond the fields every ruleset shares."""
    assert type(DECIDERS[rules].initial_part()) is part
    assert type(FightState().part) is RulesPart  # before the fight starts, no ruleset's
    start(fights, rules=rules)
    assert type(fights.state("fight").part) is part


@pytest.mark.parametrize("rules,command,words", [
    ("fudge", cmd.EndScene(), "this fight runs fudge rules"),
    ("fudge", cmd.HeroicAvoidance(combatant="Ann"), "this fight plays fudge"),
    ("atari-isev", cmd.Shoot(shooter="Ann", target="Bob"), "Atari Isev missiles are attacks"),
    ("fate", cmd.GmWound(combatant="Ann", level=2), "a Fate fight marks boxes"),
])
def test_a_command_the_fights_ruleset_lacks_is_refused_naming_it(fights: Fights, rules: str, command: object,
                                                                  words: str) -> None:
    start(fights, rules=rules)
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=words):
        fights.execute("fight", command)
    assert fights.store.last_seq("fight") == before


@pytest.mark.parametrize("rules", ["fudge", "atari-isev", "fate"])
def test_F_WND_1_FT_TRACK_3_a_fight_is_over_when_at_most_one_side_still_fights(fights: Fights, rules: str) -> None:
    start(fights, rules=rules)
    for name in ("Ann", "Bob"):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword"),
                                         source=f"{name.lower()}.toml"))
    state = fights.state("fight")
    decider = DECIDERS[rules]
    assert decider.is_terminal(decider.initial())
    assert not decider.is_terminal(state)
    fights.execute("fight", cmd.Kill(combatant="Bob", reason="a fall"))
    assert decider.is_terminal(fights.state("fight"))


def test_a_table_by_command_name_reads_as_a_table_by_class() -> None:
    """The deciders' tables are written with the commands' names (building one creates no class) and read
    by class: a class of the same name that is not the command is not in it."""
    table = cmd.ByCommand({"Attack": "attack", "Shoot": "shoot"})
    assert table[cmd.Attack] == "attack" and table.get(cmd.Shoot) == "shoot"
    assert cmd.Exchange not in table and type("Attack", (), {}) not in table and table.get(None) is None
    assert list(table) == [cmd.Attack, cmd.Shoot] and len(table) == 2


def test_every_command_is_named_where_engine_commands_finds_it() -> None:
    """`cmd.NAME` finds every command of the union, each from the module `engine.commands` says defines it."""
    from typing import get_args

    union = get_args(cmd.Command)
    assert {kind.__name__ for kind in union} <= set(cmd.MODULES)
    for name, module in cmd.MODULES.items():
        value = getattr(cmd, name)
        if isinstance(value, type):
            assert value.__module__ == f"fudge_combat.engine.{module}", name
    with pytest.raises(AttributeError):
        cmd.NoSuchCommand  # noqa: B018
