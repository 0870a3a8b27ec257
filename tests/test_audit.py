"""The audit trail on a real SQLite file: A-LOG-2, A-VERIFY-1, A-FAIR-1, A-SEAL-1,
A-UNDO-1, A-UNDO-2, A-BRANCH-1, A-REPLAY-1.

Tampering is done the way an attacker would: straight into the SQLite file
with `sqlite3`, under the store's back. `verify` must then fail and name the
sequence number, both as a function (engine.audit.verify) and as
`fudge verify` (exit != 0).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import structlog
from msgspec.structs import replace
from typer.testing import CliRunner

from fudge_combat.events.records import json_form
from fudge_combat.cli.history import VERIFY_FAILED
from fudge_combat.cli.main import app
from fudge_combat.cli.render import status_json
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import seal_matches, verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.events import structs as ev
from fudge_combat.events.records import GENESIS, SCHEMA_VERSION, canonical, chain_hash, load
from fudge_combat.engine.kernel.history import effective, voided
from fudge_combat.projections.fold import evolve_all, replay
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, start

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def join(fights: Fights, name: str, *who: str) -> None:
    for sheet_name in who:
        sheet = parse_sheet((SHEETS / f"{sheet_name}.toml").read_text(), f"{sheet_name}.toml")
        fights.execute(name, cmd.Join(sheet=json_form(sheet), source=f"{sheet_name}.toml"))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "fudge.db"


@pytest.fixture
def fights(path: Path) -> Fights:
    return make_fights(SqliteStore(path))


def fex(fights: Fights, name: str = "duel") -> None:
    """Fudge 4.7's first three rounds (F-EX) with the text's dice: seq 1..19."""
    start(fights, name, damage_roll="4dF_limited")
    join(fights, name, "snorri", "brynhild")
    fights.execute(name, cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=+ 0 0 0", "brynhild=- 0 0 0", "snorri=- - 0 0"))  # 4..9: Brynhild Hurt
    fights.execute(name, cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=0 0 0 0", "brynhild=+ 0 0 0"))  # 10..13: stand-off
    fights.execute(name, cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=+ 0 0 0", "brynhild=+ 0 0 0", "snorri=0 0 0 0"))  # 14..19: a graze, Scratch


def types(fights: Fights, name: str = "duel") -> dict[int, str]:
    return {r.seq: r.type for r in fights.store.read(name)}


def rewrite(path: Path, name: str, seq: int, edit: Callable[[dict[str, Any]], None], *,
            rehash: bool = True, rechain: bool = False) -> None:
    """Edit one stored event's JSON body in the file; optionally recompute its hash, or the whole chain after it."""
    store = SqliteStore(path)
    rows = store.read(name)
    store.close()
    with sqlite3.connect(path) as db:
        (fight,) = db.execute("SELECT id FROM fights WHERE name = ?", (name,)).fetchone()
        prev = rows[seq - 2].hash if seq > 1 else GENESIS
        for row in rows[seq - 1:]:
            data = json.loads(row.body)
            if row.seq == seq:
                edit(data)
            elif not rechain:
                break
            data["prev"] = prev
            body = canonical(data)
            digest = chain_hash(body) if rehash else row.hash
            db.execute("UPDATE events SET body = ?, hash = ? WHERE fight = ? AND seq = ?", (body, digest, fight, row.seq))
            prev = digest


def cli_verify(path: Path, name: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--store", str(path), "verify", name], env={"FUDGE_STORE": None})
    return result.exit_code, result.stdout, result.stderr


def fresh(path: Path, name: str = "duel") -> Any:
    return verify(SqliteStore(path).read(name))


# --- A-LOG-2 -------------------------------------------------------------------------

def test_A_LOG_2_every_event_carries_its_envelope(fights: Fights, path: Path) -> None:
    fex(fights)
    rows = fights.store.read("duel")
    prev = GENESIS
    fight_id = rows and load(rows[0].body).fight
    for index, row in enumerate(rows, start=1):
        record = load(row.body)
        assert (record.seq, record.fight, record.schema_version, record.prev) == (index, fight_id, SCHEMA_VERSION, prev)
        assert record.command == row.command and record.at
        assert row.hash == chain_hash(row.body)
        prev = row.hash
    exchange = [load(r.body) for r in rows if r.seq in range(4, 10)]
    assert {r.command for r in exchange} == {exchange[0].command}  # one command, one id
    assert exchange[0].issued is not None and exchange[0].issued["type"] == "exchange"
    assert all(r.issued is None for r in exchange[1:])


# --- A-VERIFY-1: tampering ---------------------------------------------------------------

def test_A_VERIFY_1_an_untouched_log_verifies(fights: Fights, path: Path) -> None:
    fex(fights)
    report = fresh(path)
    assert report.ok and report.events == 19
    code, out, _ = cli_verify(path, "duel")
    assert code == 0 and "19 events verified" in out


@pytest.mark.parametrize("seq", [1, 3, 8, 12, 19])
def test_A_VERIFY_1_editing_an_events_bytes_names_its_seq(fights: Fights, path: Path, seq: int) -> None:
    fex(fights)
    with sqlite3.connect(path) as db:
        (body,) = db.execute("SELECT body FROM events WHERE seq = ?", (seq,)).fetchone()
        db.execute("UPDATE events SET body = ? WHERE seq = ?", (body.replace('"at":"2026', '"at":"2025'), seq))
    report = fresh(path)
    assert not report.ok
    assert report.problems[0][0] == seq and "altered" in report.problems[0][1]
    code, out, err = cli_verify(path, "duel")
    assert code != 0 and out == ""
    assert f"event {seq}:" in err and len(err.strip().splitlines()) == 1


def test_A_VERIFY_1_a_changed_wound_is_named(fights: Fights, path: Path) -> None:
    """The byte edit a cheat would make: Brynhild's Hurt (seq 9) becomes a Scratch."""
    fex(fights)
    assert types(fights)[9] == "wound_marked"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE events SET body = replace(body, '\"level\":2', '\"level\":1') WHERE seq = 9")
        assert db.total_changes == 1
    assert fresh(path).problems[0][0] == 9
    code, _, err = cli_verify(path, "duel")
    assert code == VERIFY_FAILED and "duel: event 9:" in err


@pytest.mark.parametrize("seq", [2, 7, 13])
def test_A_VERIFY_1_a_deleted_event_is_detected(fights: Fights, path: Path, seq: int) -> None:
    fex(fights)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM events WHERE seq = ?", (seq,))
    report = fresh(path)
    assert not report.ok and report.problems[0][0] == seq + 1
    code, _, err = cli_verify(path, "duel")
    assert code != 0 and f"event {seq + 1}:" in err


def test_A_VERIFY_1_an_edit_with_its_hash_recomputed_breaks_the_next_link(fights: Fights, path: Path) -> None:
    """Snorri's first roll (seq 5) made better, its own hash recomputed: event 6's link no longer matches."""
    fex(fights)
    assert types(fights)[5] == "dice_rolled"
    rewrite(path, "duel", 5, lambda d: d["event"].update(faces=[1, 1, 1, 1]))
    report = fresh(path)
    assert report.problems[0][0] == 6 and "link" in report.problems[0][1]
    code, _, err = cli_verify(path, "duel")
    assert code != 0 and "event 6:" in err


def test_A_VERIFY_1_a_forged_last_event_is_caught_by_the_rules(fights: Fights, path: Path) -> None:
    """The last event has no successor to betray it: Brynhild's graze Scratch (seq 19) forged into Very Hurt,
    its hash recomputed. The chain holds; re-running the rules does not agree."""
    fex(fights)
    assert types(fights)[19] == "wound_marked"
    rewrite(path, "duel", 19, lambda d: d["event"].update(level=3))
    report = fresh(path)
    assert report.problems == ((19, "recorded consequences differ from what the rules give"),)
    code, _, err = cli_verify(path, "duel")
    assert code != 0 and "event 19: recorded consequences differ" in err


def test_A_VERIFY_1_a_forged_roll_with_a_rebuilt_chain_is_caught_by_the_rules(fights: Fights, path: Path) -> None:
    """Round 2's dice (seq 11, 12) forged into another stand-off and the whole chain recomputed:
    the hashes agree, the recorded exchange (seq 13) does not follow from those dice."""
    fex(fights)
    assert types(fights)[11] == types(fights)[12] == "dice_rolled" and types(fights)[13] == "exchange_resolved"
    rewrite(path, "duel", 11, lambda d: d["event"].update(faces=[1, 0, 0, 0]), rechain=True)
    rewrite(path, "duel", 12, lambda d: d["event"].update(faces=[1, 1, 0, 0]), rechain=True)
    assert verify(SqliteStore(path).read("duel")[:13]).problems[0][0] == 13  # not a chain problem
    report = fresh(path)
    assert not report.ok
    assert report.problems[0] == (13, "recorded consequences differ from what the rules give")
    code, _, err = cli_verify(path, "duel")
    assert code != 0 and "event 13:" in err


def test_A_VERIFY_1_a_forged_command_is_caught_by_the_rules(fights: Fights, path: Path) -> None:
    """The issued command rewritten (GM modifier +3 for Snorri in round 1) with a rebuilt chain."""
    fex(fights)
    rewrite(path, "duel", 4, lambda d: d["issued"].update(mods=[3, 0]), rechain=True)
    report = fresh(path)
    assert not report.ok and 4 <= report.problems[0][0] <= 9


# --- A-FAIR-1 -------------------------------------------------------------------------------

def generated_fight(fights: Fights) -> list[int]:
    """Seq numbers of generated rolls. Seeds are fixed but differ from one commitment to the next."""
    counter = iter(range(1, 1000))
    fights.random_bytes = lambda n: bytes([next(counter)]) * n
    start(fights, "duel")
    join(fights, "duel", "snorri", "brynhild")
    for who in ("Snorri", "Brynhild", "Snorri", "Brynhild"):
        fights.execute("duel", cmd.RollTrait(combatant=who, trait="Perception", difficulty=1))
    fights.execute("duel", cmd.RollTrait(combatant="Snorri", trait="Sword"), dice("snorri=+ 0 0 0"))  # entered
    return [r.seq for r in fights.store.read("duel") if '"source":"generated"' in r.body]


def test_A_FAIR_1_generated_rolls_are_checked_only_after_the_reveal(fights: Fights, path: Path) -> None:
    generated = generated_fight(fights)
    assert len(generated) == 4
    first = load(fights.store.read("duel")[0].body).event
    assert isinstance(first, ev.FightStarted) and len(first.seed_commitment) == 64
    assert all("seed\":" not in r.body.replace("seed_commitment", "") for r in fights.store.read("duel"))
    before = fresh(path)
    assert before.ok and (before.rolls_checked, before.rolls_unchecked) == (0, 4)
    fights.reveal_seed("duel")
    after = fresh(path)
    assert after.ok and (after.rolls_checked, after.rolls_unchecked) == (4, 0)
    kinds = [r.type for r in fights.store.read("duel")[-2:]]
    assert kinds == ["seed_revealed", "seed_committed"]  # and the next rolls use a new secret seed
    fights.execute("duel", cmd.RollTrait(combatant="Snorri", trait="Perception"))
    later = fresh(path)
    assert (later.rolls_checked, later.rolls_unchecked) == (4, 1)


def rotate_a_generated_roll(fights: Fights, path: Path, generated: list[int]) -> int:
    """Forge a generated roll with the same total (faces rotated) and rebuild the chain: only A-FAIR-1 can tell."""
    for seq in generated:
        faces = load(fights.store.read("duel")[seq - 1].body).event.faces
        forged = faces[1:] + faces[:1]
        if forged != faces:
            rewrite(path, "duel", seq, lambda d: d["event"].update(faces=list(forged)), rechain=True)
            return seq
    raise AssertionError("no generated roll with two different faces")


def test_A_FAIR_1_a_forged_generated_face_is_reported_after_the_reveal(fights: Fights, path: Path) -> None:
    generated = generated_fight(fights)
    fights.reveal_seed("duel")
    forged = rotate_a_generated_roll(fights, path, generated)
    report = fresh(path)
    assert report.problems == ((forged, "generated faces differ from those the revealed seed gives (A-FAIR-1)"),)
    code, _, err = cli_verify(path, "duel")
    assert code != 0 and f"event {forged}:" in err and "A-FAIR-1" in err


def test_A_FAIR_1_before_the_reveal_the_same_forgery_is_unchecked(fights: Fights, path: Path) -> None:
    """What A-FAIR-1 promises and what it does not: the forgery surfaces the moment the seed is revealed."""
    generated = generated_fight(fights)
    forged = rotate_a_generated_roll(fights, path, generated)
    report = fresh(path)
    assert report.ok and report.rolls_unchecked == 4
    make_fights(SqliteStore(path)).reveal_seed("duel")
    assert fresh(path).problems[0][0] == forged


def test_A_FAIR_1_a_draw_used_twice_is_reported(fights: Fights, path: Path) -> None:
    generated = generated_fight(fights)
    fights.reveal_seed("duel")
    first = load(fights.store.read("duel")[generated[0] - 1].body).event
    rewrite(path, "duel", generated[1], lambda d: d["event"].update(draw=first.draw, faces=list(first.faces)),
            rechain=True)
    problems = dict(fresh(path).problems)
    assert "used twice" in problems[generated[1]]


# --- A-SEAL-1 -----------------------------------------------------------------------------------

def sealed_fight(fights: Fights) -> None:
    start(fights, "duel")
    join(fights, "duel", "snorri", "brynhild")
    fights.declare("duel", "Snorri", ev.Declaration(all_out="offense"), sealed=True)
    fights.declare("duel", "Brynhild", ev.Declaration(all_out="defense"), sealed=True)


def test_A_SEAL_1_a_reveal_not_matching_its_seal_is_refused(fights: Fights, path: Path) -> None:
    sealed_fight(fights)
    state = fights.state("duel")
    honest = fights.reveals(state, ["Snorri", "Brynhild"])
    before = fights.store.read("duel")
    lies = [
        (replace(honest[0], declaration=ev.Declaration(all_out="defense")), honest[1]),
        (replace(honest[0], salt="00" * 16), honest[1]),
        (honest[0], replace(honest[1], declaration=ev.Declaration())),
    ]
    for reveals in lies:
        with pytest.raises(RuleError, match="does not match its seal"):
            fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild", reveals=reveals),
                           dice("snorri=0 0 0 0", "brynhild=0 0 0 0"))
    with pytest.raises(RuleError, match="must be revealed before the blow"):
        fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"),
                       dice("snorri=0 0 0 0", "brynhild=0 0 0 0"))
    assert fights.store.read("duel") == before
    fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild", reveals=honest),
                   dice("snorri=0 0 0 0", "brynhild=0 0 0 0"))
    log = fights.log("duel")
    seals = {r.event.combatant: r.event.seal for r in log if isinstance(r.event, ev.DeclarationSealed)}
    opened = {r.event.combatant: r.event for r in log if isinstance(r.event, ev.DeclarationRevealed)}
    assert seals.keys() == opened.keys() == {"Snorri", "Brynhild"}  # the audit shows both
    for who, seal in seals.items():
        assert seal_matches(opened[who].declaration, opened[who].salt, seal)
    assert fresh(path).ok


def test_A_SEAL_1_a_forged_reveal_fails_verify(fights: Fights, path: Path) -> None:
    """Snorri's revealed choice rewritten in the log (and in the issued command), chain rebuilt."""
    sealed_fight(fights)
    state = fights.state("duel")
    fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild",
                                        reveals=fights.reveals(state, ["Snorri", "Brynhild"])),
                   dice("snorri=0 0 0 0", "brynhild=0 0 0 0"))
    revealed = [r.seq for r in fights.store.read("duel") if r.type == "declaration_revealed"]

    def forge(data: dict[str, Any]) -> None:
        data["event"]["declaration"]["all_out"] = "defense"
        data["issued"]["reveals"][0]["declaration"]["all_out"] = "defense"

    rewrite(path, "duel", revealed[0], forge, rechain=True)
    report = fresh(path)
    assert report.problems[0][0] == revealed[0]
    assert "does not match its seal" in report.problems[0][1]


# --- A-UNDO-1, A-UNDO-2 -----------------------------------------------------------------------------

def same(a: FightState, b: FightState) -> bool:
    return replace(a, last_seq=0) == replace(b, last_seq=0)


def test_A_UNDO_1_undo_voids_a_whole_command_and_redo_restores_it(fights: Fights, path: Path) -> None:
    start(fights, "duel", damage_roll="4dF_limited")
    join(fights, "duel", "snorri", "brynhild")
    before = fights.state("duel")
    hit = fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"),
                         dice("snorri=+ 0 0 0", "brynhild=- 0 0 0", "snorri=- - 0 0"))
    hit_seqs = [r.seq for r in hit.records]
    assert hit_seqs == [4, 5, 6, 7, 8, 9]
    after_hit = fights.state("duel")
    assert after_hit.combatants["brynhild"].track.level == 2
    undo = fights.execute("duel", cmd.Undo())
    log = fights.log("duel")
    assert [r.seq for r in log] == list(range(1, 11))  # A-UNDO-2: still there
    assert voided(log) == {seq: 10 for seq in hit_seqs}
    assert [r.seq for r in effective(log)] == [1, 2, 3, 10]
    assert same(undo.state, before) and same(fights.state("duel"), before)
    assert isinstance(log[-1].event, ev.CommandUndone) and log[-1].event.target == hit.records[0].command
    redo = fights.execute("duel", cmd.Redo())
    log = fights.log("duel")
    assert voided(log) == {10: 11}
    assert same(redo.state, after_hit) and same(fights.state("duel"), after_hit)
    assert fresh(path).ok


def test_A_UNDO_1_undo_repeated_and_undo_to_a_seq(fights: Fights, path: Path) -> None:
    fex(fights)
    states = {seq: fights.state("duel", seq) for seq in (3, 9, 13, 19)}
    fights.execute("duel", cmd.Undo())
    assert same(fights.state("duel"), states[13])
    outcomes = fights.undo_to("duel", 3)
    assert len(outcomes) == 2
    assert same(fights.state("duel"), states[3])
    log = fights.log("duel")
    assert set(voided(log)) == set(range(4, 20))
    with pytest.raises(RuleError, match="nothing after event 3"):
        fights.undo_to("duel", 3)
    fights.execute("duel", cmd.Redo())
    assert same(fights.state("duel"), states[9])
    assert fresh(path).ok


def test_A_UNDO_1_a_new_command_after_an_undo_ends_the_redo_chain(fights: Fights) -> None:
    fex(fights)
    fights.execute("duel", cmd.Undo())
    fights.execute("duel", cmd.RollTrait(combatant="Snorri", trait="Sword"), dice("snorri=0 0 0 0"))
    with pytest.raises(RuleError, match="nothing to redo"):
        fights.execute("duel", cmd.Redo())


def test_A_UNDO_2_voided_events_are_shown_as_voided_in_the_log(fights: Fights, path: Path) -> None:
    fex(fights)
    fights.execute("duel", cmd.Undo())
    result = CliRunner().invoke(app, ["--store", str(path), "log", "duel", "--json"], env={"FUDGE_STORE": None})
    log = json.loads(result.stdout)
    assert [e["seq"] for e in log if e["voided"]] == list(range(14, 20))
    assert {e["voided_by"] for e in log if e["voided"]} == {20}
    assert log[-1]["type"] == "command_undone" and log[-1]["issued"] == {"type": "undo"}


# --- A-BRANCH-1 -------------------------------------------------------------------------------------------

def test_A_BRANCH_1_a_branch_copies_the_parents_rows_byte_for_byte(fights: Fights, path: Path) -> None:
    fex(fights)
    parent = fights.store.read("duel")
    parent_state = {seq: fights.state("duel", seq) for seq in (9, 13)}
    fights.branch("duel", "what-if", 9)
    branch = fights.store.read("what-if")
    assert branch[:9] == parent[:9]  # seq, command, type, body and hash
    assert branch[9].type == "branch_started" and load(branch[9].body).prev == parent[8].hash
    info = fights.store.fight("what-if")
    assert (info.parent, info.fork_seq) == ("duel", 9)
    state = fights.state("what-if")
    assert replace(state, fight_id="", name="", stream="", commitment="", last_seq=0) == replace(
        parent_state[9], fight_id="", name="", stream="", commitment="", last_seq=0)
    fights.execute("what-if", cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=+ + + +", "brynhild=- - - -", "snorri=0 0 0 0"))
    assert fights.store.read("duel") == parent  # the parent is untouched
    assert fresh(path, "what-if").ok and fresh(path, "duel").ok
    assert status_json(fights.state("what-if"))["combatants"] != status_json(fights.state("duel"))["combatants"]


def test_A_BRANCH_1_the_branch_takes_the_parents_effective_history(fights: Fights, path: Path) -> None:
    """After an undo in the parent, a branch at the end carries the voided command as voided."""
    fex(fights)
    fights.execute("duel", cmd.Undo())
    fights.branch("duel", "after-undo", None)
    a, b = fights.state("after-undo"), fights.state("duel")
    assert a.combatants == b.combatants and a.round == b.round
    assert set(voided(fights.log("after-undo"))) == set(range(14, 20))
    assert fresh(path, "after-undo").ok


def test_A_BRANCH_1_a_fork_inside_a_command_is_refused(fights: Fights) -> None:
    fex(fights)
    fights_before = [f.name for f in fights.store.fights()]
    with pytest.raises(RuleError, match="middle of one command"):
        fights.branch("duel", "half", 6)
    assert [f.name for f in fights.store.fights()] == fights_before


# --- A-REPLAY-1 -----------------------------------------------------------------------------------------------

def test_A_REPLAY_1_state_as_of_any_seq_is_the_live_state_then(fights: Fights, path: Path) -> None:
    start(fights, "duel", damage_roll="4dF_limited")
    join(fights, "duel", "snorri", "brynhild")
    live: dict[int, FightState] = {3: fights.state("duel")}
    script = [
        (cmd.Exchange(first="Snorri", second="Brynhild"), dice("snorri=+ 0 0 0", "brynhild=- 0 0 0", "snorri=- - 0 0")),
        (cmd.Undo(), None),
        (cmd.Redo(), None),
        (cmd.Declare(combatant="Brynhild", declaration=ev.Declaration(all_out="defense")), None),
        (cmd.Exchange(first="Snorri", second="Brynhild"), dice("snorri=0 0 0 0", "brynhild=0 0 0 0")),
        (cmd.SpendPoint(combatant="Snorri", use="luck"), dice("snorri=+ + + +", "snorri=0 0 0 0")),
    ]
    for command, given in script:
        outcome = fights.execute("duel", command, given)
        live[outcome.records[-1].seq] = outcome.state
    log = fights.log("duel")
    for seq, state in live.items():
        assert replay(log, as_of=seq) == state
        assert fights.state("duel", seq) == state
    for record, state in evolve_all(log):  # event by event, the replay agrees with "as of"
        assert same(state, replay(log, as_of=record.seq)), record.seq
    assert fresh(path).ok


def test_A_VERIFY_1_a_sheet_joined_before_a_later_version_added_sheet_fields_still_verifies(
        fights: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A-VERIFY-1, A-LOG-1: a fight whose sheets were recorded before the Sheet model gained optional fields
    (here: Fate's aspects and arms) re-runs to the same consequences; verify does not call it tampered."""
    from fudge_combat.engine.rulesets.fudge import lifecycle as core
    from tests.conftest import sheet, start

    def as_older_sheet(value: Any) -> dict[str, Any]:  # the joined sheet as the older version wrote it
        out: dict[str, Any] = json_form(value)
        for newer in ("aspects", "fate_armor", "fate_weapon"):
            out.pop(newer)
        return out

    start(fights)
    with monkeypatch.context() as patched:
        patched.setattr(core, "json_form", as_older_sheet)
        fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Good"}, attack="Sword"),
                                         source="ann.toml"))
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems
