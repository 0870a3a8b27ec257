"""Stun, knockout, pulled punches (Fudge 4.6.2): F-STUN-1 (a declared stun attack), F-STUN-2
(a pulled punch caps the wound), F-STUN-3 (option: a Good head blow that wins knocks out).
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.wounds import HURT, SCRATCH, UNDAMAGED, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.conftest import dice
from tests.wound_helpers import attack, blow, bob, duel, of, refused


def exchange(fights: Fights, ann: str, bob_faces: str, **intent: Any) -> Any:
    return fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", **intent),
                          dice(f"ann={ann}", f"bob={bob_faces}"))


def bob_side(outcome: Any) -> ev.Side:
    return of(outcome, ev.ExchangeResolved)[0].sides[1]


def test_F_STUN_1_a_hurt_from_a_stunning_blow_is_a_stun(fights: Fights) -> None:
    """F-STUN-1: Hurt -> Stun: no wound; next round Bob is -1 and cannot hit even when he wins."""
    duel(fights)
    outcome = blow(fights, "Hurt", stun=("Ann",))
    assert of(outcome, ev.WoundMarked) == []
    stun = of(outcome, ev.StunMarked)[0]
    assert (stun.effect, stun.round, stun.dealt) == ("stun", 1, HURT)
    assert bob(fights).marks == () and bob(fights).track.level == UNDAMAGED
    assert of(outcome, ev.ExchangeResolved)[0].sides[0].stun is True
    nxt = exchange(fights, "0000", "++++")  # Bob Good+4-1 = 4 beats Ann Great+0 = 2, but cannot attack
    assert ev.Modifier(name="stunned (F-STUN-1)", value=-1) in bob_side(nxt).modifiers
    assert of(nxt, ev.ExchangeResolved)[0].hits == ()
    after = exchange(fights, "0000", "++++")  # round 3: the Stun has passed
    assert bob_side(after).modifiers == () and of(after, ev.ExchangeResolved)[0].hits[0].attacker == "Bob"


def test_F_STUN_1_a_second_stun_is_very_stunned_for_two_rounds(fights: Fights) -> None:
    """F-STUN-1: the Stun stays on the sheet: a second one is Very Stunned: -2 to all, no attacks, two rounds."""
    duel(fights)
    blow(fights, "Hurt", stun=("Ann",))
    exchange(fights, "0000", "++00")  # round 2: Bob stunned, Good+2-1 ties Ann's Great
    second = exchange(fights, "+000", "0000", stun=("Ann",))  # round 3: Ann Great+1 vs Bob Good: RD 2: Hurt
    assert of(second, ev.StunMarked)[0].effect == "very_stunned"
    for _ in (4, 5):
        nxt = exchange(fights, "0000", "++++")
        assert ev.Modifier(name="very stunned (F-STUN-1)", value=-2) in bob_side(nxt).modifiers
        assert of(nxt, ev.ExchangeResolved)[0].hits == ()
    assert bob_side(exchange(fights, "0000", "0000")).modifiers == ()  # round 6: over


def test_F_STUN_1_very_hurt_is_very_stunned_and_incapacitated_knocks_out(fights: Fights) -> None:
    """F-STUN-1: a Very Hurt stun is Very Stunned; Incapacitated or worse knocks out (no actions)."""
    duel(fights)
    assert of(blow(fights, "Very Hurt", stun=("Ann",)), ev.StunMarked)[0].effect == "very_stunned"
    exchange(fights, "0000", "+++0")  # rounds 2 and 3: Very Stunned, Good+3-2 ties Great
    exchange(fights, "0000", "+++0")
    exchange(fights, "0000", "+000")  # round 4: Very Stunned is over: Good+1 ties Great
    assert bob(fights).marks == ()
    knocked = exchange(fights, "++++", "-000", stun=("Ann",))  # Great+4 vs Good-1: RD 6, damage 8
    assert of(knocked, ev.StunMarked)[0].effect == "knocked_out"
    assert not bob(fights).track.can_act and bob(fights).track.level == UNDAMAGED
    refused(fights, cmd.Exchange(first="Ann", second="Bob"), r"Bob is knocked out and cannot act \(F-STUN-1\)",
            dice("ann=0000", "bob=0000"))


def test_F_STUN_1_a_scratch_does_not_stun(fights: Fights) -> None:
    """F-STUN-1 (reading): only Hurt or worse stuns; a Scratch from a stunning blow leaves nothing."""
    duel(fights)
    outcome = blow(fights, "Scratch", stun=("Ann",))
    assert of(outcome, ev.StunMarked) == [] and of(outcome, ev.WoundMarked) == []


def test_F_STUN_1_stun_marks_and_knockouts_clear_when_the_battle_ends(fights: Fights) -> None:
    """F-STUN-1: stun results heal like Scratches, after combat; a knocked-out fighter comes round."""
    duel(fights)
    blow(fights, "Incapacitated", stun=("Ann",))
    assert not bob(fights).track.can_act
    fights.execute("fight", cmd.EndBattle())
    assert bob(fights).track.can_act and bob(fights).stuns == 0 and bob(fights).stunned is None


def test_F_STUN_1_a_stunned_attacker_cannot_attack_or_go_all_out(fights: Fights) -> None:
    """F-STUN-1: in directed attacks a stunned fighter cannot attack, nor declare all-out; it defends at -1."""
    duel(fights, pace="alternating")
    fights.execute("fight", cmd.StartRound())
    attack(fights, "+000", stun=True)  # Great+1 vs Good: RD 2, damage 4: Hurt -> Stun
    refused(fights, cmd.Attack(attacker="Bob", target="Ann"), "Stunned and cannot attack", dice("bob=0000", "ann=0000"))
    refused(fights, cmd.Declare(combatant="Bob", declaration=ev.Declaration(all_out="defense")), "no all-out")
    fights.execute("fight", cmd.StartRound())
    defended = attack(fights, "0000")
    assert ev.Modifier(name="stunned (F-STUN-1)", value=-1) in of(defended, ev.ExchangeResolved)[0].sides[1].modifiers


def test_F_STUN_1_undo_removes_the_stun(fights: Fights) -> None:
    """F-STUN-1: a stun is an event: undo takes it back."""
    duel(fights)
    blow(fights, "Hurt", stun=("Ann",))
    fights.execute("fight", cmd.Undo())
    assert bob(fights).stuns == 0 and bob(fights).stunned is None


def test_F_STUN_2_a_pulled_punch_is_capped_at_the_declared_level(fights: Fights) -> None:
    """F-STUN-2: the fencer going for a Scratch: however hard the blow, a Scratch."""
    duel(fights)
    outcome = blow(fights, "Very Hurt", pull=(("Ann", SCRATCH),))
    wound = of(outcome, ev.WoundMarked)[0]
    assert (wound.level, wound.dealt, wound.notes) == (SCRATCH, VERY_HURT, ("F-STUN-2: pulled to Scratch",))
    assert of(outcome, ev.ExchangeResolved)[0].sides[0].pull == SCRATCH


def test_F_STUN_2_a_lighter_blow_than_the_cap_is_unchanged(fights: Fights) -> None:
    """F-STUN-2: the cap is a maximum only."""
    duel(fights, pace="alternating")
    wound = of(attack(fights, "+000", pull=VERY_HURT), ev.WoundMarked)[0]
    assert (wound.level, wound.dealt, wound.notes) == (HURT, None, ())


def test_F_STUN_intents_name_fighters_of_the_exchange(fights: Fights) -> None:
    """F-STUN-1, F-STUN-2: naming someone outside the exchange is refused, nothing written."""
    duel(fights)
    refused(fights, cmd.Exchange(first="Ann", second="Bob", stun=("Cleo",)), "not in this exchange",
            dice("ann=0000", "bob=0000"))


def test_F_STUN_3_a_good_head_blow_that_wins_knocks_out(fights: Fights) -> None:
    """F-STUN-3 (option head_blow_knockout): Ann's Great head blow wins: a knockout, and the wound."""
    duel(fights, head_blow_knockout=True)
    outcome = blow(fights, "Hurt", head=("Ann",))
    assert [e.effect for e in of(outcome, ev.StunMarked)] == ["knocked_out"]
    assert of(outcome, ev.WoundMarked)[0].level == HURT and not bob(fights).track.can_act


def test_F_STUN_3_below_good_or_without_the_option_no_knockout(fights: Fights) -> None:
    """F-STUN-3: a Fair head blow (Great-2) that wins does not knock out; nor does any without the option."""
    duel(fights, head_blow_knockout=True)
    fair = exchange(fights, "--00", "----", head=("Ann",))  # Ann Fair vs Bob Terrible: RD 3
    assert of(fair, ev.StunMarked) == [] and of(fair, ev.WoundMarked)[0].level == VERY_HURT
    assert bob(fights).track.can_act


def test_F_STUN_3_off_by_default(fights: Fights) -> None:
    """F-STUN-3: the knockout is an option, off by default."""
    duel(fights)
    assert of(blow(fights, "Hurt", head=("Ann",)), ev.StunMarked) == []
