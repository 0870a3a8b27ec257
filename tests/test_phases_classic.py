"""`phases-classic` (seed 002): PC-DICE, PC-BARTER-1, PC-BARTER-2, PC-BARTER-3, PC-BARTER-4, PH-5 and PH-6 under classic bartering.

The pure rules first (engine.kernel.initiative on plain dice), then the same through
the Fights service under `examples/house/phases-classic.toml`, a replayed
three-combatant round as a snapshot, and the command line end to end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from fudge_combat.events.records import json_form
from fudge_combat.cli import render
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.dice import parse_faces
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.initiative import PHASE_NAME, Die, Initiative, allotment, barter, barter_classic
from fudge_combat.engine.kernel.ladder import FATE11, FUDGE7
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import evolve_all
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import cli_table, dice, sheet, without_odds

HOUSE = Path(__file__).resolve().parent.parent / "examples" / "house" / "phases-classic.toml"
CLASSIC = resolve("fudge", HOUSE.read_text(), HOUSE.name)[1]


def roll(faces: str, surprised: bool = False, fixed: tuple[int, ...] = ()) -> Initiative:
    """Initiative dice as typed at the table, plus fixed (automatic) results."""
    dice_ = tuple(Die(f) for f in parse_faces(faces)) + tuple(Die(f, fixed=True) for f in fixed)
    return Initiative(dice_, surprised)


def phases_of(initiative: Initiative, options: RuleOptions = CLASSIC) -> list[str]:
    return [PHASE_NAME[p] for p in initiative.phases(options)]


def test_the_house_file_resolves_to_phases_classic() -> None:
    """F-INIT-4, PH-6: `examples/house/phases-classic.toml` turns on 002's initiative and bartering."""
    assert (CLASSIC.pace, CLASSIC.initiative, CLASSIC.bartering) == ("alternating", "phases-classic", "classic")
    assert CLASSIC.ladder == "fudge7"


# --- PC-DICE ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("level", "rolled", "automatic"), [
    ("Awful", 0, ()), ("Terrible", 1, ()), ("Poor", 1, ()), ("Mediocre", 1, ()), ("Average", 2, ()),
    ("Fair", 3, ()), ("Good", 4, ()), ("Great", 4, (-1,)), ("Superb", 4, (0,)), ("Epic", 4, (1,)),
    ("Legendary", 4, (2,)),
])
def test_PC_DICE_table_on_the_fate11_ladder(level: str, rolled: int, automatic: tuple[int, ...]) -> None:
    """PC-DICE: Awful no dice ... Good 4dF; Great 4dF + `-`, Superb + `0`, Epic + `+`, Legendary + `++`."""
    allot = allotment(FATE11.parse(level), CLASSIC)
    assert (allot.rolled, allot.fixed) == (rolled, automatic)


@pytest.mark.parametrize(("level", "same_as"), [
    ("Terrible", "Terrible"), ("Poor", "Poor"), ("Mediocre", "Mediocre"), ("Fair", "Average"),
    ("Good", "Fair"), ("Great", "Good"), ("Superb", "Great"), ("Legendary", "Superb"),
])
def test_PC_DICE_a_fudge7_determinant_reads_its_number_on_the_same_table(level: str, same_as: str) -> None:
    """PC-DICE under a fudge7 fight: the determinant's integer value is read against 002's numbers."""
    assert allotment(FUDGE7.parse(level), CLASSIC) == allotment(FATE11.parse(same_as), CLASSIC)


def test_PC_DICE_beyond_the_ends_of_the_table() -> None:
    assert allotment(-7, CLASSIC).rolled == 0
    assert allotment(9, CLASSIC) == allotment(6, CLASSIC)


def test_PC_DICE_terrible_keeps_only_a_minus_and_poor_discards_a_plus() -> None:
    """PC-DICE: Terrible 1dF, discard any non-minus; Poor 1dF, discard a plus."""
    terrible, poor = allotment(-3, CLASSIC), allotment(-2, CLASSIC)
    assert set(terrible.discard) == {0, 1} and poor.discard == (1,)


# --- PC-BARTER ----------------------------------------------------------------------------------

def test_PC_BARTER_4_plus_plus_minus_trade_plus_and_minus_raise_the_other_plus() -> None:
    """PC-BARTER-4, 002: `+,+,-` -> trade the extra + and the -, raise the remaining + -> ++ and --."""
    after = barter_classic(roll("+ + -"), (0, 2), 1, 1, CLASSIC)
    assert phases_of(after) == ["++", "--"]
    assert after.dice == (Die(1, traded=True), Die(2), Die(-1, traded=True))


def test_PC_BARTER_4_the_other_choices_of_the_same_example() -> None:
    """PC-BARTER-4, 002: ...or turn the + into a blank; or trade both + to turn the - into a blank or a --."""
    assert phases_of(barter_classic(roll("+ + -"), (0, 2), 1, -1, CLASSIC)) == ["0", "--"]
    assert phases_of(barter_classic(roll("+ + -"), (0, 1), 2, 1, CLASSIC)) == ["0", "--"]
    lowered = barter_classic(roll("+ + -"), (0, 1), 2, -1, CLASSIC)
    assert lowered.dice[2].face == -2 and phases_of(lowered) == ["--"]


def test_PC_BARTER_4_four_plus_trade_two_raise_one() -> None:
    """PC-BARTER-4, 002: four + -> trade two, raise one of the other two -> ++, +, --."""
    initiative = roll("+ + + +")
    assert phases_of(initiative) == ["+", "--"]
    after = barter_classic(initiative, (0, 1), 2, 1, CLASSIC)
    assert phases_of(after) == ["++", "+", "--"]


def test_PC_BARTER_1_one_traded_die_must_show_plus_the_other_anything() -> None:
    """PC-BARTER-1: a + and a 0 may be traded; a 0 and a - may not."""
    assert phases_of(barter_classic(roll("+ 0 - 0"), (0, 1), 2, 1, CLASSIC)) == ["0", "--"]
    with pytest.raises(RuleError, match=r"one of the two dice traded in must show \+ \(dice 2 and 3 show 0 and -"):
        barter_classic(roll("+ 0 - 0"), (1, 2), 0, 1, CLASSIC)


def test_PC_BARTER_1_no_plus_showing_no_bartering() -> None:
    """PC-BARTER-1: with no + showing, no bartering at all."""
    with pytest.raises(RuleError, match=r"no \+ showing: no bartering \(PC-BARTER-1\)"):
        barter_classic(roll("0 0 - -"), (0, 1), 2, 1, CLASSIC)


def test_PC_BARTER_1_three_different_dice() -> None:
    with pytest.raises(RuleError, match="name three different dice"):
        barter_classic(roll("+ + -"), (0, 0), 1, 1, CLASSIC)
    with pytest.raises(RuleError, match="name three different dice"):
        barter_classic(roll("+ + -"), (0, 1), 1, 1, CLASSIC)
    with pytest.raises(RuleError, match="no die 4"):
        barter_classic(roll("+ + -"), (0, 3), 1, 1, CLASSIC)


def test_PC_BARTER_1_traded_dice_leave_play() -> None:
    after = barter_classic(roll("+ + + + 0"), (0, 1), 4, 1, CLASSIC)
    with pytest.raises(RuleError, match="die 1 was already traded in"):
        barter_classic(after, (0, 2), 3, 1, CLASSIC)
    again = barter_classic(after, (2, 4), 3, 1, CLASSIC)  # the raised + (now a plain +) can be traded
    assert phases_of(again) == ["++", "--"]


def test_PC_BARTER_2_needs_three_dice_rolled() -> None:
    """PC-BARTER-2: 002's example barters on 3dF, so "Good or above" reads as three dice rolled."""
    with pytest.raises(RuleError, match=r"at least three dice rolled; 2 were \(PC-BARTER-2\)"):
        barter_classic(roll("+ +"), (0, 1), 0, 1, CLASSIC)
    with pytest.raises(RuleError, match=r"at least three dice rolled; 2 were"):
        barter_classic(roll("+ +", fixed=(-1,)), (0, 2), 1, 1, CLASSIC)  # an automatic result is not rolled
    assert phases_of(barter_classic(roll("+ + -"), (0, 2), 1, 1, CLASSIC)) == ["++", "--"]


def test_PC_BARTER_3_nothing_above_double_plus() -> None:
    raised = barter_classic(roll("+ + + + +"), (0, 1), 2, 1, CLASSIC)
    with pytest.raises(RuleError, match=r"die 3 shows \+\+: nothing is above \+\+ \(PC-BARTER-3\)"):
        barter_classic(raised, (3, 4), 2, 1, CLASSIC)


def test_PC_BARTER_3_a_double_minus_cannot_be_altered() -> None:
    """PC-BARTER-3: nothing below `--`; a `--` (a - lowered by a barter) is never altered again."""
    lowered = barter_classic(roll("+ + - + +"), (0, 1), 2, -1, CLASSIC)
    assert lowered.dice[2].face == -2
    for direction in (1, -1):
        with pytest.raises(RuleError, match=r"die 3 shows --: a -- cannot be altered \(PC-BARTER-3\)"):
            barter_classic(lowered, (3, 4), 2, direction, CLASSIC)


def test_PC_BARTER_automatic_results_are_bartered_like_dice() -> None:
    """PC-DICE, PC-BARTER-1: a Great's automatic `-` is a fixed die: it may be altered or traded."""
    great = roll("+ + 0 0", fixed=(-1,))
    assert phases_of(great) == ["+", "0", "-", "--"]
    assert phases_of(barter_classic(great, (0, 2), 4, 1, CLASSIC)) == ["+", "0", "--"]
    assert phases_of(barter_classic(great, (0, 4), 1, 1, CLASSIC)) == ["++", "0", "--"]


def test_PH_6_classic_and_crunch_bartering_need_their_own_systems() -> None:
    """PH-6: classic bartering under phases-classic only; crunch bartering under phases-crunch only."""
    crunch = resolve("fudge-phases")[1]
    with pytest.raises(RuleError, match="no classic bartering"):
        barter_classic(roll("+ + -"), (0, 2), 1, 1, crunch)
    loose = msgspec.structs.replace(CLASSIC, **{"initiative": "phases-crunch"})  # an old log's options, say
    with pytest.raises(RuleError, match='needs initiative = "phases-classic"'):
        barter_classic(roll("+ + -"), (0, 2), 1, 1, loose)
    with pytest.raises(RuleError, match='needs initiative = "phases-crunch"'):
        barter(roll("+ + -"), 0, 1, 1, msgspec.structs.replace(crunch, **{"initiative": "phases-classic"}))


def test_PH_5_classic_surprise_drops_after_bartering_and_keeps_double_minus() -> None:
    """PH-5 under phases-classic: barter the faces rolled, then drop every result one level."""
    surprised = roll("+ + -", surprised=True)
    assert phases_of(surprised) == ["0", "--"]
    after = barter_classic(surprised, (0, 2), 1, 1, CLASSIC)
    assert phases_of(after) == ["+", "--"]
    assert phases_of(roll("- -", surprised=True, fixed=(-1,))) == ["--"]


# =========================================================================================
# Through the Fights service
# =========================================================================================

def start_classic(fights: Fights) -> None:
    label, options = resolve("fudge", HOUSE.read_text(), HOUSE.name)
    fights.new("fight", label, json_form(options))


def join(fights: Fights, name: str, agility: str, weapon: int = 2, **extra: Any) -> None:
    fights.execute("fight", cmd.Join(
        sheet=sheet(name, attributes={"Agility": agility}, skills={"Sword": "Good"}, attack="Sword",
                    weapon=weapon, **extra), source=f"{name.lower()}.toml"))


def refused(fights: Fights, command: Any, given: DiceInput | None = None, match: str = "") -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before


def test_PC_DICE_start_round_rolls_by_the_table_with_automatic_results_and_discards(fights: Fights) -> None:
    """PC-DICE through the service: Superb (+3) 4dF + `-`; Good (+1) 3dF; Terrible and Poor discard."""
    start_classic(fights)
    join(fights, "Ann", "Superb")
    join(fights, "Bob", "Good")
    join(fights, "Cid", "Terrible")
    join(fights, "Dan", "Poor")
    outcome = fights.execute("fight", cmd.StartRound(), dice("ann=+ + + +", "bob=+ + -", "cid=+", "dan=+"))
    rolled = {r.event.combatant: r.event for r in outcome.records[1:]}
    assert (rolled["Ann"].faces, rolled["Ann"].fixed, rolled["Ann"].discarded) == ((1, 1, 1, 1), (-1,), ())
    assert (rolled["Bob"].faces, rolled["Bob"].fixed) == ((1, 1, -1), ())
    assert (rolled["Cid"].faces, rolled["Cid"].discarded) == ((1,), (0,))
    assert (rolled["Dan"].faces, rolled["Dan"].discarded) == ((1,), (0,))
    state = outcome.state
    assert phases_of(state.initiative["ann"]) == ["+", "-", "--"]
    assert phases_of(state.initiative["cid"]) == ["--"] and phases_of(state.initiative["dan"]) == ["--"]
    assert render.describe(rolled["Ann"], state.ladder) == "Ann rolls initiative +3: + + + +, fixed -"
    assert render.describe(rolled["Cid"], state.ladder) == "Cid rolls initiative -3: +, discards die 1"
    again = fights.execute("fight", cmd.StartRound(), dice("ann=- 0 0 0", "bob=0 0 0", "cid=-", "dan=0"))
    kept = {r.event.combatant: r.event.discarded for r in again.records[1:]}
    assert kept["Cid"] == () and kept["Dan"] == ()
    assert phases_of(again.state.initiative["cid"]) == ["-", "--"]
    assert phases_of(again.state.initiative["dan"]) == ["0", "--"]


def test_PC_DICE_discarded_dice_cannot_be_bartered(fights: Fights) -> None:
    start_classic(fights)
    join(fights, "Cid", "Terrible")
    fights.execute("fight", cmd.StartRound(), dice("cid=+"))
    refused(fights, cmd.Barter(combatant="Cid", trade=0, second_trade=1, alter=2, direction=1),
            match="at least three dice rolled; 1 were")


def test_PH_6_PC_BARTER_1_each_traded_and_altered_die_is_its_own_event(fights: Fights) -> None:
    """PH-6: a classic barter writes two DieTraded events and one DieAltered event; the fold agrees."""
    start_classic(fights)
    join(fights, "Bob", "Good")
    fights.execute("fight", cmd.StartRound(), dice("bob=+ + -"))
    before = fights.state("fight").initiative["bob"]
    outcome = fights.execute("fight", cmd.Barter(combatant="bob", trade=0, second_trade=2, alter=1, direction=1))
    assert [r.event for r in outcome.records] == [
        ev.DieTraded(combatant="Bob", round=1, die=0, face=1),
        ev.DieTraded(combatant="Bob", round=1, die=2, face=-1),
        ev.DieAltered(combatant="Bob", round=1, die=1, direction=1, face_before=1, face_after=2),
    ]
    assert outcome.state.initiative["bob"] == barter_classic(before, (0, 2), 1, 1, CLASSIC)
    assert phases_of(fights.state("fight").initiative["bob"]) == ["++", "--"]
    fights.execute("fight", cmd.Undo())  # undo voids the whole barter
    assert fights.state("fight").initiative["bob"] == before


def test_PC_BARTER_refusals_through_the_service_write_nothing(fights: Fights) -> None:
    start_classic(fights)
    join(fights, "Ann", "Superb")  # +3: 4dF and an automatic -, die 5
    join(fights, "Bob", "Good")
    fights.execute("fight", cmd.StartRound(), dice("ann=0 0 - -", "bob=+ + -"))
    refused(fights, cmd.Barter(combatant="Ann", trade=0, second_trade=1, alter=2, direction=1),
            match=r"no \+ showing: no bartering")
    refused(fights, cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1),
            match="classic bartering trades two dice")
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, second_trade=1, alter=2, direction=-1))
    refused(fights, cmd.Barter(combatant="Ann", trade=0, second_trade=1, alter=4, direction=1),
            match=r"no \+ showing")
    state = fights.state("fight")
    assert state.initiative["bob"].dice[2].face == -2
    refused(fights, cmd.Barter(combatant="Bob", trade=0, second_trade=1, alter=2, direction=1),
            match="already traded")


def test_PC_BARTER_3_bartering_a_double_minus_is_refused_through_the_service(fights: Fights) -> None:
    """PC-BARTER-3: a die lowered to `--` cannot be altered again; the refusal writes nothing."""
    start_classic(fights)
    join(fights, "Ann", "Superb")  # 4dF and an automatic -, die 5
    fights.execute("fight", cmd.StartRound(), dice("ann=+ + + +"))
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, second_trade=1, alter=4, direction=-1))
    assert fights.state("fight").initiative["ann"].dice[4].face == -2
    refused(fights, cmd.Barter(combatant="Ann", trade=2, second_trade=3, alter=4, direction=1),
            match=r"die 5 shows --: a -- cannot be altered \(PC-BARTER-3\)")


def test_PH_5_classic_surprised_combatant_through_the_service(fights: Fights) -> None:
    start_classic(fights)
    join(fights, "Bob", "Good")
    fights.execute("fight", cmd.StartRound(surprised=("Bob",)), dice("bob=+ + -"))
    assert phases_of(fights.state("fight").initiative["bob"]) == ["0", "--"]
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, second_trade=2, alter=1, direction=1))
    assert phases_of(fights.state("fight").initiative["bob"]) == ["+", "--"]


# --- the replayed round --------------------------------------------------------------------------

def classic_round(fights: Fights) -> None:
    """Three fighters under examples/house/phases-classic.toml, 002's dice and barters.

    Ann (Agility Superb, +3: 4dF and an automatic `-`) rolls four +: trades two,
    raises a third -> ++, +, -, --. Bob (Good, +1: 3dF) rolls `+,+,-`, trades the
    extra + and the -, raises the other + to ++; he is surprised, so it drops to
    + (PH-5). Cid (Poor, -2: 1dF) rolls a + and discards it: he acts in -- only.
    """
    start_classic(fights)
    join(fights, "Ann", "Superb", weapon=3)
    join(fights, "Bob", "Good", weapon=2, armor=1)
    join(fights, "Cid", "Poor", weapon=1)
    fights.execute("fight", cmd.StartRound(surprised=("Bob",)), dice("ann=+ + + +", "bob=+ + -", "cid=+"))
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, second_trade=1, alter=2, direction=1))
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, second_trade=2, alter=1, direction=1))
    fights.execute("fight", cmd.NextTurn())  # ++: Ann
    fights.execute("fight", cmd.Attack(attacker="Ann", target="Cid"), dice("ann=+ + 0 0", "cid=0 - 0 0"))
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    fights.execute("fight", cmd.NextTurn())  # +: Bob (his ++ dropped to +)
    fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=+ 0 0 0", "ann=0 0 - 0"))
    fights.execute("fight", cmd.NextTurn())  # -: Ann (the automatic result)
    fights.execute("fight", cmd.NextTurn())  # --: Ann
    fights.execute("fight", cmd.NextTurn())  # --: Bob
    fights.execute("fight", cmd.NextTurn())  # --: Cid
    fights.execute("fight", cmd.Attack(attacker="Cid", target="Bob"), dice("cid=+ + + 0", "bob=- 0 0 0"))


def test_PC_PH_replay_of_a_classic_bartered_round(fights: Fights, snapshot: SnapshotAssertion) -> None:
    """A-REPLAY-1 of PC-DICE, PC-BARTER-1, PC-BARTER-2, PC-BARTER-3, PC-BARTER-4, PH-1, PH-3, PH-5, PH-6: the state after every event."""
    classic_round(fights)
    log = fights.log("fight")
    turns = [(PHASE_NAME[e.phase], e.combatant) for e in (r.event for r in log) if isinstance(e, ev.TurnTaken)]
    assert turns == [("++", "Ann"), ("+", "Ann"), ("+", "Bob"), ("-", "Ann"),
                     ("--", "Ann"), ("--", "Bob"), ("--", "Cid")]
    steps = [{"seq": record.seq, "type": record.event.type,
              "event": render.line(record.event, state), "state": render.status_json(state)}
             for record, state in evolve_all(log)]
    assert steps[-1]["state"] == render.status_json(fights.state("fight"))
    assert verify(fights.store.read("fight")).ok
    assert steps == snapshot(name="classic_bartered_round")


# --- the command line, end to end ------------------------------------------------------------------

SHEETS = {
    "ann": 'name = "Ann"\n[attributes]\nAgility = "Superb"\n[skills]\nSword = "Good"\n'
           '[combat]\nattack = "Sword"\n[weapon]\ndamage = 3\n',
    "bob": 'name = "Bob"\n[attributes]\nAgility = "Good"\n[skills]\nAxe = "Fair"\n'
           '[combat]\nattack = "Axe"\n[weapon]\ndamage = 2\n',
    "cid": 'name = "Cid"\n[attributes]\nAgility = "Poor"\n[skills]\nSpear = "Fair"\n'
           '[combat]\nattack = "Spear"\n[weapon]\ndamage = 1\n',
}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Any]:
    """`fudge ...` against a real SQLite file in tmp_path, with the sheets written there."""
    yield from cli_table(tmp_path, SHEETS)


def refused_cli(fudge: Any, *args: str, message: str) -> None:
    before = SqliteStore(fudge.db).last_seq("x")
    result = fudge(*args, ok=False)
    assert result.exit_code != 0
    assert result.stderr.strip().splitlines() == [f"error: {message}"]
    assert SqliteStore(fudge.db).last_seq("x") == before


def test_cli_PC_DICE_PC_BARTER_4_the_house_file_end_to_end(table: Any) -> None:
    """`fudge new --house examples/house/phases-classic.toml`: round, barter, card, next, attack, verify."""
    assert table("new", "x", "--house", str(HOUSE)).stdout == (
        "fight x started under fudge (phases-classic); it is now the current fight\n")
    for name in ("ann", "bob", "cid"):
        table("join", str(table.dir / f"{name}.toml"))
    out = table("round", "--surprised", "Bob", "--dice", "Ann=+ + + +", "--dice", "Bob=+ + -",
                "--dice", "Cid=+").stdout.splitlines()
    assert out == [
        "   5  round 1 begins, surprised: Bob",
        "   6  Ann rolls initiative +3: + + + +, fixed -",
        "   7  Bob rolls initiative +1: + + - (surprised)",
        "   8  Cid rolls initiative -2: +, discards die 1",
        "  → order: + Ann; 0 Bob; - Ann; -- Ann, Bob, Cid",  # PC-DICE: Bob's surprise drops + to 0 (PH-5)
    ]
    refused_cli(table, "barter", "Bob", "--trade", "1", "--raise", "2",
                message="classic bartering trades two dice (PC-BARTER-1): give --trade twice")
    refused_cli(table, "barter", "Cid", "--trade", "1", "--trade", "2", "--raise", "3",
                message="bartering needs at least three dice rolled; 1 were (PC-BARTER-2)")
    assert table("barter", "Ann", "--trade", "1", "--trade", "2", "--raise", "3").stdout.splitlines() == [
        "   9  Ann trades in die 1 (+)",
        "  10  Ann trades in die 2 (+)",
        "  11  Ann raises die 3: + → ++",
        "  → order: ++ Ann; + Ann; 0 Bob; - Ann; -- Ann, Bob, Cid",
    ]
    table("barter", "Bob", "--trade", "1", "--trade", "3", "--raise", "2")
    card = [line.rstrip() for line in table("initiative").stdout.splitlines()]
    assert card[:9] == [
        "Ann",
        "    * ++: [++]#3",
        "    *  +: [+]#4",
        "       0:",
        "    *  -: [-]#5f",
        "    * --: [+]#1 [+]#2",
        "      f: a fixed die, frozen on its face",
        "Bob",
        "      ++: [++]#2",
    ]
    assert card[9:15] == [
        "    *  +:",
        "       0:",
        "       -:",
        "    * --: [+]#1 [-]#3",
        "      surprised: every phase drops one level (PH-5)",
        "Cid",
    ]
    assert card[15:] == ["      ++:", "       +:", "       0:", "       -:", "    * --:",
                         "      discarded before bartering: [+]#1"]
    status_text = table("status", "--long").stdout
    assert "    *  -: [-]#5f" in status_text and "      discarded before bartering: [+]#1" in status_text
    status = json.loads(table("status", "--json").stdout)
    ann = status["combatants"][0]["initiative"]
    assert ann["phases"] == ["++", "+", "-", "--"]
    assert ann["dice"][4] == {"face": "-", "traded": False, "locked": False, "fixed": True}
    assert status["combatants"][2]["initiative"]["dice"] == [
        {"face": "+", "traded": False, "locked": False, "discarded": True}]
    assert without_odds(table("next").stdout) == "  15  phase ++: Ann acts\n  → Ann's turn (phase ++)\n"
    table("attack", "Ann", "Cid", "--dice", "Ann=+ + 0 0", "--dice", "Cid=0 - 0 0")
    assert without_odds(table("next").stdout).endswith("phase +: Ann acts\n  → Ann's turn (phase +)\n")
    assert without_odds(table("next").stdout).endswith("phase +: Bob acts\n  → Bob's turn (phase +)\n")
    assert table("verify", "x").exit_code == 0


# --- properties --------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(faces=st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=4),
       moves=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4), st.sampled_from([1, -1])),
                      max_size=4),
       surprised=st.booleans())
def test_PC_BARTER_3_PH_5_any_barters_stay_between_double_minus_and_double_plus(
        faces: list[int], moves: list[tuple[int, int, int, int]], surprised: bool) -> None:
    """PC-BARTER-1, PC-BARTER-2, PC-BARTER-3, PH-5: whatever barters are allowed, every die stays within `--`..`++`, each barter
    spends two dice and one traded die showed +, and `--` is always a phase."""
    initiative = Initiative(tuple(Die(f) for f in faces), surprised)
    for first, second, alter, direction in moves:
        before = initiative
        try:
            initiative = barter_classic(initiative, (first, second), alter, direction, CLASSIC)
        except RuleError:
            assert initiative == before
            continue
        assert 1 in (before.dice[first].face, before.dice[second].face)
        assert sum(d.traded for d in initiative.dice) == sum(d.traded for d in before.dice) + 2
        assert before.dice[alter].face != -2
    assert all(-2 <= d.face <= 2 for d in initiative.dice)
    assert initiative.phases(CLASSIC)[-1] == -2
