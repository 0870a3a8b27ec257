"""Read models: what a query shows of a fight at its last event, stored as it is written (CQRS).

A command's append transaction also stores, for each read model the service was given (the
command line gives it `fudge status`'s), that view of the state it ends at: plain JSON data,
keyed like a snapshot (`store.snapshots`) by the fight's last sequence number and hash, by the
version of the code that builds it, and under an HMAC keyed by this user's snapshot key. A
reader takes it only if all of that still matches; anything else (no view, an older event, other
code, another user's key, a store from before read models) means "compute it from the fight".
Reading one needs neither the event models nor the engine; reads never write it.

Like a snapshot, a stored view is untrusted: a row any column of which is not of its type, or
whose MAC or JSON does not check, is ignored with one warning (store.snapshots.ignored) and the
view is computed from the fight; the next command stores it again. Its body is at most `MAX_BODY`
characters, and JSON's decoder is bounded (its nesting by the recursion limit), so a view's
decoded size is at most a small multiple of that.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fudge_combat.store.snapshots import ignored

FORMAT = 1  # the stored shape below; a reader ignores views of another format


@dataclass(frozen=True, slots=True)
class View:
    """One stored view: `body` is its JSON data."""

    name: str
    seq: int
    hash: str
    version: str
    body: str
    mac: str


@dataclass(frozen=True)
class ReadModel:
    """A view to keep at every fight's last event: `build(state)` gives its JSON data, `version()`
    names the code that builds it (a view stored by other code is not read)."""

    name: str
    build: Callable[[Any], Any]
    version: Callable[[], str]
    # A view stored as several rows, of which an append writes those that changed: `pack(state, fight_id,
    # seq, last_hash, key, store, name, memo)` gives them (`store` and `name`: where the fight's rows are
    # read; `memo`: a dict the writer keeps for this model between appends).
    pack: Callable[[Any, str, int, str, bytes, Any, str, dict[str, Any]], tuple[View, ...]] | None = None


MAX_BODY = 16 << 20  # characters: far above the head or a part of the longest bench fight's status view


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


def _mac(key: bytes, fight_id: str, view: str, seq: int, last_hash: str, version: str, body: str) -> str:
    head = f"{FORMAT}|{fight_id}|{view}|{seq}|{last_hash}|{version}|".encode()
    return hmac.new(key, head + body.encode(), hashlib.sha256).hexdigest()


def pack(model: ReadModel, state: Any, fight_id: str, seq: int, last_hash: str, key: bytes) -> View:
    body = json.dumps(model.build(state), separators=(",", ":"), ensure_ascii=False)  # key order kept: it is shown
    return sealed(model.name, body, fight_id, seq, last_hash, model.version(), key)


def sealed(name: str, body: str, fight_id: str, seq: int, last_hash: str, version: str, key: bytes) -> View:
    """The row of view `name` holding `body` (JSON), at the fight's event `seq`."""
    return View(name, seq, last_hash, version, body, _mac(key, fight_id, name, seq, last_hash, version, body))


def unpack(view: View | None, fight_id: str, seq: int, last_hash: str, version: str, key: bytes,
           fight: str | None = None) -> Any | None:
    """The view's data, if it is of this fight at this very event, by this code, untouched. An older
    view or one of other code is simply not used; one that fails its MAC or its JSON is ignored with one
    warning (`fight`: the name it gives)."""
    if view is None or (view.seq, view.hash, view.version) != (seq, last_hash, version):
        return None
    expected = _mac(key, fight_id, view.name, seq, last_hash, version, view.body)
    if not (view.mac.isascii() and hmac.compare_digest(view.mac.encode(), expected.encode())):
        ignored("view", fight or fight_id, "its MAC does not check under this user's key (another user's "
                "store, or a row edited)")
        return None
    try:
        return json.loads(view.body)
    except (ValueError, RecursionError) as error:
        ignored("view", fight or fight_id, f"its body is not JSON ({type(error).__name__})")
        return None
