"""The shell around the core: load a fight, fold it, decide, append in one transaction."""

from __future__ import annotations

import json
import secrets as random_source
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, get_args

from engine import commands as cmd
from engine import history
from engine.dice import EnteredDice, SeededDice, commitment
from engine.errors import InputError, RuleError
from events import models as ev
from events.envelope import GENESIS, Recorded, chain_hash, load, load_all
from events.rows import Row
from engine.history import voided
from projections.fold import fold, replay
from engine.state import FightState
from store.base import EventStore, FightInfo, StoreError
from store.bulk import paused_gc
from store.log import log
from store.secrets import SecretBox
from store.views import ReadModel


def decide(state: FightState, command: Any, dice: Any) -> list[Any]:
    """engine.decide.decide, imported when a command is decided (reading a fight does not need it)."""
    from engine.decide import decide as run

    return run(state, command, dice)


def seal_of(declaration: ev.Declaration, salt: str) -> str:
    from engine.decide import seal_of as seal

    return seal(declaration, salt)


def seed_of(kept: str, committed: str) -> bytes | None:
    """The seed in hex `kept`, if it is the one the log committed to (A-FAIR-1); None if not."""
    try:
        seed = bytes.fromhex(kept)
    except ValueError:
        return None
    return seed if commitment(seed) == committed else None


class NoSeed:
    """The dice of a fight whose seed is not usable here: a roll that is not typed is refused, saying why."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Any:
        raise StoreError(self.problem)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class UnusedDice:
    """Faces typed for a roller that the command never rolled (a damage roll typed before a miss).

    Shown to the GM, never stored: they were not rolled, so no event and no state depends on them.
    """

    roller: str  # the combatant's name, or "(unnamed)" for dice typed without a name
    faces: tuple[tuple[int, ...], ...]  # each roll typed and not used, in the order typed
    rolled: tuple[str, ...]  # what this roller did roll in the command (purposes, in order)
    used: int = 0  # how many of the rolls typed for this roller (or without a name) were rolled


@dataclass(frozen=True)
class Outcome:
    """What one command appended, and the state after it."""

    records: tuple[Recorded, ...]
    state: FightState
    replayed: bool = False  # the command id was already applied: nothing new was written
    unused: tuple[UnusedDice, ...] = ()  # typed dice the command turned out not to need


@dataclass
class DiceInput:
    """Faces typed at the table: per roller (`NAME=FACES`) or for the one roller."""

    by_roller: dict[str, list[tuple[int, ...]]] = field(default_factory=dict)
    anyone: list[tuple[int, ...]] = field(default_factory=list)


@dataclass
class _Loaded:
    """A fight as the last read left it. Read its log through `Fights._log_of`, never `records`: a state
    that came from a snapshot has no log in memory until something needs it."""

    records: list[Recorded] | None  # None: the state came from a snapshot; the log is read when needed
    state: FightState
    last_hash: str
    last_seq: int = 0
    snapshot_seq: int | None = None  # the event the store's valid snapshot is at (None: none known)


_VOIDING_TYPES = frozenset(kind.model_fields["type"].default for kind in ev.VOIDING)


# The events that can carry a generated draw: only these are parsed when looking back for the latest.
_DRAW_TYPES = frozenset(kind.model_fields["type"].default for kind in get_args(get_args(ev.Event)[0])
                        if "draw" in kind.model_fields)


def _unused_dice(state: FightState, command: Any, source: EnteredDice) -> tuple[UnusedDice, ...]:
    """The typed dice this command did not roll, to be shown; dice typed for the wrong name are refused.

    Which rolls a command makes can depend on its own dice (a damage roll only after a hit), so the
    GM may type more than turns out to be needed: that is not an error. Dice typed for a name that
    rolled nothing and takes no part in the command are: a misspelled or wrong name, which would
    otherwise let the roll meant for someone else be generated behind the GM's back.
    """
    rolled = source.rolled
    out = []
    queues = [(key, queue, source.used.get(key, 0)) for key, queue in source.by_roller.items()]
    queues.append(("*", source.anyone, source.used.get("*", 0)))
    for key, queue, used in queues:
        if used >= len(queue):
            continue
        who = state.find(key) if key != "*" else None
        if key != "*" and used == 0 and key not in rolled and key not in _named_in(command):
            raise InputError(_wrong_roller(state, key, who, rolled))
        name = who.name if who is not None else ("(unnamed)" if key == "*" else key)
        out.append(UnusedDice(name, tuple(queue[used:]), tuple(rolled.get(key, ())), used))
    return tuple(out)


def _named_in(command: Any) -> set[str]:
    """Every name a command's fields hold, lowercased: the combatants who take part in it."""
    names: set[str] = set()
    pending = [getattr(command, field) for field in type(command).model_fields]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            names.add(value.strip().lower())
        elif isinstance(value, (tuple, list)):
            pending.extend(value)
    return names


def _wrong_roller(state: FightState, key: str, who: Any, rolled: dict[str, list[str]]) -> str:
    rollers = [found.name if (found := state.find(roller)) else roller for roller in rolled]
    here = f"rolling here: {', '.join(rollers)}" if rollers else "this command rolls no dice"
    if who is not None:
        return f"dice typed for {who.name}, who takes no part in this command ({here}): check the name"
    import difflib

    names = [c.name for c in state.combatants.values()]
    close = difflib.get_close_matches(key, [n.lower() for n in names], n=1, cutoff=0.6)
    hint = next((f"did you mean {n}? " for n in names if close and n.lower() == close[0]), "")
    return f"dice typed for {key}, but no one of that name is in {state.name}: {hint}{here}"


def named(state: FightState, name: str) -> FightState:
    """The state under the fight's name in this store: an imported log's first event holds the name it
    had where it was exported (`fudge import --as` gives another); the GM sees the one they gave."""
    return state if not state.name or state.name == name else replace(state, name=name)


class Fights:
    def __init__(self, store: EventStore, clock: Callable[[], str] = utc_now,
                 new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
                 random_bytes: Callable[[int], bytes] = random_source.token_bytes,
                 read_models: Sequence[ReadModel] = (), secrets: SecretBox | None = None) -> None:
        self.store = store
        self.secrets: SecretBox = secrets if secrets is not None else store.user_secrets()
        self._legacy_checked = False
        self.clock = clock
        self.new_id = new_id
        self.random_bytes = random_bytes
        self.read_models = tuple(read_models)  # views stored with every append (store.views)
        self._cache: dict[str, _Loaded] = {}

    # --- reading -----------------------------------------------------------------
    def log(self, name: str, upto: int | None = None) -> list[Recorded]:
        with paused_gc():
            return load_all(self.store.bodies(name, upto))

    def replayed(self, name: str, upto: int | None = None) -> tuple[list[Recorded], FightState]:
        """The log (to `upto`) and the state folded from it: every row parsed and validated, no snapshot."""
        with paused_gc():
            records = load_all(self.store.bodies(name, upto))
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

    # --- writing -----------------------------------------------------------------
    def _seed(self) -> tuple[bytes, str, str]:
        seed = self.random_bytes(32)
        return seed, commitment(seed), self.new_id()[:12]

    def _keep_seed(self, fight_id: str, seed: bytes, commit: str) -> None:
        """The new seed goes to the GM's secrets before its commitment goes to the log: a crash between
        leaves an unused secret, never a commitment without its seed."""
        self._move_legacy_secrets()
        self.secrets.put(fight_id, {f"seed:{commit}": seed.hex()})

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

    def new(self, name: str, rules: str, options: dict[str, Any], make_current: bool = True) -> Outcome:
        seed, commit, stream = self._seed()
        fight_id = self.new_id()
        command = cmd.StartFight(name=name, rules=rules, options=options, seed_commitment=commit, stream=stream)
        events = decide(FightState(), command, EnteredDice())
        records = self._records(fight_id, 1, GENESIS, self.new_id(), command, events)
        rows, state = self._rows(records), replay(records)
        self._keep_seed(fight_id, seed, commit)
        self.store.append(name, 0, rows, create=FightInfo(name, fight_id, created_at=self.clock()),
                          **self._caches_of(name, state, rows[-1].seq, rows[-1].hash, fight_id))
        if make_current:
            self.store.set_setting("current", name)
        log.info("fight started", fight=name, rules=rules)
        return Outcome(tuple(records), state)

    def execute(self, name: str, command: Any, dice: DiceInput | None = None,
                command_id: str | None = None, secrets: dict[str, str] | None = None) -> Outcome:
        """Decide `command` on the fight and append its events; `secrets` (the plaintext of a sealed
        declaration) go to the GM's secrets, under the fight's id, before the events are appended."""
        if command_id and self.store.has_command(name, command_id):
            return Outcome((), self.state(name), replayed=True)
        loaded = self._load(name)
        state, last_seq = loaded.state, loaded.last_seq
        if isinstance(command, cmd.Undo):
            records = self._log_of(name, loaded)
            target, _ = history.undo_target(records, voided(records))
            events: list[Any] = [ev.CommandUndone(target=target)]
            unused: tuple[UnusedDice, ...] = ()
        elif isinstance(command, cmd.Redo):
            records = self._log_of(name, loaded)
            undo, restores = history.redo_target(records, voided(records))
            events = [ev.CommandRedone(target=undo, restores=restores)]
            unused = ()
        else:
            source = self._dice(name, state, self._newest_first(name, loaded), dice or DiceInput())
            events = decide(state, command, source)
            unused = _unused_dice(state, command, source)
        new = self._records(state.fight_id or self._log_of(name, loaded)[0].fight, last_seq + 1, loaded.last_hash,
                            command_id or self.new_id(), command, events)
        rows = self._rows(new)
        if any(isinstance(e, ev.VOIDING) for e in events):
            everything: list[Recorded] | None = self._log_of(name, loaded) + new
            with paused_gc():
                after = replay(everything)  # type: ignore[arg-type]
        else:
            everything = loaded.records + new if loaded.records is not None else None
            after = fold(new, state)
        voiding = any(isinstance(e, ev.VOIDING) for e in events)
        caches = self._caches_of(name, after, rows[-1].seq, rows[-1].hash,
                                 since=None if voiding else loaded.snapshot_seq)
        if secrets:
            self._move_legacy_secrets()
            self.secrets.put(new[0].fight, secrets)
        self.store.append(name, last_seq, rows, **caches)
        log.info("command appended", fight=name, command=type(command).__name__, events=len(new))
        self._cache[name] = _Loaded(everything, after, rows[-1].hash, rows[-1].seq,
                                    rows[-1].seq if "snapshot" in caches else loaded.snapshot_seq)
        return Outcome(tuple(new), after, unused=unused)

    def _load(self, name: str) -> _Loaded:
        """The fight's log and state; reused from this process's last command when nothing was appended since.

        The log is append-only, so an unchanged last sequence number and hash mean an unchanged log.
        """
        tail = self.store.tail(name)
        cached = self._cache.get(name)
        if cached is not None and tail == (cached.last_seq, cached.last_hash):
            return cached
        found = self._from_snapshot(name, *tail)
        if found is not None:
            loaded = _Loaded(None, named(found[0], name), tail[1], tail[0], found[1])
        else:
            records, state = self.replayed(name, tail[0])  # the rows up to the tail read: one consistent log
            loaded = _Loaded(records, named(state, name), tail[1], tail[0])
        self._cache[name] = loaded
        return loaded

    def _log_of(self, name: str, loaded: _Loaded) -> list[Recorded]:
        """The whole log of a loaded fight (read now if its state came from a snapshot)."""
        if loaded.records is None:
            loaded.records = self.log(name, loaded.last_seq)
        return loaded.records

    def _newest_first(self, name: str, loaded: _Loaded) -> Iterator[Recorded]:
        """The events that can carry a draw, newest first, parsed as they are reached (`_dice` wants
        only the latest draw): the log in memory, or pages read backwards from the store."""
        if loaded.records is not None:
            return (record for record in reversed(loaded.records) if record.event.type in _DRAW_TYPES)
        return (load(row.body) for row in self._rows_back(name, loaded.last_seq) if row.type in _DRAW_TYPES)

    def _rows_back(self, name: str, seq: int) -> Iterator[Row]:
        """The log's rows from `seq` back, in pages growing fourfold: a few rows when the wanted one is
        recent, a few queries when it is far back."""
        reader = getattr(self.store, "rows_back", None)
        if reader is None:
            yield from reversed(self.store.read(name, seq))
            return
        size = 64
        while seq > 0:
            page = reader(name, seq, size)
            yield from page
            if len(page) < size:
                return
            seq, size = page[-1].seq - 1, size * 4

    # --- the cached projection (store.snapshots) ----------------------------------------
    def _from_snapshot(self, name: str, seq: int, last_hash: str) -> tuple[FightState, int] | None:
        """The state from the fight's snapshot and the events after it, if that is the same as a replay.

        Events after the snapshot are folded onto it unless one of them voids something: then
        the whole log is replayed (A-UNDO-2 may reach back before the snapshot).
        """
        reader = getattr(self.store, "snapshot", None)
        if reader is None or seq == 0:
            return None
        key = self.store.snapshot_key()  # type: ignore[attr-defined]
        snap = reader(name) if key is not None else None
        if snap is None or snap.seq > seq:
            return None
        rows = self.store.rows_from(name, snap.seq)  # type: ignore[attr-defined]
        if not rows or (rows[0].seq, rows[0].hash) != (snap.seq, snap.hash) or (rows[-1].seq, rows[-1].hash) != (
                seq, last_hash) or any(row.type in _VOIDING_TYPES for row in rows[1:]):
            return None
        from store import snapshots

        with paused_gc():
            state = snapshots.unpack(snap, self.store.fight(name).fight_id, snap.seq, snap.hash, key)
            if not isinstance(state, FightState):
                return None
            return fold(load_all(row.body for row in rows[1:]), state), snap.seq

    def _caches_of(self, name: str, state: FightState, seq: int, last_hash: str,
                   fight_id: str | None = None, since: int | None = None) -> dict[str, Any]:
        """`snapshot=` and `views=` for the store's append, when the store keeps them.

        The read models (store.views) are stored at every append: each is a small view of the
        new last event. Pickling and writing a snapshot cost in proportion to the fight, so one
        is written every `max(32, seq // 64)` events (a read parses and folds at most that many
        after it: a few ms), and after every command that voids events (a read could not fold
        past it).
        """
        snapshot_due = since is None or seq - since >= max(32, seq // 64)
        if not hasattr(self.store, "snapshot") or not (snapshot_due or self.read_models):
            return {}
        key = self.store.snapshot_key(create=True)  # type: ignore[attr-defined]
        if key is None:
            return {}  # nowhere to keep this user's key: no snapshots or views, reads fold the log
        fight_id = fight_id or self.store.fight(name).fight_id
        state = named(state, name)  # an imported fight's views show the name it was imported as
        out: dict[str, Any] = {}
        if self.read_models:
            from store import views

            out["views"] = tuple(view for model in self.read_models
                                 if (view := self._view(views, model, state, fight_id, seq, last_hash, key)))
        if snapshot_due:
            from store import snapshots

            out["snapshot"] = snapshots.pack(state, fight_id, seq, last_hash, key)
        return out

    @staticmethod
    def _view(views: Any, model: ReadModel, state: FightState, fight_id: str, seq: int, last_hash: str,
              key: bytes) -> Any:
        """A read model's view of the new state; a view that cannot be built is not stored (the query then
        computes it from the fight, as for any stale view), and never fails the command that was decided."""
        try:
            return views.pack(model, state, fight_id, seq, last_hash, key)
        except Exception as error:  # noqa: BLE001 - a view is a cache: the log is what must be written
            log.warning("read model not stored", view=model.name, error=repr(error))
            return None

    def _dice(self, name: str, state: FightState, newest_first: Iterable[Recorded], given: DiceInput) -> EnteredDice:
        fallback: Any = None
        if state.options.dice == "generated":
            seed, problem = self._fight_seed(name, state)
            if seed is None:
                fallback = NoSeed(problem)  # refused only if a roll is not typed
            else:
                start = next((r.event.draw + 1 for r in newest_first
                              if getattr(r.event, "stream", None) == state.stream
                              and getattr(r.event, "draw", None) is not None), 0)
                fallback = SeededDice(seed, state.stream, start)
        return EnteredDice(by_roller={k.lower(): v for k, v in given.by_roller.items()},
                           anyone=given.anyone, fallback=fallback, substitutes=state.options.dice_substitutes)

    def _fight_seed(self, name: str, state: FightState) -> tuple[bytes | None, str]:
        """The fight's current seed from the GM's secrets, checked against the commitment in its log (A-FAIR-1);
        or None and why not, in one line that says what to do."""
        self._move_legacy_secrets()
        key = f"seed:{state.commitment}"
        kept = self.secrets.get(state.fight_id, key)
        typed = "or type the dice with --dice NAME=FACES"
        if kept is None:
            return None, (f"the dice seed of fight {name} is not among this machine's secrets: "
                          f"`fudge secrets import FILE` brings them from the GM's other machine, {typed}")
        seed = seed_of(kept, state.commitment)
        if seed is None:
            return None, (f"the dice seed kept for fight {name} does not match the commitment in its log "
                          f"(A-FAIR-1): the seed or the log was changed; {typed}")
        if self.secrets.was_revealed(key):
            return None, (f"the dice seed of fight {name} was revealed in another fight's log: "
                          f"`fudge reveal-seed --fight {name}` commits a new one, {typed}")
        return seed, ""

    def _move_legacy_secrets(self) -> None:
        """Seeds and sealed declarations an older version kept in the store itself are moved to the GM's
        secrets, then deleted from the store: at the first write, once.

        Each is filed under the fight whose own event committed or sealed it. A fight whose secrets are
        already kept outside the store takes none from the store: a secret written into the store
        later (by whoever can write the file) is never adopted for a fight the GM already plays.
        """
        if self._legacy_checked:
            return
        self._legacy_checked = True
        found = self.store.legacy_secrets()
        if not found:
            return
        owners: dict[str, str] = {}
        for info in self.store.fights():
            for record in self.log(info.name):
                event = record.event
                if record.fight != info.fight_id:
                    continue  # a branch's prefix: the parent's own events file its secrets
                if isinstance(event, (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted)):
                    owners[f"seed:{event.seed_commitment}"] = record.fight
                elif isinstance(event, ev.DeclarationSealed):
                    owners[f"seal:{event.seal}"] = record.fight
        adopted: dict[str, dict[str, str]] = {}
        for key, value in found.items():
            if key in owners:
                adopted.setdefault(owners[key], {})[key] = value
        for fight_id, items in adopted.items():
            if not self.secrets.knows(fight_id):
                self.secrets.put(fight_id, items)
        self.store.forget_legacy_secrets()
        log.warning("secrets moved out of the store", store=str(getattr(self.store, "path", "")),
                    moved=sum(len(items) for items in adopted.values()))

    def undo_to(self, name: str, seq: int) -> list[Outcome]:
        outcomes = []
        while True:
            records = self._log_of(name, self._load(name))
            try:
                _, first = history.undo_target(records, voided(records))
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
        """The sealed choices of these fighters, read from the store's secrets to open the seals."""
        out = []
        for name in names:
            who = state.find(name)
            if who is None or who.key not in state.sealed:
                continue
            self._move_legacy_secrets()
            secret = self.secrets.get(state.fight_id, f"seal:{state.sealed[who.key][0]}")
            if secret is None:
                raise StoreError(f"{who.name}'s sealed declaration is not among this machine's secrets: "
                                 "`fudge secrets import FILE` brings them from the GM's other machine")
            data = json.loads(secret)
            out.append(cmd.Reveal(combatant=who.name, declaration=ev.Declaration.model_validate(data["declaration"]),
                                  salt=data["salt"]))
        return tuple(out)

    def branch(self, parent: str, name: str, at: int | None) -> Outcome:
        rows = self.store.read(parent)
        fork = at if at is not None else (rows[-1].seq if rows else 0)
        if not 1 <= fork <= len(rows):
            raise RuleError(f"{parent} has events 1..{len(rows)}; cannot branch at {fork}")
        if fork < len(rows) and rows[fork].command == rows[fork - 1].command:
            # A fork inside one command would keep half its events: a log `verify` rejects.
            first = next(r.seq for r in rows if r.command == rows[fork].command)
            last = max(r.seq for r in rows if r.command == rows[fork].command)
            raise RuleError(f"event {fork} is in the middle of one command (events {first}..{last}); "
                            f"branch at {first - 1} or {last}")
        prefix = rows[:fork]
        with paused_gc():
            state = replay(load_all(r.body for r in prefix))
        seed, commit, stream = self._seed()
        fight_id = self.new_id()
        command = cmd.StartBranch(name=name, parent=parent, fork_seq=fork, seed_commitment=commit, stream=stream)
        events = decide(state, command, EnteredDice())
        new = self._records(fight_id, fork + 1, prefix[-1].hash, self.new_id(), command, events)
        new_rows, after = self._rows(new), fold(new, state)
        self._keep_seed(fight_id, seed, commit)
        self._copy_seals(state, fight_id)
        self.store.append(name, 0, list(prefix) + new_rows,
                          create=FightInfo(name, fight_id, parent=parent, fork_seq=fork, created_at=self.clock()),
                          **self._caches_of(name, after, new_rows[-1].seq, new_rows[-1].hash, fight_id))
        self.store.set_setting("current", name)
        return Outcome(tuple(new), after)

    def _copy_seals(self, state: FightState, fight_id: str) -> None:
        """A branch opens the declarations still sealed at its fork as the parent would: it gets their
        plaintext under its own id (the dice seed it does not share: it has its own)."""
        items = {}
        for seal, _ in state.sealed.values():
            secret = self.secrets.get(state.fight_id, f"seal:{seal}")
            if secret is not None:
                items[f"seal:{seal}"] = secret
        if items:
            self.secrets.put(fight_id, items)

    def copy_in(self, source: Fights, name: str) -> Outcome:
        """Fight `name` of another service (a kept simulation played in memory) written into this store
        in one append, with its secrets not yet revealed; it does not become the current fight."""
        info = source.store.fight(name)
        rows = source.store.read(name)
        state = source.state(name)
        kept = {s.key: s.value for s in source.secrets.export() if s.fight == state.fight_id and not s.revealed}
        if kept:
            self._move_legacy_secrets()
            self.secrets.put(state.fight_id, kept)
        self.store.append(name, 0, rows, create=FightInfo(name, info.fight_id, created_at=self.clock()),
                          **self._caches_of(name, state, rows[-1].seq, rows[-1].hash, info.fight_id))
        return Outcome(tuple(source.log(name)), state)

    def export(self, name: str) -> list[str]:
        """The fight's rows as JSON lines. A row whose bytes no longer match its hash is not exported as if it
        were whole: the export names it (`fudge verify` tells the rest)."""
        lines = []
        for r in self.store.read(name):
            try:
                whole = chain_hash(r.body) == r.hash
            except (AttributeError, UnicodeError):  # a body stored as a blob, or not UTF-8
                whole = False
            if not whole:
                raise StoreError(f"{name}: event {r.seq}: its bytes do not match its hash: the event was altered; "
                                 f"`fudge verify {name}` checks the whole log")
            lines.append(json.dumps({"seq": r.seq, "hash": r.hash, "body": json.loads(r.body)}, sort_keys=True))
        return lines

    def import_(self, lines: Iterable[str], name: str) -> Outcome:
        """A log written by `export`, as a new fight; refused (nothing written) if `fudge verify` would
        reject it: the chain, the dice and the rules are checked, so a forged log never enters a store."""
        from engine.audit import verify
        from events.envelope import canonical

        rows = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                body = canonical(data["body"])
                rows.append(Row(int(data["seq"]), data["body"]["command"], data["body"]["event"]["type"],
                                body, data["hash"]))
            except (ValueError, KeyError, TypeError, RecursionError):
                raise InputError(f"line {number} is not an exported event") from None
        if not rows:
            raise InputError("nothing to import: the file has no events")
        report = verify(rows)
        if report.problems:
            seq, why = report.problems[0]
            raise InputError(f"refusing to import: event {seq}: {why}; nothing was imported")
        with paused_gc():
            state = replay(load_all(row.body for row in rows))
        seed, commit, stream = self._seed()
        fight_id = self.new_id()
        command = cmd.CommitSeed(seed_commitment=commit, stream=stream, reason=f"imported as {name}")
        events = decide(state, command, EnteredDice())
        new = self._records(fight_id, rows[-1].seq + 1, rows[-1].hash, self.new_id(), command, events)
        new_rows, after = self._rows(new), fold(new, state)
        self._keep_seed(fight_id, seed, commit)
        self.store.append(name, 0, rows + new_rows,
                          create=FightInfo(name, fight_id, created_at=self.clock()),
                          **self._caches_of(name, after, new_rows[-1].seq, new_rows[-1].hash, fight_id))
        return Outcome(tuple(new), after)

    def reveal_seed(self, name: str) -> Outcome:
        """A-FAIR-1: reveal the seeds this fight committed itself, and commit a new one for its next rolls.

        Only the fight's own commitments are revealed: a branch's log begins with its parent's events
        (and the parent's commitment), whose seed the parent still rolls with; an imported log carries
        the original's. Such a seed is added only once its own fight has revealed it (it is public
        then): until that, `verify` counts the rolls before the fork as unchecked.
        """
        self._move_legacy_secrets()
        own = self.store.fight(name).fight_id
        seeds, mine = [], False
        for record in self.log(name):
            event = record.event
            if not isinstance(event, (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted)):
                continue
            key = f"seed:{event.seed_commitment}"
            if record.fight == own or self.secrets.was_revealed(key):  # another fight's seed only once public
                secret = self.secrets.get(record.fight, key)
                if secret is not None:
                    seeds.append((event.seed_commitment, secret))
                    mine = mine or record.fight == own
        if not mine:
            raise StoreError(f"no dice seed of fight {name} is among this machine's secrets: nothing to reveal; "
                             "`fudge secrets import FILE` brings them from the GM's other machine")
        for committed, secret in seeds:
            if seed_of(secret, committed) is None:
                raise StoreError(f"the dice seed kept for fight {name} does not match its commitment "
                                 f"{committed[:12]} in the log (A-FAIR-1): nothing revealed")
        seed, commit, stream = self._seed()
        self._keep_seed(own, seed, commit)
        outcome = self.execute(name, cmd.RevealSeed(seeds=tuple(seeds), next_commitment=commit, next_stream=stream))
        self.secrets.mark_revealed(f"seed:{c}" for c, _ in seeds)
        return outcome
