"""Damage capacity and other tracks: F-DC (`damage_capacity` roll / gift / willpower, level or
point steps, High and Low Pain Threshold), F-WND-7 (NPC pawns), F-WND-8 (Damage Capacity as the track).
"""

from __future__ import annotations

from typing import Any

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, SCRATCH, UNDAMAGED, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.conftest import dice
from tests.wound_helpers import blow, bob, duel, faces_for, of, refused

NO_DC_DEFENSE = {"dc_in_defense": False}


def hit(fights: Fights, level: str, *more: str) -> Any:
    """Ann hits Bob for `level` (before any adjustment); `more` are extra dice (Bob's F-DC roll)."""
    state = fights.state("fight")
    ann, bob_faces = faces_for(level, state.combatants["bob"].track.penalty(state.options))
    return fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"),
                          dice(f"ann={ann}", f"bob={bob_faces}", *more))


def wound(outcome: Any) -> ev.WoundMarked:
    return of(outcome, ev.WoundMarked)[0]


# --- F-DC damage_capacity = roll / willpower / gift -------------------------------------

def test_F_DC_roll_great_or_better_lowers_the_wound_one_level(fights: Fights) -> None:
    """F-DC roll: Bob's Good Damage Capacity rolls +1 = Great: Very Hurt becomes Hurt; the roll is recorded."""
    duel(fights, damage_capacity="roll", bob={"attributes": {"Damage Capacity": "Good"}}, **NO_DC_DEFENSE)
    outcome = hit(fights, "Very Hurt", "bob=+000")
    rolled = [e for e in of(outcome, ev.DiceRolled) if e.purpose == "Damage Capacity vs the wound"]
    assert len(rolled) == 1 and rolled[0].faces == (1, 0, 0, 0)
    assert (wound(outcome).level, wound(outcome).dealt) == (HURT, VERY_HURT)
    assert wound(outcome).notes == ("F-DC Damage Capacity roll +2: Very Hurt lowered to Hurt",)


@pytest.mark.parametrize(("faces", "level"), [("-000", VERY_HURT), ("+000", VERY_HURT), ("++00", HURT),
                                                  ("--00", INCAPACITATED)])
def test_F_DC_roll_mediocre_to_good_no_change_poor_or_worse_raises(fights: Fights, faces: str, level: int) -> None:
    """F-DC roll: Fair DC rolling Mediocre–Good changes nothing, Great or better -1 level, Poor or worse +1."""
    duel(fights, damage_capacity="roll", **NO_DC_DEFENSE)
    assert wound(hit(fights, "Very Hurt", f"bob={faces}")).level == level


def test_F_DC_roll_only_for_hurt_or_worse(fights: Fights) -> None:
    """F-DC roll: a Scratch asks for no roll (dice typed for one are not rolled: reported unused, not refused)."""
    duel(fights, damage_capacity="roll", **NO_DC_DEFENSE)
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000", "bob=0000"))
    assert [(u.roller, u.faces, u.used) for u in outcome.unused] == [("Bob", ((0, 0, 0, 0),), 1)]
    assert not [e for e in of(outcome, ev.DiceRolled) if e.purpose == "Damage Capacity vs the wound"]
    assert of(hit(fights, "Scratch"), ev.WoundMarked)[0].level == SCRATCH


def test_F_DC_point_step_moves_one_damage_point(fights: Fights) -> None:
    """F-DC (damage_capacity_step = point): a Great DC roll takes one point off: damage 5 (VH) -> 4 (Hurt)."""
    duel(fights, damage_capacity="roll", damage_capacity_step="point", **NO_DC_DEFENSE)
    assert wound(hit(fights, "Very Hurt", "bob=++00")).level == HURT  # damage 5 - 1 = 4
    assert wound(hit(fights, "Incapacitated", "bob=++00")).level == VERY_HURT  # damage 7 - 1 = 6


def test_F_DC_willpower_roll_adjusts_the_wound(fights: Fights) -> None:
    """F-DC willpower: Bob's Great Willpower rolls +0 = Great: the Hurt is one level less, a Scratch."""
    duel(fights, damage_capacity="willpower", bob={"attributes": {"Willpower": "Great"}}, **NO_DC_DEFENSE)
    outcome = hit(fights, "Hurt", "bob=0000")
    assert [e.purpose for e in of(outcome, ev.DiceRolled)][-1] == "Willpower vs the wound"
    assert wound(outcome).level == SCRATCH


@pytest.mark.parametrize(("gift", "level"), [("Damage Resistant", SCRATCH), ("Fragile", VERY_HURT)])
def test_F_DC_gift_damage_resistant_and_fragile(fights: Fights, gift: str, level: int) -> None:
    """F-DC gift: Damage Resistant -1 severity, Fragile +1, with no roll."""
    duel(fights, damage_capacity="gift", bob={"gifts": [gift]}, **NO_DC_DEFENSE)
    outcome = blow(fights, "Hurt")
    assert wound(outcome).level == level and wound(outcome).dealt == HURT


def test_F_DC_the_roll_is_reused_when_a_point_reresolves_the_blow(fights: Fights) -> None:
    """F-DC roll, C-FP-2: a luck spend re-decides the blow with the same DC roll; the DC roll itself
    takes no point; verify agrees."""
    duel(fights, damage_capacity="roll", bob={"fudge_points": 2}, **NO_DC_DEFENSE)
    first = hit(fights, "Very Hurt", "bob=++00")  # Fair DC +2 = Great: Hurt
    dc_seq = [r.seq for r in first.records if isinstance(r.event, ev.DiceRolled)][-1]
    refused(fights, cmd.SpendPoint(combatant="Bob", use="luck", target=dc_seq), "adjusts a wound")
    spent = fights.execute("fight", cmd.SpendPoint(combatant="Bob", use="luck"), dice("bob=+000"))
    assert of(spent, ev.DiceRolled)[0].purpose == "Sword"  # no new DC roll: the old one stands
    assert wound(spent).level == SCRATCH  # Ann Great vs Bob Good+1: RD 1, a graze Scratch: no roll needed
    assert verify(fights.store.read("fight")).ok


def test_F_DC_other_modes_need_dc_out_of_the_defensive_factor() -> None:
    """F-DC, F-WND-8: Damage Capacity used another way is not also a defensive factor."""
    with pytest.raises(InputError, match="dc_in_defense = false"):
        resolve("fudge", 'extends = "fudge"\ndamage_capacity = "roll"')
    with pytest.raises(InputError, match="dc_in_defense = false"):
        resolve("fudge", 'extends = "fudge"\ndc_track = true')


@pytest.mark.parametrize(("gift", "hurt", "very_hurt"), [("High Pain Threshold", 0, -1),
                                                           ("Low Pain Threshold", -2, -3)])
def test_F_DC_pain_threshold_moves_penalties_one_level(fights: Fights, gift: str, hurt: int, very_hurt: int) -> None:
    """F-DC: High Pain Threshold: penalties one level less; Low Pain Threshold: one more."""
    duel(fights, bob={"gifts": [gift]})
    options = fights.state("fight").options
    blow(fights, "Scratch")
    assert bob(fights).track.penalty(options) == 0
    hit(fights, "Hurt")
    assert bob(fights).track.level == HURT and bob(fights).track.penalty(options) == hurt
    hit(fights, "Very Hurt")
    assert bob(fights).track.level == VERY_HURT and bob(fights).track.penalty(options) == very_hurt


# --- F-WND-7 pawns ----------------------------------------------------------------------

def test_F_WND_7_a_pawn_goes_undamaged_hurt_out(fights: Fights) -> None:
    """F-WND-7: a Scratch does nothing, a Hurt marks Hurt (-1), a second Hurt puts it out of the battle."""
    duel(fights, bob={"kind": "npc", "track": "pawn"})
    blow(fights, "Scratch")
    assert bob(fights).track.level == UNDAMAGED
    blow(fights, "Hurt")
    assert bob(fights).track.level == HURT and bob(fights).track.penalty(fights.state("fight").options) == -1
    blow(fights, "Hurt")
    assert not bob(fights).track.can_act and bob(fights).track.out == "out of the battle"
    refused(fights, cmd.Exchange(first="Ann", second="Bob"), "cannot act", dice("ann=0000", "bob=0000"))


def test_F_WND_7_very_hurt_takes_a_pawn_out_at_once(fights: Fights) -> None:
    """F-WND-7: Very Hurt or worse on a pawn: out of the battle."""
    duel(fights, bob={"kind": "npc", "track": "pawn"})
    blow(fights, "Very Hurt")
    assert bob(fights).track.out == "out of the battle" and bob(fights).track.level == INCAPACITATED


# --- F-WND-8 Damage Capacity as the track ------------------------------------------------

def dc_duel(fights: Fights, capacity: str, **options: Any) -> None:
    duel(fights, dc_track=True, bob={"attributes": {"Damage Capacity": capacity}}, **NO_DC_DEFENSE, **options)


def test_F_WND_8_each_hit_worse_than_a_scratch_lowers_dc_one_level(fights: Fights) -> None:
    """F-WND-8: Fair DC: a hit -> Mediocre: Hurt -1; another -> Poor: Very Hurt -2; another -> Terrible -3;
    another -> below Terrible: Incapacitated."""
    dc_duel(fights, "Fair")
    options = fights.state("fight").options
    expected = [(HURT, -1), (VERY_HURT, -2), (VERY_HURT, -3), (INCAPACITATED, -2)]
    for level, penalty in expected:
        blow(fights, "Hurt")
        track = bob(fights).track
        assert (track.level, track.penalty(options)) == (level, penalty)


def test_F_WND_8_a_low_dc_character_takes_no_penalty_until_hit(fights: Fights) -> None:
    """F-WND-8: Fudge 4.5.7: undamaged Mediocre DC is not -1; one hit drops him to Poor: -2."""
    dc_duel(fights, "Mediocre")
    options = fights.state("fight").options
    assert bob(fights).track.penalty(options) == 0 and bob(fights).track.level == UNDAMAGED
    blow(fights, "Hurt")
    assert (bob(fights).track.level, bob(fights).track.penalty(options)) == (VERY_HURT, -2)


def test_F_WND_8_scratches_three_make_a_hit_and_terrible_can_incapacitate(fights: Fights) -> None:
    """F-WND-8: three Scratches count as one hit; option dc_track_terrible = incapacitated."""
    dc_duel(fights, "Mediocre", dc_track_terrible="incapacitated")
    blow(fights, "Scratch")
    blow(fights, "Scratch")
    assert bob(fights).track.level == SCRATCH and bob(fights).track.penalty(fights.state("fight").options) == 0
    blow(fights, "Scratch")
    assert bob(fights).track.level == VERY_HURT  # Mediocre - 1 = Poor
    blow(fights, "Very Hurt")
    assert bob(fights).track.level == INCAPACITATED and not bob(fights).track.can_act


def test_F_WND_8_healing_raises_dc_back_never_above_the_start(fights: Fights) -> None:
    """F-WND-8, F-HEAL-2: healing removes hits; DC returns to its undamaged level, not above."""
    dc_duel(fights, "Fair")
    blow(fights, "Hurt")
    fights.execute("fight", cmd.Heal(patient="Bob", skill_level=3), dice("0000"))
    assert bob(fights).track.hits == 0 and bob(fights).track.current == 0
