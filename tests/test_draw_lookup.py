"""A command read from a snapshot continues the generated dice where the log left them (A-FAIR-1).

The next draw of a fight's dice stream is one past the latest draw in the log. A command that
starts from a snapshot finds it by reading the log backwards, in pages, parsing only events that
can carry a draw; it must pick the same draw as a command that folded the whole log, however far
back that draw is (here more than the first pages' rows of entered dice).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, sheet, start


def duel(path: Path, entered_exchanges: int) -> None:
    fights = Fights(SqliteStore(path))
    start(fights, "fight")
    for name in ("Ann", "Bob"):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword", weapon=1,
                                                     armor=3), source="test"))
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"))  # generated: draws 0 and 1
    for _ in range(entered_exchanges):  # stand-offs with entered dice: rows with no draw
        fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    fights.store.close()


def next_rolls(path: Path) -> list[tuple[str | None, int | None, tuple[int, ...]]]:
    """The generated rolls of one more exchange, run by a fresh service (as the next `fudge` command)."""
    fights = Fights(SqliteStore(path))
    outcome = fights.execute("fight", cmd.Exchange(first="Ann", second="Bob"))
    fights.store.close()
    return [(r.event.stream, r.event.draw, r.event.faces) for r in outcome.records
            if isinstance(r.event, ev.DiceRolled)]


@pytest.mark.parametrize("entered_exchanges", [0, 3, 120])
def test_A_FAIR_1_a_command_from_a_snapshot_draws_where_a_replay_would(tmp_path: Path, entered_exchanges: int) -> None:
    """A-FAIR-1: the same next draw (and faces) from the snapshot and from a fold of the whole log."""
    from_snapshot, replayed = tmp_path / "snapshot.db", tmp_path / "replayed.db"
    duel(from_snapshot, entered_exchanges)
    shutil.copy(from_snapshot, replayed)
    with sqlite3.connect(replayed) as db:
        db.execute("DELETE FROM snapshots")  # the next command folds the log it has read
        rows = db.execute("SELECT count(*) FROM events").fetchone()[0]
    assert entered_exchanges < 120 or rows > 64 + 256  # the latest draw lies beyond the first two pages

    drawn = next_rolls(from_snapshot)
    assert drawn == next_rolls(replayed)
    assert [draw for _, draw, _ in drawn] == [2, 3]  # the first exchange drew 0 and 1
