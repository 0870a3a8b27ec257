"""`fudge play` on a terminal (a pty, driven by pexpect): Tab completion, Ctrl-C, Ctrl-D, the history.

The GM's keys as a terminal sends them: Tab completes as readline does, Ctrl-C drops the line
being typed (nothing of it runs, the session goes on), Ctrl-D leaves with exit status 0, and the
lines run are kept in the store's history for the next session (Up recalls them).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.cli.play_prompt import history_file
from fudge_combat.store.sqlite import SqliteStore
from tests.processes import ROOT, fudge

pexpect = pytest.importorskip("pexpect")


def spawn(db: Path, *args: str, columns: int = 120) -> Any:
    """`fudge --store DB play ARGS` on a pty of 40 x 120, as tests.processes runs a command otherwise."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_") and k not in ("COLUMNS", "LINES")}  # the pty's size
    env.update({"PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(db.parent / "snapshot.key"),
                "FUDGE_SECRETS_FILE": str(db.parent / "secrets.db"), "XDG_STATE_HOME": str(db.parent / "state"),
                "NO_COLOR": "1", "TERM": "xterm",
                "PROMPT_TOOLKIT_NO_CPR": "1"})  # a pty under test does not answer cursor-position requests
    return pexpect.spawn(sys.executable, ["-m", "fudge_combat.cli.main", "--store", str(db), "play", *args], env=env, cwd=str(ROOT),
                         encoding="utf-8", timeout=60, dimensions=(40, columns))


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path / "fudge.db"
    for args in (("new", "duel"), ("join", "examples/sheets/snorri.toml"), ("join", "examples/sheets/brynhild.toml")):
        assert fudge(*args, store=store, cwd=ROOT).returncode == 0
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # where the session keeps the history
    return store


def test_tab_completes_ctrl_c_cancels_the_line_ctrl_d_leaves(db: Path) -> None:
    child = spawn(db, "duel")
    child.expect("duel>")
    child.send("rol\t")
    child.expect("roll")  # the command
    child.send(" sn\t")
    child.expect("Snorri")  # a combatant
    child.send(" Sw\t")
    child.expect("Sword")  # his trait
    child.send(" --v\t")
    child.expect("--vs")  # an option of `roll`
    child.send(" Fair -d '0 0 0 0'\r")
    child.expect("Snorri rolls Sword: 0 0 0 0")
    child.expect(r"duel \(fudge")  # the board, redrawn
    child.expect("duel>")
    events = SqliteStore(db).last_seq("duel")

    child.send("undo")
    child.send("\x03")  # Ctrl-C: the line is dropped
    child.expect("duel>")
    child.send("fights\r")  # the session goes on
    child.expect(rf"\* duel: {events} events")
    child.expect("duel>")

    child.send("\x04")  # Ctrl-D leaves
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    types = [row.type for row in SqliteStore(db).read("duel")]
    assert len(types) == events and "undo" not in types  # nothing of the cancelled line ran

    kept = history_file(db).read_text()
    assert "roll Snorri Sword --vs Fair -d '0 0 0 0'" in kept and "fights" in kept and "undo" not in kept


def test_the_next_session_on_the_store_recalls_its_history(db: Path) -> None:
    first = spawn(db)
    first.expect("duel>")
    first.send("fights\r")
    first.expect(r"\* duel: 3 events")
    first.expect("duel>")
    first.send("\x04")
    first.expect(pexpect.EOF)
    first.close()
    assert first.exitstatus == 0

    second = spawn(db)
    second.expect("duel>")
    second.send("\x1b[A")  # Up: the last line of the last session
    second.expect("fights")
    second.send("\r")
    second.expect(r"\* duel: 3 events")
    second.send("\x04")
    second.expect(pexpect.EOF)
    second.close()
    assert second.exitstatus == 0


def test_round_with_turns_left_asks_y_or_n_and_only_y_starts_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PH-1: `round` while fighters can still act asks on a terminal, naming who would lose a turn; `n`
    leaves the round as it was (no event written), `y` starts the next round."""
    store = tmp_path / "fudge.db"
    for args in (("new", "watch", "--rules", "fudge-phases"), ("join", "examples/sheets/leroy.toml", "--side", "watch"),
                 ("join", "examples/sheets/brynhild.toml", "--side", "raiders"),
                 ("round", "-d", "leroy=+ + 0 -", "-d", "brynhild=+ + + - 0"), ("next",)):
        assert fudge(*args, store=store, cwd=ROOT).returncode == 0, args
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    events = SqliteStore(store).last_seq("watch")
    child = spawn(store)
    child.expect("watch Brynhild>")
    child.send("round\r")
    child.expect(r"Brynhild and Leroy have not acted: start round 2 anyway\? y/n")
    child.send("n\r")
    child.expect("nothing done: the round goes on")
    child.expect("watch Brynhild>")
    assert SqliteStore(store).last_seq("watch") == events
    child.send("round -d 'leroy=0 0 0 0' -d 'brynhild=0 0 0 0 0'\r")
    child.expect(r"have not acted: start round 2 anyway\? y/n")
    child.send("y\r")
    child.expect("round 2 begins")
    child.expect(r"watch \(fudge-phases\) · round 2")
    child.expect("watch>")
    child.send("\x04")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert [row.type for row in SqliteStore(store).read("watch")].count("round_started") == 2


def test_long_lines_break_between_words_on_a_narrow_terminal_without_colour(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal 50 columns wide (NO_COLOR: printed plain, not by rich), a blow's line longer than that is
    broken between words by the program, never left to the terminal to cut a name ("Cutth/roat")."""
    store = tmp_path / "fudge.db"
    for args in (("new", "tavern", "--rules", "atari-isev"), ("join", "examples/sheets/max.toml", "--side", "Max"),
                 ("join", "examples/sheets/cutthroat.toml", "--side", "bar"),
                 ("round", "-d", "max=+ + 0 0", "-d", "cutthroat=0 0 0 0"), ("next",)):
        assert fudge(*args, store=store, cwd=ROOT).returncode == 0, args
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    child = spawn(store, columns=50)
    child.expect("tavern Max>")
    child.send("a cutthroat -d 'max=+ + + +' -d 'cutthroat=- - - -' -d 'max=0 0 0 0'\r")  # the damage roll too
    child.expect(r"\(attack Max Cutthroat")  # the line typed, as the prompt drew it, is behind
    child.expect("only Max's side is standing")
    shown = child.before
    child.send("\x04")
    child.expect(pexpect.EOF)
    child.close()
    blow = next(line for line in fudge("log", store=store, cwd=ROOT).stdout.splitlines() if "→ Max hits Cutthroat" in line)
    blow = blow.split("  ", 2)[-1].strip()  # the words after the seq and the command's id
    assert len(blow) > 50
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown)  # the line editor's own cursor and mode codes
    lines = [line.rsplit("\r", 1)[-1] for line in shown.replace("\r\n", "\n").split("\n")]
    assert all(len(line) <= 50 for line in lines), [line for line in lines if len(line) > 50]
    assert blow in " ".join(line.strip() for line in lines)  # every word whole, in order


def test_tab_after_join_offers_sheets_and_folders_with_their_slash(db: Path) -> None:
    """`join ex<Tab>` writes `examples/` (a folder, its `/` kept); `join kit/<Tab>` writes the one folder there
    and no Python file; a sheet completes to its whole path."""
    kit = db.parent / "kit"  # a folder of its own: the repository's folders gain __pycache__ folders as it runs
    (kit / "npcs").mkdir(parents=True)
    (kit / "tools.py").write_text("")
    child = spawn(db, "duel")
    child.expect("duel>")
    child.send(f"join {kit}/\t")
    child.expect("kit/npcs/")  # the only folder; the .py file beside it is not offered
    child.send("\x03")
    child.expect("duel>")
    child.send("join ex\t")
    child.expect("examples/")
    child.send("sheets/sn\t")
    child.expect("snorri.toml")  # the line is redrawn from the point it changed
    child.send(" --as Snorri-2\r")
    child.expect("Snorri-2 joins duel")
    child.expect("duel>")
    child.send("\x04")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
