"""What a command says it did (`projections.consequences`), read from the states before and after it.

Fights are played through the service in memory, under every preset: Fudge (F-WND, F-MOD-1, F-STUN-1,
C-FP-2, A-SEAL-1, A-UNDO-1), phase initiative (PH-1, PH-2, PH-3, CT-BARTER, PC-DICE by the house file),
Atari Isev's rolled order (AI-INIT-2), Fate's exchanges and turns (FT-TRACK-3, FT-PTS, FT-INIT).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from fudge_combat.events.records import json_form
from fudge_combat.cli.demos import DEMOS, Demo, join
from fudge_combat.cli.rules import _dice
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.rulesets.fate.rules import next_actor
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.wounds import INCAPACITATED, NEAR_DEATH
from fudge_combat.events import structs as ev
from fudge_combat.projections.consequences import Consequence, consequences, touched
from fudge_combat.projections.fold import evolve_all
from fudge_combat.service.fights import Fights
from tests.conftest import dice, make_fights, start
from tests.fuzzing import fuzz
from fudge_combat.engine.rulesets.fate.state import fate_of

ROOT = Path(__file__).resolve().parents[1]
F_EX_ROUND_1 = ("snorri=+ 0 0 0", "brynhild=- 0 0 0", "snorri=- - 0 0")  # F-EX: Brynhild Hurt


def said(fights: Fights, command: Any, *typed: str, name: str = "fight") -> list[tuple[str, str]]:
    """The consequences of one command, as (kind, text)."""
    before = fights.state(name)
    outcome = fights.execute(name, command, dice(*typed))
    found = consequences(before, outcome.state, outcome.records, touched(fights.log(name), outcome.records))
    return [(c.kind, c.text) for c in found]


def duel(**options: Any) -> Fights:
    """Snorri and Brynhild (the example sheets) under Fudge, with F-EX's damage roll."""
    fights = make_fights()
    start(fights, "fight", "fudge", damage_roll="4dF_limited", **options)
    fights.execute("fight", join("snorri"))
    fights.execute("fight", join("brynhild"))
    return fights


def play(demo: Demo) -> tuple[Fights, list[list[tuple[str, str]]]]:
    """A demo's script through the service, with each step's consequences."""
    fights = make_fights()
    label, options = resolve(demo.rules, demo.house)
    fights.new("fight", label, json_form(options))
    steps = []
    for _, command, typed in demo.steps:
        before = fights.state("fight")
        outcome = fights.execute("fight", command, _dice(typed))
        found = consequences(before, outcome.state, outcome.records, touched(fights.log("fight"), outcome.records))
        steps.append([(c.kind, c.text) for c in found])
    return fights, steps


# --- Fudge ------------------------------------------------------------------------------------------

def test_F_WND_4_F_MOD_1_a_blow_says_the_level_it_left_and_its_penalty() -> None:
    fights = duel()
    assert said(fights, cmd.Exchange(first="Snorri", second="Brynhild"), *F_EX_ROUND_1) == [
        ("round", "round 1 begins"), ("wound", "Brynhild is Hurt: -1 to every roll")]
    # A stand-off changes no track: nothing is said of wounds, only the new round.
    assert said(fights, cmd.Exchange(first="Snorri", second="Brynhild"), "snorri=0 0 0 0", "brynhild=+ 0 0 0") == [
        ("round", "round 2 begins")]


def test_F_WND_1_out_of_the_fight_and_only_one_side_standing() -> None:
    fights = duel()
    assert said(fights, cmd.GmWound(combatant="Brynhild", level=INCAPACITATED, reason="a fall")) == [
        ("out", "Brynhild is out of the fight (Incapacitated)"),
        ("fight-over", "only Snorri's side is standing: `fudge end` ends the battle")]
    # Worse, but already out: the level is said; the fight was over already.
    assert said(fights, cmd.GmWound(combatant="Brynhild", level=NEAR_DEATH, reason="a fall")) == [
        ("wound", "Brynhild is Near Death, still out of the fight")]


def test_F_WND_6_death_by_the_GMs_ruling() -> None:
    fights = duel(death_rule="gm")
    assert said(fights, cmd.Kill(combatant="Brynhild", reason="beheaded")) == [
        ("out", "Brynhild is dead (the GM's ruling)"),
        ("fight-over", "only Snorri's side is standing: `fudge end` ends the battle")]


def test_F_STUN_1_a_stunning_blow_says_how_long_it_lasts() -> None:
    fights = duel()
    found = said(fights, cmd.Exchange(first="Snorri", second="Brynhild", stun=("Snorri",)), *F_EX_ROUND_1)
    assert ("wound", "Brynhild is Stunned until round 2 (F-STUN-1)") in found
    assert not any(kind == "out" for kind, _ in found)


def test_F_HEAL_1_the_end_of_the_battle_erases_scratches() -> None:
    fights = duel()
    fights.execute("fight", cmd.GmWound(combatant="Snorri", level=1, reason="a bramble"))
    assert said(fights, cmd.EndBattle()) == [("wound", "Snorri is Undamaged: no penalty")]


def test_C_FP_2_a_fudge_point_says_the_new_result_and_the_wound_it_made() -> None:
    fights = duel()
    fights.execute("fight", cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=+ 0 0 0", "brynhild=+ 0 0 0"))  # Great vs Great: a stand-off
    assert said(fights, cmd.SpendPoint(combatant="Snorri", use="skill", shift=1), "snorri=0 0 0 0") == [
        ("points", "Snorri has 1 fudge point left"),
        ("result", "now Snorri Superb vs Brynhild Great: Snorri grazes Brynhild: Scratch "
                   "(was Snorri Great vs Brynhild Great: stand-off)"),
        ("wound", "Brynhild is Scratched: no penalty")]


def test_A_UNDO_1_undo_says_what_it_took_back_and_redo_what_it_brought_back() -> None:
    fights = duel()
    fights.execute("fight", cmd.Exchange(first="Snorri", second="Brynhild"), dice(*F_EX_ROUND_1))
    assert said(fights, cmd.Undo()) == [
        ("undo", "undid Snorri's exchange with Brynhild, seq 4-9"),
        ("round", "back before round 1"),
        ("wound", "Brynhild is Undamaged: no penalty")]
    assert said(fights, cmd.Redo()) == [
        ("redo", "redid Snorri's exchange with Brynhild, seq 4-9"),
        ("round", "round 1 begins"),
        ("wound", "Brynhild is Hurt: -1 to every roll")]


def test_A_UNDO_1_undoing_a_point_names_the_point_and_gives_it_back() -> None:
    fights = duel()
    fights.execute("fight", cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=+ 0 0 0", "brynhild=+ 0 0 0"))
    fights.execute("fight", cmd.SpendPoint(combatant="Snorri", use="skill", shift=1), dice("snorri=0 0 0 0"))
    found = said(fights, cmd.Undo())
    assert found[0][0] == "undo" and found[0][1].startswith("undid Snorri's fudge point (skill), seq ")
    assert ("points", "Snorri has 2 fudge points left") in found
    assert ("wound", "Brynhild is Undamaged: no penalty") in found


def test_A_UNDO_1_without_the_undone_records_the_command_is_named_by_its_id() -> None:
    fights = duel()
    fights.execute("fight", cmd.Exchange(first="Snorri", second="Brynhild"), dice(*F_EX_ROUND_1))
    before = fights.state("fight")
    outcome = fights.execute("fight", cmd.Undo())
    target = outcome.records[0].event.target
    assert consequences(before, outcome.state, outcome.records)[0] == Consequence("undo", f"undid command {target[:8]}")


def test_A_SEAL_1_a_sealed_declaration_says_what_it_was_when_it_opens() -> None:
    fights = duel()
    fights.declare("fight", "Snorri", ev.Declaration(all_out="offense"), sealed=True)
    state = fights.state("fight")
    found = said(fights, cmd.Exchange(first="Snorri", second="Brynhild",
                                      reveals=fights.reveals(state, ["Snorri", "Brynhild"])),
                 "snorri=0 0 0 0", "brynhild=0 0 0 0")
    assert ("declaration", "Snorri's sealed declaration was all-out offense") in found


def test_A_SEAL_1_A_UNDO_1_undoing_a_sealed_declaration_names_it_and_nothing_expired() -> None:
    fights = duel()
    fights.declare("fight", "Snorri", ev.Declaration(all_out="offense"), sealed=True)  # opens round 1
    found = said(fights, cmd.Undo())
    assert found == [("undo", "undid Snorri's sealed declaration, seq 4-5"), ("round", "back before round 1")]


# --- phase initiative -----------------------------------------------------------------------------------

def test_PH_1_PH_2_CT_BARTER_the_order_and_each_turn_in_phases() -> None:
    fights, steps = play(DEMOS["fudge-phases"])
    captions = [caption for caption, _, _ in DEMOS["fudge-phases"].steps]
    by = dict(zip(captions, steps))
    round_1 = next(s for c, s in by.items() if c.startswith("Round 1"))
    assert round_1 == [("round", "round 1 begins"),
                       ("order", "order: + Brynhild, Leroy; 0 Brynhild, Leroy, Theodora; - Brynhild, Leroy, Theodora; -- Brynhild, Leroy, Theodora")]
    assert by["Leroy trades his first + to raise the other to ++ (CT-BARTER-1)"] == [
        ("order", "order: ++ Leroy; + Brynhild; 0 Brynhild, Leroy, Theodora; - Brynhild, Leroy, Theodora; -- Brynhild, Leroy, Theodora")]
    assert by["Phase ++: Brynhild (Good Agility) acts before Leroy (Fair)"] == [
        ("turn", "Brynhild's turn (phase ++)")]
    assert by["Brynhild's axe swings at Leroy"] == [("wound", "Leroy is Hurt: -1 to every roll")]
    assert steps[-1] == [("out", "Brynhild is out of the fight (Incapacitated)"),
                         ("fight-over", "only side watch (Leroy, Theodora) is standing: `fudge end` ends the battle")]


def test_PC_DICE_PH_3_phases_classic_from_the_house_file_says_the_order_and_whose_turn() -> None:
    """Generated dice: what is said is checked against the fight's own state."""
    fights = make_fights()
    label, options = resolve("fudge", (ROOT / "examples" / "house" / "phases-classic.toml").read_text())
    fights.new("fight", label, json_form(options))
    for name in ("leroy", "theodora", "brynhild"):
        fights.execute("fight", join(name))
    rolled = said(fights, cmd.StartRound())
    assert rolled[0] == ("round", "round 1 begins")
    assert rolled[1][0] == "order" and rolled[1][1].startswith("order: ")
    last = rolled[1][1].rsplit("; ", 1)[-1]  # PH-1: everyone acts in --
    assert last.startswith("-- ") and set(last[3:].split(", ")) == {"Leroy", "Theodora", "Brynhild"}
    turn = said(fights, cmd.NextTurn())
    state = fights.state("fight")
    assert state.options.initiative == "phases-classic"
    from fudge_combat.engine.kernel.initiative import PHASE_NAME
    assert turn == [("turn", f"{state.combatants[state.turn.combatant].name}'s turn "
                             f"(phase {PHASE_NAME[state.turn.phase]})")]


# --- Atari Isev -------------------------------------------------------------------------------------------

def test_AI_INIT_2_rolled_order_turns_and_the_rounds_last_turn() -> None:
    _, steps = play(DEMOS["atari-isev"])
    assert steps[2] == [("round", "round 1 begins"), ("order", "order: Max +1, Cutthroat +0")]
    assert steps[3] == [("turn", "Max's turn (initiative +1)")]
    assert steps[4] == [("wound", "Cutthroat is Hurt: -1 to every roll")]
    assert steps[6] == [("wound", "Max is Hurt: -1 to every roll"),
                        ("turn", "round 1's turns are all taken: `fudge round` starts the next")]
    assert steps[7] == [("round", "round 2 begins"), ("order", "order: Max and Cutthroat +0 together")]


def test_AI_WILL_1_willpower_says_the_level_the_wounds_now_count_as() -> None:
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound
    from fudge_combat.engine.kernel.wounds import LEVELS

    fights, _ = play(DEMOS["atari-isev"])  # Max ends Very Hurt
    found = said(fights, cmd.Willpower(combatant="Max"), "max=+ + + +")
    max_ = fights.state("fight").find("Max")
    level, penalty = acting_wound(fights.state("fight"), max_)
    assert max_.track.level == 3 and level < 3  # the marks stay; they count lighter
    assert found == [("wound", f"Max is Very Hurt (acts as {LEVELS[level]}, willpower): "
                               f"{f'{penalty:+d} to every roll' if penalty else 'no penalty'}")]


# --- Fate ---------------------------------------------------------------------------------------------------

def test_FT_TRACK_3_FT_PTS_fate_boxes_points_and_taken_out() -> None:
    _, steps = play(DEMOS["fate"])
    assert steps[5] == [("wound", "Finn is Clipped: -1 to the next roll")]
    spent = steps[7]
    assert spent[0] == ("points", "Finn has 2 fate points left")
    assert spent[1][0] == "result" and spent[1][1].startswith("now Finn Great vs Guard-C Fair: maneuver: ")
    assert spent[1][1].endswith("(was Finn Good vs Guard-C Fair: Clipped)")
    assert ("wound", "Guard-C is unharmed: no penalty") in spent  # the maneuver replaced the clip
    assert ("wound", "Cyrus is Hurt: -1 to every roll this scene") in steps[8]
    assert ("out", "Guard-A is out of the fight (Taken Out)") in steps[-2]


def test_FT_INIT_fate_turns_say_the_alertness_order_and_whose_turn() -> None:
    fights = make_fights()
    label, options = resolve("fate", (ROOT / "examples" / "house" / "fate-turns.toml").read_text())
    fights.new("fight", label, json_form(options))
    fights.execute("fight", join("cyrus"))
    fights.execute("fight", join("finn"))
    fights.execute("fight", join("guard"))
    found = said(fights, cmd.FateRound())
    state = fights.state("fight")
    first = next_actor(state)
    assert found == [("round", "round 1 begins"),
                     ("order", "order: " + ", ".join(state.combatants[k].name for k in fate_of(state).order)),
                     ("turn", f"{first.name}'s turn (Alertness order)")]
    foe = next(w for w in state.combatants.values() if w.side != first.side)
    after_attack = said(fights, cmd.FateAttack(attack=cmd.FateAction(combatant=first.name, target=foe.name),
                                               defense=cmd.FateAction(combatant=foe.name)))
    now = next_actor(fights.state("fight"))
    assert after_attack[-1] == ("turn", f"{now.name}'s turn (Alertness order)")


def test_FT_INIT_a_turn_passed_or_held_says_whose_turn_and_its_undo_names_it() -> None:
    """FT-INIT: a hold says the new order and whose turn it is; a pass says whose turn comes next, or that the
    round's turns are all taken; an undo names the pass or the hold it took back, and whose turn it is again."""
    fights = make_fights()
    start(fights, "fight", "fate", pace="turn", initiative="alertness")
    for joined in (join("cyrus"), join("finn")):
        fights.execute("fight", joined)
    fights.execute("fight", cmd.FateRound(), dice("cyrus=0000", "finn=0000"))
    assert said(fights, cmd.FatePass(hold=True)) == [("order", "order: Cyrus, Finn"),
                                                      ("turn", "Cyrus's turn (Alertness order)")]
    assert said(fights, cmd.FatePass()) == [("turn", "Finn's turn (Alertness order)")]
    assert said(fights, cmd.Undo()) == [("undo", "undid Cyrus's passed turn, seq 8"),
                                        ("turn", "Cyrus's turn (Alertness order)")]
    assert said(fights, cmd.Undo()) == [("undo", "undid Finn's held turn, seq 7"), ("order", "order: Finn, Cyrus"),
                                        ("turn", "Finn's turn (Alertness order)")]
    fights.execute("fight", cmd.FatePass())
    assert said(fights, cmd.FatePass()) == [
        ("turn", "round 1's turns are all taken: `fudge fate round` starts the next")]


def test_FT_SCENE_at_the_scene_pace_clipped_and_hurt_are_the_GMs_to_apply() -> None:
    fights = make_fights()
    label, options = resolve("fate", 'extends = "fate"\npace = "scene"\n')
    fights.new("fight", label, json_form(options))
    fights.execute("fight", join("cyrus"))
    fights.execute("fight", join("guard"))
    scene = cmd.FateScene(actions=(cmd.FateAction(combatant="Cyrus", target="Guard"),
                                   cmd.FateAction(combatant="Guard", target="Cyrus")))
    assert said(fights, scene, "cyrus=- - 0 0", "guard=+ 0 0 0") == [
        ("wound", "Cyrus is Hurt: -1 where the GM says, this scene")]
    assert said(fights, cmd.EndScene()) == [("round", "scene 2 begins"), ("wound", "Cyrus is unharmed: no penalty")]


# --- the same words everywhere --------------------------------------------------------------------------------

@pytest.mark.parametrize("demo", list(DEMOS))
def test_A_REPLAY_1_the_log_folded_once_says_what_each_command_said(demo: str) -> None:
    """`fudge log` and `fudge replay` read each command's consequences from one fold of the log: the
    same as the command said when it ran (undo and redo included)."""
    from fudge_combat.cli.history import Said

    fights, live = play(DEMOS[demo])
    records = fights.log("fight")
    said_by_log = Said(records)
    from_log = []
    for index, (record, state) in enumerate(evolve_all(records)):
        found, _ = said_by_log.after(index, state)
        if index + 1 == len(records) or records[index + 1].command != record.command:
            from_log.append([(c.kind, c.text) for c in found])
    assert from_log[1:] == live  # the first command started the fight: no step of the script


@pytest.mark.parametrize("demo", list(DEMOS))
def test_nothing_changed_nothing_said(demo: str) -> None:
    """A state compared with itself has no consequence, at every event of every demo."""
    fights, _ = play(DEMOS[demo])
    for _, state in evolve_all(fights.log("fight")):
        assert consequences(state, state, []) == []


# --- properties over random sessions (tests/test_properties.py's GM sessions) ---------------------------------

def _said_live(steps: list[Any]) -> tuple[Any, list[tuple[Any, Any, list[Consequence]]]]:
    """Play a random session; each applied command's (state before, state after, consequences)."""
    from tests.test_properties import new_session
    from tests.test_properties import play as play_session

    session = new_session()
    seen: list[tuple[Any, Any, list[Consequence]]] = []
    last = [session.state]

    def collect(session: Any, item: Any, outcome: Any) -> None:
        log = session.fights.log(session.name)
        seen.append((last[0], outcome.state, consequences(last[0], outcome.state, outcome.records,
                                                          touched(log, outcome.records))))
        last[0] = outcome.state

    play_session(session, steps, after_each=collect)
    return session, seen


def _session() -> Any:
    from tests.test_properties import session
    return session


@fuzz(25)
@given(_session())
def test_A_REPLAY_1_random_sessions_the_log_says_what_each_command_said(steps: list[Any]) -> None:
    """Joins, declarations, exchanges, rolls, points, rounds, undo and redo: the consequences of each
    command from one fold of the log are those it said when it ran."""
    from fudge_combat.cli.history import Said

    session, seen = _said_live(steps)
    records = session.fights.log(session.name)
    reader = Said(records)
    from_log = []
    for index, (record, state) in enumerate(evolve_all(records)):
        found, _ = reader.after(index, state)
        if index + 1 == len(records) or records[index + 1].command != record.command:
            from_log.append(found)
    assert from_log[1:] == [said for _, _, said in seen]


@fuzz(25)
@given(_session())
def test_F_WND_1_F_WND_4_random_sessions_every_change_of_level_is_said(steps: list[Any]) -> None:
    """Whoever's wound level changed and still fights has a line naming the level and its penalty
    (F-WND-4, F-MOD-1); whoever could fight and no longer can is said to be out (F-WND-1); nobody
    else's wound is spoken of."""
    from fudge_combat.engine.kernel.wounds import LEVELS

    _, seen = _said_live(steps)
    for before, after, said in seen:
        wounds = {text.split(" is ")[0]: text for kind, text in ((c.kind, c.text) for c in said) if kind == "wound"}
        outs = {c.text.split(" is ")[0] for c in said if c.kind == "out"}
        for key, now in after.combatants.items():
            was = before.combatants.get(key)
            if was is None:
                continue
            level = now.track.level
            if now.track.can_act and level != was.track.level:
                word = "Scratched" if level == 1 else LEVELS[level]
                penalty = now.track.penalty(after.options)
                assert wounds.pop(now.name) == (f"{now.name} is {word}: "
                                                f"{f'{penalty:+d} to every roll' if penalty else 'no penalty'}")
            if was.track.can_act and not now.track.can_act:
                assert now.name in outs
            if now.track.can_act and level == was.track.level:
                assert now.name not in wounds or "Stunned" in wounds[now.name]


def test_A_UNDO_1_undoing_a_join_says_no_side_fell() -> None:
    """A join undone before the first blow takes a side away; nobody fell, so nothing says a side is left
    standing or that `fudge end` ends the battle."""
    fights = make_fights()
    start(fights, "fight", "fudge")
    fights.execute("fight", join("snorri"))
    before = fights.execute("fight", join("brynhild")).state
    undo = fights.execute("fight", cmd.Undo())
    said = consequences(before, undo.state, undo.records, touched(fights.log("fight"), undo.records))
    assert [c.kind for c in said if c.kind == "undo"] and not [c for c in said if c.kind == "fight-over"], said


def test_F_WND_3_a_box_marked_below_the_level_is_said_with_the_level_kept() -> None:
    """F-WND-3: a Scratch on a Very Hurt fighter marks a Scratch box; the level stays Very Hurt. The GM is
    told the box and the level kept, not left to read "wounded: Very Hurt" as a blow that made her so."""
    fights = duel()
    fights.execute("fight", cmd.GmWound(combatant="Brynhild", level=3, reason="a fall"))
    found = said(fights, cmd.Exchange(first="snorri", second="brynhild"),
                 "snorri=- - 0 0", "brynhild=- 0 0 0", "snorri=0 0 0 0")
    assert ("wound", "Brynhild marks a Scratch box (1 of 3), still Very Hurt: -2 to every roll") in found, found


def _asked_of_everyone(before: Any, after: Any) -> None:
    """Who fell, rose, or left a side standing, asked only of the combatants a command changed, is what asking
    every combatant gives (`Decider.still_fights` reads the combatant and its ruleset's part, no more)."""
    from fudge_combat.projections.consequences import _changed, _fight_over, _standing

    changed = _changed(before, after)
    assert _standing(before, after, changed) == _standing(before, after, None)
    assert _fight_over(before, after, changed) == _fight_over(before, after, None)


@pytest.mark.parametrize("demo", list(DEMOS))
def test_F_WND_1_FT_TRACK_3_who_stands_is_asked_of_the_changed_alone_and_says_the_same(demo: str) -> None:
    """Every step of every demo (Fate's Taken Out is on its own part of the state, not the combatant)."""
    fights, _ = play(DEMOS[demo])
    states = [state for _, state in evolve_all(fights.log("fight"))]
    for before, after in zip(states, states[1:]):
        _asked_of_everyone(before, after)


@fuzz(25)
@given(_session())
def test_F_WND_1_random_sessions_who_stands_is_asked_of_the_changed_alone_and_says_the_same(steps: list[Any]) -> None:
    """Random GM sessions (undo and redo included): the same lines as asking every combatant."""
    _, seen = _said_live(steps)
    for before, after, _ in seen:
        _asked_of_everyone(before, after)
