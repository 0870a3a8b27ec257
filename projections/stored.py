"""A read model's stored rows: what a view of a fight at its last event is kept as, and the checks a row
read back must pass before anything in it is shown (a stored view is untrusted input).

A row holds plain JSON data, keyed like a snapshot by the fight's last sequence number and hash,
by the version of the code that builds it, and under an HMAC keyed by this user's snapshot key.
A reader takes it only if all of that still matches; anything else (no view, an older event, other
code, another user's key, a store from before read models) means "compute it from the fight".
Sealing and opening a row is pure: the store (store.views) reads and writes the rows, and says why
a row it read was not used.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from msgspec import Struct


FORMAT = 1  # the stored shape below; a reader ignores views of another format


class View(Struct, frozen=True):
    """One stored view: `body` is its JSON data."""

    name: str
    seq: int
    hash: str
    version: str
    body: str
    mac: str


def _mac(key: bytes, fight_id: str, view: str, seq: int, last_hash: str, version: str, body: str) -> str:
    head = f"{FORMAT}|{fight_id}|{view}|{seq}|{last_hash}|{version}|".encode()
    return hmac.new(key, head + body.encode(), hashlib.sha256).hexdigest()


def sealed(name: str, body: str, fight_id: str, seq: int, last_hash: str, version: str, key: bytes) -> View:
    """The row of view `name` holding `body` (JSON), at the fight's event `seq`."""
    return View(name, seq, last_hash, version, body, _mac(key, fight_id, name, seq, last_hash, version, body))


def opened(view: View | None, fight_id: str, seq: int, last_hash: str, version: str,
           key: bytes) -> tuple[Any | None, str]:
    """(the view's data, "") if it is of this fight at this very event, by this code, untouched. An older
    view or one of other code is simply not used: (None, ""); one that fails its MAC or its JSON gives
    (None, why), for the reader to warn of."""
    if view is None or (view.seq, view.hash, view.version) != (seq, last_hash, version):
        return None, ""
    expected = _mac(key, fight_id, view.name, seq, last_hash, version, view.body)
    if not (view.mac.isascii() and hmac.compare_digest(view.mac.encode(), expected.encode())):
        return None, "its MAC does not check under this user's key (another user's store, or a row edited)"
    try:
        return json.loads(view.body), ""
    except (ValueError, RecursionError) as error:
        return None, f"its body is not JSON ({type(error).__name__})"
