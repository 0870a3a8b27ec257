"""The application service: load a fight, fold it, decide a command, append its events in one transaction.

The step itself (decide, record, fold) is `service.step`, which the simulator runs too; the dice are
`service.dice`, the GM's secrets `service.secrets`, the caches beside the log `service.caches`, a log
as a whole (branch, export, import) `service.history`. The store is reached only through its
Protocol (`store.base.EventStore`).
"""

from __future__ import annotations

import json
import secrets as random_source
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import chain
from typing import Any, NoReturn

from fudge_combat.engine import commands as cmd
from fudge_combat.engine import history as undoing
from fudge_combat.engine.dice import EnteredDice, commitment
from fudge_combat.engine.errors import RuleError
from fudge_combat.events import models as ev
from fudge_combat.events.envelope import GENESIS, Recorded, chain_hash, load, load_all
from fudge_combat.engine.history import voided, voided_by
from fudge_combat.engine.pmap import EventMap
from fudge_combat.engine.rewind import FOUNDED, UNKNOWN, History
from fudge_combat.projections.fold import fold, replay
from fudge_combat.engine.state import FightState, replace
from fudge_combat.service import history
from fudge_combat.service.caches import VOIDING_TYPES, Caches, log_reader, named
from fudge_combat.service.names import check_fight_name
from fudge_combat.service.dice import DRAW_TYPES, DiceInput, UnusedDice, dice_source, unused_dice
from fudge_combat.service.secrets import Keeper
from fudge_combat.service.step import step, tracked_step
from fudge_combat.store.base import EventStore, FightInfo, Row, SecretBox, StoreError
from fudge_combat.store.bulk import paused_gc
from fudge_combat.store.log import log

__all__ = ["DiceInput", "Fights", "Outcome", "UnusedDice"]


def decide(state: FightState, command: Any, dice: Any) -> list[Any]:
    """engine.decide.decide, imported when a command is decided (reading a fight does not need it)."""
    from fudge_combat.engine.decide import decide as run

    return run(state, command, dice)


def seal_of(declaration: ev.Declaration, salt: str) -> str:
    from fudge_combat.engine.decide import seal_of as seal

    return seal(declaration, salt)


def empty_log(name: str) -> str:
    return (f"{name}: the log holds no event: its events were removed from the store; a receipt kept from "
            f"earlier (`fudge verify {name} --head SEQ:HASH`) names what it held")


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Outcome:
    """What one command appended, and the state after it."""

    records: tuple[Recorded, ...]
    state: FightState
    replayed: bool = False  # the command id was already applied: nothing new was written
    unused: tuple[UnusedDice, ...] = ()  # typed dice the command turned out not to need


@dataclass
class _Loaded:
    """A fight as the last read left it. Read its log through `Fights._log_of`, never `records`: a state
    that came from a snapshot has no log in memory until something needs it."""

    records: list[Recorded] | None  # None: the state came from a snapshot; the log is read when needed
    state: FightState
    last_hash: str
    last_seq: int = 0
    snapshot_seq: int | None = None  # the event the store's valid snapshot is at (None: none known)
    done: History = UNKNOWN  # what an undo or redo takes back (engine.rewind), kept in the snapshot too


class Fights:
    def __init__(self, store: EventStore, clock: Callable[[], str] = utc_now,
                 new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
                 random_bytes: Callable[[int], bytes] = random_source.token_bytes,
                 secrets: SecretBox | None = None, views: bool = True) -> None:
        self.store = store
        self.secrets: SecretBox = secrets if secrets is not None else store.user_secrets()
        self.keeper = Keeper(store, self.secrets)
        self.caches = Caches(store, views)  # the board's read model too, where the store keeps views
        self.clock = clock
        self.new_id = new_id
        self.random_bytes = random_bytes
        self._cache: dict[str, _Loaded] = {}

    # --- reading -----------------------------------------------------------------
    def log(self, name: str, upto: int | None = None) -> list[Recorded]:
        with paused_gc():
            return load_all(self.store.bodies(name, upto) or self._none(name))

    def _none(self, name: str) -> NoReturn:
        """A fight the store names with no event in its log (every row deleted under the store's back):
        one line, not an empty fight nor a defect. A fight's log holds its start from its first append."""
        raise StoreError(empty_log(name))

    def replayed(self, name: str, upto: int | None = None) -> tuple[list[Recorded], FightState]:
        """The log (to `upto`) and the state folded from it: every row parsed and validated, no snapshot."""
        with paused_gc():
            records = load_all(self.store.bodies(name, upto) or self._none(name))
            return records, replay(records)

    def state(self, name: str, as_of: int | None = None) -> FightState:
        if as_of is None:
            return self._load(name).state  # a command that reads the state first does not replay twice
        with paused_gc():
            return named(replay(self.log(name), as_of), name)

    def current(self) -> str:
        name = self.store.setting("current")
        if not name:
            raise StoreError("no current fight: `fudge new NAME` starts one, `fudge use NAME` picks one")
        return name

    def use(self, name: str) -> None:
        self.store.fight(name)
        self.store.set_setting("current", name)

    def _load(self, name: str) -> _Loaded:
        """The fight's log and state; reused from this process's last command when nothing was appended since.

        The log is append-only, so an unchanged last sequence number and hash mean an unchanged log.
        """
        tail = self.store.tail(name)
        if tail[0] == 0:
            self._none(name)
        cached = self._cache.get(name)
        if cached is not None and tail == (cached.last_seq, cached.last_hash):
            return cached
        caught_up = self._caught_up(name, cached) if cached is not None and tail[0] > cached.last_seq else None
        if caught_up is not None:
            self._cache[name] = caught_up
            return caught_up
        found = self._from_snapshot(name, *tail)
        if found is not None:
            loaded = _Loaded(None, named(found[0], name), tail[1], tail[0], found[2], found[1])
        else:
            loaded = _Loaded(None, named(self._replay(name, tail[0]), name), tail[1], tail[0])
            self.caches.replayed(name)
        self._cache[name] = loaded
        return loaded

    def _caught_up(self, name: str, cached: _Loaded) -> _Loaded | None:
        """The cached state with the events another writer appended since folded onto it (a session
        that lives on, `fudge play`, while another `fudge` writes the same fight); None if it cannot be.

        The log is append-only and hash-chained: the row at the cached seq with the cached hash means
        the log up to it is the one the state was folded from. A new event that voids something needs
        the whole log (A-UNDO-2 may reach back): then the state is read as if nothing were cached.
        """
        rows = self.store.rows_from(name, cached.last_seq)
        if not rows or (rows[0].seq, rows[0].hash) != (cached.last_seq, cached.last_hash) or any(
                row.type in VOIDING_TYPES for row in rows[1:]):
            return None
        with paused_gc():
            new = load_all(row.body for row in rows[1:])
            state = named(fold(new, cached.state), name)
        # What an undo takes back is known only for the commands this service wrote (engine.rewind):
        # after another writer's, an undo reads the log.
        return _Loaded(None, state, rows[-1].hash, rows[-1].seq, cached.snapshot_seq, UNKNOWN)

    def _replay(self, name: str, upto: int) -> FightState:
        """The state folded from the store's log to `upto`, as `replay` folds it, without holding the log:
        the voiding rows are read first (A-UNDO-2: which events count), then each body is validated and
        folded in turn (projections.rebuild: the derived decoder's structs where the fold only reads an
        event), and the actions' events are left in the log (engine.pmap.EventMap), read back one by one
        when a command asks for one. Why: a replay's memory no longer grows with the log's text and every
        event of it (bench/README.md, growth), and a replay from scratch outpaces the eventsourcing
        peer's (bench/README.md, replay from scratch against the peer)."""
        from fudge_combat.projections.rebuild import rebuild  # the derived decoder: only a replay from scratch needs it

        read = log_reader(self.store, name)
        with paused_gc():
            voiding = load_all(row.body for row in self.store.rows_of_types(name, VOIDING_TYPES, upto))
            gone = voided_by(voiding, lambda command: self.store.command_seqs(name, command, upto))
            state = rebuild(chain.from_iterable(self._pages(name, upto)), gone, read)
        events = state.events
        assert isinstance(events, EventMap)  # as `rebuild` leaves it
        events.read_from(read)  # the commands folded from now on keep their events
        return replace(state, last_seq=upto) if upto else state

    def _pages(self, name: str, upto: int, page: int = 1024) -> Iterator[list[tuple[int, str]]]:
        """The log's rows to `upto`, (seq, body), a page at a time (a replay holds one page)."""
        seq = 1
        while seq <= upto:
            rows = self.store.bodies_page(name, seq, page, upto)
            yield rows
            if len(rows) < page:
                return
            seq = rows[-1][0] + 1

    def _from_snapshot(self, name: str, seq: int, last_hash: str) -> tuple[FightState, History, int] | None:
        """The state from the fight's snapshot and the events after it (service.caches), if usable."""
        return self.caches.state_at(name, seq, last_hash)

    def _log_of(self, name: str, loaded: _Loaded) -> list[Recorded]:
        """The whole log of a loaded fight (read now if its state came from a snapshot)."""
        if loaded.records is None:
            loaded.records = self.log(name, loaded.last_seq)
        return loaded.records

    def _since(self, name: str, seq: int) -> list[Recorded]:
        """The log from `seq` on (what a fudge point's void folds again: service.step.refolded)."""
        with paused_gc():
            return load_all(row.body for row in self.store.rows_from(name, seq))

    def _newest_first(self, name: str, loaded: _Loaded) -> Iterator[Recorded]:
        """The records that can carry a draw, newest first, parsed as they are reached (the dice want
        only the latest draw): the log in memory, or pages read backwards from the store."""
        if loaded.records is not None:
            return (record for record in reversed(loaded.records) if record.event.type in DRAW_TYPES)
        return (load(row.body) for row in self._rows_back(name, loaded.last_seq) if row.type in DRAW_TYPES)

    def _rows_back(self, name: str, seq: int) -> Iterator[Row]:
        """The log's rows from `seq` back, in pages growing fourfold: a few rows when the wanted one is
        recent, a few queries when it is far back."""
        size = 64
        while seq > 0:
            page = self.store.rows_back(name, seq, size)
            yield from page
            if len(page) < size:
                return
            seq, size = page[-1].seq - 1, size * 4

    # --- writing -----------------------------------------------------------------
    def _seed(self) -> tuple[bytes, str, str]:
        seed = self.random_bytes(32)
        return seed, commitment(seed), self.new_id()[:12]

    def _records(self, fight_id: str, start_seq: int, prev: str, command_id: str, issued: Any,
                 events: Sequence[Any]) -> list[Recorded]:
        out = []
        at = self.clock()
        for index, event in enumerate(events):
            record = Recorded(fight=fight_id, seq=start_seq + index, command=command_id,
                              issued=issued.model_dump(mode="json") if (index == 0 and issued is not None) else None,
                              at=at, prev=prev, event=event)
            body = record.body()
            prev = chain_hash(body)
            out.append(record)
        return out

    @staticmethod
    def _rows(records: Iterable[Recorded]) -> list[Row]:
        rows = []
        for record in records:
            body = record.body()
            rows.append(Row(record.seq, record.command, record.event.type, body, chain_hash(body)))
        return rows

    def _open_log(self, name: str, base: FightState, prefix: Sequence[Row], opening: Callable[[str, str], Any], *,
                  parent: str | None = None, fork_seq: int | None = None, seals_of: FightState | None = None,
                  current: bool = False) -> Outcome:
        """A new log `name`: the rows of `prefix` (folded into `base`), then the events of the command
        `opening(commitment, stream)` makes, under a new fight id and dice seed; one append.

        The seed (and the plaintext of the declarations still sealed in `seals_of`) goes to the GM's
        secrets before its commitment goes to the log: a crash between leaves an unused secret, never
        a commitment without its seed.
        """
        check_fight_name(name)  # every way a fight is made (new, branch, import) names it through here
        seed, commit, stream = self._seed()
        fight_id = self.new_id()
        command = opening(commit, stream)
        start, prev = (prefix[-1].seq + 1, prefix[-1].hash) if prefix else (1, GENESIS)
        new, after, _ = step(decide, base, command, EnteredDice(), list,
                             lambda events: self._records(fight_id, start, prev, self.new_id(), command, events))
        rows = self._rows(new)
        self.keeper.keep_seed(fight_id, seed, commit)
        if seals_of is not None and (seals := self.keeper.seals_at(seals_of)):
            self.keeper.put(fight_id, seals)
        self.store.append(name, 0, [*prefix, *rows],
                          create=FightInfo(name, fight_id, parent=parent, fork_seq=fork_seq, created_at=self.clock()),
                          **self.caches.of(name, after, rows[-1].seq, rows[-1].hash, fight_id, done=FOUNDED))
        if current:
            self.store.set_setting("current", name)
        return Outcome(tuple(new), after)

    def new(self, name: str, rules: str, options: dict[str, Any], make_current: bool = True) -> Outcome:
        outcome = self._open_log(name, FightState(), (), lambda commit, stream: cmd.StartFight(
            name=name, rules=rules, options=options, seed_commitment=commit, stream=stream), current=make_current)
        log.info("fight started", fight=name, rules=rules)
        return outcome

    def execute(self, name: str, command: Any, dice: DiceInput | None = None,
                command_id: str | None = None, secrets: dict[str, str] | None = None) -> Outcome:
        """Decide `command` on the fight and append its events; `secrets` (the plaintext of a sealed
        declaration) go to the GM's secrets, under the fight's id, before the events are appended."""
        if command_id and self.store.has_command(name, command_id):
            return Outcome((), self.state(name), replayed=True)
        loaded = self._load(name)
        state, last_seq = loaded.state, loaded.last_seq
        rolls = not isinstance(command, (cmd.Undo, cmd.Redo))
        source = self._dice(name, state, self._newest_first(name, loaded), dice or DiceInput()) if rolls else None
        unused: tuple[UnusedDice, ...] = ()

        def record(events: list[Any]) -> list[Recorded]:
            nonlocal unused
            if source is not None:  # dice typed for a wrong name are refused before anything is recorded
                unused = unused_dice(state, command, source)
            return self._records(state.fight_id or self._log_of(name, loaded)[0].fight, last_seq + 1,
                                 loaded.last_hash, command_id or self.new_id(), command, events)

        new, after, whole, done = tracked_step(decide, state, loaded.done, command, source,
                                               lambda: self._log_of(name, loaded), record, lambda seq: self._since(name, seq))
        rows = self._rows(new)
        # A replayed state starts a snapshot (a read could not fold past what it voided); an undo or
        # redo answered from the history is folded past like any command (service.caches.catch_up).
        caches = self.caches.of(name, after, rows[-1].seq, rows[-1].hash,
                                since=None if whole is not None else loaded.snapshot_seq, done=done)
        if secrets:
            self.keeper.put(new[0].fight, secrets)
        self.store.append(name, last_seq, rows, **caches)
        log.info("command appended", fight=name, command=type(command).__name__, events=len(new))
        # The log is not kept: a warm service's memory does not grow with the fight, and a command that
        # needs the log (a fudge point's void) reads it again.
        self._cache[name] = _Loaded(None, after, rows[-1].hash, rows[-1].seq,
                                    rows[-1].seq if "snapshot" in caches else loaded.snapshot_seq, done)
        return Outcome(tuple(new), after, unused=unused)

    def _dice(self, name: str, state: FightState, newest_first: Iterable[Recorded], given: DiceInput) -> EnteredDice:
        seed, problem = self.keeper.fight_seed(name, state) if state.options.dice == "generated" else (None, "")
        return dice_source(state, given, seed, problem, newest_first)

    def undo_to(self, name: str, seq: int) -> list[Outcome]:
        outcomes = []
        while True:
            loaded = self._load(name)
            if loaded.done.knows_undo():  # the history names the command an undo voids (engine.rewind)
                if not loaded.done.done:
                    break
                first = loaded.done.done[-1].first
            else:
                records = self._log_of(name, loaded)
                try:
                    _, first = undoing.undo_target(records, voided(records))
                except RuleError:
                    break
            if first <= seq:
                break
            outcomes.append(self.execute(name, cmd.Undo()))
        if not outcomes:
            raise RuleError(f"nothing after event {seq} to undo")
        return outcomes

    def declare(self, name: str, combatant: str, declaration: ev.Declaration, sealed: bool) -> Outcome:
        if not sealed:
            return self.execute(name, cmd.Declare(combatant=combatant, declaration=declaration))
        state = self.state(name)
        who = state.find(combatant)
        if who is None:
            raise RuleError(f"no combatant {combatant!r} in {name}")
        salt = self.random_bytes(16).hex()
        seal = seal_of(declaration, salt)
        secret = json.dumps({"declaration": declaration.model_dump(mode="json"), "salt": salt})
        return self.execute(name, cmd.SealDeclaration(combatant=who.name, seal=seal),
                            secrets={f"seal:{seal}": secret})

    def reveals(self, state: FightState, names: Sequence[str]) -> tuple[cmd.Reveal, ...]:
        """The sealed choices of these fighters, read from the GM's secrets to open the seals."""
        return self.keeper.reveals(state, names)

    # --- a log as a whole (service.history) ------------------------------------------
    def branch(self, parent: str, name: str, at: int | None) -> Outcome:
        """A new fight whose log begins with `parent`'s to event `at` (A-BRANCH-1); it becomes current."""
        rows = self.store.read(parent)
        fork = history.fork_point(rows, parent, at)
        prefix = rows[:fork]
        with paused_gc():
            state = replay(load_all(r.body for r in prefix))
        return self._open_log(name, state, prefix, lambda commit, stream: cmd.StartBranch(
            name=name, parent=parent, fork_seq=fork, seed_commitment=commit, stream=stream),
            parent=parent, fork_seq=fork, seals_of=state, current=True)

    def import_(self, lines: Iterable[str], name: str) -> Outcome:
        """A log written by `export`, as a new fight; refused (nothing written) if `fudge verify` would
        reject it. It goes on with a seed of its own (the original's stays with the original)."""
        rows = history.imported_rows(lines)
        with paused_gc():
            state = replay(load_all(row.body for row in rows))
        # The store records how many events were imported (a fork with no parent): `verify` then knows
        # the log's first events are another fight's by right, not spliced in (engine.audit.Lineage).
        return self._open_log(name, state, rows, lambda commit, stream: cmd.CommitSeed(
            seed_commitment=commit, stream=stream, reason=f"imported as {name}"), fork_seq=len(rows))

    def export(self, name: str) -> list[str]:
        """The fight's rows as JSON lines (service.history.export_lines)."""
        return history.export_lines(name, self.store.read(name) or self._none(name))

    def copy_in(self, source: Fights, name: str) -> Outcome:
        """Fight `name` of another service (a kept simulation played in memory) written into this store
        in one append, with its secrets not yet revealed; it does not become the current fight."""
        check_fight_name(name)
        info = source.store.fight(name)
        rows = source.store.read(name)
        state = source.state(name)
        kept = {s.key: s.value for s in source.secrets.export() if s.fight == state.fight_id and not s.revealed}
        if kept:
            self.keeper.put(state.fight_id, kept)
        self.store.append(name, 0, rows, create=FightInfo(name, info.fight_id, created_at=self.clock()),
                          **self.caches.of(name, state, rows[-1].seq, rows[-1].hash, info.fight_id))
        return Outcome(tuple(source.log(name)), state)

    def reveal_seed(self, name: str) -> Outcome:
        """A-FAIR-1: reveal the seeds this fight committed itself, and commit a new one for its next rolls.

        Only the fight's own commitments are revealed: a branch's log begins with its parent's events
        (and the parent's commitment), whose seed the parent still rolls with; an imported log carries
        the original's. Such a seed is added only once its own fight has revealed it (it is public
        then): until that, `verify` counts the rolls before the fork as unchecked.
        """
        self.keeper.move_legacy()
        own = self.store.fight(name).fight_id
        seeds = self.keeper.seeds_to_reveal(name, own, self.log(name))
        seed, commit, stream = self._seed()
        self.keeper.keep_seed(own, seed, commit)
        outcome = self.execute(name, cmd.RevealSeed(seeds=tuple(seeds), next_commitment=commit, next_stream=stream))
        self.secrets.mark_revealed(f"seed:{c}" for c, _ in seeds)
        return outcome
