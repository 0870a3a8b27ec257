"""F-EX: Fudge 4.7 (seed 001), Snorri vs Brynhild, round by round with the text's dice.

The options are the example's (examples/house/snorri-brynhild.toml): a 4dF
damage roll with the three limits (F-DROLL `4dF_limited`), grazes roll too
but move at most one level (F-GRAZE-2), the medium shield -1 to the foe's
skill (F-MOD-3). The sheets are examples/sheets/snorri.toml and brynhild.toml.
Every number the text states is asserted.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from fudge_combat.events.records import json_form
from fudge_combat.cli.demos import FEX_ROUNDS
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.rulesets.fudge.damage import damage_factor, defensive_factor, offensive_factor
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.engine.kernel.wounds import HURT, SCRATCH, UNDAMAGED, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import replay
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.service.fights import Fights
from tests.conftest import dice, make_fights


def text(path: str) -> str:
    return (resources.files("fudge_combat.examples") / path).read_text()


def fex_fight(fights: Fights, name: str = "fex") -> None:
    label, options = resolve("fudge", text("house/snorri-brynhild.toml"), "snorri-brynhild.toml")
    fights.new(name, label, json_form(options))
    for who in ("snorri", "brynhild"):
        sheet = parse_sheet(text(f"sheets/{who}.toml"), f"{who}.toml")
        fights.execute(name, cmd.Join(sheet=json_form(sheet), source=f"{who}.toml"))


@pytest.fixture
def fex(fights: Fights) -> Fights:
    fex_fight(fights)
    return fights


def play(fights: Fights, command: Any, *faces: str) -> Any:
    return fights.execute("fex", command, dice(*faces))


def blow(outcome: Any) -> ev.ExchangeResolved:
    return [r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved)][0]


def wounds(outcome: Any) -> list[tuple[str, int]]:
    return [(r.event.combatant, r.event.level) for r in outcome.records if isinstance(r.event, ev.WoundMarked)]


def sides(resolved: ev.ExchangeResolved) -> dict[str, ev.Side]:
    return {s.combatant: s for s in resolved.sides}


def status(state: FightState, who: str) -> tuple[int, int]:
    combatant = state.combatants[who]
    return combatant.track.level, combatant.track.penalty(state.options)


EXCHANGE = cmd.Exchange(first="Snorri", second="Brynhild")


def test_F_EX_options_and_damage_factors(fex: Fights) -> None:
    """F-EX: Snorri: offense +5, defense +3; Brynhild: offense +5, defense +2; factors +3 and +2."""
    state = fex.state("fex")
    assert state.options.damage_roll == "4dF_limited" and state.options.graze_damage_roll
    snorri, brynhild = state.combatants["snorri"].fighter, state.combatants["brynhild"].fighter
    assert offensive_factor(snorri, state.options) == 5
    assert defensive_factor(snorri, brynhild, state.options) == 3
    assert offensive_factor(brynhild, state.options) == 5
    assert defensive_factor(brynhild, snorri, state.options) == 2
    assert damage_factor(snorri, brynhild, state.options) == 3
    assert damage_factor(brynhild, snorri, state.options) == 2


def test_F_EX_the_whole_fight_round_by_round(fex: Fights) -> None:
    # Round 1: Snorri Great (roll +1), Brynhild Fair (roll -1): RD +2, damage 2 + 3 = 5 (Very Hurt
    # before the roll); damage roll -2 -> 3: Brynhild Hurt, -1 for the rest of the combat.
    """F-EX."""
    one = play(fex, EXCHANGE, "snorri=+ 0 0 0", "brynhild=- 0 0 0", "snorri=- - 0 0")
    r1 = blow(one)
    assert r1.round == 1
    assert (sides(r1)["Snorri"].roll, sides(r1)["Snorri"].result) == (1, 2)      # Great
    assert [(m.name, m.value) for m in sides(r1)["Snorri"].modifiers] == [("Brynhild's medium shield", -1)]
    assert (sides(r1)["Brynhild"].roll, sides(r1)["Brynhild"].result) == (-1, 0)  # Fair
    hit = r1.hits[0]
    assert (hit.attacker, hit.relative_degree, hit.damage_factor, hit.calculated) == ("Snorri", 2, 3, 5)
    assert (hit.damage_roll, hit.damage, hit.level, hit.graze) == (-2, 3, HURT, False)
    assert wounds(one) == [("Brynhild", HURT)]
    assert status(one.state, "brynhild") == (HURT, -1)
    assert status(one.state, "snorri") == (UNDAMAGED, 0)

    # Round 2: both Good: a stand-off.
    two = play(fex, EXCHANGE, "snorri=0 0 0 0", "brynhild=+ 0 0 0")
    r2 = blow(two)
    assert r2.round == 2
    assert [(s.combatant, s.result) for s in r2.sides] == [("Snorri", 1), ("Brynhild", 1)]
    assert ("wound: Hurt", -1) in [(m.name, m.value) for m in sides(r2)["Brynhild"].modifiers]
    assert r2.hits == () and r2.outcome == "stand-off" and wounds(two) == []

    # Round 3: Snorri Great, Brynhild Good: RD +1, a graze; factor +3 is a Scratch; damage roll 0: Scratch.
    three = play(fex, EXCHANGE, "snorri=+ 0 0 0", "brynhild=+ 0 0 0", "snorri=0 0 0 0")
    r3 = blow(three)
    assert [(s.combatant, s.result) for s in r3.sides] == [("Snorri", 2), ("Brynhild", 1)]
    hit = r3.hits[0]
    assert (hit.attacker, hit.relative_degree, hit.graze, hit.damage_factor, hit.damage_roll, hit.level) == (
        "Snorri", 1, True, 3, 0, SCRATCH)
    assert wounds(three) == [("Brynhild", SCRATCH)]
    boxes = three.state.combatants["brynhild"].track.boxes
    assert boxes[0] == (SCRATCH, None, None) and boxes[1] == (HURT,)
    assert status(three.state, "brynhild") == (HURT, -1)  # only the worst wound counts

    # Round 4: Snorri all-out attack (+1), Brynhild all-out defense (+2): Great vs Great, no damage;
    # Snorri would lose a tie, but Brynhild aims no blow at him.
    play(fex, cmd.Declare(combatant="Snorri", declaration=ev.Declaration(all_out="offense")))
    play(fex, cmd.Declare(combatant="Brynhild", declaration=ev.Declaration(all_out="defense")))
    four = play(fex, EXCHANGE, "snorri=0 0 0 0", "brynhild=0 0 0 0")
    r4 = blow(four)
    assert r4.round == 4
    assert ("all-out offense", 1) in [(m.name, m.value) for m in sides(r4)["Snorri"].modifiers]
    assert ("all-out defense", 2) in [(m.name, m.value) for m in sides(r4)["Brynhild"].modifiers]
    assert [(s.combatant, s.result) for s in r4.sides] == [("Snorri", 2), ("Brynhild", 2)]
    assert r4.hits == () and wounds(four) == []

    # A Good Perception roll spots the spilled drink: Snorri -1 next round.
    spot = play(fex, cmd.RollTrait(combatant="Brynhild", trait="Perception", difficulty=1, advantage=True),
                "brynhild=0 0 0 0")
    found = [r.event for r in spot.records if isinstance(r.event, ev.ActionResolved)][0]
    assert (found.trait, found.level, found.difficulty, found.success) == ("Perception", 2, 1, True)
    gained = [r.event for r in spot.records if isinstance(r.event, ev.AdvantageGained)]
    assert [(g.combatant, g.over, g.modifier, g.round) for g in gained] == [("Brynhild", "Snorri", -1, 5)]

    # Round 5: Snorri -1 for bad footing (down to Fair), an ordinary attack; Brynhild all-out attack
    # (+1: Good from her wounded Fair). She rolls Great, he Good: RD +1, a graze; her factor +2 is a
    # Scratch, her +1 all-out damage makes it Hurt; damage roll 0: Snorri Hurt, -1.
    play(fex, cmd.Declare(combatant="Brynhild", declaration=ev.Declaration(all_out="offense")))
    five = play(fex, EXCHANGE, "snorri=+ 0 0 0", "brynhild=+ 0 0 0", "brynhild=0 0 0 0")
    r5 = blow(five)
    assert r5.round == 5
    snorri, brynhild = sides(r5)["Snorri"], sides(r5)["Brynhild"]
    assert snorri.level + sum(m.value for m in snorri.modifiers) == 0      # Great -1 shield -1 footing: Fair
    assert ("Brynhild's situational advantage", -1) in [(m.name, m.value) for m in snorri.modifiers]
    assert brynhild.level + sum(m.value for m in brynhild.modifiers) == 1  # Good -1 Hurt +1 all-out: Good
    assert (snorri.result, brynhild.result) == (1, 2)                      # Good vs Great
    hit = r5.hits[0]
    assert (hit.attacker, hit.defender, hit.relative_degree, hit.graze) == ("Brynhild", "Snorri", 1, True)
    assert (hit.damage_factor, hit.bonus, hit.damage_roll, hit.level) == (2, 1, 0, HURT)
    assert wounds(five) == [("Snorri", HURT)]

    end = fex.state("fex")
    assert status(end, "snorri") == (HURT, -1)
    assert status(end, "brynhild") == (HURT, -1)
    assert end.combatants["snorri"].track.boxes[1] == (HURT,)
    assert end.combatants["brynhild"].track.boxes[:2] == ((SCRATCH, None, None), (HURT,))
    assert replay(fex.log("fex")).combatants == end.combatants
    assert verify(fex.store.read("fex")).ok


def test_F_EX_the_demo_plays_the_same_fight() -> None:
    """F-EX: `fudge demo` (cli/demos.py FEX_ROUNDS) ends where the text does."""
    fights = make_fights()
    fex_fight(fights, "demo")
    for _, command, faces in FEX_ROUNDS:
        fights.execute("demo", command, dice(*faces))
    end = fights.state("demo")
    assert status(end, "snorri") == (HURT, -1)
    assert status(end, "brynhild") == (HURT, -1)
    assert end.combatants["brynhild"].track.boxes[:2] == ((SCRATCH, None, None), (HURT,))
    marks = [(r.event.combatant, r.event.level) for r in fights.log("demo") if isinstance(r.event, ev.WoundMarked)]
    assert marks == [("Brynhild", HURT), ("Brynhild", SCRATCH), ("Snorri", HURT)]


def test_F_EX_round_one_without_the_damage_roll_would_be_very_hurt(fights: Fights) -> None:
    """F-EX: The text: damage 5 'equals a Very Hurt wound-- before rolling for damage' (F-DROLL `none`)."""
    label, options = resolve("fudge", text("house/snorri-brynhild.toml").replace('"4dF_limited"', '"none"'))
    fights.new("plain", label, json_form(options))
    for who in ("snorri", "brynhild"):
        sheet = parse_sheet(text(f"sheets/{who}.toml"), f"{who}.toml")
        fights.execute("plain", cmd.Join(sheet=json_form(sheet), source=f"{who}.toml"))
    one = fights.execute("plain", EXCHANGE, dice("snorri=+ 0 0 0", "brynhild=- 0 0 0"))
    hit = blow(one).hits[0]
    assert (hit.damage, hit.level) == (5, VERY_HURT)
