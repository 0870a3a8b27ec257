"""Replay throughput and command latency, measured side by side on this machine.

    python bench/replay.py [--events 10000] [--status-events 1000] [--runs 15]

1. Builds a fight of about N events in a SQLite store, then times
   - the floor: SELECT of the rows plus json.loads of each body;
   - full replay: SELECT, envelope parsing (pydantic) and folding into every projection.
2. Builds a fight of about M events and times `fudge status` as a subprocess,
   next to `python -c "import pydantic, typer"`.
Medians of several runs; the machine is shared, so read the figures as orders of magnitude.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import structlog  # noqa: E402

from engine import commands as cmd  # noqa: E402
from engine.options import resolve  # noqa: E402
from events.envelope import load  # noqa: E402
from events.models import Declaration  # noqa: E402
from projections.fold import replay  # noqa: E402
from store.fights import Fights  # noqa: E402
from store.sqlite import SqliteStore  # noqa: E402


def sheet(name: str) -> dict:
    return {"name": name, "attributes": {"Strength": "Good", "Damage Capacity": "Superb"},
            "skills": {"Sword": "Good"}, "combat": {"attack": "Sword"}, "fudge_points": 3,
            "weapon": {"damage": 1}, "armor": {"protection": 2}}


def build(path: Path, name: str, events: int) -> int:
    """A long brawl: exchanges, rolls, declarations, an undo now and then; fresh fighters join as others fall."""
    from engine.errors import RuleError

    fights = Fights(SqliteStore(path))
    label, options = resolve("fudge", 'extends = "fudge"\ndamage_roll = "4dF_limited"\n')
    fights.new(name, label, options.model_dump(mode="json"))
    pair, step = 0, 0

    def fresh(number: int) -> tuple[str, str]:
        names = (f"A{number}", f"B{number}")
        for who in names:
            fights.execute(name, cmd.Join(sheet=sheet(who), source="bench"))
        return names

    a, b = fresh(pair)
    while fights.store.last_seq(name) < events:
        step += 1
        try:
            if step % 7 == 0:
                fights.execute(name, cmd.Declare(combatant=a, declaration=Declaration(all_out="offense")))
            elif step % 11 == 0:
                fights.execute(name, cmd.RollTrait(combatant=b, trait="Sword", difficulty=1))
            elif step % 13 == 0:
                fights.execute(name, cmd.Undo())
            else:
                fights.execute(name, cmd.Exchange(first=a, second=b))
        except RuleError:  # someone is down: two fresh fighters step in
            pair += 1
            a, b = fresh(pair)
    return fights.store.last_seq(name)


def timed(fn, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def floor(path: Path, name: str) -> None:
    db = sqlite3.connect(path)
    rows = db.execute("SELECT e.body FROM events e JOIN fights f ON e.fight = f.id WHERE f.name = ? ORDER BY seq",
                      (name,)).fetchall()
    for (body,) in rows:
        json.loads(body)
    db.close()


def full(path: Path, name: str) -> None:
    store = SqliteStore(path)
    replay([load(row.body) for row in store.read(name)])
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--status-events", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        started = time.perf_counter()
        count = build(path, "long", args.events)
        build_seconds = time.perf_counter() - started
        small = build(path, "short", args.status_events)
        floor_s = timed(lambda: floor(path, "long"), 5)
        full_s = timed(lambda: full(path, "long"), 5)
        fudge = [sys.executable, "-m", "cli.main", "--store", str(path), "status", "--fight", "short"]
        root = Path(__file__).resolve().parent.parent
        status_s = timed(lambda: subprocess.run(fudge, check=True, capture_output=True, cwd=root), args.runs)
        imports_s = timed(lambda: subprocess.run([sys.executable, "-c", "import pydantic, typer"], check=True),
                          args.runs)
    print(f"appends:  {count} events written in {build_seconds:.1f} s through the CLI's service "
          f"({count / build_seconds:,.0f} events/s, one durable transaction per command)")
    print(f"replay:   {count} events, SELECT + json.loads floor   {floor_s * 1000:8.1f} ms  {count / floor_s:>10,.0f} events/s")
    print(f"replay:   {count} events, SELECT + parse + fold all  {full_s * 1000:8.1f} ms  {count / full_s:>10,.0f} events/s"
          f"  ({floor_s / full_s:.2f} of the floor)")
    print(f"status:   `fudge status` on a {small}-event fight     {status_s * 1000:8.1f} ms (median of {args.runs})")
    print(f"baseline: python -c 'import pydantic, typer'      {imports_s * 1000:8.1f} ms  (status = {status_s / imports_s:.1f}x)")


if __name__ == "__main__":
    main()
