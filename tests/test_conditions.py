"""Conditions, leaving the fight and a blow at an ally (docs/table.md), run as a GM runs them: each command its
own process on a store file (tests/processes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.processes import ROOT, copied, fudge

SHEETS = ROOT / "examples" / "sheets"
FEX_HOUSE = ROOT / "examples" / "house" / "snorri-brynhild.toml"
ROUND = ("--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0")  # a tie: nobody is hurt (F-MEL)


def ok(store: Path, *args: str) -> str:
    done = fudge(*args, store=store)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def refused(store: Path, *args: str) -> str:
    done = fudge(*args, store=store)
    assert done.returncode not in (0, 70) and not done.stdout, (args, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


@pytest.fixture
def duel(the_duel: Path, tmp_path: Path) -> Path:
    """Snorri and Brynhild under the F-EX house rules: this test's own copy of the fight played once by `fudge`
    processes (tests/conftest.py), which the test's commands change."""
    return copied(the_duel, tmp_path)


def _said(out: str) -> list[str]:
    return [line.removeprefix("  → ") for line in out.splitlines() if line.startswith("  → ")]


def _fighter(store: Path, name: str) -> dict:
    board = json.loads(ok(store, "status", "--json"))
    return next(c for c in board["combatants"] if c["name"] == name)


def test_a_mark_is_shown_on_the_board_in_status_json_and_log_and_an_unmark_takes_it_off(duel: Path) -> None:
    out = ok(duel, "mark", "sn", "prone", "--note", "tripped on a shield")
    assert out.splitlines()[0].endswith("Snorri is prone: tripped on a shield")  # the event's line
    assert _said(out) == []  # the event's line says it: not twice (cli.outcome)
    board = ok(duel, "status")
    assert "fudge pts 2 · prone" in board
    assert "conditions: prone: tripped on a shield" in ok(duel, "status", "--long")
    assert _fighter(duel, "Snorri")["conditions"] == [
        {"name": "prone", "note": "tripped on a shield", "until_round": None, "rules": "on the ground: -2 offence (AI-POS)"}]
    assert "conditions" not in _fighter(duel, "Brynhild")  # a key only when it says something
    ok(duel, "mark", "bry", "Blessed by Odin")  # free text
    assert _fighter(duel, "Brynhild")["conditions"][0]["rules"] is None
    out = ok(duel, "unmark", "snorri", "PRONE")  # any case
    assert out.splitlines()[0].endswith("Snorri is no longer prone") and _said(out) == []
    assert "prone" not in ok(duel, "status")
    log = ok(duel, "log")
    assert "Snorri is prone: tripped on a shield" in log and "Snorri is no longer prone" in log
    assert "Brynhild is Blessed by Odin" in log


def test_a_timed_condition_runs_out_at_the_start_of_the_round_it_lasts_to(duel: Path) -> None:
    ok(duel, "exchange", "snorri", "brynhild", *ROUND)  # round 1
    out = ok(duel, "mark", "snorri", "prone", "--rounds", "2")
    assert out.splitlines()[0].endswith("Snorri is prone until round 3 (2 rounds)") and not _said(out)
    assert "prone until round 3" in ok(duel, "status")
    round_2 = ok(duel, "exchange", "snorri", "brynhild", *ROUND)
    assert "Snorri is no longer prone" not in _said(round_2)
    assert _fighter(duel, "Snorri")["conditions"][0]["until_round"] == 3
    round_3 = ok(duel, "exchange", "snorri", "brynhild", *ROUND)
    assert "round 3 begins" in round_3 and "Snorri is no longer prone" in _said(round_3)
    assert "conditions" not in _fighter(duel, "Snorri")
    # the log and a replay say it where it happened, as the command did (A-REPLAY-1)
    said = [line for line in ok(duel, "log").splitlines() if line.startswith("  → ")]
    assert "  → Snorri is no longer prone" in said
    assert said == [line for line in ok(duel, "replay").splitlines() if line.startswith("  → ")]


def test_A_UNDO_1_an_undone_mark_is_gone_and_a_redone_one_back(duel: Path) -> None:
    ok(duel, "mark", "brynhild", "on fire", "--rounds", "1")
    assert "Brynhild is no longer on fire" in _said(ok(duel, "undo"))
    assert "conditions" not in _fighter(duel, "Brynhild")
    assert "Brynhild is on fire until round 1" in _said(ok(duel, "redo"))
    assert _fighter(duel, "Brynhild")["conditions"][0]["name"] == "on fire"


def test_bad_marks_are_refused_with_one_line_and_write_nothing(duel: Path) -> None:
    before = ok(duel, "log", "--json")
    assert "Snorri is not marked prone" in refused(duel, "unmark", "snorri", "prone")
    assert "control characters" in refused(duel, "mark", "snorri", "evil\u202etext")
    assert "at most 40 characters" in refused(duel, "mark", "snorri", "x" * 41)
    assert "no combatant 'nobody'" in refused(duel, "mark", "nobody", "prone")
    assert "--rounds" in refused(duel, "mark", "snorri", "prone", "--rounds", "0")
    assert ok(duel, "log", "--json") == before


def test_a_hostile_condition_name_is_escaped_in_text_json_and_html(duel: Path, tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script>"
    ok(duel, "mark", "brynhild", hostile, "--note", "<img src=x onerror=alert(2)>")
    assert _fighter(duel, "Brynhild")["conditions"][0]["name"] == hostile  # JSON: a string, as given
    report = tmp_path / "report.html"
    ok(duel, "report", "-o", str(report))
    html = report.read_text()
    assert "<script>alert" not in html and "<img src" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    ok(duel, "mark", "snorri", "two\nlines")  # white space is folded: a name cannot forge a board line
    assert "two lines" in ok(duel, "status")


def test_leave_takes_a_fighter_out_without_wounds(duel: Path) -> None:
    out = ok(duel, "leave", "brynhild", "--fled")
    assert out.splitlines()[0].endswith("Brynhild fled: out of the fight without wounds")
    assert _said(out) == ["Brynhild is out of the fight (fled)",
                          "only Snorri's side is standing: `fudge end` ends the battle"]
    board = ok(duel, "status")
    assert "OUT of the fight (fled)" in board and "Undamaged" in board
    assert _fighter(duel, "Brynhild")["left"] == "fled"
    assert "out of the fight (fled)" in refused(duel, "exchange", "brynhild", "snorri", *ROUND)
    assert "already fled" in refused(duel, "leave", "brynhild", "--surrendered")
    ok(duel, "end")  # the battle's end brings back a knocked-out fighter, not one who fled
    assert _fighter(duel, "Brynhild")["left"] == "fled" and "OUT of the fight (fled)" in ok(duel, "status")
    assert "Brynhild is back in the fight" not in _said(ok(duel, "undo"))  # the end undone: she is still gone
    assert "Brynhild is back in the fight" in _said(ok(duel, "undo"))  # the leave undone (A-UNDO-1)
    assert "left" not in _fighter(duel, "Brynhild")


def test_FT_TRACK_3_a_fate_fighter_who_surrenders_no_longer_fights(tmp_path: Path) -> None:
    store = tmp_path / "fudge.db"
    ok(store, "new", "scene", "--rules", "fate")
    ok(store, "join", str(SHEETS / "cyrus.toml"))
    ok(store, "join", str(SHEETS / "finn.toml"))
    out = ok(store, "leave", "finn", "--surrendered")
    assert "Finn is out of the fight (surrendered)" in _said(out)
    assert "OUT of the fight (surrendered)" in ok(store, "status")
    assert "out of the fight: surrendered" in ok(store, "status", "--long")


def test_an_attack_on_an_ally_goes_through_with_one_warning(tmp_path: Path) -> None:
    store = tmp_path / "fudge.db"
    ok(store, "new", "duel", "--house", str(FEX_HOUSE))
    ok(store, "join", str(SHEETS / "snorri.toml"), "--side", "heroes")
    ok(store, "join", str(SHEETS / "brynhild.toml"), "--side", "heroes")
    out = ok(store, "exchange", "snorri", "brynhild", *ROUND)
    assert _said(out).count("Snorri and Brynhild are on the same side (heroes): an attack on an ally") == 1
    assert json.loads(ok(store, "log", "--json"))[-1]["type"] == "exchange_resolved"  # it went through
