"""The Atari Isev ruleset (seed 000, RULES.md section AI), driven with entered dice.

Sheets are the seed's characters in examples/sheets: Max (Knife/Unarmed Good,
Dodge Fair, Strength Good, dagger +1, Fair Health), the Cutthroat (Knife Good,
Dodge Fair, knife +1, heavy clothing 1), Risonda (Sword Superb, Sword Parry
Great, Will Great), the Duellist, Dwarzuga (Duerager, Scale 1) and an infant
Sylthaen (Scale -1).
"""

from __future__ import annotations

import msgspec
import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.rulesets.fudge.campaign import HEALTH_CHARTS, health_chart, spell_reduction
from fudge_combat.engine.rulesets.fudge.ranked import derived_initiative
from fudge_combat.engine.audit import verify
from fudge_combat.engine.rulesets.fudge.settle import min_hit_for
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import replace
from fudge_combat.engine.rulesets.fudge.sides import acting_wound
from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, SCRATCH, UNDAMAGED, VERY_HURT, level_for_damage
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.atari_helpers import (atari, attack, declare, events, join, next_, refused, resolved, round_)
from tests.conftest import dice


def levels_of(fights: Fights) -> dict[str, tuple[int, int]]:
    state = fights.state("fight")
    return {c.name: (c.track.level, c.track.penalty(state.options)) for c in state.combatants.values()}


def test_AI_LAD_AI_FP_preset_sets_the_campaign_options_in_one_place() -> None:
    """AI-LAD, AI-FP: the preset: fudge7 ladder, the nine attributes, 2 fudge points, ranked initiative."""
    _, options = resolve("atari-isev")
    assert (options.ruleset, options.ladder, options.pace, options.initiative) == (
        "atari-isev", "fudge7", "alternating", "ranked")
    assert options.default_fudge_points == 2 and options.wound_chart == "health"
    assert options.attributes == ("Health", "Strength", "Agility", "Dexterity", "Perception", "Will",
                                  "Intuition", "Empathy", "Reasoning")


def test_AI_FP_sheets_without_points_start_with_two(fights: Fights) -> None:
    """AI-FP, C-FP-1: fudge points start at 2 for a character, 0 for an NPC unless the sheet says otherwise."""
    atari(fights, "max", "cutthroat")
    assert {c.name: c.fudge_points for c in fights.state("fight").combatants.values()} == {"Max": 2, "Cutthroat": 0}
    join(fights, "duellist")  # an NPC whose sheet gives one point
    assert fights.state("fight").combatants["duellist"].fudge_points == 1


def test_AI_INIT_1_max_derives_initiative_minus_one(fights: Fights) -> None:
    """AI-INIT-1: Perception +1, Agility 0, Intuition -3 -> -0.67 -> -1; a sheet's Initiative overrides it."""
    atari(fights, "max")
    state = fights.state("fight")
    assert derived_initiative(state.combatants["max"].fighter, state.options) == ("Initiative", -1)
    join(fights, "cutthroat", skills={"Knife": "Good", "Dodge": "Fair", "Initiative": "Great"})
    state = fights.state("fight")
    assert derived_initiative(state.combatants["cutthroat"].fighter, state.options) == ("Initiative (sheet)", 2)


def test_AI_INIT_2_everyone_rolls_4dF_plus_trait_highest_acts_first(fights: Fights) -> None:
    """AI-INIT-2: 4dF + trait every round; the highest total acts first."""
    atari(fights, "max", "cutthroat")
    outcome = round_(fights, "max=+ + + 0", "cutthroat=0 0 0 +")
    ranked = {e.combatant: e.total for e in events(outcome, ev.InitiativeRanked)}
    assert ranked == {"Max": 2, "Cutthroat": 1}  # -1 + 3, 0 + 1
    assert [next_(fights).combatant, next_(fights).combatant] == ["Max", "Cutthroat"]
    refused(fights, cmd.NextTurn(), match="round 1 is over")
    again = round_(fights, "max=0 0 0 0", "cutthroat=0 0 0 0")  # rolled again each round
    assert {e.combatant: e.total for e in events(again, ev.InitiativeRanked)} == {"Max": -1, "Cutthroat": 0}
    assert next_(fights).combatant == "Cutthroat"


def test_AI_INIT_2_out_of_turn_attack_is_refused(fights: Fights) -> None:
    """AI-INIT-2: attacks go in initiative order."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + + 0", "cutthroat=0 0 0 +")
    refused(fights, cmd.Attack(attacker="Max", target="Cutthroat"), match="no one's turn yet")
    next_(fights)
    refused(fights, cmd.Attack(attacker="Cutthroat", target="Max"), match="it is Max's turn")


def test_AI_INIT_2_equal_totals_act_simultaneously(fights: Fights) -> None:
    """AI-INIT-2: equal totals act simultaneously: a wound dealt in the slot does not yet weigh on the other.

    In round 2 of the knife fight both total 0. Max's throw makes the Cutthroat
    Very Hurt, yet his stab in the same slot carries only his earlier Hurt (-1).
    """
    max_knife_fight(fights)
    turns = [r.event for r in fights.log("fight") if isinstance(r.event, ev.TurnTaken)]
    assert [(t.combatant, t.initiative, t.tied_with) for t in turns[2:]] == [
        ("Max", 0, ("Cutthroat",)), ("Cutthroat", 0, ("Max",))]
    stab = [r.event for r in fights.log("fight") if isinstance(r.event, ev.ExchangeResolved)][-1]
    assert [(m.name, m.value) for m in stab.sides[0].modifiers] == [("wound: Hurt", -1)]
    assert levels_of(fights)["Cutthroat"] == (VERY_HURT, -2)


def test_AI_INIT_2_a_fighter_taken_out_in_his_slot_still_strikes(fights: Fights) -> None:
    """AI-INIT-2: simultaneous: Incapacitated by a blow at the same total, he still acts in that slot."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ 0 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    # Knife Good +4 = Legendary vs dodge Terrible: RD 7, 2 + 7 - 1 + 4 luck = 12 -> Near Death
    attack(fights, "Max", "Cutthroat", "max=+ + + +", "cutthroat=- - - 0", "max=+ + + +")
    assert levels_of(fights)["Cutthroat"][0] >= INCAPACITATED
    assert next_(fights).combatant == "Cutthroat"
    attack(fights, "Cutthroat", "Max", "cutthroat=0 0 0 0", "max=0 0 0 0")
    round_(fights, "max=0 0 0 0")  # next round: he no longer rolls
    assert next_(fights).combatant == "Max"
    refused(fights, cmd.NextTurn(), match="is over")


def test_AI_ATK_2_max_unarmed_good_beats_a_poor_dodge(fights: Fights) -> None:
    """AI-ATK-2: Max's Unarmed Good (roll 0) against a dodge that ended Poor: a solid blow."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    blow = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=- - 0 0", "max=0 0 0 0",
                           weapon="unarmed"))
    assert [(s.trait, s.result) for s in blow.sides] == [("Unarmed", 1), ("Dodge", -2)]
    hit = blow.hits[0]
    # Strength 1 + fists 0 - heavy clothing 1 = 0; RD 3; luck 0 -> 3 -> Hurt
    assert (hit.relative_degree, hit.damage_factor, hit.damage, hit.level) == (3, 0, 3, HURT)


def test_AI_ATK_1_AI_ATK_2_risonda_parries_an_equal_result(fights: Fights) -> None:
    """AI-ATK-1, AI-ATK-2: Risonda's Sword Parry Great rolls -1 = Good, matching a Good attack: avoided."""
    atari(fights, "risonda", "duellist")
    round_(fights, "risonda=- - - -", "duellist=+ + 0 0")
    assert next_(fights).combatant == "Duellist"
    blow = resolved(attack(fights, "Duellist", "Risonda", "duellist=0 0 0 0", "risonda=- 0 0 0"))
    assert [(s.trait, s.result) for s in blow.sides] == [("Rapier", 1), ("Sword Parry", 1)]
    assert blow.hits == () and blow.avoidance == "parry" and "avoids" in blow.outcome


def test_AI_ATK_1_AI_ATK_3_one_free_avoidance_then_compared_with_poor(fights: Fights) -> None:
    """AI-ATK-1, AI-ATK-3: the second blow finds no avoidance: a second one is refused; --avoid none uses Poor."""
    atari(fights, "max", "cutthroat")
    join(fights, "duellist")
    round_(fights, "max=+ + + +", "cutthroat=0 0 0 0", "duellist=0 0 0 -")
    next_(fights)
    attack(fights, "Max", "Duellist", "max=0 0 0 0", "duellist=+ + 0 0")  # the duellist parries
    next_(fights)
    refused(fights, cmd.Attack(attacker="Cutthroat", target="Duellist", avoid="parry"),
            dice("cutthroat=0 0 0 0", "duellist=0 0 0 0"), match="no avoidance left")
    blow = resolved(attack(fights, "Cutthroat", "Duellist", "cutthroat=- - - 0", "cutthroat=0 0 0 0"))
    assert blow.avoidance == "used" and blow.sides[1].trait == "no avoidance" and blow.sides[1].result == -2
    hit = blow.hits[0]  # Knife Good -3 = Poor: reaches Poor, RD 0
    assert (blow.sides[0].result, hit.relative_degree) == (-2, 0)
    assert hit.damage == 1 and hit.level == SCRATCH  # Strength 0 + knife 1 + RD 0 + luck 0, no armor


def test_AI_DMG_1_AI_DMG_2_max_dagger_great_vs_fair(fights: Fights) -> None:
    """AI-DMG-1, AI-DMG-2: basic 2 (Str +1, dagger +1); Great vs Fair RD 2 -> 4; luck +1 -> 5; clothing 1 -> 4: Hurt."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    outcome = attack(fights, "Max", "Cutthroat", "max=+ 0 0 0", "cutthroat=0 0 0 0", "max=+ 0 0 0")
    hit = resolved(outcome).hits[0]
    assert (hit.relative_degree, hit.damage_factor, hit.calculated, hit.damage_roll, hit.damage) == (2, 1, 3, 1, 4)
    assert hit.level == HURT and events(outcome, ev.WoundMarked)[0].level == HURT
    assert levels_of(fights)["Cutthroat"] == (HURT, -1)


def test_AI_DMG_1_damage_at_or_below_zero_is_no_wound(fights: Fights) -> None:
    """AI-DMG-1: a total of 0 or less leaves no wound."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    outcome = attack(fights, "Max", "Cutthroat", "max=0 0 0 +", "cutthroat=0 0 0 0", "max=- - - 0",
                     weapon="unarmed")
    hit = resolved(outcome).hits[0]  # 0 factor + RD 2 - 3 luck -> 0
    assert (hit.damage, hit.level) == (0, UNDAMAGED) and events(outcome, ev.WoundMarked) == []


@pytest.mark.parametrize("health,boxes,damage_levels", [
    (-3, (1, 1, 1, 1, 1), {1: SCRATCH, 2: HURT, 4: VERY_HURT, 5: INCAPACITATED, 7: 5}),
    (-2, (2, 1, 1, 1, 1), {1: SCRATCH, 3: HURT, 4: VERY_HURT, 7: INCAPACITATED, 8: 5}),
    (-1, (2, 1, 1, 1, 1), {2: SCRATCH, 4: HURT, 6: VERY_HURT, 8: INCAPACITATED, 9: 5}),
    (0, (3, 1, 1, 1, 1), {2: SCRATCH, 3: HURT, 5: VERY_HURT, 7: INCAPACITATED, 9: 5}),
    (1, (4, 1, 1, 1, 1), {2: SCRATCH, 4: HURT}),
    (2, (4, 2, 1, 1, 1), {2: SCRATCH, 4: HURT}),
    (3, (4, 2, 1, 1, 1), {3: SCRATCH, 4: HURT, 6: HURT, 7: VERY_HURT, 9: INCAPACITATED, 10: INCAPACITATED, 11: 5}),
    (4, (5, 3, 2, 1, 1), {2: SCRATCH, 3: HURT, 9: 5}),
])
def test_AI_WND_1_health_sets_the_wound_chart(fights: Fights, health: int, boxes: tuple[int, ...],
                                              damage_levels: dict[int, int]) -> None:
    """AI-WND-1: thresholds and boxes by Health; a joined sheet gets its Health's boxes."""
    chart = health_chart(health)
    assert chart.boxes == boxes
    for damage, level in damage_levels.items():
        assert level_for_damage(damage, chart.thresholds) == level
    atari(fights)
    fights.execute("fight", cmd.Join(sheet={"name": "H", "attributes": {"Health": health}}, source="h"))
    assert fights.state("fight").combatants["h"].boxes == boxes
    assert len(HEALTH_CHARTS) == 8


def max_knife_fight(fights: Fights) -> None:
    """Seed 000's tavern knife fight: Max, unarmed, against the Cutthroat's knife (AI-ATK-2, AI-WND-2)."""
    atari(fights, "max", "cutthroat")
    for step in KNIFE_FIGHT:
        fights.execute("fight", step[1], dice(*step[2]))


from fudge_combat.examples.demo_atari import KNIFE_FIGHT  # noqa: E402


def test_AI_WND_2_max_hurt_then_very_hurt_in_the_knife_fight(fights: Fights) -> None:
    """AI-WND-2: a slash for 4 -> Hurt (-1); a stab for 3 -> Hurt box full -> Very Hurt (-2)."""
    max_knife_fight(fights)
    state = fights.state("fight")
    marks = [(r.event.combatant, r.event.damage, r.event.level) for r in fights.log("fight")
             if isinstance(r.event, ev.WoundMarked) and r.event.combatant == "Max"]
    assert marks == [("Max", 4, HURT), ("Max", 3, HURT)]
    max_ = state.combatants["max"]
    assert max_.track.boxes[1] == (HURT,) and max_.track.boxes[2] == (HURT,)
    assert levels_of(fights)["Max"] == (VERY_HURT, -2)


def test_AI_WND_2_scratches_never_push_past_very_hurt(fights: Fights) -> None:
    """AI-WND-2: accumulated Scratches overflow but stop at Very Hurt."""
    atari(fights, "max")
    fights.execute("fight", cmd.Join(sheet={"name": "Frail", "attributes": {"Health": "Terrible"}}, source="f"))
    state = fights.state("fight")
    from fudge_combat.engine.kernel.wounds import Mark, build_track
    frail = state.combatants["frail"]
    track = build_track(frail.boxes, [Mark(SCRATCH, i) for i in range(6)], state.options)
    assert track.level == VERY_HURT and not track.dead


def test_AI_POST_postures_shift_attack_and_defence(fights: Fights) -> None:
    """AI-POST: all-out offence +2 attack / -2 defence; defensive -1 / +1."""
    atari(fights, "max", "cutthroat")
    declare(fights, "Max", posture=2)
    declare(fights, "Cutthroat", posture=-1)
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    blow = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=0 0 0 0", "max=0 0 0 0"))
    assert [(m.name, m.value) for m in blow.sides[0].modifiers] == [("posture: all-out offence", 2)]
    assert [(m.name, m.value) for m in blow.sides[1].modifiers] == [("posture: defensive", 1)]
    assert (blow.sides[0].result, blow.sides[1].result) == (3, 1)
    next_(fights)
    back = resolved(attack(fights, "Cutthroat", "Max", "cutthroat=0 0 0 0", "max=0 0 0 0", "cutthroat=0 0 0 0"))
    assert [(m.name, m.value) for m in back.sides[0].modifiers][-1] == ("posture: defensive", -1)
    assert ("posture: all-out offence", -2) in [(m.name, m.value) for m in back.sides[1].modifiers]


def test_AI_WAIT_AI_POST_two_declarations_before_the_round_add_up(fights: Fights) -> None:
    """AI-WAIT, AI-POST: Max hurries (+2) and then, in a second declaration, takes posture +1: both hold for
    the round (the second does not silently drop the first); choosing the same thing again replaces it."""
    atari(fights, "max", "cutthroat")
    declare(fights, "Max", wait=2)
    done = events(declare(fights, "Max", posture=1), ev.Declared)[0]
    assert (done.declaration.wait, done.declaration.posture) == (2, 1)
    again = events(declare(fights, "Max", wait=1), ev.Declared)[0]
    assert (again.declaration.wait, again.declaration.posture) == (1, 1)
    outcome = round_(fights, "max=0 0 0 0", "cutthroat=0 0 0 0")
    assert {e.combatant: e.total for e in events(outcome, ev.InitiativeRanked)}["Max"] == 0  # Mediocre -1, +1
    assert verify(fights.store.read("fight")).ok


def test_AI_WAIT_waiting_and_hurrying_trade_skill_for_initiative(fights: Fights) -> None:
    """AI-WAIT: +2 initiative -> attack -1, avoid -2; -2 -> attack +1, avoid +1; declared before the roll."""
    atari(fights, "max", "cutthroat")
    declare(fights, "Max", wait=2)
    declare(fights, "Cutthroat", wait=-2)
    outcome = round_(fights, "max=0 0 0 0", "cutthroat=0 0 0 0")
    assert {e.combatant: e.total for e in events(outcome, ev.InitiativeRanked)} == {"Max": 1, "Cutthroat": -2}
    next_(fights)
    blow = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=0 0 0 0"))
    assert [(m.name, m.value) for m in blow.sides[0].modifiers] == [("hurrying", -1)]
    assert [(m.name, m.value) for m in blow.sides[1].modifiers] == [("waiting", 1)]
    next_(fights)
    back = resolved(attack(fights, "Cutthroat", "Max", "cutthroat=0 0 0 0", "max=0 0 0 0"))
    assert [(m.name, m.value) for m in back.sides[0].modifiers] == [("waiting", 1)]
    assert [(m.name, m.value) for m in back.sides[1].modifiers] == [("hurrying", -2)]
    refused(fights, cmd.Declare(combatant="Max", declaration=ev.Declaration(wait=3)), match="-2..\\+2")


def test_AI_GRAZE_rd_one_does_at_most_four_points(fights: Fights) -> None:
    """AI-GRAZE: RD +1 caps the damage at 4 (Hurt) whatever the luck."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    hit = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=0 0 0 0", "max=+ + + +")).hits[0]
    assert (hit.relative_degree, hit.graze, hit.calculated + hit.damage_roll, hit.damage, hit.level) == (
        1, True, 6, 4, HURT)


def test_AI_SCALE_duerager_vs_infant_sylthaen(fights: Fights) -> None:
    """AI-SCALE, F-HIT-1: Scale 1 vs -1: +2 damage dealt and -2 taken; needs Fair; the Sylthaen hits on Terrible."""
    atari(fights, "dwarzuga", "sylthaen")
    state = fights.state("fight")
    dwarzuga, sylthaen = state.combatants["dwarzuga"], state.combatants["sylthaen"]
    assert min_hit_for(state, dwarzuga, sylthaen, None) == 0
    assert min_hit_for(state, sylthaen, dwarzuga, None) == -4  # Poor - 2: a Terrible blow hits
    round_(fights, "dwarzuga=+ + + 0", "sylthaen=0 0 0 0")
    next_(fights)
    # Axe Good -1 = Fair vs a dodge Good -2 = Mediocre: hits; Str 1 + axe 2 + Scale 1 - (0 + Scale -1) = 5
    blow = resolved(attack(fights, "Dwarzuga", "Sylthaen", "dwarzuga=- 0 0 0", "sylthaen=- - 0 0", "dwarzuga=0 0 0 0"))
    assert blow.min_hit == (0, 0) and blow.hits[0].damage_factor == 5
    next_(fights)
    # Claws Fair -1 Hurt -2 = Terrible still hits the Duerager; Str 0 + 0 - 1 - (0 + 1) = -2
    back = resolved(attack(fights, "Sylthaen", "Dwarzuga", "sylthaen=- - 0 0", "sylthaen=+ + + +", avoid="none"))
    assert back.sides[0].result == -3 and back.min_hit == (-4, -4)
    hit = back.hits[0]
    assert (hit.damage_factor, hit.relative_degree, hit.damage, hit.level) == (-2, -1, 1, SCRATCH)


def test_AI_SCALE_a_duerager_mediocre_blow_misses_an_undefended_sylthaen(fights: Fights) -> None:
    """AI-SCALE: below Fair the Duerager does not hit even an undefended Sylthaen."""
    atari(fights, "dwarzuga", "sylthaen")
    round_(fights, "dwarzuga=+ + + 0", "sylthaen=0 0 0 0")
    next_(fights)
    blow = resolved(attack(fights, "Dwarzuga", "Sylthaen", "dwarzuga=- - 0 0", avoid="none"))
    assert blow.sides[0].result == -1 and blow.hits == ()


def test_AI_HEROIC_and_AI_WILL_1_risonda_shrugs_off_a_very_hurt(fights: Fights) -> None:
    """AI-WILL-1: Risonda, Very Hurt, Will Great rolls 0 = Great: two levels lighter, no penalty; marks stay."""
    atari(fights, "risonda", "duellist")
    round_(fights, "risonda=- - - -", "duellist=+ + 0 0")
    next_(fights)
    attack(fights, "Duellist", "Risonda", "duellist=+ + + 0", "risonda=- - 0 0", "duellist=0 0 0 0")
    state = fights.state("fight")
    assert state.combatants["risonda"].track.level == VERY_HURT  # rapier 2 + RD 4 = 6 -> Very Hurt
    outcome = fights.execute("fight", cmd.Willpower(combatant="Risonda"), dice("risonda=0 0 0 0"))
    assert events(outcome, ev.WillSteeled)[0].levels == 2
    state = fights.state("fight")
    assert state.combatants["risonda"].track.level == VERY_HURT
    next_(fights)
    blow = resolved(attack(fights, "Risonda", "Duellist", "risonda=0 0 0 0", "duellist=0 0 0 0", "risonda=0 0 0 0"))
    assert [(m.name, m.value) for m in blow.sides[0].modifiers] == []  # acts as a Scratch: no -2
    climb = events(fights.execute("fight", cmd.RollTrait(combatant="Risonda", trait="Agility"),
                                  dice("risonda=0 0 0 0")), ev.ActionResolved)[0]
    assert climb.modifiers == () and climb.success  # no -2 on any action


def test_AI_WILL_1_the_relief_weighs_where_the_ruleset_says_its_wounds_do(fights: Fights) -> None:
    """AI-WILL-1 is Atari Isev's reading of wounds (its Reading's `campaign_wounds`), asked by Fudge's shared
    code: the same state read as a Fudge fight's weighs Risonda's marks by his track's own penalty
    (F-MOD-1), willpower or not; as Atari Isev's, two levels lighter."""
    atari(fights, "risonda", "duellist")
    round_(fights, "risonda=- - - -", "duellist=+ + 0 0")
    next_(fights)
    attack(fights, "Duellist", "Risonda", "duellist=+ + + 0", "risonda=- - 0 0", "duellist=0 0 0 0")
    fights.execute("fight", cmd.Willpower(combatant="Risonda"), dice("risonda=0 0 0 0"))
    state = fights.state("fight")
    risonda = state.combatants["risonda"]
    assert ruleset_of(state).campaign_wounds and state.will_relief == {"risonda": 2}
    assert acting_wound(state, risonda) == (SCRATCH, 0)
    as_fudge = replace(state, options=msgspec.structs.replace(state.options, **{"ruleset": "fudge"}))
    assert not ruleset_of(as_fudge).campaign_wounds
    assert acting_wound(as_fudge, risonda) == (VERY_HURT, risonda.track.penalty(as_fudge.options)) != (VERY_HURT, 0)


def test_AI_WILL_1_not_at_near_death(fights: Fights) -> None:
    """AI-WILL-1: a Near Death character cannot steel his will; nothing is written."""
    atari(fights, "risonda", "duellist")
    round_(fights, "risonda=- - - -", "duellist=+ + 0 0")
    next_(fights)
    attack(fights, "Duellist", "Risonda", "duellist=+ + + +", "risonda=- - - -", "duellist=+ + + +")
    assert fights.state("fight").combatants["risonda"].track.level >= 5
    refused(fights, cmd.Willpower(combatant="Risonda"), dice("risonda=0 0 0 0"), match="no willpower roll")


def test_AI_WILL_2_spell_resistance_records_the_reduction(fights: Fights) -> None:
    """AI-WILL-2: caster >= target: full effect; else reduced by the difference (the target's margin)."""
    atari(fights, "risonda", "max")
    outcome = fights.execute("fight", cmd.ResistSpell(caster="Max", target="Risonda"),
                             dice("max=+ 0 0 0", "risonda=0 0 0 0"))
    done = events(outcome, ev.ActionResolved)[0]
    assert (done.combatant, done.result, done.opponent_result) == ("Risonda", 2, 1)
    assert (done.success, done.margin, spell_reduction(1, 2)) == (True, 1, 1)  # reduced by 1
    full = events(fights.execute("fight", cmd.ResistSpell(caster="Max", target="Risonda"),
                                 dice("max=+ + 0 0", "risonda=0 0 0 0")), ev.ActionResolved)[0]
    assert (full.success, full.margin, spell_reduction(2, 2)) == (False, 0, 0)  # a tie: full effect


def test_AI_HEROIC_rolling_with_the_blow(fights: Fights) -> None:
    """AI-HEROIC: the wound drops one class; Agility vs Fair: success -> -2 on all actions next round."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    next_(fights)
    attack(fights, "Cutthroat", "Max", "cutthroat=+ + + 0", "max=- 0 0 0", "cutthroat=0 0 0 0")
    assert levels_of(fights)["Max"][0] == VERY_HURT  # 1 + RD 5 = 6
    outcome = fights.execute("fight", cmd.HeroicAvoidance(combatant="Max"), dice("max=+ 0 0 0"))
    assert levels_of(fights)["Max"][0] == HURT
    agility = events(outcome, ev.ActionResolved)[0]
    assert [(m.name, m.value) for m in agility.modifiers] == [("wound: Hurt", -1)] and agility.result == 0
    assert events(outcome, ev.AdvantageGained)[0].modifier == -2
    refused(fights, cmd.HeroicAvoidance(combatant="Max"), dice("max=0 0 0 0"), match="already rolled with")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    blow = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=0 0 0 0"))
    assert ("unbalanced (heroic avoidance)", -2) in [(m.name, m.value) for m in blow.sides[0].modifiers]


def test_AI_HEROIC_failed_agility_roll_leaves_no_penalty_but_prone(fights: Fights) -> None:
    """AI-HEROIC: a failed Agility roll knocks him prone (the GM then rules --pos prone): no unbalance event."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    next_(fights)
    attack(fights, "Cutthroat", "Max", "cutthroat=+ + + 0", "max=- 0 0 0", "cutthroat=0 0 0 0")
    outcome = fights.execute("fight", cmd.HeroicAvoidance(combatant="Max"), dice("max=- 0 0 0"))
    assert events(outcome, ev.AdvantageGained) == [] and not events(outcome, ev.ActionResolved)[0].success


def test_AI_FP_a_skill_point_reresolves_an_atari_blow(fights: Fights) -> None:
    """AI-FP, C-FP-2: a skill spend on the attack roll re-settles the blow by the Atari rules."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    outcome = attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=+ 0 0 0")
    assert resolved(outcome).hits == ()
    roll = events(outcome, ev.DiceRolled)[0]
    seq = next(r.seq for r in outcome.records if r.event == roll)
    spent = fights.execute("fight", cmd.SpendPoint(combatant="Max", use="skill", target=seq, shift=1),
                           dice("max=0 0 0 0"))
    hit = resolved(spent).hits[0]
    assert (hit.relative_degree, hit.graze, hit.damage, hit.level) == (1, True, 2, SCRATCH)  # 1 + RD 1 + luck 0
    assert fights.state("fight").combatants["max"].fudge_points == 1


def test_AI_audit_reruns_an_atari_fight(fights: Fights) -> None:
    """A-VERIFY-1 under atari-isev: every command re-decides to what was recorded."""
    max_knife_fight(fights)
    fights.execute("fight", cmd.Willpower(combatant="Max"), dice("max=+ 0 0 0"))
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems


def test_AI_FP_AI_WILL_1_a_point_on_the_will_roll_rereads_the_relief(fights: Fights) -> None:
    """AI-FP, AI-WILL-1: a skill point on the Will roll re-reads how many levels it lightens."""
    atari(fights, "risonda")
    outcome = fights.execute("fight", cmd.Willpower(combatant="Risonda"), dice("risonda=- 0 0 0"))
    roll = next(r.seq for r in outcome.records if isinstance(r.event, ev.DiceRolled))
    assert fights.state("fight").will_relief["risonda"] == 1
    fights.execute("fight", cmd.SpendPoint(combatant="Risonda", use="skill", target=roll, shift=1))
    assert fights.state("fight").will_relief["risonda"] == 2
    assert verify(fights.store.read("fight")).ok


def test_AI_WILL_1_the_relief_lasts_the_scene_the_battle_ending_ends_it(fights: Fights) -> None:
    """AI-WILL-1: willpower lightens wounds for the scene; `end` (the battle is over) ends it."""
    atari(fights, "risonda")
    fights.execute("fight", cmd.Willpower(combatant="Risonda"), dice("risonda=0 0 0 0"))
    fights.execute("fight", cmd.StartRound())
    assert fights.state("fight").will_relief == {"risonda": 2}
    fights.execute("fight", cmd.EndBattle())
    assert fights.state("fight").will_relief == {}


@pytest.mark.parametrize("house,reason", [
    ('pace = "simultaneous"\ninitiative = "none"', "alternating"),
    ('initiative = "phases-crunch"\nbartering = "crunch"\ntactics = "all_out"', "postures"),
    ('tactics = "all_out"', "postures"),
])
def test_AI_POST_combinations_atari_cannot_run_are_refused_at_setup(house: str, reason: str) -> None:
    """AI-POST, AI-ATK-1: house rules on atari-isev that cannot run are refused with the reason."""
    from fudge_combat.engine.kernel.errors import InputError
    with pytest.raises(InputError, match=reason):
        resolve("atari-isev", f'extends = "atari-isev"\n{house}\n')


def test_AI_HEROIC_is_refused_outside_atari_isev_and_for_the_dead(fights: Fights) -> None:
    """AI-HEROIC: rolling with the blow is an Atari Isev option: a Fudge fight refuses it; nothing is written."""
    from tests.conftest import sheet, start
    start(fights, rules="fudge")
    for name in ("Ann", "Bob"):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword", weapon=2),
                                         source=f"{name}.toml"))
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+ + + 0", "bob=- - 0 0"))
    refused(fights, cmd.HeroicAvoidance(combatant="Bob"), dice("bob=+ 0 0 0"), match="Atari Isev")


def test_AI_HEROIC_a_dead_man_does_not_roll_with_the_blow(fights: Fights) -> None:
    """AI-HEROIC, F-WND-6: after the GM's kill, heroic avoidance is refused and nothing is written."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    next_(fights)
    attack(fights, "Cutthroat", "Max", "cutthroat=+ + + 0", "max=- 0 0 0", "cutthroat=0 0 0 0")
    fights.execute("fight", cmd.Kill(combatant="Max"))
    refused(fights, cmd.HeroicAvoidance(combatant="Max"), dice("max=+ 0 0 0"), match="Dead")
