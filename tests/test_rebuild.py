"""A-REPLAY-1, A-UNDO-2: a replay from scratch through the derived decoder (projections.fast) folds the
state the handlers fold from pydantic's records, event for event.

The logs: whole simulated fights of every preset and policy (exchanges, melees, phase and rolled
initiative, atari isev, fate, fudge-point spends that void and re-resolve), the golden schema-1 logs,
and the random GM sessions of tests/test_properties.py through the service (undo, redo, late joins,
every fudge-point use), where `Loader.rebuild` (what a command reads without a snapshot) must equal
`Fights.replayed`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import ValidationError

from fudge_combat.cli.demos import DEMOS, Demo
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.history import effective
from fudge_combat.engine.kernel.pmap import EventMap
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded, body, load
from fudge_combat.projections.fold import replay
from fudge_combat.projections.fast import READ_ONLY, RESTATES, handlers, rebuild, source_digest
from fudge_combat.service.fights import Fights
from tests.atari_helpers import atari, attack, next_, round_
from tests.conftest import dice
from tests.processes import ROOT, fudge
from tests.test_consequences import duel, play as play_demo
from tests.test_decoder import bodies_of
from tests.test_fold_draft import FIGHTERS, fight_log
from tests.test_properties import new_session, play as play_session, session as gm_session
from tests.test_stored_rows import old_logs


def rebuilt(records: list[Recorded]) -> FightState:
    """The rebuild of a log given as records: their bodies, the voided seqs left out."""
    bodies = [body(record) for record in records]
    kept = {record.seq for record in effective(records)}
    by_seq = {record.seq: record.event for record in records}
    state = rebuild(((r.seq, body) for r, body in zip(records, bodies)), {r.seq for r in records} - kept,
                    by_seq.__getitem__)
    return replace(state, last_seq=records[-1].seq) if records else state


def records_of(bodies: list[str]) -> list[Recorded]:
    return [load(body) for body in bodies]


fights = st.tuples(st.sampled_from(sorted(FIGHTERS)), st.sampled_from(("plain", "sensible", "reckless")),
                   st.booleans(), st.integers(0, 10_000))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fights)
def test_a_rebuilt_fight_equals_the_handlers_fold(fight: tuple) -> None:
    records = records_of(bodies_of(fight_log(*fight)))
    state, expected = rebuilt(records), replay(records)
    assert state == expected
    kinds = [name for name in FightState.__struct_fields__ if name != "events"]
    assert [type(getattr(state, name)) for name in kinds] == [type(getattr(expected, name)) for name in kinds]
    assert type(state.events) is EventMap


@pytest.mark.parametrize("preset", sorted(FIGHTERS))
def test_every_prefix_of_a_fight_rebuilds_to_the_handlers_fold(preset: str) -> None:
    """Each cut of the log: the fast handlers meet every state the others leave (a roll before or after
    its resolution, a wound on a fresh or a marked track)."""
    records = records_of(bodies_of(fight_log(preset, "reckless", True, 3)))
    for cut in range(0, len(records) + 1, max(1, len(records) // 40)):
        assert rebuilt(records[:cut]) == replay(records[:cut]), cut


def test_the_golden_logs_rebuild_to_the_handlers_fold() -> None:
    for log in old_logs():
        records = records_of([row["body"] for row in log])
        assert rebuilt(records) == replay(records)


def test_the_fold_takes_structs_only_for_the_read_only_handlers() -> None:
    table, taken = handlers()
    assert len(taken) == len(READ_ONLY)
    assert all(type.__name__ in {model.__name__ for model in READ_ONLY} for type in taken)


def test_the_fast_folds_own_handlers_were_checked_against_the_engine_code_they_restate() -> None:
    """A rule changed in the engine must be changed in the fast fold too: each piece of engine code its own
    handlers restate is named with the digest of its source when they were last read together."""
    changed = {name: source_digest(name) for name, digest in RESTATES.items() if source_digest(name) != digest}
    assert not changed, (f"engine code the fast fold restates has changed: {sorted(changed)}; make the change in "
                         f"projections/fast.py too (or see that it does not matter there), then set its digests in "
                         f"RESTATES to {changed}")


def test_a_body_the_decoder_refuses_goes_to_pydantic_which_decides() -> None:
    """A lax body (a number written as a string) is the models' to take; a body they refuse raises."""
    records = records_of(bodies_of(fight_log("fudge", "sensible", False, 1)))
    bodies = [body(record) for record in records]
    roll = next(i for i, r in enumerate(records) if r.event.type == "dice_rolled")
    lax = bodies[roll].replace(f'"action":{records[roll].event.action},', f'"action":"{records[roll].event.action}",')
    assert lax != bodies[roll]
    rows = list(enumerate([*bodies[:roll], lax, *bodies[roll + 1:]], 1))
    by_seq = {record.seq: record.event for record in records}
    state = rebuild(rows, set(), by_seq.__getitem__)
    assert state == rebuild(list(enumerate(bodies, 1)), set(), by_seq.__getitem__)
    wrong = bodies[roll].replace(f'"action":{records[roll].event.action},', '"action":"one",')
    with pytest.raises(ValueError):
        rebuild(list(enumerate([*bodies[:roll], wrong], 1)), set(), by_seq.__getitem__)
    with pytest.raises(ValueError):  # a voided row is not folded, but it is validated
        rebuild(list(enumerate([*bodies[:roll], wrong], 1)), {roll + 1}, by_seq.__getitem__)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(gm_session)
def test_a_gm_sessions_replay_from_the_store_equals_the_replayed_log(steps: list) -> None:
    session = play_session(new_session(), steps)
    fights, name = session.fights, session.name
    upto = fights.store.last_seq(name)
    assert fights.loader.rebuild(name, upto) == fights.replayed(name)[1]


@pytest.mark.parametrize("between", [cmd.Rest(combatants=("Snorri",)), cmd.EndBattle(), cmd.Rest(weeks=2)])
def test_F_HEAL_1_a_track_healed_between_wounds_is_built_again(between: cmd.CommandModel) -> None:
    """A wound placed on the track the earlier marks built (projections.fast._wound_marking) only while
    the combatant holds those marks: the end of the battle or a rest between two wounds changes them."""
    fights = duel()
    for level in (1, 2, 1):
        fights.execute("fight", cmd.GmWound(combatant="Snorri", level=level, reason="a bramble"))
    fights.execute("fight", between)
    for level in (1, 1, 3):
        fights.execute("fight", cmd.GmWound(combatant="Snorri", level=level, reason="a fall"))
    upto = fights.store.last_seq("fight")
    replayed = fights.replayed("fight")[1]
    assert fights.loader.rebuild("fight", upto) == replayed
    assert replayed.find("Snorri").marks != ()


def test_with_an_upcaster_registered_every_row_goes_through_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    """An older shape is upcast before validation, which only the pydantic path does (events.upcast)."""
    from fudge_combat.events.upcast import UPCASTERS

    records = records_of(bodies_of(fight_log("fudge", "sensible", True, 2)))
    seen: list[dict] = []
    monkeypatch.setitem(UPCASTERS, ("dice_rolled", 1), lambda payload: seen.append(payload) or {**payload, "v": 2})
    assert rebuilt(records) == replay(records)
    rolls = {r.seq for r in effective(records) if r.event.type == "dice_rolled"}
    assert len(seen) == len(rolls) > 0


@pytest.mark.parametrize("demo", DEMOS.values(), ids=list(DEMOS))
def test_every_prefix_of_every_demo_rebuilds_to_the_records_fold(demo: Demo) -> None:
    """The demos' scripted fights (F-EX's advantages and all-out, phase and rolled initiative, Fate), read
    from the store as of each of their events: a new round meets every state the others leave."""
    fights, _ = play_demo(demo)
    for upto in range(1, fights.store.last_seq("fight") + 1):
        assert fights.loader.rebuild("fight", upto) == fights.replayed("fight", upto)[1], upto


def test_F_MOD_7_an_advantage_not_used_lapses_at_the_round_after_its_own() -> None:
    """F-EX to the Perception roll that wins Brynhild her advantage (for round 5), then two new rounds with
    no blow: it lapses when round 6 begins, in the rebuild as in the handlers' fold."""
    demo = DEMOS["fudge"]
    spot = next(i for i, (_, command, _) in enumerate(demo.steps) if getattr(command, "advantage", False))
    fights, _ = play_demo(replace(demo, steps=demo.steps[: spot + 1]))
    assert fights.state("fight").advantages
    for _ in range(2):
        fights.execute("fight", cmd.StartRound())
        upto = fights.store.last_seq("fight")
        assert fights.loader.rebuild("fight", upto) == fights.replayed("fight", upto)[1]
    assert not fights.state("fight").advantages


def test_a_command_without_a_snapshot_it_can_use_reads_the_rebuilt_fight_as_a_gm_runs_it(tmp_path: Path) -> None:
    """A-REPLAY-1, A-UNDO-2, C-FP-2, as a GM runs it: each command its own process on a store file with
    its snapshot key. A process given another key can use neither the snapshots nor the stored status
    view (both signed with the first key), so it replays the fight from scratch through the rebuild: it
    shows the same board and JSON as the first key's processes, the same wounds and points as `fudge
    replay` (the records' fold), and its next command is decided on that state like any other."""
    sheets = ROOT / "examples" / "sheets"
    db, other_key = tmp_path / "fudge.db", tmp_path / "other.key"

    def ok(*args: str, key: Path | None = None) -> str:
        done = fudge(*args, store=db, key=key)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stdout, done.stderr)
        return done.stdout

    ok("new", "duel", "--rules", "fudge")
    ok("join", str(sheets / "snorri.toml"))
    ok("join", str(sheets / "brynhild.toml"))
    for _ in range(12):  # past the first snapshot (every 32 events at least)
        ok("roll", "brynhild", "Perception", "--vs", "Good", "--dice", "0 0 0 0")
    ok("exchange", "snorri", "brynhild", "--dice", "snorri=+ 0 0 0", "--dice", "brynhild=- 0 0 0",
       "--dice", "snorri=0 0 0 0")
    ok("exchange", "snorri", "brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=+ + + 0",
       "--dice", "brynhild=0 0 0 0")
    ok("spend", "snorri", "skill", "--shift", "+1")  # voids the graze: re-resolved
    ok("undo")
    ok("redo")
    ok("undo")
    assert (db.parent / "snapshot.key").exists()

    for shown in (("status", "--json"), ("status",), ("status", "--long")):
        assert ok(*shown, key=other_key) == ok(*shown), shown
    rebuilt_view = json.loads(ok("status", "--json", key=other_key))
    replayed = json.loads(ok("replay", "duel", "--json").splitlines()[-1])["state"]
    assert {c["name"]: (c["wound_level"], c["fudge_points"]) for c in rebuilt_view["combatants"]} == {
        c["name"]: (c["wound_level"], c["fudge_points"]) for c in replayed["combatants"]} == {
        "Snorri": ("Scratch", 2), "Brynhild": ("Very Hurt", 0)}

    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(db, copy / "fudge.db")
    shutil.copy(db.parent / "snapshot.key", copy / "snapshot.key")
    roll = ("roll", "snorri", "Strength", "--vs", "Fair", "--dice", "+ 0 0 0", "--json")
    on_rebuild = json.loads(ok(*roll, key=other_key))
    on_snapshot = json.loads(fudge(*roll, store=copy / "fudge.db").stdout)
    assert on_rebuild["consequences"] == on_snapshot["consequences"]
    assert on_rebuild["board"] == on_snapshot["board"]

    def facts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:  # each event but its command's random id and its time
        return [{k: v for k, v in event.items() if k not in ("command", "at")} for event in events]
    assert facts(on_rebuild["events"]) == facts(on_snapshot["events"]) and on_rebuild["events"]
    assert "hash chain intact, rules agree" in ok("verify", "duel", key=other_key)


def test_a_timed_condition_runs_out_in_the_fast_fold_as_in_the_handlers() -> None:
    """The fast fold's round start restates the handler's, whose first step ends the conditions marked to last
    until that round: a fight with conditions timed and untimed, over three rounds, rebuilds to the fold at
    every cut (the board would otherwise keep a condition the log says is gone)."""
    from tests.conftest import make_fights, sheet, start

    fights = make_fights()
    name = start(fights)
    for who in ("Ann", "Bob"):
        fights.execute(name, cmd.Join(sheet=sheet(who, skills={"Sword": 1}, attack="Sword"), source=f"{who}.toml"))
    fights.execute(name, cmd.MarkCondition(combatant="Ann", condition="prone", rounds=1, note="tripped"))
    fights.execute(name, cmd.MarkCondition(combatant="Bob", condition="on fire"))
    fights.execute(name, cmd.MarkCondition(combatant="Bob", condition="blinded", rounds=2))
    for _ in range(3):
        fights.execute(name, cmd.StartRound())
    records = fights.log(name)
    for cut in range(len(records) + 1):
        assert rebuilt(records[:cut]) == replay(records[:cut]), cut
    final = rebuilt(records)
    assert [c.name for c in final.combatants["ann"].conditions] == []
    assert [c.name for c in final.combatants["bob"].conditions] == ["on fire"]


def test_AI_HEROIC_a_heroic_avoidance_rebuilds_with_its_index_as_each_row_is_read(fights: Fights) -> None:
    """The fold's own handler of a resolved action (projections.fast._action_resolving) keeps the `heroic`
    index the engine's `remember` keeps; every prefix of the fight rebuilds to the handlers' fold."""
    atari(fights, "max", "cutthroat")
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    next_(fights)
    next_(fights)
    attack(fights, "Cutthroat", "Max", "cutthroat=+ + + 0", "max=- 0 0 0", "cutthroat=0 0 0 0")
    fights.execute("fight", cmd.HeroicAvoidance(combatant="Max"), dice("max=+ 0 0 0"))
    round_(fights, "max=+ + 0 0", "cutthroat=0 0 0 0")
    last = fights.store.last_seq("fight")
    for upto in range(1, last + 1):
        assert fights.loader.rebuild("fight", upto) == fights.replayed("fight", upto)[1], upto
    assert any(key[0] == "heroic" for key in fights.loader.rebuild("fight", last).index)


def test_a_declaration_is_kept_as_pydantics_model_and_one_the_models_refuse_is_refused_in_their_words() -> None:
    """A declaration, which the state keeps, is validated by pydantic from the decoded struct (not parsed
    again): the state holds the model pydantic's record holds. A declaration the models refuse is refused by
    the rebuild with the error `load` raises for that body, folded or voided."""
    records = records_of(bodies_of(fight_log("fudge", "reckless", True, 1)))
    bodies = [body(record) for record in records]
    by_seq = {record.seq: record.event for record in records}
    at = next(i for i, r in enumerate(records) if r.event.type == "declared")
    state = rebuild(list(enumerate(bodies[:at + 1], 1)), set(), by_seq.__getitem__)
    kept = [*state.declarations.values(), *(declaration for _, declaration in state.pending.values())]
    assert kept == [records[at].event.declaration] and type(kept[0]) is ev.Declaration
    wrong = bodies[at].replace('"all_out":"', '"all_out":"sideways-', 1)
    assert wrong != bodies[at]
    with pytest.raises(ValidationError) as expected:
        load(wrong)
    for gone in (set(), {at + 1}):
        with pytest.raises(ValidationError) as refused_:
            rebuild(list(enumerate([*bodies[:at], wrong], 1)), gone, by_seq.__getitem__)
        assert str(refused_.value) == str(expected.value)
