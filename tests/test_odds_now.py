"""The odds before the dice (`engine.odds.now`): the next action of a running fight, weighed exactly as the
fight stands, against odds computed independently (4dF enumerated by hand, and `fudge odds` from sheets
written with the same penalties).

Per ruleset: Fudge's exchange (simultaneous pace), Fudge's directed attack under phase initiative, Atari
Isev's attack in ranked order and Fate's exchange are held against the sheet odds. Fate's turn pace (one
attack, `fudge fate attack`) has no sheet odds to compare with (`fudge odds` weighs Fate's exchanges only):
it is held against the hand count alone.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.odds.duel import Match, setup, single_action
from fudge_combat.engine.odds.now import odds_now, odds_offered
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.conftest import dice, sheet, start
from tests.processes import fudge

ROOT = Path(__file__).resolve().parents[1]
FOUR_DF = list(product((-1, 0, 1), repeat=4))  # the 81 equally likely faces of 4dF (C-DICE-1)


def fencer(name: str, skill: str, **extra: Any) -> dict[str, Any]:
    return sheet(name, skills={"Sword": skill}, attack="Sword", **extra)


def by_hand(margin: int) -> Fraction:
    """P(margin + sum(X) - sum(Y) >= 1) for two 4dF rolls X, Y, counted face by face (6561 pairs)."""
    wins = sum(1 for x in FOUR_DF for y in FOUR_DF if margin + sum(x) - sum(y) >= 1)
    return Fraction(wins, len(FOUR_DF) ** 2)


def joined(fights: Fights, name: str, *sheets: dict[str, Any]) -> None:
    for data in sheets:
        fights.execute(name, cmd.Join(sheet=data, source=data["name"]))


def from_sheets(rules: str, *sheets: dict[str, Any], declarations: dict[str, ev.Declaration] | None = None) -> Any:
    label, options = resolve(rules, None)
    state, names = setup(label, options, [(s, s["name"]) for s in sheets])
    return single_action(state, Match(names[0], names[1], declarations or {}))


def test_a_wound_penalty_and_a_declaration_count_as_they_stand(fights: Fights) -> None:
    """F-WND-2, F-MOD-6, F-MEL-1: Bob (Good) is Hurt (-1) and Ann (Great) declared all-out offense (+1): Ann
    lands a blow when 2 + 1 + X - (1 - 1 + Y) >= 1, counted over the 6561 pairs of 4dF faces; the same as
    the sheet odds of Ann at Great, declaring it, against Bob at Fair."""
    name = start(fights)
    joined(fights, name, fencer("Ann", "Great"), fencer("Bob", "Good"))
    fights.execute(name, cmd.GmWound(combatant="Bob", level=2, reason="a fall"))
    fights.execute(name, cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")))
    state = fights.state(name)
    found = odds_now(state, "ann", "bob")
    ann_on_bob = found.chances[0]
    assert (ann_on_bob.attacker, ann_on_bob.target) == ("Ann", "Bob")
    assert ann_on_bob.lands == by_hand(3)
    sheets = from_sheets("fudge", fencer("Ann", "Great"), fencer("Bob", "Fair"),
                         declarations={"Ann": ev.Declaration(all_out="offense")})
    assert dict(sheets.hits)["Ann"] == ann_on_bob.lands
    assert dict(sheets.hits)["Bob"] == found.chances[1].lands  # an exchange: Bob's blows back
    assert found.kind == "exchange" and found.in_turn
    assert found.line().startswith(f"Ann hits Bob {float(by_hand(3)) * 100:.1f}% (Hurt or worse ")


def test_a_sealed_declaration_counts_through_its_reveal(fights: Fights) -> None:
    """A-SEAL-1, F-MOD-6: Ann's sealed all-out offense (+1) counts once its reveal is given (Great + 1 against
    Good: margin 2); without it the odds are refused rather than weighed without it."""
    name = start(fights)
    joined(fights, name, fencer("Ann", "Great"), fencer("Bob", "Good"))
    fights.declare(name, "Ann", ev.Declaration(all_out="offense"), sealed=True)
    state = fights.state(name)
    with pytest.raises(RuleError, match="sealed"):
        odds_now(state, "Ann", "Bob")
    found = odds_now(state, "Ann", "Bob", fights.reveals(state, ["Ann"]))
    assert found.chances[0].lands == by_hand(2)


def test_without_the_wound_the_odds_are_those_of_the_sheets(fights: Fights) -> None:
    """The same fight before the wound: Great against Good, 3834/6561 (test_odds' hand table)."""
    name = start(fights)
    joined(fights, name, fencer("Ann", "Great"), fencer("Bob", "Good"))
    assert odds_now(fights.state(name), "Ann", "Bob").chances[0].lands == by_hand(1) == Fraction(3834, 6561)


def test_an_attack_in_phase_order_is_the_sheet_odds_of_the_attack(fights: Fights) -> None:
    """F-PACE-3, F-WND-2: under phase initiative the actor's directed attack, with the target Hurt, weighs as
    `fudge odds --rules fudge-phases` of the same sheets with the target a level lower."""
    name = start(fights, rules="fudge-phases")
    joined(fights, name, fencer("Ann", "Great", attributes={"Agility": "Fair"}),
           fencer("Bob", "Good", attributes={"Agility": "Fair"}))
    fights.execute(name, cmd.GmWound(combatant="Bob", level=2, reason="a fall"))
    fights.execute(name, cmd.StartRound(), dice("ann=++++", "bob=----"))
    fights.execute(name, cmd.NextTurn())
    state = fights.state(name)
    assert state.turn is not None and state.turn.combatant == "ann"
    found = odds_now(state, None, "Bob")  # the attacker: the one with the turn
    assert found.kind == "attack" and found.in_turn and len(found.chances) == 1
    sheets = from_sheets("fudge-phases", fencer("Ann", "Great"), fencer("Bob", "Fair"))
    assert found.chances[0].lands == dict(sheets.hits)["Ann"] == by_hand(2)


def test_atari_isev_attack_in_ranked_order_is_the_sheet_odds() -> None:
    """AI-ATK: Atari Isev's attack by the fighter whose turn it is weighs as the sheet odds of one attack
    (the example sheets of Dwarzuga and Sylthaen, no wounds yet): the turn changes who acts, not the blow."""
    from tests.conftest import make_fights

    fights = make_fights()
    name = start(fights, rules="atari-isev")
    sheets = [_example("dwarzuga"), _example("sylthaen")]
    joined(fights, name, *sheets)
    fights.execute(name, cmd.StartRound(), dice("dwarzuga=++++", "sylthaen=----"))
    fights.execute(name, cmd.NextTurn())
    state = fights.state(name)
    attacker = state.combatants[state.turn.combatant].name
    target = next(c.name for c in state.combatants.values() if c.name != attacker)
    found = odds_now(state, None, target)
    first, second = sorted(sheets, key=lambda s: s["name"] != attacker)
    from_sheet = from_sheets("atari-isev", first, second)
    assert found.chances[0].lands == dict(from_sheet.hits)[attacker]
    wounded = dict(dict(from_sheet.wounds)[target])
    assert found.chances[0].serious == sum(p for level, p in wounded.items()
                                           if level not in ("Undamaged", "Scratch"))


def test_fate_exchange_is_the_sheet_odds_both_ways(fights: Fights) -> None:
    """FT-PACE exchange: each acts against the other; the contests won are those `fudge odds --rules fate` gives."""
    name = start(fights, rules="fate")
    cyrus, finn = _example("cyrus"), _example("finn")
    joined(fights, name, cyrus, finn)
    found = odds_now(fights.state(name), "Cyrus", "Finn")
    from_sheet = from_sheets("fate", cyrus, finn)
    # A contest won by 0 is Scratched, no effect (FT-OUT): a tie is nobody's win, whatever the sheet odds list.
    tie = dict(dict(from_sheet.wounds)["Finn"])["Scratched"]
    assert tie == dict(dict(from_sheet.wounds)["Cyrus"])["Scratched"] > 0
    assert found.fate and [c.lands for c in found.chances] == [dict(from_sheet.hits)[n] - tie for n in ("Cyrus", "Finn")]
    assert sum(c.lands for c in found.chances) + tie == 1  # one roll each: Cyrus wins, Finn wins, or a tie
    assert found.line().startswith("Cyrus beats Finn ")


def test_fate_attack_in_turns_is_the_hand_count(fights: Fights) -> None:
    """FT-PACE turn, FT-OUT: Cyrus (Swords Good, +2 on fate11) attacks Guard-A (Swords Fair, +1, who defends
    with it); a margin of 1 or more has an effect (0 is Scratched, nothing): 2 + X - (1 + Y) >= 1, counted
    over 6561 pairs."""
    name = start(fights, rules="fate", pace="turn", initiative="alertness")
    guard = _example("guard")
    joined(fights, name, _example("cyrus"))
    fights.execute(name, cmd.Join(sheet=guard, source="guard", name="Guard-A"))
    fights.execute(name, cmd.FateRound(), dice("cyrus=++++", "guard-a=----"))
    found = odds_now(fights.state(name), None, "guard-a")
    assert found.kind == "attack" and found.in_turn and found.fate
    assert (found.chances[0].attacker, found.chances[0].lands) == ("Cyrus", by_hand(1))


def test_out_of_turn_and_refusals(fights: Fights) -> None:
    """Someone without the turn is weighed as acting now, and the line says so; nobody with the turn, a
    fighter out of the fight, or oneself as target is refused."""
    name = start(fights, rules="fudge-phases")
    joined(fights, name, fencer("Ann", "Great"), fencer("Bob", "Good"))
    with pytest.raises(RuleError, match="nobody has the turn"):
        odds_now(fights.state(name), None, "Bob")
    fights.execute(name, cmd.StartRound(), dice("ann=++++", "bob=----"))
    fights.execute(name, cmd.NextTurn())
    state = fights.state(name)
    late = odds_now(state, "Bob", "Ann")
    assert not late.in_turn and late.line().endswith("[out of turn]")
    assert late.chances[0].lands == dict(from_sheets("fudge-phases", fencer("Bob", "Good"),
                                                     fencer("Ann", "Great")).hits)["Bob"]
    with pytest.raises(RuleError, match="both Ann"):
        odds_now(state, "Ann", "ann")
    fights.execute(name, cmd.GmWound(combatant="Bob", level=4, reason="a fall"))  # Incapacitated
    with pytest.raises(RuleError, match="out of the fight"):
        odds_now(fights.state(name), None, "Bob")


def test_a_declaring_actor_is_weighed_as_if_the_blow_resolved_now(fights: Fights) -> None:
    """PH-4 structured: the turn opens with the actor's declaration; his blow is weighed as it would
    resolve, and the line says so."""
    name = start(fights, rules="fudge-phases", phase_declaration="structured")
    joined(fights, name, fencer("Ann", "Great"), fencer("Bob", "Good"))
    fights.execute(name, cmd.StartRound(), dice("ann=++++", "bob=----"))
    fights.execute(name, cmd.NextTurn())
    state = fights.state(name)
    assert state.turn is not None and state.turn.step == "declare"
    found = odds_now(state, None, "Bob")
    assert found.line().endswith("[as if it resolved now]") and not found.in_turn
    assert found.chances[0].lands == by_hand(1)


def test_offered_lines_name_each_foe_standing_or_hint_when_costly(fights: Fights) -> None:
    """After the turn passes: a line per foe still standing (an Incapacitated one is left out, F-WND-1), each
    the odds of that blow; over the budget one hint line instead."""
    name = start(fights, rules="fudge-phases")
    joined(fights, name, fencer("Ann", "Great"), fencer("Bob", "Good"), fencer("Cid", "Fair"), fencer("Dan", "Fair"))
    fights.execute(name, cmd.GmWound(combatant="Dan", level=4, reason="a fall"))
    fights.execute(name, cmd.StartRound(), dice("ann=++++", "bob=----", "cid=----"))
    fights.execute(name, cmd.NextTurn())
    state = fights.state(name)
    lines = odds_offered(state)
    assert lines == [f"odds: {odds_now(state, None, foe).line()}" for foe in ("Bob", "Cid")]
    assert odds_now(state, None, "Cid").chances[0].lands == by_hand(2)
    assert odds_offered(state, budget=100) == ["odds: `fudge odds --fight TARGET` weighs Ann's blow on one of 2 foes"]


def _example(name: str) -> dict[str, Any]:
    from fudge_combat.engine.kernel.sheets import parse_sheet

    path = ROOT / "examples" / "sheets" / f"{name}.toml"
    return json_form(parse_sheet(path.read_text(), str(path)))


def _fight(tmp_path: Path) -> Path:
    store = tmp_path / "fudge.db"
    ann, bob = tmp_path / "ann.toml", tmp_path / "bob.toml"
    ann.write_text('name = "Ann"\n[skills]\nSword = "Great"\n[combat]\nattack = "Sword"\n')
    bob.write_text('name = "Bob"\n[skills]\nSword = "Good"\n[combat]\nattack = "Sword"\n')
    for args in (("new", "duel", "--rules", "fudge-phases"), ("join", str(ann)), ("join", str(bob)),
                 ("wound", "Bob", "Hurt", "--reason", "a fall"), ("round", "--dice", "ann=++++", "--dice", "bob=----")):
        done = fudge(*args, store=store)
        assert done.returncode == 0, done.stderr
    return store


def test_fudge_odds_fight_and_the_line_after_next(tmp_path: Path) -> None:
    """`fudge odds --fight` in a real store: the JSON's fraction is the hand count (Great against Good made
    Fair by Hurt), the text is the line; `fudge next` ends with the same line for the one foe standing."""
    store = _fight(tmp_path)
    nexted = fudge("next", store=store)
    assert nexted.returncode == 0, nexted.stderr
    shown = fudge("odds", "--fight", "bob", "--json", store=store)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert Fraction(data["chances"][0]["lands"]["fraction"]) == by_hand(2)
    assert data["kind"] == "attack" and data["in_turn"] is True
    text = fudge("odds", "--fight", "duel", "ann", "bob", store=store)
    assert text.stdout == data["line"] + "\n"
    assert nexted.stdout.splitlines()[-1] == f"odds: {data['line']}"


def test_fudge_odds_fight_errors_are_one_line(tmp_path: Path) -> None:
    store = _fight(tmp_path)
    for args, expected in ((("odds", "--fight", "bob"), "nobody has the turn"),
                           (("odds", "--fight", "zed"), "no combatant 'zed'"),
                           (("odds", "--fight", "bob", "--rules", "fate"), "--rules is for odds between sheets"),
                           (("odds", "bob"), "takes two sheets")):
        done = fudge(*args, store=store)
        assert done.returncode != 0 and done.stdout == ""
        assert done.stderr.startswith("error: ") and expected in done.stderr and done.stderr.count("\n") == 1
