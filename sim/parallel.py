"""Running a simulation's fights in this process, on local processes forked by the run (`run_forked`), or on
any `concurrent.futures.Executor` (a Dask cluster: `distributed`, an optional extra).

The fights are split into index ranges; each range is one task, and each
fight's dice come from its index, so the results, put back in index order,
are the same whatever the executor or the number of jobs. With local processes
this process plays ranges too: `--jobs 2` is this process and one worker.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import select
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from typing import Any, NoReturn

from msgspec import Struct

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.sim import JOBS_PER_CPU
from fudge_combat.sim.runner import FightResult, Setup, opening_of, simulate_range
from fudge_combat.sim.stats import Tally

Progress = Callable[[int], None]


Sink = Callable[[Sequence[tuple[Any, ...]]], None]
FINE_TAIL = 512  # local processes' last ranges: at least n / (512 jobs) fights (`cut`)


class Interrupted(Exception):
    """Ctrl-C (or SIGTERM, `signum`) during a run: how many of the fights were played when it stopped."""

    def __init__(self, done: int, total: int, signum: int = signal.SIGINT) -> None:
        super().__init__(f"interrupted after {done} of {total} fights")
        self.done, self.total, self.signum = done, total, signum


class Stopped(KeyboardInterrupt):
    """SIGTERM while a run has worker processes: stops it as Ctrl-C does (`_terminate_stops`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class WorkerLost(Exception):
    """A worker process ended in the middle of a run (killed from outside, or out of memory)."""


def cut(n: int, jobs: int, size: int | None = None, tail: int = 64) -> Iterator[tuple[int, int]]:
    """Index ranges covering 0..n-1, all of `size` when given. Else guided: each range is a quarter of each
    job's share of what is left (at most 2,000 fights, at least n/(`tail` jobs)), so the first ranges are
    large (few tasks to send and gather) and the last ones small: whoever runs out of ranges first waits
    for a small one, not for a sixteenth of the run, and the jobs finish nearly together. Made as they are
    taken: a run of a billion fights does not hold its half a million ranges.

    Local processes cut their tail finer (FINE_TAIL): a range costs them only its number (`run_forked`), and
    an executor's worker holds three ranges ahead (`run_on`), so when the last range is taken it may still
    have three to play while this process has one; a cluster's ranges, each a round trip, keep the coarser
    tail."""
    if size is not None:
        yield from ((start, min(n, start + size)) for start in range(0, n, size))
        return
    least = max(1, n // (jobs * tail))
    start = 0
    while start < n:
        step = min(2000, max(least, -(-(n - start) // (jobs * 4))))
        yield start, min(n, start + step)
        start += step


def chunks(n: int, jobs: int, size: int | None = None) -> list[tuple[int, int]]:
    """`cut`, as a list."""
    return list(cut(n, jobs, size))


def cut_from(n: int, jobs: int, first: int = 0, size: int | None = None,
             tail: int = 64) -> Iterator[tuple[int, int]]:
    """`cut` of the fights first..n-1 (the fights before `first` were played already)."""
    return ((start + first, stop + first) for start, stop in cut(max(0, n - first), jobs, size, tail))


def ranges(n: int, jobs: int, first: int = 0, size: int | None = None) -> list[tuple[int, int]]:
    """`cut_from`, as a list."""
    return list(cut_from(n, jobs, first, size))


class _Ordered:
    """The default sink: the results kept, and given back in index order."""

    def __init__(self) -> None:
        self.parts: dict[int, Sequence[tuple[Any, ...]]] = {}

    def __call__(self, part: Sequence[tuple[Any, ...]]) -> None:
        if part:
            self.parts[part[0][0]] = part

    def results(self) -> list[FightResult]:
        return [FightResult._make(row) for start in sorted(self.parts) for row in self.parts[start]]


def run_serial(setup: Setup, master: int, n: int, progress: Progress | None = None,
               first: int = 0, sink: Sink | None = None) -> list[FightResult]:
    """Fights first..n-1 in this process. With `sink`, each range's results go to it and the list
    returned is empty: nothing is kept (`sim.stats.Tally` counts them)."""
    kept = _Ordered()
    put = sink or kept
    done = first
    opening = opening_of(setup)  # once for the run: the ranges are only for progress reports
    try:
        for start, stop in cut_from(n, 1, first, size=max(1, min(500, n // 50 or 1))):
            put(simulate_range(setup, master, start, stop, opening))
            done += stop - start
            if progress:
                progress(stop - start)
    except KeyboardInterrupt as stop:
        raise Interrupted(done, n, getattr(stop, "signum", signal.SIGINT)) from None
    return kept.results()


def run_on(executor: Executor, setup: Setup, master: int, n: int, jobs: int,
           progress: Progress | None = None, first: int = 0, share: bool = False,
           sink: Sink | Tally | None = None) -> list[FightResult]:
    """Submit the ranges of fights first..n-1 to the executor; gather the results in index order (or give
    each range's to `sink` as it comes, in any order, and return an empty list). A `Tally` as the sink is
    counted where the ranges are played: each worker sends back its range's counts (`tally_of_range`),
    not its fights' rows, so this process, which plays ranges too, only merges them.

    `share`: this process is one of the `jobs` and plays ranges too, instead of waiting. The ranges are
    taken in index order by whoever is free: the executor's workers are kept three ranges ahead each (one
    to play, two to take next: with two, a worker whose next range waited on this process's threads for
    the interpreter lock sat idle: bench/README.md, scale-out), this process plays the
    next range left, then tops them up again. Ranges shrink as the run goes on (`chunks`), so the ranges
    a worker holds are never shorter than the one played here meanwhile. Without `share`, at most eight
    ranges per job are out at once, so a long run's futures do not pile up. (Ranges are never taken back
    from the executor: cancelling a submitted future can break the pool's shutdown after Ctrl-C,
    Python 3.11.)"""
    kept = _Ordered()
    tally = sink if isinstance(sink, Tally) else None
    put: Sink = sink.add if isinstance(sink, Tally) else sink or kept
    done = first
    todo = cut_from(n, jobs, first, tail=FINE_TAIL if share else 64)
    ahead = 3 * (jobs - 1) if share else 8 * jobs
    waiting: dict[Future[bytes], tuple[int, int]] = {}

    def send() -> bool:
        """Top up the ranges out; False once none is left to send."""
        while len(waiting) < ahead:
            taken = next(todo, None)
            if taken is None:
                return False
            if tally is not None:
                task = executor.submit(tally_of_range, setup, master, *taken, len(tally.levels), tally.keep)
            else:
                task = executor.submit(rows_of_range, setup, master, *taken)
            waiting[task] = taken
        return True

    def gather(future: Future[bytes]) -> None:
        nonlocal done
        start, stop = waiting.pop(future)
        if tally is not None:
            tally.merge(pickle.loads(future.result()))
        else:
            put(pickle.loads(future.result()))
        done += stop - start
        if progress:
            progress(stop - start)

    try:
        with _interrupts_held():  # the workers are started here: born with Ctrl-C held, then ignoring it
            more = send()
        opening = opening_of(setup) if share else None
        while more:
            if share:
                taken = next(todo, None)
                if taken is None:
                    break
                start, stop = taken
                put(simulate_range(setup, master, start, stop, opening))
                done += stop - start
                if progress:
                    progress(stop - start)
                for finished in [future for future in waiting if future.done()]:
                    gather(finished)
            else:
                gather(next(as_completed(list(waiting))))
            more = send()
        for future in as_completed(list(waiting)):
            gather(future)
    except KeyboardInterrupt as stop:
        raise Interrupted(done, n, getattr(stop, "signum", signal.SIGINT)) from None
    except BrokenExecutor:
        raise WorkerLost("a worker process ended in the middle of the run (killed, or out of memory?)") from None
    return kept.results()


def run_forked(workers: int, setup: Setup, master: int, n: int, progress: Progress | None = None,
               first: int = 0, sink: Sink | Tally | None = None) -> list[FightResult]:
    """Fights first..n-1 on this process and `workers` processes forked from it, each taking the next range
    by itself (`_Tokens`): no executor, no thread in this process, nothing sent per range but its number.

    An executor's workers wait on this process for their next range: on two cores, its threads that send
    and gather ranges waited for the interpreter lock this process's own fights hold, and the workers sat
    idle meanwhile (bench/README.md, scale-out). Here every process reads the next range's number from a
    pipe this process fills, and all cut the same ranges (`cut_from`), so none waits on another. A worker
    writes back each range's rows (or, counting a `Tally`, the range's size, and its tally at the end);
    this process reads them between its own ranges, and to the end once its last one is played.

    A worker ends with this process (`_worker_starts`); Ctrl-C or SIGTERM here, or an error, ends every
    worker before it is raised (`Interrupted`); a worker that ends before its tally or its last rows are
    read ends the run (`WorkerLost`)."""
    kept = _Ordered()
    tally = sink if isinstance(sink, Tally) else None
    put: Sink = sink.add if isinstance(sink, Tally) else sink or kept
    done = first
    opening = opening_of(setup)  # decided before the fork: every worker starts with it
    tokens = _Tokens(sum(1 for _ in cut_from(n, workers + 1, first, tail=FINE_TAIL)))
    children: list[_Child] = []
    try:
        for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written again by a worker's exit
            stream.flush()
        parent = os.getpid()
        with _interrupts_held():
            for _ in range(workers):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:  # the worker: it never returns
                    os.close(read)
                    for child in children:
                        os.close(child.fd)
                    tokens.close_writer()
                    _work(parent, tokens, write, setup, master, n, workers + 1, first, opening, tally)
                os.close(write)
                children.append(_Child(pid, read))
        own = _Ranges(cut_from(n, workers + 1, first, tail=FINE_TAIL))
        while (index := tokens.take()) is not None:
            start, stop = own.at(index)
            put(simulate_range(setup, master, start, stop, opening))
            done += stop - start
            if progress:
                progress(stop - start)
            for child in children:
                done += child.drain(put, progress, block=False)
        for child in children:
            done += child.drain(put, progress, block=True)
        for child in children:
            child.wait()
            if tally is not None and child.tally is not None:
                tally.merge(child.tally)
    except KeyboardInterrupt as stop:
        raise Interrupted(done, n, getattr(stop, "signum", signal.SIGINT)) from None
    finally:
        tokens.close()
        for child in children:
            child.end()
    return kept.results()


class _Tokens:
    """The ranges' numbers, 0 to `count` - 1, in a pipe every process of a run reads the next one from (a read
    of a few bytes from a pipe is whole: two readers never split one number). This process writes as many
    as the pipe holds, and more as they are taken (`take`), so a run of millions of ranges holds none of
    them; the pipe closed, the last reader sees its end."""

    SIZE = 8

    def __init__(self, count: int) -> None:
        self.count, self.sent = count, 0
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.write_fd, False)
        self._fill()

    def _fill(self) -> None:
        while self.write_fd >= 0 and self.sent < self.count:
            upto = min(self.count, self.sent + 512)
            batch = b"".join(i.to_bytes(self.SIZE, "little") for i in range(self.sent, upto))
            try:
                written = os.write(self.write_fd, batch)
            except BlockingIOError:
                return
            self.sent += written // self.SIZE  # a pipe takes whole writes of this size or nothing (PIPE_BUF)
        if self.sent >= self.count:
            self.close_writer()

    def take(self) -> int | None:
        """The next range's number, or None: all are taken. This process tops the pipe up first, and reads
        without blocking while there are numbers it has not written (the workers may have emptied it)."""
        while True:
            self._fill()
            if self.write_fd < 0:
                got = os.read(self.read_fd, self.SIZE)
                return int.from_bytes(got, "little") if got else None
            os.set_blocking(self.read_fd, False)
            try:
                got = os.read(self.read_fd, self.SIZE)
            except BlockingIOError:
                continue
            finally:
                os.set_blocking(self.read_fd, True)
            return int.from_bytes(got, "little")

    def take_in_worker(self) -> int | None:
        """`take` in a worker, which writes none: it waits for a number or the pipe's end. The pipe's read end
        is one open file shared with this process's parent, which makes it non-blocking a moment at each of
        its own reads (`take`): a read that finds it so and the pipe empty waits for it to be readable and
        reads again."""
        while True:
            try:
                got = os.read(self.read_fd, self.SIZE)
            except BlockingIOError:
                select.select([self.read_fd], [], [])
                continue
            return int.from_bytes(got, "little") if got else None

    def close_writer(self) -> None:
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def close(self) -> None:
        self.close_writer()
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1


class _Ranges:
    """The k-th range of a run's ranges, as its processes take them: in increasing k, each process's own
    way through the same cut."""

    def __init__(self, cut: Iterator[tuple[int, int]]) -> None:
        self.cut, self.index, self.last = cut, -1, (0, 0)

    def at(self, index: int) -> tuple[int, int]:
        while self.index < index:
            self.last = next(self.cut)
            self.index += 1
        return self.last


def _work(parent: int, tokens: _Tokens, out: int, setup: Setup, master: int, n: int, jobs: int, first: int,
          opening: Any, tally: Tally | None) -> NoReturn:
    """A forked worker's life: ranges taken and played until none is left, each range's rows written back
    (or its size, and the tally at the end), then `os._exit`: nothing of this process's own exit (its
    buffers, its handlers) runs twice. An error is sent back for the parent to raise."""
    code = 0
    stream = os.fdopen(out, "wb")
    try:
        _worker_starts(parent)
        mine = Tally(len(tally.levels), tally.keep) if tally is not None else None
        ranges = _Ranges(cut_from(n, jobs, first, tail=FINE_TAIL))
        while (index := tokens.take_in_worker()) is not None:
            start, stop = ranges.at(index)
            rows = [tuple(result) for result in simulate_range(setup, master, start, stop, opening)]
            if mine is not None:
                mine.add(rows)
            _send(stream, ("played", stop - start, None if mine is not None else rows))
        _send(stream, ("done", mine))
    except BaseException as exc:  # noqa: BLE001  # sent to the parent, which raises it
        code = 1
        try:
            _send(stream, ("error", exc))
        except BaseException:  # noqa: BLE001  # the parent is gone, or the error does not pickle
            pass
    os._exit(code)


def _send(stream: Any, message: tuple[Any, ...]) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "little") + data)
    stream.flush()


class _Child:
    """One forked worker as this process sees it: what it wrote back (the ranges it played, its tally, its
    error), read between this process's own ranges."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd
        self.buffer = b""
        self.finished = False  # its last message ("done") read
        self.tally: Tally | None = None

    def drain(self, put: Sink, progress: Progress | None, block: bool) -> int:
        """Read what the worker wrote (to its end, with `block`); the fights it counted. A worker that ends
        without its last message ends the run: its error raised here, else `WorkerLost`."""
        counted = 0
        while self.fd >= 0 and not self.finished:
            if not block and not select.select([self.fd], [], [], 0)[0]:
                break
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise WorkerLost("a worker process ended in the middle of the run (killed, or out of memory?)")
            self.buffer += chunk
            while len(self.buffer) >= 8 and len(self.buffer) >= 8 + (size := int.from_bytes(self.buffer[:8], "little")):
                kind, *rest = pickle.loads(self.buffer[8:8 + size])
                self.buffer = self.buffer[8 + size:]
                if kind == "played":
                    played, rows = rest
                    if rows is not None:
                        put(rows)
                    counted += played
                    if progress:
                        progress(played)
                elif kind == "done":
                    self.finished, self.tally = True, rest[0]
                else:
                    raise rest[0]
        return counted

    def wait(self) -> None:
        """The worker, done, has exited."""
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if status != 0:
            raise WorkerLost("a worker process ended in the middle of the run (killed, or out of memory?)")

    def end(self) -> None:
        """The worker ended (at once, if it still runs) and its pipe closed."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = 0
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def rows_of_range(setup: Setup, master: int, start: int, stop: int) -> bytes:
    """A range's results as what a worker sends back: its rows, plain tuples (pickled far faster than named
    tuples), pickled as one blob. Dask serialises a returned list item by item, which cost a cluster's
    workers more CPU than the fights themselves (bench/README.md, scale-out); a blob it sends as it is."""
    return pickle.dumps([tuple(result) for result in simulate_range(setup, master, start, stop)],
                        protocol=pickle.HIGHEST_PROTOCOL)


def tally_of_range(setup: Setup, master: int, start: int, stop: int, combatants: int, keep: int) -> bytes:
    """A range's counts (`Tally`), pickled as one blob: what a worker sends back when the run keeps counts
    alone (a few hundred bytes, where its fights' rows are tens of kilobytes to pickle, send and read)."""
    tally = Tally(combatants, keep)
    tally.add(simulate_range(setup, master, start, stop))
    return pickle.dumps(tally, protocol=pickle.HIGHEST_PROTOCOL)


class Forked(Struct, frozen=True):
    """Local worker processes forked when a run starts (`run_forked`): Linux's `--jobs N`."""

    workers: int


class Pool(Struct, frozen=True):
    """Where the ranges run, and how many run at once there: what the ranges are cut by (`chunks`).
    `share`: this process is one of the slots (it plays ranges beside the executor's workers)."""

    executor: Executor | Forked
    slots: int
    share: bool = False


def most_jobs() -> int:
    return JOBS_PER_CPU * (os.cpu_count() or 1)


def check_jobs(jobs: int) -> None:
    """`--jobs` for local processes: 1 (this process) up to `most_jobs`; a refusal says what to give."""
    if jobs < 1:
        raise InputError("--jobs must be at least 1, or 0 for one per core")
    if jobs > most_jobs():
        raise InputError(f"--jobs {jobs} is more than {most_jobs()} ({JOBS_PER_CPU} per CPU): more processes than "
                         f"CPUs only wait for them; give --jobs 0 for one per core (the same results for any --jobs)")


class Tls(Struct, frozen=True):
    """The certificates a Dask client shows and checks over `tls://` (PEM text, as read from the GM's
    files): the cluster's CA, this client's certificate, and its key (None: in the certificate's file)."""

    ca: str
    cert: str
    key: str | None = None


def security_of(tls: Tls) -> Any:
    """Dask's `Security` for a client: mutual TLS against the cluster's CA, and nothing unencrypted. The
    certificates are given as text (Dask takes text for a string with a line break), and their TLS
    context is made here, so a bad certificate or a key that does not match it is one line now."""
    import ssl

    from distributed.security import Security

    security = Security(tls_ca_file=tls.ca, tls_client_cert=tls.cert, tls_client_key=tls.key,
                        require_encryption=True)
    try:
        security.get_connection_args("client")
    except (ssl.SSLError, ValueError, OSError) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        raise InputError(f"the TLS certificates cannot be used ({reason}): give --tls-ca-file the cluster's CA "
                         f"certificate, --tls-cert this client's certificate and --tls-key its key (PEM)") from None
    return security


@contextmanager
def executor_for(kind: str, jobs: int, scheduler: str | None, tls: Tls | None = None) -> Iterator[Pool | None]:
    """None for one local job (run in this process); `jobs` local processes, this one and `jobs - 1`
    workers (on Linux forked by the run itself, `run_forked`; elsewhere a `ProcessPoolExecutor`'s); or a Dask
    cluster, whose slots are its workers' threads, whatever `jobs` says (a bigger
    cluster gets more ranges; this process only sends and gathers).

    A Dask scheduler runs whatever pickled code its clients send: one reached over `tcp://` must be on a
    network where everyone is trusted; elsewhere it listens on `tls://` and a client shows a certificate
    of the cluster's CA (`tls`)."""
    check_pool(kind, jobs, scheduler, tls)
    if kind == "dask":
        from distributed import Client

        assert scheduler is not None
        security = security_of(tls) if tls is not None else None
        try:
            client = Client(scheduler, timeout="10s", security=security)
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        try:
            yield Pool(client.get_executor(pure=False), cluster_slots(client))
        finally:
            client.close()
        return
    if jobs == 1:
        yield None
        return
    if sys.platform.startswith("linux"):
        with _terminate_stops():
            yield Pool(Forked(jobs - 1), jobs, share=True)
        return
    before = set(multiprocessing.active_children())
    with _terminate_stops():
        pool = ProcessPoolExecutor(max_workers=jobs - 1, mp_context=start_method(),
                                   initializer=_worker_starts, initargs=(os.getpid(),))
        try:
            yield Pool(pool, jobs, share=True)
            pool.shutdown(wait=True)
        except BaseException:  # Ctrl-C, SIGTERM, or an error: the workers are ended, not waited for
            _stop(pool, before)
            raise


def check_pool(kind: str, jobs: int, scheduler: str | None, tls: Tls | None = None) -> None:
    """The executor's options, refused before any work."""
    if kind == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError("--executor dask needs the `distributed` package: install fudge with its dask extra "
                             "(pip install '.[dask]' in fudge's source folder)") from None
        if not scheduler:
            raise InputError("--executor dask needs --scheduler ADDRESS (e.g. tls://10.0.0.5:8786, or tcp:// on a "
                             "trusted network)")
        if scheduler.startswith("tls://") and tls is None:
            raise InputError(f"{scheduler} is a TLS scheduler: give --tls-ca-file, --tls-cert and --tls-key "
                             f"(the cluster's CA, this client's certificate and its key)")
        if tls is not None and not scheduler.startswith("tls://"):
            raise InputError(f"--tls-* options are for a tls:// scheduler, not {scheduler}")
        return
    if kind != "process":
        raise InputError(f"unknown executor {kind!r}: process or dask")
    if scheduler:
        raise InputError("--scheduler is for --executor dask")
    if tls is not None:
        raise InputError("--tls-* options are for --executor dask with a tls:// scheduler")
    check_jobs(jobs)


def start_method() -> Any:
    """fork on Linux: a worker starts as a copy of this process, its modules imported and the run's
    opening decided (`sim.runner.opening_of`), in a few milliseconds; a spawned or forkserver worker
    imports the engine again (as much CPU as the fights of a short fast run). Python 3.14 makes
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


_HELD = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back (not lost) while the pool starts its workers: a worker is forked with
    them blocked, so one that arrives before the worker has set its own handling cannot run this
    process's handler in the worker; the parent receives it as soon as the submissions are done."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


@contextmanager
def _terminate_stops() -> Iterator[None]:
    """While the workers run, SIGTERM stops the run as Ctrl-C does (`Stopped`, a KeyboardInterrupt): the
    workers are ended and the command says so, instead of this process vanishing mid-run. Only the main
    thread may set a handler; elsewhere SIGTERM keeps its default (the workers still die with this
    process: `_worker_starts`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise Stopped(signum)

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _worker_starts(parent: int) -> None:
    """A worker dies with the process that started it, however that one ends, and leaves signals to it.

    The terminal sends Ctrl-C to every process of the group: a worker ignores it; the parent stops the
    run and ends the workers, so nobody prints a traceback. SIGTERM ends a worker at once (the parent's
    handler, inherited by the fork, would raise in the middle of the worker's queue). A parent killed
    outright (SIGKILL) cannot end its workers: on Linux the kernel does (PR_SET_PDEATHSIG); elsewhere a
    thread waits on the parent's sentinel. Either way, a parent already gone before that was set up is
    seen by its pid."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)  # held while it was started
    if not _kill_me_with_my_parent():
        _watch_parent()
    if os.getppid() != parent:  # the parent died before the kernel or the thread was told to watch it
        os._exit(1)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _kill_me_with_my_parent() -> bool:
    """Ask Linux to SIGKILL this process when the thread that forked it ends (the parent's main thread:
    ProcessPoolExecutor forks its workers from the thread that submits first). False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent() -> None:
    """A thread that ends this process when the parent's sentinel says it is gone."""
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _stop(pool: ProcessPoolExecutor, before: set[Any]) -> None:
    """Stop at once: queued ranges cancelled, the pool's workers (the children started since `before`)
    ended mid-range; shutting down politely would wait for every range already sent."""
    workers = set(multiprocessing.active_children()) - before
    for child in workers:  # first: a worker still reading its queue when the pool closes it would complain
        child.terminate()
    for child in workers:
        child.join(timeout=5)
    pool.shutdown(wait=False, cancel_futures=True)


def simulate(setup: Setup, master: int, n: int, pool: Pool | None = None, progress: Progress | None = None,
             first: int = 0, sink: Sink | Tally | None = None) -> list[FightResult]:
    """Fights first..n-1, in this process or on the pool (`sink`: see `run_serial` and `run_on`)."""
    if pool is None:
        return run_serial(setup, master, n, progress, first, sink.add if isinstance(sink, Tally) else sink)
    if isinstance(pool.executor, Forked):
        return run_forked(pool.executor.workers, setup, master, n, progress, first, sink)
    return run_on(pool.executor, setup, master, n, pool.slots, progress, first, pool.share, sink)


__all__: list[Any] = ["simulate", "executor_for", "chunks", "Interrupted", "Pool", "Tls", "WorkerLost"]
