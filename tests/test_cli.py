"""The GM's command line, driven with Typer's CliRunner against a real SQLite file.

Covers issue 2's "What a GM must be able to do" and its command-line
contract: new, join, declare (--sealed), exchange (--dice NAME=FACES, --mod,
--defense-mod, --min-hit), roll --vs, status (--json shape), undo/redo,
branch --at, fights, replay, log (--json), verify, export/import,
reveal-seed, use, --fight, FUDGE_STORE, case-insensitive names; and the
error contract: one line on stderr, non-zero exit, nothing written.

This Typer (0.29, vendored click) keeps stderr apart: `result.stdout` is
stdout only, `result.stderr` is stderr only, `result.output` mixes both.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import structlog
from typer.testing import CliRunner, Result

from fudge_combat.cli.main import app
from fudge_combat.engine.decide import seal_of
from fudge_combat.engine.kernel.dice import derive_faces
from fudge_combat.events import structs as ev
from fudge_combat.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"
FEX_HOUSE = ROOT / "examples" / "house" / "snorri-brynhild.toml"
BOX_NAMES = ["Scratch", "Hurt", "Very Hurt", "Incapacitated", "Near Death"]


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    """The CLI configures structlog on the runner's stderr; undo that for whatever runs next."""
    yield
    structlog.reset_defaults()


class Fudge:
    """`fudge --store tmp/fudge.db ARGS...` in-process, with helpers to look at the store."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.db = tmp_path / "fudge.db"
        self.runner = CliRunner()

    def __call__(self, *args: Any, env: dict[str, str | None] | None = None, store: bool = True) -> Result:
        argv = (["--store", str(self.db)] if store else []) + [str(a) for a in args]
        result = self.runner.invoke(app, argv, env={"FUDGE_STORE": None, **(env or {})})
        assert result.exit_code == 0, (argv, result.stdout, result.stderr, result.exception)
        return result

    def fails(self, *args: Any) -> str:
        """Run a command that must fail: non-zero exit, no traceback, nothing on stdout, one line on stderr."""
        argv = ["--store", str(self.db)] + [str(a) for a in args]
        result = self.runner.invoke(app, argv, env={"FUDGE_STORE": None})
        assert result.exit_code != 0, (argv, result.stdout)
        assert isinstance(result.exception, SystemExit), result.exception  # a clean exit, not a crash
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("error: ")
        return lines[0]

    def json(self, *args: Any) -> Any:
        return json.loads(self(*args).stdout)

    def log(self, fight: str | None = None) -> list[dict[str, Any]]:
        return self.json("log", *([fight] if fight else []), "--json")

    def status(self, *args: Any) -> dict[str, Any]:
        return self.json("status", "--json", *args)

    def who(self, name: str, *args: Any) -> dict[str, Any]:
        return next(c for c in self.status(*args)["combatants"] if c["name"] == name)

    def written(self) -> tuple[int, int, int]:
        """Rows in the store's events, fights and secrets tables."""
        with sqlite3.connect(self.db) as db:
            return tuple(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[return-value]
                         for table in ("events", "fights", "secrets"))

    def rows(self, fight: str) -> list[Any]:
        store = SqliteStore(self.db)
        try:
            return store.read(fight)
        finally:
            store.close()


@pytest.fixture
def fudge(tmp_path: Path) -> Fudge:
    return Fudge(tmp_path)


@pytest.fixture
def duel(fudge: Fudge) -> Fudge:
    """`fudge new duel` (the F-EX options) with Snorri and Brynhild joined from the example sheets."""
    fudge("new", "duel", "--rules", "fudge", "--house", FEX_HOUSE)
    fudge("join", SHEETS / "snorri.toml")
    fudge("join", SHEETS / "brynhild.toml")
    return fudge


def exchange_events(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in log if e["type"] == "exchange_resolved"]


# --- the GM's flow ----------------------------------------------------------------

def test_new_makes_the_fight_current_and_join_reads_the_sheets(fudge: Fudge) -> None:
    out = fudge("new", "duel", "--rules", "fudge").stdout
    assert "duel" in out and "current" in out
    assert fudge("join", SHEETS / "snorri.toml").stdout.strip() == "Snorri joins duel (side Snorri)"
    fudge("join", SHEETS / "brynhild.toml", "--side", "Vikings")
    log = fudge.log()
    assert [e["type"] for e in log] == ["fight_started", "combatant_joined", "combatant_joined"]
    assert log[0]["rules"] == "fudge" and log[0]["options"]["pace"] == "simultaneous"
    assert log[1]["sheet"]["skills"] == {"Sword": "Great"} and log[1]["source"] == "snorri.toml"
    assert log[2]["side"] == "Vikings"
    assert [f["name"] for f in fudge.json("fights", "--json") if f["current"]] == ["duel"]


def test_status_json_has_the_shape_the_issue_specifies(duel: Fudge) -> None:
    status = duel.status()
    assert {"fight", "rules", "round", "phase", "last_seq", "combatants"} <= status.keys()
    assert (status["fight"], status["rules"], status["round"], status["phase"], status["last_seq"]) == (
        "duel", "fudge (4.7 example)", 0, None, 3)
    snorri, brynhild = status["combatants"]
    for who in (snorri, brynhild):
        assert {"name", "side", "wound_level", "penalty", "fudge_points", "boxes", "initiative"} <= who.keys()
        assert list(who["boxes"]) == BOX_NAMES
        assert all(all(box is None for box in row) for row in who["boxes"].values())
        assert who["wound_level"] == "Undamaged" and who["penalty"] == 0
        assert {"dice", "phases"} <= who["initiative"].keys()
        assert who["initiative"]["dice"] == [] and who["initiative"]["phases"] == []
    assert (snorri["name"], snorri["side"], snorri["fudge_points"]) == ("Snorri", "Snorri", 2)
    assert (brynhild["name"], brynhild["fudge_points"]) == ("Brynhild", 0)
    assert [len(snorri["boxes"][n]) for n in BOX_NAMES] == [3, 1, 1, 1, 1]


def test_F_EX_the_worked_fight_at_the_command_line(duel: Fudge) -> None:
    """F-EX, F-MEL-1, F-DMG-6, F-GRAZE, F-DROLL, F-MOD-6, F-MOD-7 typed at the table with the text's dice."""
    duel("exchange", "snorri", "brynhild", "--dice", "snorri=+ 0 0 0", "--dice", "brynhild=- 0 0 0",
         "--dice", "snorri=- - 0 0")
    assert duel.who("Brynhild")["wound_level"] == "Hurt"
    assert duel.who("Brynhild")["penalty"] == -1
    duel("exchange", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=+ 0 0 0")
    assert exchange_events(duel.log())[-1]["outcome"] == "stand-off"
    duel("exchange", "snorri", "brynhild", "-d", "snorri=+ 0 0 0", "-d", "brynhild=+ 0 0 0", "-d", "snorri=0 0 0 0")
    assert duel.who("Brynhild")["boxes"]["Scratch"] == ["Scratch", None, None]
    duel("declare", "snorri", "--all-out-offense")
    duel("declare", "brynhild", "--all-out-defense")
    duel("exchange", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0")
    assert exchange_events(duel.log())[-1]["outcome"] == "stand-off"
    roll = duel("roll", "brynhild", "Perception", "--vs", "Good", "--advantage", "--dice", "0 0 0 0").stdout
    assert "succeeds" in roll
    duel("declare", "brynhild", "--all-out-offense")
    duel("exchange", "snorri", "brynhild", "-d", "snorri=+ 0 0 0", "-d", "brynhild=+ 0 0 0", "-d", "brynhild=0 0 0 0")
    snorri, brynhild = duel.status()["combatants"]
    assert (snorri["wound_level"], snorri["boxes"]["Hurt"]) == ("Hurt", ["Hurt"])
    assert (brynhild["wound_level"], brynhild["boxes"]["Scratch"], brynhild["boxes"]["Hurt"]) == (
        "Hurt", ["Scratch", None, None], ["Hurt"])
    assert duel.status()["round"] == 5
    assert "hash chain intact" in duel("verify").stdout


def test_F_MOD_2_exchange_takes_gm_modifiers_for_both_fighters(duel: Fudge) -> None:
    """--mod goes to the first fighter, --defense-mod to the second (GM input)."""
    duel("exchange", "snorri", "brynhild", "--mod", "2", "--defense-mod", "-1",
         "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0")
    first, second = exchange_events(duel.log())[-1]["sides"]
    assert {"name": "GM modifier", "value": 2} in first["modifiers"]
    assert {"name": "GM modifier", "value": -1} in second["modifiers"]
    assert first["result"] == 2 + 0 - 1 + 2  # Great, medium shield -1, GM +2: Superb
    assert second["result"] == 1 + 0 - 1  # Good, GM -1: Fair


def test_F_HIT_1_min_hit_turns_a_win_below_it_into_no_hit(duel: Fudge) -> None:
    faces = ("-d", "snorri=+ 0 0 0", "-d", "brynhild=- - - 0")
    duel("exchange", "snorri", "brynhild", "--min-hit", "Superb", *faces)
    event = exchange_events(duel.log())[-1]
    assert event["min_hit"] == [3, 3] and event["hits"] == [] and event["outcome"] == "stand-off"
    assert duel.who("Brynhild")["wound_level"] == "Undamaged"
    duel("exchange", "snorri", "brynhild", *faces)  # the same dice with the default minimum hit
    assert exchange_events(duel.log())[-1]["hits"][0]["defender"] == "Brynhild"
    assert duel.who("Brynhild")["wound_level"] != "Undamaged"


def test_C_ACT_2_roll_against_a_difficulty(duel: Fudge) -> None:
    out = duel("roll", "snorri", "Sword", "--vs", "Good", "--dice", "- 0 0 0").stdout
    assert "Snorri Sword Great -1 = Good vs Good: succeeds (margin +0)" in out
    duel("roll", "snorri", "Sword", "--vs", "Superb", "--dice", "0 0 0 0")
    action = [e for e in duel.log() if e["type"] == "action_resolved"][-1]
    assert (action["level"], action["roll"], action["difficulty"], action["success"]) == (2, 0, 3, False)


def test_C_DICE_2_log_json_lists_every_event_and_every_face(duel: Fudge) -> None:
    duel("exchange", "snorri", "brynhild", "-d", "snorri=+ 0 - 0", "-d", "brynhild=+ 0 0 -")
    log = duel.log()
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    for event in log:
        assert {"seq", "type", "command", "voided"} <= event.keys()
        assert event["voided"] is False
    rolls = [e for e in log if e["type"] == "dice_rolled"]
    assert [(r["roller"], r["faces"], r["source"]) for r in rolls] == [
        ("Snorri", [1, 0, -1, 0], "entered"), ("Brynhild", [1, 0, 0, -1], "entered")]
    assert len({e["command"] for e in log if e["seq"] >= rolls[0]["seq"]}) == 1  # one command, one id


def test_A_UNDO_1_undo_and_redo_at_the_command_line(duel: Fudge) -> None:
    """A-UNDO-1, A-UNDO-2: a mistaken roll goes away and comes back; the log keeps it, marked voided."""
    duel("exchange", "snorri", "brynhild", "-d", "snorri=+ + 0 0", "-d", "brynhild=- 0 0 0")
    hurt = duel.who("Brynhild")
    assert hurt["wound_level"] != "Undamaged"
    undone = duel("undo").stdout
    assert "undo" in undone
    assert duel.who("Brynhild")["wound_level"] == "Undamaged"
    log = duel.log()
    voided = [e["seq"] for e in log if e["voided"]]
    assert voided == [e["seq"] for e in log if e["command"] == exchange_events(log)[0]["command"]]
    assert all(e["voided_by"] == log[-1]["seq"] for e in log if e["voided"])
    text = duel("log").stdout
    assert sum("[voided by" in line for line in text.splitlines()) == len(voided)
    duel("redo")
    assert duel.who("Brynhild") == hurt
    assert not any(e["voided"] for e in duel.log() if e["type"] != "command_undone")
    assert "hash chain intact" in duel("verify").stdout


def test_A_BRANCH_1_branch_at_and_fights_list_parent_and_fork(duel: Fudge) -> None:
    duel("exchange", "snorri", "brynhild", "-d", "snorri=+ 0 0 0", "-d", "brynhild=- 0 0 0", "-d", "snorri=- - 0 0")
    parent_rows = duel.rows("duel")
    out = duel("branch", "duel-what-if", "--at", "3").stdout
    assert "duel-what-if branches from duel at event 3" in out
    fights = {f["name"]: f for f in duel.json("fights", "--json")}
    assert (fights["duel-what-if"]["parent"], fights["duel-what-if"]["fork_seq"]) == ("duel", 3)
    assert fights["duel-what-if"]["current"] and not fights["duel"]["current"]
    assert (fights["duel"]["parent"], fights["duel"]["fork_seq"]) == (None, None)
    assert "branch of duel at event 3" in duel("fights").stdout
    assert duel.who("Brynhild")["wound_level"] == "Undamaged"  # the branch is current
    assert duel.who("Brynhild", "--fight", "duel")["wound_level"] == "Hurt"
    assert duel.rows("duel-what-if")[:3] == parent_rows[:3]
    assert duel.rows("duel") == parent_rows


def test_A_BRANCH_1_branch_inside_a_command_is_refused(duel: Fudge) -> None:
    duel("exchange", "snorri", "brynhild", "-d", "snorri=+ 0 0 0", "-d", "brynhild=0 0 0 0")
    before = duel.written()
    message = duel.fails("branch", "half", "--at", "5")
    assert "event 5 is in the middle of one command" in message
    assert duel.written() == before


def test_A_REPLAY_1_replay_shows_each_event_and_stops_as_of(duel: Fudge) -> None:
    duel("exchange", "snorri", "brynhild", "-d", "snorri=+ 0 0 0", "-d", "brynhild=- 0 0 0", "-d", "snorri=- - 0 0")
    duel("undo")
    text = duel("replay", "duel").stdout
    numbered = [line for line in text.splitlines() if not line.startswith(("        ", "  → "))]
    assert [int(line.split()[0]) for line in numbered] == list(range(1, 11))
    assert sum(line.endswith("(voided)") for line in numbered) == 6  # the undone exchange: seq 4..9
    said = [line for line in text.splitlines() if line.startswith("  → ")]  # under each command, what it did
    assert said == ["  → Brynhild is Hurt: -1 to every roll",  # "round 1 begins" is its event's line already
                    "  → undid Snorri's exchange with Brynhild, seq 4-9", "  → back before round 1",
                    "  → Brynhild is Undamaged: no penalty"]
    steps = [json.loads(line) for line in duel("replay", "duel", "--json", "--to", "9").stdout.splitlines()]
    assert [s["seq"] for s in steps] == list(range(1, 10))
    brynhild = [next(c for c in s["state"]["combatants"] if c["name"] == "Brynhild") for s in steps[2:]]
    assert [b["wound_level"] for b in brynhild] == ["Undamaged"] * 6 + ["Hurt"]
    assert steps[-1]["state"] == duel.status("--as-of", "9")


def test_verify_export_import(duel: Fudge) -> None:
    duel("exchange", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0")  # a stand-off
    ok = duel("verify", "duel").stdout
    assert ok.startswith("duel: 7 events verified: hash chain intact, rules agree")
    target = duel.tmp / "duel.jsonl"
    exported = duel("export", "duel", "-o", target)
    assert exported.stdout == "" and "7 events written" in exported.stderr
    lines = target.read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == list(range(1, 8))
    assert duel("export", "duel").stdout.splitlines() == lines
    duel("import", target, "--as", "copy")
    original, copy = duel.rows("duel"), duel.rows("copy")
    assert copy[:7] == original and copy[7].type == "seed_committed" and len(copy) == 8
    assert "8 events verified" in duel("verify", "copy").stdout
    assert duel.status("--fight", "copy")["combatants"] == duel.status("--fight", "duel")["combatants"]


def test_A_FAIR_1_reveal_seed_then_verify_rederives_generated_rolls(duel: Fudge) -> None:
    for who in ("snorri", "brynhild", "snorri"):  # dice generated from the fight's secret seed
        duel("roll", who, "Strength", "--vs", "Good")
    generated = [e for e in duel.log() if e["type"] == "dice_rolled" and e["source"] == "generated"]
    assert len(generated) >= 3
    before = duel("verify").stdout
    assert f"{len(generated)} await `fudge reveal-seed`" in before
    started = duel.log()[0]
    assert "seed" not in started  # only the commitment is public before the reveal
    duel("reveal-seed")
    revealed = [e for e in duel.log() if e["type"] == "seed_revealed"]
    assert [r["seed_commitment"] for r in revealed] == [started["seed_commitment"]]
    seed = bytes.fromhex(revealed[0]["seed"])
    for roll in generated:
        assert list(derive_faces(seed, roll["stream"], roll["draw"], len(roll["faces"]))) == roll["faces"]
    after = duel("verify").stdout
    assert f"{len(generated)} generated rolls re-derived from revealed seeds" in after
    assert "await" not in after


def test_A_SEAL_1_sealed_declarations_open_at_the_exchange(duel: Fudge) -> None:
    duel("declare", "snorri", "--all-out-offense", "--sealed")
    duel("declare", "brynhild", "--all-out-defense", "--sealed")
    assert [c["declaration"] for c in duel.status()["combatants"]] == ["sealed", "sealed"]
    sealed = [e for e in duel.log() if e["type"] == "declaration_sealed"]
    assert [e["combatant"] for e in sealed] == ["Snorri", "Brynhild"]
    assert all("declaration" not in e for e in sealed)
    for row in duel.rows("duel")[3:]:  # the choice is nowhere in the log before the reveal
        assert "offense" not in row.body and "defense" not in row.body
    duel("exchange", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0")
    log = duel.log()
    revealed = {e["combatant"]: e for e in log if e["type"] == "declaration_revealed"}
    assert revealed["Snorri"]["declaration"]["all_out"] == "offense"
    assert revealed["Brynhild"]["declaration"]["all_out"] == "defense"
    for seal in sealed:
        opened = revealed[seal["combatant"]]
        declaration = msgspec.convert(opened["declaration"], ev.Declaration)
        assert seal_of(declaration, opened["salt"]) == seal["seal"]
    first, second = exchange_events(log)[-1]["sides"]
    assert {"name": "all-out offense", "value": 1} in first["modifiers"]
    assert {"name": "all-out defense", "value": 2} in second["modifiers"]
    assert "hash chain intact" in duel("verify").stdout


def test_use_fight_option_and_case_insensitive_names(duel: Fudge) -> None:
    duel("new", "brawl")
    duel("join", SHEETS / "leroy.toml")
    assert duel.status()["fight"] == "brawl"
    duel("use", "duel")
    assert duel.status()["fight"] == "duel"
    assert duel.status("--fight", "brawl")["fight"] == "brawl"
    duel("exchange", "SNORRI", "bRyNhIlD", "-d", "Snorri=+ 0 0 0", "-d", "BRYNHILD=- 0 0 0", "-d", "sNoRrI=0 0 0 0")
    assert duel.who("Brynhild")["wound_level"] != "Undamaged"
    duel("roll", "leroy", "--fight", "brawl", "--vs", "Fair", "--dice", "0 0 0 0")
    assert duel.status()["fight"] == "duel"  # --fight does not change the current fight
    assert [e["type"] for e in duel.log("brawl")][-1] == "action_resolved"
    assert len(duel.rows("duel")) == 9


def test_FUDGE_STORE_and_the_default_store_file(fudge: Fudge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere.db"
    fudge("new", "env-fight", store=False, env={"FUDGE_STORE": str(elsewhere)})
    assert elsewhere.exists() and not fudge.db.exists()
    listed = json.loads(fudge("fights", "--json", store=False, env={"FUDGE_STORE": str(elsewhere)}).stdout)
    assert [f["name"] for f in listed] == ["env-fight"]
    workdir = tmp_path / "table"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    fudge("new", "here", store=False)
    assert (workdir / "fudge.db").exists()
    assert [f.name for f in SqliteStore(workdir / "fudge.db").fights()] == ["here"]
    # --store wins over FUDGE_STORE
    fudge("new", "explicit", env={"FUDGE_STORE": str(elsewhere)})
    assert [f.name for f in SqliteStore(fudge.db).fights()] == ["explicit"]


def test_command_id_makes_a_retry_harmless(duel: Fudge) -> None:
    args = ("roll", "snorri", "Sword", "--dice", "+ 0 0 0", "--command-id", "retry-1")
    duel(*args)
    before = duel.written()
    assert "already applied" in duel(*args).stdout
    assert duel.written() == before


# --- logs and errors --------------------------------------------------------------

def test_logs_go_to_stderr_and_stdout_carries_results(duel: Fudge) -> None:
    result = duel("-v", "roll", "snorri", "Sword", "--dice", "+ 0 0 0")
    logged = [json.loads(line) for line in result.stderr.splitlines()]
    assert any(entry.get("event") == "command appended" for entry in logged)
    assert result.stdout.splitlines() and all(line.lstrip()[0].isdigit() for line in result.stdout.splitlines())
    assert "command appended" not in result.stdout and "level" not in result.stdout
    quiet = duel("roll", "snorri", "Sword", "--dice", "+ 0 0 0")
    assert quiet.stderr == ""


@pytest.mark.parametrize(("edit", "key"), [
    (lambda text: text.replace('kind = "pc"', 'kind = "pc"\ncolour = "red"'), "colour"),
    (lambda text: text.replace('Sword = "Great"', 'Sword = "Grate"'), "Sword"),
    (lambda text: text.replace('[weapon]', '[weapon]\nsharpness = 2'), "weapon.sharpness"),
], ids=["unknown-key", "unknown-level", "unknown-nested-key"])
def test_a_malformed_sheet_is_one_line_naming_file_and_key(duel: Fudge, edit: Any, key: str) -> None:
    sheet = duel.tmp / "broken.toml"
    sheet.write_text(edit((SHEETS / "snorri.toml").read_text()).replace('name = "Snorri"', 'name = "Other"'))
    before = duel.written()
    message = duel.fails("join", sheet)
    assert "broken.toml" in message and key in message
    assert duel.written() == before


def test_unknown_level_message_lists_what_is_allowed(duel: Fudge) -> None:
    sheet = duel.tmp / "grate.toml"
    sheet.write_text('name = "X"\n[skills]\nSword = "Grate"\n')
    message = duel.fails("join", sheet)
    assert "Grate" in message and "Superb" in message and "Mediocre" in message


@pytest.mark.parametrize("args", [
    ("roll", "nobody", "Sword", "--dice", "+ 0 0 0"),
    ("exchange", "snorri", "nobody"),
    ("declare", "nobody", "--all-out-offense"),
    ("declare", "nobody", "--all-out-offense", "--sealed"),
], ids=["roll", "exchange", "declare", "sealed-declare"])
def test_unknown_combatant_is_refused(duel: Fudge, args: tuple[str, ...]) -> None:
    before = duel.written()
    assert "nobody" in duel.fails(*args)
    assert duel.written() == before


def test_C_FP_3_spend_with_no_points_is_refused(duel: Fudge) -> None:
    duel("roll", "brynhild", "Axe", "--vs", "Good", "--dice", "- 0 0 0")
    before = duel.written()
    assert "no fudge points" in duel.fails("spend", "brynhild", "luck")
    assert duel.written() == before


def test_A_UNDO_1_undo_with_nothing_to_undo(fudge: Fudge) -> None:
    fudge("new", "empty")
    before = fudge.written()
    assert "nothing to undo" in fudge.fails("undo")
    assert "nothing to redo" in fudge.fails("redo")
    assert fudge.written() == before


@pytest.mark.parametrize("dice", [["+ 0 0"], ["+ 0 0 0 0"], ["snorri=+ 0 0"], ["nobody=+ 0 0 0"], ["+ x 0 0"]],
                         ids=["too-few", "too-many", "named-too-few", "unknown-roller", "bad-face"])
def test_C_DICE_3_wrong_dice_are_refused(duel: Fudge, dice: list[str]) -> None:
    before = duel.written()
    args = [arg for value in dice for arg in ("--dice", value)]
    duel.fails("roll", "snorri", "Sword", "--vs", "Good", *args)
    assert duel.written() == before


def test_errors_for_unknown_fights_and_stores(fudge: Fudge) -> None:
    assert "no current fight" in fudge.fails("status")
    fudge("new", "duel")
    assert "no fight named 'nope'" in fudge.fails("status", "--fight", "nope")
    assert "no fight named 'nope'" in fudge.fails("use", "nope")
    assert "already exists" in fudge.fails("new", "duel")
    before = fudge.written()
    assert "cannot branch at 9" in fudge.fails("branch", "b", "--at", "9")
    assert fudge.written() == before
    junk = fudge.tmp / "junk.jsonl"
    junk.write_text("not json\n")
    assert "line 1" in fudge.fails("import", junk, "--as", "copy")
    assert fudge.written() == before


def test_history_commands_take_the_fight_as_an_argument_or_with_fight(fudge: Fudge) -> None:
    """`log`, `replay`, `verify`, `export` name the fight positionally or with --fight, like every other command."""
    fudge("new", "duel")
    fudge("new", "other")  # now current
    assert fudge.log("duel") == fudge.json("log", "--fight", "duel", "--json")
    assert fudge("verify", "--fight", "duel").stdout.startswith("duel: ")
    assert fudge("replay", "-f", "duel").stdout == fudge("replay", "duel").stdout
    assert fudge("export", "--fight", "duel").stdout == fudge("export", "duel").stdout
    assert "two fights named: duel and --fight other" in fudge.fails("verify", "duel", "--fight", "other")
