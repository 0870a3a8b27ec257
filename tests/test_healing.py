"""Healing: F-HEAL-1 (Scratches after the battle or a rest), F-HEAL-2 (healing skill, with
Fudge 4.8's example), F-HEAL-3 (natural healing, with the Constitution roll option),
F-HEAL-4 (healing acts on each mark's original level). Heals are events: undo,
replay and verify need nothing special.
"""

from __future__ import annotations

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.rulesets.fudge.healing import healed_level, heal, levels_for_result
from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, NEAR_DEATH, SCRATCH, UNDAMAGED, VERY_HURT, Mark
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from tests.conftest import dice
from tests.wound_helpers import blow, bob, boxes, duel, of, refused


def wounded_like_the_example(fights: Fights) -> None:
    """Bob takes a Very Hurt, then two Hurts: Hurt [H], Very Hurt [VH], Incapacitated [H] (F-WND-9)."""
    duel(fights)
    blow(fights, "Very Hurt")
    blow(fights, "Hurt")
    blow(fights, "Hurt")
    assert boxes(fights) == ((None, None, None), (HURT,), (VERY_HURT,), (HURT,), (None,))
    assert bob(fights).track.level == INCAPACITATED


def test_F_HEAL_2_F_HEAL_4_the_example_two_hurt_and_a_very_hurt_healed_with_good(fights: Fights) -> None:
    """F-HEAL-2, F-HEAL-4: Fudge 4.8: two Hurt and one Very Hurt, a Good healing roll: the Hurts heal,
    the Very Hurt becomes Hurt (-1). The Incapacitated box, noted H, heals as the Hurt it was."""
    wounded_like_the_example(fights)
    outcome = fights.execute("fight", cmd.Heal(patient="Bob", skill_level=1), dice("0000"))
    healed = of(outcome, ev.WoundsHealed)[0]
    assert (healed.cause, healed.result, healed.levels) == ("skill", 1, 1)
    assert sorted((c.before, c.after) for c in healed.changes) == [(HURT, UNDAMAGED), (HURT, UNDAMAGED),
                                                                    (VERY_HURT, HURT)]
    assert boxes(fights) == ((None, None, None), (HURT,), (None,), (None,), (None,))
    assert bob(fights).track.level == HURT and bob(fights).track.penalty(fights.state("fight").options) == -1
    assert [m.healed_from for m in bob(fights).marks] == [VERY_HURT]


def test_F_HEAL_2_great_heals_two_levels_superb_three(fights: Fights) -> None:
    """F-HEAL-2: Great heals every wound two levels (the Very Hurt is gone); Superb three."""
    assert [levels_for_result(r) for r in (-1, 0, 1, 2, 3, 5)] == [0, 0, 1, 2, 3, 3]
    assert healed_level(INCAPACITATED, 2) == HURT and healed_level(NEAR_DEATH, 3) == HURT
    assert healed_level(VERY_HURT, 1) == HURT and healed_level(HURT, 1) == UNDAMAGED
    wounded_like_the_example(fights)
    fights.execute("fight", cmd.Heal(patient="Bob", skill_level=1), dice("+000"))
    assert bob(fights).marks == () and bob(fights).track.level == UNDAMAGED


def test_F_HEAL_2_a_roll_below_good_heals_nothing(fights: Fights) -> None:
    """F-HEAL-2: Fair or worse heals no level; the roll is still recorded."""
    wounded_like_the_example(fights)
    outcome = fights.execute("fight", cmd.Heal(patient="Bob", skill_level=1), dice("-000"))
    assert of(outcome, ev.WoundsHealed)[0].changes == () and of(outcome, ev.DiceRolled)[0].faces == (-1, 0, 0, 0)
    assert bob(fights).track.level == INCAPACITATED


def test_F_HEAL_2_a_combatant_heals_with_the_healing_skill(fights: Fights) -> None:
    """F-HEAL-2: the healer's skill (option healing_skill) and wound penalty count."""
    duel(fights)
    blow(fights, "Hurt")
    blow(fights, "Hurt")  # the second Hurt goes to the Very Hurt box, noted H
    fights.execute("fight", cmd.Join(sheet={"name": "Cleo", "skills": {"Medicine": "Great"}}, source="cleo.toml"))
    outcome = fights.execute("fight", cmd.Heal(patient="Bob", healer="Cleo"), dice("cleo=-000"))
    healed = of(outcome, ev.WoundsHealed)[0]
    assert (healed.healer, healed.trait, healed.skill_level, healed.result, healed.levels) == ("Cleo", "Medicine", 2, 1, 1)
    assert bob(fights).marks == ()  # F-HEAL-4: both were Hurts, healed one level each


def test_F_HEAL_4_healing_reads_the_original_level_not_the_box(fights: Fights) -> None:
    """F-HEAL-4: marks heal from the level they were dealt at (the "H" note)."""
    marks = [Mark(VERY_HURT, 1), Mark(HURT, 2), Mark(HURT, 3)]
    assert [(c.seq, c.after) for c in heal(marks, 1)] == [(1, HURT), (2, UNDAMAGED), (3, UNDAMAGED)]


def test_F_HEAL_2_refusals_write_nothing(fights: Fights) -> None:
    """F-HEAL-2: no wound to heal, no healer named, or both: refused with a reason."""
    duel(fights)
    refused(fights, cmd.Heal(patient="Bob", skill_level=1), "no wound worse than a Scratch")
    blow(fights, "Hurt")
    refused(fights, cmd.Heal(patient="Bob"), "say who heals")
    refused(fights, cmd.Heal(patient="Bob", healer="Ann", skill_level=1), "say who heals")
    refused(fights, cmd.Heal(patient="Zed", skill_level=1), "no combatant 'Zed'")


def test_F_HEAL_1_scratches_are_erased_when_the_battle_ends(fights: Fights) -> None:
    """F-HEAL-1: `end` erases every Scratch; wounds stay."""
    duel(fights)
    blow(fights, "Scratch")
    blow(fights, "Scratch")
    blow(fights, "Hurt")
    outcome = fights.execute("fight", cmd.EndBattle())
    assert of(outcome, ev.BattleEnded)
    assert [(c.before, c.after) for c in of(outcome, ev.WoundsHealed)[0].changes] == [(SCRATCH, UNDAMAGED)] * 2
    assert boxes(fights) == ((None, None, None), (HURT,), (None,), (None,), (None,))


def test_F_HEAL_1_a_battle_ends_once_until_something_happens_again(fights: Fights) -> None:
    """F-HEAL-1: a second `end` with nothing since the first is refused (nothing written); after a blow, or an
    undo of the first end, the battle can end again."""
    duel(fights)
    blow(fights, "Scratch")
    fights.execute("fight", cmd.EndBattle())
    refused(fights, cmd.EndBattle(), "the battle already ended")
    blow(fights, "Scratch")
    outcome = fights.execute("fight", cmd.EndBattle())
    assert of(outcome, ev.BattleEnded) and of(outcome, ev.WoundsHealed)
    refused(fights, cmd.EndBattle(), "the battle already ended")
    fights.execute("fight", cmd.Undo())
    assert of(fights.execute("fight", cmd.EndBattle()), ev.BattleEnded)


def test_F_HEAL_1_a_short_rest_erases_scratches(fights: Fights) -> None:
    """F-HEAL-1: an explicit rest (no weeks) erases Scratches only."""
    duel(fights)
    blow(fights, "Scratch")
    outcome = fights.execute("fight", cmd.Rest(combatants=("Bob",)))
    assert of(outcome, ev.WoundsHealed)[0].cause == "rest" and bob(fights).marks == ()
    refused(fights, cmd.Rest(), "nobody has a wound")


def test_F_HEAL_3_a_week_of_rest_heals_one_level(fights: Fights) -> None:
    """F-HEAL-3: after a week an Incapacitated (dealt so) character is Very Hurt; each mark heals one level."""
    wounded_like_the_example(fights)
    fights.execute("fight", cmd.Rest(weeks=1))
    assert bob(fights).track.level == HURT  # the VH became Hurt, the two Hurts healed
    fights.execute("fight", cmd.Rest(weeks=1))
    assert bob(fights).marks == ()


def test_F_HEAL_3_constitution_roll_option_failing_slows_healing(fights: Fights) -> None:
    """F-HEAL-3 (option natural_healing_roll): Constitution vs Good while Very Hurt; a failed week heals nothing."""
    duel(fights, natural_healing_roll=True)
    blow(fights, "Very Hurt")
    outcome = fights.execute("fight", cmd.Rest(combatants=("Bob",), weeks=2), dice("bob=0000", "bob=+000"))
    weeks = of(outcome, ev.WoundsHealed)
    assert [(w.weeks, w.difficulty, w.result, w.levels) for w in weeks] == [(1, 1, 0, 0), (2, 1, 1, 1)]
    assert bob(fights).track.level == HURT
    outcome = fights.execute("fight", cmd.Rest(combatants=("Bob",), weeks=1), dice("bob=0000"))
    assert of(outcome, ev.WoundsHealed)[0].difficulty == 0 and bob(fights).marks == ()  # Hurt: Fair


def test_F_HEAL_2_undo_replay_and_verify(fights: Fights) -> None:
    """F-HEAL-2: a heal is undone like any command; replay and verify agree."""
    wounded_like_the_example(fights)
    fights.execute("fight", cmd.Heal(patient="Bob", skill_level=2), dice("0000"))
    assert bob(fights).marks == ()
    fights.execute("fight", cmd.Undo())
    assert bob(fights).track.level == INCAPACITATED
    fights.execute("fight", cmd.Redo())
    assert bob(fights).marks == ()
    assert replay(fights.log("fight")).combatants == fights.state("fight").combatants
    report = verify(fights.store.read("fight"))
    assert report.ok, report


def test_F_HEAL_2_fudge_points_do_not_reresolve_a_healing_roll(fights: Fights) -> None:
    """F-HEAL-2, C-FP-3: a healing roll is not an action roll a point can change: refused, nothing written."""
    duel(fights, bob={"fudge_points": 2})
    blow(fights, "Hurt")
    outcome = fights.execute("fight", cmd.Heal(patient="Bob", skill_level=1), dice("-000"))
    roll_seq = [r.seq for r in outcome.records if isinstance(r.event, ev.DiceRolled)][0]
    refused(fights, cmd.SpendPoint(combatant="healer", use="luck", target=roll_seq), "no combatant")
    fights.execute("fight", cmd.Join(sheet={"name": "Cleo", "fudge_points": 1, "skills": {"Medicine": "Good"}},
                                     source="cleo.toml"))
    outcome = fights.execute("fight", cmd.Heal(patient="Bob", healer="Cleo"), dice("cleo=-000"))
    roll_seq = [r.seq for r in outcome.records if isinstance(r.event, ev.DiceRolled)][0]
    refused(fights, cmd.SpendPoint(combatant="Cleo", use="luck", target=roll_seq), "healing or recovery roll")


@pytest.mark.parametrize("weeks", [0, 3])
def test_F_HEAL_1_F_HEAL_3_the_dead_do_not_heal(fights: Fights, weeks: int) -> None:
    """F-HEAL-1, F-HEAL-3: resting a dead combatant is refused."""
    duel(fights)
    fights.execute("fight", cmd.Kill(combatant="Bob"))
    refused(fights, cmd.Rest(combatants=("Bob",), weeks=weeks), "the dead do not heal")
    refused(fights, cmd.Heal(patient="Bob", skill_level=3), "is dead")


def test_F_HEAL_4_a_healed_blow_takes_no_more_fudge_points(fights: Fights) -> None:
    """F-HEAL-4, C-FP-2: Only a Scratch on a wound healed (or erased) since is refused: the mark it
    would replace no longer stands as it was dealt."""
    duel(fights, bob={"fudge_points": 2})
    outcome = blow(fights, "Very Hurt")
    seq = [r.seq for r in outcome.records if isinstance(r.event, ev.WoundMarked)][0]
    fights.execute("fight", cmd.Heal(patient="Bob", skill_level=1), dice("0000"))
    refused(fights, cmd.SpendPoint(combatant="Bob", use="scratch", target=seq), "healed since")


def test_F_HEAL_1_F_HEAL_3_rest_end_and_stuns_verify(fights: Fights) -> None:
    """F-HEAL-1, F-HEAL-3, A-VERIFY-1: natural healing rolls, the end of the battle and a stun re-run
    to the same events under `verify`."""
    duel(fights, natural_healing_roll=True)
    blow(fights, "Scratch")
    blow(fights, "Very Hurt", stun=("Ann",))
    fights.execute("fight", cmd.EndBattle())
    assert bob(fights).stuns == 0 and bob(fights).marks == ()
    blow(fights, "Very Hurt")
    outcome = fights.execute("fight", cmd.Rest(weeks=2), dice("bob=+000", "bob=0000"))
    assert [(w.difficulty, w.result, w.levels) for w in of(outcome, ev.WoundsHealed)] == [(1, 1, 1), (0, 0, 1)]
    assert bob(fights).marks == ()
    report = verify(fights.store.read("fight"))
    assert report.ok, report
