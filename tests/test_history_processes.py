"""Every history command run the way a GM runs them: each its own process, on a store file, with the
snapshot key present, so every read after the first starts from a snapshot (A-UNDO-1, A-UNDO-2,
A-BRANCH-1, A-REPLAY-1, A-VERIFY-1, A-FAIR-1, C-FP-2).

The same commands then run in this process through one shared service (the way the other tests
drive the CLI, where the log stays in memory between commands): both must give the same exit codes,
the same output and the same stored fights, up to the random ids, hashes and clock.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner

from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
FEX_HOUSE = ROOT / "examples" / "house" / "snorri-brynhild.toml"

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    """The CLI configures structlog in-process; undo that for whatever runs next."""
    yield
    structlog.reset_defaults()


def in_processes(tmp: Path) -> Run:
    db = tmp / "fudge.db"

    def run(*args: str) -> tuple[int, str, str]:
        done = fudge(*args, store=db)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        return done.returncode, done.stdout, done.stderr
    return run


def in_this_process(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    """The CLI in this process, every command on one shared service (its log cached between commands)."""
    import fudge_combat.cli.context
    import fudge_combat.cli.fight
    import fudge_combat.cli.history
    import fudge_combat.cli.table
    from fudge_combat.cli.main import app
    from fudge_combat.service.fights import Fights
    from fudge_combat.store.sqlite import SqliteStore

    db = tmp / "fudge.db"
    monkeypatch.setenv("FUDGE_KEY_FILE", str(tmp / "snapshot.key"))
    shared = Fights(SqliteStore(db))
    for module in (fudge_combat.cli.context, fudge_combat.cli.fight, fudge_combat.cli.history, fudge_combat.cli.table):
        monkeypatch.setattr(module, "service", lambda store=None: shared)
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str, str]:
        result = runner.invoke(app, ["--store", str(db), *args], env={"FUDGE_STORE": None})
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
        return result.exit_code, result.stdout, result.stderr
    return run


def same(text: str, tmp: Path) -> str:
    """Output with what differs between two runs of the same commands masked: ids, hashes, seeds, clock, paths."""
    text = text.replace(str(tmp), "<dir>")
    text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+\+00:00", "<at>", text)
    return re.sub(r"[0-9a-f]{8,}", "<hex>", text)


def wounds(state: dict[str, Any]) -> dict[str, tuple[str, int]]:
    return {c["name"]: (c["wound_level"], c["fudge_points"]) for c in state["combatants"]}


def checked(run: Run, fight: str, seen: list[tuple[int, str, str]]) -> dict[str, tuple[str, int]]:
    """verify, log and replay of a fight after a history command: each succeeds, verify finds nothing
    wrong; the wounds and fudge points of the state replay ends at."""
    for args in (("verify", fight), ("log", fight, "--json"), ("replay", fight, "--json")):
        code, out, err = run(*args)
        assert code == 0 and err == "", (args, err)
        seen.append((code, out, err))
    assert "hash chain intact, rules agree" in seen[-3][1]
    return wounds(json.loads(seen[-1][1].splitlines()[-1])["state"])


def session(run: Run, tmp: Path) -> list[tuple[int, str, str]]:
    """A fight with every die typed (results known), through every history command; what each printed."""
    seen: list[tuple[int, str, str]] = []

    def ok(*args: str) -> str:
        code, out, err = run(*args)
        assert code == 0, (args, out, err)
        seen.append((code, out, err))
        return out

    def refused(*args: str, why: str) -> None:
        code, out, err = run(*args)
        assert code == 1 and out == "" and err.startswith("error: ") and why in err, (args, out, err)
        assert len(err.strip().splitlines()) == 1, err
        seen.append((code, out, err))

    ok("new", "duel", "--rules", "fudge", "--house", str(FEX_HOUSE))
    ok("join", str(SHEETS / "snorri.toml"))
    ok("join", str(SHEETS / "brynhild.toml"))
    # F-EX: Snorri Great +1 -1 (shield) = Great against Brynhild Good -1 = Fair: RD +2, damage 5: Very Hurt.
    ok("exchange", "snorri", "brynhild", "--dice", "snorri=+ 0 0 0", "--dice", "brynhild=- 0 0 0",
       "--dice", "snorri=0 0 0 0")
    ok("roll", "brynhild", "Perception", "--vs", "Good", "--dice", "0 0 0 0")  # events 10-11
    # Snorri Good against Brynhild Great (Good +3 -2 for her wound): RD +1, a graze: Snorri is Scratched.
    ok("exchange", "snorri", "brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=+ + + 0",
       "--dice", "brynhild=0 0 0 0")
    grazed = {"Snorri": ("Scratch", 2), "Brynhild": ("Very Hurt", 0)}
    spent = {"Snorri": ("Undamaged", 1), "Brynhild": ("Very Hurt", 0)}

    ok("spend", "snorri", "skill", "--shift", "+1")  # C-FP-2: Snorri's Great ties her Great: the graze is voided
    assert checked(run, "duel", seen) == spent
    assert "undo: command" in ok("undo")  # A-UNDO-1: the spend is voided: the graze and the point are back
    assert checked(run, "duel", seen) == grazed
    ok("redo")
    assert checked(run, "duel", seen) == spent
    undone = ok("undo", "--to", "11").splitlines()  # the spend, then the exchange: as after the roll
    assert len([line for line in undone if not line.startswith("  → ")]) == 2
    assert [line.split(",")[0] for line in undone if line.startswith("  → undid")] == [
        "  → undid Snorri's fudge point (skill)", "  → undid Snorri's exchange with Brynhild"]
    assert checked(run, "duel", seen) == {"Snorri": ("Undamaged", 2), "Brynhild": ("Very Hurt", 0)}
    refused("undo", "--to", "11", why="nothing after event 11 to undo")
    ok("redo")  # the latest undo voided the exchange: it is restored; the spend stays undone
    assert checked(run, "duel", seen) == grazed

    ok("branch", "what-if", "--at", "11")  # A-BRANCH-1: the fight as it stood after the roll
    assert checked(run, "what-if", seen) == {"Snorri": ("Undamaged", 2), "Brynhild": ("Very Hurt", 0)}
    ok("exchange", "snorri", "brynhild", "--dice", "snorri=+ 0 0 0", "--dice", "brynhild=- 0 0 0",
       "--dice", "snorri=0 0 0 0")  # the first exchange again: a second Very Hurt overflows (F-WND-3)
    refused("redo", why="nothing to redo")  # a new command ends the redo chain
    assert checked(run, "what-if", seen)["Brynhild"][0] == "Incapacitated"

    ok("reveal-seed", "--fight", "duel")  # A-FAIR-1
    assert checked(run, "duel", seen) == grazed  # the parent is untouched by its branch
    export = tmp / "duel.jsonl"
    ok("export", "duel", "-o", str(export))
    ok("import", str(export), "--as", "copy")
    assert checked(run, "copy", seen) == grazed
    for fight in ("duel", "what-if", "copy"):  # what is stored
        ok("export", fight)
    ok("status", "--json")  # the read model of the current fight
    return seen


def test_A_UNDO_1_every_history_command_as_separate_processes_matches_one_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`undo --to` crashed in every fresh process once a snapshot existed (the log was not in memory)."""
    apart, together = tmp_path / "processes", tmp_path / "in-process"
    apart.mkdir()
    together.mkdir()
    by_process = session(in_processes(apart), apart)
    assert (apart / "snapshot.key").exists()
    with sqlite3.connect(apart / "fudge.db") as con:
        assert con.execute("SELECT count(*) FROM snapshots").fetchone()[0] > 0  # reads went through snapshots
    in_process = session(in_this_process(together, monkeypatch), together)
    assert [(code, same(out, apart), same(err, apart)) for code, out, err in by_process] == \
           [(code, same(out, together), same(err, together)) for code, out, err in in_process]
