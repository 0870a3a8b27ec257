"""A fight's state for the next command: the one place that decides where it comes from (`Loader`)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from msgspec import Struct

from fudge_combat.engine.kernel.history import voided_by
from fudge_combat.engine.kernel.pmap import EventMap
from fudge_combat.engine.kernel.rewind import UNKNOWN, History
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.events.records import Recorded, load, load_all
from fudge_combat.projections.fold import fold
from fudge_combat.service.caches import VOIDING_TYPES, Caches, named
from fudge_combat.service.dice import DRAW_TYPES
from fudge_combat.service.reads import LogReads
from fudge_combat.store.base import EventStore, StoreError
from fudge_combat.store.bulk import paused_gc


def empty_log(name: str) -> str:
    return (f"{name}: the log holds no event: its events were removed from the store; a receipt kept from "
            f"earlier (`fudge verify {name} --head SEQ:HASH`) names what it held")


class Loaded(Struct):
    """A fight as the last load or command left it: its state at the log's last event, that event's seq
    and hash (the log is append-only and hash-chained: the same pair means the same log), the event the
    store's valid snapshot is at, and what an undo or redo takes back (engine.kernel.rewind). Its log is read
    through `Loader.log_of`, never `records`: a state that came from a snapshot has no log in memory
    until something needs it."""

    state: FightState
    last_seq: int
    last_hash: str
    snapshot_seq: int | None = None  # None: no valid snapshot known
    done: History = UNKNOWN
    records: list[Recorded] | None = None  # None: the log is read when needed
    # Read from the store for this load (its snapshot, or the log), not held by this service from an earlier
    # command: the process is likely a one-shot command, and so is the next reader (`Fights._append`).
    read: bool = False


class Loader:
    """Where a fight's state comes from, in one order of fallbacks, each taken only when the one before
    cannot answer as a replay of the whole log would:

    1. held: the state this service loaded or appended last, if the log still ends at its event;
    2. caught up: that state with the events another writer appended since folded on, unless one of
       them voids events (A-UNDO-2 may reach back before it);
    3. from the snapshot: the store's snapshot (store.snapshots) with the commands after it folded on
       as they were appended (service.caches.Caches.state_at);
    4. rebuilt: the log folded from its first event, a page at a time (projections.rebuild).

    What it loads is held for the next load: a session that lives on (`fudge play`, `fudge serve`)
    folds only what was appended since.
    """

    def __init__(self, store: EventStore, reads: LogReads, caches: Caches) -> None:
        self.store = store
        self.reads = reads
        self.caches = caches
        self._held: dict[str, Loaded] = {}

    def load(self, name: str) -> Loaded:
        seq, last_hash = self.store.tail(name)
        if seq == 0:
            raise StoreError(empty_log(name))  # every row deleted under the store's back: one line, not a defect
        held = self._held.get(name)
        if held is not None and (held.last_seq, held.last_hash) == (seq, last_hash):
            return held
        loaded = ((self.caught_up(name, held) if held is not None and seq > held.last_seq else None)
                  or self.from_snapshot(name, seq, last_hash) or self.rebuilt(name, seq, last_hash))
        self.hold(name, loaded)
        return loaded

    def held(self, name: str) -> Loaded | None:
        """What the next load starts from (the last load's or command's)."""
        return self._held.get(name)

    def hold(self, name: str, loaded: Loaded) -> None:
        self._held[name] = loaded

    def caught_up(self, name: str, held: Loaded) -> Loaded | None:
        """The held state with the events appended since folded on; None if it cannot be.

        The row at the held seq with the held hash means the log up to it is the one the state was
        folded from. A new event that voids something needs the whole log: then None.
        """
        rows = self.store.rows_from(name, held.last_seq)
        if not rows or (rows[0].seq, rows[0].hash) != (held.last_seq, held.last_hash) or any(
                row.type in VOIDING_TYPES for row in rows[1:]):
            return None
        with paused_gc():
            state = named(fold(load_all(row.body for row in rows[1:]), held.state), name)
        # What an undo takes back is known only for the commands this service wrote (engine.kernel.rewind):
        # after another writer's, an undo reads the log.
        return Loaded(state, rows[-1].seq, rows[-1].hash, held.snapshot_seq, UNKNOWN)

    def from_snapshot(self, name: str, seq: int, last_hash: str) -> Loaded | None:
        """The state from the fight's snapshot and the events after it (service.caches), if usable."""
        found = self.caches.state_at(name, seq, last_hash)
        if found is None:
            return None
        return Loaded(named(found.state, name), seq, last_hash, found.snapshot_seq, found.done, read=True)

    def rebuilt(self, name: str, seq: int, last_hash: str) -> Loaded:
        loaded = Loaded(named(self.rebuild(name, seq), name), seq, last_hash, read=True)
        self.caches.replayed(name)
        return loaded

    def rebuild(self, name: str, upto: int) -> FightState:
        """The state folded from the store's log to `upto`, as `replay` folds it, without holding the log:
        the voiding rows are read first (A-UNDO-2: which events count), then each body is validated and
        folded in turn (projections.rebuild: the derived decoder's structs where the fold only reads an
        event), and the actions' events are left in the log (engine.pmap.EventMap), read back one by one
        when a command asks for one. Why: a replay's memory no longer grows with the log's text and every
        event of it (bench/README.md, growth), and a replay from scratch outpaces the eventsourcing
        peer's (bench/README.md, replay from scratch against the peer)."""
        from fudge_combat.projections.rebuild import rebuild  # the derived decoder: only a replay from scratch needs it

        read = self.reads.event_reader(name)
        with paused_gc():
            voiding = load_all(row.body for row in self.reads.of_types(name, VOIDING_TYPES, upto))
            gone = voided_by(voiding, lambda command: self.reads.command_seqs(name, command, upto))
            state = rebuild(chain.from_iterable(self.reads.pages(name, upto)), gone, read)
        events = state.events
        assert isinstance(events, EventMap)  # as `rebuild` leaves it
        events.read_from(read)  # the commands folded from now on keep their events
        return replace(state, last_seq=upto) if upto else state

    # --- what a command reads of the log beside the state ----------------------------------------
    def log_of(self, name: str, loaded: Loaded) -> list[Recorded]:
        """The whole log of a loaded fight (read now if its state came from a snapshot)."""
        if loaded.records is None:
            bodies = self.reads.bodies(name, loaded.last_seq)
            if not bodies:
                raise StoreError(empty_log(name))
            with paused_gc():
                loaded.records = load_all(bodies)
        return loaded.records

    def since(self, name: str, seq: int) -> list[Recorded]:
        """The log from `seq` on (what a fudge point's void folds again: service.step.refolded)."""
        with paused_gc():
            return load_all(row.body for row in self.store.rows_from(name, seq))

    def newest_first(self, name: str, loaded: Loaded) -> Iterator[Recorded]:
        """The records that can carry a draw, newest first, parsed as they are reached (the dice want
        only the latest draw): the log in memory, or pages read backwards from the store."""
        if loaded.records is not None:
            return (record for record in reversed(loaded.records) if record.event.type in DRAW_TYPES)
        return (load(row.body) for row in self.reads.back(name, loaded.last_seq) if row.type in DRAW_TYPES)
