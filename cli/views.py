"""`fudge status` as a read model (store.views): stored by every command, shown without loading the fight.

The view is exactly what `fudge status` prints: its board (cli.board, at 80 columns), its `--long`
text and its `--json` data, built by `cli.render` from the state a command ends at. Showing it needs no event model, no engine and
no fold, so `fudge status` on a long fight takes about as long as `import pydantic, typer`. It is keyed by
the fight's last event and by a digest of the code that builds it (the engine, events,
projections and command-line sources, Python and pydantic): whatever does not match is
computed from the fight as before. The service keeps it as cli.status_model.STATUS.

It is built and stored one combatant at a time (cli.status_view), in the rows of cli.status_rows: a head row (`status`: the lines
before and after the combatants, and each page of the list of parts by name and digest), a row
per page (`status-pages/<n>`: `PAGE_SIZE` combatants' parts by key and digest, in join order) and
a row per combatant (`status/<key>`), so that an append on a long fight renders and writes only
the combatants it changed, their pages and a head whose size grows with the roster by one entry
per page. Read back, the pages are checked against the digests the head's MAC covers, the parts
against the digests the pages list, and assembled into the same data (`cli.status_rows.assemble`).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from typing import Any

from fudge_combat.cli import style
from fudge_combat.cli.context import configure_logging, store_at, store_path
from fudge_combat.cli.status_model import STATUS, version
from fudge_combat.cli.status_rows import PAGE, PART, assemble, digest
from fudge_combat.cli.terminal import json_text
from fudge_combat.events.receipt import receipt
from fudge_combat.store import snapshots, views
from fudge_combat.store.base import StoreError
from fudge_combat.store.sqlite import SqliteStore
from fudge_combat.store.views import View

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


def traits(state: Any) -> dict[str, list[str]]:
    """Each combatant in join order, with the traits a roll may name (the sheet's, and the ruleset's
    attributes): what the shell completes (cli.completion), kept in the view so a <TAB> loads no engine.
    Sorted: a sheet read from its file and the same sheet read back from the log list them in other orders."""
    from fudge_combat.cli.status_view import trait_names

    return {who.name: trait_names(state, who) for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq)}


def show(shown: Shown) -> None:
    """Print what `fudge status` shows: the board's styled lines, or the text (escaped line by line when
    it was built)."""
    from fudge_combat.cli.context import echo, echo_segments

    if shown.lines is not None:
        echo_segments(shown.lines)
    else:
        echo(shown.text, lines=True, styled=shown.styled)


def stored_status(store: SqliteStore, fight: str | None) -> dict[str, Any] | None:
    """The status view at the fight's last event, if the store holds a valid one (None: compute it). Quiet:
    the shell's completion reads it, and a warning would land in the middle of the line being typed."""
    token = snapshots.QUIET.set(True)
    try:
        found = _stored(store, fight)
    finally:
        snapshots.QUIET.reset(token)
    return found[0] if found is not None else None


def stored_output(store: SqliteStore, fight: str | None, as_json: bool, long: bool = False,
                  width: int = BOARD_WIDTH) -> Shown | None:
    """What `fudge status [--json | --long]` prints, from the stored view (None: compute it): the board
    or the text with the receipt of the event the view is at. A board narrower than the stored one
    is computed."""
    if not (as_json or long) and width != BOARD_WIDTH:
        return None
    found = _stored(store, fight)
    if found is None:
        return None
    data, seq, last_hash, name = found
    if as_json:
        try:
            return Shown(json_text(data["json"], indent=2), styled=False)
        except (RecursionError, ValueError, TypeError) as error:  # valid JSON nested deeper than it can be written
            snapshots.ignored("view", name, f"its JSON cannot be written ({type(error).__name__})")
            return None
    if long:
        return Shown(with_receipt(data["text"], seq, last_hash))
    return board_shown([[(text, kind) for text, kind in line] for line in data["board"]], seq, last_hash)


def _stored(store: SqliteStore, fight: str | None) -> tuple[dict[str, Any], int, str, str] | None:
    """The view at the fight's last event: its head under its MAC, the pages and parts it pins, each of
    the shape `assemble` reads. A view of an older event or of other code is not used; one whose rows do
    not check or do not make a view is ignored with one warning (store.snapshots.ignored)."""
    try:
        name = fight or store.setting("current")
        key = store.snapshot_key()
        if not name or key is None:
            return None
        fight_id = store.fight(name).fight_id
        seq, last_hash = store.tail(name)
        head = views.unpack(store.view(name, STATUS.name), fight_id, seq, last_hash, version(), key, fight=name)
        if head is None:
            return None
        data, why = _with_parts(store, name, head)
    except (StoreError, UnicodeError):  # UnicodeError: a name typed in bytes that are not UTF-8 (computed: one line)
        return None
    if data is not None and not (isinstance(data.get("text"), str) and isinstance(data.get("json"), dict)
                                 and _is_board(data.get("board")) and _is_traits(data.get("traits"))):
        data, why = None, "it is not of a status view's shape"
    if data is None:
        snapshots.ignored("view", name, why)
        return None
    return data, seq, last_hash, name


def _with_parts(store: SqliteStore, name: str, head: Any) -> tuple[dict[str, Any] | None, str]:
    """The whole view from its head, the pages it pins by digest and the parts they pin by digest; (None,
    why) if one is missing or other."""
    try:
        pages = _pinned(head.get("pages") if isinstance(head, dict) else None, store.views_under(name, PAGE), PAGE)
        if pages is None:
            return None, "a page of its list of parts is missing or other than its head pins"
        listed = [entry for page in json.loads(f"[{','.join(pages)}]") for entry in page]
        bodies = _pinned(listed, store.views_under(name, PART), PART)
        if bodies is None:
            return None, "a combatant's part is missing or other than its page pins"
        parts = json.loads(f"[{','.join(bodies)}]")  # one parse: each body is one JSON value (its digest checked)
        if len(parts) != len(bodies):
            return None, "a combatant's part is not one JSON value"
        return assemble(head, parts), ""
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError) as error:
        return None, f"its rows do not make a status view ({type(error).__name__})"


def _pinned(listed: Any, rows: dict[str, View], prefix: str) -> list[str] | None:
    """The bodies of the rows `listed` names by [name after `prefix`, digest], each checked against its
    digest and the code that wrote it; None if one is missing or other."""
    if not isinstance(listed, list):
        return None
    bodies = []
    code = version()
    for entry in listed:
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
            return None
        row = rows.get(prefix + entry[0])
        if row is None or row.version != code or digest(row.body) != entry[1]:
            return None
        bodies.append(row.body)
    return bodies


def _is_board(lines: Any) -> bool:
    return isinstance(lines, list) and all(
        isinstance(line, list) and all(isinstance(part, list) and len(part) == 2
                                       and all(isinstance(x, str) for x in part) for part in line)
        for line in lines)


def _is_traits(traits: Any) -> bool:
    """Each combatant's traits, as the shell's completion reads them (cli.completion)."""
    return isinstance(traits, dict) and all(
        isinstance(names, list) and all(isinstance(x, str) for x in names) for names in traits.values())


def with_receipt(text: str, seq: int, last_hash: str) -> str:
    """The status text and the receipt of the log's head it shows (events.receipt): the line a table
    copies at the end of a session, for `fudge verify --head` to check later."""
    return f"{text}\nreceipt {receipt(seq, last_hash)}" if seq else text


def status_from_argv(argv: list[str]) -> str | None:
    """The plain text `shown_from_argv` answers with (what a pipe receives), or None."""
    shown = shown_from_argv(argv)
    return shown.text if shown is not None else None


def shown_from_argv(argv: list[str]) -> Shown | None:
    """`fudge [--store FILE] status [--fight NAME] [--json] [--long]` answered from the stored view, before
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
        if token in ("--json", "--long") and command and token[2:] not in given:
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
                                 board_width(sys.stdout))
        finally:
            store.close()
    except (StoreError, sqlite3.Error):
        return None
