"""Read models kept beside the log: the rows of a view of a fight at its last event, written in a
command's append transaction by a store that declares it can (`ViewStore`), and read back as
untrusted input.

What a view holds, how it is derived from the state and how its rows are sealed and checked is the
projection's (projections.board_view, projections.board_rows, projections.stored); this module runs
it against a store. The service (service.caches) asks once whether its store is a `ViewStore` and,
if it is and keeps caches under this user's key, stores the board's rows with every append
(`board_rows`); `fudge status`, the shell's completion and `fudge play` read them (`stored_board`)
without the event models, the engine or a fold. A store that is not a `ViewStore` keeps no views:
every read computes the board from the fight.

Like a snapshot, a stored view is untrusted: a row any column of which is not of its type, or
whose MAC or JSON does not check, is ignored with one warning (store.snapshots.ignored) and the
view is computed from the fight; the next command stores it again. Its body is at most `MAX_BODY`
characters, and JSON's decoder is bounded (its nesting by the recursion limit), so a view's
decoded size is at most a small multiple of that. Reads never write a view.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fudge_combat.projections import board_rows
from fudge_combat.projections.stored import FORMAT as FORMAT, View as View, opened, sealed as sealed
from fudge_combat.store.snapshots import QUIET, ignored, pydantic_version, source_digest

if TYPE_CHECKING:
    from fudge_combat.events.rows import Row
    from fudge_combat.store.base import EventStore, FightInfo
    from fudge_combat.store.snapshots import Snapshot

MAX_BODY = 16 << 20  # characters: far above the head or a part of the longest bench fight's status view


@runtime_checkable
class ViewStore(Protocol):
    """What a store offers to keep read models: its append also writes `views` in the same transaction
    (each replacing the fight's row of that name), and the fight's rows read back. A store without
    these keeps no views (tests/test_store_contract.py runs one)."""

    def append(self, name: str, expected_last_seq: int, rows: list[Row], *, create: FightInfo | None = None,
               snapshot: Snapshot | None = None, views: tuple[View, ...] = ()) -> None: ...
    def view(self, name: str, view: str) -> View | None: ...  # the fight's row of that name, as last stored
    def views_under(self, name: str, prefix: str) -> dict[str, View]: ...  # the fight's rows named prefix...


def from_row(name: Any, row: Any, fight: str) -> View | None:
    """A stored row (seq, hash, version, body, mac) of view `name` as a `View`, or None when a column is
    not of its type (text where a number belongs, an oversized body). Its MAC is checked by `unpack`."""
    seq, last_hash, version, body, mac = row
    if not (type(name) is str and type(seq) is int and type(last_hash) is str and type(version) is str
            and type(body) is str and type(mac) is str):
        ignored("view", fight, "a column is not of its type")
        return None
    if len(body) > MAX_BODY:
        ignored("view", fight, f"its body is over {MAX_BODY} characters")
        return None
    return View(name, seq, last_hash, version, body, mac)


def unpack(view: View | None, fight_id: str, seq: int, last_hash: str, version: str, key: bytes,
           fight: str | None = None) -> Any | None:
    """The view's data, if it is of this fight at this very event, by this code, untouched. An older
    view or one of other code is simply not used; one that fails its MAC or its JSON is ignored with one
    warning (`fight`: the name it gives)."""
    data, why = opened(view, fight_id, seq, last_hash, version, key)
    if why:
        ignored("view", fight or fight_id, why)
    return data


_VERSION: list[str] = []


def board_version() -> str:
    """The code that builds the board's view (projections.board_rows.SOURCES, the view's format, Python,
    and pydantic's version read from its version file, unimported)."""
    if not _VERSION:
        _VERSION.append(source_digest(board_rows.SOURCES, f"{FORMAT}|{sys.version}|{pydantic_version()}"))
    return _VERSION[0]


def stored_board(store: EventStore, fight: str | None,
                 quiet: bool = False) -> tuple[dict[str, Any], int, str, str] | None:
    """(the board's view, the seq and hash of the event it is at, the fight's name) if the store keeps
    views and holds a valid one at the fight's last event (`fight`; None: the current one); None:
    compute it from the fight. A view of an older event or of other code is not used; one whose rows
    do not check or do not make a view is ignored with one warning (`quiet`: none, for a reader that
    must print nothing, as the shell's completion)."""
    from fudge_combat.store.base import StoreError

    if not isinstance(store, ViewStore):
        return None
    token = QUIET.set(True) if quiet else None
    try:
        name = fight or store.setting("current")
        key = store.snapshot_key()
        if not name or key is None:
            return None
        fight_id = store.fight(name).fight_id
        seq, last_hash = store.tail(name)
        version = board_version()
        head = unpack(store.view(name, board_rows.STATUS_NAME), fight_id, seq, last_hash, version, key, fight=name)
        if head is None:
            return None
        data, why = board_rows.verified(head, store.views_under(name, board_rows.PAGE),
                                        store.views_under(name, board_rows.PART), version)
        if data is None:
            ignored("view", name, why)
            return None
        return data, seq, last_hash, name
    except (StoreError, UnicodeError):  # UnicodeError: a name typed in bytes that are not UTF-8 (computed: one line)
        return None
    finally:
        if token is not None:
            QUIET.reset(token)


def board_views(store: ViewStore, name: str, state: Any, fight_id: str, seq: int, last_hash: str, key: bytes,
                memo: dict[str, Any], previous: tuple[Any, int, str] | None = None) -> tuple[View, ...]:
    """The board's rows to store with the append that ends the fight at `state`
    (projections.board_view.rows), reading what the store holds of them (nothing, for a fight this
    append creates); `previous`: the state the command decided from, its seq and hash, whose stored
    parts a process that keeps none starts from."""
    from fudge_combat.projections import board_view
    from fudge_combat.store.base import StoreError

    def head_held() -> View | None:
        try:
            return store.view(name, board_rows.STATUS_NAME)
        except StoreError:
            return None

    def held(prefix: str) -> dict[str, View]:
        try:
            return store.views_under(name, prefix)
        except StoreError:
            return {}

    return board_view.rows(state, fight_id, seq, last_hash, key, board_version(), memo, head_held, held, previous)
