"""Colour as a GM's terminal gets it, and never elsewhere: each command its own process.

Plain (not one escape byte) when NO_COLOR is set, TERM is dumb or the output is not a terminal;
coloured on a terminal (a pty) and wherever FORCE_COLOR is set. Coloured output still shows a
hostile name's control characters escaped: the only escape sequences are the colours fudge draws.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from tests.processes import ROOT, fudge

HOSTILE = "Ev\x1b[2Jil\r\nSnorri is dead\x07"
SGR = re.compile(r"\x1b\[[0-9;]*m")  # a colour: what fudge draws
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
EXCHANGE = ("exchange", HOSTILE, "Brynhild", "--dice", f"{HOSTILE}=0 0 0 0", "--dice", "Brynhild=+ 0 0 0")  # a stand-off


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("colour") / "fudge.db"
    sheets = ROOT / "examples" / "sheets"
    for args in (("new", "duel"), ("join", str(sheets / "snorri.toml"), "--as", HOSTILE),
                 ("join", str(sheets / "brynhild.toml"))):
        assert fudge(*args, store=store).returncode == 0
    return store


def run(table: Path, *args: str, **env: str) -> str:
    result = fudge(*args, store=table, env={"NO_COLOR": "", **env})
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


def in_a_terminal(table: Path, *args: str, **env: str) -> str:
    """`fudge ARGS` with stdout and stderr on a pseudo-terminal of 80 columns."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    environment.update({"PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(table.parent / "snapshot.key"),
                        "TERM": "xterm-256color", **env})
    child = pexpect.spawn(sys.executable, ["-m", "fudge_combat.cli.main", "--store", str(table), *args], env=environment,
                          cwd=str(table.parent), dimensions=(40, 80), encoding="utf-8", timeout=120)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before.replace("\r\n", "\n")


def test_output_that_is_not_a_terminal_has_no_escape_bytes(table: Path) -> None:
    for args in (("status",), ("status", "--long"), ("log",), ("--verbose", *EXCHANGE)):
        for env in ({}, {"NO_COLOR": "1"}):
            shown = run(table, *args, **env)
            assert "\x1b" not in shown, (args, env)


def test_FORCE_COLOR_colours_the_board_and_command_output(table: Path) -> None:
    board = run(table, "status", FORCE_COLOR="1")
    assert SGR.search(board)
    assert SGR.sub("", board).startswith("duel (fudge) · ")
    exchanged = run(table, *EXCHANGE, FORCE_COLOR="1")
    assert SGR.search(exchanged) and "▢ ▢ ▢ ▢" in SGR.sub("", exchanged)  # the dice, drawn as dice


def test_coloured_output_keeps_hostile_names_escaped(table: Path) -> None:
    """A name's ESC, CR, LF and BEL reach the terminal as visible escapes, coloured or not."""
    for args in (("status",), ("status", "--long"), ("log",)):
        shown = SGR.sub("", run(table, *args, FORCE_COLOR="1"))
        assert RAW.search(shown) is None and "\x1b" not in shown, args
        assert "\\x1b[2J" in shown, args


def test_a_terminal_gets_colour_unless_NO_COLOR_or_TERM_dumb(table: Path) -> None:
    """On a real terminal: colour; NO_COLOR or TERM=dumb: not one escape byte (structlog's console
    logs too, `-v`)."""
    coloured = in_a_terminal(table, "status")
    assert SGR.search(coloured) and "▶" not in SGR.sub("", coloured).split("\n")[0]
    assert "\x1b" not in in_a_terminal(table, "status", NO_COLOR="1")
    assert "\x1b" not in in_a_terminal(table, "status", TERM="dumb")
    logged = in_a_terminal(table, "-v", *EXCHANGE, NO_COLOR="1")
    assert "command appended" in logged and "\x1b" not in logged
    assert SGR.search(in_a_terminal(table, "-v", *EXCHANGE))


def test_a_terminal_wraps_long_output_to_its_width(table: Path) -> None:
    """`fudge log` lines longer than the terminal are wrapped at its 80 columns, not cut."""
    shown = SGR.sub("", in_a_terminal(table, "log"))
    assert shown.strip() and all(len(line) <= 80 for line in shown.split("\n"))
    plain = run(table, "log")
    assert any(len(line) > 80 for line in plain.split("\n"))  # the same log, unwrapped in a pipe


def test_json_output_is_never_coloured(table: Path) -> None:
    """`export`, `status --json` and `log --json` are data: the same bytes with FORCE_COLOR."""
    for args in (("export",), ("status", "--json"), ("log", "--json"), ("status", "--json", "--as-of", "2")):
        plain = fudge(*args, store=table, env={"NO_COLOR": ""}).stdout
        forced = fudge(*args, store=table, env={"NO_COLOR": "", "FORCE_COLOR": "1"}).stdout
        assert plain and forced == plain, args
