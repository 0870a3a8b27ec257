"""Properties of the event log over random GM sessions with entered dice (hypothesis).

A session is a 2-3 fighter `fudge` fight (damage roll 4dF_limited, every roll
typed at the table): joins, declarations, exchanges, trait rolls, fudge-point
spends, new rounds, undo and redo, each with dice faces hypothesis chooses.

A-REPLAY-1: after every command, the state the command returned equals the state
            replayed from the store's log.
A-UNDO-1:   undo then redo changes nothing; an undo brings back the state from just
            before the command it voids.
A-BRANCH-1: a branch at N has exactly the parent's effective state as of N, and a
            fork inside one command is refused without writing anything.
A-VERIFY-1: no command sequence corrupts the hash chain (or the rules re-check),
            on SQLite as on memory.
A-LOG-1:    a refused command (RuleError, InputError) writes nothing: the store's
            last sequence number and rows are unchanged.
C-DICE-3:   one roll typed too few is refused; one too many is not rolled, and reported unused.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fudge_combat.cli.render import status_json
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.decide import decide
from fudge_combat.engine.kernel.dice import Roll
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events.structs import Declaration
from fudge_combat.engine.kernel.history import voided
from fudge_combat.projections.fold import replay
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.service.fights import DiceInput, Fights, Outcome
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import make_fights, sheet, start

NAMES = ("Ann", "Bob", "Cid")
SHEETS = {
    "Ann": sheet("Ann", fudge_points=2, attributes={"Damage Capacity": "Fair", "Perception": "Good"},
                 skills={"Sword": "Good"}, attack="Sword", weapon=3, armor=1),
    "Bob": sheet("Bob", fudge_points=1, attributes={"Strength": "Good"},
                 skills={"Sword": "Great"}, attack="Sword", weapon=2, armor=2, shield="medium"),
    "Cid": sheet("Cid", fudge_points=3, attributes={"Damage Capacity": "Poor"},
                 skills={"Axe": "Fair"}, attack="Axe", weapon=4, armor=0),
}

# --- strategies -------------------------------------------------------------------

who = st.sampled_from(NAMES)
pair = st.permutations(NAMES).map(lambda names: names[:2])
face = st.sampled_from((-1, 0, 1))
roll_faces = st.tuples(face, face, face, face)
# Per roller, as many rolls as one command can need (an action roll and a damage roll, or a
# luck reroll and a fresh damage roll); a command that needs fewer gets a prefix.
dice_pool = st.fixed_dictionaries({name.lower(): st.lists(roll_faces, min_size=2, max_size=2) for name in NAMES})

exchange = st.one_of(
    st.builds(lambda p, m: cmd.Exchange(first=p[0], second=p[1], mods=m),
              pair, st.tuples(st.integers(-1, 1), st.integers(-1, 1))),
    st.builds(lambda p: cmd.Exchange(first=p[0], second=p[1]), pair),
    st.builds(lambda n: cmd.Exchange(first=n, second=n), who),  # refused: not with oneself
)
roll = st.one_of(
    st.builds(lambda a, t, d: cmd.RollTrait(combatant=a, trait=t, difficulty=d),
              who, st.sampled_from(["Sword", "Perception", None]), st.integers(-1, 3)),
    st.builds(lambda p: cmd.RollTrait(combatant=p[0], trait="Sword", opponent=p[1]), pair),
    st.builds(lambda a: cmd.RollTrait(combatant=a, trait="Perception", difficulty=1, advantage=True), who),
)
spend = st.builds(lambda a, u, s: cmd.SpendPoint(combatant=a, use=u, shift=s if u == "skill" else None),
                  who, st.sampled_from(["panache", "skill", "luck", "luck", "scratch", "ticking"]),
                  st.sampled_from([1, -1]))
command = st.one_of(
    exchange, exchange, exchange, roll, roll, spend, spend, spend,
    st.builds(lambda n: cmd.Join(sheet=SHEETS[n], source=f"{n.lower()}.toml"), st.sampled_from(NAMES)),
    st.builds(lambda n, o: cmd.Declare(combatant=n, declaration=Declaration(all_out=o)),
              who, st.sampled_from(["offense", "defense", None])),
    st.just(cmd.StartRound()),
    st.just(cmd.Undo()), st.just(cmd.Redo()),
)
# How the GM types the dice: exactly what the command needs, one roll too many, or one too few.
typing_ = st.sampled_from(["exact"] * 6 + ["extra", "short"])


@dataclass(frozen=True)
class Step:
    command: Any
    pool: dict[str, list[tuple[int, ...]]]
    typed: str = "exact"


step = st.builds(Step, command, dice_pool, typing_)


def blow_then_spend(pair: tuple[str, str], spender: int, use: str, shift: int) -> list[Any]:
    return [cmd.Exchange(first=pair[0], second=pair[1]),
            cmd.SpendPoint(combatant=pair[spender], use=use, shift=shift if use == "skill" else None)]


def roll_then_spend(name: str, use: str, shift: int) -> list[Any]:
    return [cmd.RollTrait(combatant=name, trait="Sword", difficulty=2),
            cmd.SpendPoint(combatant=name, use=use, shift=shift if use == "skill" else None)]


# A fudge point is spent on a fresh roll or blow: drawn as a pair, so spends are not nearly all refused.
spending = st.one_of(
    st.builds(blow_then_spend, pair, st.integers(0, 1),
              st.sampled_from(["skill", "luck", "scratch", "ticking"]), st.sampled_from([1, -1])),
    st.builds(roll_then_spend, who, st.sampled_from(["panache", "skill", "luck"]), st.sampled_from([1, -1])),
)
spend_steps = st.builds(lambda commands, pools: [Step(c, p) for c, p in zip(commands, pools)],
                        spending, st.lists(dice_pool, min_size=2, max_size=2))
moves = st.one_of(step.map(lambda one: [one]), step.map(lambda one: [one]), spend_steps)


def opening(names: tuple[str, ...]) -> list[Step]:
    return [Step(cmd.Join(sheet=SHEETS[n], source=f"{n.lower()}.toml"), {}) for n in names]


# A fight of Ann and Bob, or of all three; Cid may still join (or re-join) later.
session = st.builds(lambda names, moves: opening(names) + [one for move in moves for one in move],
                    st.sampled_from([NAMES[:2], NAMES]), st.lists(moves, min_size=3, max_size=16))

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- playing a session -------------------------------------------------------------

class CountingDice:
    """Hands out a pool's rolls per roller and counts them, to learn what a command needs."""

    def __init__(self, pool: dict[str, list[tuple[int, ...]]]) -> None:
        self.pool = pool
        self.used: dict[str, int] = {}

    def roll(self, roller: str, count: int, purpose: str) -> Roll:
        key = roller.lower()
        index = self.used.get(key, 0)
        self.used[key] = index + 1
        rolls = self.pool.get(key) or [(0, 0, 0, 0)]
        faces = rolls[index % len(rolls)]
        return Roll(tuple((faces * count)[:count]), "entered")


def typed_dice(state: FightState, step: Step) -> tuple[DiceInput, bool, str | None]:
    """The dice the GM types for a step, whether they are too few (the command must be refused), and
    the roller typed one roll too many for (C-DICE-3: the command goes on and reports it unused)."""
    if isinstance(step.command, (cmd.Undo, cmd.Redo)):
        return DiceInput(), False, None
    probe = CountingDice(step.pool)
    try:
        decide(state, step.command, probe)
    except RuleError:
        pass  # refused by the rules: the dice typed so far go in, and the shell must refuse it too
    by_roller = {key: list(step.pool[key][:n]) for key, n in probe.used.items() if key in step.pool}
    wrong, extra = False, None
    if step.typed == "extra":
        extra = next(iter(probe.used), "ann")
        by_roller.setdefault(extra, []).append((0, 0, 0, 0))
    elif step.typed == "short" and by_roller:
        key = next(iter(by_roller))
        by_roller[key].pop()
        if not by_roller[key]:
            del by_roller[key]
        wrong = True
    return DiceInput(by_roller=by_roller), wrong, extra


@dataclass
class Session:
    fights: Fights
    name: str
    state: FightState
    applied: list[tuple[Step, Outcome]] = field(default_factory=list)
    refused: int = 0
    before: dict[str, dict[str, Any]] = field(default_factory=dict)  # command id -> status just before it


def new_session(store: Any = None) -> Session:
    fights = make_fights(store)
    name = start(fights, "prop", damage_roll="4dF_limited", dice="entered")
    return Session(fights, name, fights.state(name))


def play(session: Session, steps: list[Step], after_each: Any = None) -> Session:
    """Apply each step; a refused one must write nothing (A-LOG-1)."""
    fights, name = session.fights, session.name
    for item in steps:
        given, wrong, extra = typed_dice(session.state, item)
        rows_before = fights.store.read(name)
        seq_before = fights.store.last_seq(name)
        status_before = status_json(session.state)
        try:
            outcome = fights.execute(name, item.command, given)
        except RuleError:  # the rules refuse it, or the dice typed do not fit (InputError is a RuleError)
            assert fights.store.last_seq(name) == seq_before, "A-LOG-1: a refused command appended events"
            assert fights.store.read(name) == rows_before, "A-LOG-1: a refused command changed the log"
            session.refused += 1
            continue
        assert not wrong, f"dice typed {item.typed} were accepted for {item.command!r}"
        unused = [(u.roller.lower(), u.faces) for u in outcome.unused]
        assert unused == ([(extra, ((0, 0, 0, 0),))] if extra else []), "C-DICE-3: the surplus roll is reported"
        assert outcome.records and outcome.records[0].seq == seq_before + 1
        assert outcome.state.last_seq == fights.store.last_seq(name) == outcome.records[-1].seq
        session.before[outcome.records[0].command] = status_before
        session.state = outcome.state
        session.applied.append((item, outcome))
        if after_each is not None:
            after_each(session, item, outcome)
    return session


def without(view: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in keys}


# --- properties ---------------------------------------------------------------------

def live_equals_replayed(session: Session, item: Step, outcome: Outcome) -> None:
    replayed = session.fights.state(session.name)  # read back from the store, folded afresh
    assert status_json(outcome.state) == status_json(replayed)
    assert outcome.state.last_seq == replayed.last_seq == session.fights.store.last_seq(session.name)
    assert outcome.state == replayed  # every projection, not only what `status` shows


@SETTINGS
@given(session)
def test_A_REPLAY_1_A_LOG_1_live_state_equals_replayed_state_after_every_command(steps):
    session = play(new_session(), steps, after_each=live_equals_replayed)
    log = session.fights.log(session.name)
    # "as of" any sequence number is the replay of the log cut there (A-REPLAY-1)
    for as_of in {1, len(log) // 2, len(log)}:
        assert session.fights.state(session.name, as_of) == replay(log[:as_of])
    assert verify(session.fights.store.read(session.name)).ok


def undo_restores_the_state_before(session: Session, item: Step, outcome: Outcome) -> None:
    """A-UNDO-1: an undo voids one command: the state is the one from just before that command."""
    if isinstance(item.command, cmd.Undo):
        target = outcome.records[0].event.target
        assert without(status_json(outcome.state), "last_seq") == \
            without(session.before[target], "last_seq")


@SETTINGS
@given(session)
def test_A_UNDO_1_undo_then_redo_changes_nothing(steps):
    session = play(new_session(), steps, after_each=undo_restores_the_state_before)
    fights, name = session.fights, session.name
    before = status_json(fights.state(name))
    try:
        undone = fights.execute(name, cmd.Undo())
    except RuleError:
        # nothing to undo: every command applied since the fight started is voided
        gone = voided(fights.log(name))
        assert all(o.records[0].seq in gone for i, o in session.applied
                   if not isinstance(i.command, (cmd.Undo, cmd.Redo)))
        return
    redone = fights.execute(name, cmd.Redo())
    after = status_json(fights.state(name))
    assert redone.records[0].event.target == undone.records[0].command
    assert after["last_seq"] == before["last_seq"] + 2
    assert without(after, "last_seq") == without(before, "last_seq")
    assert fights.state(name) == replay(fights.log(name))
    assert verify(fights.store.read(name)).ok


@SETTINGS
@given(session, st.integers(0, 10_000))
def test_A_BRANCH_1_a_branch_at_N_has_the_parents_effective_state_at_N(steps, pick):
    session = play(new_session(), steps)
    fights, name = session.fights, session.name
    rows = fights.store.read(name)
    parent_fights = fights.store.fights()
    inside = [r.seq for i, r in enumerate(rows[:-1]) if rows[i + 1].command == r.command]
    if inside:  # a fork between two events of one command is refused, and writes nothing
        try:
            fights.branch(name, "split", inside[pick % len(inside)])
        except RuleError:
            pass
        else:
            raise AssertionError("a branch inside one command was accepted")
        assert fights.store.fights() == parent_fights
    ends = [r.seq for i, r in enumerate(rows) if i + 1 == len(rows) or rows[i + 1].command != r.command]
    fork = ends[pick % len(ends)]
    fights.branch(name, "what-if", fork)
    child_rows = fights.store.read("what-if")
    assert child_rows[:fork] == rows[:fork]  # the parent's history up to N, byte for byte
    assert len(child_rows) == fork + 1  # and one event: the branch starting
    assert fights.store.read(name) == rows  # the parent is untouched
    parent_view = status_json(fights.state(name, as_of=fork))
    child_view = status_json(fights.state("what-if"))
    assert child_view["fight"] == "what-if" and child_view["last_seq"] == fork + 1
    assert without(child_view, "fight", "last_seq") == without(parent_view, "fight", "last_seq")
    info = fights.store.fight("what-if")
    assert (info.parent, info.fork_seq) == (name, fork)
    assert verify(child_rows).ok


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(session)
def test_A_VERIFY_1_A_LOG_1_no_command_sequence_corrupts_the_chain_on_sqlite(steps):
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "fudge.db")
        try:
            session = play(new_session(store), steps)
            rows = store.read(session.name)
            report = verify(rows)
            assert report.ok, report.problems
            assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
            # a second process (a fresh service on the same file) sees the same fight
            reader = Fights(SqliteStore(Path(folder) / "fudge.db"))
            assert reader.state(session.name) == session.state
            reader.store.close()
        finally:
            store.close()


@SETTINGS
@given(session)
def test_A_VERIFY_1_every_prefix_of_the_log_verifies(steps):
    """Each command is appended whole: the log cut after any command verifies too."""
    session = play(new_session(), steps)
    rows = session.fights.store.read(session.name)
    for _, outcome in session.applied:
        assert verify(rows[:outcome.records[-1].seq]).ok
