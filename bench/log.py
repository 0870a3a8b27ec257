"""What the consequence lines cost `fudge log`, measured side by side on this machine.

    .venv/bin/python bench/log.py [--events 1000 10000] [--runs 5]

Builds a `fudge` fight of about N events (bench/replay.py's `build`: exchanges, rolls, declarations,
points, undos and redos, new rounds), reads its log once, then times, interleaved (median of the
runs), what `fudge log` prints without the terminal:
- the lines alone: one fold (`projections.fold.evolve_all`) and `render.line` per event, as before;
- the lines and the consequences: the same fold, and each command's consequences (`cli.history.Said`:
  the state after the command before it against the state after it, and the records an undo names).
Both fold the log once: the consequences add a comparison per command, not a replay.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import structlog  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from replay import build, interleaved  # noqa: E402
from fudge_combat.cli import render  # noqa: E402
from fudge_combat.cli.history import Said  # noqa: E402
from fudge_combat.projections.fold import evolve_all  # noqa: E402
from fudge_combat.service.fights import Fights  # noqa: E402
from fudge_combat.store.sqlite import SqliteStore  # noqa: E402


def lines_alone(records: list) -> int:
    count = 0
    for record, state in evolve_all(records):
        count += len(render.line(record.event, state))
    return count


def with_consequences(records: list) -> int:
    count = 0
    said = Said(records)
    for index, (record, state) in enumerate(evolve_all(records)):
        count += len(said.line(record, state))
        found, _ = said.after(index, state)
        count += sum(len(c.text) for c in found)
    return count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    print("| fight | lines alone | lines and consequences | ratio |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for events in args.events:
            path = Path(folder) / f"log-{events}.db"
            count, _, _ = build(path, "long", events)
            records = Fights(SqliteStore(path)).log("long")
            times = interleaved({"alone": lambda: lines_alone(records),
                                 "said": lambda: with_consequences(records)}, args.runs)
            print(f"| {count:,} events | {times['alone'] * 1000:.0f} ms | {times['said'] * 1000:.0f} ms | "
                  f"{times['said'] / times['alone']:.2f}x |")


if __name__ == "__main__":
    main()
