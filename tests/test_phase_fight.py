"""A phase-initiative fight (`fudge-phases`): its replay as a snapshot, and the CLI at the table.

PH-1, PH-2, PH-3, PH-4, PH-5, PH-6, CT-TABLE `rolled`, CT-BARTER-1, CT-BARTER-2, CT-BARTER-3, CT-BARTER-4, CT-BARTER-5 (seed 003, "Crunch Time"), F-PACE-3.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from fudge_combat.cli.render import status_json
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.projections.fold import evolve_all
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import cli_table, dice, sheet, start, without_odds


def join(fights: Fights, name: str, agility: str, skill: str, weapon: int, armor: int) -> None:
    fights.execute("fight", cmd.Join(
        sheet=sheet(name, attributes={"Agility": agility}, skills={"Sword": skill}, attack="Sword",
                    weapon=weapon, armor=armor, fudge_points=1),
        source=f"{name.lower()}.toml"))


def bartered_round(fights: Fights, whole_round: bool = True) -> None:
    """Three fighters, the seed's dice and barters, then the round in phase order.

    Ann (Great, 6dF) rolls 003's card `+,+,0,0,-,-` and trades a + to raise the other:
    ++, 0, -, -- (CT-BARTER-5). Bob (Fair, 4dF) rolls four +: trade one, raise one:
    ++, +, --. Cid (Fair, 4dF) rolls `0,+,-,0` and trades his lone + to raise a blank,
    which is then locked (CT-BARTER-2, CT-BARTER-3). Bob is surprised (PH-5).
    """
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Great", "Good", weapon=3, armor=1)
    join(fights, "Bob", "Fair", "Fair", weapon=2, armor=2)
    join(fights, "Cid", "Fair", "Good", weapon=2, armor=0)
    fights.execute("fight", cmd.StartRound(surprised=("Bob",)),
                   dice("ann=+ + 0 0 - -", "bob=+ + + +", "cid=0 + - 0"))
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, alter=1, direction=1))
    fights.execute("fight", cmd.Barter(combatant="Bob", trade=0, alter=1, direction=1))
    fights.execute("fight", cmd.Barter(combatant="Cid", trade=1, alter=0, direction=1))
    fights.execute("fight", cmd.NextTurn())  # ++: Ann
    fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=+ + 0 0", "bob=0 0 - 0"))
    fights.execute("fight", cmd.NextTurn())  # +: Bob (surprised: ++ dropped to +), tied with Cid
    fights.execute("fight", cmd.NextTurn())  # +: Cid
    fights.execute("fight", cmd.Attack(attacker="Cid", target="Ann"), dice("cid=+ 0 + 0", "ann=- 0 0 0"))
    fights.execute("fight", cmd.NextTurn())  # 0: Ann
    while whole_round:
        try:
            fights.execute("fight", cmd.NextTurn())
        except RuleError:
            break


def test_PH_CT_BARTER_replay_of_a_bartered_phase_round(fights: Fights, snapshot: SnapshotAssertion) -> None:
    """A-REPLAY-1 of PH-1, PH-2, PH-3, PH-4, PH-5, PH-6 and CT-BARTER-1, CT-BARTER-2, CT-BARTER-3, CT-BARTER-4, CT-BARTER-5: the state after every event, up to the 0 phase.

    (The rest of the round's turns are spelled out in the next test.)
    """
    bartered_round(fights, whole_round=False)
    log = fights.log("fight")
    steps = [{"seq": record.seq, "type": record.event.type, "state": status_json(state)}
             for record, state in evolve_all(log)]
    assert steps == snapshot(name="bartered_phase_round")
    # The replay's last state is the live state, and the log verifies (A-VERIFY-1).
    assert steps[-1]["state"] == status_json(fights.state("fight"))
    assert verify(fights.store.read("fight")).ok


def test_PH_1_PH_3_PH_5_replayed_turns_of_the_bartered_round(fights: Fights) -> None:
    """What the snapshot shows, spelled out: turns in phase order, Bob surprised, ties named."""
    bartered_round(fights)
    turns = [(e.phase, e.combatant, e.tied_with) for e in (r.event for r in fights.log("fight"))
             if e.type == "turn_taken"]
    assert turns == [
        (2, "Ann", ()),
        (1, "Bob", ("Cid",)), (1, "Cid", ("Bob",)),
        (0, "Ann", ()), (0, "Bob", ("Cid",)), (0, "Cid", ("Bob",)),  # Bob's + dropped to 0
        (-1, "Ann", ()), (-1, "Cid", ()),
        (-2, "Ann", ()), (-2, "Bob", ("Cid",)), (-2, "Cid", ("Bob",)),
    ]


# --- the command line ----------------------------------------------------------------------

SHEETS = {
    "ann": """
name = "Ann"
fudge_points = 1
[attributes]
Agility = "Great"
[skills]
Sword = "Good"
[combat]
attack = "Sword"
[weapon]
damage = 3
""",
    "bob": """
name = "Bob"
[attributes]
Agility = "Fair"
[skills]
Axe = "Fair"
[combat]
attack = "Axe"
[weapon]
damage = 2
[armor]
protection = 1
""",
    "cid": """
name = "Cid"
[attributes]
Agility = "Fair"
[skills]
Spear = "Good"
[combat]
attack = "Spear"
[weapon]
damage = 2
""",
}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Any]:
    """`fudge ...` against a real SQLite file in tmp_path, with the sheets written there."""
    yield from cli_table(tmp_path, SHEETS)


def last_seq(fudge: Any) -> int:
    return SqliteStore(fudge.db).last_seq("x")


def refused_cli(fudge: Any, *args: str, message: str) -> None:
    """Errors: one clear line on stderr, non-zero exit, nothing written."""
    before = last_seq(fudge)
    result = fudge(*args, ok=False)
    assert result.exit_code != 0
    assert result.stderr.strip().splitlines() == [f"error: {message}"]
    assert result.stdout == ""
    assert last_seq(fudge) == before


def setup_fight(fudge: Any) -> None:
    assert fudge("new", "x", "--rules", "fudge-phases").stdout == (
        "fight x started under fudge-phases; it is now the current fight\n")
    for name in ("ann", "bob", "cid"):
        fudge("join", str(fudge.dir / f"{name}.toml"))


def test_cli_PH_2_CT_TABLE_round_rolls_entered_initiative_dice(table: Any) -> None:
    setup_fight(table)
    result = table("round", "--dice", "Ann=+ + 0 0 - -", "--dice", "Bob=+ + + +", "--dice", "cid=0+-0")
    assert result.stdout.splitlines() == [
        "   5  round 1 begins",
        "   6  Ann rolls initiative +2: + + 0 0 - -",
        "   7  Bob rolls initiative +0: + + + +",
        "   8  Cid rolls initiative +0: 0 + - 0",
        "  → order: + Ann, Bob, Cid; 0 Ann, Cid; - Ann, Cid; -- Ann, Bob, Cid",  # PH-1, PH-2: who acts in each phase
    ]
    status = json.loads(table("status", "--json").stdout)
    assert status["round"] == 1 and status["phase"] is None
    by_name = {c["name"]: c["initiative"] for c in status["combatants"]}
    assert [d["face"] for d in by_name["Ann"]["dice"]] == ["+", "+", "0", "0", "-", "-"]
    assert by_name["Ann"]["phases"] == ["+", "0", "-", "--"]
    assert by_name["Bob"]["phases"] == ["+", "--"]
    assert by_name["Cid"]["phases"] == ["+", "0", "-", "--"]


def test_cli_CT_TABLE_wrong_dice_count_is_one_line_and_writes_nothing(table: Any) -> None:
    setup_fight(table)
    refused_cli(table, "round", "--dice", "Ann=+ + 0", "--dice", "Bob=+ + + +", "--dice", "Cid=0 + - 0",
                message="Ann's initiative roll needs 6 dice, 3 were entered")


def test_cli_CT_BARTER_5_barter_card_and_status(table: Any) -> None:
    setup_fight(table)
    table("round", "--dice", "Ann=+ + 0 0 - -", "--dice", "Bob=+ + + +", "--dice", "Cid=0 + - 0")
    assert table("barter", "ann", "--trade", "1", "--raise", "2").stdout == (
        "   9  Ann trades die 1 to raise die 2: + → ++\n"
        "  → order: ++ Ann; + Bob, Cid; 0 Ann, Cid; - Ann, Cid; -- Ann, Bob, Cid\n")
    table("barter", "Bob", "--trade", "1", "--raise", "2")
    refused_cli(table, "barter", "Bob", "--trade", "3", "--lower", "4",
                message="these rules allow no downgrades (crunch_downgrades = false, CT-BARTER-4)")
    refused_cli(table, "barter", "Bob", "--trade", "3", "--raise", "2", message="die 2 shows ++: nothing is above ++")
    refused_cli(table, "barter", "Bob", "--trade", "1", "--raise", "3", message="die 1 was already traded in")
    refused_cli(table, "barter", "Cid", "--trade", "1", "--raise", "2",
                message="only a + die can be traded in (die 1 shows 0)")
    refused_cli(table, "barter", "Cid", "--trade", "2", message="give exactly one of --raise K and --lower K")
    card = table("initiative").stdout.splitlines()
    # 003's card after the trade: the raised die in ++, the traded + under --.
    assert [line.rstrip() for line in card[:6]] == [
        "Ann",
        "    * ++: [++]#2",
        "       +:",
        "    *  0: [0]#3 [0]#4",
        "    *  -: [-]#5 [-]#6",
        "    * --: [+]#1",
    ]
    assert [line.rstrip() for line in card[6:12]] == [
        "Bob",
        "    * ++: [++]#2",
        "    *  +: [+]#3 [+]#4",
        "       0:",
        "       -:",
        "    * --: [+]#1",
    ]
    status = json.loads(table("status", "--json").stdout)
    ann = status["combatants"][0]["initiative"]
    assert ann["phases"] == ["++", "0", "-", "--"]
    assert ann["dice"][:2] == [{"face": "+", "traded": True, "locked": False},
                               {"face": "++", "traded": False, "locked": False}]
    assert status["combatants"][1]["initiative"]["phases"] == ["++", "+", "--"]


def test_cli_PH_1_F_PACE_3_next_and_attack_in_phase_order(table: Any) -> None:
    setup_fight(table)
    table("round", "--dice", "Ann=+ + 0 0 - -", "--dice", "Bob=+ + + +", "--dice", "Cid=0 + - 0")
    table("barter", "Ann", "--trade", "1", "--raise", "2")
    refused_cli(table, "attack", "Ann", "Bob", "--dice", "Ann=0 0 0 0", "--dice", "Bob=0 0 0 0",
                message="no one's turn yet: `fudge round` rolls initiative, `fudge next` gives the first turn")
    assert without_odds(table("next").stdout) == "  10  phase ++: Ann acts\n  → Ann's turn (phase ++)\n"
    refused_cli(table, "barter", "Bob", "--trade", "1", "--raise", "2",
                message="bartering ends when the round's first turn is taken")
    refused_cli(table, "attack", "Bob", "Ann", "--dice", "Bob=0 0 0 0", "--dice", "Ann=0 0 0 0",
                message="it is Ann's turn (phase ++); `fudge next` moves on")
    result = table("attack", "Ann", "Bob", "--dice", "Ann=+ + 0 0", "--dice", "Bob=0 0 - 0")
    assert "Ann Sword Good +2" in result.stdout and "Bob Axe Fair -1" in result.stdout
    refused_cli(table, "attack", "Ann", "Cid", "--dice", "Ann=0 0 0 0", "--dice", "Cid=0 0 0 0",
                message="Ann already acted in phase ++; `fudge next` moves on")
    status = json.loads(table("status", "--json").stdout)
    assert (status["phase"], status["turn"]) == ("++", "Ann")
    assert without_odds(table("next").stdout).endswith("phase +: Bob acts (tied with Cid: GM orders)\n  → Bob's turn (phase +)\n")
    status = json.loads(table("status", "--json").stdout)
    assert (status["phase"], status["turn"]) == ("+", "Bob")
    for _ in range(7):  # +: Cid; 0: Ann, Cid; -: Ann, Cid; --: Ann, Bob
        table("next")
    assert without_odds(table("next").stdout).endswith("phase --: Cid acts (tied with Bob: GM orders)\n  → Cid's turn (phase --)\n")
    # at the round's last turn `next` starts the next round, as play's `n` does; Cid has not used his turn, so it
    # is refused as `fudge round` refuses it, naming who would lose a turn and the command that means it (PH-1)
    refused_cli(table, "next", message="Cid has not acted in round 1: `fudge round --force` starts round 2 anyway, "
                                       "and the turns left are lost")
    assert table("verify", "x").exit_code == 0


def test_cli_PH_5_surprised_round(table: Any) -> None:
    setup_fight(table)
    result = table("round", "--surprised", "bob", "--dice", "Ann=+ + 0 0 - -", "--dice", "Bob=+ + + +",
                   "--dice", "Cid=0 + - 0")
    assert result.stdout.splitlines()[:3] == [
        "   5  round 1 begins, surprised: Bob",
        "   6  Ann rolls initiative +2: + + 0 0 - -",
        "   7  Bob rolls initiative +0: + + + + (surprised)",
    ]
    table("barter", "Bob", "--trade", "1", "--raise", "2")
    status = json.loads(table("status", "--json").stdout)
    bob = status["combatants"][1]["initiative"]
    assert bob["surprised"] is True
    assert [d["face"] for d in bob["dice"]] == ["+", "++", "+", "+"]  # faces as bartered...
    assert bob["phases"] == ["+", "0", "--"]  # ...phases one level down (PH-5)
    assert "surprised: every phase drops one level (PH-5)" in table("initiative").stdout


def test_PH_4_open_declaration_the_actor_resolves_at_once(fights):
    """PH-4 `open` (the only order built so far): declaration and resolution merge, so the actor
    whose turn it is attacks straight away, with no separate declaration step for the phase."""
    from fudge_combat.engine import commands as cmd
    from tests.conftest import dice, sheet, start

    name = start(fights, rules="fudge-phases")
    assert fights.state(name).options.phase_declaration == "open"
    for who, agility in (("Ann", "Good"), ("Bob", "Fair")):
        fights.execute(name, cmd.Join(sheet=sheet(who, attributes={"Agility": agility}, skills={"Sword": "Good"},
                                                  attack="Sword", weapon=2), source="t"))
    fights.execute(name, cmd.StartRound(), dice("ann=+ 0 0 0 0", "bob=0 0 0 0"))
    fights.execute(name, cmd.NextTurn())
    out = fights.execute(name, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=+ + 0 0", "bob=0 0 0 0"))
    assert [r.event.type for r in out.records][-2:] == ["exchange_resolved", "wound_marked"]
