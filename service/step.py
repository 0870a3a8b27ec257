"""One command's step, the same for the service and the simulator: decide, record, fold.

The service records its events as stored records (JSON body, hash chain) and appends them; the
simulator keeps light records in memory and appends nothing. Both go through `step`, so a fight
the simulator plays is the fight the service would store (tests/test_sim.py checks it event by event).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import commands as cmd
from engine import history
from events import models as ev
from engine.history import voided
from projections.fold import fold, replay
from engine.state import FightState
from store.bulk import paused_gc

# A record is what `evolve` reads of one event: the stored envelope, or the simulator's light one.
Decide = Callable[[FightState, Any, Any], list[Any]]


def decided(decide: Decide, state: FightState, command: Any, dice: Any, log: Callable[[], Sequence[Any]]) -> list[Any]:
    """The events of `command`: undo and redo read the log's history (A-UNDO-1), the rest are decided."""
    if isinstance(command, cmd.Undo):
        records = log()
        target, _ = history.undo_target(records, voided(records))
        return [ev.CommandUndone(target=target)]
    if isinstance(command, cmd.Redo):
        records = log()
        undo, restores = history.redo_target(records, voided(records))
        return [ev.CommandRedone(target=undo, restores=restores)]
    return decide(state, command, dice)


def step(decide: Decide, state: FightState, command: Any, dice: Any, log: Callable[[], Sequence[Any]],
         record: Callable[[list[Any]], list[Any]]) -> tuple[list[Any], FightState, list[Any] | None]:
    """(the new records, the state after them, the whole log when it was replayed, else None).

    `log()` gives the records before this command (read only when needed: an undo, a redo, a void);
    `record(events)` makes the new records. The state is the old one folded with the new records,
    or, after an event that voids others (A-UNDO-2), a replay of the whole log.
    """
    events = decided(decide, state, command, dice, log)
    new = record(events)
    for event in events:
        if isinstance(event, ev.VOIDING):
            whole = [*log(), *new]
            with paused_gc():
                return new, replay(whole), whole
    return new, fold(new, state), None
