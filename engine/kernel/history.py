"""A-UNDO-1: which command an undo voids and which undo a redo cancels; A-UNDO-2: which
events count (`voided`, `effective`).

These read the raw log (voided events included), because undo and redo are
about the log's history, not about the fight's state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded

# Commands that found a fight's history or its dice: never undone.
FOUNDING = (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted, ev.SeedRevealed)
META = (ev.CommandUndone, ev.CommandRedone)


def _commands(log: Sequence[Recorded]) -> list[tuple[str, list[Recorded]]]:
    groups: dict[str, list[Recorded]] = {}
    for record in log:
        groups.setdefault(record.command, []).append(record)
    return list(groups.items())


def undo_target(log: Sequence[Recorded], voided: dict[int, int]) -> tuple[str, int]:
    """(command id, first seq) of the last command in force that an undo may void."""
    for command, records in reversed(_commands(log)):
        first = records[0]
        if isinstance(first.event, META) or first.seq in voided:
            continue
        if isinstance(first.event, FOUNDING):
            break
        return command, first.seq
    raise RuleError("nothing to undo")


def redo_target(log: Sequence[Recorded], voided: dict[int, int]) -> tuple[str, str]:
    """(undo command id, command it undid) for the most recent undo still in force.

    A new command after an undo ends the redo chain, as in any editor.
    """
    for command, records in reversed(_commands(log)):
        first = records[0]
        if first.seq in voided:
            continue
        if isinstance(first.event, ev.CommandUndone):
            return command, first.event.target
        if isinstance(first.event, ev.CommandRedone):
            continue
        break
    raise RuleError("nothing to redo")


def voided(log: Sequence[Recorded]) -> dict[int, int]:
    """seq -> seq of the effective event that voided it."""
    by_command: dict[str, list[int]] | None = None  # built at the first undo or redo met

    def seqs_of(command: str) -> Iterable[int]:
        nonlocal by_command
        if by_command is None:
            by_command = {}
            for each in log:
                by_command.setdefault(each.command, []).append(each.seq)
        return by_command.get(command, ())

    return voided_by([record for record in log if type(record.event) in _VOIDING], seqs_of)


def voided_by(voiding: Sequence[Recorded], seqs_of: Callable[[str], Iterable[int]]) -> dict[int, int]:
    """`voided` from the log's voiding records alone (in log order) and the seqs of a command's events:
    a replay from a store reads these two and not the whole log first.

    Walks backwards: a voiding event counts only if nothing later voided it,
    so a redo (which voids an undo) brings the undone command back.
    """
    out: dict[int, int] = {}
    for record in reversed(voiding):
        event = record.event
        assert isinstance(event, ev.VOIDING)  # the voiding events alone
        if record.seq in out:
            continue
        targets: Iterable[int] = event.seqs if isinstance(event, ev.EventsVoided) else seqs_of(event.target)
        for seq in targets:
            out.setdefault(seq, record.seq)
    return out


_VOIDING = frozenset(ev.VOIDING)


def effective(log: Sequence[Recorded]) -> list[Recorded]:
    """The events in force: the log without the events voided in it (what `evolve` is given)."""
    gone = voided(log)
    return [r for r in log if r.seq not in gone]
