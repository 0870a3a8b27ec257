"""One Decider per ruleset (Fudge, Atari Isev, Fate): each its own table, never changed by another; a command
a ruleset lacks is refused with a line naming it (FT-PACE, AI-RNG, AI-HEROIC); `is_terminal` says when at
most one side still fights (F-WND-1, FT-TRACK-3)."""

from __future__ import annotations

import pytest

from engine import atari
from engine import commands as cmd
from engine.decide import DECIDERS
from engine.errors import RuleError
from engine.rulesets import fate, fudge
from service.fights import Fights
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
        line = decider.refusal(kind.model_construct())
        assert decider.name in line or decider.title in line, line


def test_each_ruleset_keeps_its_own_handlers() -> None:
    """Building Atari Isev's and Fate's tables changed nothing in Fudge's: each ruleset's own handler stands."""
    assert fudge.TABLE[cmd.Attack] is fudge.attack
    assert fudge.TABLE[cmd.RollTrait] is fudge.roll_trait
    assert DECIDERS["atari-isev"].table[cmd.Attack] is atari.attack
    assert cmd.Shoot not in DECIDERS["atari-isev"].table and cmd.Shoot in fudge.TABLE
    assert DECIDERS["fate"].table[cmd.Join] is fate.join and fudge.TABLE[cmd.Join] is not fate.join
    assert cmd.FateExchange not in fudge.TABLE


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
