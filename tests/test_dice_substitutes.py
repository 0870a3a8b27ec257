"""C-DICE-4: 3d6 and d% typed in place of 4dF, read on the Fudge SRD charts (an option)."""

from __future__ import annotations

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.dice import SUBSTITUTE_CHARTS, parse_entered, parse_substitute
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import sheet, start
from tests.test_cli import SHEETS, Fudge, fudge  # noqa: F401  (the fixture)

# The SRD charts, total by total.
THREE_D6 = {3: -4, 4: -4, 5: -3, 6: -2, 7: -2, 8: -1, 9: -1, 10: 0, 11: 0, 12: 1, 13: 1,
            14: 2, 15: 2, 16: 3, 17: 4, 18: 4}
PERCENT = {1: -4, 2: -3, 6: -3, 7: -2, 18: -2, 19: -1, 38: -1, 39: 0, 62: 0, 63: 1, 82: 1, 83: 2, 94: 2,
           95: 3, 99: 3, 100: 4}


@pytest.mark.parametrize("total, result", sorted(THREE_D6.items()))
def test_C_DICE_4_three_d6_chart(total: int, result: int) -> None:
    """C-DICE-4: 3-4: -4, 5: -3, 6-7: -2, 8-9: -1, 10-11: 0, 12-13: +1, 14-15: +2, 16: +3, 17-18: +4."""
    read = parse_substitute(f"3d6:{total}")
    assert read is not None and sum(read) == result and len(read) == 4
    assert read.typed == f"3d6 {total}"


@pytest.mark.parametrize("roll, result", sorted(PERCENT.items()))
def test_C_DICE_4_percentile_chart(roll: int, result: int) -> None:
    """C-DICE-4: 1: -4, 2-6: -3, 7-18: -2, 19-38: -1, 39-62: 0, 63-82: +1, 83-94: +2, 95-99: +3, 00: +4."""
    read = parse_substitute(f"d%:{roll}")
    assert read is not None and sum(read) == result


def test_C_DICE_4_the_charts_cover_every_total_once() -> None:
    """C-DICE-4: every total of the dice reads one result; `00` is 100 and three d6 add up."""
    assert [v for _, v in SUBSTITUTE_CHARTS["3d6"]] == list(range(-4, 5))
    assert sum(parse_substitute("d%:00")) == 4
    assert sum(parse_substitute("3d6 4 5 6")) == 2  # 15
    assert parse_entered("+ - 0 +") == (1, -1, 0, 1)  # Fudge faces are still Fudge faces
    for bad in ("3d6:7 8 1", "3d6:19", "d%:101", "3d6:", "d%:ab"):
        with pytest.raises(InputError):
            parse_substitute(bad)


def fight(fights: Fights, **options: object) -> None:
    start(fights, **options)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Good"}, attack="Sword"), source="ann.toml"))


def test_C_DICE_4_a_substitute_is_recorded_with_what_was_typed(fights: Fights) -> None:
    """C-DICE-4, C-DICE-2, C-DICE-3: the roll's faces are the chart's result; the event keeps the 3d6 typed."""
    fight(fights, dice_substitutes=True)
    typed = DiceInput(by_roller={"ann": [parse_entered("3d6:6 5 4")]})  # 15: +2
    out = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=2), typed)
    rolled = next(r.event for r in out.records if isinstance(r.event, ev.DiceRolled))
    assert (sum(rolled.faces), rolled.source, rolled.substitute) == (2, "entered", "3d6 6 5 4")
    resolved = next(r.event for r in out.records if isinstance(r.event, ev.ActionResolved))
    assert (resolved.result, resolved.success) == (3, True)  # Good +2 = Superb
    assert verify(fights.store.read("fight")).ok


def test_C_DICE_4_refused_when_the_option_is_off_or_the_roll_is_not_4dF(fights: Fights) -> None:
    """C-DICE-4: accepting substitutes is an option; and a substitute stands for 4dF only."""
    fight(fights)
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match="dice_substitutes = true"):
        fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"),
                       DiceInput(by_roller={"ann": [parse_entered("d%:50")]}))
    assert fights.store.last_seq("fight") == before


def test_C_DICE_4_a_substitute_stands_for_4dF_only(fights: Fights) -> None:
    """C-DICE-4: a 1dF damage roll cannot be typed as 3d6; the exchange writes nothing."""
    fight(fights, dice_substitutes=True, damage_roll="1dF_damage")
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", skills={"Sword": "Poor"}, attack="Sword"), source="bob.toml"))
    before = fights.store.last_seq("fight")
    typed = DiceInput(by_roller={"ann": [parse_entered("3d6:18"), parse_entered("3d6:10")],
                                 "bob": [parse_entered("3d6:3")]})
    with pytest.raises(RuleError, match="stands for 4dF; Ann's damage roll is 1dF"):
        fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), typed)
    assert fights.store.last_seq("fight") == before


def test_C_DICE_4_typed_at_the_command_line(fudge: Fudge, tmp_path) -> None:  # type: ignore[no-untyped-def]
    house = tmp_path / "no-fudge-dice.toml"
    house.write_text('extends = "fudge"\ndice_substitutes = true\n')
    fudge("new", "duel", "--house", house)
    fudge("join", SHEETS / "snorri.toml")
    out = fudge("roll", "snorri", "Sword", "--vs", "Good", "--dice", "d%:95").stdout
    assert "d% 95 read as + + + 0 = +3" in out
