"""Names and texts from sheets, house rules, `--reason` and imported logs never drive the terminal.

A sheet whose name and traits hold a screen clear (ESC[2J), a forged line ("\\r\\nSnorri is dead"),
a bell, a window-title sequence (OSC 0), a C1 next-line (U+0085), a line separator and a bidi
override joins a fight; every command that shows them runs as its own process, as a GM runs it,
and neither stdout nor stderr carries one raw control character (a line feed ends each line);
the escaped form is what is shown. `--json` keeps JSON's escapes and the original text.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fudge_combat.cli import context, terminal
from tests.processes import ROOT, fudge

HOSTILE = "Ev\x1b[2Jil\r\nSnorri is dead\x07\x1b]0;pwned\x07\u202eX\x85Y\u2028Z"
TRAIT = "Sw\x1b[31mord\r\nSnorri is dead"
REASON = "oil\x1b[2J\r\nBrynhild is dead\x9b31m"
OPTION = "dam\x1b]0;title\x07age\u2066"
# What must never reach a terminal: C0 but the line feed, DEL, C1, separators, bidi controls.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def toml_string(text: str) -> str:
    """A TOML basic string: every control character as a \\uXXXX escape."""
    return '"' + "".join(f"\\u{ord(c):04x}" if RAW.match(c) or c in '\n"\\' else c for c in text) + '"'


def hostile_sheet() -> str:
    trait = toml_string(TRAIT)
    return (f"name = {toml_string(HOSTILE)}\nkind = \"pc\"\nfudge_points = 2\n"
            "[attributes]\nStrength = \"Good\"\n\"Damage Capacity\" = \"Good\"\nAgility = \"Fair\"\n"
            f"[skills]\n{trait} = \"Great\"\n[combat]\nattack = {trait}\ndefend = {trait}\n"
            f"[weapon]\nname = {toml_string('Ax' + chr(27) + '[5me')}\ndamage = 4\n")


def clean(result: subprocess.CompletedProcess[str], command: tuple[str, ...]) -> None:
    for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        raw = RAW.search(text)
        assert raw is None, f"fudge {' '.join(command)!r}: raw {raw.group()!r} on {stream}: {text!r}"


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fight with the hostile combatant, an exchange with typed dice (a tie: no one is out, so the
    commands below are never refused for a random blow), a GM wound with a hostile reason, and its export."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "evil.toml").write_text(hostile_sheet())
    (folder / "house.toml").write_text(f'extends = "fudge"\nname = {toml_string("house" + HOSTILE)}\n')
    store = folder / "fudge.db"
    for args in (("new", "duel", "--house", "house.toml"), ("join", "evil.toml"),
                 ("join", str(ROOT / "examples" / "sheets" / "brynhild.toml")),
                 ("exchange", HOSTILE, "Brynhild", "--dice", f"{HOSTILE}=0 0 0 0", "--dice", "Brynhild=+ 0 0 0"),
                 ("wound", "Brynhild", "Scratch", "--reason", REASON)):
        result = fudge(*args, store=store)
        assert result.returncode == 0, result.stderr
        clean(result, args)
    return store


OUTPUTS = [
    ("status",), ("status", "--as-of", "4"), ("fights",), ("initiative",), ("log",), ("replay",),
    ("verify",), ("export",), ("undo",), ("redo",), ("rules", "show", "--fight", "duel"),
    ("roll", HOSTILE, TRAIT + "x"),  # an unknown trait: an error that names it
    ("roll", HOSTILE + "x", "Sword"),  # an unknown combatant
    ("status", "--fight", HOSTILE),  # an unknown fight
    ("-v", "exchange", HOSTILE, "Brynhild"),  # logs on stderr (JSON, not a terminal)
]


def label(command: tuple[str, ...]) -> str:
    return " ".join(command).replace(HOSTILE, "HOSTILE").replace(TRAIT, "TRAIT")


@pytest.mark.parametrize("command", OUTPUTS, ids=label)
def test_every_output_escapes_what_sheets_and_logs_hold(table: Path, command: tuple[str, ...]) -> None:
    """Item 4 of the trust issue: no raw control character leaves for the terminal, in text or errors."""
    result = fudge(*command, store=table)
    clean(result, command)
    shown = result.stdout + result.stderr
    if command[0] in ("status", "log", "replay", "roll") or command[:2] == ("-v", "exchange"):
        assert "\\x1b[2J" in shown and "\\r\\nSnorri is dead" in shown, shown
    if command[0] in ("log", "replay"):
        assert "\\x1b[2J\\r\\nBrynhild is dead\\x9b31m" in shown  # the --reason, in one line
        assert not any(line.startswith("Snorri is dead") for line in shown.splitlines())


def test_the_json_outputs_keep_the_text_as_json_escapes(table: Path) -> None:
    """`--json` is JSON: the exact name comes back from json.loads, and nothing raw is printed."""
    for command in (("status", "--json"), ("log", "--json"), ("replay", "--json")):
        result = fudge(*command, store=table)
        clean(result, command)
        assert result.returncode == 0, result.stderr
        assert "\\u001b[2J" in result.stdout
    status = json.loads(fudge("status", "--json", store=table).stdout)
    assert status["combatants"][0]["name"] == HOSTILE
    assert status["rules"] == "house" + HOSTILE
    log = json.loads(fudge("log", "--json", store=table).stdout)
    assert any(REASON in note for row in log for note in row.get("notes") or ())


def test_an_imported_log_with_hostile_names_is_shown_escaped(table: Path) -> None:
    """A JSONL log from elsewhere (the hostile fight's own export) imported and shown."""
    exported = fudge("export", "-o", str(table.parent / "duel.jsonl"), store=table)
    assert exported.returncode == 0, exported.stderr
    other = table.parent / "other.db"
    for command in (("import", str(table.parent / "duel.jsonl"), "--as", "copy"), ("status", "--fight", "copy"),
                    ("log", "copy"), ("replay", "copy"), ("fights",), ("export", "copy")):
        result = fudge(*command, store=other)
        assert result.returncode == 0, result.stderr
        clean(result, command)
    assert "\\x1b[2J" in fudge("status", "--fight", "copy", store=other).stdout


def test_house_rules_and_sims_with_hostile_names(table: Path) -> None:
    """A house file's option name (an error), and `fudge sim` / `fudge odds` on the hostile sheet."""
    folder = table.parent
    (folder / "bad-house.toml").write_text(f'extends = "fudge"\n{toml_string(OPTION)} = 1\n')
    evil, brynhild = str(folder / "evil.toml"), str(ROOT / "examples" / "sheets" / "brynhild.toml")
    for command in (("rules", "show", "fudge", "--house", "bad-house.toml"),
                    ("new", "bad", "--house", "bad-house.toml"),
                    ("sim", evil, brynhild, "-n", "20", "--seed", "1", "--house", "house.toml"),
                    ("odds", evil, brynhild)):
        result = fudge(*command, store=folder / "scratch.db")
        clean(result, command)
        if command[-1] == "bad-house.toml":
            assert result.returncode != 0 and "\\x1b]0;title\\x07age\\u2066" in result.stderr, result.stderr
        else:
            assert result.returncode == 0, result.stderr
            assert "\\x1b[2J" in result.stdout
            assert not any(line.startswith("Snorri is dead") for line in result.stdout.splitlines())


def test_safe_escapes_every_control_and_keeps_plain_text() -> None:
    assert terminal.safe("Snorri, Très Bon — ±3") == "Snorri, Très Bon — ±3"
    assert terminal.safe(HOSTILE) == ("Ev\\x1b[2Jil\\r\\nSnorri is dead\\x07\\x1b]0;pwned\\x07\\u202eX\\x85Y"
                                      "\\u2028Z")
    assert terminal.safe("a\nb\x1b", lines=True) == "a\nb\\x1b"
    assert terminal.safe(terminal.safe(HOSTILE)) == terminal.safe(HOSTILE)  # an escape is plain text
    assert json.loads(terminal.json_text(HOSTILE + "\x7f")) == HOSTILE + "\x7f"
    assert RAW.search(terminal.json_text(HOSTILE + "\x7f")) is None


def test_console_logs_escape_their_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """structlog's console renderer (stderr on a terminal) gets every string value escaped."""
    import io

    import structlog

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv("NO_COLOR", "1")
    context.configure_logging(1)
    try:
        context.log.info("command appended", fight=HOSTILE)
    finally:
        structlog.reset_defaults()
        context.log.threshold, context.log.setup = 0, None
    shown = err.getvalue()
    assert "\\x1b[2J" in shown and "\\r\\nSnorri is dead" in shown, shown
    assert not any(raw in shown for raw in ("\x1b[2J", "\r", "\x07", "\u202e", "\x85", "\u2028")), shown


def test_every_output_goes_through_the_escaping_echo() -> None:
    """The single way out: no command module echoes around `cli.context.echo`."""
    for path in sorted((ROOT / "cli").glob("*.py")):
        if path.name != "context.py":
            text = path.read_text()
            assert not re.search(r"\b(typer|click)\.(s?echo)\(|\bprint\(", text), path.name
