"""A small duel whose blows land at chosen wound levels, for the wound, healing and stun tests.

Ann (Sword Great, weapon +2, Strength Fair) against Bob (Sword Good, no
weapon, Damage Capacity Fair, no armor): Ann's damage factor is +2, so damage is RD + 2, and
with both rolling "0000" RD is +1 (a graze: a Scratch). `faces_for` picks
the dice for a wound level, counting Bob's wound penalty.
"""

from __future__ import annotations

from typing import Any

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import dice, sheet, start

RD_FOR = {"Scratch": 1, "Hurt": 2, "Very Hurt": 3, "Incapacitated": 5, "Near Death": 7}  # damage = RD + 2


def faces_for(level: str, penalty: int) -> tuple[str, str]:
    """(Ann's faces, Bob's faces) for a blow of `level` on Bob at wound penalty `penalty`.

    RD = (Great + Ann's roll) - (Good + Bob's roll + penalty) = 1 + Ann's - Bob's - penalty.
    """
    difference = RD_FOR[level] - 1 + penalty
    ann = max(0, min(difference, 4))
    bob = ann - difference
    assert -4 <= bob <= 4
    return "+" * ann + "0" * (4 - ann), ("+" * bob if bob > 0 else "-" * -bob) + "0" * (4 - abs(bob))


def duel(fights: Fights, bob: dict[str, Any] | None = None, **options: Any) -> None:
    start(fights, **options)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Great"}, attack="Sword", weapon=2),
                                     source="ann.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", skills={"Sword": "Good"}, attack="Sword",
                                                 **(bob or {})), source="bob.toml"))


def blow(fights: Fights, level: str, **intent: Any) -> Any:
    """Ann hits Bob for `level` in a simultaneous exchange."""
    penalty = fights.state("fight").combatants["bob"].track.penalty(fights.state("fight").options)
    ann, bob_faces = faces_for(level, penalty)
    return fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", **intent),
                          dice(f"ann={ann}", f"bob={bob_faces}"))


def attack(fights: Fights, faces: str, **intent: Any) -> Any:
    """A directed attack by Ann on Bob (alternating pace); Bob defends with 0000 when he can."""
    state = fights.state("fight")
    given = [f"ann={faces}"]
    if state.combatants["bob"].track.can_act:
        given.append("bob=0000")
    return fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob", **intent), dice(*given))


def bob(fights: Fights) -> Any:
    return fights.state("fight").combatants["bob"]


def boxes(fights: Fights) -> tuple[tuple[int | None, ...], ...]:
    return bob(fights).track.boxes


def of(outcome: Any, kind: type) -> list[Any]:
    return [r.event for r in outcome.records if isinstance(r.event, kind)]


def refused(fights: Fights, command: Any, match: str, given: DiceInput | None = None) -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before
