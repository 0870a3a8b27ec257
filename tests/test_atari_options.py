"""Atari Isev combat options (AI-MULTI-ATK, AI-MULTI-AVD, AI-SWEEP, AI-POS, AI-RNG) and rolled
initiative for the Fudge ruleset (F-INIT-2, F-INIT-3), with entered dice."""

from __future__ import annotations

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.atari_helpers import atari, attack, declare, events, join, next_, refused, resolved, round_
from tests.conftest import dice, sheet, start


def mods(side: ev.Side) -> list[tuple[str, int]]:
    return [(m.name, m.value) for m in side.modifiers]


# --- AI-MULTI-ATK -------------------------------------------------------------------

def test_AI_MULTI_ATK_two_attacks_second_three_levels_later_avoidance_surrendered(fights: Fights) -> None:
    """AI-MULTI-ATK: a light weapon allows two attacks; the second comes 3 initiative levels later;
    the avoidance is surrendered, so a blow on him is compared with Poor and a dodge is refused."""
    atari(fights, "max", "cutthroat")
    declare(fights, "Max", two_attacks=True)
    round_(fights, "max=+ + + 0", "cutthroat=0 0 0 0")  # Max 2, Cutthroat 0
    first = next_(fights)
    assert (first.combatant, first.initiative) == ("Max", 2)
    attack(fights, "Max", "Cutthroat", "max=- - - -", "cutthroat=0 0 0 0")
    refused(fights, cmd.Attack(attacker="Max", target="Cutthroat"), match="already acted this turn")
    assert next_(fights).combatant == "Cutthroat"
    refused(fights, cmd.Attack(attacker="Cutthroat", target="Max", avoid="dodge"),
            dice("cutthroat=0 0 0 0", "max=0 0 0 0"), match="surrendered")
    blow = resolved(attack(fights, "Cutthroat", "Max", "cutthroat=- - - 0", "cutthroat=0 0 0 0"))
    assert blow.avoidance == "surrendered" and blow.sides[1].result == -2
    second = next_(fights)
    assert (second.combatant, second.initiative) == ("Max", -1)
    again = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "max=0 0 0 0"))
    assert again.strike == 2 and mods(again.sides[0]) == []  # the same light dagger: no off-hand penalty
    assert again.avoidance == "used"  # the Cutthroat dodged the first blow


def test_AI_MULTI_ATK_off_hand_weapon_minus_one_unless_ambidextrous(fights: Fights) -> None:
    """AI-MULTI-ATK: the second blow comes from the off-hand weapon at -1."""
    atari(fights, "cutthroat")
    join(fights, "duellist", off_hand={"name": "Main gauche", "damage": 1, "light": True})
    declare(fights, "Duellist", two_attacks=True)
    round_(fights, "cutthroat=- - - -", "duellist=+ + + +")  # Duellist 4 and 1, Cutthroat -4
    next_(fights)
    attack(fights, "Duellist", "Cutthroat", "duellist=- - - -", "cutthroat=0 0 0 0")
    assert next_(fights).initiative == 1
    blow = resolved(attack(fights, "Duellist", "Cutthroat", "duellist=- - - -"))
    assert blow.sides[0].weapon == "off-hand" and ("off hand", -1) in mods(blow.sides[0])


def test_AI_MULTI_ATK_ambidextrous_has_no_off_hand_penalty(fights: Fights) -> None:
    """AI-MULTI-ATK: Ambidextrous: no off-hand penalty."""
    atari(fights, "cutthroat")
    join(fights, "duellist", off_hand={"name": "Main gauche", "damage": 1, "light": True}, gifts=["Ambidextrous"])
    declare(fights, "Duellist", two_attacks=True)
    round_(fights, "cutthroat=- - - -", "duellist=+ + + +")
    next_(fights)
    attack(fights, "Duellist", "Cutthroat", "duellist=- - - -", "cutthroat=0 0 0 0")
    assert next_(fights).combatant == "Duellist"
    blow = resolved(attack(fights, "Duellist", "Cutthroat", "duellist=- - - -"))
    assert blow.sides[0].weapon == "off-hand" and mods(blow.sides[0]) == []


def test_AI_MULTI_ATK_refused_with_a_two_handed_or_heavy_weapon_and_exclusive(fights: Fights) -> None:
    """AI-MULTI-ATK: two attacks with a two-handed weapon, or a heavy one in one hand, are refused;
    two attacks cannot be combined with other options."""
    atari(fights, "dwarzuga", "max")
    refused(fights, cmd.Declare(combatant="Dwarzuga", declaration=ev.Declaration(two_attacks=True)),
            match="small light weapon or a weapon in each hand")
    join(fights, "cutthroat", weapon={"name": "Great axe", "damage": 3, "two_handed": True, "light": False})
    refused(fights, cmd.Declare(combatant="Cutthroat", declaration=ev.Declaration(two_attacks=True)),
            match="two-handed")
    refused(fights, cmd.Declare(combatant="Max", declaration=ev.Declaration(two_attacks=True, posture=1)),
            match="may not be combined")
    refused(fights, cmd.Declare(combatant="Max", declaration=ev.Declaration(two_attacks=True, sweep=True)),
            match="may not be combined")


# --- AI-MULTI-AVD -------------------------------------------------------------------

def test_AI_MULTI_AVD_dodge_parry_against_one_blow_keeps_the_best_and_surrenders_the_attack(fights: Fights) -> None:
    """AI-MULTI-AVD: dodge and parry against one blow: the best result counts; no attack that round."""
    atari(fights, "max", "duellist")
    join(fights, "cutthroat")
    declare(fights, "Duellist", two_avoidances="dodge-parry")
    round_(fights, "max=+ + + +", "duellist=+ + + 0", "cutthroat=0 0 0 0")  # Max 3, Duellist 3? no: 0+3
    order = [next_(fights).combatant]
    assert order == ["Max"]
    blow = resolved(attack(fights, "Max", "Duellist", "max=+ 0 0 0", "duellist=- - 0 0", "duellist=+ 0 0 0",
                           avoid="dodge-parry"))
    assert [(s.trait, s.result) for s in blow.sides] == [("Knife", 2), ("Dodge", -4), ("Rapier Parry", 2)]
    assert blow.hits == () and blow.avoidance == "dodge-parry"
    next_(fights)
    refused(fights, cmd.Attack(attacker="Duellist", target="Max"), match="surrendered the attack")
    next_(fights)
    refused(fights, cmd.Attack(attacker="Cutthroat", target="Duellist", avoid="dodge"),
            dice("cutthroat=0 0 0 0", "duellist=0 0 0 0"), match="no avoidance left")


def test_AI_MULTI_AVD_two_dodges_face_two_blows(fights: Fights) -> None:
    """AI-MULTI-AVD: dodge-dodge gives a dodge against each of two blows; a parry is refused."""
    atari(fights, "max", "duellist")
    join(fights, "cutthroat")
    declare(fights, "Max", two_avoidances="dodge-dodge")
    round_(fights, "max=- - - -", "duellist=+ + + 0", "cutthroat=+ + 0 0")
    assert next_(fights).combatant == "Duellist"
    refused(fights, cmd.Attack(attacker="Duellist", target="Max", avoid="parry"),
            dice("duellist=0 0 0 0", "max=0 0 0 0"), match="dodge-dodge")
    one = resolved(attack(fights, "Duellist", "Max", "duellist=0 0 0 0", "max=+ 0 0 0"))
    next_(fights)
    two = resolved(attack(fights, "Cutthroat", "Max", "cutthroat=0 0 0 0", "max=+ 0 0 0"))
    assert (one.avoidance, two.avoidance) == ("dodge", "dodge") and one.hits == two.hits == ()


def test_AI_MULTI_AVD_parry_parry_needs_two_objects(fights: Fights) -> None:
    """AI-MULTI-AVD: parry-parry needs two suitable objects or one small fast one."""
    atari(fights, "dwarzuga")
    refused(fights, cmd.Declare(combatant="Dwarzuga", declaration=ev.Declaration(two_avoidances="parry-parry")),
            match="two suitable objects")


# --- AI-SWEEP -----------------------------------------------------------------------

def test_AI_SWEEP_multi_strike_minus_one_then_two_stops_at_first_miss(fights: Fights) -> None:
    """AI-SWEEP (seed 000): "The character surrenders any dodge or parry for the turn--opponents hit on a Poor
    or better result. [He] rolls [his] base attack skill against the first opponent at -1. If they hit they roll
    against the second opponent at -2 ... As soon as the character misses no further rolls are made."
    The sweeper gives up HIS avoidance; each foe he strikes keeps its free one and avoids as usual.
    (This test once asserted that the foes had no avoidance: the rule read backwards.)"""
    atari(fights, "dwarzuga", "max", "cutthroat")
    join(fights, "duellist")
    declare(fights, "Dwarzuga", sweep=True)
    round_(fights, "dwarzuga=+ + + +", "max=0 0 0 0", "cutthroat=0 0 0 0", "duellist=0 0 0 0")
    next_(fights)
    outcome = attack(fights, "Dwarzuga", "Max", "dwarzuga=+ + 0 0", "max=0 0 0 0", "dwarzuga=0 0 0 0",
                     "dwarzuga=0 0 0 0", "cutthroat=0 0 0 0", targets=("Cutthroat", "Duellist"))
    blows = events(outcome, ev.ExchangeResolved)
    assert [b.sides[1].combatant for b in blows] == ["Max", "Cutthroat"]  # the Cutthroat's dodge ends it
    assert [mods(b.sides[0]) for b in blows] == [[("multi-strike foe 1", -1)], [("multi-strike foe 2", -2)]]
    assert [(b.sides[1].trait, b.avoidance) for b in blows] == [("Dodge", "dodge"), ("Dodge", "dodge")]
    assert [b.sides[0].result for b in blows] == [2, -1] and bool(blows[0].hits) and blows[1].hits == ()
    assert next_(fights).combatant == "Cutthroat"  # 0, ahead of Max's -1
    refused(fights, cmd.Attack(attacker="Cutthroat", target="Dwarzuga", avoid="parry"),
            dice("cutthroat=0 0 0 0", "dwarzuga=0 0 0 0"), match="surrendered")
    blow = resolved(attack(fights, "Cutthroat", "Dwarzuga", "cutthroat=- - 0 0", "cutthroat=0 0 0 0"))
    assert (blow.avoidance, blow.sides[1].trait, blow.sides[1].result) == ("surrendered", "no avoidance", -2)
    assert bool(blow.hits)  # Poor is enough to hit the sweeper


def test_AI_SWEEP_each_foe_avoids_as_told_and_a_spent_avoidance_is_spent(fights: Fights) -> None:
    """AI-SWEEP, AI-ATK-1: `--avoid` per foe (the target first); a foe whose free avoidance is used is hit
    on Poor; one foe named twice is refused."""
    atari(fights, "dwarzuga", "max", "cutthroat")
    declare(fights, "Dwarzuga", sweep=True)
    round_(fights, "dwarzuga=+ + + +", "max=0 0 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    refused(fights, cmd.Attack(attacker="Dwarzuga", target="Max", targets=("max",)), match="once")
    refused(fights, cmd.Attack(attacker="Dwarzuga", target="Max", targets=("Cutthroat",), targets_avoid=("none", "none")),
            match="one avoidance for every foe")
    outcome = attack(fights, "Dwarzuga", "Max", "dwarzuga=+ + + 0", "dwarzuga=0 0 0 0", "dwarzuga=+ + + 0",
                     "cutthroat=0 0 0 0", "dwarzuga=0 0 0 0", avoid="none", targets=("Cutthroat",),
                     targets_avoid=("dodge",))
    blows = events(outcome, ev.ExchangeResolved)
    assert [(b.sides[1].trait, b.avoidance) for b in blows] == [("no avoidance", "none"), ("Dodge", "dodge")]


def test_AI_SWEEP_fights_recorded_with_foes_hit_on_poor_replay_as_recorded(fights: Fights) -> None:
    """AI-SWEEP: a fight whose options lack `sweep_foes_avoid` (recorded before it) keeps the old reading,
    so its log re-decides as written; the atari-isev preset gives new fights the seed's reading."""
    from fudge_combat.engine.kernel.presets import resolve
    assert resolve("atari-isev")[1].sweep_foes_avoid is True
    atari(fights, "dwarzuga", "max", "cutthroat", sweep_foes_avoid=False)
    declare(fights, "Dwarzuga", sweep=True)
    round_(fights, "dwarzuga=+ + + +", "max=0 0 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    outcome = attack(fights, "Dwarzuga", "Max", "dwarzuga=0 0 0 0", "dwarzuga=0 0 0 0", "dwarzuga=- - - 0",
                     targets=("Cutthroat",))
    assert all(b.sides[1].trait == "no avoidance" for b in events(outcome, ev.ExchangeResolved))
    from fudge_combat.engine.audit import verify
    assert verify(fights.store.read("fight")).ok


def test_AI_SWEEP_needs_a_sweeping_weapon(fights: Fights) -> None:
    """AI-SWEEP: a dagger or bare hands cannot multi-strike (reading: a light weapon does not sweep)."""
    atari(fights, "max")
    refused(fights, cmd.Declare(combatant="Max", declaration=ev.Declaration(sweep=True)), match="weapon that sweeps")


def test_AI_SWEEP_several_targets_need_the_declaration(fights: Fights) -> None:
    """AI-SWEEP: declared at round start."""
    atari(fights, "dwarzuga", "max", "cutthroat")
    round_(fights, "dwarzuga=+ + + +", "max=0 0 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    refused(fights, cmd.Attack(attacker="Dwarzuga", target="Max", targets=("Cutthroat",)), match="multi-strike")


# --- AI-POS and AI-RNG --------------------------------------------------------------

def test_AI_POS_positions_modify_offence_and_back_to_enemy_avoidance(fights: Fights) -> None:
    """AI-POS: behind +2, above +1; back to enemy: dodge -1, parry -2."""
    atari(fights, "max", "cutthroat")
    join(fights, "duellist")
    round_(fights, "max=+ + + +", "cutthroat=0 0 0 0", "duellist=0 0 0 0")
    next_(fights)
    blow = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=0 0 0 0", "max=0 0 0 0",
                           position=("behind", "above"), target_back=True))
    assert mods(blow.sides[0]) == [("position: behind", 2), ("position: above", 1)]
    assert mods(blow.sides[1]) == [("back to enemy", -1)]
    next_(fights)
    parry = resolved(attack(fights, "Cutthroat", "Duellist", "cutthroat=0 0 0 0", "duellist=0 0 0 0",
                            position=("prone",), target_back=True, avoid="parry"))
    assert mods(parry.sides[0])[-1] == ("position: prone", -2) and mods(parry.sides[1]) == [("back to enemy", -2)]


def test_AI_RNG_1_unaware_target_hit_by_meeting_the_difficulty(fights: Fights) -> None:
    """AI-RNG-1: Philmore's darts need Fair on an unsuspecting guard; a Great throw hits."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + + +", "cutthroat=0 0 0 0")
    next_(fights)
    blow = resolved(attack(fights, "Max", "Cutthroat", "max=+ 0 0 0", "max=0 0 0 0",
                           ranged="thrown", unaware=True, difficulty=0, avoid="none"))
    assert blow.sides[1].result == 0 and blow.min_hit == (0, 0) and blow.hits[0].relative_degree == 2
    next_(fights)
    miss = resolved(attack(fights, "Cutthroat", "Max", "cutthroat=- - 0 0", ranged="thrown", difficulty=0,
                           avoid="none"))
    assert miss.hits == ()  # Mediocre does not meet Fair


def test_AI_RNG_2_aware_target_avoids_at_a_modifier(fights: Fights) -> None:
    """AI-RNG-2: propelled: dodge -1, other parry -3..-5 (GM picks); out of range refused."""
    atari(fights, "max", "cutthroat")
    join(fights, "duellist")
    round_(fights, "max=+ + + +", "cutthroat=0 0 0 0", "duellist=0 0 0 0")
    next_(fights)
    blow = resolved(attack(fights, "Max", "Cutthroat", "max=0 0 0 0", "cutthroat=+ 0 0 0", "max=0 0 0 0",
                           ranged="propelled"))
    assert mods(blow.sides[1]) == [("dodge vs propelled missile", -1)]
    next_(fights)
    refused(fights, cmd.Attack(attacker="Cutthroat", target="Duellist", ranged="propelled", avoid="parry",
                               ranged_mod=-1), dice("cutthroat=0 0 0 0", "duellist=0 0 0 0"), match="-3..-5")
    parry = resolved(attack(fights, "Cutthroat", "Duellist", "cutthroat=0 0 0 0", "duellist=0 0 0 0",
                            "cutthroat=0 0 0 0", ranged="thrown", avoid="parry", ranged_mod=-2))
    assert mods(parry.sides[1]) == [("parry vs thrown missile", -2)]


# --- F-INIT-2, F-INIT-3 under the Fudge ruleset ------------------------------------------

def fudge_opposed(fights: Fights, **options: object) -> None:
    start(fights, "fight", "fudge", pace="alternating", initiative="opposed", **options)
    for name, extra in (("Ann", {"attributes": {"Reflexes": "Good"}}),
                        ("Bob", {"gifts": ("Combat Reflexes",)}),
                        ("Cy", {})):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword", weapon=2,
                                                     **extra), source=f"{name}.toml"))


def test_F_INIT_2_opposed_initiative_trait_or_situational_and_combat_reflexes(fights: Fights) -> None:
    """F-INIT-2: the sheet's Reflexes; without one a situational roll; Combat Reflexes +1; order by total."""
    fudge_opposed(fights)
    outcome = round_(fights, "ann=0 0 0 0", "bob=0 0 0 +", "cy=+ + + 0")
    rolled = {e.combatant: (e.trait, e.level, [(m.name, m.value) for m in e.modifiers], e.total)
              for e in events(outcome, ev.InitiativeRanked)}
    assert rolled == {"Ann": ("Reflexes", 1, [], 1), "Bob": ("situational", 0, [("Combat Reflexes", 1)], 2),
                      "Cy": ("situational", 0, [], 3)}
    assert [next_(fights).combatant for _ in range(3)] == ["Cy", "Bob", "Ann"]


def test_F_INIT_2_every_round_or_once_per_battle(fights: Fights) -> None:
    """F-INIT-2: initiative_every = "battle" keeps the first order; "round" (default) rolls again."""
    fudge_opposed(fights, initiative_every="battle")
    round_(fights, "ann=0 0 0 0", "bob=0 0 0 0", "cy=+ + + 0")
    again = round_(fights)
    assert events(again, ev.InitiativeRanked) == []
    assert next_(fights).combatant == "Cy"


def test_F_INIT_2_surprise_bonus_and_automatic_initiative(fights: Fights) -> None:
    """F-INIT-2: GM surprise inputs: a bonus to one roll, or automatic initiative (acts before every roll)."""
    fudge_opposed(fights)
    outcome = round_(fights, "ann=0 0 0 0", "cy=+ + + +", initiative_bonus=(("Ann", 2),), automatic=("Bob",))
    rolled = {e.combatant: (e.total, e.automatic) for e in events(outcome, ev.InitiativeRanked)}
    assert rolled == {"Ann": (3, False), "Cy": (4, False), "Bob": (5, True)}
    assert next_(fights).combatant == "Bob"
    refused(fights, cmd.StartRound(surprised=("Ann",)), match="initiative-bonus")


def test_F_INIT_3_hasty_attack_plus_one_initiative_minus_one_attack_and_defence(fights: Fights) -> None:
    """F-INIT-3: hasty: +1 initiative this round, -1 to attack and to defence this round."""
    fudge_opposed(fights)
    declare(fights, "Ann", hasty=True)
    outcome = round_(fights, "ann=0 0 0 0", "bob=- 0 0 0", "cy=- - - -")
    assert {e.combatant: e.total for e in events(outcome, ev.InitiativeRanked)}["Ann"] == 2
    assert next_(fights).combatant == "Ann"
    blow = resolved(attack(fights, "Ann", "Bob", "ann=0 0 0 0", "bob=0 0 0 0"))
    assert ("hasty attack", -1) in mods(blow.sides[0])
    next_(fights)
    back = resolved(attack(fights, "Bob", "Ann", "bob=0 0 0 0", "ann=0 0 0 0"))
    assert ("hasty attack", -1) in mods(back.sides[1])
    refused(fights, cmd.Declare(combatant="Ann", declaration=ev.Declaration(hasty=True, wait=1)), match="one of")


def test_AI_MULTI_AVD_AI_FP_a_point_on_one_of_two_avoidance_rolls_changes_only_that_roll(fights: Fights) -> None:
    """AI-MULTI-AVD, AI-FP: a skill point on the parry of a dodge-parry re-settles with the best of the two."""
    atari(fights, "max", "duellist")
    declare(fights, "Duellist", two_avoidances="dodge-parry")
    round_(fights, "max=+ + + +", "duellist=0 0 0 0")
    next_(fights)
    outcome = attack(fights, "Max", "Duellist", "max=+ 0 0 0", "duellist=- - 0 0", "duellist=0 0 0 0",
                     "max=0 0 0 0", avoid="dodge-parry")
    assert resolved(outcome).hits  # Great vs the best of Dodge -4 and Parry Good: RD 1
    parry = [r for r in outcome.records if isinstance(r.event, ev.DiceRolled) and r.event.purpose == "Rapier Parry"][0]
    spent = fights.execute("fight", cmd.SpendPoint(combatant="Duellist", use="skill", target=parry.seq, shift=1))
    again = resolved(spent)
    assert [(s.trait, s.result) for s in again.sides] == [("Knife", 2), ("Dodge", -4), ("Rapier Parry", 2)]
    assert again.hits == ()


def test_AI_audit_reruns_sweeps_avoidances_heroics_and_points(fights: Fights) -> None:
    """A-VERIFY-1 under atari-isev: multi-strike, dodge-parry, heroic avoidance and a point all re-decide."""
    atari(fights, "dwarzuga", "max", "cutthroat")
    declare(fights, "Dwarzuga", sweep=True)
    declare(fights, "Cutthroat", two_avoidances="dodge-parry")
    round_(fights, "dwarzuga=+ + + +", "max=+ + + +", "cutthroat=0 0 0 0")
    next_(fights)
    attack(fights, "Dwarzuga", "Max", "dwarzuga=0 0 0 0", "max=- - - -", "dwarzuga=0 0 0 0", "dwarzuga=0 0 0 0",
           "dwarzuga=- 0 0 0", targets=("Cutthroat",), targets_avoid=("none",))  # AI-SWEEP: Max dodges
    fights.execute("fight", cmd.HeroicAvoidance(combatant="Max"), dice("max=+ 0 0 0"))
    next_(fights)
    attack(fights, "Max", "Cutthroat", "max=+ 0 0 0", "cutthroat=- - 0 0", "cutthroat=0 0 0 0",
           "max=0 0 0 0", avoid="dodge-parry")
    fights.execute("fight", cmd.SpendPoint(combatant="Max", use="luck"), dice("max=+ + 0 0"))
    fights.execute("fight", cmd.Undo())
    fights.execute("fight", cmd.Redo())
    from fudge_combat.engine.audit import verify
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems


def test_AI_INIT_2_sealed_declarations_are_refused_under_rolled_initiative(fights: Fights) -> None:
    """AI-INIT-2: declarations precede the open initiative roll; a sealed one is refused, nothing written."""
    atari(fights, "max")
    refused(fights, cmd.SealDeclaration(combatant="Max", seal="0" * 64), match="drop --sealed")


def test_F_INIT_3_AI_WAIT_round_start_options_need_their_systems(fights: Fights) -> None:
    """F-INIT-3, AI-WAIT: a hasty attack needs rolled initiative; waiting and multiple attacks need atari-isev."""
    start(fights, "fight", "fudge")
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Good"}, attack="Sword"), source="a"))
    refused(fights, cmd.Declare(combatant="Ann", declaration=ev.Declaration(hasty=True)), match="rolled initiative")
    other = Fights(fights.store, clock=fights.clock, new_id=fights.new_id, random_bytes=fights.random_bytes)
    start(other, "opposed", "fudge", pace="alternating", initiative="opposed")
    other.execute("opposed", cmd.Join(sheet=sheet("Bob", skills={"Sword": "Good"}, attack="Sword"), source="b"))
    before = other.store.last_seq("opposed")
    for declaration in (ev.Declaration(wait=1), ev.Declaration(two_attacks=True), ev.Declaration(sweep=True)):
        with pytest.raises(RuleError, match="Atari Isev options"):
            other.execute("opposed", cmd.Declare(combatant="Bob", declaration=declaration))
    assert other.store.last_seq("opposed") == before
    other.execute("opposed", cmd.Declare(combatant="Bob", declaration=ev.Declaration(hasty=True)))


def test_AI_RNG_1_AI_DMG_1_fudge_only_blows_are_refused_under_atari(fights: Fights) -> None:
    """AI-RNG-1, AI-DMG-1: Fudge's `shoot` and stun/pulled/head blows are refused with the Atari way to say it."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + + +", "cutthroat=0 0 0 0")
    next_(fights)
    refused(fights, cmd.Shoot(shooter="Max", target="Cutthroat", difficulty=0), match="--ranged")
    refused(fights, cmd.Attack(attacker="Max", target="Cutthroat", stun=True), match="F-STUN")
