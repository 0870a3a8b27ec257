"""Fudge points: C-FP-1 (the pool), C-FP-2 (panache, skill, luck, Only a Scratch,
Still Ticking / F-DEATH-3), C-FP-3 (refusals).

A spend re-resolves the action its roll or blow belongs to: the old
resolution and its consequences are voided by an EventsVoided event (they
stay in the log), the new ones are appended after it. A refused spend writes
nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, NEAR_DEATH, SCRATCH, UNDAMAGED, VERY_HURT, halve
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.history import voided
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.engine.audit import verify
from tests.conftest import dice, make_fights, sheet, start
from tests.fuzzing import fuzz


def join(fights: Fights, name: str, skill: str, **extra: Any) -> None:
    extra.setdefault("weapon", 2)
    fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": skill}, attack="Sword", **extra),
                                     source=f"{name.lower()}.toml"))


def duel(fights: Fights, ann: dict[str, Any] | None = None, bob: dict[str, Any] | None = None,
         **options: Any) -> None:
    start(fights, **options)
    join(fights, "Ann", "Great", **{"fudge_points": 3, **(ann or {})})
    join(fights, "Bob", "Good", **{"fudge_points": 3, **(bob or {})})


def of(outcome: Any, kind: type) -> list[Any]:
    return [r.event for r in outcome.records if isinstance(r.event, kind)]


def seqs(outcome: Any, kind: type) -> list[int]:
    return [r.seq for r in outcome.records if isinstance(r.event, kind)]


def spend(fights: Fights, who: str, use: str, given: DiceInput | None = None, **kw: Any) -> Any:
    return fights.execute("fight", cmd.SpendPoint(combatant=who, use=use, **kw), given)


def refused(fights: Fights, command: Any, match: str, given: DiceInput | None = None) -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before


def points(fights: Fights, who: str) -> int:
    return fights.state("fight").combatants[who.lower()].fudge_points


def assert_reresolved(fights: Fights, spent: Any, old: list[int]) -> None:
    """The old consequences are voided, still in the log, and the live state is the replayed one."""
    voids = of(spent, ev.EventsVoided)
    assert len(voids) == 1 and set(old) <= set(voids[0].seqs)
    log = fights.log("fight")
    logged = {r.seq for r in log}
    gone = voided(log)
    for seq in old:
        assert seq in logged and gone[seq] == seqs(spent, ev.EventsVoided)[0]
    again = replay(log)
    assert again.combatants == spent.state.combatants


# --- C-FP-1 ------------------------------------------------------------------------

def test_C_FP_1_the_pool_comes_from_the_sheet(fights: Fights) -> None:
    """C-FP-1."""
    start(fights)
    join(fights, "Ann", "Great", fudge_points=3)
    join(fights, "Grunt", "Fair", kind="npc")
    join(fights, "Boss", "Good", kind="npc", fudge_points=1)
    state = fights.state("fight")
    assert state.options.default_fudge_points == 0
    assert [state.combatants[k].fudge_points for k in ("ann", "grunt", "boss")] == [3, 0, 1]


def test_C_FP_1_the_default_pool_is_an_option(fights: Fights) -> None:
    """C-FP-1."""
    start(fights, default_fudge_points=2)
    join(fights, "Ann", "Great")
    join(fights, "Cid", "Great", fudge_points=0)
    assert points(fights, "Ann") == 2 and points(fights, "Cid") == 0


def test_C_FP_1_each_spend_costs_a_point(fights: Fights) -> None:
    """C-FP-1."""
    duel(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("----"))
    outcome = spend(fights, "Ann", "panache")
    assert of(outcome, ev.FudgePointSpent)[0].cost == 1
    assert outcome.state.combatants["ann"].fudge_points == 2 == points(fights, "Ann")


# --- C-FP-2 panache -------------------------------------------------------------------

def test_C_FP_2_panache_makes_an_unopposed_action_succeed(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    rolled = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("- - - -"))
    failed = of(rolled, ev.ActionResolved)[0]
    assert (failed.success, failed.margin) == (False, -5)
    roll_seq = seqs(rolled, ev.DiceRolled)[0]
    outcome = spend(fights, "Ann", "panache")
    spent = of(outcome, ev.FudgePointSpent)[0]
    assert (spent.combatant, spent.use, spent.target) == ("Ann", "panache", roll_seq)
    new = of(outcome, ev.ActionResolved)[0]
    assert (new.success, new.automatic, new.margin, new.supersedes) == (True, True, -5, seqs(rolled, ev.ActionResolved)[0])
    assert [type(r.event) for r in outcome.records] == [ev.FudgePointSpent, ev.EventsVoided, ev.ActionResolved]
    assert_reresolved(fights, outcome, seqs(rolled, ev.ActionResolved))
    assert roll_seq not in voided(fights.log("fight"))  # the faces stand; only the outcome changed


def test_C_FP_2_panache_is_refused_on_opposed_rolls_and_blows(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", opponent="Bob"), dice("ann=----", "bob=0000"))
    refused(fights, cmd.SpendPoint(combatant="Ann", use="panache"), "unopposed")
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=----", "bob=0000"))
    refused(fights, cmd.SpendPoint(combatant="Ann", use="panache"), "unopposed")
    assert points(fights, "Ann") == 3


# --- C-FP-2 skill ----------------------------------------------------------------------

def test_C_FP_2_skill_plus_one_turns_a_failure_into_success(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    rolled = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("0 0 0 0"))
    assert of(rolled, ev.ActionResolved)[0].success is False
    outcome = spend(fights, "Ann", "skill", shift=1)
    new = of(outcome, ev.ActionResolved)[0]
    assert [(m.name, m.value) for m in new.modifiers] == [("fudge point (skill)", 1)]
    assert (new.result, new.margin, new.success, new.automatic) == (3, 0, True, False)
    assert of(outcome, ev.FudgePointSpent)[0].shift == 1
    assert_reresolved(fights, outcome, seqs(rolled, ev.ActionResolved))


def test_C_FP_2_skill_minus_one_lowers_the_result(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("- - 0 0"))  # Fair vs Fair
    new = of(spend(fights, "Ann", "skill", shift=-1), ev.ActionResolved)[0]
    assert (new.result, new.success) == (-1, False)


def test_C_FP_2_skill_on_a_blow_re_resolves_the_exchange(fights: Fights) -> None:
    """C-FP-2: Bob loses by 1 (a graze on him); +1 makes it a tie: the wound is voided, nobody is hurt."""
    duel(fights)
    blow = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    assert [(w.combatant, w.level) for w in of(blow, ev.WoundMarked)] == [("Bob", SCRATCH)]
    outcome = spend(fights, "Bob", "skill", shift=1)
    new = of(outcome, ev.ExchangeResolved)[0]
    assert new.outcome == "stand-off" and new.hits == ()
    assert new.supersedes == seqs(blow, ev.ExchangeResolved)[0]
    assert of(outcome, ev.WoundMarked) == []
    assert_reresolved(fights, outcome, seqs(blow, ev.ExchangeResolved) + seqs(blow, ev.WoundMarked))
    assert outcome.state.combatants["bob"].track.level == UNDAMAGED


def test_C_FP_2_skill_by_the_winner_makes_the_blow_worse(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    outcome = spend(fights, "Ann", "skill", shift=1)
    hit = of(outcome, ev.ExchangeResolved)[0].hits[0]
    assert (hit.relative_degree, hit.graze, hit.damage, hit.level) == (2, False, 4, HURT)
    assert [(w.combatant, w.level) for w in of(outcome, ev.WoundMarked)] == [("Bob", HURT)]
    assert fights.state("fight").combatants["bob"].track.level == HURT


def test_C_FP_2_skill_needs_a_shift(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("0000"))
    refused(fights, cmd.SpendPoint(combatant="Ann", use="skill"), "--shift")


# --- C-FP-2 luck -----------------------------------------------------------------------

def test_C_FP_2_luck_rerolls_and_the_old_roll_stays_in_the_log(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    rolled = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("- - 0 0"))
    old_roll = seqs(rolled, ev.DiceRolled)[0]
    outcome = spend(fights, "Ann", "luck", dice("+ + 0 -"))
    reroll = of(outcome, ev.DiceRolled)[0]
    assert (reroll.roller, reroll.faces, reroll.source, reroll.action) == (
        "Ann", (1, 1, 0, -1), "entered", of(rolled, ev.DiceRolled)[0].action)
    new = of(outcome, ev.ActionResolved)[0]
    assert (new.roll, new.result, new.success) == (1, 3, True)
    assert_reresolved(fights, outcome, [old_roll] + seqs(rolled, ev.ActionResolved))
    log = {r.seq: r.event for r in fights.log("fight")}
    assert log[old_roll].faces == (-1, -1, 0, 0)  # superseded, not deleted


def test_C_FP_2_luck_with_generated_dice(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("----"))
    reroll = of(spend(fights, "Ann", "luck"), ev.DiceRolled)[0]
    assert reroll.source == "generated" and len(reroll.faces) == 4


def test_C_FP_2_luck_on_a_blow_can_turn_the_exchange_around(fights: Fights) -> None:
    """C-FP-2: Bob loses by 2 (Hurt); his reroll wins by 2: his wound is voided and Ann is Hurt instead."""
    duel(fights)
    blow = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=-000"))
    assert [(w.combatant, w.level) for w in of(blow, ev.WoundMarked)] == [("Bob", HURT)]
    bob_roll = [r.seq for r in blow.records if isinstance(r.event, ev.DiceRolled) and r.event.roller == "Bob"][0]
    outcome = spend(fights, "Bob", "luck", dice("bob=+ + + 0"))
    new = of(outcome, ev.ExchangeResolved)[0]
    assert [s.result for s in new.sides] == [2, 4]
    assert [(h.attacker, h.relative_degree) for h in new.hits] == [("Bob", 2)]
    assert [(w.combatant, w.level) for w in of(outcome, ev.WoundMarked)] == [("Ann", HURT)]
    assert_reresolved(fights, outcome, [bob_roll] + seqs(blow, ev.ExchangeResolved) + seqs(blow, ev.WoundMarked))
    state = fights.state("fight")
    assert state.combatants["bob"].track.level == UNDAMAGED
    assert state.combatants["ann"].track.level == HURT


def test_C_FP_2_luck_keeps_the_damage_roll_of_the_same_attacker(fights: Fights) -> None:
    """C-FP-2: Under 4dF_limited, a re-resolved blow by the same attacker reuses the recorded damage roll."""
    duel(fights, damage_roll="4dF_limited")
    blow = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"),
                          dice("ann=0000", "bob=-000", "ann=-000"))  # RD +2, factor +2, roll -1: 3, Hurt
    assert of(blow, ev.ExchangeResolved)[0].hits[0].damage == 3
    ann_roll = seqs(blow, ev.DiceRolled)[0]
    outcome = spend(fights, "Ann", "luck", dice("ann=+000"), target=ann_roll)  # no new damage dice needed
    hit = of(outcome, ev.ExchangeResolved)[0].hits[0]
    assert (hit.relative_degree, hit.damage_roll, hit.damage, hit.level) == (3, -1, 4, HURT)
    assert [r.faces for r in of(outcome, ev.DiceRolled)] == [(1, 0, 0, 0)]


def test_C_FP_2_by_default_a_spend_aims_at_the_action_roll_not_the_damage_roll(fights: Fights) -> None:
    """C-FP-2: Ann's latest die roll is her damage roll; `spend Ann skill` still re-resolves her Sword roll."""
    duel(fights, damage_roll="4dF_limited")
    blow = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"),
                          dice("ann=0000", "bob=-000", "ann=-000"))
    outcome = spend(fights, "Ann", "skill", shift=1)
    assert of(outcome, ev.FudgePointSpent)[0].target == seqs(blow, ev.DiceRolled)[0]
    hit = of(outcome, ev.ExchangeResolved)[0].hits[0]
    assert (hit.relative_degree, hit.damage_roll, hit.damage) == (3, -1, 4)


def test_C_FP_2_luck_and_skill_are_refused_on_a_damage_roll(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights, damage_roll="4dF_limited")
    blow = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"),
                          dice("ann=0000", "bob=-000", "ann=-000"))
    damage = [r.seq for r in blow.records if isinstance(r.event, ev.DiceRolled) and r.event.purpose == "damage"][0]
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck", target=damage), "action roll")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="skill", shift=1, target=damage), "action roll")


# --- C-FP-2 Only a Scratch ----------------------------------------------------------------

@pytest.mark.parametrize(("level", "halved"), [
    (HURT, SCRATCH), (VERY_HURT, SCRATCH), (INCAPACITATED, HURT), (NEAR_DEATH, HURT), (SCRATCH, SCRATCH),
])
def test_C_FP_2_only_a_scratch_halves_levels_rounding_down_never_below_scratch(level: int, halved: int) -> None:
    """C-FP-2: RULES.md decision: Scratch 1, Hurt 2, Very Hurt 3, Incapacitated 4, Near Death 5; halve, round down."""
    assert halve(level) == halved


def test_C_FP_2_only_a_scratch_through_the_service(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights, ann={"weapon": 5})
    blow = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    assert [w.level for w in of(blow, ev.WoundMarked)] == [INCAPACITATED]  # RD +2, factor +5: 7 points
    wound_seq = seqs(blow, ev.WoundMarked)[0]
    outcome = spend(fights, "Bob", "scratch")
    spent = of(outcome, ev.FudgePointSpent)[0]
    assert (spent.use, spent.target, spent.cost) == ("scratch", wound_seq, 1)
    assert of(outcome, ev.EventsVoided)[0].seqs == (wound_seq,)
    mark = of(outcome, ev.WoundMarked)[0]
    assert (mark.combatant, mark.level, mark.halved_from) == ("Bob", HURT, INCAPACITATED)
    assert_reresolved(fights, outcome, [wound_seq])
    bob = fights.state("fight").combatants["bob"]
    assert bob.track.level == HURT and bob.fudge_points == 2


def test_C_FP_2_only_a_scratch_is_refused_on_a_scratch(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))  # a graze
    refused(fights, cmd.SpendPoint(combatant="Bob", use="scratch"), "worse than a Scratch")


# --- C-FP-2 Still Ticking (F-DEATH-3) --------------------------------------------------------

def deadly(fights: Fights, bob_points: int = 3) -> tuple[Any, int]:
    duel(fights, ann={"weapon": 10}, bob={"fudge_points": bob_points})
    # Superb vs Mediocre: RD +3, factor +10: Near Death
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=--00"))
    # Bob cannot defend any more (F-MEL-3): Great vs Poor, a second Near Death kills
    blow = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000"))
    assert blow.state.combatants["bob"].track.dead
    return blow, seqs(blow, ev.WoundMarked)[0]


def test_C_FP_2_F_DEATH_3_still_ticking_costs_two_when_already_near_death(fights: Fights) -> None:
    """C-FP-2, F-DEATH-3."""
    _, blow_seq = deadly(fights)
    outcome = spend(fights, "Bob", "ticking")
    spent = of(outcome, ev.FudgePointSpent)[0]
    assert (spent.use, spent.target, spent.cost) == ("ticking", blow_seq, 2)
    mark = of(outcome, ev.WoundMarked)[0]
    assert (mark.level, mark.still_ticking) == (NEAR_DEATH, True)
    assert_reresolved(fights, outcome, [blow_seq])
    bob = fights.state("fight").combatants["bob"]
    assert not bob.track.dead and bob.track.level == NEAR_DEATH and bob.fudge_points == 1


def test_C_FP_2_still_ticking_cost_near_death_is_an_option(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights, ann={"weapon": 10}, still_ticking_cost_near_death=1)
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=--00"))
    fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0000"))
    assert of(spend(fights, "Bob", "ticking"), ev.FudgePointSpent)[0].cost == 1


def test_C_FP_3_still_ticking_with_one_point_at_near_death_is_refused(fights: Fights) -> None:
    """C-FP-3."""
    deadly(fights, bob_points=1)
    refused(fights, cmd.SpendPoint(combatant="Bob", use="ticking"), "this costs 2")
    assert fights.state("fight").combatants["bob"].track.dead


def test_C_FP_2_still_ticking_is_refused_on_a_blow_that_does_not_kill(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    refused(fights, cmd.SpendPoint(combatant="Bob", use="ticking"), "does not kill")


# --- C-FP-3 refusals -------------------------------------------------------------------------

def test_C_FP_3_no_points_left(fights: Fights) -> None:
    """C-FP-3."""
    duel(fights, ann={"fudge_points": 1})
    fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("----"))
    spend(fights, "Ann", "skill", shift=1)
    assert points(fights, "Ann") == 0
    for command in (cmd.SpendPoint(combatant="Ann", use="skill", shift=1), cmd.SpendPoint(combatant="Ann", use="luck"),
                    cmd.SpendPoint(combatant="Ann", use="panache")):
        refused(fights, command, "no fudge points left")


def test_C_FP_3_no_points_for_a_blow(fights: Fights) -> None:
    """C-FP-3."""
    duel(fights, bob={"fudge_points": 0})
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    refused(fights, cmd.SpendPoint(combatant="Bob", use="scratch"), r"0 fudge points; this costs 1")


def test_C_FP_3_a_roll_that_does_not_exist(fights: Fights) -> None:
    """C-FP-3."""
    duel(fights)
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck"), "no roll")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="scratch"), "no blow taken")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck", target=999), "not a roll or blow in force")


def test_C_FP_3_a_roll_that_was_undone(fights: Fights) -> None:
    """C-FP-3."""
    duel(fights)
    rolled = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("----"))
    fights.execute("fight", cmd.Undo())
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck", target=seqs(rolled, ev.DiceRolled)[0]),
            "not a roll or blow in force")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck"), "no roll")


def test_C_FP_3_a_roll_superseded_by_luck_cannot_be_spent_on_again(fights: Fights) -> None:
    """C-FP-3."""
    duel(fights)
    rolled = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("----"))
    spend(fights, "Ann", "luck", dice("0000"))
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck", target=seqs(rolled, ev.DiceRolled)[0]),
            "not a roll or blow in force")


def test_C_FP_3_someone_elses_roll_or_blow(fights: Fights) -> None:
    """C-FP-3."""
    duel(fights)
    blow = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    bob_roll = seqs(blow, ev.DiceRolled)[1]
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck", target=bob_roll), "not one of Ann's rolls")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="scratch", target=seqs(blow, ev.WoundMarked)[0]),
            "not a blow Ann took")


def test_C_FP_2_undoing_a_spend_restores_the_old_outcome_and_the_point(fights: Fights) -> None:
    """C-FP-2."""
    duel(fights)
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=-000"))
    before = fights.state("fight")
    spend(fights, "Bob", "luck", dice("bob=+++0"))
    assert fights.state("fight").combatants["ann"].track.level == HURT
    after_undo = fights.execute("fight", cmd.Undo()).state
    assert after_undo.combatants == before.combatants
    assert after_undo.combatants["bob"].fudge_points == 3


def _after_all_out_defense(fights: Fights) -> None:
    """Bob wins an all-out defense: he may seek an advantage over Ann (F-MOD-7)."""
    duel(fights, bob={"fudge_points": 2})
    fights.execute("fight", cmd.Declare(combatant="Bob", declaration=ev.Declaration(all_out="defense")))
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))


def test_C_FP_2_F_MOD_7_luck_that_wins_the_advantage_roll_wins_the_advantage(fights: Fights) -> None:
    """C-FP-2 luck, F-MOD-7: the re-resolved roll grants the advantage the first roll missed."""
    _after_all_out_defense(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception", difficulty=1, advantage=True),
                   dice("bob=----"))
    assert "ann" not in fights.state("fight").advantages
    spent = spend(fights, "Bob", "luck", dice("bob=++++"))
    assert [e.over for e in of(spent, ev.AdvantageGained)] == ["Ann"]
    assert fights.state("fight").advantages["ann"][1] == -1
    assert replay(fights.log("fight")).advantages == fights.state("fight").advantages


def test_C_FP_2_F_MOD_7_a_spend_that_fails_the_advantage_roll_withdraws_the_advantage(fights: Fights) -> None:
    """C-FP-2 skill -1, F-MOD-7: the advantage won by the old result is voided with it."""
    _after_all_out_defense(fights)
    first = fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception", difficulty=0, advantage=True),
                           dice("bob=0000"))
    assert of(first, ev.AdvantageGained) and "ann" in fights.state("fight").advantages
    spent = spend(fights, "Bob", "skill", shift=-1)
    assert of(spent, ev.AdvantageGained) == []
    assert set(seqs(first, ev.AdvantageGained)) <= set(of(spent, ev.EventsVoided)[0].seqs)
    assert "ann" not in fights.state("fight").advantages


def test_C_FP_2_F_MOD_7_success_rerolled_to_success_keeps_one_advantage(fights: Fights) -> None:
    """C-FP-2 luck, F-MOD-7: a success rerolled into a success keeps the same advantage, once."""
    _after_all_out_defense(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception", difficulty=0, advantage=True),
                   dice("bob=0000"))
    spent = spend(fights, "Bob", "luck", dice("bob=+000"))
    assert [(e.over, e.round) for e in of(spent, ev.AdvantageGained)] == [("Ann", fights.state("fight").round + 1)]


# --- C-FP-2 stacked spends on one action ----------------------------------------------------

def bob_level(fights: Fights) -> int:
    return fights.state("fight").combatants["bob"].track.level


def test_C_FP_2_scratch_then_skill_keeps_the_blow_halved(fights: Fights) -> None:
    """C-FP-2: Only a Scratch halves the blow; Bob's later skill point re-settles the same blow, which
    stays halved: skill then scratch and scratch then skill end alike, never worse than the scratch alone."""
    duel(fights, ann={"weapon": 5})
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=++00", "bob=0000"))
    assert bob_level(fights) == INCAPACITATED  # RD +3, factor +5: 8 points
    spend(fights, "Bob", "scratch")
    assert bob_level(fights) == HURT
    outcome = spend(fights, "Bob", "skill", shift=1)  # RD +2: 7 points, Incapacitated, halved to Hurt
    mark = of(outcome, ev.WoundMarked)[0]
    assert (mark.level, mark.halved_from) == (HURT, INCAPACITATED)
    assert bob_level(fights) == HURT and points(fights, "Bob") == 1
    other = make_fights()
    duel(other, ann={"weapon": 5})
    other.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=++00", "bob=0000"))
    spend(other, "Bob", "skill", shift=1)
    spend(other, "Bob", "scratch")
    assert other.state("fight").combatants["bob"] == fights.state("fight").combatants["bob"]
    assert replay(fights.log("fight")).combatants == fights.state("fight").combatants
    assert verify(fights.store.read("fight")).ok


def test_C_FP_2_still_ticking_then_skill_keeps_him_alive(fights: Fights) -> None:
    """C-FP-2, F-DEATH-3: a deadly blow spared by Still Ticking stays spared when a later point re-settles it."""
    deadly(fights, bob_points=4)
    spend(fights, "Bob", "ticking")
    bob = fights.state("fight").combatants["bob"]
    assert not bob.track.dead and bob.track.level == NEAR_DEATH
    outcome = spend(fights, "Ann", "skill", shift=-1)  # still a deadly blow: the point Bob paid still holds
    assert [m.still_ticking for m in of(outcome, ev.WoundMarked)] == [True]
    assert not fights.state("fight").combatants["bob"].track.dead


def test_C_FP_2_only_a_scratch_halves_a_blow_once(fights: Fights) -> None:
    """C-FP-2: one blow is halved once (a second Only a Scratch on it is refused, no point lost)."""
    duel(fights, ann={"weapon": 10})
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+000", "bob=0000"))
    spend(fights, "Bob", "scratch")
    refused(fights, cmd.SpendPoint(combatant="Bob", use="scratch"), "already halved")
    assert points(fights, "Bob") == 2


def test_C_FP_2_panache_is_not_undone_by_a_later_point(fights: Fights) -> None:
    """C-FP-2: after panache the action has succeeded; a later skill or luck point on it is refused
    (before, it re-read the roll and the success was lost)."""
    duel(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=3), dice("- - - -"))
    spend(fights, "Ann", "panache")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="skill", shift=1), "panache already")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck"), "panache already", dice("----"))
    assert points(fights, "Ann") == 2


def test_C_FP_2_F_RNG_3_a_halved_shot_stays_halved_after_a_skill_point(fights: Fights) -> None:
    """C-FP-2 on a shot (F-RNG-3): scratch, then skill on the dodge, keeps the shot's wound halved."""
    start(fights)
    rifle = {"name": "rifle", "damage": 6, "muscle_powered": False}
    fights.execute("fight", cmd.Join(sheet={**sheet("Slim", skills={"Guns": "Good"}, attack="Guns"), "weapon": rifle},
                                     source="slim.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Hombre", skills={"Guns": "Good"}, attack="Guns", fudge_points=3),
                                     source="hombre.toml"))
    fights.execute("fight", cmd.Shoot(shooter="Slim", target="Hombre", aware=True), dice("slim=++00", "hombre=--00"))
    spend(fights, "Hombre", "scratch")
    halved = fights.state("fight").combatants["hombre"].track.level
    outcome = spend(fights, "Hombre", "skill", shift=1)
    mark = of(outcome, ev.WoundMarked)[0]
    assert mark.halved_from is not None and mark.level == halve(mark.halved_from)
    assert fights.state("fight").combatants["hombre"].track.level <= halved
    assert verify(fights.store.read("fight")).ok


def test_C_FP_2_F_MULTI_2_in_a_melee_only_the_halved_blow_stays_halved(fights: Fights) -> None:
    """C-FP-2 in a melee (F-MULTI-2): Tucker halves Annie's blow; his skill point re-decides the melee:
    Annie's blow is halved again, Molly's is not."""
    start(fights, npc_group_roll=True)
    fights.execute("fight", cmd.Join(sheet=sheet("Tucker", skills={"Sword": "Fair"}, attack="Sword", weapon=2,
                                                 side="heroes", fudge_points=3), source="tucker.toml"))
    for pirate, skill in (("Molly", "Good"), ("Annie", "Great")):
        fights.execute("fight", cmd.Join(sheet=sheet(pirate, kind="npc", skills={"Sword": skill}, attack="Sword",
                                                     weapon=5, side="pirates"), source="pirate.toml"))
    fights.execute("fight", cmd.Melee(lone="Tucker", foes=("Molly", "Annie")), dice("tucker=-000", "GM=+0"))
    spend(fights, "Tucker", "scratch")  # his latest wound: Annie's blow
    outcome = spend(fights, "Tucker", "skill", shift=1)
    hits = of(outcome, ev.MeleeResolved)[0].hits
    marks = of(outcome, ev.WoundMarked)
    assert [h.attacker for h in hits] == ["Molly", "Annie"]
    assert [(m.level, m.halved_from) for m in marks] == [
        (hits[0].level, None), (halve(hits[1].level), hits[1].level)]
    assert verify(fights.store.read("fight")).ok


FACES = st.lists(st.integers(-1, 1), min_size=4, max_size=4).map(lambda f: " ".join("-0+"[x + 1] for x in f))
SPENDS = st.lists(st.sampled_from(["skill", "skill", "scratch", "ticking"]), min_size=1, max_size=4)


def spent_in_order(weapon: int, prior: int, ann: str, bob: str, uses: list[str]) -> tuple[Fights, list[int], int]:
    """Bob takes Ann's blow (after a GM wound of level `prior`), then spends `uses` in order on it
    (skill on his roll, scratch and ticking on the blow's wound while it wounds him).
    Returns the fight, Bob's track level after the blow and after each accepted spend, and how many were refused."""
    fights = make_fights()
    duel(fights, ann={"weapon": weapon}, bob={"fudge_points": 8})
    if prior:
        fights.execute("fight", cmd.GmWound(combatant="Bob", level=prior))
    if prior >= INCAPACITATED:  # Bob cannot defend (F-MEL-3): Ann's blow alone, and it may kill
        fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice(f"ann={ann}"))
    else:
        fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice(f"ann={ann}", f"bob={bob}"))
    action = max(fights.state("fight").actions)
    levels, refusals = [bob_level(fights)], 0
    for use in uses:
        state = fights.state("fight")
        blow = [seq for seq in state.actions[action].consequences if isinstance(state.events.get(seq), ev.WoundMarked)]
        try:
            if use == "skill":
                spend(fights, "Bob", use, shift=1)
            elif not blow:  # the blow no longer wounds him: nothing to halve or spare
                raise RuleError("no wound")
            else:
                spend(fights, "Bob", use, target=blow[0])
        except RuleError:
            refusals += 1
            continue
        levels.append(bob_level(fights))
    return fights, levels, refusals


@fuzz(60)
@given(weapon=st.integers(0, 10), prior=st.sampled_from([0, 0, HURT, VERY_HURT, NEAR_DEATH]), ann=FACES, bob=FACES,
       uses=SPENDS, order=st.randoms(use_true_random=False))
def test_C_FP_2_fuzz_no_order_of_spends_on_one_blow_leaves_the_spender_worse_off(
        weapon: int, prior: int, ann: str, bob: str, uses: list[str], order: Any) -> None:
    """C-FP-2 stacked spends: Bob's own points on one blow (skill +1 on his roll, Only a Scratch, Still
    Ticking), in any order: each accepted spend leaves him no worse off than before it (his track level never
    rises, he never dies of it), and two orders of the same spends, all accepted, end in the same state."""
    first, levels, refused_first = spent_in_order(weapon, prior, ann, bob, uses)
    assert all(after <= before for before, after in zip(levels, levels[1:])), levels
    other = list(uses)
    order.shuffle(other)
    second, _, refused_second = spent_in_order(weapon, prior, ann, bob, other)
    if refused_first == refused_second == 0:
        assert standing(first) == standing(second), (uses, other)


def standing(fights: Fights) -> dict[str, Any]:
    """What the rules say of each fighter: the boxes marked (by original level), death and points left."""
    return {key: (c.track.boxes, c.track.dead, c.fudge_points) for key, c in fights.state("fight").combatants.items()}
