"""Every writing command ends with what it did (cli.outcome): its events, then its consequences under an
arrow; with `--json`, the events appended, the consequences and the board after. Run as a GM runs them:
each command its own process on a store file (tests/processes.py). `fudge log` says each command's
consequences under it (A-REPLAY-1): a snapshot of a demo fight's log.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from fudge_combat.cli import main
from tests.processes import ROOT, copied, fudge

SHEETS = ROOT / "examples" / "sheets"
FEX_HOUSE = ROOT / "examples" / "house" / "snorri-brynhild.toml"
ROUND_1 = ("--dice", "snorri=+ 0 0 0", "--dice", "brynhild=- 0 0 0", "--dice", "snorri=- - 0 0")  # F-EX: Hurt


def ok(store: Path, *args: str) -> str:
    done = fudge(*args, store=store)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture
def duel(the_duel: Path, tmp_path: Path) -> Path:
    """Snorri and Brynhild under the F-EX house rules: this test's own copy of the fight played once by `fudge`
    processes (tests/conftest.py), which the test's commands change."""
    return copied(the_duel, tmp_path)


def test_F_WND_4_A_UNDO_1_a_blow_and_its_undo_say_what_they_did(duel: Path) -> None:
    out = ok(duel, "exchange", "snorri", "brynhild", *ROUND_1).splitlines()
    assert out[-1:] == ["  → Brynhild is Hurt: -1 to every roll"]
    assert all(re.match(r" +\d+  ", line) for line in out[:-1])  # the event lines, as before
    assert "   4  round 1 begins" in out  # the round's event line says it: the consequence is not repeated
    assert ok(duel, "undo").splitlines()[1:] == [
        "  → undid Snorri's exchange with Brynhild, seq 4-9", "  → back before round 1",
        "  → Brynhild is Undamaged: no penalty"]
    assert ok(duel, "redo").splitlines()[1:] == [
        "  → redid Snorri's exchange with Brynhild, seq 4-9", "  → round 1 begins",
        "  → Brynhild is Hurt: -1 to every roll"]


def test_F_WND_1_out_of_the_fight_ends_the_command(duel: Path) -> None:
    out = ok(duel, "wound", "brynhild", "Incapacitated", "--reason", "a fall").splitlines()
    assert out[1:] == ["  → only Snorri's side is standing: `fudge end` ends the battle"]
    assert out[0].startswith("   4  Brynhild is out of the fight (Incapacitated)")  # the event says it: not twice


def test_json_the_events_appended_their_consequences_and_the_board(duel: Path) -> None:
    data = json.loads(ok(duel, "exchange", "snorri", "brynhild", *ROUND_1, "--json"))
    assert set(data) == {"events", "consequences", "board"}
    assert [e["seq"] for e in data["events"]] == list(range(4, 10))
    assert data["events"][-1]["type"] == "wound_marked" and data["events"][-1]["combatant"] == "Brynhild"
    log = json.loads(ok(duel, "log", "--json"))
    assert data["events"] == log[3:]  # as `fudge log --json` shows them
    assert data["consequences"] == [{"kind": "round", "text": "round 1 begins"},
                                    {"kind": "wound", "text": "Brynhild is Hurt: -1 to every roll"}]
    assert data["board"] == json.loads(ok(duel, "status", "--json"))
    undone = json.loads(ok(duel, "undo", "--json"))
    assert [e["type"] for e in undone["events"]] == ["command_undone"]
    assert undone["consequences"][0] == {"kind": "undo", "text": "undid Snorri's exchange with Brynhild, seq 4-9"}
    assert undone["board"]["round"] == 0


def test_json_of_new_and_join(tmp_path: Path) -> None:
    store = tmp_path / "fudge.db"
    started = json.loads(ok(store, "new", "duel", "--json"))
    assert [e["type"] for e in started["events"]] == ["fight_started"]
    assert started["consequences"] == [] and started["board"]["fight"] == "duel"
    joined = json.loads(ok(store, "join", str(SHEETS / "snorri.toml"), "--json"))
    assert [e["type"] for e in joined["events"]] == ["combatant_joined"]
    assert [c["name"] for c in joined["board"]["combatants"]] == ["Snorri"]


def test_json_of_import_and_branch(duel: Path, tmp_path: Path) -> None:
    """An import writes every event of the file: all are listed, voided ones as `log --json` marks them;
    a branch lists its own event (those before it are its parent's)."""
    ok(duel, "exchange", "snorri", "brynhild", *ROUND_1)
    ok(duel, "undo")
    exported = tmp_path / "duel.jsonl"
    ok(duel, "export", "duel", "-o", str(exported))
    imported = json.loads(ok(duel, "import", str(exported), "--as", "copy", "--json"))
    log = json.loads(ok(duel, "log", "copy", "--json"))
    assert [(e["seq"], e["voided"]) for e in imported["events"]] == [(e["seq"], e["voided"]) for e in log]
    assert sum(e["voided"] for e in log) == 6 and imported["board"]["fight"] == "copy"
    branched = json.loads(ok(duel, "branch", "what-if", "--at", "9", "--fight", "duel", "--json"))
    assert [e["type"] for e in branched["events"]] == ["branch_started"]
    assert branched["board"]["combatants"][1]["wound_level"] == "Hurt"  # as of event 9: before the undo


# Every command that appends to a fight's log (COMMANDS in cli.main, by module), and fate's subcommands.
WRITERS = {
    "fight": ("new", "join"),
    "table": ("declare", "exchange", "attack", "roll", "round", "barter", "next", "order", "hold", "intend",
              "spend", "kill", "shoot"),
    "melee": ("melee", "story"),
    "conditions": ("mark", "unmark", "leave"),
    "recovery": ("end", "wound", "rest", "heal"),
    "atari": ("willpower", "resist-spell", "heroic"),
    "history": ("undo", "redo", "branch", "import", "reveal-seed"),
}


def _commands(module: str) -> dict[str, Any]:
    from typer.main import get_command_name

    app = importlib.import_module(f"fudge_combat.cli.{module}").app
    return {info.name or get_command_name(info.callback.__name__): info.callback for info in app.registered_commands}


@pytest.mark.parametrize("module", [*WRITERS, "fate"])
def test_every_writing_command_takes_json(module: str) -> None:
    import inspect

    if module == "fate":
        from fudge_combat.cli import fate
        callbacks = {info.name or info.callback.__name__: info.callback for info in fate.fate_app.registered_commands}
        callbacks["end-scene"] = _commands("fate")["end-scene"]
    else:
        callbacks = _commands(module)
        callbacks = {name: callbacks[name] for name in WRITERS[module]}
        assert set(WRITERS[module]) <= {n for n, m in main.COMMANDS.items() if m == module}
    for name, callback in callbacks.items():
        assert "as_json" in inspect.signature(callback).parameters, name


@pytest.mark.parametrize("demo", ["fudge", "fudge-phases"])
def test_A_REPLAY_1_the_log_of_a_demo_says_each_commands_consequences(demo: str, tmp_path: Path,
                                                                      snapshot: SnapshotAssertion) -> None:
    """Fudge's F-EX with an undo and a redo; Crunch Time's phase round to the end of the fight."""
    store = tmp_path / "fudge.db"
    ok(store, "demo", demo)
    fight = "demo" if demo == "fudge" else f"demo-{demo}"
    text = ok(store, "log", fight)
    masked = re.sub(r"[0-9a-f]{8,}", "<hex>", text)  # command ids and the seed's commitment differ each run
    assert masked == snapshot(name=f"{demo}-log-with-consequences")
    said = [line for line in text.splitlines() if line.startswith("  → ")]
    replayed = ok(store, "replay", fight)
    assert said and said == [line for line in replayed.splitlines() if line.startswith("  → ")]
