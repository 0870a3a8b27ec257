"""What a batch of simulated fights says: rates with Wilson intervals, distributions as counts."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Sequence
from operator import itemgetter
from typing import Any, NamedTuple

from msgspec import Struct

from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.sim.runner import FightResult

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


class Rate(Struct, frozen=True):
    count: int
    rate: float
    low: float
    high: float


class Summary(Struct, frozen=True):
    fights: int
    sides: tuple[str, ...]
    combatants: tuple[str, ...]
    wins: tuple[Rate, ...]  # per side
    draws: Rate
    mean_rounds: float
    median_rounds: float
    rounds: dict[int, int]  # rounds -> fights
    final_levels: tuple[dict[str, int], ...]  # per combatant: level name -> fights

    def as_json(self) -> dict[str, Any]:
        def rate(r: Rate) -> dict[str, Any]:
            return {"count": r.count, "rate": r.rate, "ci95": [r.low, r.high]}
        return {
            "fights": self.fights,
            "sides": {side: rate(w) for side, w in zip(self.sides, self.wins)},
            "draws": rate(self.draws),
            "rounds": {"mean": self.mean_rounds, "median": self.median_rounds,
                       "distribution": {str(k): v for k, v in sorted(self.rounds.items())}},
            "final_wounds": {name: levels for name, levels in zip(self.combatants, self.final_levels)},
        }


def rate_of(count: int, n: int) -> Rate:
    low, high = wilson(count, n)
    return Rate(count, count / n if n else 0.0, low, high)


def median(values: Sequence[int]) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    middle = len(ordered) // 2
    return float(ordered[middle]) if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


_winner, _rounds, _levels = itemgetter(1), itemgetter(2), itemgetter(3)  # `FightResult` fields, or its plain tuple


class Tally:
    """What a run's statistics read, counted as the fights come, in any order, so a run holds no fight's
    result once counted: its memory does not grow with the number of fights. It counts winners, lengths
    and final wounds, and with `keep`, for each length, the `keep` lowest-numbered fights of that length:
    all that `samples` can pick (it takes fights of one length in index order, at most `keep` in all)."""

    def __init__(self, combatants: int, keep: int = 0) -> None:
        self.fights = 0
        self.winners: Counter[int | None] = Counter()
        self.rounds: Counter[int] = Counter()
        self.levels: list[Counter[str]] = [Counter() for _ in range(combatants)]
        self.keep = keep
        self.lowest: dict[int, list[int]] = {}  # rounds -> the `keep` lowest fight indexes, as a max-heap (negated)

    def add(self, results: Sequence[tuple[Any, ...]]) -> None:
        """Count a range's results (`FightResult`s or their plain tuples)."""
        self.fights += len(results)
        self.winners.update(map(_winner, results))  # maps, not generators: a parallel run waits for this part
        self.rounds.update(map(_rounds, results))
        finals = list(map(_levels, results))
        for i, counter in enumerate(self.levels):
            counter.update(map(itemgetter(i), finals))
        if self.keep:
            for result in results:
                self._keep(result[2], result[0])

    def merge(self, other: Tally) -> None:
        """Count another tally's fights as if they had been added here (a worker's ranges, counted there)."""
        self.fights += other.fights
        self.winners.update(other.winners)
        self.rounds.update(other.rounds)
        for mine, theirs in zip(self.levels, other.levels):
            mine.update(theirs)
        if self.keep:
            for rounds, heap in other.lowest.items():
                for negated in heap:
                    self._keep(rounds, -negated)

    def _keep(self, rounds: int, index: int) -> None:
        heap = self.lowest.setdefault(rounds, [])
        if len(heap) < self.keep:
            heapq.heappush(heap, -index)
        elif -heap[0] > index:
            heapq.heapreplace(heap, -index)

    def median(self) -> float:
        """The median length, read off the counts."""
        n = self.fights
        if not n:
            return 0.0
        wanted = [(n - 1) // 2, n // 2]  # the middle one, or the two middle ones, of the sorted lengths
        found: list[int] = []
        seen = 0
        for rounds, count in sorted(self.rounds.items()):
            while wanted and wanted[0] < seen + count:
                found.append(rounds)
                wanted.pop(0)
            seen += count
        return float(found[0]) if found[0] == found[1] else (found[0] + found[1]) / 2

    def summary(self, sides: Sequence[str], combatants: Sequence[str], order: Sequence[str] = LEVELS) -> Summary:
        """`order`: the wound names least hurt first (`sim.rulesets.View.levels`)."""
        n = self.fights
        rank = {name: i for i, name in enumerate(order)}
        return Summary(
            fights=n, sides=tuple(sides), combatants=tuple(combatants),
            wins=tuple(rate_of(self.winners.get(i, 0), n) for i in range(len(sides))),
            draws=rate_of(self.winners.get(None, 0), n),
            mean_rounds=sum(r * c for r, c in self.rounds.items()) / n if n else 0.0,
            median_rounds=self.median(),
            rounds=dict(sorted(self.rounds.items())),
            final_levels=tuple(dict(sorted(c.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))
                               for c in self.levels),
        )

    def samples(self) -> list[tuple[int, int]]:
        """(index, rounds) of the `keep` fights worth keeping (`samples`), from the fights counted."""
        pool = [Pick(-negated, rounds) for rounds, heap in self.lowest.items() for negated in heap]
        by_index = {pick.index: pick.rounds for pick in pool}
        return [(index, by_index[index]) for index in samples(pool, self.keep, self.median())]


class Pick(NamedTuple):
    index: int  # type: ignore[assignment]  # a field named as tuple's method, which nothing here calls
    rounds: int


def summarize(results: Sequence[FightResult], sides: Sequence[str], combatants: Sequence[str],
              order: Sequence[str] = LEVELS) -> Summary:
    """`order`: the wound names least hurt first (`sim.rulesets.View.levels`)."""
    tally = Tally(len(combatants))
    tally.add(results)
    return tally.summary(sides, combatants, order)


def samples(results: Sequence[FightResult | Pick], k: int, middle: float | None = None) -> list[int]:
    """Indexes of `k` fights worth keeping: the closest to the median length first, then the longest and
    the shortest (the most extreme), alternating, each fight once. `middle`: the median length of the
    whole run, when `results` are only the fights that may be picked (`Tally.samples`)."""
    if k <= 0 or not results:
        return []
    if middle is None:
        middle = median([r.rounds for r in results])
    near = sorted(results, key=lambda r: (abs(r.rounds - middle), r.index))
    longest = sorted(results, key=lambda r: (-r.rounds, r.index))
    shortest = sorted(results, key=lambda r: (r.rounds, r.index))
    chosen: list[int] = []
    queues = [iter(near), iter(longest), iter(shortest)]
    while len(chosen) < min(k, len(results)):
        for queue in queues:
            for r in queue:
                if r.index not in chosen:
                    chosen.append(r.index)
                    break
            if len(chosen) >= min(k, len(results)):
                break
    return chosen


def render(summary: Summary, policy: str, rules: str, seed: int) -> str:
    lines = [f"{summary.fights} fights under {rules}, policy {policy}, seed {seed}"]
    width = max([len(s) for s in summary.sides] + [5])
    for side, w in zip(summary.sides, summary.wins):
        lines.append(f"  {side:<{width}}  wins {w.rate:7.2%}  (95% CI {w.low:.2%} .. {w.high:.2%})  {w.count}")
    d = summary.draws
    lines.append(f"  {'draws':<{width}}       {d.rate:7.2%}  (95% CI {d.low:.2%} .. {d.high:.2%})  {d.count}")
    lines.append(f"rounds: mean {summary.mean_rounds:.2f}, median {summary.median_rounds:g}")
    most = max(summary.rounds.values(), default=1)
    for rounds, count in summary.rounds.items():
        bar = "#" * max(1, round(30 * count / most))
        lines.append(f"  {rounds:>4}  {count:>8}  {bar}")
    lines.append("final wounds:")
    for name, levels in zip(summary.combatants, summary.final_levels):
        shares = ", ".join(f"{level} {count / summary.fights:.1%}" for level, count in levels.items())
        lines.append(f"  {name}: {shares}")
    return "\n".join(lines)
