"""Phase initiative: PH-1, PH-2, PH-3, PH-4, PH-5, PH-6, CT-TABLE `rolled`, CT-BARTER-1, CT-BARTER-2, CT-BARTER-3, CT-BARTER-4, CT-BARTER-5 (seed 003, "Crunch Time").

First the pure core (engine.kernel.initiative) on plain dice, then the same rules
through the Fights service under the `fudge-phases` preset: StartRound,
Barter, NextTurn and directed attacks in phase order. Every refusal is
checked to write nothing.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.rulesets.fudge.phases import turn_order
from fudge_combat.engine.kernel.dice import parse_faces
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.initiative import PHASE_NAME, PHASE_VALUE, Die, Initiative, barter, dice_count
from fudge_combat.engine.kernel.ladder import FUDGE7
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import dice, sheet, start

PHASES_RULES = resolve("fudge-phases")[1]
DOWNGRADES = msgspec.structs.replace(PHASES_RULES, **{"crunch_downgrades": True})
NO_LONE_PLUS = msgspec.structs.replace(PHASES_RULES, **{"crunch_single_plus_trade": False})


def roll(faces: str, surprised: bool = False) -> Initiative:
    """An initiative roll as typed at the table: `roll("+ + -")`."""
    return Initiative(tuple(Die(f) for f in parse_faces(faces)), surprised)


def named(phases: tuple[int, ...]) -> list[str]:
    return [PHASE_NAME[p] for p in phases]


def phases_of(initiative: Initiative, options: RuleOptions = PHASES_RULES) -> list[str]:
    return named(initiative.phases(options))


# --- CT-TABLE `rolled` ------------------------------------------------------------

@pytest.mark.parametrize(("level", "count"), [
    ("Abysmal", 0), ("Terrible", 1), ("Poor", 2), ("Mediocre", 3), ("Fair", 4),
    ("Good", 5), ("Great", 6), ("Superb", 7), ("Legendary", 8),
])
def test_CT_TABLE_rolled_dice_per_level(level: str, count: int) -> None:
    """CT-TABLE `rolled`: Abysmal 0dF, Terrible 1, ... Fair 4, ... Legendary 8."""
    assert dice_count(FUDGE7.parse(level), PHASES_RULES) == count


def test_CT_TABLE_rolled_stays_within_0_and_8_dice_beyond_the_ladder() -> None:
    assert dice_count(FUDGE7.parse("Legendary+2"), PHASES_RULES) == 8
    assert dice_count(FUDGE7.parse("Abysmal-1"), PHASES_RULES) == 0


def test_the_fudge_phases_preset_turns_on_crunch_phase_initiative() -> None:
    """F-INIT-4, F-PACE-3, PH-6: the preset's options."""
    assert PHASES_RULES.pace == "alternating"
    assert PHASES_RULES.initiative == "phases-crunch"
    assert PHASES_RULES.crunch_table == "rolled"
    assert PHASES_RULES.bartering == "crunch"
    assert PHASES_RULES.crunch_single_plus_trade is True
    assert PHASES_RULES.crunch_downgrades is False
    assert PHASES_RULES.duplicates_act is False


# --- PH-1, PH-2: phases from the faces ----------------------------------------------------

def test_PH_1_five_phases_in_order() -> None:
    assert list(PHASE_VALUE) == ["++", "+", "0", "-", "--"]
    assert list(PHASE_VALUE.values()) == [2, 1, 0, -1, -2]


def test_PH_2_seed_example_plus_plus_minus_acts_on_plus_minus_and_double_minus() -> None:
    """003: 3 dice `+,+,-` -> set the extra + aside, act on +, - and --."""
    initiative = roll("+ + -")
    assert phases_of(initiative) == ["+", "-", "--"]
    assert initiative.spares() == (1,)


def test_PH_2_six_dice_card_example() -> None:
    """003's card: `+,+,0,0,-,-` acts on +, 0, -, --; one spare of each face."""
    initiative = roll("+ + 0 0 - -")
    assert phases_of(initiative) == ["+", "0", "-", "--"]
    assert initiative.spares() == (1, 3, 5)


def test_PH_2_no_dice_still_acts_in_double_minus() -> None:
    assert phases_of(Initiative(())) == ["--"]


def test_PH_2_duplicates_act_option_gives_a_second_action() -> None:
    """PH-2 option `duplicates_act` (default false)."""
    with_duplicates = msgspec.structs.replace(PHASES_RULES, **{"duplicates_act": True})
    assert phases_of(roll("+ + -"), with_duplicates) == ["+", "+", "-", "--"]
    assert phases_of(roll("+ + -")) == ["+", "-", "--"]


# --- PH-5 surprise -----------------------------------------------------------------

def test_PH_5_surprise_drops_every_result_one_level() -> None:
    assert phases_of(roll("+ 0 -", surprised=True)) == ["0", "-", "--"]
    raised = barter(roll("+ + 0", surprised=True), 0, 1, 1, PHASES_RULES)
    assert phases_of(raised) == ["+", "-", "--"]  # ++ -> +, 0 -> -


def test_PH_5_double_minus_is_never_lost() -> None:
    assert phases_of(roll("- - -", surprised=True)) == ["--"]
    assert phases_of(Initiative((), surprised=True)) == ["--"]


def test_PH_5_bartering_comes_before_the_surprise_drop() -> None:
    """A surprised combatant barters the faces rolled (a `+` is still a `+`), then drops."""
    surprised = roll("+ + -", surprised=True)
    after = barter(surprised, 0, 1, 1, PHASES_RULES)
    assert after.dice[1].face == 2
    assert phases_of(after) == ["+", "--"]


def test_PH_5_a_surprised_minus_die_in_double_minus_cannot_be_traded() -> None:
    """The `-` die of a surprised combatant sits in `--`; only a `+` die is traded (CT-BARTER-1)."""
    with pytest.raises(RuleError, match=r"only a \+ die"):
        barter(roll("- +", surprised=True), 0, 1, 1, PHASES_RULES)


# --- CT-BARTER-5: the examples that must hold ----------------------------------------------

def test_CT_BARTER_5_plus_plus_minus_trade_one_raise_the_other() -> None:
    """`+,+,-` -> trade one +, raise the other -> ++, -, --."""
    after = barter(roll("+ + -"), 0, 1, 1, PHASES_RULES)
    assert phases_of(after) == ["++", "-", "--"]
    assert after.dice == (Die(1, traded=True), Die(2), Die(-1))


def test_CT_BARTER_5_four_plus_trade_one_raise_one() -> None:
    """Four + -> trade one, raise one -> ++, +, --."""
    initiative = roll("+ + + +")
    assert phases_of(initiative) == ["+", "--"]
    after = barter(initiative, 0, 1, 1, PHASES_RULES)
    assert phases_of(after) == ["++", "+", "--"]


def test_CT_BARTER_5_four_plus_with_downgrades_trade_a_second_and_lower_another() -> None:
    """With downgrades (CT-BARTER-4): trade a second + and lower another + -> ++, 0, --."""
    first = barter(roll("+ + + +"), 0, 1, 1, DOWNGRADES)
    second = barter(first, 2, 3, -1, DOWNGRADES)
    assert phases_of(second) == ["++", "0", "--"]
    assert second.dice == (Die(1, traded=True), Die(2), Die(1, traded=True), Die(0))


def test_CT_BARTER_5_six_dice_trade_a_plus_to_raise_the_other() -> None:
    """6dF `+,+,0,0,-,-`: act on +, 0, -, --; trade a + to raise the other -> ++, 0, -, --."""
    initiative = roll("+ + 0 0 - -")
    assert phases_of(initiative) == ["+", "0", "-", "--"]
    after = barter(initiative, 0, 1, 1, PHASES_RULES)
    assert phases_of(after) == ["++", "0", "-", "--"]


def test_CT_BARTER_1_raise_goes_one_face_at_a_time() -> None:
    """CT-BARTER-1: `-` -> `0` -> `+` -> `++`, one face per traded + die."""
    initiative = roll("+ + + -")
    initiative = barter(initiative, 0, 3, 1, PHASES_RULES)
    assert initiative.dice[3].face == 0
    initiative = barter(initiative, 1, 3, 1, PHASES_RULES)
    assert initiative.dice[3] == Die(1, locked=True)
    initiative = barter(initiative, 2, 3, 1, PHASES_RULES)
    assert initiative.dice[3].face == 2
    assert phases_of(initiative) == ["++", "--"]


def test_barter_is_pure() -> None:
    before = roll("+ + -")
    barter(before, 0, 1, 1, PHASES_RULES)
    assert before == roll("+ + -")


# --- CT-BARTER-2 locked dice ----------------------------------------------------------------

def test_CT_BARTER_2_a_die_raised_to_plus_is_locked_and_cannot_be_traded() -> None:
    raised = barter(roll("+ 0 -"), 0, 1, 1, PHASES_RULES)
    assert raised.dice[1] == Die(1, locked=True)
    with pytest.raises(RuleError, match="locked"):
        barter(raised, 1, 2, 1, PHASES_RULES)


def test_CT_BARTER_2_a_locked_die_can_still_be_raised_by_another_trade() -> None:
    raised = barter(roll("+ + 0"), 0, 2, 1, PHASES_RULES)
    assert raised.dice[2].locked
    again = barter(raised, 1, 2, 1, PHASES_RULES)
    assert again.dice[2].face == 2
    assert phases_of(again) == ["++", "--"]


def test_CT_BARTER_2_a_rolled_plus_is_not_locked() -> None:
    after = barter(roll("+ + + 0"), 0, 1, 1, PHASES_RULES)
    assert after.dice[1] == Die(2) and after.dice[2] == Die(1)
    again = barter(after, 2, 3, 1, PHASES_RULES)  # the rolled + (die 3) may still be traded
    assert again.dice[2].traded and again.dice[3] == Die(1, locked=True)
    assert phases_of(again) == ["++", "+", "--"]


# --- CT-BARTER-3 a lone + die --------------------------------------------------------------

def test_CT_BARTER_3_lone_plus_may_be_traded_by_default() -> None:
    after = barter(roll("+ 0 -"), 0, 1, 1, PHASES_RULES)
    assert phases_of(after) == ["+", "-", "--"]


def test_CT_BARTER_3_lone_plus_trade_refused_when_the_option_is_false() -> None:
    with pytest.raises(RuleError, match="CT-BARTER-3"):
        barter(roll("+ 0 -"), 0, 1, 1, NO_LONE_PLUS)
    assert phases_of(barter(roll("+ + -"), 0, 1, 1, NO_LONE_PLUS)) == ["++", "-", "--"]


def test_CT_BARTER_3_a_locked_plus_does_not_count_as_available() -> None:
    """After `0`->`+` (locked), only one tradeable + is left: refused without lone-plus trades."""
    first = barter(roll("+ + 0 -"), 0, 2, 1, NO_LONE_PLUS)
    with pytest.raises(RuleError, match="CT-BARTER-3"):
        barter(first, 1, 3, 1, NO_LONE_PLUS)
    assert barter(first, 1, 3, 1, PHASES_RULES).dice[3].face == 0


# --- CT-BARTER-4 downgrades ----------------------------------------------------------------

def test_CT_BARTER_4_downgrades_refused_by_default() -> None:
    with pytest.raises(RuleError, match="CT-BARTER-4"):
        barter(roll("+ + + +"), 0, 1, -1, PHASES_RULES)


def test_CT_BARTER_4_downgrade_lowers_plus_to_blank_and_blank_to_minus() -> None:
    after = barter(roll("+ + 0"), 0, 2, -1, DOWNGRADES)
    assert after.dice[2].face == -1
    after = barter(roll("+ + 0"), 0, 1, -1, DOWNGRADES)
    assert after.dice[1].face == 0
    assert phases_of(after) == ["0", "--"]


def test_CT_BARTER_4_a_minus_cannot_be_lowered() -> None:
    with pytest.raises(RuleError, match=r"only a \+ or a 0 die can be lowered"):
        barter(roll("+ -"), 0, 1, -1, DOWNGRADES)


# --- refusals -----------------------------------------------------------------------------

@pytest.mark.parametrize(("faces", "trade", "alter", "message"), [
    ("0 0 -", 0, 1, r"only a \+ die can be traded in \(die 1 shows 0\)"),
    ("- + 0", 0, 2, r"only a \+ die can be traded in \(die 1 shows -\)"),
    ("+ + -", 0, 0, "cannot be traded for itself"),
    ("+ + -", 0, 3, "no die 4"),
    ("+ + -", -1, 1, "no die 0"),
])
def test_CT_BARTER_1_refusals(faces: str, trade: int, alter: int, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        barter(roll(faces), trade, alter, 1, PHASES_RULES)


def test_CT_BARTER_1_a_traded_die_sits_in_double_minus_and_cannot_be_traded_or_altered() -> None:
    after = barter(roll("+ + + 0"), 0, 3, 1, PHASES_RULES)
    with pytest.raises(RuleError, match="die 1 was already traded"):
        barter(after, 0, 1, 1, PHASES_RULES)
    with pytest.raises(RuleError, match="die 1 was already traded"):
        barter(after, 1, 0, 1, PHASES_RULES)


def test_CT_BARTER_1_double_plus_cannot_be_raised() -> None:
    after = barter(roll("+ + +"), 0, 1, 1, PHASES_RULES)
    with pytest.raises(RuleError, match="nothing is above"):
        barter(after, 2, 1, 1, PHASES_RULES)


def test_PH_6_no_bartering_without_crunch_rules() -> None:
    with pytest.raises(RuleError, match="no crunch bartering"):
        barter(roll("+ + -"), 0, 1, 1, RuleOptions())


# =========================================================================================
# Through the Fights service (fudge-phases)
# =========================================================================================

def join(fights: Fights, name: str, agility: str, weapon: int = 2, skill: str = "Good", **extra: Any) -> None:
    fights.execute("fight", cmd.Join(
        sheet=sheet(name, attributes={"Agility": agility, **extra.pop("attributes", {})},
                    skills={"Sword": skill}, attack="Sword", weapon=weapon, **extra),
        source=f"{name.lower()}.toml"))


def phase_fight(fights: Fights, **options: Any) -> Fights:
    """Ann (Great, 6dF), Bob (Fair, 4dF), Cid (Fair, 4dF) under fudge-phases."""
    start(fights, rules="fudge-phases", **options)
    join(fights, "Ann", "Great")
    join(fights, "Bob", "Fair")
    join(fights, "Cid", "Fair")
    return fights


SEED_ROLLS = ("ann=+ + 0 0 - -", "bob=+ + + +", "cid=0 + - 0")


def refused(fights: Fights, command: Any, given: DiceInput | None = None, match: str = "") -> RuleError:
    """The command is refused with a clear message and nothing is written."""
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match) as caught:
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before
    return caught.value


def turns(fights: Fights) -> list[tuple[str, str, tuple[str, ...]]]:
    """`next` until the round is over: (phase, actor, tied with)."""
    out = []
    while True:
        try:
            outcome = fights.execute("fight", cmd.NextTurn())
        except RuleError as exc:
            assert "is over" in str(exc)
            return out
        event = outcome.records[-1].event
        assert isinstance(event, ev.TurnTaken)
        out.append((PHASE_NAME[event.phase], event.combatant, event.tied_with))


def test_PH_2_CT_TABLE_start_round_rolls_everyones_entered_dice(fights: Fights) -> None:
    phase_fight(fights)
    outcome = fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    events = [r.event for r in outcome.records]
    assert events[0] == ev.RoundStarted(round=1)
    rolled = events[1:]
    assert [(e.combatant, e.determinant, e.faces, e.source, e.round) for e in rolled] == [
        ("Ann", 2, (1, 1, 0, 0, -1, -1), "entered", 1),
        ("Bob", 0, (1, 1, 1, 1), "entered", 1),
        ("Cid", 0, (0, 1, -1, 0), "entered", 1),
    ]
    state = outcome.state
    assert state.round == 1 and state.turn is None
    assert phases_of(state.initiative["ann"]) == ["+", "0", "-", "--"]
    assert phases_of(state.initiative["bob"]) == ["+", "--"]
    assert phases_of(state.initiative["cid"]) == ["+", "0", "-", "--"]
    assert fights.state("fight").initiative == state.initiative  # replayed == live


def test_CT_TABLE_wrong_number_of_entered_dice_is_refused(fights: Fights) -> None:
    phase_fight(fights)
    refused(fights, cmd.StartRound(), dice("ann=+ + 0 0 -", "bob=+ + + +", "cid=0 + - 0"),
            match="Ann's initiative roll needs 6 dice, 5 were entered")


def test_dice_entered_for_nobody_who_rolls_are_refused(fights: Fights) -> None:
    phase_fight(fights)
    refused(fights, cmd.StartRound(), dice(*SEED_ROLLS, "dan=+ + + +"), match="dice typed for dan, but no one of that name is in fight: .*rolling here: Ann, Bob, Cid")


def test_C_DICE_3_every_initiative_roll_must_be_entered_when_dice_are_entered(fights: Fights) -> None:
    phase_fight(fights, dice="entered")
    refused(fights, cmd.StartRound(), dice("ann=+ + 0 0 - -", "bob=+ + + +"),
            match="Cid needs an initiative roll of 4dF")


def test_PH_6_CT_BARTER_1_each_barter_is_recorded(fights: Fights) -> None:
    """PH-6: each traded and altered die is its own event; the fold agrees with engine.kernel.initiative.barter."""
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    before = fights.state("fight").initiative["ann"]
    outcome = fights.execute("fight", cmd.Barter(combatant="ann", trade=0, alter=1, direction=1))
    (event,) = [r.event for r in outcome.records]
    assert event == ev.DieBartered(combatant="Ann", round=1, traded=0, altered=1, direction=1,
                                   face_before=1, face_after=2)
    assert outcome.state.initiative["ann"] == barter(before, 0, 1, 1, PHASES_RULES)
    assert phases_of(fights.state("fight").initiative["ann"]) == ["++", "0", "-", "--"]


def test_CT_BARTER_5_four_plus_through_the_service(fights: Fights) -> None:
    phase_fight(fights, crunch_downgrades=True)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1))
    assert phases_of(fights.state("fight").initiative["bob"]) == ["++", "+", "--"]
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=2, alter=3, direction=-1))
    assert phases_of(fights.state("fight").initiative["bob"]) == ["++", "0", "--"]


def test_CT_BARTER_refusals_through_the_service_write_nothing(fights: Fights) -> None:
    phase_fight(fights)
    refused(fights, cmd.Barter(combatant="Ann", trade=0, alter=1, direction=1), match="no initiative dice")
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    refused(fights, cmd.Barter(combatant="Ann", trade=2, alter=1, direction=1), match=r"only a \+ die")
    refused(fights, cmd.Barter(combatant="Bob", trade=0, alter=1, direction=-1), match="CT-BARTER-4")
    refused(fights, cmd.Barter(combatant="Dan", trade=0, alter=1, direction=1), match="no combatant 'Dan'")
    fights.execute("fight", cmd.Barter(combatant="Cid", trade=1, alter=0, direction=1))  # 0 -> + (locked)
    refused(fights, cmd.Barter(combatant="Cid", trade=0, alter=3, direction=1), match="locked")
    refused(fights, cmd.Barter(combatant="Cid", trade=1, alter=3, direction=1), match="already traded")
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1))
    refused(fights, cmd.Barter(combatant="Bob", trade=2, alter=1, direction=1), match="nothing is above")


def test_CT_BARTER_3_lone_plus_refused_through_the_service(fights: Fights) -> None:
    phase_fight(fights, crunch_single_plus_trade=False)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    refused(fights, cmd.Barter(combatant="Cid", trade=1, alter=0, direction=1), match="CT-BARTER-3")
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, alter=1, direction=1))


def test_PH_1_PH_3_turn_order_across_phases_with_ties_shown(fights: Fights) -> None:
    """PH-1: ++, +, 0, -, --; PH-3: in a phase, Agility descending; Bob and Cid (both Fair) tie."""
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, alter=1, direction=1))  # ++, 0, -, --
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1))  # ++, +, --
    assert turns(fights) == [
        ("++", "Ann", ()),
        ("++", "Bob", ()),
        ("+", "Bob", ("Cid",)),
        ("+", "Cid", ("Bob",)),
        ("0", "Ann", ()),
        ("0", "Cid", ()),
        ("-", "Ann", ()),
        ("-", "Cid", ()),
        ("--", "Ann", ()),
        ("--", "Bob", ("Cid",)),
        ("--", "Cid", ("Bob",)),
    ]


def test_PH_3_in_phase_order_follows_the_determinant_not_the_joining_order(fights: Fights) -> None:
    start(fights, rules="fudge-phases")
    join(fights, "Slow", "Poor")
    join(fights, "Quick", "Superb")
    fights.execute("fight", cmd.StartRound(), dice("slow=0 -", "quick=- - - - - - -"))
    assert turns(fights) == [("0", "Slow", ()), ("-", "Quick", ()), ("-", "Slow", ()),
                             ("--", "Quick", ()), ("--", "Slow", ())]


def test_PH_3_initiative_trait_option_picks_the_determinant(fights: Fights) -> None:
    """PH-3 option: another trait than Agility counts the dice and orders the phase."""
    start(fights, rules="fudge-phases", initiative_trait="Reflexes")
    join(fights, "Ann", "Great", attributes={"Reflexes": "Poor"})
    join(fights, "Bob", "Poor", attributes={"Reflexes": "Great"})
    outcome = fights.execute("fight", cmd.StartRound(), dice("ann=+ -", "bob=+ + 0 0 - -"))
    assert [len(r.event.faces) for r in outcome.records[1:]] == [2, 6]
    assert turns(fights)[0] == ("+", "Bob", ())


def test_next_past_the_end_of_the_round_is_refused(fights: Fights) -> None:
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    assert len(turns(fights)) == 10  # Ann 4 + Bob 2 + Cid 4; turns() stops at the refusal
    refused(fights, cmd.NextTurn(), match="round 1 is over")


def test_next_before_any_initiative_is_refused(fights: Fights) -> None:
    phase_fight(fights)
    refused(fights, cmd.NextTurn(), match="no initiative rolled")


def test_next_is_refused_without_phase_initiative(fights: Fights) -> None:
    start(fights, rules="fudge")
    join(fights, "Ann", "Great")
    refused(fights, cmd.NextTurn(), match="no initiative order")
    refused(fights, cmd.StartRound(surprised=("Ann",)), match="PH-5")


def test_PH_6_bartering_refused_once_the_first_turn_is_taken(fights: Fights) -> None:
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    fights.execute("fight", cmd.NextTurn())
    refused(fights, cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1), match="first turn")


def test_a_new_round_rolls_fresh_dice_and_reopens_bartering(fights: Fights) -> None:
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1))
    fights.execute("fight", cmd.NextTurn())
    outcome = fights.execute("fight", cmd.StartRound(), dice("ann=- - - - - -", "bob=0 0 0 0", "cid=+ + - -"))
    state = outcome.state
    assert state.round == 2 and state.turn is None
    assert phases_of(state.initiative["bob"]) == ["0", "--"]
    fights.execute("fight", cmd.Barter(combatant="Cid", trade=0, alter=2, direction=1))
    assert turns(fights)[0] == ("+", "Cid", ())


def test_PH_5_surprise_drops_one_level_after_bartering(fights: Fights) -> None:
    phase_fight(fights)
    outcome = fights.execute("fight", cmd.StartRound(surprised=("bob",)), dice(*SEED_ROLLS))
    assert outcome.records[0].event == ev.RoundStarted(round=1, surprised=("Bob",))
    assert [r.event.surprised for r in outcome.records[1:]] == [False, True, False]
    assert phases_of(outcome.state.initiative["bob"]) == ["0", "--"]
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1))  # ++ then drop -> +
    assert phases_of(fights.state("fight").initiative["bob"]) == ["+", "0", "--"]
    assert turns(fights) == [
        ("+", "Ann", ()), ("+", "Bob", ("Cid",)), ("+", "Cid", ("Bob",)),
        ("0", "Ann", ()), ("0", "Bob", ("Cid",)), ("0", "Cid", ("Bob",)),
        ("-", "Ann", ()), ("-", "Cid", ()),
        ("--", "Ann", ()), ("--", "Bob", ("Cid",)), ("--", "Cid", ("Bob",)),
    ]


def test_PH_5_a_surprised_combatant_keeps_double_minus(fights: Fights) -> None:
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(surprised=("Cid",)),
                   dice("ann=+ + 0 0 - -", "bob=+ + + +", "cid=- - - -"))
    assert phases_of(fights.state("fight").initiative["cid"]) == ["--"]
    assert [t for t in turns(fights) if t[1] == "Cid"] == [("--", "Cid", ("Bob",))]


def test_PH_5_surprise_needs_a_known_combatant(fights: Fights) -> None:
    phase_fight(fights)
    refused(fights, cmd.StartRound(surprised=("Dan",)), dice(*SEED_ROLLS), match="no combatant 'Dan'")


def test_F_PACE_3_attack_only_by_the_current_actor_once_per_turn(fights: Fights) -> None:
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, alter=1, direction=1))
    refused(fights, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"),
            match="no one's turn yet")
    fights.execute("fight", cmd.NextTurn())  # ++: Ann
    refused(fights, cmd.Attack(attacker="Bob", target="Ann"), dice("bob=0 0 0 0", "ann=0 0 0 0"),
            match=r"it is Ann's turn \(phase \+\+\)")
    outcome = fights.execute("fight", cmd.Attack(attacker="ann", target="Bob"), dice("ann=+ 0 0 0", "bob=0 0 0 0"))
    resolved = [r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved)]
    assert resolved and resolved[0].kind == "attack"
    assert outcome.state.turn is not None and outcome.state.turn.acted
    refused(fights, cmd.Attack(attacker="Ann", target="Cid"), dice("ann=0 0 0 0", "cid=0 0 0 0"),
            match=r"Ann already acted in phase \+\+")
    outcome = fights.execute("fight", cmd.NextTurn())  # +: Bob, with a fresh turn
    state = outcome.state
    assert state.turn is not None and state.turn.combatant == "bob" and state.turn.acted is False
    fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=0 0 0 0", "ann=0 0 0 0"))


def test_F_PACE_3_a_skipped_turn_lets_the_next_actor_attack(fights: Fights) -> None:
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    fights.execute("fight", cmd.NextTurn())  # +: Ann does nothing
    fights.execute("fight", cmd.NextTurn())  # +: Bob
    refused(fights, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"),
            match="it is Bob's turn")
    fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=0 0 0 0", "ann=0 0 0 0"))


def test_PH_1_a_fighter_taken_out_mid_round_loses_only_their_own_turns(fights: Fights) -> None:
    """PH-1, F-WND-1: when Bob takes Ann out, Bob's and Cid's later turns all still come."""
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Good", weapon=1)
    join(fights, "Bob", "Fair", weapon=10)
    join(fights, "Cid", "Fair", weapon=1)
    fights.execute("fight", cmd.StartRound(), dice("ann=+ + 0 - -", "bob=+ 0 0 -", "cid=0 0 - -"))
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    fights.execute("fight", cmd.NextTurn())  # +: Bob
    outcome = fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=+ + + +", "ann=- - - -"))
    assert not outcome.state.combatants["ann"].track.can_act
    assert turns(fights) == [
        ("0", "Bob", ("Cid",)), ("0", "Cid", ("Bob",)),
        ("-", "Bob", ("Cid",)), ("-", "Cid", ("Bob",)),
        ("--", "Bob", ("Cid",)), ("--", "Cid", ("Bob",)),
    ]


def test_PH_2_a_fighter_who_cannot_act_rolls_no_initiative(fights: Fights) -> None:
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Good", weapon=1)
    join(fights, "Bob", "Fair", weapon=10)
    fights.execute("fight", cmd.StartRound(), dice("ann=0 0 0 0 0", "bob=+ 0 0 -"))
    fights.execute("fight", cmd.NextTurn())  # +: Bob
    fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=+ + + +", "ann=- - - -"))
    outcome = fights.execute("fight", cmd.StartRound(), dice("bob=+ 0 0 -"))
    assert [r.event.combatant for r in outcome.records[1:]] == ["Bob"]
    assert "ann" not in outcome.state.initiative


def test_turn_order_is_a_pure_view_of_the_state(fights: Fights) -> None:
    phase_fight(fights)
    fights.execute("fight", cmd.StartRound(), dice(*SEED_ROLLS))
    order = turn_order(fights.state("fight"))
    assert [(PHASE_NAME[p], k) for p, k, _ in order][:4] == [("+", "ann"), ("+", "bob"), ("+", "cid"), ("0", "ann")]


def test_CT_TABLE_abysmal_rolls_no_dice_and_still_acts_in_double_minus(fights: Fights) -> None:
    """CT-TABLE `rolled`: Abysmal 0dF; PH-1: everyone acts in `--` (even when every roll must be entered)."""
    start(fights, rules="fudge-phases", dice="entered")
    join(fights, "Ann", "Abysmal")
    join(fights, "Bob", "Terrible")
    outcome = fights.execute("fight", cmd.StartRound(), dice("bob=+"))
    assert [(r.event.combatant, r.event.faces) for r in outcome.records[1:]] == [("Ann", ()), ("Bob", (1,))]
    assert turns(fights) == [("+", "Bob", ()), ("--", "Bob", ()), ("--", "Ann", ())]
