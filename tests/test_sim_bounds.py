"""`fudge sim`'s numbers are bounded, and a run's memory does not grow with its fights.

Every number a GM gives `sim` (-n, --jobs, --keep, --max-rounds), negative,
zero, huge or not a number, gets one line that says the bound and what to do,
never exit 70. The statistics are counted as the fights come (`sim.stats.Tally`):
the counts and the sample fights picked are those of the whole list of
results, which a run no longer holds.
"""

from __future__ import annotations

import pickle
import random
import statistics
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.sim.runner import FightResult
from fudge_combat.sim.stats import Tally, samples
from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
DUEL = [str(SHEETS / "snorri.toml"), str(SHEETS / "brynhild.toml"), "--seed", "1", "--json"]
HUGE = "9999999999999999999999999"


@pytest.mark.parametrize("args, code, message", [
    (["-n", HUGE], 1, "-n must be from 1 to 1,000,000,000 fights"),
    (["-n", "1000000001"], 1, "-n must be from 1 to 1,000,000,000 fights"),
    (["-n", "0"], 1, "-n must be from 1 to"),
    (["-n", "-5"], 1, "-n must be from 1 to"),
    (["-n", "1e3"], 2, "invalid value for '-n'"),
    (["-n", "2.5"], 2, "invalid value for '-n'"),
    (["-n", "9" * 5000], 2, "invalid value for '-n'"),  # past Python's limit for a decimal integer
    (["--jobs", "10000"], 1, "--jobs 10000 is more than"),
    (["--jobs", HUGE], 1, "give --jobs 0 for one per core"),
    (["--jobs", "-1"], 1, "--jobs must be at least 1, or 0 for one per core"),
    (["--jobs", "two"], 2, "invalid value for '--jobs'"),
    (["--keep", "1001"], 1, "--keep must be from 0 to 1,000"),
    (["--keep", "-1"], 1, "--keep must be from 0 to 1,000"),
    (["--max-rounds", HUGE], 1, "--max-rounds must be from 1 to 10,000"),
    (["--max-rounds", "0"], 1, "--max-rounds must be from 1 to 10,000"),
], ids=lambda value: value if isinstance(value, str) and len(value) < 30 else None)
def test_every_number_is_bounded_in_one_line(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    """Refused before any work: one line on stderr, nothing on stdout, nothing stored, not exit 70."""
    store = tmp_path / "fights.db"
    result = fudge("sim", *DUEL, "-n", "5", *args, store=store, timeout=30)
    assert result.returncode == code, result.stderr
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_the_jobs_bound_names_this_machines_cpus(tmp_path: Path) -> None:
    """The most --jobs is four per CPU: the line names the number here, and that many runs."""
    import os

    most = 4 * (os.cpu_count() or 1)
    over = fudge("sim", *DUEL, "-n", "5", "--jobs", str(most + 1), store=tmp_path / "fights.db")
    assert over.returncode == 1 and f"--jobs {most + 1} is more than {most} (4 per CPU)" in over.stderr
    at = fudge("sim", *DUEL, "-n", str(most), "--jobs", str(most), store=tmp_path / "fights.db")
    one = fudge("sim", *DUEL, "-n", str(most), store=tmp_path / "fights.db")
    assert at.returncode == 0, at.stderr
    assert at.stdout == one.stdout


def results_like_a_run(n: int, rng: random.Random) -> list[FightResult]:
    """Fights with few lengths, so many share one (as a real run's do)."""
    levels = ("Undamaged", "Hurt", "Incapacitated")
    return [FightResult(i, rng.choice((0, 1, None)), rng.randint(1, 9),
                        (rng.choice(levels), rng.choice(levels))) for i in range(n)]


@pytest.mark.parametrize("n", [1, 2, 7, 40, 301])
def test_a_tally_in_any_order_counts_what_the_whole_list_does(n: int) -> None:
    """Ranges counted in any order give the counts, mean and median of the whole list (worked out here
    with `statistics`), and pick the same sample fights as `samples` over every result, for any --keep."""
    rng = random.Random(n)
    results = results_like_a_run(n, rng)
    parts = [results[i:i + 13] for i in range(0, n, 13)]
    rng.shuffle(parts)
    for keep in (0, 1, 2, 3, 5, 17, 1000):
        tally = Tally(2, keep)
        for part in parts:
            tally.add([tuple(r) for r in part])  # as a worker sends them: plain tuples
        summary = tally.summary(["a", "b"], ["A", "B"])
        lengths = [r.rounds for r in results]
        winners = Counter(r.winner for r in results)
        assert summary.fights == n
        assert [w.count for w in summary.wins] == [winners[0], winners[1]] and summary.draws.count == winners[None]
        assert summary.mean_rounds == sum(lengths) / n
        assert summary.median_rounds == statistics.median(lengths)
        assert summary.rounds == dict(sorted(Counter(lengths).items()))
        for i, name in enumerate(("A", "B")):
            assert summary.final_levels[i] == Counter(r.levels[i] for r in results), name
        picked = tally.samples()
        assert [index for index, _ in picked] == samples(results, keep)
        assert all(results[index].rounds == rounds for index, rounds in picked)
        merged = Tally(2, keep)  # each part counted where it was played (a worker), then merged here
        for part in parts:
            counted = Tally(2, keep)
            counted.add([tuple(r) for r in part])
            merged.merge(pickle.loads(pickle.dumps(counted)))
        assert merged.summary(["a", "b"], ["A", "B"]) == summary and merged.samples() == picked


def test_workers_that_count_their_own_ranges_give_the_counts_and_samples_of_one_process() -> None:
    """A run on local workers with a `Tally`: each forked worker counts its ranges and sends the counts;
    merged with this process's own ranges they give the summary and the kept fights of a serial run, for
    any --keep and any number of workers; so does an executor's pool (`run_on`)."""
    from concurrent.futures import ProcessPoolExecutor

    from fudge_combat.sim.parallel import executor_for, run_on, run_serial, simulate
    from tests.test_sim import setup_for

    setup = setup_for("fudge")
    serial = run_serial(setup, 5, 900)
    for keep in (0, 3):
        alone = Tally(2, keep)
        alone.add([tuple(r) for r in serial])
        for jobs in (2, 3):
            with executor_for("process", jobs, None) as pool:
                assert pool is not None and pool.share and pool.slots == jobs
                pooled = Tally(2, keep)
                assert simulate(setup, 5, 900, pool, sink=pooled) == []
            assert pooled.fights == 900
            assert pooled.summary(["a", "b"], ["A", "B"]) == alone.summary(["a", "b"], ["A", "B"])
            assert pooled.samples() == alone.samples()
        with ProcessPoolExecutor(max_workers=1) as executor:
            pooled = Tally(2, keep)
            assert run_on(executor, setup, 5, 900, jobs=2, share=True, sink=pooled) == []
        assert pooled.summary(["a", "b"], ["A", "B"]) == alone.summary(["a", "b"], ["A", "B"])
        assert pooled.samples() == alone.samples()


def test_a_workers_error_is_raised_here_and_its_rows_are_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked worker's fight that raises ends the run with that error, raised in this process, as an
    executor's future raises it; so does a worker ending without its tally (`WorkerLost`)."""
    import os
    import time

    from fudge_combat.engine.kernel.errors import RuleError
    from fudge_combat.sim import parallel
    from fudge_combat.sim.parallel import WorkerLost, executor_for, simulate
    from tests.test_sim import setup_for

    setup = setup_for("fudge")
    here = os.getpid()
    real = parallel.simulate_range

    def failing(setup: Any, master: int, start: int, stop: int, opening: Any = None) -> list[FightResult]:
        if os.getpid() != here:
            raise RuleError(f"a worker's own error at fight {start}")
        time.sleep(0.01)  # this process slow: the worker surely takes ranges
        return real(setup, master, start, stop, opening)

    monkeypatch.setattr(parallel, "simulate_range", failing)
    with executor_for("process", 2, None) as pool:
        with pytest.raises(RuleError, match="a worker's own error at fight"):
            simulate(setup, 1, 3000, pool, sink=Tally(2))

    def dying(setup: Any, master: int, start: int, stop: int, opening: Any = None) -> list[FightResult]:
        if os.getpid() != here:
            os._exit(3)  # as the out-of-memory killer leaves it: no word back
        time.sleep(0.01)
        return real(setup, master, start, stop, opening)

    monkeypatch.setattr(parallel, "simulate_range", dying)
    with executor_for("process", 2, None) as pool:
        with pytest.raises(WorkerLost, match="ended in the middle of the run"):
            simulate(setup, 1, 3000, pool, sink=Tally(2))


class Live(tuple):  # type: ignore[type-arg]
    """A fight's result that counts how many of its kind are alive, and the most at once."""

    alive = 0
    most = 0
    lock = threading.Lock()

    def __new__(cls, row: Any) -> Live:
        with cls.lock:
            cls.alive += 1
            cls.most = max(cls.most, cls.alive)
        return super().__new__(cls, row)

    def __del__(self) -> None:
        with Live.lock:
            Live.alive -= 1

    def __reduce__(self) -> Any:  # sent back from a worker as itself, so the gathered ones count too
        return Live, (tuple(self),)


def fake_range(setup: Any, master: int, start: int, stop: int, opening: Any = None) -> list[Live]:
    """Results made in no time, so a run of many fights costs only their counting."""
    return [Live((i, i % 3 if i % 3 < 2 else None, 1 + i % 7, ("Hurt", "Undamaged"))) for i in range(start, stop)]


def test_a_long_run_holds_no_fights_it_has_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run counts each range's results and lets them go: of 100,000 fights, at most one range's are alive at
    once in this process (500 here), and three (two being played by the executor's threads, one being
    counted; 2,000 each at most) when they come back from an executor; the counts are all the fights'.
    So a run's memory does not grow with -n (it kept every result before: about 200 bytes a fight, 2 GB
    for ten million)."""
    from fudge_combat.sim import parallel
    from fudge_combat.sim.batch import run_batch
    from fudge_combat.sim.parallel import run_on
    from tests.test_sim import setup_for

    monkeypatch.setattr(parallel, "simulate_range", fake_range)
    monkeypatch.setattr("fudge_combat.sim.batch.simulate_range", fake_range)
    monkeypatch.setattr(parallel, "rows_of_range", lambda setup, master, start, stop:
                        parallel.pickle.dumps(fake_range(setup, master, start, stop)))
    n = 100_000
    setup = setup_for("fudge")
    Live.most = Live.alive
    batch = run_batch(setup, 1, n)
    serial_most = Live.most
    Live.most = Live.alive
    tally = Tally(2)
    with ThreadPoolExecutor(max_workers=2) as pool:
        assert run_on(pool, setup, 1, n, jobs=2, sink=tally.add) == []
    pooled_most = Live.most
    assert batch.summary.fights == n and tally.fights == n
    assert batch.summary.rounds == {1 + k: len(range(k, n, 7)) for k in range(7)}
    assert [w.count for w in tally.summary(["a", "b"], ["A", "B"]).wins] == [len(range(0, n, 3)), len(range(1, n, 3))]
    assert serial_most <= 500, serial_most
    assert pooled_most <= 3 * 2_000, pooled_most


def test_every_range_number_is_taken_once_when_the_pipe_holds_fewer_than_the_run_has() -> None:
    """A run of more ranges than the pipe holds (a long run): this process refills the pipe as numbers are
    taken, reading without blocking a moment each time on the read end its workers share; two forked readers
    and this one take every number once, none twice, and no reader fails on the shared end's state (a worker
    that begins a read in that moment waits: the next test)."""
    import os

    from fudge_combat.sim.parallel import _Tokens

    count = 100_000  # the pipe holds 8,192 numbers of 8 bytes
    for _ in range(2):
        tokens = _Tokens(count)
        readers = []
        for _ in range(2):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    os.close(read)
                    tokens.close_writer()
                    taken = []
                    while (index := tokens.take_in_worker()) is not None:
                        taken.append(index)
                    os.write(write, pickle.dumps(taken))
                except BaseException:  # noqa: BLE001  # a reader that fails: the parent sees its exit code
                    code = 1
                finally:
                    os._exit(code)
            os.close(write)
            readers.append((pid, read))
        mine = []
        while (index := tokens.take()) is not None:
            mine.append(index)
        taken = [mine]
        for pid, read in readers:
            with os.fdopen(read, "rb") as answer:
                data = answer.read()
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
            taken.append(pickle.loads(data))
        tokens.close()
        every = [index for part in taken for index in part]
        assert sorted(every) == list(range(count))
        assert all(part == sorted(part) for part in taken)  # each reader takes them in increasing order


def test_a_worker_that_finds_the_shared_pipe_empty_and_non_blocking_waits_for_the_next_number() -> None:
    """The moment `take` makes the shared read end non-blocking: a worker's read that begins then, on an
    empty pipe whose numbers are not all written, waits for the next number instead of failing."""
    import os

    from fudge_combat.sim.parallel import _Tokens

    tokens = _Tokens(100_000)
    held = 0
    while held < tokens.sent:  # the pipe emptied, its writer still open (more numbers to come)
        held += len(os.read(tokens.read_fd, (tokens.sent - held) * tokens.SIZE)) // tokens.SIZE
    os.set_blocking(tokens.read_fd, False)  # as this process's `take` leaves it for a moment
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(tokens.take_in_worker()))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive() and not got  # waiting, not failed
    os.set_blocking(tokens.read_fd, True)
    tokens._fill()  # the next numbers written
    reader.join(5)
    assert got == [held]
    tokens.close()
