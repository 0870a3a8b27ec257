"""A simulation run from start to statistics: the setup checked, the fights run on an executor, the
statistics, and the sample fights kept in a store. The command line only reads files and renders."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from typing import Any

from msgspec import Struct, field

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.sim import MAX_FIGHTS
from fudge_combat.sim.parallel import Interrupted, Tls, check_pool, executor_for, simulate
from fudge_combat.sim.rulesets import view_of
from fudge_combat.sim.runner import Setup, check_setup, fast_plan, keep, opening_of, sides_of, simulate_range
from fudge_combat.sim.stats import Summary, Tally
from fudge_combat.service.fights import Fights
from fudge_combat.store.log import log


class Batch(Struct, frozen=True):
    seed: int
    summary: Summary
    kept: list[dict[str, Any]] = field(default_factory=list)  # fight, index, rounds
    path: str = "engine"  # which path played the fights: "fast" (the ruleset's fast path), "engine" or "batch"


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


# What a run's remaining work must cost in one process before local workers are started for it. A forked
# worker starts in a few milliseconds (it is a copy of this process: `sim.parallel.start_method`), and
# each range it plays is sent and gathered: below this the run is over before the workers would pay.
WORKERS_PAY_FROM = 0.05  # seconds of CPU
# How long the fights played here first, to weigh a fight, may take (they count as the run's own).
PROBE = 0.01  # seconds of CPU


def _probe(setup: Setup, seed: int, n: int, first: int, sink: Callable[[Any], None],
           progress: Callable[[int], None] | None) -> tuple[int, float]:
    """Play fights from `first` in this process, ranges doubling from one fight, until they have taken
    `PROBE` of CPU or the run is done: (the next fight to play, CPU seconds per fight). The results are
    the run's own (each fight's dice come from its index, whoever plays it)."""
    opening = opening_of(setup)
    start, size, spent = first, 1, 0.0
    while start < n and spent < PROBE:
        stop = min(n, start + size)
        began = time.process_time()
        sink(simulate_range(setup, seed, start, stop, opening))
        spent += time.process_time() - began
        if progress:
            progress(stop - start)
        start, size = stop, size * 2
    return start, spent / max(1, start - first)


def run_batch(setup: Setup, seed: int, n: int, *, jobs: int = 1, executor: str = "process",
              scheduler: str | None = None, progress: Callable[[int], None] | None = None,
              store: Callable[[], Fights] | None = None, keep_k: int = 0, prefix: str = "sim",
              tls: Tls | None = None, vectorised: bool = False) -> Batch:
    """Check the setup (one fight is played first, so a bad one is refused before any work), run `n`
    fights, summarize them as they come (no fight's result is held once counted), and keep `keep_k`
    samples in the store `store()` opens. `vectorised`: the fights played by the ruleset's batch kernel
    with the batch's dice, in this process (`sim.vector`, `fudge sim --batch`)."""
    check_run(n, keep_k)
    if vectorised:
        return run_vectorised(setup, seed, n, progress)
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
    first = 1
    if executor == "process" and jobs > 1:  # workers only where the work left outweighs starting them
        first, per_fight = _probe(setup, seed, n, first, tally.add, progress)
        left = (n - first) * per_fight
        if left < WORKERS_PAY_FROM:
            log.info("sim ran in this process alone: the fights left cost less than starting workers",
                     jobs=jobs, fights=n, work_s=round(left, 3), workers_pay_from_s=WORKERS_PAY_FROM)
            jobs = 1
        else:
            log.info("sim starts workers", jobs=jobs, fights=n, work_s=round(left, 3))
    with executor_for(executor, jobs, scheduler, tls) as pool:
        simulate(setup, seed, n, pool, progress, first=first, sink=tally)
    path = "fast" if fast_plan(setup, opening) is not None else "engine"  # as every range decides it
    batch = Batch(seed, tally.summary(sides, names, view_of(probe).levels), path=path)
    if fights is not None:  # each kept fight is written whole; the fight at the table stays current
        for index, rounds in tally.samples():
            name = kept_name(prefix, seed, index)
            keep(fights, setup, seed, index, name)
            batch.kept.append({"fight": name, "index": index, "rounds": rounds})
    return batch


def run_vectorised(setup: Setup, seed: int, n: int, progress: Callable[[int], None] | None = None) -> Batch:
    """`run_batch` with `vectorised`: a setup the ruleset's batch kernel does not take is refused."""
    from fudge_combat.sim import vector

    check_setup(setup)
    opening = opening_of(setup)
    taken = vector.kernel(setup, opening)
    if taken is None:
        raise InputError("--batch plays the duels a fast path takes (two fighters on two sides under the fudge or "
                         "fate preset, docs/sim.md): run this setup without --batch")
    probe = opening.state
    names = [c.name for c in sorted(probe.combatants.values(), key=lambda c: c.joined_seq)]
    tally = Tally(len(names))
    try:
        vector.play(*taken, seed, n, tally, progress)
    except KeyboardInterrupt as stop:
        raise Interrupted(tally.fights, n, getattr(stop, "signum", signal.SIGINT)) from None
    return Batch(seed, tally.summary(sides_of(probe), names, view_of(probe).levels), path="batch")
