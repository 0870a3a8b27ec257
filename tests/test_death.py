"""PC death prevention (Fudge 4.6.4): F-DEATH-1 (three levels a blow), F-DEATH-2 (Near Death
only from a round begun Incapacitated), F-DEATH-4 (not for ordinary NPCs), in any combination.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, NEAR_DEATH, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.conftest import dice, start
from tests.wound_helpers import attack, blow, bob, duel, of


def marked(outcome: Any) -> ev.WoundMarked:
    return of(outcome, ev.WoundMarked)[0]


def test_F_DEATH_1_an_unwounded_character_is_at_worst_very_hurt_in_one_blow(fights: Fights) -> None:
    """F-DEATH-1: "an unwounded character could be Scratched, Hurt, or Very Hurt in one blow"."""
    duel(fights, death_three_levels=True)
    wound = marked(blow(fights, "Near Death"))
    assert (wound.level, wound.dealt) == (VERY_HURT, NEAR_DEATH)
    assert wound.notes == ("F-DEATH-1: Near Death lowered to Very Hurt",)
    assert bob(fights).track.level == VERY_HURT


def test_F_DEATH_1_a_hurt_character_can_reach_near_death_but_not_die(fights: Fights) -> None:
    """F-DEATH-1: "A Hurt character could go all the way to Near Death in one blow, but not be killed"."""
    duel(fights, death_three_levels=True)
    blow(fights, "Hurt")
    wound = marked(blow(fights, "Near Death"))
    assert wound.level == NEAR_DEATH and wound.dealt is None and bob(fights).track.level == NEAR_DEATH


def test_F_DEATH_1_counts_overflow_and_loses_the_excess(fights: Fights) -> None:
    """F-DEATH-1: from Scratched, the cap is Incapacitated: a Near Death blow marks Incapacitated."""
    duel(fights, death_three_levels=True)
    blow(fights, "Scratch")
    wound = marked(blow(fights, "Near Death"))
    assert wound.level == INCAPACITATED and bob(fights).track.level == INCAPACITATED


def test_F_DEATH_1_off_by_default(fights: Fights) -> None:
    """F-DEATH-1: without the option the blow lands whole."""
    duel(fights)
    assert marked(blow(fights, "Near Death")).level == NEAR_DEATH


def test_F_DEATH_2_no_near_death_unless_the_round_began_incapacitated(fights: Fights) -> None:
    """F-DEATH-2: Incapacitated in round 1, a worse blow that round cannot reach Near Death (the
    worst box that keeps him Incapacitated is marked); in round 2 the blow overflows to Near Death."""
    duel(fights, pace="alternating", death_needs_incapacitated=True)
    fights.execute("fight", cmd.StartRound())
    wound = marked(attack(fights, "++++"))  # Great+4 = 6 vs Good+0 = 1: RD 5, damage 7
    assert wound.level == INCAPACITATED and bob(fights).track.level == INCAPACITATED
    wound = marked(attack(fights, "++00"))  # Bob cannot defend (Poor): RD 6, damage 8: Incapacitated
    assert (wound.level, wound.dealt) == (VERY_HURT, INCAPACITATED)
    assert bob(fights).track.level == INCAPACITATED
    fights.execute("fight", cmd.StartRound())
    wound = marked(attack(fights, "0000"))  # Great vs Poor: RD 4, damage 6: Very Hurt, overflowing
    assert (wound.level, wound.dealt) == (VERY_HURT, None) and bob(fights).track.level == NEAR_DEATH


def test_F_DEATH_2_a_near_death_blow_on_an_unhurt_character_stops_at_incapacitated(fights: Fights) -> None:
    """F-DEATH-2: an exchange that starts the round counts the level before the blow."""
    duel(fights, death_needs_incapacitated=True)
    wound = marked(blow(fights, "Near Death"))
    assert (wound.level, wound.dealt) == (INCAPACITATED, NEAR_DEATH)
    assert wound.notes == ("F-DEATH-2: Near Death lowered to Incapacitated",)


def test_F_DEATH_1_F_DEATH_2_together_the_stricter_cap_wins(fights: Fights) -> None:
    """F-DEATH-1, F-DEATH-2: both on: from Hurt, three levels would allow Near Death; the round rule stops it."""
    duel(fights, death_three_levels=True, death_needs_incapacitated=True)
    blow(fights, "Hurt")
    wound = marked(blow(fights, "Near Death"))
    assert wound.level == INCAPACITATED
    assert wound.notes == ("F-DEATH-1 F-DEATH-2: Near Death lowered to Incapacitated",)


def test_F_DEATH_4_ordinary_npcs_are_not_protected(fights: Fights) -> None:
    """F-DEATH-4: a sheet of kind npc takes the whole blow; major NPCs are protected like PCs."""
    duel(fights, death_three_levels=True, bob={"kind": "npc"})
    assert marked(blow(fights, "Near Death")).level == NEAR_DEATH


def test_F_DEATH_4_major_npcs_are_protected(fights: Fights) -> None:
    """F-DEATH-4: kind major is protected like a PC."""
    duel(fights, death_three_levels=True, bob={"kind": "major"})
    assert marked(blow(fights, "Near Death")).level == VERY_HURT


def test_F_DEATH_4_the_all_option_protects_ordinary_npcs(fights: Fights) -> None:
    """F-DEATH-4: death_protects = "all" extends the rules to every combatant."""
    duel(fights, death_three_levels=True, death_protects="all", bob={"kind": "npc"})
    assert marked(blow(fights, "Near Death")).level == VERY_HURT


def test_F_DEATH_1_a_fudge_point_reresolution_caps_from_the_track_without_the_old_mark(fights: Fights) -> None:
    """F-DEATH-1, C-FP-2: Bob's luck reroll makes Ann's Hurt an Incapacitated blow; the cap reads the track
    without the voided Hurt (Undamaged: at worst Very Hurt)."""
    duel(fights, death_three_levels=True, bob={"fudge_points": 1})
    assert marked(blow(fights, "Hurt")).level == HURT
    spent = fights.execute("fight", cmd.SpendPoint(combatant="Bob", use="luck"), dice("bob=----"))
    wound = marked(spent)  # Ann Great+1 = 3 vs Bob Good-4 = -3: RD 6, damage 8
    assert (wound.level, wound.dealt) == (VERY_HURT, INCAPACITATED)
    assert [m.level for m in bob(fights).marks] == [VERY_HURT]


def test_F_DEATH_1_a_shot_is_capped_too(fights: Fights) -> None:
    """F-DEATH-1 with F-RNG-1: Slim's Good +3 = Superb+1 vs Fair: RD +4, damage 7 (Incapacitated); on an
    unwounded PC it lands as Very Hurt."""
    from tests.test_ranged import gunslinger, join as join_all, shot_of
    name = start(fights, death_three_levels=True)
    join_all(fights, name, gunslinger("Slim"), gunslinger("Hombre"))
    out = fights.execute(name, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=0), dice("slim=+++0"))
    assert shot_of(out).hits[0].level == INCAPACITATED
    assert (marked(out).level, marked(out).dealt) == (VERY_HURT, INCAPACITATED)
