"""What the exact odds are built from: every roll of the dice a pure function asks for, each with its exact
probability (`every_roll`), and a state folded forward by events (`apply`), as the store would fold them.

Each ruleset's package declares its own odds (`odds` module, `ODDS`: an `OddsProfile`) from these; the fold is
handed in (`Fold`: `engine.evolve` folds with every ruleset's events, and a ruleset's package sits below it),
and `engine.odds` weighs an action or a whole duel of any ruleset through its profile."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from itertools import combinations_with_replacement
from math import factorial
from typing import Any, Protocol, TypeVar

from msgspec import Struct

from fudge_combat.engine.kernel.dice import Dice, Roll
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events.records import Recorded

T = TypeVar("T")
ONE = Fraction(1)

# (the state, the recorded event) -> the state after it: the fold the odds apply events with (`engine.evolve`)
Fold = Callable[[FightState, Recorded], FightState]


class Chain(Protocol):
    """What a ruleset's step of a duel reads of the chain weighing it (`engine.odds.duel`): the match and its
    two fighters' keys, the rounds already weighed (by what they depend on), the key a state is merged by, and
    the fold."""

    @property
    def match(self) -> Any: ...

    @property
    def first(self) -> str: ...

    @property
    def second(self) -> str: ...

    @property
    def settled(self) -> dict[Hashable, Any]: ...

    def key(self, state: FightState) -> Hashable: ...

    def apply(self, state: FightState, events: Sequence[Any]) -> FightState: ...


class Outcome(Struct, frozen=True):
    """One distinguishable result of an action: its blows, each as (attacker, defender, graze, level marked).

    Levels index the ruleset's `levels` (Fudge's wound levels, or the box Fate's contest marked); `contests`:
    a blow is a contest won (Fate), told as "beats", not a hit or a graze.
    """

    blows: tuple[tuple[str, str, bool, int], ...]
    stuns: tuple[tuple[str, str], ...] = ()
    levels: tuple[str, ...] = ()
    contests: bool = False

    def label(self, kind: str, defender: str) -> str:
        if not self.blows and not self.stuns:
            return "stand-off" if kind == "exchange" else f"{defender} is not hit"
        if self.contests:
            return "; ".join(f"{a} beats {d}: {self.levels[level]}" for a, d, _, level in self.blows)
        parts = [f"{a} {'grazes' if graze else 'hits'} {d}: {self.levels[level] if level else 'no wound'}"
                 for a, d, graze, level in self.blows]
        parts += [f"{who}: {effect.replace('_', ' ')}" for who, effect in self.stuns]
        return "; ".join(parts)


class OddsProfile(Struct, frozen=True):
    """What the exact odds read of one ruleset: the names of the levels a fighter ends at, whether a blow can
    graze, the command of one action (from sheets, and in a running fight), what an action's events did, what a
    whole duel refuses, and the chain's steps (a fighter's key, whether he still acts, his level, one round's
    transitions). Each ruleset's package declares its own (its `odds` module's `ODDS`)."""

    name: str
    levels: tuple[str, ...]
    grazes: bool
    command: Callable[[FightState, Any], tuple[str, Any]]  # (state, match) -> ("exchange" or "attack", command)
    # (state, attacker, target, the reveals given) -> ("exchange" or "attack", command): his next blow in a fight
    command_now: Callable[[FightState, Any, Any, Sequence[Any]], tuple[str, Any]]
    outcome: Callable[[Sequence[Any]], Outcome]  # an action's events -> what they did
    effect_at: int  # the level of `levels` from which a blow did something (Fate: a margin of 0 does nothing)
    check_duel: Callable[[FightState], None]  # raises RuleError for a fight a duel chain cannot follow
    key: Callable[[FightState, str], Hashable]
    acts: Callable[[FightState, str], bool]
    level: Callable[[FightState, str], int]
    transitions: Callable[[Chain, FightState], dict[Hashable, tuple[Fraction, FightState]]]  # (chain, state)


def fudge_sums(count: int) -> tuple[tuple[int, int], ...]:
    """(total, ways) of `count` Fudge dice, out of 3**count (C-DICE-1): 4dF gives 1, 4, 10, 16, 19, ..."""
    ways: Counter[int] = Counter({0: 1})
    for _ in range(count):
        step: Counter[int] = Counter()
        for total, n in ways.items():
            for face in (-1, 0, 1):
                step[total + face] += n
        ways = step
    return tuple(sorted(ways.items()))


def faces_of(total: int, count: int) -> tuple[int, ...]:
    """One set of `count` Fudge faces with this total: pluses or minuses, then blanks."""
    sign = 1 if total > 0 else -1
    return tuple([sign] * abs(total) + [0] * (count - abs(total)))


def die_outcomes(count: int, sides: int | None) -> list[tuple[Fraction, tuple[int, ...]]]:
    """Every distinguishable result of one roll with its probability: dF by total, dN by sorted faces."""
    if sides is None:
        return [(Fraction(ways, 3 ** count), faces_of(total, count)) for total, ways in fudge_sums(count)]
    out = []
    for faces in combinations_with_replacement(range(1, sides + 1), count):
        arrangements = factorial(count)
        for n in Counter(faces).values():
            arrangements //= factorial(n)
        out.append((Fraction(arrangements, sides ** count), faces))
    return out


class NeedRoll(Exception):
    """A roll past the script: `every_roll` branches on its results."""

    def __init__(self, count: int, sides: int | None) -> None:
        super().__init__(f"{count}d{sides or 'F'}")
        self.count, self.sides = count, sides


class ScriptedDice(Struct):
    """Dice that give the scripted faces in order, then ask `every_roll` to branch."""

    script: tuple[tuple[int, ...], ...]
    used: int = 0

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll:
        if self.used == len(self.script):
            raise NeedRoll(count, sides)
        faces = self.script[self.used]
        self.used += 1
        return Roll(faces, "entered", sides=sides)


def every_roll(run: Callable[[Dice], T]) -> list[tuple[Fraction, T]]:
    """`run` with every possible sequence of rolls it asks for, each with its probability (they sum to 1).

    `run` must be pure: the same dice give the same rolls asked for and the same result.
    """
    out: list[tuple[Fraction, T]] = []
    pending: list[tuple[tuple[tuple[int, ...], ...], Fraction]] = [((), ONE)]
    while pending:
        script, chance = pending.pop()
        try:
            result = run(ScriptedDice(script))
        except NeedRoll as need:
            pending += [(script + (faces,), chance * p) for p, faces in reversed(die_outcomes(need.count, need.sides))]
            continue
        out.append((chance, result))
    return out


def tally(weighted: Sequence[tuple[Fraction, Hashable]]) -> dict[Any, Fraction]:
    total: dict[Any, Fraction] = {}
    for chance, key in weighted:
        total[key] = total.get(key, Fraction(0)) + chance
    return total


def apply(fold: Fold, state: FightState, events: Sequence[Any]) -> FightState:
    """Fold events into the state with `fold`, as the store would after appending them."""
    for event in events:
        state = fold(state, Recorded(fight=state.fight_id or "odds", seq=state.last_seq + 1, command="odds",
                                     at="", prev="", event=event))
    return state


def add_chance(grouped: dict[Any, tuple[Fraction, Any]], key: Hashable, chance: Fraction, value: Any) -> None:
    """`chance` added to the group `key` (its first `value` kept): outcomes the chain cannot tell apart, merged."""
    before = grouped.get(key)
    grouped[key] = ((before[0] if before else Fraction(0)) + chance, before[1] if before else value)


def states_by_key(chain: Chain, start: FightState,
                  by_marks: Mapping[Any, tuple[Fraction, Sequence[Any]]]) -> dict[Any, tuple[Fraction, FightState]]:
    """Each distinct set of marks applied once to `start`, the chances of states with the same key of the
    chain added up."""
    out: dict[Any, tuple[Fraction, FightState]] = {}
    for chance, marks in by_marks.values():
        after = chain.apply(start, marks)
        add_chance(out, chain.key(after), chance, after)
    return out
