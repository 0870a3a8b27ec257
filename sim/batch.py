"""A simulation run from start to statistics: the setup checked, the fights run on an executor, the
statistics, and the sample fights kept in a store. The command line only reads files and renders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.sim import MAX_FIGHTS
from fudge_combat.sim.parallel import Tls, check_pool, executor_for, simulate
from fudge_combat.sim.rulesets import view_of
from fudge_combat.sim.runner import Setup, check_setup, fast_plan, keep, opening_of, sides_of, simulate_range
from fudge_combat.sim.stats import Summary, Tally
from fudge_combat.service.fights import Fights


@dataclass(frozen=True)
class Batch:
    seed: int
    summary: Summary
    kept: list[dict[str, Any]] = field(default_factory=list)  # fight, index, rounds
    path: str = "engine"  # which path played the fights: "fast" (the ruleset's fast path) or "engine"


def kept_name(prefix: str, seed: int, index: int) -> str:
    return f"{prefix}-{seed}-{index}"


# The most sample fights a run keeps: each is written whole into the store, to be replayed and audited.
MAX_KEPT = 1_000


def check_run(n: int, keep_k: int) -> None:
    """The run's numbers, refused before any work with a line that says the bound."""
    if not 1 <= n <= MAX_FIGHTS:
        raise InputError(f"-n must be from 1 to {MAX_FIGHTS:,} fights: a billion pin every rate to within "
                         f"0.01%; for more, run again with another --seed")
    if not 0 <= keep_k <= MAX_KEPT:
        raise InputError(f"--keep must be from 0 to {MAX_KEPT:,}: each kept fight is stored whole")


def run_batch(setup: Setup, seed: int, n: int, *, jobs: int = 1, executor: str = "process",
              scheduler: str | None = None, progress: Callable[[int], None] | None = None,
              store: Callable[[], Fights] | None = None, keep_k: int = 0, prefix: str = "sim",
              tls: Tls | None = None) -> Batch:
    """Check the setup (one fight is played first, so a bad one is refused before any work), run `n`
    fights, summarize them as they come (no fight's result is held once counted), and keep `keep_k`
    samples in the store `store()` opens."""
    check_run(n, keep_k)
    check_pool(executor, jobs, scheduler, tls)
    check_setup(setup)
    opening = opening_of(setup)  # the fighters joined; worker processes forked from here inherit it
    probe = opening.state
    sides = sides_of(probe)
    if len(sides) < 2:
        raise InputError("everyone is on one side: give the sheets different sides (--side A --side B)")
    fights = store() if keep_k and store is not None else None
    if fights is not None and any(f.name.startswith(f"{prefix}-{seed}-") for f in fights.store.fights()):
        raise InputError(f"fights named {prefix}-{seed}-* are already in the store: pick another --name")
    names = [c.name for c in sorted(probe.combatants.values(), key=lambda c: c.joined_seq)]
    tally = Tally(len(names), keep_k if fights is not None else 0)
    tally.add(simulate_range(setup, seed, 0, 1))  # fight 0 first: a setup the driver cannot play is refused
    if progress:                                    # before any work; the workers play the others
        progress(1)
    with executor_for(executor, jobs, scheduler, tls) as pool:
        simulate(setup, seed, n, pool, progress, first=1, sink=tally.add)
    path = "fast" if fast_plan(setup, opening) is not None else "engine"  # as every range decides it
    batch = Batch(seed, tally.summary(sides, names, view_of(probe).levels), path=path)
    if fights is not None:  # each kept fight is written whole; the fight at the table stays current
        for index, rounds in tally.samples():
            name = kept_name(prefix, seed, index)
            keep(fights, setup, seed, index, name)
            batch.kept.append({"fight": name, "index": index, "rounds": rounds})
    return batch
