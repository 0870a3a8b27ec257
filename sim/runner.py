"""Simulated fights: complete fights played by policies through the same commands, `decide` and `evolve`.

Every simulated fight has its own dice seed, derived from the master seed and
the fight's index, so a simulation's results do not depend on how its fights
are split between processes or machines.

A fight is played by `sim.driver.Driver`; two sessions run the same script
of commands, each through the service's step (`service.step.step`: decide,
record, fold) and its next-draw scan (`service.dice.next_draw`):
- `LightSession` (the simulation's): the step on records kept in memory, without
  the stored envelope's JSON body and hash chain, which only a store needs, and
  without an append;
- `ServiceSession`: the `Fights` service over any store (a kept sample fight
  is re-played into the real store this way, and `fudge verify` checks it).
Both derive dice the same way from the same seed and stream, so the same index
gives the same fight (tests/test_sim.py checks it event by event).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from msgspec import Struct

from msgspec.structs import replace as with_fields

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import decide
from fudge_combat.engine.kernel.dice import EnteredDice, SeededDice, commitment
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.events.records import Recorded
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.service.dice import next_draw
from fudge_combat.service.fights import Fights
from fudge_combat.service.step import step
from fudge_combat.engine.kernel.registry import FastDuel, ruleset_part
from fudge_combat.sim import DEFAULT_MAX_ROUNDS, MAX_ROUNDS
from fudge_combat.sim import driver
from fudge_combat.sim.policies import POLICIES
from fudge_combat.sim.rulesets import view_of
from fudge_combat.store.memory import MemoryStore


class Entrant(Struct, frozen=True):
    """A combatant of a simulated fight: a sheet as `join` stores it, with its side and name."""

    sheet: dict[str, Any]
    source: str
    side: str | None = None
    name: str | None = None
    policy: str | None = None  # this combatant's policy (None: the setup's)


class Setup(Struct, frozen=True):
    """Everything a simulated fight needs, picklable so worker processes (or a cluster) can run it."""

    rules: str
    options: dict[str, Any]  # resolved RuleOptions, as `fudge new` stores them
    entrants: tuple[Entrant, ...]
    policy: str = "plain"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    fast: bool = True  # False: every fight through the engine, even one the fast path takes (`--engine`)


class FightResult(NamedTuple):
    """What a fight's statistics read. A named tuple: a run makes one per fight and sends them back from its
    workers as plain tuples (`sim.parallel`), where a dataclass pickled one by one cost a large share
    of a fast run."""

    index: int  # type: ignore[assignment]  # a field named as tuple's method, which nothing here calls
    winner: int | None  # index in `sides`; None: a draw (everyone out, or the round cap)
    rounds: int
    levels: tuple[str, ...]  # the name of each combatant's final wound, in join order (`sim.rulesets.View`)


# --- seeds ---------------------------------------------------------------------------

def fight_seed(master: int, index: int) -> bytes:
    """The dice seed of simulated fight `index` of a run with this master seed."""
    return hashlib.sha256(f"fudge-sim:{master}:{index}".encode()).digest()


def derived_bytes(seed: bytes) -> Callable[[int], bytes]:
    """`random_bytes` for the service: the fight seed first, then bytes derived from it (later seeds)."""
    counter = itertools.count()

    def take(n: int) -> bytes:
        k = next(counter)
        if k == 0 and n == len(seed):
            return seed
        return hashlib.sha256(seed + b":bytes:" + str(k).encode()).digest()[:n]
    return take


def derived_ids(seed: bytes) -> Callable[[], str]:
    """`new_id` for the service: ids (fight id, dice stream, command ids) derived from the fight seed."""
    counter = itertools.count()
    return lambda: hashlib.sha256(seed + b":id:" + str(next(counter)).encode()).hexdigest()[:32]


# --- sessions ---------------------------------------------------------------------------

class Session(driver.Session, Protocol):
    opening: Opening | None  # the run's opening, when the session starts from it (its joins are then skipped)

    def start(self, name: str, rules: str, options: dict[str, Any]) -> FightState: ...


class LightRecord(Struct):
    """What `evolve` and `fold` read of a stored record (the fight, the sequence, the command, the event)."""

    fight: str
    seq: int
    command: str
    event: Any


class Opening(Struct, frozen=True):
    """A fight's first commands (start, joins), decided and folded once for a run: every fight of a run
    opens with the same events but for its seed commitment, dice stream and fight id."""

    records: tuple[LightRecord, ...]
    state: FightState
    ids_used: int

    @classmethod
    def of(cls, setup: Setup) -> Opening:
        session = LightSession(fight_seed(0, 0))
        play_opening(session, setup)
        return cls(tuple(session.records), session.state, session.ids_used)


class LightSession:
    """`Fights.execute`'s step (`service.step.step`) on records kept in memory, with nothing appended.

    Ids and dice stream come from the fight seed exactly as `Fights` with
    `derived_ids`/`derived_bytes` makes them; records carry no JSON body and no
    hash (only a store needs them).
    """

    def __init__(self, seed: bytes, opening: Opening | None = None) -> None:
        self.seed = seed
        self.new_id = derived_ids(seed)
        self.ids_used = 0
        self.records: list[Any] = []
        self.state = FightState()
        self.next_draw = 0
        self.fight_id = ""
        self.opening = opening

    def _id(self) -> str:
        self.ids_used += 1
        return self.new_id()

    def start(self, name: str, rules: str, options: dict[str, Any]) -> FightState:
        stream = self._id()[:12]  # the order `Fights.new` draws ids in: stream, fight id, command id
        self.fight_id = self._id()
        if self.opening is not None:
            return self._open(self.opening, stream)
        command = cmd.StartFight(name=name, rules=rules, options=options,
                                 seed_commitment=commitment(self.seed), stream=stream)
        self._step(command, EnteredDice())
        return self.state

    def _open(self, opening: Opening, stream: str) -> FightState:
        """The opening with this fight's seed commitment, stream and id (its joins are then skipped)."""
        for _ in range(opening.ids_used - self.ids_used):
            self._id()
        commit = commitment(self.seed)
        first = opening.records[0]
        started = with_fields(first.event, seed_commitment=commit, stream=stream)
        self.records = [LightRecord(self.fight_id, first.seq, first.command, started),
                        *(LightRecord(self.fight_id, r.seq, r.command, r.event) for r in opening.records[1:])]
        self.state = replace(opening.state, fight_id=self.fight_id, stream=stream, commitment=commit)
        return self.state

    def execute(self, command: Any) -> tuple[FightState, list[Any]]:
        new = self._step(command, SeededDice(self.seed, self.state.stream, self.next_draw))
        return self.state, new

    def _step(self, command: Any, dice: Any) -> list[LightRecord]:
        """The step; then the log grows by its records and the stream goes on after their last draw."""
        stream = self.state.stream
        new, self.state, whole = step(decide, self.state, command, dice, self._log, self._record)
        if whole is None:
            self.records.extend(new)
        else:
            self.records = whole
        self.next_draw = next_draw(reversed(new), stream, self.next_draw)
        return new

    def _log(self) -> list[Any]:
        return self.records

    def _record(self, events: Sequence[Any]) -> list[LightRecord]:
        command_id = self._id()
        seq = len(self.records)
        return [LightRecord(self.fight_id, seq + i + 1, command_id, e) for i, e in enumerate(events)]


class ServiceSession:
    """The `Fights` service over a store: what a kept fight is played through."""

    def __init__(self, fights: Fights, name: str) -> None:
        self.fights = fights
        self.name = name
        self.state = FightState()
        self.opening: Opening | None = None

    def start(self, name: str, rules: str, options: dict[str, Any]) -> FightState:
        self.state = self.fights.new(self.name, rules, options).state
        return self.state

    def execute(self, command: Any) -> tuple[FightState, list[Recorded]]:
        outcome = self.fights.execute(self.name, command)
        self.state = outcome.state
        return self.state, list(outcome.records)


def check_setup(setup: Setup) -> None:
    for policy in (setup.policy, *(e.policy for e in setup.entrants if e.policy)):
        if policy not in POLICIES:
            raise InputError(f"unknown policy {policy!r}; policies: {', '.join(POLICIES)}")
    if setup.options.get("dice") == "entered":
        raise InputError("a simulation rolls its dice: drop `dice = \"entered\"` from the house rules")
    if setup.options.get("pace") == "story":
        raise InputError("a story-paced fight is narrated by the GM: the simulator plays simultaneous or "
                         "alternating pace")
    if not 1 <= setup.max_rounds <= MAX_ROUNDS:
        raise InputError(f"--max-rounds must be from 1 to {MAX_ROUNDS:,}: a fight still on after that many "
                         f"rounds is a draw")


def play_opening(session: Session, setup: Setup, name: str = "sim") -> None:
    session.start(name, setup.rules, setup.options)
    if session.opening is None:
        for entrant in setup.entrants:
            session.execute(cmd.Join(sheet=entrant.sheet, source=entrant.source, side=entrant.side,
                                     name=entrant.name))


def play(session: Session, setup: Setup, name: str = "sim") -> FightState:
    """One complete fight: start, joins, then the pace's script until one side stands or the round cap."""
    play_opening(session, setup, name)
    joined = sorted(session.state.combatants.values(), key=lambda c: c.joined_seq)
    policies = {who.key: POLICIES[entrant.policy or setup.policy] for who, entrant in zip(joined, setup.entrants)}
    driver.Driver(session, policies, setup.max_rounds).run()
    return session.state


def sides_of(state: FightState) -> list[str]:
    """The sides in the order their first member joined."""
    out: list[str] = []
    for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
        if who.side not in out:
            out.append(who.side)
    return out


def result_of(index: int, state: FightState) -> FightResult:
    view = view_of(state)
    standing = {c.side for c in state.combatants.values() if view.able(state, c)}
    sides = sides_of(state)
    winner = sides.index(standing.pop()) if len(standing) == 1 else None
    levels = tuple(view.wound(state, c) for c in sorted(state.combatants.values(), key=lambda c: c.joined_seq))
    return FightResult(index, winner, view.rounds(state), levels)


def simulate_one(setup: Setup, master: int, index: int, opening: Opening | None = None) -> FightResult:
    """Fight `index` played by the engine (whatever the setup)."""
    return result_of(index, play(LightSession(fight_seed(master, index), opening), setup))


def simulate_fast(duel: FastDuel, master: int, index: int) -> FightResult:
    """Fight `index` played by its ruleset's fast path (`engine.rulesets.<name>.fast`): the same result as
    `simulate_one`."""
    winner, rounds, levels = duel.play(fight_seed(master, index))
    return FightResult(index, winner, rounds, levels)


def fast_plan(setup: Setup, opening: Opening) -> FastDuel | None:
    """The fight's ruleset's fast path, if it has one and it takes this setup (it checks what it was proven on)."""
    if not setup.fast:
        return None
    fast = ruleset_part(opening.state.options.ruleset, "fast")
    duel: FastDuel | None = fast.plan(setup, opening) if fast is not None else None
    return duel


def simulate_range(setup: Setup, master: int, start: int, stop: int,
                   opening: Opening | None = None) -> list[FightResult]:
    """Fights start..stop-1: the unit of work a process, or a cluster's worker, runs. A setup the fast
    path was proven on (its ruleset's `fast.plan`, `fast_plan`) is played by it, any other by the engine.

    `opening`: the setup's `Opening`, when the caller has it (else this thread's, `opening_of`)."""
    opening = opening or opening_of(setup)
    duel = fast_plan(setup, opening)
    if duel is not None:
        return [simulate_fast(duel, master, index) for index in range(start, stop)]
    return [simulate_one(setup, master, index, opening) for index in range(start, stop)]


_openings = threading.local()


def opening_of(setup: Setup) -> Opening:
    """The setup's `Opening`, decided and folded once per thread for the last setup it ran: a worker runs
    many ranges of one run. Per thread, because folding from a state is not safe across threads (its
    persistent maps share one dict between versions: `engine.kernel.pmap`)."""
    kept = getattr(_openings, "last", None)
    if kept is not None and kept[0] == setup:
        return kept[1]
    opening = Opening.of(setup)
    _openings.last = (setup, opening)
    return opening


def keep(fights: Fights, setup: Setup, master: int, index: int, name: str) -> FightState:
    """Play fight `index` again with the same seed and ids, reveal its seed (so `fudge verify` re-derives
    every die and re-runs every command), then write it into the real store whole.

    It is played on a scratch in-memory store and written in one transaction: a run killed midway
    leaves each kept fight whole or absent, and the store's current fight as it was. The seed
    committed after the reveal comes from the real service's random source, not from the fight's
    (public) seed: whoever reads the revealed seed cannot predict the kept fight's next rolls, and a
    fight's seed says nothing of the master seed or of the other fights' seeds (each is a hash).
    """
    seed = fight_seed(master, index)
    scratch = Fights(MemoryStore(), clock=fights.clock, new_id=derived_ids(seed), random_bytes=derived_bytes(seed))
    play(ServiceSession(scratch, name), setup, name)
    scratch.random_bytes = fights.random_bytes
    scratch.reveal_seed(name)
    return fights.copy_in(scratch, name).state

