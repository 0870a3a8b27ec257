"""A fight's story, command by command: the lines of its events and the words of what each command did.

Shared by the live board (its last commands) and the report (all of them, round by round).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from cli import render
from engine.history import voided
from engine.state import FightState
from events import models as ev
from events.envelope import Recorded
from projections.fold import evolve_all


@dataclass
class Step:
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


def consequences_of(before: FightState, after: FightState, records: Sequence[Recorded]) -> list[tuple[str, str]]:
    """The words of what a command did (projections.consequences), as (kind, text)."""
    try:
        from projections.consequences import consequences
    except ImportError:  # pragma: no cover - the projection lands separately
        return []
    return [(str(c.kind), str(c.text)) for c in consequences(before, after, list(records))]


def steps(records: Sequence[Recorded], keep: int | None = None) -> list[Step]:
    """The commands of a log in order (the last `keep` only, their states still read from the whole log)."""
    gone = voided(records)
    out: list[Step] = []
    group: list[Recorded] = []
    before = FightState()
    state = before
    for record, state_after in evolve_all(records):
        if out and out[-1].command == record.command:
            step = out[-1]
        else:
            if out:
                out[-1].after = state
            step = Step(record.command, state_after.round, before=state)
            out.append(step)
            group = []
        group.append(record)
        step.lines.append((record.seq, render.line(record.event, state_after), gone.get(record.seq)))
        step.round = state_after.round
        state = state_after
    if out:
        out[-1].after = state
    chosen = out if keep is None else out[-keep:]
    by_command: dict[str, list[Recorded]] = {}
    for record in records:
        by_command.setdefault(record.command, []).append(record)
    for step in chosen:
        if step.before is not None and step.after is not None:
            step.consequences = consequences_of(step.before, step.after, by_command[step.command])
    return chosen


def branch_of(records: Sequence[Recorded]) -> ev.BranchStarted | None:
    """The fight's branch point, if it is a branch (A-BRANCH-1)."""
    return next((r.event for r in records if isinstance(r.event, ev.BranchStarted)), None)
