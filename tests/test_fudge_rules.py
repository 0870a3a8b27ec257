"""Core and Fudge combat rules, each test named by the RULES.md rule it proves."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest

from engine import commands as cmd
from engine.damage import blow, damage_factor, limited_roll
from engine.dice import derive_faces, parse_faces
from engine.errors import InputError, RuleError
from engine.ladder import FATE11, FUDGE7
from engine.options import RuleOptions
from engine.sheets import Sheet, read_levels
from engine.wounds import HURT, INCAPACITATED, SCRATCH, VERY_HURT, Mark, build_track, halve, level_for_damage
from events import models as ev
from tests.conftest import dice, sheet, start

OPTIONS = RuleOptions()


def fighter(**kw):
    return read_levels(Sheet.model_validate(sheet(**kw)), FUDGE7, "test")


# --- C-LAD -----------------------------------------------------------------------

def test_C_LAD_1_C_LAD_2_fudge7_names():
    """C-LAD-1, C-LAD-2."""
    assert [FUDGE7.name(v) for v in range(-3, 4)] == [
        "Terrible", "Poor", "Mediocre", "Fair", "Good", "Great", "Superb"]
    assert FUDGE7.parse("Legendary") == 4 and FUDGE7.parse("abysmal") == -4


def test_C_LAD_3_fate11_names():
    """C-LAD-3."""
    assert FATE11.name(0) == "Average" and FATE11.name(1) == "Fair" and FATE11.name(6) == "Legendary"
    assert FATE11.name(-4) == "Awful"


def test_C_LAD_4_beyond_the_ends():
    """C-LAD-4."""
    assert FUDGE7.name(5) == "Superb+2" and FUDGE7.name(-4) == "Terrible-1"
    assert FATE11.name(7) == "Legendary+1" and FATE11.name(-6) == "Awful-2"


def test_C_LAD_5_input_by_name_or_number_and_clear_error():
    """C-LAD-5."""
    assert FUDGE7.parse("gReAt") == 2 and FUDGE7.parse("+2") == 2 and FUDGE7.parse("-1") == -1
    with pytest.raises(InputError, match="Terrible.*Superb"):
        FUDGE7.parse("Grate")


# --- C-DICE ----------------------------------------------------------------------

def test_C_DICE_1_four_dF_distribution():
    """C-DICE-1."""
    counts = Counter(sum(f) for f in product((-1, 0, 1), repeat=4))
    assert [counts[t] for t in range(-4, 5)] == [1, 4, 10, 16, 19, 16, 10, 4, 1]


def test_C_DICE_3_entered_faces_in_every_notation():
    """C-DICE-3."""
    assert parse_faces("+ - 0 +") == parse_faces("+-0+") == parse_faces("1,-1,0,1") == (1, -1, 0, 1)
    with pytest.raises(InputError):
        parse_faces("+ 2 0 +")


def test_C_DICE_6_generated_dice_are_derived_from_the_seed_and_unbiased():
    """C-DICE-6."""
    seed = bytes(range(32))
    assert derive_faces(seed, "s", 7, 4) == derive_faces(seed, "s", 7, 4)
    assert len({derive_faces(seed, "s", draw, 4) for draw in range(20)}) > 10  # draws differ
    faces = Counter(f for draw in range(3000) for f in derive_faces(seed, "s", draw, 4))
    assert set(faces) == {-1, 0, 1}
    assert all(abs(n / 12000 - 1 / 3) < 0.02 for n in faces.values())


def test_C_DICE_2_C_DICE_3_every_face_recorded_with_its_source(fights):
    """C-DICE-2, C-DICE-3."""
    name = start(fights)
    fights.execute(name, cmd.Join(sheet=sheet("Ann", skills={"Sword": "Good"}), source="t"))
    outcome = fights.execute(name, cmd.RollTrait(combatant="ann", trait="Sword", difficulty=1), dice("ann=+ - 0 +"))
    rolled = [r.event for r in outcome.records if isinstance(r.event, ev.DiceRolled)]
    assert rolled[0].faces == (1, -1, 0, 1) and rolled[0].source == "entered"
    generated = fights.execute(name, cmd.RollTrait(combatant="ann", trait="Sword"))
    roll = [r.event for r in generated.records if isinstance(r.event, ev.DiceRolled)][0]
    assert roll.source == "generated" and len(roll.faces) == 4 and roll.draw is not None


# --- C-ACT -----------------------------------------------------------------------

def resolved(outcome):
    return [r.event for r in outcome.records if isinstance(r.event, ev.ActionResolved)][-1]


def test_C_ACT_1_C_ACT_2_unopposed_result_and_margin(fights):
    """C-ACT-1, C-ACT-2."""
    name = start(fights)
    fights.execute(name, cmd.Join(sheet=sheet("Ann", skills={"Climb": "Good"}), source="t"))
    out = resolved(fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Climb", difficulty=2, mod=1),
                                  dice("ann=+ 0 0 0")))
    assert out.result == 1 + 1 + 1 and out.margin == 1 and out.success
    assert [m.name for m in out.modifiers] == ["GM modifier"]
    fair = resolved(fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Climb"), dice("ann=- - 0 0")))
    assert fair.difficulty == 0 and fair.result == -1 and not fair.success


def test_C_ACT_3_opposed_relative_degree_and_tie(fights):
    """C-ACT-3."""
    name = start(fights)
    fights.execute(name, cmd.Join(sheet=sheet("Ann", attributes={"Strength": "Good"}), source="t"))
    fights.execute(name, cmd.Join(sheet=sheet("Bob", attributes={"Strength": "Great"}), source="t"))
    out = resolved(fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Strength", opponent="Bob"),
                                  dice("ann=+ 0 0 0", "bob=0 0 0 0")))
    assert out.margin == 0 and not out.success


def test_C_ACT_4_situational_roll_has_no_trait(fights):
    """C-ACT-4."""
    name = start(fights)
    fights.execute(name, cmd.Join(sheet=sheet("Ann", skills={"Sword": "Superb"}), source="t"))
    out = resolved(fights.execute(name, cmd.RollTrait(combatant="Ann", trait=None), dice("+ + 0 0")))
    assert out.level == 0 and out.result == 2


def test_C_ACT_1_missing_attribute_is_Fair_and_unlisted_skill_Poor():
    """C-ACT-1."""
    ann = fighter(name="Ann")
    assert ann.trait("Strength", OPTIONS)[1] == 0
    assert ann.trait("Basket Weaving", OPTIONS)[1] == -2


# --- F-DMG, F-GRAZE, F-DROLL --------------------------------------------------------

def test_F_DMG_1_F_DMG_2_F_DMG_3_F_DMG_6_leroy_and_theodora():
    """F-DMG-1, F-DMG-2, F-DMG-3, F-DMG-6."""
    leroy = fighter(name="Leroy", attributes={"Strength": "Good", "Damage Capacity": "Good"}, weapon=3, armor=3)
    theodora = fighter(name="Theodora", attributes={"Strength": "Superb", "Damage Capacity": "Fair"}, weapon=4, armor=2)
    assert damage_factor(leroy, theodora, OPTIONS) == 2
    assert damage_factor(theodora, leroy, OPTIONS) == 3
    assert blow(2, 2, 0, None, OPTIONS).level == HURT  # RD +2 + factor +2 = 4: Hurt


def test_F_DMG_6_scale_examples():
    """F-DMG-6."""
    sheba = fighter(name="Sheba", attributes={"Strength": "Fair"}, weapon=1, armor=2)
    mcmurtree = fighter(name="McMurtree", scale=-4, armor=1)
    fionn = fighter(name="Fionn", scale=-4, attributes={"Strength": "Good"}, weapon=2)
    assert damage_factor(sheba, mcmurtree, OPTIONS) == 4
    assert blow(2, 4, 0, None, OPTIONS).damage == 6 and blow(2, 4, 0, None, OPTIONS).level == VERY_HURT
    assert damage_factor(fionn, sheba, OPTIONS) == -3
    assert blow(3, -3, 0, None, OPTIONS).level == 0
    wilbur = fighter(name="Wilbur", attributes={"Strength": "Great"}, weapon=4)
    dragon = fighter(name="Dragon", scale=6, armor=2)
    assert damage_factor(wilbur, dragon, OPTIONS) == -2
    assert blow(3, -2, 0, None, OPTIONS).level == SCRATCH


def test_F_DMG_4_thresholds():
    """F-DMG-4."""
    assert [level_for_damage(d, OPTIONS.wound_thresholds) for d in range(0, 11)] == [
        0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_F_DMG_5_heavy_blunt_weapon_halves_armor():
    """F-DMG-5."""
    mace = read_levels(Sheet.model_validate({**sheet("M"), "weapon": {"damage": 2, "blunt_heavy": True}}), FUDGE7, "t")
    knight = fighter(name="K", armor=5)
    assert damage_factor(mace, knight, OPTIONS) == 2 - 2  # armor 5 halves to 2
    off = OPTIONS.model_copy(update={"blunt_heavy_halves_armor": False})
    assert damage_factor(mace, knight, off) == 2 - 5


def test_F_GRAZE_1_graze_table():
    """F-GRAZE-1."""
    assert [blow(1, f, 0, None, OPTIONS).level for f in (-1, 0, 4, 5, 9)] == [0, 1, 1, 2, 2]


def test_F_GRAZE_2_a_damage_roll_moves_a_graze_one_level_at_most():
    """F-GRAZE-2."""
    on = OPTIONS.model_copy(update={"damage_roll": "4dF_limited"})
    assert blow(1, 3, 0, 4, on).level == HURT
    assert blow(1, 3, 0, 0, on).level == SCRATCH
    assert blow(1, 3, 0, -4, on).level == 0


def test_F_GRAZE_3_an_all_out_bonus_raises_a_graze_one_level():
    """F-GRAZE-3."""
    assert blow(1, 2, 1, 0, OPTIONS).level == HURT


@pytest.mark.parametrize("roll,final", [(2, 4), (3, 4), (4, 4), (1, 3), (0, 2), (-1, 1), (-4, 1)])
def test_F_DROLL_4dF_limited_second_example(roll, final):
    """F-DROLL."""
    assert limited_roll(2, roll) == final


@pytest.mark.parametrize("roll,final", [(2, 0), (3, 1), (4, 1)])
def test_F_DROLL_4dF_limited_first_example(roll, final):
    """F-DROLL."""
    assert limited_roll(-2, roll) == final


def test_F_DROLL_none_rolls_no_damage_dice(fights):
    """F-DROLL."""
    name = start(fights)
    fights.execute(name, cmd.Join(sheet=sheet("Ann", skills={"Sword": "Good"}, attack="Sword", weapon=2), source="t"))
    fights.execute(name, cmd.Join(sheet=sheet("Bob", skills={"Sword": "Fair"}, attack="Sword"), source="t"))
    out = fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=+ + 0 0", "bob=0 0 0 0"))
    purposes = [r.event.purpose for r in out.records if isinstance(r.event, ev.DiceRolled)]
    assert "damage" not in purposes


# --- F-WND -------------------------------------------------------------------------

def track(*levels, options=OPTIONS):
    return build_track(options.wound_boxes, [Mark(level, i) for i, level in enumerate(levels, 1)], options)


def test_F_WND_1_F_WND_2_levels_and_default_boxes():
    """F-WND-1, F-WND-2."""
    assert [len(row) for row in track().boxes] == [3, 1, 1, 1, 1]
    assert track(HURT).penalty(OPTIONS) == -1 and track(VERY_HURT).penalty(OPTIONS) == -2
    assert not track(INCAPACITATED).can_act


def test_F_WND_3_F_WND_9_examples():
    """F-WND-3, F-WND-9."""
    t = track(VERY_HURT, HURT)
    assert t.boxes[1] == (HURT,) and t.boxes[2] == (VERY_HURT,) and t.penalty(OPTIONS) == -2
    t = track(VERY_HURT, HURT, HURT)
    assert t.level == INCAPACITATED and t.boxes[3] == (HURT,)  # the "H" note
    assert track(VERY_HURT, VERY_HURT).level == INCAPACITATED


def test_F_WND_4_fourth_scratch_hurts():
    """F-WND-4."""
    assert track(SCRATCH, SCRATCH, SCRATCH).level == SCRATCH
    assert track(SCRATCH, SCRATCH, SCRATCH, SCRATCH).level == HURT


def test_F_WND_5_scratch_cap():
    """F-WND-5."""
    t = track(*[SCRATCH] * 10)
    assert t.level == VERY_HURT and not t.dead
    off = OPTIONS.model_copy(update={"scratch_cap": False})
    assert track(*[SCRATCH] * 10, options=off).dead


def test_F_WND_6_overflow_kills_or_the_gm_decides():
    """F-WND-6."""
    assert track(5, 5).dead
    gm = OPTIONS.model_copy(update={"death_rule": "gm"})
    assert not track(5, 5, options=gm).dead


# --- F-HIT, F-MEL, F-MOD, F-TAC ---------------------------------------------------------

def duel(fights, a=None, b=None, **options):
    name = start(fights, **options)
    fights.execute(name, cmd.Join(sheet=a or sheet("Ann", skills={"Sword": "Good"}, attack="Sword", weapon=2,
                                                   attributes={"Strength": "Fair"}), source="t"))
    fights.execute(name, cmd.Join(sheet=b or sheet("Bob", skills={"Sword": "Good"}, attack="Sword", weapon=2),
                                  source="t"))
    return name


def exchanged(outcome):
    return [r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved)][-1]


def test_F_PACE_2_F_MEL_1_equal_results_are_a_stand_off(fights):
    """F-PACE-2, F-MEL-1."""
    name = duel(fights)
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=+ 0 0 0", "bob=+ 0 0 0")))
    assert out.outcome == "stand-off" and out.hits == ()


def test_F_MEL_2_F_HIT_1_a_win_below_Poor_does_not_hit(fights):
    """F-MEL-2, F-HIT-1."""
    name = duel(fights)
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"),
                                   dice("ann=- - - 0", "bob=- - - -")))
    assert (out.sides[0].result, out.sides[1].result) == (-2, -3)
    assert [(h.attacker, h.graze) for h in out.hits] == [("Ann", True)]  # Poor is enough to hit
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob", mods=(-1, -2)),
                                   dice("ann=- - - -", "bob=- - - -")))
    assert (out.sides[0].result, out.sides[1].result) == (-4, -5)
    assert out.hits == () and out.outcome == "stand-off"


def test_F_HIT_1_scale_shifts_the_minimum_hit(fights):
    """F-HIT-1."""
    big = sheet("Giant", scale=1, skills={"Club": "Fair"}, attack="Club", weapon=2)
    small = sheet("Elf", scale=-1, skills={"Sword": "Fair"}, attack="Sword", weapon=1)
    name = duel(fights, big, small)
    given = exchanged(fights.execute(name, cmd.Exchange(first="Giant", second="Elf", min_hit=2),
                                     dice("giant=0 0 0 0", "elf=- - - 0")))
    assert given.hits == () and given.min_hit == (2, 2)  # a GM-raised minimum (tiny target) stops the blow
    out = exchanged(fights.execute(name, cmd.Exchange(first="Giant", second="Elf"), dice("giant=0 0 0 0", "elf=- - - 0")))
    assert out.min_hit == (0, -4)  # Scale +1 vs -1 needs Fair; the small one hits on Poor - 2
    assert out.hits[0].attacker == "Giant"


def test_F_MEL_3_unaware_defender_is_a_difficulty(fights):
    """F-MEL-3."""
    name = duel(fights)
    out = exchanged(fights.execute(name, cmd.Attack(attacker="Ann", target="Bob", unaware=True), dice("ann=0 0 0 0")))
    assert out.sides[1].result == -2 and out.hits[0].relative_degree == 3


def test_F_MOD_1_wound_penalty_only_the_worst(fights):
    """F-MOD-1."""
    name = duel(fights)
    fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=+ + 0 0", "bob=0 0 0 0"))
    state = fights.state(name)
    assert state.find("bob").track.level == HURT
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0")))
    bob = out.sides[1]
    assert [m for m in bob.modifiers if m.name.startswith("wound")][0].value == state.find("bob").track.penalty(state.options)


def test_F_MOD_2_positional_modifier_from_the_GM(fights):
    """F-MOD-2."""
    name = duel(fights)
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob", mods=(-1, -2)),
                                   dice("ann=0 0 0 0", "bob=0 0 0 0")))
    assert out.sides[0].result == 0 and out.sides[1].result == -1


def test_F_MOD_3_shield_lowers_the_opponents_skill(fights):
    """F-MOD-3."""
    name = duel(fights, b=sheet("Bob", skills={"Axe": "Good"}, attack="Axe", weapon=3, shield="large"))
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0")))
    assert ev.Modifier(name="Bob's large shield", value=-2) in out.sides[0].modifiers


def test_F_MOD_6_all_out_attacker_who_ties_loses_and_gives_plus_two(fights):
    """F-MOD-6."""
    name = duel(fights)
    fights.execute(name, cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")))
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0 0 0 0", "bob=+ 0 0 0")))
    hit = out.hits[0]
    assert hit.attacker == "Bob" and hit.relative_degree == 0 and hit.bonus == 2


def test_F_MOD_6_all_out_attacker_who_wins_adds_one_damage(fights):
    """F-MOD-6."""
    name = duel(fights)
    fights.execute(name, cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")))
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=+ 0 0 0", "bob=0 0 0 0")))
    assert out.hits[0].attacker == "Ann" and out.hits[0].bonus == 1 and out.hits[0].relative_degree == 2


def test_F_MOD_7_all_out_defense_plus_two_and_cannot_harm(fights):
    """F-MOD-7."""
    name = duel(fights)
    fights.execute(name, cmd.Declare(combatant="Bob", declaration=ev.Declaration(all_out="defense")))
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0 0 0 0", "bob=+ 0 0 0")))
    assert out.sides[1].result == 1 + 1 + 2 and out.hits == ()
    with pytest.raises(RuleError, match="advantage"):
        fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Perception", difficulty=1, advantage=True),
                       dice("ann=0 0 0 0"))
    fights.execute(name, cmd.RollTrait(combatant="Bob", trait="Perception", difficulty=0, advantage=True),
                   dice("bob=0 0 0 0"))
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0")))
    assert ev.Modifier(name="Bob's situational advantage", value=-1) in out.sides[0].modifiers


def test_F_TAC_1_F_TAC_4_postures_both_may_hit(fights):
    """F-TAC-1, F-TAC-4."""
    name = duel(fights, tactics="postures")
    fights.execute(name, cmd.Declare(combatant="Ann", declaration=ev.Declaration(posture=2)))
    fights.execute(name, cmd.Declare(combatant="Bob", declaration=ev.Declaration(posture=2)))
    out = exchanged(fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0")))
    assert out.sides[0].offense == 3 and out.sides[0].defense == -1
    assert {h.attacker for h in out.hits} == {"Ann", "Bob"}
    with pytest.raises(RuleError):
        fights.execute(name, cmd.Declare(combatant="Ann", declaration=ev.Declaration(posture=3)))
    with pytest.raises(RuleError, match="postures"):
        fights.execute(name, cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")))


def test_F_TAC_2_sealed_declarations_revealed_at_the_blow(fights):
    """F-TAC-2."""
    name = duel(fights, tactics="postures")
    fights.declare(name, "Ann", ev.Declaration(posture=1), sealed=True)
    fights.declare(name, "Bob", ev.Declaration(posture=-1), sealed=True)
    log = fights.log(name)
    sealed = [r.event for r in log if isinstance(r.event, ev.DeclarationSealed)]
    assert len(sealed) == 2 and all("posture" not in r.model_dump_json() for r in log[-2:])
    state = fights.state(name)
    with pytest.raises(RuleError, match="revealed"):
        fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"))
    out = fights.execute(name, cmd.Exchange(first="Ann", second="Bob", reveals=fights.reveals(state, ["Ann", "Bob"])),
                         dice("ann=0 0 0 0", "bob=0 0 0 0"))
    revealed = [r.event for r in out.records if isinstance(r.event, ev.DeclarationRevealed)]
    assert [d.declaration.posture for d in revealed] == [1, -1]
    assert exchanged(out).sides[0].offense == 2


def test_F_PACE_3_directed_attack_defender_cannot_hurt(fights):
    """F-PACE-3."""
    name = duel(fights)
    out = exchanged(fights.execute(name, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=- 0 0 0", "bob=+ + 0 0")))
    assert out.kind == "attack" and out.hits == ()
    assert fights.state(name).find("Ann").track.level == 0


# --- F-DEATH-3 and C-FP ---------------------------------------------------------------

def points_fight(fights, points=2, **options):
    return duel(fights, a=sheet("Ann", skills={"Sword": "Good"}, attack="Sword", weapon=2, fudge_points=points),
                b=sheet("Bob", skills={"Sword": "Good"}, attack="Sword", weapon=6, fudge_points=points), **options)


def test_C_FP_1_pool_from_the_sheet_or_the_default(fights):
    """C-FP-1."""
    name = points_fight(fights, points=3)
    fights.execute(name, cmd.Join(sheet=sheet("Cid"), source="t"))
    state = fights.state(name)
    assert state.find("ann").fudge_points == 3 and state.find("cid").fudge_points == 0


def test_C_FP_2_panache_makes_an_unopposed_action_succeed(fights):
    """C-FP-2."""
    name = points_fight(fights)
    fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("ann=- - 0 0"))
    out = fights.execute(name, cmd.SpendPoint(combatant="Ann", use="panache"))
    new = resolved(out)
    assert new.success and new.automatic and new.supersedes is not None
    assert fights.state(name).find("ann").fudge_points == 1


def test_C_FP_2_skill_shift_re_resolves_and_voids_old_consequences(fights):
    """C-FP-2."""
    name = points_fight(fights)
    first = fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=+ 0 0 0", "bob=0 0 0 0"))
    assert exchanged(first).hits[0].relative_degree == 1
    wound = [r.seq for r in first.records if isinstance(r.event, ev.WoundMarked)]
    out = fights.execute(name, cmd.SpendPoint(combatant="Bob", use="skill", shift=1))
    voids = [r.event for r in out.records if isinstance(r.event, ev.EventsVoided)][0]
    assert set(wound) <= set(voids.seqs)
    assert exchanged(out).outcome == "stand-off"
    assert fights.state(name).find("bob").track.level == 0
    assert any(r.seq in wound for r in fights.log(name))  # voided, never deleted


def test_C_FP_2_luck_rerolls_and_keeps_the_old_roll(fights):
    """C-FP-2."""
    name = points_fight(fights)
    fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("ann=- - - -"))
    out = fights.execute(name, cmd.SpendPoint(combatant="Ann", use="luck"), dice("ann=+ + + +"))
    assert resolved(out).success and resolved(out).roll == 4
    rolls = [r.event for r in fights.log(name) if isinstance(r.event, ev.DiceRolled)]
    assert [r.faces for r in rolls] == [(-1, -1, -1, -1), (1, 1, 1, 1)]


def test_C_FP_2_only_a_scratch_halves_a_blow(fights):
    """C-FP-2."""
    name = points_fight(fights)
    fights.execute(name, cmd.Exchange(first="Ann", second="Bob"), dice("ann=- - 0 0", "bob=+ + 0 0"))
    assert fights.state(name).find("ann").track.level == 5  # RD 4 + factor 6 = 10: Near Death
    fights.execute(name, cmd.SpendPoint(combatant="Ann", use="scratch"))
    ann = fights.state(name).find("ann")
    assert halve(5) == HURT and ann.track.level == HURT and ann.fudge_points == 1


def test_C_FP_2_F_DEATH_3_still_ticking(fights):
    """C-FP-2, F-DEATH-3."""
    name = points_fight(fights)
    fights.execute(name, cmd.Attack(attacker="Bob", target="Ann"), dice("ann=- - - -", "bob=+ + + +"))
    assert fights.state(name).find("ann").track.level == 5
    fights.execute(name, cmd.Attack(attacker="Bob", target="Ann"), dice("bob=+ + + +"))  # Ann cannot defend now
    assert fights.state(name).find("ann").track.dead
    fights.execute(name, cmd.SpendPoint(combatant="Ann", use="ticking"))
    ann = fights.state(name).find("ann")
    assert not ann.track.dead and ann.track.level == 5 and ann.fudge_points == 0  # 2 points: already Near Death


def test_C_FP_3_no_points_left_writes_nothing(fights):
    """C-FP-3."""
    name = points_fight(fights, points=0)
    fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("ann=- - 0 0"))
    before = fights.store.last_seq(name)
    with pytest.raises(RuleError, match="no fudge points"):
        fights.execute(name, cmd.SpendPoint(combatant="Ann", use="panache"))
    with pytest.raises(RuleError, match="not a roll"):
        fights.execute(name, cmd.SpendPoint(combatant="Ann", use="luck", target=999))
    assert fights.store.last_seq(name) == before
