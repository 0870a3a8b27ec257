"""The reads the service makes of a fight's log, through the store's shortcuts where it offers them.

A backend must only append and read its log to an event or from one (store.base.EventStore); it may
also answer a few reads in one query over an index (store.base.ReadShortcuts). Which it offers is
checked once, when the service is made; each read here then asks the shortcut, or reads the narrow
way and filters: the same rows either way (tests/test_narrow_store.py plays a whole fight both ways).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fudge_combat.events.records import load
from fudge_combat.events.rows import Row
from fudge_combat.store.base import EventStore, ReadShortcuts

PAGE = 1024  # rows a replay from scratch holds at a time (a page of the log's text, not the whole log's)


class LogReads:
    """A store's log, as the service reads it."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        # None: a backend with the narrow reads alone (each read below then filters `read` or `rows_from`).
        self.shortcuts: ReadShortcuts | None = store if isinstance(store, ReadShortcuts) else None

    def bodies(self, name: str, upto: int | None = None) -> list[str]:
        """The bodies of the rows to `upto`, in order."""
        if self.shortcuts is not None:
            return self.shortcuts.bodies(name, upto)
        return [row.body for row in self.store.read(name, upto)]

    def pages(self, name: str, upto: int, page: int = PAGE) -> Iterator[list[tuple[int, str]]]:
        """The log's rows to `upto`, (seq, body), a page at a time (a replay holds one page)."""
        if self.shortcuts is None:
            rows = [(row.seq, row.body) for row in self.store.read(name, upto)]
            yield from (rows[start:start + page] for start in range(0, len(rows), page))
            return
        seq = 1
        while seq <= upto:
            found = self.shortcuts.bodies_page(name, seq, page, upto)
            yield found
            if len(found) < page:
                return
            seq = found[-1][0] + 1

    def back(self, name: str, seq: int) -> Iterator[Row]:
        """The log's rows from `seq` back, newest first, in pages growing fourfold: a few rows when the
        wanted one is recent, a few queries when it is far back."""
        if self.shortcuts is None:
            yield from reversed(self.store.read(name, seq))
            return
        size = 64
        while seq > 0:
            page = self.shortcuts.rows_back(name, seq, size)
            yield from page
            if len(page) < size:
                return
            seq, size = page[-1].seq - 1, size * 4

    def event_reader(self, name: str) -> Callable[[int], Any]:
        """How a state reads an action's event it left in the log (engine.pmap.EventMap): the row of that
        seq, parsed. The log is append-only, so the event at a seq never changes."""

        def read(seq: int) -> Any:
            rows = (self.shortcuts.rows_back(name, seq, 1) if self.shortcuts is not None
                    else self.store.read(name, seq)[-1:])
            if not rows or rows[0].seq != seq:
                raise LookupError(f"{name} has no event {seq}")
            return load(rows[0].body).event

        return read

    def of_types(self, name: str, types: Iterable[str], upto: int | None = None) -> list[Row]:
        """The rows of these event types to `upto`, in order (the few voiding events a replay reads first)."""
        if self.shortcuts is not None:
            return self.shortcuts.rows_of_types(name, types, upto)
        kinds = set(types)
        return [row for row in self.store.read(name, upto) if row.type in kinds]

    def command_seqs(self, name: str, command: str, upto: int | None = None) -> list[int]:
        """The seqs of one command's events, to `upto`."""
        if self.shortcuts is not None:
            return self.shortcuts.command_seqs(name, command, upto)
        return [row.seq for row in self.store.read(name, upto) if row.command == command]

    def command_rows(self, name: str, command: str) -> list[Row]:
        """One command's rows, in order: a few rows, not the whole log, where the store has the shortcuts
        (its events are contiguous: the rows back from its last)."""
        if self.shortcuts is None:
            return [row for row in self.store.read(name) if row.command == command]
        seqs = self.shortcuts.command_seqs(name, command)
        if not seqs:
            return []
        return [row for row in reversed(self.shortcuts.rows_back(name, max(seqs), len(seqs))) if row.command == command]

    def has_command(self, name: str, command: str) -> bool:
        """Whether a command of this id was appended to the fight (a command sent again is not applied twice)."""
        if self.shortcuts is not None:
            return self.shortcuts.has_command(name, command)
        return any(row.command == command for row in self.store.read(name))

    def last_seq(self, name: str) -> int:
        if self.shortcuts is not None:
            return self.shortcuts.last_seq(name)
        return self.store.tail(name)[0]
