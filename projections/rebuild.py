"""A replay from scratch that leaves the actions' events in the log: a log's rows folded into the state.

Two paths with one interface: the plain one here (each body read by `events.records.load`, folded by
`engine.evolve`, as `projections.fold` folds them), and the fast one (`projections.fast`), which gives the same state.
`FUDGE_PLAIN=1` runs the plain one (`projections.speed`).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from typing import Any

from fudge_combat.engine.kernel.pmap import EventMap, Reader
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events.records import load
from fudge_combat.projections import fast
from fudge_combat.projections.fold import fold
from fudge_combat.projections.speed import PLAIN


def rebuild(rows: Iterable[tuple[int, str]], gone: Container[int], read: Callable[[int], Any]) -> FightState:
    """The state folded from a log's rows, (seq, body) in order, leaving out the seqs in `gone` (A-UNDO-2:
    the events voided, validated but not folded), as `projections.fold.replay` folds the same records.

    Every body is validated. The state's `events` leave every value in the log, read back with `read`."""
    return plain_rebuild(rows, gone, read) if PLAIN else fast.rebuild(rows, gone, read)


def plain_rebuild(rows: Iterable[tuple[int, str]], gone: Container[int], read: Callable[[int], Any]) -> FightState:
    """`rebuild` by the plain path: each body validated by pydantic, the voided ones too, and the others
    folded by the engine's handlers."""
    records = (load(body) for _, body in rows)
    start = FightState(events=EventMap(reader=Reader(read, keep=False)))
    return fold((record for record in records if record.seq not in gone), start)
