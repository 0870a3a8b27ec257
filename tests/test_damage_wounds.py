"""Damage and wounds: F-DMG-1, F-DMG-2, F-DMG-3, F-DMG-4, F-DMG-5, F-DMG-6, F-GRAZE-1, F-GRAZE-2, F-GRAZE-3, F-DROLL (`none`, `4dF_limited`),
F-WND-1, F-WND-2, F-WND-3, F-WND-4, F-WND-5, F-WND-6 and 9, F-DEATH-3.

The worked examples of Fudge 4.5 and 4.6.1 (seed 001) run on the pure
functions (engine.rulesets.fudge.damage, engine.kernel.wounds) with the example sheets shipped in
examples/sheets; a few run through the Fights service to show the same
numbers land in the log.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.rulesets.fudge.damage import blow, damage_factor, defensive_factor, limited_roll, needs_damage_roll, offensive_factor
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.ladder import FUDGE7
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import Fighter, Sheet, given_sheet, parse_sheet, read_levels
from fudge_combat.engine.kernel.wounds import (DEAD, HURT, INCAPACITATED, LEVELS, NEAR_DEATH, SCRATCH, UNDAMAGED, VERY_HURT, Mark,
                           build_track, level_for_damage)
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.conftest import dice, sheet, start

FUDGE = resolve("fudge")[1]
LIMITED = msgspec.structs.replace(FUDGE, **{"damage_roll": "4dF_limited"})


def example(name: str) -> Fighter:
    text = (resources.files("fudge_combat.examples") / "sheets" / f"{name}.toml").read_text()
    return read_levels(parse_sheet(text, f"{name}.toml"), FUDGE7, f"{name}.toml")


def fighter(name: str = "X", **kw: Any) -> Fighter:
    return read_levels(given_sheet(sheet(name, **kw)), FUDGE7, "test")


def track(*levels: int, options: RuleOptions = FUDGE, boxes: tuple[int, ...] | None = None) -> Any:
    marks = [Mark(level, seq) for seq, level in enumerate(levels, start=1)]
    return build_track(boxes or options.wound_boxes, marks, options)


def events_of(outcome: Any, kind: type) -> list[Any]:
    return [r.event for r in outcome.records if isinstance(r.event, kind)]


# --- F-DMG-1, F-DMG-2, F-DMG-3 ---------------------------------------------------------------------

def test_F_DMG_1_offensive_factor_is_strength_plus_scale_plus_weapon() -> None:
    """F-DMG-1."""
    assert offensive_factor(fighter(attributes={"Strength": "Great"}, weapon=3), FUDGE) == 2 + 3
    assert offensive_factor(fighter(attributes={"Strength": "Good"}, weapon=2, scale=2), FUDGE) == 1 + 2 + 2
    assert offensive_factor(fighter(weapon=0), FUDGE) == 0  # missing Strength is Fair; martial art +0


def test_F_DMG_1_no_weapon_is_minus_one() -> None:
    """F-DMG-1."""
    assert offensive_factor(fighter(attributes={"Strength": "Good"}), FUDGE) == 1 - 1


def test_F_DMG_1_strength_counts_only_for_muscle_powered_weapons() -> None:
    """F-DMG-1."""
    gun = fighter(attributes={"Strength": "Superb"}, weapon=4)
    gun = read_levels(msgspec.structs.replace(gun.sheet, weapon=msgspec.structs.replace(
        gun.sheet.weapon, muscle_powered=False)), FUDGE7, "gun")  # type: ignore[type-var]
    assert offensive_factor(gun, FUDGE) == 4


def test_F_DMG_2_defensive_factor_is_dc_plus_scale_plus_armor() -> None:
    """F-DMG-2."""
    attacker = fighter(weapon=1)
    assert defensive_factor(fighter(attributes={"Damage Capacity": "Good"}, armor=3), attacker, FUDGE) == 1 + 3
    assert defensive_factor(fighter(attributes={"Damage Capacity": "Poor"}, armor=2, scale=-4),
                            attacker, FUDGE) == -2 - 4 + 2
    assert defensive_factor(fighter(), attacker, FUDGE) == 0  # no armor, Fair DC


def test_F_DMG_2_dc_in_defense_option() -> None:
    """F-DMG-2."""
    tough = fighter(attributes={"Damage Capacity": "Great"}, armor=5)  # magic adds: a sheet value
    assert defensive_factor(tough, fighter(weapon=1), FUDGE) == 7
    assert defensive_factor(tough, fighter(weapon=1), msgspec.structs.replace(FUDGE, **{"dc_in_defense": False})) == 5


def test_F_DMG_3_damage_factor_and_damage() -> None:
    """F-DMG-3."""
    attacker = fighter(attributes={"Strength": "Great"}, weapon=3)   # +5
    defender = fighter(attributes={"Damage Capacity": "Good"}, armor=2)  # +3
    assert damage_factor(attacker, defender, FUDGE) == 2
    hit = blow(3, 2, 0, None, FUDGE)
    assert (hit.graze, hit.calculated, hit.damage, hit.level) == (False, 5, 5, VERY_HURT)
    with_bonus = blow(3, 2, 1, None, FUDGE)  # the all-out bonus (F-MOD-6) adds to damage
    assert (with_bonus.damage, with_bonus.level) == (6, VERY_HURT)


@pytest.mark.parametrize(("rd", "factor"), [(2, -2), (3, -5), (2, -4)])
def test_F_DMG_3_damage_of_zero_or_less_is_no_wound(rd: int, factor: int) -> None:
    """F-DMG-3."""
    hit = blow(rd, factor, 0, None, FUDGE)
    assert hit.damage == 0 and hit.level == UNDAMAGED


# --- F-DMG-4 ------------------------------------------------------------------------

@pytest.mark.parametrize(("damage", "level"), [
    (0, UNDAMAGED), (1, SCRATCH), (2, SCRATCH), (3, HURT), (4, HURT), (5, VERY_HURT), (6, VERY_HURT),
    (7, INCAPACITATED), (8, INCAPACITATED), (9, NEAR_DEATH), (15, NEAR_DEATH),
])
def test_F_DMG_4_default_wound_thresholds(damage: int, level: int) -> None:
    """F-DMG-4."""
    assert FUDGE.wound_thresholds == (1, 3, 5, 7, 9)
    assert level_for_damage(damage, FUDGE.wound_thresholds) == level


@pytest.mark.parametrize(("thresholds", "cases"), [
    ((1, 4, 7, 10, 13), [(3, SCRATCH), (4, HURT), (9, VERY_HURT), (12, INCAPACITATED), (13, NEAR_DEATH)]),
    ((1, 2, 4, 6, 7), [(1, SCRATCH), (3, HURT), (5, VERY_HURT), (6, INCAPACITATED), (7, NEAR_DEATH)]),
])
def test_F_DMG_4_doubled_and_epic_thresholds_as_option_values(
        thresholds: tuple[int, ...], cases: list[tuple[int, int]]) -> None:
    """F-DMG-4."""
    options = msgspec.structs.replace(FUDGE, **{"wound_thresholds": thresholds})
    for damage, level in cases:
        assert level_for_damage(damage, thresholds) == level
        assert blow(2, damage - 2, 0, None, options).level == level


def test_F_DMG_4_thresholds_from_house_rules() -> None:
    """F-DMG-4."""
    _, options = resolve("fudge", 'extends = "fudge"\nwound_thresholds = [1, 2, 4, 6, 7]\n')
    assert blow(2, 0, 0, None, options).level == HURT  # 2 points: Hurt on the epic thresholds


# --- F-DMG-5 ------------------------------------------------------------------------

def test_F_DMG_5_heavy_blunt_weapons_halve_armor_rounded_down() -> None:
    """F-DMG-5."""
    mace = fighter(attributes={"Strength": "Good"}, weapon=2)
    mace = read_levels(msgspec.structs.replace(mace.sheet, weapon=msgspec.structs.replace(
        mace.sheet.weapon, blunt_heavy=True)), FUDGE7, "mace")  # type: ignore[type-var]
    knight = fighter(attributes={"Damage Capacity": "Good"}, armor=3)
    assert defensive_factor(knight, mace, FUDGE) == 1 + 1          # 3 // 2 = 1
    assert defensive_factor(knight, fighter(weapon=2), FUDGE) == 1 + 3
    off = msgspec.structs.replace(FUDGE, **{"blunt_heavy_halves_armor": False})
    assert defensive_factor(knight, mace, off) == 1 + 3


# --- F-DMG-6: the examples of Fudge 4.5 -----------------------------------------------

def test_F_DMG_6_leroy_vs_theodora() -> None:
    """F-DMG-6."""
    leroy, theodora = example("leroy"), example("theodora")
    assert offensive_factor(leroy, FUDGE) == 4
    assert defensive_factor(theodora, leroy, FUDGE) == 2
    assert damage_factor(leroy, theodora, FUDGE) == 2
    hit = blow(2, 2, 0, None, FUDGE)
    assert (hit.damage, LEVELS[hit.level]) == (4, "Hurt")


def test_F_DMG_6_theodora_vs_leroy() -> None:
    """F-DMG-6."""
    leroy, theodora = example("leroy"), example("theodora")
    assert offensive_factor(theodora, FUDGE) == 7
    assert defensive_factor(leroy, theodora, FUDGE) == 4
    assert damage_factor(theodora, leroy, FUDGE) == 3


def test_F_DMG_6_sheba_vs_mcmurtree() -> None:
    """F-DMG-6."""
    sheba, mcmurtree = example("sheba"), example("mcmurtree")
    assert offensive_factor(sheba, FUDGE) == 1
    assert defensive_factor(mcmurtree, sheba, FUDGE) == -3
    assert damage_factor(sheba, mcmurtree, FUDGE) == 4
    hit = blow(2, 4, 0, None, FUDGE)
    assert (hit.damage, LEVELS[hit.level]) == (6, "Very Hurt")


def test_F_DMG_6_fionn_vs_sheba() -> None:
    """F-DMG-6."""
    fionn, sheba = example("fionn"), example("sheba")
    assert offensive_factor(fionn, FUDGE) == -1
    assert defensive_factor(sheba, fionn, FUDGE) == 2
    assert damage_factor(fionn, sheba, FUDGE) == -3
    hit = blow(3, -3, 0, None, FUDGE)
    assert (hit.damage, LEVELS[hit.level]) == (0, "Undamaged")


def test_F_DMG_6_wilbur_vs_dragon() -> None:
    """F-DMG-6."""
    wilbur, dragon = example("wilbur"), example("dragon")
    assert offensive_factor(wilbur, FUDGE) == 6
    assert defensive_factor(dragon, wilbur, FUDGE) == 8
    assert damage_factor(wilbur, dragon, FUDGE) == -2
    hit = blow(3, -2, 0, None, FUDGE)
    assert (hit.damage, LEVELS[hit.level]) == (1, "Scratch")


def join_example(fights: Fights, name: str) -> None:
    text = (resources.files("fudge_combat.examples") / "sheets" / f"{name}.toml").read_text()
    fights.execute("fight", cmd.Join(sheet=json_form(parse_sheet(text, name)), source=f"{name}.toml"))


def test_F_DMG_6_leroy_hits_theodora_through_the_service(fights: Fights) -> None:
    """F-DMG-6: Leroy Good +1 = Great vs Theodora Good -1 = Fair: RD +2, damage 2 + 2 = 4, Hurt."""
    start(fights)
    join_example(fights, "leroy")
    join_example(fights, "theodora")
    outcome = fights.execute("fight", cmd.Exchange(first="Leroy", second="Theodora"),
                             dice("leroy=+ 0 0 0", "theodora=- 0 0 0"))
    hit = events_of(outcome, ev.ExchangeResolved)[0].hits[0]
    assert (hit.attacker, hit.relative_degree, hit.damage_factor, hit.damage, hit.level) == (
        "Leroy", 2, 2, 4, HURT)
    assert [(w.combatant, w.level, w.damage) for w in events_of(outcome, ev.WoundMarked)] == [("Theodora", HURT, 4)]
    assert outcome.state.combatants["theodora"].track.penalty(FUDGE) == -1


def test_F_DMG_6_sheba_and_mcmurtree_scale_through_the_service(fights: Fights) -> None:
    """F-DMG-6: Sheba vs McMurtree (Scale -4), RD +2: factor +4, damage 6, Very Hurt."""
    start(fights)
    join_example(fights, "sheba")
    join_example(fights, "mcmurtree")
    outcome = fights.execute("fight", cmd.Exchange(first="Sheba", second="McMurtree"),
                             dice("sheba=0 0 0 0", "mcmurtree=0 0 0 0"))  # Great vs Good: RD +1, graze
    hit = events_of(outcome, ev.ExchangeResolved)[0].hits[0]
    assert (hit.graze, hit.damage_factor, hit.level) == (True, 4, SCRATCH)  # F-GRAZE-1: factor 0-4 -> Scratch
    outcome = fights.execute("fight", cmd.Exchange(first="Sheba", second="McMurtree"),
                             dice("sheba=+ 0 0 0", "mcmurtree=0 0 0 0"))
    hit = events_of(outcome, ev.ExchangeResolved)[0].hits[0]
    assert (hit.relative_degree, hit.damage, hit.level) == (2, 6, VERY_HURT)


# --- F-GRAZE --------------------------------------------------------------------------

@pytest.mark.parametrize(("factor", "level"), [
    (-5, UNDAMAGED), (-1, UNDAMAGED), (0, SCRATCH), (3, SCRATCH), (4, SCRATCH), (5, HURT), (9, HURT),
])
def test_F_GRAZE_1_relative_degree_one_reads_the_graze_table(factor: int, level: int) -> None:
    """F-GRAZE-1."""
    hit = blow(1, factor, 0, None, FUDGE)
    assert hit.graze is True and hit.damage is None
    assert hit.level == level


def test_F_GRAZE_1_a_graze_never_passes_very_hurt() -> None:
    """F-GRAZE-1."""
    assert FUDGE.graze_cap == VERY_HURT
    assert blow(1, 12, 1, 4, LIMITED).level == VERY_HURT  # Hurt +1 (bonus) +1 (roll) would be Incapacitated


def test_F_GRAZE_1_graze_table_option() -> None:
    """F-GRAZE-1."""
    options = msgspec.structs.replace(FUDGE, **{"graze_table": (1, 3)})
    assert [blow(1, f, 0, None, options).level for f in (0, 1, 2, 3)] == [UNDAMAGED, SCRATCH, SCRATCH, HURT]


@pytest.mark.parametrize(("roll", "level"), [(-4, UNDAMAGED), (-1, UNDAMAGED), (0, SCRATCH), (1, HURT), (4, HURT)])
def test_F_GRAZE_2_a_damage_roll_moves_a_graze_at_most_one_level(roll: int, level: int) -> None:
    """F-GRAZE-2: Factor +3 grazes for a Scratch; a 4dF damage roll moves it one level at most."""
    assert needs_damage_roll(1, LIMITED)
    hit = blow(1, 3, 0, roll, LIMITED)
    assert (hit.damage_roll, hit.level) == (roll, level)


def test_F_GRAZE_2_grazes_roll_no_damage_dice_when_the_option_is_off() -> None:
    """F-GRAZE-2."""
    options = msgspec.structs.replace(LIMITED, **{"graze_damage_roll": False})
    assert not needs_damage_roll(1, options)
    assert needs_damage_roll(2, options)


def test_F_GRAZE_3_a_damage_bonus_raises_a_graze_one_level() -> None:
    """F-GRAZE-3: F-EX round 5: Brynhild's graze (factor +2, Scratch) with her all-out +1 is a Hurt."""
    assert blow(1, 2, 0, None, FUDGE).level == SCRATCH
    assert blow(1, 2, 1, None, FUDGE).level == HURT
    assert blow(1, 2, 1, 0, LIMITED).level == HURT
    assert blow(1, -1, 1, None, FUDGE).level == SCRATCH


# --- F-DROLL ----------------------------------------------------------------------------

def test_F_DROLL_none_is_the_fudge_default_and_rolls_nothing() -> None:
    """F-DROLL `none`."""
    assert FUDGE.damage_roll == "none"
    assert not any(needs_damage_roll(rd, FUDGE) for rd in range(1, 9))
    assert blow(2, 3, 0, None, FUDGE).damage == 5


def test_F_DROLL_none_through_the_service_rolls_no_damage_dice(fights: Fights) -> None:
    """F-DROLL `none`."""
    start(fights)
    join_example(fights, "leroy")
    join_example(fights, "theodora")
    outcome = fights.execute("fight", cmd.Exchange(first="Leroy", second="Theodora"),
                             dice("leroy=+ 0 0 0", "theodora=- 0 0 0", "leroy=+ + + +"))
    assert [(u.roller, u.faces) for u in outcome.unused] == [("Leroy", ((1, 1, 1, 1),))]  # typed, never rolled
    rolls = events_of(outcome, ev.DiceRolled)
    assert [r.roller for r in rolls] == ["Leroy", "Theodora"]
    assert all(r.purpose != "damage" for r in rolls)
    assert events_of(outcome, ev.ExchangeResolved)[0].hits[0].damage_roll is None


@pytest.mark.parametrize(("roll", "final"), [(-4, 0), (-1, 0), (0, 0), (1, 0), (2, 0), (3, 1), (4, 1)])
def test_F_DROLL_4dF_limited_first_example_calculated_minus_two(roll: int, final: int) -> None:
    """F-DROLL `4dF_limited`: 001 4.6.1: calculated -2 takes a +3 or +4 to make 1 point: a Scratch."""
    assert limited_roll(-2, roll) == final
    hit = blow(2, -4, 0, roll, LIMITED)
    assert hit.calculated == -2
    assert (hit.damage, hit.level) == (final, SCRATCH if final else UNDAMAGED)


@pytest.mark.parametrize(("roll", "final"), [
    (4, 4), (3, 4), (2, 4), (1, 3), (0, 2), (-1, 1), (-2, 1), (-3, 1), (-4, 1),
])
def test_F_DROLL_4dF_limited_second_example_calculated_plus_two(roll: int, final: int) -> None:
    """F-DROLL `4dF_limited`: 001 4.6.1: calculated +2: +2..+4 -> 4, +1 -> 3, 0 -> 2, any negative -> 1."""
    assert limited_roll(2, roll) == final
    assert blow(3, -1, 0, roll, LIMITED).damage == final


@settings(max_examples=60, deadline=None)
@given(calculated=st.integers(min_value=-10, max_value=12), roll=st.integers(min_value=-4, max_value=4))
def test_F_DROLL_4dF_limited_the_three_limits(calculated: int, roll: int) -> None:
    """F-DROLL `4dF_limited`: limits (1), (2) and (3) of 001 4.6.1."""
    final = limited_roll(calculated, roll)
    if calculated > 0:
        assert final <= 2 * calculated             # (1) the roll adds at most the calculated damage
        assert final >= 1                          # (2) positive damage stays at least 1
        if -calculated < roll <= calculated:
            assert final == max(1, calculated + roll)  # inside the limits the roll counts in full
    else:
        assert 0 <= final <= 1                     # (3) raised to at most 1
        assert final == (1 if calculated + roll >= 1 else 0)  # and below 1 it is no damage


def test_F_DROLL_4dF_limited_through_the_service(fights: Fights) -> None:
    """F-DROLL `4dF_limited`: The attacker rolls a situational 4dF for damage; it is recorded with the hit."""
    start(fights, damage_roll="4dF_limited")
    join_example(fights, "leroy")
    join_example(fights, "theodora")
    outcome = fights.execute("fight", cmd.Exchange(first="Leroy", second="Theodora"),
                             dice("leroy=+ 0 0 0", "theodora=- 0 0 0", "leroy=+ + + -"))
    damage = [r for r in events_of(outcome, ev.DiceRolled) if r.purpose == "damage"]
    assert [(r.roller, r.faces) for r in damage] == [("Leroy", (1, 1, 1, -1))]
    hit = events_of(outcome, ev.ExchangeResolved)[0].hits[0]
    assert (hit.calculated, hit.damage_roll, hit.damage, hit.level) == (4, 2, 6, VERY_HURT)


# --- F-WND ------------------------------------------------------------------------------

def test_F_WND_1_levels_and_penalties() -> None:
    """F-WND-1."""
    assert LEVELS == ("Undamaged", "Scratch", "Hurt", "Very Hurt", "Incapacitated", "Near Death", "Dead")
    assert [track(*marks).penalty(FUDGE) for marks in ((), (SCRATCH,), (HURT,), (VERY_HURT,))] == [0, 0, -1, -2]
    assert track(HURT).can_act and track(VERY_HURT).can_act
    assert not track(INCAPACITATED).can_act and not track(NEAR_DEATH).can_act


def test_F_WND_1_an_incapacitated_fighter_cannot_act(fights: Fights) -> None:
    """F-WND-1."""
    start(fights)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Great"}, attack="Sword", weapon=6),
                                     source="ann.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", skills={"Sword": "Good"}, attack="Sword"), source="bob.toml"))
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    # Great vs Good: a graze with factor +6 -> Hurt
    assert outcome.state.combatants["bob"].track.level == HURT
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    # Ann Superb vs Bob Good -1 (Hurt) = Fair: RD +3, factor +6 -> 9, Near Death
    assert outcome.state.combatants["bob"].track.level == NEAR_DEATH
    before = fights.store.last_seq("fight")
    for command in (cmd.RollTrait(combatant="Bob", trait="Sword"), cmd.Exchange(first="Bob", second="Ann"),
                    cmd.Declare(combatant="Bob", declaration=ev.Declaration(all_out="defense"))):
        with pytest.raises(RuleError, match="Bob is Near Death and cannot act"):
            fights.execute("fight", command, dice("0000"))
    assert fights.store.last_seq("fight") == before


def test_F_WND_2_box_counts(fights: Fights) -> None:
    """F-WND-2."""
    assert FUDGE.wound_boxes == (3, 1, 1, 1, 1)  # realistic
    start(fights, "cinematic", wound_boxes=[4, 2, 1, 1, 1])
    fights.execute("cinematic", cmd.Join(sheet=sheet("Ann"), source="ann.toml"))
    fights.execute("cinematic", cmd.Join(sheet=sheet("Ogre", kind="major", wounds={"boxes": [3, 2, 2, 1, 1]}),
                                         source="ogre.toml"))
    state = fights.state("cinematic")
    assert state.combatants["ann"].boxes == (4, 2, 1, 1, 1)
    assert [len(row) for row in state.combatants["ann"].track.boxes] == [4, 2, 1, 1, 1]
    assert state.combatants["ogre"].boxes == (3, 2, 2, 1, 1)  # a per-sheet override (major NPC)


def test_F_WND_2_cinematic_track_takes_two_hurts() -> None:
    """F-WND-2."""
    cinematic = msgspec.structs.replace(FUDGE, **{"wound_boxes": (4, 2, 1, 1, 1)})
    assert track(HURT, HURT, options=cinematic).level == HURT
    assert track(HURT, HURT).level == VERY_HURT


def test_F_WND_3_a_wound_marks_a_box_of_its_level_or_the_next_open_one() -> None:
    """F-WND-3."""
    one = track(HURT)
    assert one.boxes == ((None, None, None), (HURT,), (None,), (None,), (None,))
    two = track(HURT, HURT)
    assert two.boxes == ((None, None, None), (HURT,), (HURT,), (None,), (None,))  # the mark keeps its "H"
    assert two.level == VERY_HURT
    skip = track(HURT, HURT, HURT)  # Hurt and Very Hurt full: Incapacitated
    assert skip.boxes[3] == (HURT,)


def test_F_WND_4_the_current_wound_is_the_highest_marked_level() -> None:
    """F-WND-4."""
    assert track(VERY_HURT, SCRATCH).level == VERY_HURT
    assert track(SCRATCH, SCRATCH, SCRATCH).level == SCRATCH
    fourth = track(SCRATCH, SCRATCH, SCRATCH, SCRATCH)
    assert fourth.level == HURT
    assert fourth.boxes[1] == (SCRATCH,)  # the overflowing Scratch remembers it was a Scratch
    assert fourth.penalty(FUDGE) == -1


def test_F_WND_5_scratch_cap_stops_overflowing_scratches_at_very_hurt() -> None:
    """F-WND-5."""
    assert FUDGE.scratch_cap is True
    capped = track(*[SCRATCH] * 8)
    assert capped.level == VERY_HURT and not capped.dead
    assert capped.boxes[3] == (None,)
    off = msgspec.structs.replace(FUDGE, **{"scratch_cap": False})
    uncapped = track(*[SCRATCH] * 6, options=off)
    assert uncapped.level == INCAPACITATED
    assert track(*[SCRATCH] * 8, options=off).dead


def test_F_WND_5_the_cap_does_not_stop_worse_wounds() -> None:
    """F-WND-5."""
    capped = track(SCRATCH, SCRATCH, SCRATCH, SCRATCH, SCRATCH, HURT)
    assert capped.level == INCAPACITATED


def test_F_WND_6_overflow_a_wound_with_no_open_box_kills() -> None:
    """F-WND-6."""
    assert FUDGE.death_rule == "overflow"
    near = track(NEAR_DEATH)
    assert near.level == NEAR_DEATH and not near.dead
    dead = track(NEAR_DEATH, NEAR_DEATH)
    assert dead.dead and dead.level == DEAD and dead.killed_by == 2
    assert track(NEAR_DEATH, HURT, HURT, HURT, HURT).dead  # the Hurt overflows all the way


def test_F_WND_6_gm_rule_leaves_near_death_until_the_gm_kills(fights: Fights) -> None:
    """F-WND-6."""
    gm = msgspec.structs.replace(FUDGE, **{"death_rule": "gm"})
    assert track(NEAR_DEATH, NEAR_DEATH, options=gm).level == NEAR_DEATH
    start(fights, death_rule="gm")
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Great"}, attack="Sword", weapon=10),
                                     source="ann.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", attack="Sword"), source="bob.toml"))
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    # Bob cannot defend now (F-MEL-3): Ann's Great vs Poor is RD +4, damage 14: Near Death again
    state = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000")).state
    assert state.combatants["bob"].track.level == NEAR_DEATH
    outcome = fights.execute("fight", cmd.Kill(combatant="Bob", reason="the GM rules it"))
    assert events_of(outcome, ev.CombatantKilled)[0].combatant == "Bob"
    assert outcome.state.combatants["bob"].track.level == DEAD
    with pytest.raises(RuleError, match="already dead"):
        fights.execute("fight", cmd.Kill(combatant="Bob"))


def test_F_WND_6_overflow_kills_through_the_service(fights: Fights) -> None:
    """F-WND-6."""
    start(fights)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Great"}, attack="Sword", weapon=10),
                                     source="ann.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", attack="Sword"), source="bob.toml"))
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    state = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000")).state
    assert state.combatants["bob"].track.dead and state.combatants["bob"].track.level == DEAD


def test_F_WND_9_very_hurt_then_hurt() -> None:
    """F-WND-9: A Very Hurt then a Hurt: boxes VH and Hurt marked, penalty -2."""
    wounded = track(VERY_HURT, HURT)
    assert wounded.boxes[1] == (HURT,) and wounded.boxes[2] == (VERY_HURT,)
    assert wounded.level == VERY_HURT and wounded.penalty(FUDGE) == -2


def test_F_WND_9_then_another_hurt_marks_incapacitated_noted_h() -> None:
    """F-WND-9."""
    wounded = track(VERY_HURT, HURT, HURT)
    assert wounded.level == INCAPACITATED
    assert wounded.boxes[3] == (HURT,)  # noted "H": healing treats it as a Hurt (F-HEAL-4)


def test_F_WND_9_two_very_hurts_make_incapacitated() -> None:
    """F-WND-9."""
    wounded = track(VERY_HURT, VERY_HURT)
    assert wounded.level == INCAPACITATED
    assert wounded.boxes[1:4] == ((None,), (VERY_HURT,), (VERY_HURT,))


def test_F_WND_9_two_very_hurts_through_the_service(fights: Fights) -> None:
    """F-WND-9."""
    start(fights)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Great"}, attack="Sword", weapon=3),
                                     source="ann.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", skills={"Sword": "Superb"}, attack="Sword"),
                                     source="bob.toml"))
    # Ann Great+2 vs Bob Superb-1: RD +2, factor +3: damage 5, Very Hurt
    state = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=++00", "bob=-000")).state
    assert state.combatants["bob"].track.level == VERY_HURT
    # Ann Great+1 vs Bob Superb-2 (Very Hurt): RD +2 again: a second Very Hurt -> Incapacitated
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    assert [w.level for w in events_of(outcome, ev.WoundMarked)] == [VERY_HURT]
    bob = outcome.state.combatants["bob"]
    assert bob.track.level == INCAPACITATED
    assert bob.track.boxes[2:4] == ((VERY_HURT,), (VERY_HURT,))


# --- F-DEATH-3 --------------------------------------------------------------------------

def test_F_DEATH_3_a_fudge_point_turns_a_deadly_wound_into_near_death(fights: Fights) -> None:
    """F-DEATH-3."""
    start(fights)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Great"}, attack="Sword", weapon=10),
                                     source="ann.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", attack="Sword", fudge_points=3), source="bob.toml"))
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    deadly = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000"))
    assert deadly.state.combatants["bob"].track.dead
    blow_seq = next(r.seq for r in deadly.records if isinstance(r.event, ev.WoundMarked))
    saved = fights.execute("fight", cmd.SpendPoint(combatant="Bob", use="ticking"))
    spent = events_of(saved, ev.FudgePointSpent)[0]
    assert (spent.use, spent.target, spent.cost) == ("ticking", blow_seq, 2)  # already Near Death: 2 points
    assert events_of(saved, ev.EventsVoided)[0].seqs == (blow_seq,)
    bob = saved.state.combatants["bob"]
    assert not bob.track.dead and bob.track.level == NEAR_DEATH
    assert bob.fudge_points == 1
