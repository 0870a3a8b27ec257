"""A simulation run from start to statistics: the setup checked, the fights run on an executor, the
statistics, and the sample fights kept in a store. The command line only reads files and renders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import InputError
from sim.parallel import executor_for, simulate
from sim.rulesets import view_of
from sim.runner import Setup, check_setup, keep, opening_of, sides_of, simulate_range
from sim.stats import Summary, samples, summarize
from service.fights import Fights


@dataclass(frozen=True)
class Batch:
    seed: int
    summary: Summary
    kept: list[dict[str, Any]] = field(default_factory=list)  # fight, index, rounds


def kept_name(prefix: str, seed: int, index: int) -> str:
    return f"{prefix}-{seed}-{index}"


def run_batch(setup: Setup, seed: int, n: int, *, jobs: int = 1, executor: str = "process",
              scheduler: str | None = None, progress: Callable[[int], None] | None = None,
              store: Callable[[], Fights] | None = None, keep_k: int = 0, prefix: str = "sim") -> Batch:
    """Check the setup (one fight is played first, so a bad one is refused before any work), run `n`
    fights, summarize them, and keep `keep_k` samples in the store `store()` opens."""
    if n < 1:
        raise InputError("-n must be at least 1")
    if keep_k < 0:
        raise InputError("--keep must be 0 or more")
    check_setup(setup)
    probe = opening_of(setup).state  # the fighters joined; worker processes forked from here inherit it
    sides = sides_of(probe)
    if len(sides) < 2:
        raise InputError("everyone is on one side: give the sheets different sides (--side A --side B)")
    fights = store() if keep_k and store is not None else None
    if fights is not None and any(f.name.startswith(f"{prefix}-{seed}-") for f in fights.store.fights()):
        raise InputError(f"fights named {prefix}-{seed}-* are already in the store: pick another --name")
    played = simulate_range(setup, seed, 0, 1)  # fight 0 first: a setup the driver cannot play is refused
    if progress:                                  # before any work; the workers play the others
        progress(1)
    with executor_for(executor, jobs, scheduler) as pool:
        results = played + simulate(setup, seed, n, pool, progress, first=1)
    names = [c.name for c in sorted(probe.combatants.values(), key=lambda c: c.joined_seq)]
    batch = Batch(seed, summarize(results, sides, names, view_of(probe).levels))
    if fights is not None:  # each kept fight is written whole; the fight at the table stays current
        for index in samples(results, keep_k):
            name = kept_name(prefix, seed, index)
            keep(fights, setup, seed, index, name)
            batch.kept.append({"fight": name, "index": index, "rounds": results[index].rounds})
    return batch
