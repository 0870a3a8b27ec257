"""Melee options of 001 4.3.1 and 4.3.3 in a duel: F-MOD-4, F-MOD-5, F-HIT-2, F-NPC-1.

Ann (Sword Great) and Bob (Sword Good) unless a test says otherwise; both Fair
Strength, no armor.
"""

from __future__ import annotations

from typing import Any

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import dice, sheet, start


def join(fights: Fights, name: str, skill: str, **extra: Any) -> None:
    extra.setdefault("weapon", 2)
    fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": skill}, attack="Sword", **extra),
                                     source=f"{name.lower()}.toml"))


def duel(fights: Fights, ann: dict[str, Any] | None = None, bob: dict[str, Any] | None = None, **options: Any) -> None:
    start(fights, **options)
    join(fights, "Ann", "Great", **(ann or {}))
    join(fights, "Bob", "Good", **(bob or {}))


def aimed(kw: dict[str, Any]) -> dict[str, Any]:
    """A blow's keywords, its targeting's gathered into `targeting`."""
    parts = {key: kw[key] for key in kw if key in cmd.Targeting.__struct_fields__}
    return {**{key: value for key, value in kw.items() if key not in parts}, "targeting": cmd.Targeting(**parts)}


def exchange(fights: Fights, ann: str, bob: str, **kw: Any) -> ev.ExchangeResolved:
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", **aimed(kw)), dice(f"ann={ann}", f"bob={bob}"))
    return next(r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved))


def mods(side: ev.Side) -> list[tuple[str, int]]:
    return [(m.name, m.value) for m in side.modifiers]


def refused(fights: Fights, command: Any, match: str) -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, DiceInput())
    assert fights.store.last_seq("fight") == before


def test_F_MOD_4_two_handed_sword_against_knife_and_medium_shield(fights: Fights) -> None:
    """F-MOD-4: two-handed sword +4 vs knife +1 with a medium shield +1 = 2: the knife wielder is -1."""
    duel(fights, ann={"weapon": 4}, bob={"weapon": 1, "shield": "medium"}, weapon_size=True)
    done = exchange(fights, "0000", "0000")
    ann, bob = done.sides
    assert ("smaller weapon than Ann's", -1) in mods(bob)
    assert not any(name.startswith("smaller weapon") for name, _ in mods(ann))
    assert ("Bob's medium shield", -1) in mods(ann)  # F-MOD-3 still counts


def test_F_MOD_4_a_difference_of_one_or_the_option_off_changes_nothing(fights: Fights) -> None:
    """F-MOD-4: weapon + shield only one apart gives no penalty; with the option off there is none either."""
    duel(fights, ann={"weapon": 3}, bob={"weapon": 1, "shield": "medium"}, weapon_size=True)
    done = exchange(fights, "0000", "0000")
    assert not any(name.startswith("smaller weapon") for side in done.sides for name, _ in mods(side))
    from tests.conftest import make_fights
    other = make_fights()
    duel(other, ann={"weapon": 4}, bob={"weapon": 1})
    outcome = other.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    resolved = next(r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved))
    assert not any(name.startswith("smaller weapon") for side in resolved.sides for name, _ in mods(side))


def test_F_MOD_5_magic_blessing_and_curse_are_named_modifiers(fights: Fights) -> None:
    """F-MOD-5: the GM's blessing (+1) on Bob and curse (-2) on Ann are recorded by name and change the results."""
    duel(fights)
    done = exchange(fights, "0000", "0000", magic=(("Ann", -2), ("bob", 1)))
    ann, bob = done.sides
    assert ("magic curse", -2) in mods(ann) and ("magic blessing", 1) in mods(bob)
    assert (ann.result, bob.result) == (0, 2)  # Great - 2 = Fair; Good + 1 = Great
    assert [h.attacker for h in done.hits] == ["Bob"]
    refused(fights, cmd.Exchange(first="Ann", second="Bob", magic=(("Cat", 1),)), "does not fight")
    refused(fights, cmd.Exchange(first="Ann", second="Bob", magic=(("Ann", 0),)), "F-MOD-5")


def test_F_HIT_2_aimed_blow_needs_great_for_the_part_and_costs_one(fights: Fights) -> None:
    """F-HIT-2: aiming at the sword hand (Great needed): -1 to Ann's skill; a Good result that still wins hits,
    but not in the part aimed for; a Great result strikes the hand."""
    duel(fights)
    great = 2
    done = exchange(fights, "0000", "-000", aim=great, aim_at="sword hand")  # Ann 2-1 = Good vs Bob Fair
    assert ("aimed blow", -1) in mods(done.sides[0])
    assert done.sides[0].result == 1
    hit = done.hits[0]
    assert (hit.attacker, hit.aimed_at, hit.location) == ("Ann", "sword hand", None)
    done = exchange(fights, "+000", "-000", aim=great, aim_at="sword hand")  # Ann Great vs Bob Fair
    assert (done.hits[0].aimed_at, done.hits[0].location) == ("sword hand", "sword hand")
    assert done.aim == great and done.aimed_at == "sword hand"


def test_F_HIT_2_an_aim_needs_a_part_and_at_least_good(fights: Fights) -> None:
    """F-HIT-2: --aim without --aim-at, or an aim below Good, is refused and nothing is written."""
    duel(fights)
    refused(fights, cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(aim=2)), "--aim-at")
    refused(fights, cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(aim=0, aim_at="eye")), "Good or Great")
    refused(fights, cmd.Attack(attacker="Ann", target="Bob", targeting=cmd.Targeting(aim_at="eye")), "Good or Great")


def test_F_NPC_1_a_static_npc_scores_its_level_with_no_roll(fights: Fights) -> None:
    """F-NPC-1: with npc_static an NPC rolls nothing: the PC must beat its level to hurt it."""
    duel(fights, bob={"kind": "npc"}, npc_static=True)
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=-000"))
    done = next(r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved))
    assert [r.event.roller for r in outcome.records if isinstance(r.event, ev.DiceRolled)] == ["Ann"]
    assert (done.sides[1].roll, done.sides[1].result) == (0, 1)
    assert done.outcome == "stand-off"  # Ann Good ties Bob's Good


def test_F_NPC_1_without_the_option_npcs_roll(fights: Fights) -> None:
    """F-NPC-1: the option is off by default: an NPC rolls like anyone."""
    duel(fights, bob={"kind": "npc"})
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=-000", "bob=+000"))
    assert [r.event.roller for r in outcome.records if isinstance(r.event, ev.DiceRolled)] == ["Ann", "Bob"]


def test_F_MOD_5_F_HIT_2_F_NPC_1_verify_re_decides_them(tmp_path: Any) -> None:
    """F-MOD-5, F-HIT-2, F-NPC-1: the audit re-runs these commands from their recorded dice."""
    from fudge_combat.store.sqlite import SqliteStore
    from tests.conftest import make_fights
    fights = make_fights(SqliteStore(tmp_path / "f.db"))
    duel(fights, bob={"kind": "npc"}, npc_static=True, weapon_size=True)
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", magic=(("Ann", 1),), targeting=cmd.Targeting(aim=2, aim_at="eye")))
    fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob", targeting=cmd.Targeting(aim=3, aim_at="eye")), DiceInput())
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems


@pytest.mark.parametrize(("face", "posture"), [(1, -2), (2, -1), (3, 0), (4, 0), (5, 1), (6, 2)])
def test_F_TAC_3_a_d6_picks_the_posture(fights: Fights, face: int, posture: int) -> None:
    """F-TAC-3: 1 -2, 2 -1, 3-4 0, 5 +1, 6 +2; the die is recorded as a d6 roll."""
    duel(fights, tactics="postures")
    outcome = fights.execute("fight", cmd.Declare(combatant="Ann", declaration=ev.Declaration(),
                                                  posture_roll=True, posture_die=face))
    rolled = [r.event for r in outcome.records if isinstance(r.event, ev.DiceRolled)]
    assert [(r.sides, r.faces, r.source) for r in rolled] == [(6, (face,), "entered")]
    assert fights.state("fight").declarations["ann"].posture == posture


def test_F_TAC_3_a_generated_d6_replays_and_verifies(tmp_path: Any) -> None:
    """F-TAC-3: a generated d6 is derived from the seed like any roll (A-FAIR-1) and re-decided (A-VERIFY-1)."""
    from fudge_combat.engine.kernel.dice import derive_faces
    from fudge_combat.store.sqlite import SqliteStore
    from tests.conftest import make_fights
    fights = make_fights(SqliteStore(tmp_path / "f.db"))
    duel(fights, tactics="postures")
    faces = []
    for _ in range(12):
        outcome = fights.execute("fight", cmd.Declare(combatant="Ann", declaration=ev.Declaration(), posture_roll=True))
        rolled = next(r.event for r in outcome.records if isinstance(r.event, ev.DiceRolled))
        assert rolled.sides == 6
        assert rolled.faces == derive_faces(bytes(range(32)), rolled.stream or "", rolled.draw or 0, 1, 6)
        faces.append(rolled.faces[0])
    assert set(faces) <= {1, 2, 3, 4, 5, 6} and len(set(faces)) > 1
    fights.reveal_seed("fight")
    report = verify(fights.store.read("fight"))
    assert report.ok and report.rolls_checked == 12, report


def test_F_TAC_3_refusals(fights: Fights) -> None:
    """F-TAC-3: a rolled posture needs postures, cannot also be chosen, a d6 shows 1..6, and no point re-rolls it."""
    duel(fights, tactics="postures")
    refused(fights, cmd.Declare(combatant="Ann", declaration=ev.Declaration(posture=1), posture_roll=True), "not both")
    refused(fights, cmd.Declare(combatant="Ann", declaration=ev.Declaration(), posture_die=7), "1 to 6")
    fights.execute("fight", cmd.Declare(combatant="Ann", declaration=ev.Declaration(), posture_die=5))
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck"), "posture die")
    from tests.conftest import make_fights
    other = make_fights()
    duel(other)
    before = other.store.last_seq("fight")
    with pytest.raises(RuleError, match="postures"):
        other.execute("fight", cmd.Declare(combatant="Ann", declaration=ev.Declaration(), posture_die=3))
    assert other.store.last_seq("fight") == before


def test_F_HIT_2_good_is_read_on_the_fights_ladder(fights: Fights) -> None:
    """F-HIT-2: on the fate11 ladder Good is +2: an aim of +1 (Fair there) is refused, +2 is accepted."""
    duel(fights, ladder="fate11")
    refused(fights, cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(aim=1, aim_at="eye")), "Good or Great")
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(aim=2, aim_at="eye")), dice("ann=0000", "bob=0000"))
