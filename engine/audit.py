"""A-VERIFY-1 and A-FAIR-1: check a stored log, byte by byte and rule by rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from engine import commands as cmd
from engine import history
from engine.decide import decide, seal_of
from engine.dice import Roll, derive_faces
from engine.errors import RuleError
from engine.sheets import Sheet
from events import models as ev
from events.envelope import GENESIS, Recorded, chain_hash, load
from projections.fold import fold, replay, voided
from projections.state import FightState
from store.base import Row

DICE_EVENTS = (ev.DiceRolled, ev.InitiativeRolled, ev.InitiativeRanked)


@dataclass(frozen=True)
class Report:
    events: int
    problems: tuple[tuple[int, str], ...]
    rolls_checked: int
    rolls_unchecked: int

    @property
    def ok(self) -> bool:
        return not self.problems


class RecordedDice:
    """Hands back the faces a command recorded, in order, so `decide` can be re-run."""

    def __init__(self, events: Sequence[Any]) -> None:
        self.rolls = [e for e in events if isinstance(e, DICE_EVENTS) and e.faces]

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll:
        if not self.rolls:
            raise RuleError(f"the log has no recorded roll for {roller}'s {purpose}")
        event = self.rolls.pop(0)
        return Roll(tuple(event.faces), event.source, event.stream, event.draw, getattr(event, "sides", None),
                    getattr(event, "substitute", None))


def check_chain(rows: Sequence[Row]) -> tuple[list[Recorded], list[tuple[int, str]]]:
    problems: list[tuple[int, str]] = []
    log: list[Recorded] = []
    prev = GENESIS
    for index, row in enumerate(rows, start=1):
        if row.seq != index:
            problems.append((row.seq, f"sequence number {row.seq} where {index} was expected"))
            break
        if chain_hash(row.body) != row.hash:
            problems.append((row.seq, "its bytes do not match its hash: the event was altered"))
            break
        try:
            record = load(row.body)
        except (ValueError, ValidationError) as exc:
            problems.append((row.seq, f"cannot be read ({str(exc).splitlines()[0]})"))
            break
        if record.prev != prev or record.seq != row.seq:
            problems.append((row.seq, "its link to the previous event is broken: an event was altered or removed"))
            break
        prev = row.hash
        log.append(record)
    return log, problems


def check_dice(log: Sequence[Recorded]) -> tuple[list[tuple[int, str]], int, int]:
    streams: dict[str, str] = {}  # stream -> the commitment in force for it at this point of the log
    seeds: dict[str, bytes] = {}
    for record in log:
        event = record.event
        if isinstance(event, ev.SeedRevealed):
            seeds[event.seed_commitment] = bytes.fromhex(event.seed)
    problems, checked, unchecked, seen = [], 0, 0, set()
    for record in log:
        event = record.event
        if isinstance(event, (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted)):
            # bound in log order: a later commitment reusing a stream name must not re-bind earlier rolls
            streams[event.stream] = event.seed_commitment
        if not isinstance(event, DICE_EVENTS) or event.source != "generated" or not event.faces:
            continue
        commit = streams.get(event.stream or "", "")
        key = (commit, event.stream, event.draw)
        if key in seen:
            problems.append((record.seq, f"draw {event.draw} of stream {event.stream} was used twice"))
        seen.add(key)
        seed = seeds.get(commit)
        if seed is None:
            unchecked += 1
            continue
        checked += 1
        sides = getattr(event, "sides", None)
        if derive_faces(seed, event.stream or "", event.draw or 0, len(event.faces), sides) != tuple(event.faces):
            problems.append((record.seq, "generated faces differ from those the revealed seed gives (A-FAIR-1)"))
    return problems, checked, unchecked


def _payloads(events: Sequence[Any]) -> list[dict[str, Any]]:
    return [_payload(e) for e in events]


def _payload(event: Any) -> dict[str, Any]:
    """A joined sheet is compared as the current Sheet reads it: a sheet recorded before a later version
    added optional fields (with defaults) is the same sheet, not a different consequence."""
    out: dict[str, Any] = event.model_dump(mode="json")
    if isinstance(event, ev.CombatantJoined):
        out["sheet"] = Sheet.model_validate(out["sheet"]).model_dump(mode="json")
    return out


def check_rules(log: Sequence[Recorded]) -> list[tuple[int, str]]:
    """Re-run every command on the state before it; compare with what was recorded."""
    problems: list[tuple[int, str]] = []
    groups: list[list[Recorded]] = []
    for record in log:
        if groups and groups[-1][0].command == record.command:
            groups[-1].append(record)
        else:
            groups.append([record])
    state = FightState()
    done = 0
    for group in groups:
        first = group[0]
        recorded = [r.event for r in group]
        issued = first.issued
        if issued is not None:
            try:
                command = cmd.COMMAND_ADAPTER.validate_python(issued)
                if isinstance(command, cmd.Undo):
                    target, _ = history.undo_target(log[:done], voided(log[:done]))
                    expected: list[Any] = [ev.CommandUndone(target=target)]
                elif isinstance(command, cmd.Redo):
                    undo, restores = history.redo_target(log[:done], voided(log[:done]))
                    expected = [ev.CommandRedone(target=undo, restores=restores)]
                elif isinstance(command, (cmd.StartBranch, cmd.CommitSeed)):
                    expected = recorded
                else:
                    expected = decide(state, command, RecordedDice(recorded))
            except (RuleError, ValidationError) as exc:
                problems.append((first.seq, f"the rules refuse this command now: {exc}"))
                expected = recorded
            if _payloads(expected) != _payloads(recorded):
                seq = next((r.seq for r, e in zip(group, expected) if r.event != e), first.seq)
                problems.append((seq, "recorded consequences differ from what the rules give"))
        done += len(group)
        if any(isinstance(r.event, ev.VOIDING) for r in group):
            state = replay(log[:done])
        else:
            state = fold(group, state)
    return problems


def verify(rows: Sequence[Row]) -> Report:
    log, problems = check_chain(rows)
    checked = unchecked = 0
    if not problems:
        dice_problems, checked, unchecked = check_dice(log)
        problems += dice_problems
        problems += check_rules(log)
    return Report(len(rows), tuple(problems), checked, unchecked)


def seal_matches(declaration: ev.Declaration, salt: str, seal: str) -> bool:
    return seal_of(declaration, salt) == seal
