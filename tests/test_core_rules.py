"""The common core: ladders (C-LAD), dice (C-DICE-1, C-DICE-2, C-DICE-3, C-DICE-6) and actions (C-ACT-1, C-ACT-2, C-ACT-3, C-ACT-4).

Pure functions first (engine.kernel.ladder, engine.kernel.dice), then the same rules
through the Fights service, where a roll becomes events in the log.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.dice import EnteredDice, Roll, SeededDice, commitment, derive_faces, format_faces, parse_faces
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.engine.kernel.ladder import FATE11, FUDGE7
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from tests.conftest import dice, make_fights, sheet, start


def events_of(outcome: Any, kind: type) -> list[Any]:
    return [r.event for r in outcome.records if isinstance(r.event, kind)]


# --- C-LAD ------------------------------------------------------------------------

def test_C_LAD_1_levels_are_integers_shown_by_name() -> None:
    """C-LAD-1."""
    assert FUDGE7.parse("Good") == 1
    assert isinstance(FUDGE7.parse("Good"), int)
    assert FUDGE7.name(1) == "Good"
    assert FATE11.name(1) == "Fair"


def test_C_LAD_1_a_sheet_is_read_as_integers_on_the_fights_ladder(fights: Fights) -> None:
    """C-LAD-1."""
    start(fights)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", attributes={"Strength": "Great"},
                                                 skills={"Sword": "poor", "Axe": "+1"}), source="ann.toml"))
    fighter = fights.state("fight").combatants["ann"].fighter
    assert fighter.attributes == {"Strength": 2}
    assert fighter.skills == {"Sword": -2, "Axe": 1}


@pytest.mark.parametrize(("name", "value"), [
    ("Terrible", -3), ("Poor", -2), ("Mediocre", -1), ("Fair", 0),
    ("Good", 1), ("Great", 2), ("Superb", 3),
])
def test_C_LAD_2_fudge7_levels(name: str, value: int) -> None:
    """C-LAD-2."""
    assert FUDGE7.parse(name) == value
    assert FUDGE7.name(value) == name


def test_C_LAD_2_fudge7_rare_legendary_and_crunch_times_abysmal_are_accepted() -> None:
    """C-LAD-2."""
    assert FUDGE7.parse("Legendary") == 4
    assert FUDGE7.parse("Abysmal") == -4


@pytest.mark.parametrize(("name", "value"), [
    ("Awful", -4), ("Terrible", -3), ("Poor", -2), ("Mediocre", -1), ("Average", 0), ("Fair", 1),
    ("Good", 2), ("Great", 3), ("Superb", 4), ("Epic", 5), ("Legendary", 6),
])
def test_C_LAD_3_fate11_levels(name: str, value: int) -> None:
    """C-LAD-3."""
    assert FATE11.parse(name) == value
    assert FATE11.name(value) == name


@pytest.mark.parametrize(("ladder", "value", "shown"), [
    (FUDGE7, 5, "Superb+2"), (FUDGE7, 4, "Superb+1"), (FUDGE7, -4, "Terrible-1"), (FUDGE7, -6, "Terrible-3"),
    (FATE11, 7, "Legendary+1"), (FATE11, -6, "Awful-2"),
])
def test_C_LAD_4_results_beyond_the_ends(ladder: Any, value: int, shown: str) -> None:
    """C-LAD-4."""
    assert ladder.name(value) == shown
    assert ladder.parse(shown) == value


@settings(max_examples=60, deadline=None)
@given(value=st.integers(min_value=-20, max_value=20), fate=st.booleans())
def test_C_LAD_4_every_result_reads_back_as_itself(value: int, fate: bool) -> None:
    """C-LAD-4."""
    ladder = FATE11 if fate else FUDGE7
    assert ladder.parse(ladder.name(value)) == value


@pytest.mark.parametrize(("text", "value"), [
    ("good", 1), ("GREAT", 2), ("  Superb ", 3), ("mediocre", -1),
    ("+2", 2), ("-1", -1), ("0", 0), ("3", 3), (-2, -2),
])
def test_C_LAD_5_input_by_name_any_case_or_signed_integer(text: Any, value: int) -> None:
    """C-LAD-5."""
    assert FUDGE7.parse(text) == value


def test_C_LAD_5_unknown_name_is_a_clear_error_listing_the_ladder() -> None:
    """C-LAD-5."""
    with pytest.raises(InputError) as caught:
        FUDGE7.parse("Grate")
    message = str(caught.value)
    assert "'Grate'" in message and "fudge7" in message
    for name in ("Terrible", "Poor", "Mediocre", "Fair", "Good", "Great", "Superb"):
        assert name in message


def test_C_LAD_5_unknown_level_on_a_sheet_names_the_file_and_key(fights: Fights) -> None:
    """C-LAD-5."""
    start(fights)
    before = fights.store.last_seq("fight")
    with pytest.raises(InputError, match=r"ann\.toml: \[skills\] Sword: unknown level 'Grate'.*Superb"):
        fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Grate"}), source="ann.toml"))
    assert fights.store.last_seq("fight") == before


# --- C-DICE -----------------------------------------------------------------------

def test_C_DICE_1_four_fudge_dice_sum_distribution() -> None:
    """C-DICE-1: 4dF totals -4..+4 with 1,4,10,16,19,16,10,4,1 chances in 81."""
    totals = Counter(sum(faces) for faces in itertools.product((-1, 0, 1), repeat=4))
    assert [totals[t] for t in range(-4, 5)] == [1, 4, 10, 16, 19, 16, 10, 4, 1]
    assert Roll((1, -1, 0, 1), "entered").total == 1


def test_C_DICE_1_generated_faces_are_fudge_faces_and_equally_likely() -> None:
    """C-DICE-1, A-FAIR: 3000 generated dice from a fixed seed; each face near a third."""
    faces = [f for draw in range(750) for f in derive_faces(b"seed", "s", draw, 4)]
    counts = Counter(faces)
    assert set(counts) == {-1, 0, 1}
    for face in (-1, 0, 1):
        assert 900 <= counts[face] <= 1100


def test_C_DICE_1_a_byte_of_255_is_rejected_so_faces_stay_unbiased() -> None:
    """C-DICE-1: 255 = 3 * 85: keeping it would favour one face; the generator skips it."""
    for draw in itertools.count():
        digest = hmac.new(b"seed", f"s:{draw}:0".encode(), hashlib.sha256).digest()
        kept = [b % 3 - 1 for b in digest if b != 255][:4]
        naive = [b % 3 - 1 for b in digest][:4]
        if 255 in digest[:4] and kept != naive:
            break
    assert list(derive_faces(b"seed", "s", draw, 4)) == kept


def test_C_DICE_2_every_die_of_every_roll_is_recorded(fights: Fights) -> None:
    """C-DICE-2."""
    duel(fights)
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"))  # generated dice
    rolls = events_of(outcome, ev.DiceRolled)
    assert [r.roller for r in rolls] == ["Ann", "Bob"]
    for roll in rolls:
        assert len(roll.faces) == 4 and set(roll.faces) <= {-1, 0, 1}
    resolved = events_of(outcome, ev.ExchangeResolved)[0]
    assert [s.roll for s in resolved.sides] == [sum(r.faces) for r in rolls]


def test_C_DICE_2_replay_reads_the_recorded_faces_and_never_rolls(fights: Fights) -> None:
    """C-DICE-2."""
    duel(fights)
    live = None
    for _ in range(4):
        live = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob")).state
    log = fights.log("fight")
    # The seed is gone from this store: replaying still gives the same fight, since it only reads faces.
    fights.secrets.clear()  # type: ignore[attr-defined]
    again = replay(log)
    assert again.combatants["ann"].track == live.combatants["ann"].track
    assert again.combatants["bob"].track == live.combatants["bob"].track
    assert again.events == live.events


@pytest.mark.parametrize("typed", ["+ - 0 +", "+-0+", "1,-1,0,1", "1 -1 0 1", " + , - , 0 , + "])
def test_C_DICE_3_faces_typed_at_the_table(typed: str) -> None:
    """C-DICE-3."""
    assert parse_faces(typed) == (1, -1, 0, 1)


@pytest.mark.parametrize("typed", ["", "2,0,0,0", "+ x 0", "1,1,5"])
def test_C_DICE_3_unreadable_faces_are_refused(typed: str) -> None:
    """C-DICE-3."""
    with pytest.raises(InputError):
        parse_faces(typed)


def test_C_DICE_3_format_faces_round_trips() -> None:
    """C-DICE-3."""
    assert format_faces((1, -1, 0, 1)) == "+ - 0 +"
    assert parse_faces(format_faces((1, -1, 0, 1))) == (1, -1, 0, 1)


def test_C_DICE_3_entered_faces_are_recorded_as_entered(fights: Fights) -> None:
    """C-DICE-3."""
    duel(fights)
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=+-0+", "bob=1,1,0,0"))
    rolls = events_of(outcome, ev.DiceRolled)
    assert [(r.roller, r.faces, r.source) for r in rolls] == [
        ("Ann", (1, -1, 0, 1), "entered"), ("Bob", (1, 1, 0, 0), "entered")]
    assert all(r.stream is None and r.draw is None for r in rolls)
    mixed = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000"))
    assert [r.source for r in events_of(mixed, ev.DiceRolled)] == ["entered", "generated"]


def test_C_DICE_3_entered_dice_option_requires_every_roll_typed(fights: Fights) -> None:
    """C-DICE-3."""
    duel(fights, dice="entered")
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match="Bob needs a .* roll of 4dF"):
        fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000"))
    assert fights.store.last_seq("fight") == before


def test_C_DICE_3_wrong_number_of_faces_is_refused(fights: Fights) -> None:
    """C-DICE-3."""
    duel(fights)
    before = fights.store.last_seq("fight")
    with pytest.raises(InputError, match="needs 4 dice, 3 were entered"):
        fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("+ + +"))
    assert fights.store.last_seq("fight") == before


def test_C_DICE_6_generated_rolls_derive_from_the_committed_seed(fights: Fights) -> None:
    """C-DICE-6."""
    duel(fights)
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"))
    more = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"))
    first = fights.log("fight")[0]
    started = first.event
    assert isinstance(started, ev.FightStarted)
    seed = bytes.fromhex(fights.secrets.get(first.fight, f"seed:{started.seed_commitment}"))
    assert started.seed_commitment == commitment(seed) == hashlib.sha256(seed).hexdigest()
    rolls = events_of(outcome, ev.DiceRolled) + events_of(more, ev.DiceRolled)
    assert [r.draw for r in rolls] == [0, 1, 2]
    for roll in rolls:
        assert roll.source == "generated" and roll.stream == started.stream
        assert roll.faces == derive_faces(seed, started.stream, roll.draw, 4)


def test_C_DICE_6_the_same_seed_reproduces_the_same_fight() -> None:
    """C-DICE-6."""
    faces = []
    for _ in range(2):
        fights = make_fights()
        duel(fights)
        outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"))
        faces.append([r.faces for r in events_of(outcome, ev.DiceRolled)])
    assert faces[0] == faces[1]
    seeded = SeededDice(b"x", "s")
    assert [seeded.roll("a", 4, "p").draw for _ in range(3)] == [0, 1, 2]


def test_C_DICE_6_entered_dice_fall_back_to_the_seeded_stream() -> None:
    """C-DICE-6."""
    source = EnteredDice(by_roller={"ann": [(1, 1, 1, 1)]}, fallback=SeededDice(b"x", "s"))
    assert source.roll("Ann", 4, "p") == Roll((1, 1, 1, 1), "entered")
    generated = source.roll("Ann", 4, "p")
    assert generated == Roll(derive_faces(b"x", "s", 0, 4), "generated", "s", 0)


# --- C-ACT ------------------------------------------------------------------------

def duel(fights: Fights, **options: Any) -> None:
    start(fights, **options)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Great"}, attack="Sword", weapon=1),
                                     source="ann.toml"))
    fights.execute("fight", cmd.Join(sheet=sheet("Bob", skills={"Sword": "Good"}, attack="Sword", weapon=1),
                                     source="bob.toml"))


def resolved(outcome: Any) -> ev.ActionResolved:
    return events_of(outcome, ev.ActionResolved)[-1]


def test_C_ACT_1_result_is_level_plus_dice_plus_named_modifiers(fights: Fights) -> None:
    """C-ACT-1."""
    duel(fights)
    # Bob hits Ann for a Hurt wound first (Bob Good+2 vs Ann Great-1: RD +2, factor 1+1-0 -> damage 3).
    hurt = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=-000", "bob=++00"))
    assert [w.level for w in events_of(hurt, ev.WoundMarked)] == [2]
    outcome = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", mod=-2), dice("+ + 0 -"))
    action = resolved(outcome)
    assert (action.trait, action.level, action.roll) == ("Sword", 2, 1)
    assert [(m.name, m.value) for m in action.modifiers] == [("wound: Hurt", -1), ("GM modifier", -2)]
    assert action.result == 2 + 1 - 1 - 2 == 0


def test_C_ACT_1_missing_attribute_is_fair_unlisted_skill_is_poor(fights: Fights) -> None:
    """C-ACT-1."""
    duel(fights)
    perception = resolved(fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Perception"), dice("0000")))
    assert (perception.level, perception.result) == (0, 0)
    climbing = resolved(fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Climbing"), dice("0000")))
    assert (climbing.level, climbing.result) == (-2, -2)


@pytest.mark.parametrize(("faces", "difficulty", "success", "margin"), [
    ("0 0 0 0", None, True, 2),      # Great vs the default Fair
    ("- - 0 0", None, True, 0),      # Fair vs Fair: result = difficulty succeeds
    ("- - - 0", None, False, -1),
    ("0 0 0 0", 3, False, -1),       # Great vs Superb
    ("+ 0 0 0", 3, True, 0),
])
def test_C_ACT_2_unopposed_success_when_result_reaches_the_difficulty(
        fights: Fights, faces: str, difficulty: int | None, success: bool, margin: int) -> None:
    """C-ACT-2."""
    duel(fights)
    action = resolved(fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=difficulty),
                                     dice(faces)))
    assert action.difficulty == (0 if difficulty is None else difficulty)
    assert (action.success, action.margin) == (success, margin)
    assert action.opponent is None


def test_C_ACT_2_default_difficulty_is_an_option(fights: Fights) -> None:
    """C-ACT-2."""
    duel(fights, default_difficulty=1)
    action = resolved(fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("- 0 0 0")))
    assert (action.difficulty, action.result, action.margin, action.success) == (1, 1, 0, True)


@pytest.mark.parametrize(("ann", "bob", "margin", "success"), [
    ("0 0 0 0", "0 0 0 0", 1, True),   # Great vs Good
    ("- 0 0 0", "0 0 0 0", 0, False),  # Good vs Good: a tie
    ("- - 0 0", "+ 0 0 0", -2, False),
])
def test_C_ACT_3_opposed_relative_degree(fights: Fights, ann: str, bob: str, margin: int, success: bool) -> None:
    """C-ACT-3."""
    duel(fights)
    outcome = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", opponent="Bob"),
                             dice(f"ann={ann}", f"bob={bob}"))
    action = resolved(outcome)
    assert action.opponent == "Bob" and action.opponent_trait == "Sword"
    assert action.result - action.opponent_result == action.margin == margin
    assert action.success is success
    assert [r.roller for r in events_of(outcome, ev.DiceRolled)] == ["Ann", "Bob"]


def test_C_ACT_3_opposed_with_another_trait_and_gm_modifiers(fights: Fights) -> None:
    """C-ACT-3."""
    duel(fights)
    action = resolved(fights.execute(
        "fight", cmd.RollTrait(combatant="Ann", trait="Sword", opponent="Bob", opponent_trait="Perception",
                               opponent_mod=1), dice("ann=0000", "bob=0000")))
    assert (action.opponent_trait, action.opponent_level, action.opponent_result) == ("Perception", 0, 1)
    assert action.margin == 1


def test_C_ACT_4_situational_roll_has_no_trait(fights: Fights) -> None:
    """C-ACT-4."""
    duel(fights)
    outcome = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait=None), dice("+ + - 0"))
    action = resolved(outcome)
    assert action.level == 0
    assert action.roll == 1 and action.result == 1
    assert action.modifiers == ()
    assert events_of(outcome, ev.DiceRolled)[0].faces == (1, 1, -1, 0)
