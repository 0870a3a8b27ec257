"""Running a simulation's fights on any `concurrent.futures.Executor`: this process, local processes, or a
Dask cluster (`distributed`, an optional extra).

The fights are split into index ranges; each range is one task, and each
fight's dice come from its index, so the results, put back in index order,
are the same whatever the executor or the number of jobs. With local processes
this process plays ranges too: `--jobs 2` is this process and one worker.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from engine.errors import InputError
from sim.runner import FightResult, Setup, opening_of, simulate_range

Progress = Callable[[int], None]


class Interrupted(Exception):
    """Ctrl-C during a run: how many of the fights were played when it stopped."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"interrupted after {done} of {total} fights")
        self.done, self.total = done, total


def chunks(n: int, jobs: int, size: int | None = None) -> list[tuple[int, int]]:
    """Index ranges covering 0..n-1, all of `size` when given. Else guided: each range is a quarter of each
    job's share of what is left (at most 2,000 fights, at least n/(64 jobs)), so the first ranges are
    large (few tasks to send and gather) and the last ones small: whoever runs out of ranges first waits
    for a small one, not for a sixteenth of the run, and the jobs finish nearly together."""
    if size is not None:
        return [(start, min(n, start + size)) for start in range(0, n, size)]
    least = max(1, n // (jobs * 64))
    out: list[tuple[int, int]] = []
    start = 0
    while start < n:
        step = min(2000, max(least, -(-(n - start) // (jobs * 4))))
        out.append((start, min(n, start + step)))
        start += step
    return out


def ranges(n: int, jobs: int, first: int = 0, size: int | None = None) -> list[tuple[int, int]]:
    """`chunks` of the fights first..n-1 (the fights before `first` were played already)."""
    return [(start + first, stop + first) for start, stop in chunks(n - first, jobs, size)] if n > first else []


def run_serial(setup: Setup, master: int, n: int, progress: Progress | None = None,
               first: int = 0) -> list[FightResult]:
    """Fights first..n-1 in this process."""
    out: list[FightResult] = []
    opening = opening_of(setup)  # once for the run: the ranges are only for progress reports
    try:
        for start, stop in ranges(n, 1, first, size=max(1, min(500, n // 50 or 1))):
            out.extend(simulate_range(setup, master, start, stop, opening))
            if progress:
                progress(stop - start)
    except KeyboardInterrupt:
        raise Interrupted(first + len(out), n) from None
    return out


def run_on(executor: Executor, setup: Setup, master: int, n: int, jobs: int,
           progress: Progress | None = None, first: int = 0, share: bool = False) -> list[FightResult]:
    """Submit the ranges of fights first..n-1 to the executor; gather the results in index order.

    `share`: this process is one of the `jobs` and plays ranges too, instead of waiting. The ranges are
    taken in index order by whoever is free: the executor's workers are kept three ranges ahead each (one
    to play, two to take next: with two, a worker whose next range waited on this process's threads for
    the interpreter lock sat idle, 1.71x against 1.83x at 200,000 fast fights), this process plays the
    next range left, then tops them up again. Ranges shrink as the run goes on (`chunks`), so the ranges
    a worker holds are never shorter than the one played here meanwhile. (Ranges are never taken back from the executor: cancelling a submitted
    future can break the pool's shutdown after Ctrl-C, Python 3.11.)"""
    parts: dict[int, list[FightResult]] = {}
    todo = deque(ranges(n, jobs, first))
    ahead = 3 * (jobs - 1) if share else len(todo)
    waiting: dict[Future[bytes], tuple[int, int]] = {}

    def send() -> None:
        while todo and len(waiting) < ahead:
            start, stop = todo.popleft()
            waiting[executor.submit(rows_of_range, setup, master, start, stop)] = (start, stop)

    def gather(future: Future[bytes]) -> None:
        start, stop = waiting.pop(future)
        parts[start] = [FightResult._make(row) for row in pickle.loads(future.result())]
        if progress:
            progress(stop - start)

    try:
        with _interrupts_held():  # the workers are started here: born with Ctrl-C held, then ignoring it
            send()
        opening = opening_of(setup) if share else None
        while todo:
            start, stop = todo.popleft()
            parts[start] = simulate_range(setup, master, start, stop, opening)
            if progress:
                progress(stop - start)
            for done in [future for future in waiting if future.done()]:
                gather(done)
            send()
        for future in as_completed(list(waiting)):
            gather(future)
    except KeyboardInterrupt:
        raise Interrupted(first + sum(len(part) for part in parts.values()), n) from None
    return [result for start in sorted(parts) for result in parts[start]]


def rows_of_range(setup: Setup, master: int, start: int, stop: int) -> bytes:
    """A range's results as what a worker sends back: its rows, plain tuples (pickled far faster than named
    tuples), pickled as one blob. Dask serialises a returned list item by item, which cost a cluster's
    workers twice the fights' own CPU (bench/README.md, scale-out); a blob it sends as it is."""
    return pickle.dumps([tuple(result) for result in simulate_range(setup, master, start, stop)],
                        protocol=pickle.HIGHEST_PROTOCOL)


@dataclass(frozen=True)
class Pool:
    """Where the ranges run, and how many run at once there: what the ranges are cut by (`chunks`).
    `share`: this process is one of the slots (it plays ranges beside the executor's workers)."""

    executor: Executor
    slots: int
    share: bool = False


@contextmanager
def executor_for(kind: str, jobs: int, scheduler: str | None) -> Iterator[Pool | None]:
    """None for one local job (run in this process); `jobs` local processes, this one and `jobs - 1`
    workers; or a Dask cluster, whose slots are its workers' threads, whatever `jobs` says (a bigger
    cluster gets more ranges; this process only sends and gathers)."""
    if kind == "dask":
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--executor dask needs the `distributed` package: pip install 'fudge-combat[dask]'") from None
        if not scheduler:
            raise InputError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        try:
            yield Pool(client.get_executor(pure=False), cluster_slots(client))
        finally:
            client.close()
        return
    if kind != "process":
        raise InputError(f"unknown executor {kind!r}: process or dask")
    if scheduler:
        raise InputError("--scheduler is for --executor dask")
    if jobs < 1:
        raise InputError("--jobs must be at least 1, or 0 for one per core")
    if jobs == 1:
        yield None
        return
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(max_workers=jobs - 1, mp_context=start_method(),
                               initializer=_leave_interrupts_to_the_parent)
    try:
        yield Pool(pool, jobs, share=True)
    except BaseException:
        _stop(pool, before)
        raise
    pool.shutdown(wait=True)


def start_method() -> Any:
    """fork on Linux: a worker starts as a copy of this process, its modules imported and the run's
    opening decided (`sim.runner.opening_of`), in a few milliseconds; a spawned or forkserver worker
    imports the engine again (about 0.3 s of CPU, as much as 20,000 fast duels). Python 3.14 makes
    forkserver the default, hence the explicit choice. Elsewhere the platform's default (spawn on macOS
    and Windows, where fork is unsafe or absent)."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def cluster_slots(client: Any) -> int:
    """The threads of a Dask cluster's workers (at least 1: a cluster still starting has none yet)."""
    try:
        threads = client.nthreads()
    except (OSError, TimeoutError):
        return 1
    return max(1, sum(threads.values()))


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C held back (not lost) while the pool starts its workers: a worker is forked with the signal
    blocked, so one that arrives before the worker ignores it cannot raise in the worker; the parent
    receives it as soon as the submissions are done."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _leave_interrupts_to_the_parent() -> None:
    """A worker ignores Ctrl-C (the terminal sends it to every process of the group): the parent
    stops the run and ends the workers, so nobody prints a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held while it was started


def _stop(pool: ProcessPoolExecutor, before: set[Any]) -> None:
    """Stop at once: queued ranges cancelled, the pool's workers (the children started since `before`)
    ended mid-range; shutting down politely would wait for every range already sent."""
    workers = set(multiprocessing.active_children()) - before
    for child in workers:  # first: a worker still reading its queue when the pool closes it would complain
        child.terminate()
    for child in workers:
        child.join(timeout=5)
    pool.shutdown(wait=False, cancel_futures=True)


def simulate(setup: Setup, master: int, n: int, pool: Pool | None = None,
             progress: Progress | None = None, first: int = 0) -> list[FightResult]:
    """Fights first..n-1, in this process or on the pool."""
    if pool is None:
        return run_serial(setup, master, n, progress, first)
    return run_on(pool.executor, setup, master, n, pool.slots, progress, first, pool.share)


__all__: list[Any] = ["simulate", "executor_for", "chunks", "Interrupted", "Pool"]
