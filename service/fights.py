"""The application service: each command loads the fight, decides, and appends its events in one transaction.

Where the state comes from (held, caught up, a snapshot, the log) is `service.loader.Loader`; the
step itself (decide, record, fold) is `service.step`, which the simulator runs too; the dice are
`service.dice`, the GM's secrets `service.secrets`, the caches beside the log `service.caches`, a log
as a whole (branch, export, import) `service.history`. The store is reached only through its
Protocol (`store.base.EventStore`), its reads through `service.reads`, which uses the store's
shortcuts (`store.base.ReadShortcuts`) where it has them.
"""

from __future__ import annotations

import json
import secrets as random_source
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, NoReturn

import msgspec
from msgspec import Struct

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel import history as undoing
from fudge_combat.engine.kernel.commands import REQUESTED
from fudge_combat.engine.kernel.dice import EnteredDice, commitment
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev
from fudge_combat.events.records import GENESIS, Recorded, body as body_of, chain_hash, checked, load_all
from fudge_combat.events.records import record as new_record
from fudge_combat.engine.kernel.history import voided
from fudge_combat.engine.kernel.rewind import FOUNDED, History
from fudge_combat.projections.fold import replay
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.service import history
from fudge_combat.service.caches import Caches, named
from fudge_combat.service.loader import Loaded, Loader, empty_log
from fudge_combat.service.names import check_fight_name
from fudge_combat.service.dice import DiceInput, UnusedDice, dice_source, unused_dice
from fudge_combat.service.reads import LogReads
from fudge_combat.service.secrets import Keeper
from fudge_combat.service.step import step, tracked_step
from fudge_combat.store.base import EventStore, FightInfo, Row, SecretBox, StoreError
from fudge_combat.store.bulk import paused_gc
from fudge_combat.store.log import log

__all__ = ["DiceInput", "Fights", "Outcome", "UnusedDice", "empty_log"]


def decide(state: FightState, command: Any, dice: Any) -> list[Any]:
    """engine.decide.decide, imported when a command is decided (reading a fight does not need it)."""
    from fudge_combat.engine.decide import decide as run

    return run(state, command, dice)


def seal_of(declaration: ev.Declaration, salt: str) -> str:
    from fudge_combat.engine.decide import seal_of as seal

    return seal(declaration, salt)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Outcome(Struct, frozen=True):
    """What one command appended, and the state after it."""

    records: tuple[Recorded, ...]
    state: FightState
    replayed: bool = False  # the command id was already applied: nothing new was written
    unused: tuple[UnusedDice, ...] = ()  # typed dice the command turned out not to need


class Decided(Struct, frozen=True):
    """One command decided on a loaded fight, not yet appended."""

    records: list[Recorded]
    state: FightState  # the state after them
    replayed: bool  # the state was folded from the whole log (the command voids events the history did not reach)
    done: History  # what an undo or redo takes back after it (engine.kernel.rewind)
    unused: tuple[UnusedDice, ...] = ()


class Fights:
    def __init__(self, store: EventStore, clock: Callable[[], str] = utc_now,
                 new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
                 random_bytes: Callable[[int], bytes] = random_source.token_bytes,
                 secrets: SecretBox | None = None, views: bool = True) -> None:
        self.store = store
        self.reads = LogReads(store)  # the store's read shortcuts, if it offers them, checked once here
        self.secrets: SecretBox = secrets if secrets is not None else store.user_secrets()
        self.keeper = Keeper(store, self.secrets)
        self.caches = Caches(store, self.reads, views)  # the board's read model too, where the store keeps views
        self.loader = Loader(store, self.reads, self.caches)
        self.clock = clock
        self.new_id = new_id
        self.random_bytes = random_bytes
        # Who asked for the commands executed now, when a player did (cli.play_requests, `REQUESTED`): kept in
        # the first event's `issued` beside the command; None, the GM's own command, writes nothing new.
        self.requested: dict[str, Any] | None = None

    # --- reading -----------------------------------------------------------------
    @contextmanager
    def _stored(self, name: str) -> Iterator[None]:
        """Reads of the fight's stored rows: a row that does not read as an event (its body altered in the
        store, with its hash or without) is named in one line as `fudge verify` names it (the first broken
        link of the chain), where the validator's own words would name a field and not the cause. Only a
        failure checks the chain; one the chain does not explain is raised as it was."""
        try:
            yield
        except (ValueError, TypeError, RecursionError) as failure:  # pydantic's and msgspec's errors are ValueErrors
            from fudge_combat.engine.audit import check_chain  # the audit's engine: only when a read failed

            try:
                _, problems = check_chain(self.store.read(name))
            except Exception:  # noqa: BLE001 - the read's own failure is the one to show
                problems = []
            if not problems:
                raise failure from None
            seq, why = problems[0]
            raise StoreError(f"{name}: event {seq}: {why}; `fudge verify {name}` checks the whole log") from None

    def log(self, name: str, upto: int | None = None) -> list[Recorded]:
        with self._stored(name), paused_gc():
            return load_all(self.reads.bodies(name, upto) or self._none(name))

    def _none(self, name: str) -> NoReturn:
        """A fight the store names with no event in its log (every row deleted under the store's back):
        one line, not an empty fight nor a defect. A fight's log holds its start from its first append."""
        raise StoreError(empty_log(name))

    def replayed(self, name: str, upto: int | None = None) -> tuple[list[Recorded], FightState]:
        """The log (to `upto`) and the state folded from it: every row parsed and validated, no snapshot."""
        with paused_gc():
            records = load_all(self.reads.bodies(name, upto) or self._none(name))
            return records, replay(records)

    def state(self, name: str, as_of: int | None = None) -> FightState:
        if as_of is None:
            with self._stored(name):
                return self.loader.load(name).state  # a command that reads the state first does not replay twice
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

    # --- writing -----------------------------------------------------------------
    def _seed(self) -> tuple[bytes, str, str]:
        seed = self.random_bytes(32)
        return seed, commitment(seed), self.new_id()[:12]

    def _records(self, fight_id: str, start_seq: int, prev: str, command_id: str, issued: Any,
                 events: Sequence[Any]) -> list[Recorded]:
        out = []
        at = self.clock()
        dump = cmd.issued_dump(issued) if issued is not None else None
        if dump is not None and self.requested is not None:
            dump[REQUESTED] = self.requested
        for index, event in enumerate(events):
            made = new_record(fight=fight_id, seq=start_seq + index, command=command_id,
                              issued=dump if index == 0 else None, at=at, prev=prev, event=event)
            text = body_of(made)
            prev = chain_hash(text)
            out.append(checked(text))
        return out

    @staticmethod
    def _rows(records: Iterable[Recorded]) -> list[Row]:
        rows = []
        for record in records:
            text = body_of(record)
            rows.append(Row(record.seq, record.command, record.event.type, text, chain_hash(text)))
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
        command = cmd.valid(opening(commit, stream))
        start, prev = (prefix[-1].seq + 1, prefix[-1].hash) if prefix else (1, GENESIS)
        new, after, _ = step(decide, base, command, EnteredDice(), list,
                             lambda events: self._records(fight_id, start, prev, self.new_id(), command, events))
        rows = self._rows(new)
        self.keeper.keep_seed(fight_id, seed, commit)
        if seals_of is not None and (seals := self.keeper.seals_at(seals_of)):
            self.keeper.put(fight_id, seals)
        kept = self.caches.of(name, after, rows[-1].seq, rows[-1].hash, fight_id, done=FOUNDED)
        self.caches.append(name, 0, [*prefix, *rows], kept,
                           create=FightInfo(name, fight_id, parent=parent, fork_seq=fork_seq, created_at=self.clock()))
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
        if command_id and self.reads.has_command(name, command_id):
            return Outcome((), self.state(name), replayed=True)
        command = cmd.valid(command)  # built in code: its struct's types and bounds, before anything is read
        with self._stored(name):
            loaded = self.loader.load(name)
            decided = self._decide(name, loaded, command, dice or DiceInput(), command_id)
        if secrets:
            self.keeper.put(decided.records[0].fight, secrets)
        self._append(name, loaded, decided)
        log.info("command appended", fight=name, command=type(command).__name__, events=len(decided.records))
        return Outcome(tuple(decided.records), decided.state, unused=decided.unused)

    def _decide(self, name: str, loaded: Loaded, command: Any, dice: DiceInput, command_id: str | None) -> Decided:
        """The command's events, recorded after the loaded log's last, and the state after them
        (service.step); the log is read only if the command needs it (an undo, a redo, a void)."""
        state = loaded.state
        rolls = not isinstance(command, (cmd.Undo, cmd.Redo))
        source = self._dice(name, state, self.loader.newest_first(name, loaded), dice) if rolls else None
        unused: tuple[UnusedDice, ...] = ()

        def record(events: list[Any]) -> list[Recorded]:
            nonlocal unused
            if source is not None:  # dice typed for a wrong name are refused before anything is recorded
                unused = unused_dice(state, command, source)
            return self._records(state.fight_id or self.loader.log_of(name, loaded)[0].fight, loaded.last_seq + 1,
                                 loaded.last_hash, command_id or self.new_id(), command, events)

        new, after, whole, done = tracked_step(decide, state, loaded.done, command, source,
                                               lambda: self.loader.log_of(name, loaded), record,
                                               lambda seq: self.loader.since(name, seq))
        return Decided(new, after, whole is not None, done, unused)

    def _append(self, name: str, loaded: Loaded, decided: Decided) -> None:
        """The decided events appended where the loaded log ended, with the caches due, and the state
        after them held for the next load.

        A replayed state starts a snapshot (a read could not fold past what it voided); an undo or
        redo answered from the history is folded past like any command (service.caches.catch_up). The
        log is not held: a warm service's memory does not grow with the fight, and a command that
        needs the log (a fudge point's void) reads it again.

        A state this command read from the store (not held from an earlier command of this service) also
        starts one: the next reader is likely a one-shot command too, and a snapshot at the log's tip leaves
        it no record to read and validate before it decides. Writing one costs less than reading the
        records after an older one costs such a command (the validators of their event types, and up to
        `seq // 64` events folded: bench/README.md, the restructure). A session (`fudge play`) holds its
        state and writes one every `max(32, seq // 64)` events.
        """
        rows = self._rows(decided.records)
        last = rows[-1]
        since = None if decided.replayed or loaded.read else loaded.snapshot_seq
        kept = self.caches.of(name, decided.state, last.seq, last.hash, since=since, done=decided.done,
                              previous=(loaded.state, loaded.last_seq, loaded.last_hash))
        self.caches.append(name, loaded.last_seq, rows, kept)
        self.loader.hold(name, Loaded(decided.state, last.seq, last.hash,
                                      last.seq if kept.snapshot is not None else loaded.snapshot_seq, decided.done))

    def _dice(self, name: str, state: FightState, newest_first: Iterable[Recorded], given: DiceInput) -> EnteredDice:
        seed, problem = self.keeper.fight_seed(name, state) if state.options.dice == "generated" else (None, "")
        return dice_source(state, given, seed, problem, newest_first)

    def undo_to(self, name: str, seq: int) -> list[Outcome]:
        outcomes = []
        while True:
            with self._stored(name):
                loaded = self.loader.load(name)
                records = None if loaded.done.knows_undo() else self.loader.log_of(name, loaded)
            if records is None:  # the history names the command an undo voids (engine.kernel.rewind)
                if not loaded.done.done:
                    break
                first = loaded.done.done[-1].first
            else:
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
        secret = json.dumps({"declaration": msgspec.to_builtins(declaration), "salt": salt})
        return self.execute(name, cmd.SealDeclaration(combatant=who.name, seal=seal),
                            secrets={f"seal:{seal}": secret})

    def reveals(self, state: FightState, names: Sequence[str], ask: bool = True) -> tuple[cmd.Reveal, ...]:
        """The sealed choices of these fighters, read from the GM's secrets to open the seals (`ask`: a seal
        kept on a player's device is asked for, service.secrets; the odds ask for none)."""
        return self.keeper.reveals(state, names, ask)

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
        unrevealed = {s.key: s.value for s in source.secrets.export() if s.fight == state.fight_id and not s.revealed}
        if unrevealed:
            self.keeper.put(state.fight_id, unrevealed)
        kept = self.caches.of(name, state, rows[-1].seq, rows[-1].hash, info.fight_id)
        self.caches.append(name, 0, rows, kept,
                           create=FightInfo(name, info.fight_id, created_at=self.clock()))
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
