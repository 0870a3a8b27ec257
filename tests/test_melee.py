"""Melee: F-PACE-2, F-PACE-3, F-MEL-1, F-MEL-2, F-MEL-3, F-HIT-1, F-MOD-1, F-MOD-2, F-MOD-3, F-MOD-6, F-MOD-7, F-TAC-1, F-TAC-2, F-TAC-4.

Everything here goes through decide, driven by the Fights service with
entered dice. Two fighters by default: Ann (Sword Great) and Bob (Sword
Good), both Fair Strength with a +2 weapon and no armor, so a hit's damage
factor is +2 either way.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import seal_of
from fudge_combat.engine.rulesets.fudge.settle import min_hit_for
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, SCRATCH, UNDAMAGED, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import dice, sheet, start


def join(fights: Fights, name: str, skill: str, fight: str = "fight", **extra: Any) -> None:
    extra.setdefault("weapon", 2)
    extra.setdefault("attack", "Sword")
    fights.execute(fight, cmd.Join(sheet=sheet(name, skills={"Sword": skill, **extra.pop("skills", {})}, **extra),
                                   source=f"{name.lower()}.toml"))


def duel(fights: Fights, ann: dict[str, Any] | None = None, bob: dict[str, Any] | None = None,
         **options: Any) -> None:
    start(fights, **options)
    join(fights, "Ann", "Great", **(ann or {}))
    join(fights, "Bob", "Good", **(bob or {}))


def exchange(fights: Fights, ann: str, bob: str, *more: str, **kw: Any) -> Any:
    return fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", **kw),
                          dice(f"ann={ann}", f"bob={bob}", *more))


def resolution(outcome: Any) -> ev.ExchangeResolved:
    return [r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved)][-1]


def wounds(outcome: Any) -> list[tuple[str, int]]:
    return [(r.event.combatant, r.event.level) for r in outcome.records if isinstance(r.event, ev.WoundMarked)]


def mods(side: ev.Side) -> list[tuple[str, int]]:
    return [(m.name, m.value) for m in side.modifiers]


def refused(fights: Fights, command: Any, given: DiceInput | None = None, match: str = "") -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before


# --- F-PACE -----------------------------------------------------------------------

def test_F_PACE_2_simultaneous_is_the_default_one_opposed_roll_each_per_round(fights: Fights) -> None:
    """F-PACE-2."""
    duel(fights)
    assert fights.state("fight").options.pace == "simultaneous"
    outcome = exchange(fights, "+000", "0000")
    kinds = [type(r.event).__name__ for r in outcome.records]
    assert kinds == ["RoundStarted", "DiceRolled", "DiceRolled", "ExchangeResolved", "WoundMarked"]
    done = resolution(outcome)
    assert (done.kind, done.round) == ("exchange", 1)
    assert [(s.combatant, s.result) for s in done.sides] == [("Ann", 3), ("Bob", 1)]
    assert wounds(outcome) == [("Bob", HURT)]  # RD +2, factor +2: 4 points
    again = exchange(fights, "0000", "0000")
    assert resolution(again).round == 2  # a fighter who already fought starts the next round


def test_F_PACE_2_exchange_is_refused_under_directed_attacks(fights: Fights) -> None:
    """F-PACE-2."""
    duel(fights, pace="alternating")
    refused(fights, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"), "fudge attack")


def test_F_PACE_3_directed_attack_offense_trait_vs_defense_trait(fights: Fights) -> None:
    """F-PACE-3: `attack` in the simultaneous pace: Ann's Sword against Bob's Dodge; Bob only defends."""
    duel(fights, bob={"attack": "Sword", "defend": "Dodge", "skills": {"Dodge": "Fair"}})
    outcome = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000", "bob=+000"))
    done = resolution(outcome)
    assert done.kind == "attack"
    assert [(s.combatant, s.trait, s.level, s.result) for s in done.sides] == [
        ("Ann", "Sword", 2, 2), ("Bob", "Dodge", 0, 1)]
    assert [(h.attacker, h.defender, h.graze) for h in done.hits] == [("Ann", "Bob", True)]
    assert wounds(outcome) == [("Bob", SCRATCH)]


def test_F_PACE_3_the_target_of_an_attack_cannot_hurt_the_attacker(fights: Fights) -> None:
    """F-PACE-3."""
    duel(fights)
    outcome = fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=----", "ann=++++"))
    done = resolution(outcome)
    assert done.hits == ()
    assert done.outcome == "Ann is not hit"
    assert wounds(outcome) == []


def test_F_PACE_3_defense_modifier_is_gm_input(fights: Fights) -> None:
    """F-PACE-3."""
    duel(fights)
    done = resolution(fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob", mod=1, defense_mod=-1),
                                     dice("ann=0000", "bob=0000")))
    assert mods(done.sides[0]) == [("GM modifier", 1)]
    assert mods(done.sides[1]) == [("GM defense modifier", -1)]
    assert done.hits[0].relative_degree == 3


# --- F-MEL ------------------------------------------------------------------------

def test_F_MEL_1_equal_results_are_a_stand_off(fights: Fights) -> None:
    """F-MEL-1."""
    duel(fights)
    outcome = exchange(fights, "-000", "0000")  # Good vs Good
    done = resolution(outcome)
    assert done.hits == () and done.outcome == "stand-off"
    assert wounds(outcome) == []


def test_F_MEL_1_either_fighter_may_win_the_round(fights: Fights) -> None:
    """F-MEL-1."""
    duel(fights)
    outcome = exchange(fights, "--00", "+000")  # Ann Fair vs Bob Great: Bob wins by 2
    assert [(h.attacker, h.relative_degree) for h in resolution(outcome).hits] == [("Bob", 2)]
    assert wounds(outcome) == [("Ann", HURT)]


def test_F_MEL_2_a_win_below_the_minimum_hit_level_is_a_stand_off(fights: Fights) -> None:
    """F-MEL-2: Ann -3 (Terrible) beats Bob -5 by 2, but Terrible is below Poor: nobody is hurt."""
    duel(fights)
    outcome = exchange(fights, "----", "----", mods=(-1, -2))
    done = resolution(outcome)
    assert [s.result for s in done.sides] == [-3, -5]
    assert done.min_hit == (-2, -2)
    assert done.hits == () and wounds(outcome) == []


def test_F_MEL_2_a_win_at_exactly_the_minimum_hits(fights: Fights) -> None:
    """F-MEL-2."""
    duel(fights)
    outcome = exchange(fights, "----", "----")  # Ann Poor vs Bob Terrible: RD +1 at Poor
    assert [(h.attacker, h.graze) for h in resolution(outcome).hits] == [("Ann", True)]


def test_F_MEL_2_gm_raises_the_minimum_hit_level(fights: Fights) -> None:
    """F-MEL-2."""
    duel(fights)
    miss = resolution(exchange(fights, "--00", "----", min_hit=1))  # Fair beats Terrible, but Good is needed
    assert miss.min_hit == (1, 1) and miss.hits == ()
    hit = resolution(exchange(fights, "-000", "----", min_hit=1))  # Good: hits
    assert [h.attacker for h in hit.hits] == ["Ann"]


def test_F_MEL_3_unaware_defender_is_an_unopposed_roll_against_poor(fights: Fights) -> None:
    """F-MEL-3."""
    duel(fights)
    outcome = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob", unaware=True), dice("ann=--00"))
    rolls = [r.event.roller for r in outcome.records if isinstance(r.event, ev.DiceRolled)]
    assert rolls == ["Ann"]  # the defender does not roll
    done = resolution(outcome)
    assert (done.sides[1].level, done.sides[1].result, done.sides[1].roll) == (-2, -2, 0)
    assert done.hits[0].relative_degree == 2  # Fair vs Poor


def test_F_MEL_3_unaware_difficulty_is_gm_input(fights: Fights) -> None:
    """F-MEL-3."""
    duel(fights)
    outcome = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob", unaware=True, difficulty=1),
                             dice("ann=-000"))
    done = resolution(outcome)
    assert done.sides[1].result == 1 and done.hits == ()  # Good vs Good


def test_F_MEL_3_a_defender_who_cannot_act_is_attacked_unopposed(fights: Fights) -> None:
    """F-MEL-3."""
    duel(fights, ann={"weapon": 8})
    exchange(fights, "+000", "0000")  # RD +2, factor +8: 10 points, Near Death
    outcome = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000"))
    done = resolution(outcome)
    assert done.sides[1].trait.startswith("difficulty") and done.sides[1].result == -2
    assert done.hits[0].relative_degree == 4


def test_F_MEL_3_a_defender_who_only_defends_still_rolls_but_cannot_hurt(fights: Fights) -> None:
    """F-MEL-3."""
    duel(fights)
    outcome = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=----", "bob=++++"))
    assert [r.event.roller for r in outcome.records if isinstance(r.event, ev.DiceRolled)] == ["Ann", "Bob"]
    assert resolution(outcome).hits == ()
    assert fights.state("fight").combatants["ann"].track.level == UNDAMAGED


# --- F-HIT-1 ------------------------------------------------------------------------

def scaled(fights: Fights, ann_scale: int, bob_scale: int, ann_skill: str = "Good", bob_skill: str = "Poor") -> None:
    start(fights)
    join(fights, "Ann", ann_skill, scale=ann_scale, armor=20)  # armor: hits here are recorded, not wounding
    join(fights, "Bob", bob_skill, scale=bob_scale, armor=20)


def test_F_HIT_1_minimum_hit_is_poor_plus_the_scale_difference(fights: Fights) -> None:
    """F-HIT-1: 000: a Scale 1 fighter against Scale -1 needs Fair; the Scale -1 one hits on Terrible."""
    scaled(fights, 1, -1)
    state = fights.state("fight")
    ann, bob = state.combatants["ann"], state.combatants["bob"]
    assert min_hit_for(state, ann, bob, None) == 0          # Fair
    assert min_hit_for(state, bob, ann, None) == -4         # Terrible (-3) and even worse hit
    assert min_hit_for(state, ann, bob, 2) == 2             # GM input: a tiny target needs Great
    assert resolution(exchange(fights, "-000", "0000")).min_hit == (0, -4)


def test_F_HIT_1_the_big_fighter_needs_fair(fights: Fights) -> None:
    """F-HIT-1."""
    scaled(fights, 1, -1)
    fair = resolution(exchange(fights, "-000", "0000"))  # Ann Fair vs Bob Poor
    assert [h.attacker for h in fair.hits] == ["Ann"]
    mediocre = resolution(exchange(fights, "--00", "-000"))  # Ann Mediocre vs Bob Terrible: RD +2, no hit
    assert mediocre.hits == ()


def test_F_HIT_1_the_small_fighter_hits_on_terrible(fights: Fights) -> None:
    """F-HIT-1."""
    scaled(fights, 1, -1)
    outcome = exchange(fights, "----", "-000", mods=(-1, 0))  # Ann Good-4-1 = -4 vs Bob Terrible
    done = resolution(outcome)
    assert [s.result for s in done.sides] == [-4, -3]
    assert [(h.attacker, h.relative_degree) for h in done.hits] == [("Bob", 1)]


def test_F_HIT_1_equal_scale_needs_poor(fights: Fights) -> None:
    """F-HIT-1."""
    scaled(fights, 3, 3, bob_skill="Terrible")
    assert resolution(exchange(fights, "----", "-000")).min_hit == (-2, -2)


# --- F-MOD ------------------------------------------------------------------------------

def test_F_MOD_1_the_wound_penalty_applies_automatically(fights: Fights) -> None:
    """F-MOD-1."""
    duel(fights)
    exchange(fights, "+000", "0000")  # Bob Hurt
    done = resolution(exchange(fights, "0000", "0000"))
    assert mods(done.sides[1]) == [("wound: Hurt", -1)]
    assert done.sides[1].result == 0
    assert mods(done.sides[0]) == []


def test_F_MOD_1_only_the_worst_wound_counts_very_hurt_and_scratch_give_minus_two(fights: Fights) -> None:
    """F-MOD-1."""
    duel(fights, bob={"skills": {"Sword": "Superb"}})
    exchange(fights, "++00", "-000")   # Ann Superb+1 vs Bob Great: RD +2, 4 points, Hurt
    assert fights.state("fight").combatants["bob"].track.level == HURT
    exchange(fights, "++00", "0000")   # vs Bob Superb-1 = Great: RD +2, Hurt again: the Very Hurt box
    exchange(fights, "0000", "0000")   # Ann Great vs Bob Superb-2 = Good: a graze, factor +2: Scratch
    bob = fights.state("fight").combatants["bob"]
    assert bob.track.boxes[0][0] == SCRATCH and bob.track.level == VERY_HURT
    done = resolution(exchange(fights, "0000", "0000"))
    assert [m for m in mods(done.sides[1]) if m[0].startswith("wound")] == [("wound: Very Hurt", -2)]


def test_F_MOD_1_wound_penalty_on_any_action(fights: Fights) -> None:
    """F-MOD-1."""
    duel(fights)
    exchange(fights, "+000", "0000")
    action = [r.event for r in fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Agility"),
                                              dice("0000")).records if isinstance(r.event, ev.ActionResolved)][0]
    assert [(m.name, m.value) for m in action.modifiers] == [("wound: Hurt", -1)]


def test_F_MOD_2_positional_disadvantage_is_a_gm_modifier(fights: Fights) -> None:
    """F-MOD-2."""
    duel(fights)
    outcome = exchange(fights, "0000", "0000", mods=(-2, 0))  # Ann kneeling in the mud
    done = resolution(outcome)
    assert mods(done.sides[0]) == [("GM modifier", -2)]
    assert [s.result for s in done.sides] == [0, 1]
    assert [h.attacker for h in done.hits] == ["Bob"]


@pytest.mark.parametrize(("size", "value"), [("small", 1), ("medium", 1), ("large", 2)])
def test_F_MOD_3_a_shield_lowers_the_opponents_weapon_skill(fights: Fights, size: str, value: int) -> None:
    """F-MOD-3."""
    duel(fights, bob={"shield": size})
    done = resolution(exchange(fights, "0000", "0000"))
    assert mods(done.sides[0]) == [(f"Bob's {size} shield", -value)]
    assert mods(done.sides[1]) == []
    assert done.sides[0].result == 2 - value


def test_F_MOD_3_shield_values_are_an_option(fights: Fights) -> None:
    """F-MOD-3."""
    duel(fights, bob={"shield": "large"}, shield_values=[1, 2, 3])
    done = resolution(exchange(fights, "0000", "0000"))
    assert mods(done.sides[0]) == [("Bob's large shield", -3)]


def test_F_MOD_3_shield_in_a_directed_attack(fights: Fights) -> None:
    """F-MOD-3."""
    duel(fights, bob={"shield": "medium"})
    done = resolution(fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000", "bob=0000")))
    assert mods(done.sides[0]) == [("Bob's medium shield", -1)]


def declare(fights: Fights, who: str, **declaration: Any) -> Any:
    return fights.execute("fight", cmd.Declare(combatant=who, declaration=ev.Declaration(**declaration)))


def test_F_MOD_6_all_out_offense_plus_one_skill_plus_one_damage(fights: Fights) -> None:
    """F-MOD-6."""
    duel(fights)
    declare(fights, "Ann", all_out="offense")
    outcome = exchange(fights, "0000", "0000")  # Great+1 vs Good: RD +2
    done = resolution(outcome)
    assert mods(done.sides[0]) == [("all-out offense", 1)]
    hit = done.hits[0]
    assert (hit.attacker, hit.relative_degree, hit.bonus, hit.damage, hit.level) == ("Ann", 2, 1, 5, VERY_HURT)


def test_F_MOD_6_an_all_out_attacker_who_ties_loses_and_the_foe_gets_plus_two(fights: Fights) -> None:
    """F-MOD-6."""
    duel(fights)
    declare(fights, "Bob", all_out="offense")
    outcome = exchange(fights, "0000", "0000")  # Ann Great vs Bob Good+1: a tie
    hit = resolution(outcome).hits[0]
    assert (hit.attacker, hit.defender, hit.relative_degree, hit.bonus, hit.damage) == ("Ann", "Bob", 0, 2, 4)
    assert wounds(outcome) == [("Bob", HURT)]


def test_F_MOD_6_an_all_out_attacker_who_loses_gives_plus_two(fights: Fights) -> None:
    """F-MOD-6."""
    duel(fights)
    declare(fights, "Bob", all_out="offense")
    hit = resolution(exchange(fights, "+000", "-000")).hits[0]  # Ann Superb vs Bob Good-1+1 = Good: RD +2
    assert (hit.attacker, hit.relative_degree, hit.bonus, hit.damage, hit.level) == ("Ann", 2, 2, 6, VERY_HURT)


def test_F_MOD_6_both_all_out_attackers_tie_is_a_stand_off(fights: Fights) -> None:
    """F-MOD-6."""
    duel(fights)
    declare(fights, "Ann", all_out="offense")
    declare(fights, "Bob", all_out="offense")
    assert resolution(exchange(fights, "-000", "0000")).hits == ()


def test_F_MOD_6_a_declaration_lasts_one_round(fights: Fights) -> None:
    """F-MOD-6."""
    duel(fights)
    declare(fights, "Ann", all_out="offense")
    exchange(fights, "0000", "0000")
    done = resolution(exchange(fights, "0000", "0000"))
    assert mods(done.sides[0]) == []


def test_F_MOD_7_all_out_defense_plus_two_and_cannot_harm(fights: Fights) -> None:
    """F-MOD-7."""
    duel(fights)
    declare(fights, "Bob", all_out="defense")
    outcome = exchange(fights, "0000", "+000")  # Ann Great vs Bob Good+1+2 = Superb+1
    done = resolution(outcome)
    assert mods(done.sides[1]) == [("all-out defense", 2)]
    assert done.hits == () and wounds(outcome) == []


def test_F_MOD_7_all_out_defense_still_loses_to_a_better_roll(fights: Fights) -> None:
    """F-MOD-7."""
    duel(fights)
    declare(fights, "Bob", all_out="defense")
    outcome = exchange(fights, "++00", "-000")  # Ann Superb+1 vs Bob Good+1 = Great: RD +2
    assert wounds(outcome) == [("Bob", HURT)]


def test_F_MOD_7_a_won_defense_and_a_perception_roll_give_the_foe_minus_one_next_round(fights: Fights) -> None:
    """F-MOD-7."""
    duel(fights, bob={"attributes": {"Perception": "Great"}})
    declare(fights, "Bob", all_out="defense")
    exchange(fights, "0000", "-000")  # Great vs Good+2-1 = Great: Bob's defense holds
    roll = fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception", difficulty=1, advantage=True),
                          dice("0000"))
    gained = [r.event for r in roll.records if isinstance(r.event, ev.AdvantageGained)]
    assert [(g.combatant, g.over, g.modifier, g.round) for g in gained] == [("Bob", "Ann", -1, 2)]
    done = resolution(exchange(fights, "0000", "0000"))
    assert mods(done.sides[0]) == [("Bob's situational advantage", -1)]
    assert done.sides[0].result == 1
    later = resolution(exchange(fights, "0000", "0000"))
    assert mods(later.sides[0]) == []  # for one round only


def test_F_MOD_7_a_failed_perception_roll_gives_nothing(fights: Fights) -> None:
    """F-MOD-7."""
    duel(fights)
    declare(fights, "Bob", all_out="defense")
    exchange(fights, "0000", "-000")
    roll = fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception", difficulty=1, advantage=True),
                          dice("0000"))  # Fair vs Good fails
    assert not [r for r in roll.records if isinstance(r.event, ev.AdvantageGained)]
    assert mods(resolution(exchange(fights, "0000", "0000")).sides[0]) == []


def test_F_MOD_7_no_advantage_without_a_won_all_out_defense(fights: Fights) -> None:
    """F-MOD-7."""
    duel(fights)
    exchange(fights, "0000", "0000")
    refused(fights, cmd.RollTrait(combatant="Bob", trait="Perception", advantage=True), dice("0000"),
            "has not won an all-out defense")
    declare(fights, "Bob", all_out="defense")
    exchange(fights, "++00", "-000")  # lost
    refused(fights, cmd.RollTrait(combatant="Bob", trait="Perception", advantage=True), dice("0000"),
            "has not won an all-out defense")


# --- F-TAC ------------------------------------------------------------------------------

def test_F_TAC_1_postures_from_plus_two_to_minus_two(fights: Fights) -> None:
    """F-TAC-1."""
    duel(fights, tactics="postures")
    for posture in (2, 1, 0, -1, -2):
        outcome = declare(fights, "Ann", posture=posture)
        assert outcome.records[-1].event.declaration.posture == posture
    refused(fights, cmd.Declare(combatant="Ann", declaration=ev.Declaration(posture=3)), None, "posture is -2")
    refused(fights, cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")), None,
            "uses postures")


def test_F_TAC_1_postures_need_the_tactics_option(fights: Fights) -> None:
    """F-TAC-1."""
    duel(fights)
    refused(fights, cmd.Declare(combatant="Ann", declaration=ev.Declaration(posture=1)), None,
            'tactics = "postures"')


def test_F_TAC_4_offense_and_defense_from_one_roll_both_may_hit(fights: Fights) -> None:
    """F-TAC-4."""
    duel(fights, tactics="postures")
    declare(fights, "Ann", posture=2)
    declare(fights, "Bob", posture=2)
    outcome = exchange(fights, "0000", "0000")
    done = resolution(outcome)
    assert [(s.result, s.offense, s.defense) for s in done.sides] == [(2, 4, 0), (1, 3, -1)]
    assert [(h.attacker, h.relative_degree) for h in done.hits] == [("Ann", 5), ("Bob", 3)]
    assert sorted(wounds(outcome)) == [("Ann", VERY_HURT), ("Bob", INCAPACITATED)]  # 3+2 = 5; 5+2 = 7


def test_F_TAC_4_defensive_postures_keep_both_safe(fights: Fights) -> None:
    """F-TAC-4."""
    duel(fights, tactics="postures")
    declare(fights, "Ann", posture=-2)
    declare(fights, "Bob", posture=-2)
    done = resolution(exchange(fights, "0000", "0000"))
    assert [(s.offense, s.defense) for s in done.sides] == [(0, 4), (-1, 3)]
    assert done.hits == ()


def test_F_TAC_4_no_posture_is_zero(fights: Fights) -> None:
    """F-TAC-4."""
    duel(fights, tactics="postures")
    declare(fights, "Ann", posture=1)
    done = resolution(exchange(fights, "0000", "0000"))
    assert [(s.offense, s.defense) for s in done.sides] == [(3, 1), (1, 1)]
    assert [(h.attacker, h.relative_degree) for h in done.hits] == [("Ann", 2)]


def test_F_TAC_4_a_directed_attack_compares_only_the_attackers_offense(fights: Fights) -> None:
    """F-TAC-4."""
    duel(fights, tactics="postures")
    declare(fights, "Ann", posture=-2)
    declare(fights, "Bob", posture=2)
    done = resolution(fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=++00", "bob=0000")))
    # Ann's offense 4-2 = 2 vs Bob's defense 1-2 = -1: RD +3. Bob only defends: his offense is not compared.
    assert [(h.attacker, h.relative_degree) for h in done.hits] == [("Ann", 3)]


def test_F_TAC_2_sealed_postures_are_revealed_together_at_the_blow(fights: Fights) -> None:
    """F-TAC-2."""
    duel(fights, tactics="postures")
    sealed_ann = fights.declare("fight", "Ann", ev.Declaration(posture=2), sealed=True)
    sealed_bob = fights.declare("fight", "Bob", ev.Declaration(posture=-1), sealed=True)
    seals = [o.records[-1].event for o in (sealed_ann, sealed_bob)]
    assert all(isinstance(s, ev.DeclarationSealed) for s in seals)
    for seal in seals:
        assert "posture" not in msgspec.json.encode(seal).decode()  # the log holds only the hash until the reveal
    # Nobody may fight before the seals are opened.
    refused(fights, cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"), "must be revealed")
    state = fights.state("fight")
    reveals = fights.reveals(state, ["Ann", "Bob"])
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", reveals=reveals),
                             dice("ann=0000", "bob=0000"))
    opened = [r for r in outcome.records if isinstance(r.event, ev.DeclarationRevealed)]
    first_roll = min(r.seq for r in outcome.records if isinstance(r.event, ev.DiceRolled))
    assert [r.event.combatant for r in opened] == ["Ann", "Bob"]
    assert all(r.seq < first_roll for r in opened)  # revealed together, before any die
    for record, seal in zip(opened, seals):
        assert seal_of(record.event.declaration, record.event.salt) == seal.seal  # nobody changed the choice
    done = resolution(outcome)
    assert [(s.declaration.posture, s.offense, s.defense) for s in done.sides] == [(2, 4, 0), (-1, 0, 2)]


def test_F_TAC_2_a_changed_choice_does_not_match_its_seal(fights: Fights) -> None:
    """F-TAC-2."""
    duel(fights, tactics="postures")
    fights.declare("fight", "Ann", ev.Declaration(posture=2), sealed=True)
    honest = fights.reveals(fights.state("fight"), ["Ann"])[0]
    changed = cmd.Reveal(combatant="Ann", declaration=ev.Declaration(posture=-2), salt=honest.salt)
    refused(fights, cmd.Exchange(first="Ann", second="Bob", reveals=(changed,)), dice("ann=0000", "bob=0000"),
            "does not match its seal")
