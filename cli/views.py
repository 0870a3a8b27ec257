"""`fudge status` from the board's read model, without loading the fight.

The read model (projections.board_view) is exactly what `fudge status` prints: its board at 80 columns,
its `--long` text and its `--json` data, and the traits the shell completes. The service stores it
with every command where the store keeps views (store.views), keyed by the fight's last event and by
a digest of the code that derives it; `store.views.stored_board` reads it back and checks it as the
untrusted input it is. Showing it needs no event model, no engine and no fold, so `fudge status` on a
long fight takes about as long as `import pydantic, typer`. Whatever does not match is computed from
the fight as before. This module only prints it.
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Any

from fudge_combat.cli import style
from fudge_combat.cli.context import configure_logging, store_at, store_path
from fudge_combat.cli.terminal import json_text
from fudge_combat.events.receipt import receipt
from fudge_combat.store import snapshots
from fudge_combat.store.base import StoreError
from fudge_combat.store.views import stored_board

BOARD_WIDTH = 80  # the board the view keeps; a narrower terminal's is computed from the fight


class Shown:
    """What `fudge status` prints: plain text, and the board's styled lines when it is the board."""

    def __init__(self, text: str, lines: list[style.Line] | None = None, styled: bool = True) -> None:
        self.text, self.lines, self.styled = text, lines, styled  # styled=False: JSON, never coloured


def board_width(stream: Any) -> int:
    """The board's width on `stream`: its columns, at most 80 (the board's own width)."""
    return min(BOARD_WIDTH, style.width(stream))


def board_shown(lines: list[style.Line], seq: int, last_hash: str) -> Shown:
    """The board with the receipt of the event it shows (as `with_receipt` adds it to the text)."""
    lines = [*lines, [(f"receipt {receipt(seq, last_hash)}", "dim")]] if seq else list(lines)
    return Shown(style.plain(lines), lines)


def show(shown: Shown) -> None:
    """Print what `fudge status` shows: the board's styled lines, or the text (escaped line by line when
    it was built)."""
    from fudge_combat.cli.context import echo, echo_segments

    if shown.lines is not None:
        echo_segments(shown.lines)
    else:
        echo(shown.text, lines=True, styled=shown.styled)


def stored_status(store: Any, fight: str | None) -> dict[str, Any] | None:
    """The status view at the fight's last event, if the store holds a valid one (None: compute it). Quiet:
    the shell's completion reads it, and a warning would land in the middle of the line being typed."""
    found = stored_board(store, fight, quiet=True)
    return found[0] if found is not None else None


def stored_output(store: Any, fight: str | None, as_json: bool, long: bool = False,
                  width: int = BOARD_WIDTH, with_head: bool = False) -> Shown | None:
    """What `fudge status [--json | --long] [--receipt]` prints, from the stored view (None: compute it): the
    board or the text, with the receipt of the event the view is at if asked (`with_head`). A board narrower
    than the stored one is computed."""
    if not (as_json or long) and width != BOARD_WIDTH:
        return None
    found = stored_board(store, fight)
    if found is None:
        return None
    data, seq, last_hash, name = found
    if not with_head:
        seq, last_hash = 0, ""  # no receipt line
    if as_json:
        try:
            return Shown(json_text(data["json"], indent=2), styled=False)
        except (RecursionError, ValueError, TypeError) as error:  # valid JSON nested deeper than it can be written
            snapshots.ignored("view", name, f"its JSON cannot be written ({type(error).__name__})")
            return None
    if long:
        return Shown(with_receipt(data["text"], seq, last_hash))
    return board_shown([[(text, kind) for text, kind in line] for line in data["board"]], seq, last_hash)


def with_receipt(text: str, seq: int, last_hash: str) -> str:
    """The status text and the receipt of the log's head it shows (events.receipt): the line a table
    copies at the end of a session, for `fudge verify --head` to check later."""
    return f"{text}\nreceipt {receipt(seq, last_hash)}" if seq else text


def status_from_argv(argv: list[str]) -> str | None:
    """The plain text `shown_from_argv` answers with (what a pipe receives), or None."""
    shown = shown_from_argv(argv)
    return shown.text if shown is not None else None


def shown_from_argv(argv: list[str]) -> Shown | None:
    """`fudge [--store FILE] status [--fight NAME] [--json] [--long] [--receipt]` answered from the stored view, before
    Typer runs.

    Typer coerces options through pydantic TypeAdapters, which load pydantic's model machinery:
    about as long as starting Python, importing typer and reading the view together. Only that
    plain form of the command is read here; anything else (`--as-of`, `-v`, `--help`, a repeated
    or unknown option, no valid view) returns None and Typer runs the command as usual.
    """
    options = {"--store": "store", "--fight": "fight", "-f": "fight"}  # --store before the command, the rest after
    given: dict[str, str] = {}
    command = False
    rest = list(argv)
    while rest:
        token = rest.pop(0)
        if token == "status" and not command:
            command = True
            continue
        if token in ("--json", "--long", "--receipt") and command and token[2:] not in given:
            given[token[2:]] = ""
            continue
        option, equals, value = token.partition("=") if token.startswith("--") else (token, "", "")
        name = options.get(option)
        if name is None or name in given or (name == "store") == command:
            return None
        if not equals:
            value = rest.pop(0) if rest else ""
        if not value or value.startswith("-"):
            return None
        given[name] = value
    if not command:
        return None
    configure_logging(0)  # a stored view not used says so on stderr (store.snapshots.ignored), as Typer's run would
    try:
        store = store_at(store_path(given.get("store")))
        try:
            return stored_output(store, given.get("fight"), "json" in given, "long" in given,
                                 board_width(sys.stdout), "receipt" in given)
        finally:
            store.close()
    except (StoreError, sqlite3.Error):
        return None
