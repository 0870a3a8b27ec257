"""Folding a log into the state it builds: as of any event (A-REPLAY-1), and event by event.

Which events count (A-UNDO-2) is the core's `engine.kernel.history.effective`; what each one does is
`engine.evolve`. `fold` is evolve over many events, on a draft (`engine.kernel.state.Draft`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fudge_combat.engine.evolve import HANDLERS, evolve
from fudge_combat.engine.kernel.history import effective
from fudge_combat.engine.kernel.state import FightState, draft_of, freeze, replace
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded


def fold(records: Iterable[Recorded], state: FightState | None = None) -> FightState:
    """`evolve` over the records; `last_seq` is set once at the end (no handler reads it).

    The handlers work on a private draft of the state (`engine.kernel.state.Draft`), changed in place
    rather than copied at every event; `state` itself is left as it was.
    """
    handlers = HANDLERS
    # No name is kept for a fresh start state: its maps would keep every version the fold makes
    # alive (an older PMap version holds its change to the newer one) until the fold returns.
    draft: FightState = draft_of(state or FightState())
    last = None
    for last in records:
        event = last.event
        draft = handlers[type(event)](draft, last, event)
    if last is None:
        return state or FightState()
    return freeze(draft, last_seq=last.seq)


def replay(log: Sequence[Recorded], as_of: int | None = None) -> FightState:
    """The state of a fight from its log, optionally as of a sequence number (A-REPLAY-1)."""
    if as_of is not None:
        log = [r for r in log if r.seq <= as_of]
    state = fold(effective(log))
    if log:
        state = _at(state, log[-1].seq)
    return state


def _at(state: FightState, seq: int) -> FightState:
    return replace(state, last_seq=seq)


def evolve_all(log: Sequence[Recorded]) -> Iterable[tuple[Recorded, FightState]]:
    """(event, state as of it) for each event of a log, as a replay shows them."""
    state = FightState()
    for index, record in enumerate(log):
        if isinstance(record.event, ev.VOIDING):
            state = replay(log[: index + 1])
        else:
            state = evolve(state, record)
        yield record, state
