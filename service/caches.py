"""The caches the service keeps beside the log: a snapshot of the state (store.snapshots) and the board's
read model (store.views, where the store offers it), written in a command's append transaction and read
back only when they match."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

from msgspec import Struct
from msgspec.structs import replace

from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.rewind import UNKNOWN, History, apply
from fudge_combat.events.records import Recorded, load_all
from fudge_combat.projections.fold import fold
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.store import snapshots, views
from fudge_combat.events.rows import Row
from fudge_combat.store.base import EventStore, FightInfo, StoreError
from fudge_combat.store.snapshots import Snapshot
from fudge_combat.store.bulk import paused_gc
from fudge_combat.store.log import log
from fudge_combat.store.views import View, ViewStore
from fudge_combat.service.reads import LogReads
from fudge_combat.service.step import by_command, following, refolded

VOIDING_TYPES = frozenset(kind.type for kind in ev.VOIDING)


def named(state: FightState, name: str) -> FightState:
    """The state under the fight's name in this store: an imported log's first event holds the name it
    had where it was exported (`fudge import --as` gives another); the GM sees the one they gave."""
    return state if not state.name or state.name == name else replace(state, name=name)


class FromSnapshot(NamedTuple):
    """A state read from the fight's snapshot, with the events after it folded on (`Caches.state_at`)."""

    state: FightState
    done: History  # its undo history (engine.kernel.rewind), kept in the snapshot too
    snapshot_seq: int  # the event the snapshot is at


class Kept(Struct, frozen=True):
    """The caches an append writes in its transaction (`Caches.of`): none, a view, a snapshot or both."""

    snapshot: Snapshot | None = None
    views: tuple[View, ...] = ()


class Caches:
    """A store's snapshots and views of its fights, under this user's key (`EventStore.snapshot_key`):
    a store without a key keeps none, and every read folds the log."""

    def __init__(self, store: EventStore, reads: LogReads, views: bool = True) -> None:
        self.store = store
        self.reads = reads
        # The board's read model is stored with every append where the store can keep it (asked once);
        # `views=False` keeps none, as a store without the ability (a differential run, a server that reads).
        self.views: ViewStore | None = store if views and isinstance(store, ViewStore) else None
        self.memo: dict[str, Any] = {}  # what this service last stored of each fight's view (board_view.rows)
        self.doubted: dict[str, str] = {}  # fight -> why its snapshot could not be caught up (`replayed`)

    def append(self, name: str, expected_last_seq: int, rows: list[Row], kept: Kept, *,
               create: FightInfo | None = None) -> None:
        """The store's append, with the caches `of` made for it in the same transaction: the views only to a
        store that keeps them (`ViewStore`), asked once."""
        if self.views is not None:
            self.views.append(name, expected_last_seq, rows, create=create, snapshot=kept.snapshot, views=kept.views)
        else:
            self.store.append(name, expected_last_seq, rows, create=create, snapshot=kept.snapshot)

    def state_at(self, name: str, seq: int, last_hash: str) -> FromSnapshot | None:
        """The state and its undo history from the fight's snapshot and the events after it, if that is
        the same as a replay; None if not.

        The commands after the snapshot are folded onto it as they were when appended
        (`catch_up`): undos and redos answered from the history it carries (engine.kernel.rewind), a fudge
        point's void folded again from it (service.step.refolded). Where the history does not
        reach (A-UNDO-2 may reach back before it), None: the whole log is replayed.
        """
        if seq == 0:
            return None
        key = self.store.snapshot_key()
        snap = self.store.snapshot(name) if key is not None else None
        if key is None or snap is None or snap.seq > seq:
            return None
        rows = self.store.rows_from(name, snap.seq)
        if not rows or (rows[0].seq, rows[0].hash) != (snap.seq, snap.hash) or (rows[-1].seq, rows[-1].hash) != (
                seq, last_hash):
            return None
        with paused_gc():
            found = snapshots.unpack(snap, self.store.fight(name).fight_id, snap.seq, snap.hash, key, fight=name)
            if found is None:
                return None
            try:
                return self._caught_up(name, found, snap, rows, seq)
            except StoreError:
                raise  # the store, not the snapshot: the command says so
            except Exception as error:  # noqa: BLE001 - a snapshot is a cache: any failure means "replay"
                # Its types and bounds were checked as it was decoded (store.schema); what folding the
                # commands after it still meets (a forged state whose values contradict each other) is
                # met here, before any command decides on it: the log is replayed instead. Which one was
                # at fault, the snapshot or the log, the replay tells: the warning waits for it (`replayed`).
                self.doubted[name] = f"the events after it do not fold onto it ({type(error).__name__}: {error})"
                return None

    def replayed(self, name: str) -> None:
        """The fight's log was folded without fault where its snapshot's catching up failed: the snapshot
        was at fault, and is reported as any other not used (a log at fault is reported by the replay)."""
        reason = self.doubted.pop(name, None)
        if reason is not None:
            snapshots.ignored("snapshot", name, reason[:300])

    def _caught_up(self, name: str, found: tuple[FightState, History], snap: Snapshot, rows: Sequence[Any],
                   seq: int) -> FromSnapshot | None:
        """The snapshot's state and history with the commands after it folded on (`state_at`)."""
        state, done = found  # as store.snapshots.unpack gives them
        state.events.read_from(self.reads.event_reader(name))
        after = load_all(row.body for row in rows[1:])

        def since(seq: int, upto: int) -> list[Recorded]:
            if seq > snap.seq:
                return [record for record in after if seq <= record.seq < upto]
            return load_all(row.body for row in self.store.rows_from(name, seq) if row.seq < upto)

        for records in by_command(after):
            caught = catch_up(state, done, records, partial(since, upto=records[0].seq))
            if caught is None:
                return None
            state, done = caught
        return FromSnapshot(state, done, snap.seq)

    def of(self, name: str, state: FightState, seq: int, last_hash: str,
           fight_id: str | None = None, since: int | None = None, done: History = UNKNOWN,
           previous: tuple[FightState, int, str] | None = None) -> Kept:
        """The snapshot and views for the store's append, when the store keeps them.

        The board's read model (store.views) is stored at every append: a small view of the new
        last event, of which an append writes the rows it changed. Encoding and writing a snapshot
        cost in proportion to the fight, so one is written every `max(32, seq // 64)` events (a read
        parses and folds at most that many after it: a few ms), and after every command that voids
        events (a read could not fold past it).
        """
        snapshot_due = since is None or seq - since >= max(32, seq // 64)
        if not snapshot_due and self.views is None:
            return Kept()
        key = self.store.snapshot_key(create=True)
        if key is None:
            return Kept()  # no key (a store in memory, or nowhere to keep this user's): reads fold the log
        fight_id = fight_id or self.store.fight(name).fight_id
        state = named(state, name)  # an imported fight's views show the name it was imported as
        kept_views: tuple[View, ...] = ()
        if self.views is not None:
            kept_views = _board(self.views, name, state, fight_id, seq, last_hash, key, self.memo, previous)
        snapshot = None
        if snapshot_due:
            try:
                snapshot = snapshots.pack((state, done), fight_id, seq, last_hash, key)
            except Exception as error:  # noqa: BLE001 - a value the schema has no type for (a defect)
                # A snapshot is a cache: the command's events are what must be written; the next read folds
                # the log, and the warning names the defect.
                log.warning("snapshot not stored", fight=name, error=repr(error)[:300])
        return Kept(snapshot, kept_views)


def catch_up(state: FightState, done: History, records: list[Recorded],
             since: Callable[[int], Sequence[Recorded]]) -> tuple[FightState, History] | None:
    """One stored command folded onto a snapshot's state, as `service.step.tracked_step` did it when it
    was appended; None when that needs the log (an undo or redo the history does not answer as the log
    did)."""
    event = records[0].event
    if isinstance(event, (ev.CommandUndone, ev.CommandRedone)):
        top = (done.done[-1].command if done.done else None) if isinstance(event, ev.CommandUndone) else (
            done.undone[-1][0] if done.undone else None)
        if event.target != top or len(records) != 1:
            return None
        if isinstance(event, ev.CommandUndone):
            after, redo = apply(state, done.done[-1], records[-1].seq)
            return after, done.undid(records[0].command, redo)
        after, back = apply(state, done.undone[-1][1], records[-1].seq)
        return after, done.redid(back)
    if any(isinstance(record.event, ev.VOIDING) for record in records):
        return refolded(state, done, records, since)
    after = fold(records, state)
    return after, following(done, state, records, after, False)


def _board(store: ViewStore, name: str, state: FightState, fight_id: str, seq: int, last_hash: str, key: bytes,
           memo: dict[str, Any], previous: tuple[FightState, int, str] | None) -> tuple[View, ...]:
    """The board's rows for the new state; a view that cannot be built is not stored (the query then
    computes it from the fight, as for any stale view), and never fails the command that was decided."""
    try:
        return views.board_views(store, name, state, fight_id, seq, last_hash, key, memo, previous)
    except Exception as error:  # noqa: BLE001 - a view is a cache: the log is what must be written
        log.warning("read model not stored", view="status", error=repr(error))
        return ()
