"""The rows the board's read model (`fudge status`'s stored view) is kept in, and how rows read back are
checked and assembled: what the writer (projections.board_view) and the reader (store.views, for
cli.views) agree on.

A head row (`STATUS_NAME`: the lines before and after the combatants, and each page of the list of
parts by name and digest), a row per page (`PAGE` + its number: `PAGE_SIZE` combatants' parts by key
and digest, in join order) and a row per combatant (`PART` + his key). The head's MAC
(projections.stored) pins every page's digest and each page every part's; `verified` checks them and
the shape of what they make. No engine is imported here: the reader assembles a stored view before
Typer, the engine or an event model is loaded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from fudge_combat.projections.stored import View

STATUS_NAME = "status"  # the head row, and the read model's name
PART = "status/"  # a combatant's part of the stored view: PART + his key
PAGE = "status-pages/"  # a page of the head's list of parts: PAGE + its number (from 0)
PAGE_SIZE = 64  # parts a page lists: an append rewrites one page, not the whole list
# The code the view is derived from: a view stored by other code is not read (store.views.board_version).
SOURCES = ("engine", "events", "projections")


def digest(body: str) -> str:
    """What the head pins a part's row by."""
    return hashlib.blake2b(body.encode(), digest_size=16).hexdigest()


def assemble(head: dict[str, Any], parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole view (what `projections.board_view.build` gives) from its head and its combatants' parts in
    join order: the text's lines, the JSON's keys with "combatants" among them, the board's header, its
    order (indexes in join order of those acting first, then join order) and footer."""
    text = "\n".join([*head["text"], *(line for part in parts for line in part["text"])])
    data = dict(head["json"])
    data["combatants"] = [part["json"] for part in parts]
    first = head["first"]
    rest = set(first)
    lines = [[list(segment) for segment in head["board"]]]
    for index in [*first, *(index for index in range(len(parts)) if index not in rest)]:
        lines += parts[index]["board"]
    lines += [[list(segment) for segment in line] for line in head["footer"]]
    return {"text": text, "json": data, "board": lines,
            "traits": {part["json"]["name"]: part["traits"] for part in parts}}


def verified(head: Any, pages: Mapping[str, View], parts: Mapping[str, View],
             version: str) -> tuple[dict[str, Any] | None, str]:
    """The whole view from its head (its MAC checked), the pages it pins by digest and the parts they pin
    by digest, of the shape a reader shows; (None, why) if one is missing, other or not of that shape."""
    try:
        bodies = pinned_rows(head.get("pages") if isinstance(head, dict) else None, pages, PAGE, version)
        if bodies is None:
            return None, "a page of its list of parts is missing or other than its head pins"
        listed = [entry for page in json.loads(f"[{','.join(bodies)}]") for entry in page]
        bodies = pinned_rows(listed, parts, PART, version)
        if bodies is None:
            return None, "a combatant's part is missing or other than its page pins"
        found = json.loads(f"[{','.join(bodies)}]")  # one parse: each body is one JSON value (its digest checked)
        if len(found) != len(bodies):
            return None, "a combatant's part is not one JSON value"
        data = assemble(head, found)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError) as error:
        return None, f"its rows do not make a status view ({type(error).__name__})"
    if not (isinstance(data.get("text"), str) and isinstance(data.get("json"), dict)
            and _is_board(data.get("board")) and _is_traits(data.get("traits"))):
        return None, "it is not of a status view's shape"
    return data, ""


def pinned_rows(listed: Any, rows: Mapping[str, View], prefix: str, version: str) -> list[str] | None:
    """The bodies of the rows `listed` names by [name after `prefix`, digest], each checked against its
    digest and the code that wrote it; None if one is missing or other."""
    if not isinstance(listed, list):
        return None
    bodies = []
    for entry in listed:
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
            return None
        row = rows.get(prefix + entry[0])
        if row is None or row.version != version or digest(row.body) != entry[1]:
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
