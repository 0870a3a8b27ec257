"""Fancy stuff (001 4.3.6): F-FANCY-1 speed contest, F-FANCY-2 plus levels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, sheet, start


def join(fights: Fights, name: str, skills: dict[str, Any], **extra: Any) -> None:
    extra.setdefault("attack", "Sword")
    fights.execute("fight", cmd.Join(sheet=sheet(name, skills=skills, weapon=2, **extra), source=f"{name.lower()}.toml"))


def resolved(outcome: Any) -> ev.ExchangeResolved:
    return next(r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved))


def mods(side: ev.Side) -> list[tuple[str, int]]:
    return [(m.name, m.value) for m in side.modifiers]


# --- F-FANCY-1 -------------------------------------------------------------------------

def test_F_FANCY_1_good_speed_against_fair_speed_the_winner_adds_the_difference(fights: Fights) -> None:
    """F-FANCY-1: Ann (Speed Good) vs Bob (Speed Fair): opposed Speed rolls first; Ann wins by 2 and adds +2."""
    start(fights)
    join(fights, "Ann", {"Sword": "Good"}, attributes={"Speed": "Good"})
    join(fights, "Bob", {"Sword": "Good"}, attributes={"Speed": "Fair"})
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(speed_contest=True)),
                             dice("ann=+000", "bob=0000", "ann=0000", "bob=0000"))
    rolls = [(r.event.roller, r.event.purpose) for r in outcome.records if isinstance(r.event, ev.DiceRolled)]
    assert rolls == [("Ann", "speed contest (Speed)"), ("Bob", "speed contest (Speed)"), ("Ann", "Sword"), ("Bob", "Sword")]
    done = resolved(outcome)
    assert done.speed == (2, 0)
    assert ("won the speed contest", 2) in mods(done.sides[0])
    assert not any(n == "won the speed contest" for n, _ in mods(done.sides[1]))
    assert (done.sides[0].result, done.sides[1].result) == (3, 1)


def test_F_FANCY_1_a_tie_gives_nobody_anything_and_a_speed_roll_takes_no_fudge_point(fights: Fights) -> None:
    """F-FANCY-1: equal Speed results: no bonus; a luck point on the Speed roll is refused, nothing written."""
    start(fights)
    join(fights, "Ann", {"Sword": "Good"}, fudge_points=1)
    join(fights, "Bob", {"Sword": "Good"})
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(speed_contest=True)),
                             dice("ann=0000", "bob=0000", "ann=0000", "bob=0000"))
    done = resolved(outcome)
    assert done.speed == (0, 0) and not any("speed" in n for s in done.sides for n, _ in mods(s))
    speed_roll = next(r.seq for r in outcome.records if isinstance(r.event, ev.DiceRolled))
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match="speed contest"):
        fights.execute("fight", cmd.SpendPoint(combatant="Ann", use="luck", target=speed_roll))
    assert fights.store.last_seq("fight") == before


def test_F_FANCY_1_verified_from_recorded_dice(tmp_path: Path) -> None:
    """F-FANCY-1: the speed contest re-decides the same from its recorded (generated) dice."""
    fights = make_fights(SqliteStore(tmp_path / "f.db"))
    start(fights)
    join(fights, "Ann", {"Sword": "Good"}, attributes={"Speed": "Great"})
    join(fights, "Bob", {"Sword": "Good"})
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(speed_contest=True)), DiceInput())
    fights.reveal_seed("fight")
    report = verify(fights.store.read("fight"))
    assert report.ok and report.rolls_checked == 4, report


# --- F-FANCY-2 -------------------------------------------------------------------------

def test_F_FANCY_2_good_plus_is_plus_one_on_rounds_2_and_4_only(fights: Fights) -> None:
    """F-FANCY-2: Sword Good+ reads as Good, +1 on every other round starting with round 2."""
    start(fights, plus_levels=True)
    join(fights, "Ann", {"Sword": "Good+"})
    join(fights, "Bob", {"Sword": "Good"})
    bonus = []
    for number in range(1, 5):
        done = resolved(fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0-+0")))
        assert done.round == number
        assert done.sides[0].level == 1
        bonus.append(("plus level (even round)", 1) in mods(done.sides[0]))
        assert not any(n.startswith("plus level") for n, _ in mods(done.sides[1]))
    assert bonus == [False, True, False, True]


@pytest.mark.parametrize(("options", "skills", "attributes", "message"), [
    ({}, {"Sword": "Good+"}, {}, "plus_levels = true"),                              # option off
    ({"plus_levels": True}, {"Sword": "Good", "Climbing": "Good+"}, {}, "combat"),   # not a combat skill
    ({"plus_levels": True}, {"Sword": "Good"}, {"Agility": "Good+"}, "combat"),      # an attribute
])
def test_F_FANCY_2_good_plus_is_refused_where_it_means_nothing(fights: Fights, options: dict[str, Any],
                                                               skills: dict[str, Any], attributes: dict[str, Any],
                                                               message: str) -> None:
    """F-FANCY-2: `Good+` only for a combat skill with plus_levels on; elsewhere the join is refused, nothing written."""
    start(fights, **options)
    before = fights.store.last_seq("fight")
    with pytest.raises(InputError, match=message):
        join(fights, "Ann", skills, attributes=attributes)
    assert fights.store.last_seq("fight") == before


def test_F_FANCY_2_the_ladder_still_reads_excess_levels(fights: Fights) -> None:
    """F-FANCY-2, C-LAD-4: `Superb+1` is still a level beyond the top, not a plus level."""
    start(fights, plus_levels=True)
    join(fights, "Ann", {"Sword": "Superb+1"})
    ann = fights.state("fight").find("Ann")
    assert ann is not None and ann.fighter.skills["Sword"] == 4 and not ann.fighter.plus
