"""A fight's story, command by command: the lines of its events and the words of what each command did.

Shared by the live board (its last commands) and the report (all of them, round by round).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from msgspec import Struct, field

from fudge_combat.cli import render
from fudge_combat.engine.kernel.history import voided
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded
from fudge_combat.engine.evolve import evolve
from fudge_combat.projections.fold import evolve_all, replay


class Step(Struct):
    """One command: its events' lines (seq, text, voided by), and its consequences (kind, text)."""

    command: str
    round: int
    lines: list[tuple[int, str, int | None]] = field(default_factory=list)
    consequences: list[tuple[str, str]] = field(default_factory=list)
    before: FightState | None = None
    after: FightState | None = None

    @property
    def undone(self) -> bool:
        return bool(self.lines) and all(by is not None for _, _, by in self.lines)


def consequences_of(before: FightState, after: FightState, records: Sequence[Recorded],
                    log: Mapping[str, Sequence[Recorded]]) -> list[tuple[str, str]]:
    """The words of what a command did (projections.consequences), as (kind, text); an undo's or a redo's
    read with the records it took back or brought back (`log`: the log's records by command id)."""
    from fudge_combat.cli.outcome import unsaid
    from fudge_combat.projections.consequences import consequences, touched

    undone = touched(log, records)
    said = consequences(before, after, list(records), undone)
    return [(c.kind, c.text) for c in unsaid(said, (render.line(r.event, after, r.seq) for r in records))]


def walk(records: Sequence[Recorded], start: int = 0,
         before: FightState | None = None) -> Iterator[tuple[Recorded, FightState]]:
    """(record, state as of it) from `records[start]` on, as `fudge log` reads them (projections.fold.evolve_all):
    the state before `start` folded once, so the last commands of a long fight cost one fold, not a replay per undo."""
    if not start:
        yield from evolve_all(records)
        return
    state = before if before is not None else replay(records[:start])
    for index in range(start, len(records)):
        record = records[index]
        state = replay(records[: index + 1]) if isinstance(record.event, ev.VOIDING) else evolve(state, record)
        yield record, state


def steps(records: Sequence[Recorded], keep: int | None = None,
          walked: Sequence[tuple[Recorded, FightState]] | None = None) -> list[Step]:
    """The commands of a log in order (the last `keep` only; `walked`: the log's states, if already walked)."""
    gone = voided(records)
    start = 0
    if keep is not None:
        commands = list(dict.fromkeys(record.command for record in records))[-keep:]
        first = set(commands)
        start = next((index for index, record in enumerate(records) if record.command in first), len(records))
    before = replay(records[:start]) if start else FightState()
    out: list[Step] = []
    state = before
    for record, state_after in (walked if walked is not None else walk(records, start, before)):
        if out and out[-1].command == record.command:
            step = out[-1]
        else:
            if out:
                out[-1].after = state
            step = Step(record.command, state_after.round, before=state)
            out.append(step)
        step.lines.append((record.seq, render.line(record.event, state_after), gone.get(record.seq)))
        step.round = state_after.round
        state = state_after
    if out:
        out[-1].after = state
    by_command: dict[str, list[Recorded]] = {}
    for record in records:  # the whole log: an undo among the last commands may name an older one
        by_command.setdefault(record.command, []).append(record)
    for step in out:
        if step.before is not None and step.after is not None:
            step.consequences = consequences_of(step.before, step.after, by_command[step.command], by_command)
    return out


def branch_of(records: Sequence[Recorded]) -> ev.BranchStarted | None:
    """The fight's branch point, if it is a branch (A-BRANCH-1)."""
    return next((r.event for r in records if isinstance(r.event, ev.BranchStarted)), None)
