"""Phase initiative options: CT-TABLE `rolled_fixed` and `fixed`, CT-GIFT, CT-SPARE, PH-2 `duplicates_act`,
PH-3 (the GM's order of ties, a second trait for in-phase order), PH-4 `structured`, and rolls in phase order.

Each through the Fights service under `fudge-phases` with option overrides, as a
house-rules file gives them; every refusal writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner, Result

from fudge_combat.cli import render
from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.initiative import PHASE_NAME, allotment
from fudge_combat.engine.kernel.ladder import FUDGE7
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.events.records import load
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, sheet, start, without_odds


def join(fights: Fights, name: str, agility: str, weapon: int = 2, **extra: Any) -> None:
    attributes = {"Agility": agility, **extra.pop("attributes", {})}
    fights.execute("fight", cmd.Join(
        sheet=sheet(name, attributes=attributes, skills={"Sword": "Good"}, attack="Sword", weapon=weapon,
                    fudge_points=extra.pop("fudge_points", 0), **extra),
        source=f"{name.lower()}.toml"))


def refused(fights: Fights, command: Any, given: DiceInput | None = None, match: str = "") -> RuleError:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match) as caught:
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before
    return caught.value


def phases(fights: Fights, who: str) -> list[str]:
    state = fights.state("fight")
    return [PHASE_NAME[p] for p in state.initiative[who].phases(state.options)]


def turns(fights: Fights) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """`next` to the end of the round: (phase, actor, step, tied with)."""
    out = []
    while True:
        try:
            event = fights.execute("fight", cmd.NextTurn()).records[-1].event
        except RuleError as exc:
            assert "is over" in str(exc)
            return out
        out.append((PHASE_NAME[event.phase], event.combatant, event.step, event.tied_with))


# --- CT-TABLE rolled_fixed and fixed --------------------------------------------------------------

ROLLED_FIXED = resolve("fudge-phases", 'extends = "fudge-phases"\ncrunch_table = "rolled_fixed"')[1]
FIXED = resolve("fudge-phases", 'extends = "fudge-phases"\ncrunch_table = "fixed"')[1]


@pytest.mark.parametrize(("level", "rolled", "fixed"), [
    ("Abysmal", 0, ()), ("Terrible", 0, ("-",)), ("Poor", 1, ()), ("Mediocre", 1, ("-",)), ("Fair", 2, ()),
    ("Good", 2, ("-",)), ("Great", 3, ()), ("Superb", 3, ("-",)), ("Legendary", 4, ()),
])
def test_CT_TABLE_rolled_fixed(level: str, rolled: int, fixed: tuple[str, ...]) -> None:
    """CT-TABLE `rolled_fixed`: a fixed `-` every other step."""
    allot = allotment(FUDGE7.parse(level), ROLLED_FIXED)
    assert (allot.rolled, tuple(PHASE_NAME[f] for f in allot.fixed)) == (rolled, fixed)


@pytest.mark.parametrize(("level", "fixed"), [
    ("Abysmal", ()), ("Terrible", ("-",)), ("Poor", ("0",)), ("Mediocre", ("-", "0")), ("Fair", ("-", "+")),
    ("Good", ("0", "+")), ("Great", ("-", "0", "+")), ("Superb", ("-", "0", "++")),
    ("Legendary", ("-", "0", "+", "++")),
])
def test_CT_TABLE_fixed(level: str, fixed: tuple[str, ...]) -> None:
    """CT-TABLE `fixed`: no dice; the phases besides `--` (which everyone has)."""
    allot = allotment(FUDGE7.parse(level), FIXED)
    assert (allot.rolled, tuple(PHASE_NAME[f] for f in allot.fixed)) == (0, fixed)


def test_CT_TABLE_rolled_fixed_through_the_service_and_bartering_a_fixed_die(fights: Fights) -> None:
    """CT-TABLE `rolled_fixed`: the fixed die is recorded in InitiativeRolled and bartered like a rolled one."""
    start(fights, rules="fudge-phases", crunch_table="rolled_fixed")
    join(fights, "Ann", "Superb")  # 3dF + fixed -
    join(fights, "Bob", "Terrible")  # no dice, fixed -
    outcome = fights.execute("fight", cmd.StartRound(), dice("ann=+ + 0"))
    rolled = [r.event for r in outcome.records[1:]]
    assert [(e.combatant, e.faces, e.fixed) for e in rolled] == [("Ann", (1, 1, 0), (-1,)), ("Bob", (), (-1,))]
    assert phases(fights, "ann") == ["+", "0", "-", "--"]
    assert phases(fights, "bob") == ["-", "--"]
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, alter=3, direction=1))  # the fixed - -> 0
    state = fights.state("fight")
    assert state.initiative["ann"].dice[3].face == 0 and state.initiative["ann"].dice[3].fixed
    assert phases(fights, "ann") == ["+", "0", "--"]
    assert verify(fights.store.read("fight")).ok


def test_CT_TABLE_fixed_rolls_nothing_and_a_fixed_plus_can_be_traded(fights: Fights) -> None:
    """CT-TABLE `fixed` with every roll entered: nobody is asked for dice; a fixed + trades like a rolled one."""
    start(fights, rules="fudge-phases", crunch_table="fixed", dice="entered")
    join(fights, "Ann", "Good")  # --, 0, +
    join(fights, "Bob", "Superb")  # --, -, 0, ++
    outcome = fights.execute("fight", cmd.StartRound())
    assert [(r.event.faces, r.event.fixed) for r in outcome.records[1:]] == [((), (0, 1)), ((), (-1, 0, 2))]
    assert phases(fights, "bob") == ["++", "0", "-", "--"]
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=1, alter=0, direction=1))
    assert phases(fights, "ann") == ["+", "--"]


def test_CT_TABLE_old_initiative_events_without_fixed_dice_still_load(fights: Fights) -> None:
    """An InitiativeRolled stored before `fixed`, `discarded` and `bonus_phases` existed loads with none."""
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ 0 - 0"))
    rows = fights.store.read("fight")
    body = json.loads(rows[-1].body)
    for key in ("fixed", "discarded", "bonus_phases"):
        body["event"].pop(key, None)  # compact rows (schema 2) already leave them out
    old = load(json.dumps(body))
    assert isinstance(old.event, ev.InitiativeRolled) and old.event.fixed == () and old.event.discarded == ()
    state = replay([load(r.body) for r in rows[:-1]] + [old])
    assert [PHASE_NAME[p] for p in state.initiative["ann"].phases(state.options)] == ["+", "0", "-", "--"]


# --- CT-GIFT ----------------------------------------------------------------------------------------

def test_CT_GIFT_quick_reflexes_always_adds_a_plus_phase(fights: Fights) -> None:
    """CT-GIFT Quick Reflexes: a `+` phase whatever the dice; it is no die, so surprise does not drop it."""
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Mediocre", gifts=["Quick Reflexes"])
    join(fights, "Bob", "Mediocre", gifts=["quick reflexes"])
    outcome = fights.execute("fight", cmd.StartRound(surprised=("Bob",)), dice("ann=- - 0", "bob=0 0 0"))
    assert [r.event.bonus_phases for r in outcome.records[1:]] == [(1,), (1,)]
    assert phases(fights, "ann") == ["+", "0", "-", "--"]
    assert phases(fights, "bob") == ["+", "-", "--"]
    assert "gift phase +" in render.describe(outcome.records[1].event, outcome.state.ladder)
    card = render.card(outcome.state, outcome.state.combatants["ann"])
    assert card[1].rstrip() == "    *  +: [gift]"


def test_CT_GIFT_two_left_feet_removes_surplus_dice_before_bartering(fights: Fights) -> None:
    """CT-GIFT Two Left Feet: duplicates are discarded at once, so the spare + cannot be traded."""
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Fair", gifts=["Two Left Feet"])
    outcome = fights.execute("fight", cmd.StartRound(), dice("ann=+ + 0 +"))
    assert outcome.records[1].event.discarded == (1, 3)
    assert phases(fights, "ann") == ["+", "0", "--"]
    refused(fights, cmd.Barter(combatant="Ann", trade=1, alter=0, direction=1),
            match="die 2 was discarded before bartering")
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, alter=2, direction=1))  # its lone + still trades
    assert phases(fights, "ann") == ["+", "--"]


# --- CT-SPARE -----------------------------------------------------------------------------------

def spare_fight(fights: Fights, **options: Any) -> None:
    start(fights, rules="fudge-phases", spares_as_points=True, **options)
    join(fights, "Ann", "Great", fudge_points=1)  # 6dF
    join(fights, "Bob", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ + 0 0 - -", "bob=0 0 0 0"))


def test_CT_SPARE_a_spare_die_is_plus_one_to_a_roll_shown_in_its_modifiers(fights: Fights) -> None:
    """CT-SPARE, C-FP-4: after bartering, each spare die left is spent once as +1 to one roll, like a fudge point
    (the same spend, re-resolving the roll)."""
    spare_fight(fights)
    fights.execute("fight", cmd.Barter(combatant="Ann", trade=0, alter=1, direction=1))  # +,+ -> traded, ++
    state = fights.state("fight")
    assert [i + 1 for i in state.initiative["ann"].spares(state.options)] == [4, 6]  # the second 0 and -
    fights.execute("fight", cmd.NextTurn())  # ++: Ann
    rolled = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword", difficulty=2),
                            dice("ann=0 0 0 0"))
    assert rolled.records[1].event.success is False  # Good vs Great
    outcome = fights.execute("fight", cmd.SpendPoint(combatant="Ann", use="spare"))
    events = [r.event for r in outcome.records]
    assert events[0] == ev.SpareDieSpent(combatant="Ann", round=1, die=3, target=rolled.records[0].seq)
    resolved = events[-1]
    assert isinstance(resolved, ev.ActionResolved)
    assert resolved.modifiers == (ev.Modifier(name="spare die (CT-SPARE)", value=1),)
    assert resolved.success is True and resolved.result == 2
    assert outcome.state.combatants["ann"].fudge_points == 1  # a spare is not a fudge point
    json_view = render.initiative_json(outcome.state, outcome.state.combatants["ann"])
    assert json_view["spares"] == [6] and json_view["dice"][3]["spent"] is True
    fights.execute("fight", cmd.SpendPoint(combatant="Ann", use="spare"))  # the last spare: +2 in all
    assert fights.state("fight").events[fights.state("fight").last_seq].result == 3
    refused(fights, cmd.SpendPoint(combatant="Ann", use="spare"), match="Ann has no spare die left this round")
    fights.execute("fight", cmd.Undo())
    fights.execute("fight", cmd.Undo())  # both spends undone: the spares are back, the roll fails again
    state = fights.state("fight")
    assert not any(d.spent for d in state.initiative["ann"].dice)
    assert state.events[state.actions[rolled.records[0].seq].resolution].success is False
    assert verify(fights.store.read("fight")).ok


def test_CT_SPARE_a_spare_die_turns_a_tied_attack_into_a_hit(fights: Fights) -> None:
    """CT-SPARE on a directed attack: the blow is re-resolved with the +1 and its wound follows."""
    spare_fight(fights)
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    attack = fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"))
    assert attack.records[-1].event.hits == ()
    outcome = fights.execute("fight", cmd.SpendPoint(combatant="Ann", use="spare"))
    events = [r.event for r in outcome.records]
    assert isinstance(events[0], ev.SpareDieSpent) and events[0].die == 1  # the second +
    assert events[1].reason == "Ann spent a spare die (CT-SPARE)"
    resolved = next(e for e in events if isinstance(e, ev.ExchangeResolved))
    assert resolved.sides[0].modifiers[-1] == ev.Modifier(name="spare die (CT-SPARE)", value=1)
    assert [h.defender for h in resolved.hits] == ["Bob"]
    assert isinstance(events[-1], ev.WoundMarked)
    assert verify(fights.store.read("fight")).ok


def test_CT_SPARE_a_spare_die_is_plus_one_to_a_shot_too(fights: Fights) -> None:
    """CT-SPARE: a spare die is +1 to one roll, a shot's as well as a blow's (it was spent and changed nothing)."""
    spare_fight(fights)
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    shot = fights.execute("fight", cmd.Shoot(shooter="Ann", target="Bob", skill="Sword", difficulty=2),
                          dice("ann=0 0 0 0"))
    assert shot.records[-1].event.hits == ()  # Good against a Great difficulty
    outcome = fights.execute("fight", cmd.SpendPoint(combatant="Ann", use="spare"))
    events = [r.event for r in outcome.records]
    assert isinstance(events[0], ev.SpareDieSpent)
    assert events[1].reason == "Ann spent a spare die (CT-SPARE)"
    resolved = next(e for e in events if isinstance(e, ev.ShotResolved))
    assert resolved.sides[0].modifiers[-1] == ev.Modifier(name="spare die (CT-SPARE)", value=1)
    assert resolved.sides[0].result == 2 and [h.defender for h in resolved.hits] == ["Bob"]
    assert verify(fights.store.read("fight")).ok


def test_CT_SPARE_refusals(fights: Fights) -> None:
    spare_fight(fights)
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Sword"), dice("bob=0 0 0 0"))
    refused(fights, cmd.SpendPoint(combatant="Bob", use="spare"), match="spent once bartering is over")
    fights.execute("fight", cmd.NextTurn())
    refused(fights, cmd.SpendPoint(combatant="Bob", use="spare", shift=-1), match="a spare die gives \\+1")
    fights.execute("fight", cmd.SpendPoint(combatant="Bob", use="spare"))  # 0,0,0,0: three spares
    fights.execute("fight", cmd.StartRound(), dice("ann=+ 0 - + 0 -", "bob=+ 0 - 0"))
    fights.execute("fight", cmd.NextTurn())
    refused(fights, cmd.SpendPoint(combatant="Bob", use="spare"), match="a roll of an earlier round")


def test_CT_SPARE_off_by_default(fights: Fights) -> None:
    start(fights, rules="fudge-phases")
    join(fights, "Bob", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("bob=0 0 0 0"))
    fights.execute("fight", cmd.NextTurn())
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Sword"), dice("bob=0 0 0 0"))
    refused(fights, cmd.SpendPoint(combatant="Bob", use="spare"), match="spares_as_points = false")


# --- PH-2 duplicates_act ---------------------------------------------------------------------------

def test_PH_2_duplicates_act_gives_a_second_turn_in_the_phase(fights: Fights) -> None:
    """PH-2 option `duplicates_act`: a duplicate face is a second action, after everyone's first in the phase."""
    start(fights, rules="fudge-phases", duplicates_act=True)
    join(fights, "Ann", "Great")
    join(fights, "Bob", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ + 0 - - -", "bob=+ 0 0 0"))
    assert [(p, who) for p, who, _, _ in turns(fights)] == [
        ("+", "Ann"), ("+", "Bob"), ("+", "Ann"),
        ("0", "Ann"), ("0", "Bob"), ("0", "Bob"), ("0", "Bob"),
        ("-", "Ann"), ("-", "Ann"), ("-", "Ann"),
        ("--", "Ann"), ("--", "Bob"),
    ]


def test_PH_2_duplicates_set_aside_by_default(fights: Fights) -> None:
    start(fights, rules="fudge-phases")
    join(fights, "Bob", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("bob=+ 0 0 0"))
    assert [(p, who) for p, who, _, _ in turns(fights)] == [("+", "Bob"), ("0", "Bob"), ("--", "Bob")]


# --- PH-3 -----------------------------------------------------------------------------------------

def tied_fight(fights: Fights, **options: Any) -> None:
    start(fights, rules="fudge-phases", **options)
    join(fights, "Ann", "Good")
    join(fights, "Bob", "Fair")
    join(fights, "Cid", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ 0 0 0 0", "bob=+ 0 0 0", "cid=+ 0 0 0"))


def test_PH_3_ties_keep_a_stable_order_and_are_shown(fights: Fights) -> None:
    tied_fight(fights)
    assert turns(fights)[:3] == [("+", "Ann", "act", ()), ("+", "Bob", "act", ("Cid",)),
                                 ("+", "Cid", "act", ("Bob",))]


def test_PH_3_the_gm_orders_tied_combatants_for_the_round(fights: Fights) -> None:
    """PH-3: ties are the GM's to order (GM input), recorded as an event; the tie is no longer shown."""
    tied_fight(fights)
    outcome = fights.execute("fight", cmd.OrderTies(order=("cid", "Bob")))
    assert [r.event for r in outcome.records] == [ev.TiesOrdered(round=1, order=("Cid", "Bob"))]
    assert turns(fights) == [
        ("+", "Ann", "act", ()), ("+", "Cid", "act", ()), ("+", "Bob", "act", ()),
        ("0", "Ann", "act", ()), ("0", "Cid", "act", ()), ("0", "Bob", "act", ()),
        ("--", "Ann", "act", ()), ("--", "Cid", "act", ()), ("--", "Bob", "act", ()),
    ]
    assert verify(fights.store.read("fight")).ok


def test_PH_3_ordering_refusals(fights: Fights) -> None:
    """PH-3: the GM's order of ties is refused, with the reason, unless it names tied combatants who rolled."""
    tied_fight(fights)
    refused(fights, cmd.OrderTies(order=("Ann", "Bob")), match=r"only combatants tied on Agility can be ordered "
                                                                r"\(Ann \+1, Bob \+0\)")
    refused(fights, cmd.OrderTies(order=("Bob",)), match="at least two")
    refused(fights, cmd.OrderTies(order=("Bob", "bob")), match="named twice")
    refused(fights, cmd.OrderTies(order=("Bob", "Eve")), match="no combatant 'Eve'")
    join(fights, "Dan", "Fair")  # joins after the round's initiative
    refused(fights, cmd.OrderTies(order=("Bob", "Dan")), match="Dan has no initiative")
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    fights.execute("fight", cmd.NextTurn())  # +: Bob (stable order)
    fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=0 0 0 0", "ann=0 0 0 0"))
    refused(fights, cmd.OrderTies(order=("Cid", "Bob")), match="would change turns already taken")
    fights.execute("fight", cmd.OrderTies(order=("Bob", "Cid")))  # the same order as taken: accepted


def test_PH_3_ordering_the_tie_when_next_shows_it_passes_the_turn(fights: Fights) -> None:
    """PH-3: `fudge next` gives Bob the turn, "tied with Cid"; before Bob does anything the GM may still order
    Cid first: the turn passes to Cid, then Bob; the log verifies and the order undoes."""
    tied_fight(fights)
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    given = fights.execute("fight", cmd.NextTurn()).records[-1].event  # +: Bob, tied with Cid
    assert (given.combatant, given.tied_with) == ("Bob", ("Cid",))
    outcome = fights.execute("fight", cmd.OrderTies(order=("Cid", "Bob")))
    turn = outcome.records[-1].event
    assert isinstance(turn, ev.TurnTaken) and (turn.combatant, turn.index, turn.tied_with) == ("Cid", 1, ())
    assert fights.execute("fight", cmd.NextTurn()).records[-1].event.combatant == "Bob"
    assert verify(fights.store.read("fight")).ok
    fights.execute("fight", cmd.Undo())
    fights.execute("fight", cmd.Undo())
    assert fights.state("fight").turn.combatant == "bob"


def test_PH_3_a_second_trait_orders_the_phase(fights: Fights) -> None:
    """PH-3 option `initiative_order_trait`: Agility counts the dice, Perception orders the phase."""
    start(fights, rules="fudge-phases", initiative_order_trait="Perception")
    join(fights, "Ann", "Good", attributes={"Perception": "Poor"})
    join(fights, "Bob", "Fair", attributes={"Perception": "Great"})
    outcome = fights.execute("fight", cmd.StartRound(), dice("ann=+ - - - -", "bob=+ - - -"))
    assert [len(r.event.faces) for r in outcome.records[1:]] == [5, 4]
    assert [(p, who) for p, who, _, _ in turns(fights)][:2] == [("+", "Bob"), ("+", "Ann")]


# --- PH-4 structured --------------------------------------------------------------------------------

def structured_fight(fights: Fights) -> None:
    start(fights, rules="fudge-phases", phase_declaration="structured")
    join(fights, "Ann", "Good")
    join(fights, "Bob", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ - - - -", "bob=+ - - -"))


def test_PH_4_structured_declare_ascending_then_resolve_descending(fights: Fights) -> None:
    """PH-4 `structured`: in each phase the slowest declares first, then the fastest resolves first."""
    structured_fight(fights)
    assert [(p, who, step) for p, who, step, _ in turns(fights)] == [
        ("+", "Bob", "declare"), ("+", "Ann", "declare"), ("+", "Ann", "resolve"), ("+", "Bob", "resolve"),
        ("-", "Bob", "declare"), ("-", "Ann", "declare"), ("-", "Ann", "resolve"), ("-", "Bob", "resolve"),
        ("--", "Bob", "declare"), ("--", "Ann", "declare"), ("--", "Ann", "resolve"), ("--", "Bob", "resolve"),
    ]


def test_PH_4_structured_the_engine_enforces_the_order(fights: Fights) -> None:
    structured_fight(fights)
    fights.execute("fight", cmd.NextTurn())  # +: Bob declares
    refused(fights, cmd.DeclareIntent(combatant="Ann", target="Bob"),
            match=r"it is Bob's turn to declare in phase \+ \(slowest first, PH-4\)")
    refused(fights, cmd.Attack(attacker="Bob", target="Ann"), dice("bob=0 0 0 0", "ann=0 0 0 0"),
            match=r"phase \+ is declaring \(PH-4 structured\)")
    out = fights.execute("fight", cmd.DeclareIntent(combatant="Bob", what="parries and backs off"))
    assert out.records[0].event == ev.IntentDeclared(round=1, phase=1, combatant="Bob", what="parries and backs off")
    refused(fights, cmd.DeclareIntent(combatant="Bob", target="Ann"), match="Bob already declared")
    fights.execute("fight", cmd.NextTurn())  # +: Ann declares, having heard Bob
    fights.execute("fight", cmd.DeclareIntent(combatant="Ann", target="Bob"))
    fights.execute("fight", cmd.NextTurn())  # +: Ann resolves first
    refused(fights, cmd.DeclareIntent(combatant="Ann", target="Bob"), match=r"phase \+ is resolving")
    refused(fights, cmd.Attack(attacker="Ann", target="Ann"), match="cannot attack itself")
    fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"))
    fights.execute("fight", cmd.NextTurn())  # +: Bob resolves: he declared no attack
    refused(fights, cmd.Attack(attacker="Bob", target="Ann"), dice("bob=0 0 0 0", "ann=0 0 0 0"),
            match="Bob declared 'parries and backs off' in phase \\+, not an attack on Ann")
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Sword", difficulty=0), dice("bob=0 0 0 0"))
    state = fights.state("fight")
    assert state.turn is not None and state.turn.acted
    text = render.status_text(state)
    assert "turn: Bob in phase + (resolves)" in text and "declared in +: attack Bob" in text
    assert render.status_json(state)["step"] == "resolve"
    assert verify(fights.store.read("fight")).ok


def test_PH_4_structured_an_attack_must_match_its_declaration(fights: Fights) -> None:
    start(fights, rules="fudge-phases", phase_declaration="structured")
    join(fights, "Ann", "Good")
    join(fights, "Bob", "Fair")
    join(fights, "Cid", "Poor")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ - - - -", "bob=- - - -", "cid=- -"))
    fights.execute("fight", cmd.NextTurn())  # +: Ann declares (alone in the phase)
    fights.execute("fight", cmd.DeclareIntent(combatant="Ann", target="Cid"))
    fights.execute("fight", cmd.NextTurn())  # +: Ann resolves
    refused(fights, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"),
            match="Ann declared an attack on Cid in phase \\+, not an attack on Bob")
    fights.execute("fight", cmd.NextTurn())  # -: Cid declares (Poor: slowest first)
    fights.execute("fight", cmd.NextTurn())  # -: Bob declares
    fights.execute("fight", cmd.NextTurn())  # -: Ann declares
    fights.execute("fight", cmd.NextTurn())  # -: Ann resolves, having declared nothing
    refused(fights, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"),
            match="Ann declared nothing in phase -")


def test_PH_4_open_a_faster_combatant_holds_the_action_until_the_others_have_acted(fights: Fights) -> None:
    """PH-4 `open`: the actor may hold; the held turn comes after everyone else's in the phase."""
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Good")
    join(fights, "Bob", "Fair")
    join(fights, "Cid", "Poor")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ - - - -", "bob=+ - - -", "cid=+ -"))
    refused(fights, cmd.HoldAction(), match="no one's turn yet")
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    outcome = fights.execute("fight", cmd.HoldAction())
    assert [r.event for r in outcome.records] == [ev.ActionHeld(round=1, phase=1, combatant="Ann")]
    assert render.status_json(outcome.state)["step"] == "held"
    refused(fights, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"),
            match=r"Ann holds the action until the others in phase \+ have acted")
    refused(fights, cmd.HoldAction(), match="Ann holds the action")
    assert turns(fights)[:4] == [("+", "Bob", "act", ()), ("+", "Cid", "act", ()), ("+", "Ann", "act", ()),
                                 ("-", "Ann", "act", ())]
    assert verify(fights.store.read("fight")).ok


def test_PH_4_open_hold_refusals(fights: Fights) -> None:
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Good")
    join(fights, "Bob", "Fair")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ - - - -", "bob=+ - - -"))
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    fights.execute("fight", cmd.HoldAction())
    fights.execute("fight", cmd.NextTurn())  # +: Bob
    fights.execute("fight", cmd.Attack(attacker="Bob", target="Ann"), dice("bob=0 0 0 0", "ann=0 0 0 0"))
    refused(fights, cmd.HoldAction(), match="Bob already acted in phase \\+")
    fights.execute("fight", cmd.NextTurn())  # +: Ann, at last
    refused(fights, cmd.HoldAction(), match="Ann already held once in phase \\+")
    fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"))
    fights.execute("fight", cmd.NextTurn())  # -: Ann
    fights.execute("fight", cmd.NextTurn())  # -: Bob, the last in the phase
    refused(fights, cmd.HoldAction(), match="nobody acts after Bob in phase -")


def test_PH_4_structured_has_no_holding(fights: Fights) -> None:
    structured_fight(fights)
    fights.execute("fight", cmd.NextTurn())
    refused(fights, cmd.HoldAction(), match='holding an action is for phase_declaration = "open"')


def test_PH_4_without_phase_initiative_neither_hold_nor_intend_speaks_of_phase_declaration(fights: Fights) -> None:
    """PH-4: in a fight without phase initiative, `hold` and `intend` say that phase initiative is missing."""
    start(fights, rules="fudge")
    join(fights, "Ann", "Good")
    refused(fights, cmd.HoldAction(), match="phase initiative")
    refused(fights, cmd.DeclareIntent(combatant="Ann", what="charge"), match="phase initiative")


def test_PH_4_open_refuses_a_separate_declaration(fights: Fights) -> None:
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Good")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ - - - -"))
    fights.execute("fight", cmd.NextTurn())
    refused(fights, cmd.DeclareIntent(combatant="Ann", what="charge"), match='phase_declaration = "structured"')


# --- a roll in phase order ------------------------------------------------------------------------

def test_F_PACE_3_PH_1_a_roll_is_the_actors_action_once_turns_have_begun(fights: Fights) -> None:
    """Under phase initiative a roll taken in the turns is the actor's action in the phase; --free is not."""
    start(fights, rules="fudge-phases")
    join(fights, "Ann", "Good")
    join(fights, "Bob", "Fair")
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception"), dice("bob=0 0 0 0"))  # before turns
    fights.execute("fight", cmd.StartRound(), dice("ann=+ - - - -", "bob=+ - - -"))
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception"), dice("bob=0 0 0 0"))  # no turn yet
    fights.execute("fight", cmd.NextTurn())  # +: Ann
    refused(fights, cmd.RollTrait(combatant="Bob", trait="Perception"), dice("bob=0 0 0 0"),
            match=r"it is Ann's turn \(phase \+\); a roll that is not Bob's action takes --free")
    fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Perception", free=True), dice("bob=0 0 0 0"))
    outcome = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"), dice("ann=0 0 0 0"))
    assert outcome.records[-1].event == ev.TurnUsed(round=1, phase=1, combatant="Ann",
                                                    action=outcome.records[0].seq)
    assert outcome.state.turn is not None and outcome.state.turn.acted
    refused(fights, cmd.RollTrait(combatant="Ann", trait="Sword"), dice("ann=0 0 0 0"), match="Ann already acted")
    refused(fights, cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"),
            match="Ann already acted")
    fights.execute("fight", cmd.Undo())  # the roll undone: the turn is free again
    fights.execute("fight", cmd.Attack(attacker="Ann", target="Bob"), dice("ann=0 0 0 0", "bob=0 0 0 0"))
    assert verify(fights.store.read("fight")).ok


# --- the command line ---------------------------------------------------------------------------------

@pytest.fixture
def fudge(tmp_path: Path) -> Iterator[Any]:
    runner = CliRunner()
    db = tmp_path / "fudge.db"
    for name, agility in (("ann", "Good"), ("bob", "Fair"), ("cid", "Fair")):
        (tmp_path / f"{name}.toml").write_text(
            f'name = "{name.title()}"\n[attributes]\nAgility = "{agility}"\n[skills]\nSword = "Fair"\n'
            '[combat]\nattack = "Sword"\n[weapon]\ndamage = 2\n')
    (tmp_path / "house.toml").write_text(
        'extends = "fudge-phases"\nphase_declaration = "structured"\nspares_as_points = true\n')

    def run(*args: str, ok: bool = True) -> Result:
        result = runner.invoke(app, ["--store", str(db), *args])
        if ok:
            assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
        return result

    run.dir = tmp_path  # type: ignore[attr-defined]
    run.db = db  # type: ignore[attr-defined]
    yield run
    structlog.reset_defaults()


def test_cli_PH_3_PH_4_CT_SPARE_order_intend_and_spare(fudge: Any) -> None:
    fudge("new", "x", "--house", str(fudge.dir / "house.toml"))
    for name in ("ann", "bob", "cid"):
        fudge("join", str(fudge.dir / f"{name}.toml"))
    fudge("round", "--dice", "Ann=+ 0 0 - -", "--dice", "Bob=+ 0 0 0", "--dice", "Cid=+ - - -")
    assert fudge("order", "Cid", "Bob").stdout == ("   9  the GM orders the ties this round: Cid, Bob\n"
                                                   "  → order: + Ann, Cid, Bob; 0 Ann, Bob; - Ann, Cid; -- Ann, Cid, Bob\n")
    assert without_odds(fudge("next").stdout) == "  10  phase +: Bob declares\n  → Bob's turn to declare (phase +)\n"
    before = SqliteStore(fudge.db).last_seq("x")
    wrong = fudge("intend", "Ann", "--attack", "Bob", ok=False)
    assert wrong.exit_code != 0 and wrong.stderr.startswith("error: it is Bob's turn to declare in phase +")
    assert SqliteStore(fudge.db).last_seq("x") == before
    assert fudge("intend", "Bob", "--attack", "Ann").stdout == "  11  phase +: Bob declares: attack Ann\n"
    assert without_odds(fudge("next").stdout) == "  12  phase +: Cid declares\n  → Cid's turn to declare (phase +)\n"
    fudge("intend", "Cid", "watches the door")
    assert without_odds(fudge("next").stdout) == "  14  phase +: Ann declares\n  → Ann's turn to declare (phase +)\n"
    fudge("intend", "Ann", "--attack", "Bob")
    assert without_odds(fudge("next").stdout) == "  16  phase +: Ann resolves\n  → Ann's turn to resolve (phase +)\n"
    fudge("attack", "Ann", "Bob", "--dice", "Ann=0 0 0 0", "--dice", "Bob=+ 0 0 0")
    fudge("next")  # +: Cid resolves
    assert fudge("roll", "Cid", "Perception", "--dice", "0 0 0 0").stdout.endswith(
        "phase +: that roll is Cid's action\n")
    assert "action" not in fudge("roll", "Bob", "Sword", "--free", "--dice", "0 0 0 0").stdout
    card = fudge("initiative").stdout
    assert "spare dice, +1 to a roll each (CT-SPARE): #3" in card  # Bob's second 0; #4 too
    assert "declared in +: attack Bob" in card
    result = fudge("spend", "Cid", "spare")
    assert "Cid spends spare die 3: +1 to event" in result.stdout
    assert "+1 spare die (CT-SPARE)" in result.stdout
    assert fudge("verify", "x").exit_code == 0


def test_cli_PH_4_hold(fudge: Any) -> None:
    fudge("new", "y", "--rules", "fudge-phases")
    for name in ("ann", "bob"):
        fudge("join", str(fudge.dir / f"{name}.toml"))
    fudge("round", "--dice", "Ann=+ - - - -", "--dice", "Bob=+ - - -")
    fudge("next")
    assert fudge("hold").stdout == "   8  phase +: Ann holds the action until the others have acted\n"
    assert "turn: Ann in phase + (holds)" in fudge("status", "--long").stdout
    before = SqliteStore(fudge.db).last_seq("y")
    wrong = fudge("attack", "Ann", "Bob", "--dice", "Ann=0 0 0 0", "--dice", "Bob=0 0 0 0", ok=False)
    assert wrong.stderr == "error: Ann holds the action until the others in phase + have acted; `fudge next` moves on (PH-4)\n"
    assert SqliteStore(fudge.db).last_seq("y") == before
    assert without_odds(fudge("next").stdout) == "   9  phase +: Bob acts\n  → Bob's turn (phase +)\n"
    assert without_odds(fudge("next").stdout) == "  10  phase +: Ann acts\n  → Ann's turn (phase +)\n"
