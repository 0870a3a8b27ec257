"""What `fudge serve` costs: the poll it makes every 0.3 s (the store's tail), and the rebuild of the page when
the tail moved (the state, the log, the last commands' lines), on fights of growing length; beside it, the
rebuild as first written (the last commands cut from the whole log's story, every undo replaying its prefix).

    .venv/bin/python bench/serve.py [--events 100 1000 5000] [--runs 200]

Fights are built as bench/replay.py builds them (three fighters, exchanges, undos, fudge points).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from replay import build  # noqa: E402

from fudge_combat.cli.web.app import SHOWN, Board  # noqa: E402
from fudge_combat.cli.web.report import facts, html_report  # noqa: E402
from fudge_combat.cli.web.story import steps  # noqa: E402
from fudge_combat.service.fights import Fights  # noqa: E402
from fudge_combat.store.sqlite import SqliteStore  # noqa: E402


def timed(work, runs: int) -> float:  # type: ignore[no-untyped-def]
    """Median seconds of `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def first_version(board: Board, seq: int) -> None:
    """The page as first built: every command's story, then the last ones kept."""
    board.fights.state("bench")
    steps(board.fights.log("bench", seq))[-SHOWN:]


def report(fights: Fights) -> str:
    """What `fudge report` computes and writes, less the process start."""
    from fudge_combat.engine.audit import verify

    rows = fights.store.read("bench")
    records = fights.log("bench")
    verified = verify(rows, fights.store.fight("bench").fight_id)
    return html_report(facts("bench", fights.state("bench"), records, [row.hash for row in rows], verified, []))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    print("| events | poll (tail unchanged) | rebuild (tail moved) | rebuild walking the whole log (first version) | `fudge report` (HTML, in process) |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for events in args.events:
            path = Path(folder) / f"f{events}.db"
            written, _, _ = build(path, "bench", events)
            board = Board(Fights(SqliteStore(path)), "bench")
            board.poll()
            poll = timed(board.poll, args.runs)
            rebuild = timed(lambda: board.build("bench", written), max(3, args.runs // 40))
            whole = timed(lambda: first_version(board, written), 3)
            made = timed(lambda: report(board.fights), 1)
            print(f"| {written:,} | {poll * 1e6:.0f} µs | {rebuild * 1e3:.0f} ms | {whole * 1e3:.0f} ms "
                  f"| {made:.1f} s |")


if __name__ == "__main__":
    main()
