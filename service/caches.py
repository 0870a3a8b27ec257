"""The caches the service keeps beside the log: a snapshot of the state (store.snapshots) and the read
models (store.views), written in a command's append transaction and read back only when they match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from events import models as ev
from events.envelope import load_all
from projections.fold import fold
from engine.state import FightState
from store import snapshots, views
from store.base import EventStore
from store.bulk import paused_gc
from store.log import log
from store.views import ReadModel

VOIDING_TYPES = frozenset(kind.model_fields["type"].default for kind in ev.VOIDING)


def named(state: FightState, name: str) -> FightState:
    """The state under the fight's name in this store: an imported log's first event holds the name it
    had where it was exported (`fudge import --as` gives another); the GM sees the one they gave."""
    return state if not state.name or state.name == name else replace(state, name=name)


class Caches:
    """A store's snapshots and views of its fights, under this user's key (`EventStore.snapshot_key`):
    a store without a key keeps none, and every read folds the log."""

    def __init__(self, store: EventStore, read_models: Sequence[ReadModel] = ()) -> None:
        self.store = store
        self.read_models = tuple(read_models)  # views stored with every append (store.views)

    def state_at(self, name: str, seq: int, last_hash: str) -> tuple[FightState, int] | None:
        """(the state, the snapshot's seq) from the fight's snapshot and the events after it, if that is
        the same as a replay; None if not.

        Events after the snapshot are folded onto it unless one of them voids something: then
        the whole log is replayed (A-UNDO-2 may reach back before the snapshot).
        """
        if seq == 0:
            return None
        key = self.store.snapshot_key()
        snap = self.store.snapshot(name) if key is not None else None
        if key is None or snap is None or snap.seq > seq:
            return None
        rows = self.store.rows_from(name, snap.seq)
        if not rows or (rows[0].seq, rows[0].hash) != (snap.seq, snap.hash) or (rows[-1].seq, rows[-1].hash) != (
                seq, last_hash) or any(row.type in VOIDING_TYPES for row in rows[1:]):
            return None
        with paused_gc():
            state = snapshots.unpack(snap, self.store.fight(name).fight_id, snap.seq, snap.hash, key)
            if not isinstance(state, FightState):
                return None
            return fold(load_all(row.body for row in rows[1:]), state), snap.seq

    def of(self, name: str, state: FightState, seq: int, last_hash: str,
           fight_id: str | None = None, since: int | None = None) -> dict[str, Any]:
        """`snapshot=` and `views=` for the store's append, when the store keeps them.

        The read models (store.views) are stored at every append: each is a small view of the
        new last event. Pickling and writing a snapshot cost in proportion to the fight, so one
        is written every `max(32, seq // 64)` events (a read parses and folds at most that many
        after it: a few ms), and after every command that voids events (a read could not fold
        past it).
        """
        snapshot_due = since is None or seq - since >= max(32, seq // 64)
        if not (snapshot_due or self.read_models):
            return {}
        key = self.store.snapshot_key(create=True)
        if key is None:
            return {}  # no key (a store in memory, or nowhere to keep this user's): reads fold the log
        fight_id = fight_id or self.store.fight(name).fight_id
        state = named(state, name)  # an imported fight's views show the name it was imported as
        out: dict[str, Any] = {}
        if self.read_models:
            out["views"] = tuple(view for model in self.read_models
                                 if (view := _view(model, state, fight_id, seq, last_hash, key)))
        if snapshot_due:
            out["snapshot"] = snapshots.pack(state, fight_id, seq, last_hash, key)
        return out


def _view(model: ReadModel, state: FightState, fight_id: str, seq: int, last_hash: str, key: bytes) -> Any:
    """A read model's view of the new state; a view that cannot be built is not stored (the query then
    computes it from the fight, as for any stale view), and never fails the command that was decided."""
    try:
        return views.pack(model, state, fight_id, seq, last_hash, key)
    except Exception as error:  # noqa: BLE001 - a view is a cache: the log is what must be written
        log.warning("read model not stored", view=model.name, error=repr(error))
        return None
