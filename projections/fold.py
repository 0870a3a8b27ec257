"""Folding a log: which events count (A-UNDO-2), and the state they build."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from events import models as ev
from events.envelope import Recorded
from projections.draft import draft_of, freeze
from projections.state import HANDLERS, FightState, evolve, replace


def voided(log: Sequence[Recorded]) -> dict[int, int]:
    """seq -> seq of the effective event that voided it.

    Walks backwards: a voiding event counts only if nothing later voided it,
    so a redo (which voids an undo) brings the undone command back.
    """
    by_command: dict[str, list[int]] | None = None  # built at the first undo or redo met
    out: dict[int, int] = {}
    for record in reversed(log):
        event = record.event
        if type(event) not in _VOIDING or record.seq in out:
            continue
        if isinstance(event, ev.EventsVoided):
            targets: Iterable[int] = event.seqs
        else:  # CommandUndone, CommandRedone
            if by_command is None:
                by_command = {}
                for each in log:
                    by_command.setdefault(each.command, []).append(each.seq)
            targets = by_command.get(event.target, ())
        for seq in targets:
            out.setdefault(seq, record.seq)
    return out


_VOIDING = frozenset(ev.VOIDING)


def effective(log: Sequence[Recorded]) -> list[Recorded]:
    gone = voided(log)
    return [r for r in log if r.seq not in gone]


def fold(records: Iterable[Recorded], state: FightState | None = None) -> FightState:
    """`evolve` over the records; `last_seq` is set once at the end (no handler reads it).

    The handlers work on a private draft of the state (`projections.draft`), changed in place
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
