"""The rows `fudge status`'s stored view is kept in (cli.views): what the writer (cli.status_view) and
the reader (cli.views) agree on, importing neither.

A head row (`STATUS_NAME`: the lines before and after the combatants, and each page of the list of
parts by name and digest), a row per page (`PAGE` + its number: `PAGE_SIZE` combatants' parts by key
and digest, in join order) and a row per combatant (`PART` + his key). No engine is imported here:
the reader assembles a stored view before Typer, the engine or an event model is loaded.
"""

from __future__ import annotations

import hashlib
from typing import Any

STATUS_NAME = "status"  # the head row, and the read model's name (cli.status_model.STATUS)
PART = "status/"  # a combatant's part of the stored view: PART + his key
PAGE = "status-pages/"  # a page of the head's list of parts: PAGE + its number (from 0)
PAGE_SIZE = 64  # parts a page lists: an append rewrites one page, not the whole list


def digest(body: str) -> str:
    """What the head pins a part's row by."""
    return hashlib.blake2b(body.encode(), digest_size=16).hexdigest()


def assemble(head: dict[str, Any], parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole view (what `cli.status_model.build` gives) from its head and its combatants' parts in
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
