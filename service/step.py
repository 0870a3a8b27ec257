"""One command's step, the same for the service and the simulator: decide, record, fold.

The service records its events as stored records (JSON body, hash chain) and appends them; the
simulator keeps light records in memory and appends nothing. Both go through `step`, so a fight
the simulator plays is the fight the service would store (tests/test_sim.py checks it event by event).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel import history
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.history import voided, voided_by
from fudge_combat.engine.kernel.rewind import FOUNDED, UNKNOWN, History, apply, change
from fudge_combat.projections.fold import fold, replay
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.store.bulk import paused_gc

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


def tracked_step(decide: Decide, state: FightState, done: History, command: Any, dice: Any,
                 log: Callable[[], Sequence[Any]], record: Callable[[list[Any]], list[Any]],
                 since: Callable[[int], Sequence[Any]]) -> tuple[list[Any], FightState, list[Any] | None, History]:
    """`step`, with the fight's undo history (engine.kernel.rewind) kept beside the state: an undo or a redo
    takes its target from the history and puts the changed fields back, in the time of one command,
    instead of reading and replaying the log (which it still does when the history does not know).
    Returns `step`'s three and the history after the command."""
    if isinstance(command, cmd.Undo) and done.knows_undo():
        if not done.done:
            raise RuleError("nothing to undo")
        top = done.done[-1]
        new = record([ev.CommandUndone(target=top.command)])
        after, redo = apply(state, top, new[-1].seq)
        return new, after, None, done.undid(new[0].command, redo)
    if isinstance(command, cmd.Redo) and done.knows_redo():
        if not done.undone:
            raise RuleError("nothing to redo")
        undo, redo = done.undone[-1]
        new = record([ev.CommandRedone(target=undo, restores=redo.command)])
        after, back = apply(state, redo, new[-1].seq)
        return new, after, None, done.redid(back)
    events = decided(decide, state, command, dice, log)
    new = record(events)
    if any(isinstance(event, ev.VOIDING) for event in events):  # a fudge point re-resolving a roll
        refold = refolded(state, done, new, since)
        if refold is not None:
            return new, refold[0], None, refold[1]
        whole = [*log(), *new]
        with paused_gc():
            return new, replay(whole), whole, UNKNOWN
    after = fold(new, state)
    return new, after, None, following(done, state, new, after, False)


def refolded(state: FightState, done: History, new: Sequence[Any], since: Callable[[int], Sequence[Any]]
             ) -> tuple[FightState, History] | None:
    """The state after a command whose events void earlier ones (a fudge point's EventsVoided, C-FP-2),
    from the undo history rather than a replay: the commands in force back to the first one holding a
    voided event are taken back (engine.kernel.rewind), then folded again without the voided events, with the
    new command. `since(seq)` reads the log from `seq` on; only that part is read.

    Why it is the replay's state: every event before the command taken back to is in force as it was
    when that command was appended (the commands after it that could void one are among those folded
    again, and the rewind point is lowered until none of their voids reaches below it). None when the
    history does not reach that far: then the log is replayed."""
    if any(isinstance(record.event, history.META) for record in new):
        return None
    low = min((seq for record in new if isinstance(record.event, ev.EventsVoided) for seq in record.event.seqs),
              default=None)
    stack = done.done
    while low is not None:
        index = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].first <= low), None)
        if index is None:
            return None
        in_force = {change.command for change in stack[index:]} | {new[0].command}
        kept = [record for record in [*since(stack[index].first), *new] if record.command in in_force]
        gone = voided_by([record for record in kept if isinstance(record.event, ev.EventsVoided)], lambda _: ())
        reach = min(gone, default=low)
        if reach >= stack[index].first:
            break
        low = reach
    else:
        return None
    now = state
    for change_back in reversed(stack[index:]):
        state, _ = apply(state, change_back, state.last_seq)
    state = fold([record for record in kept if record.seq not in gone], state)
    state = replace(state, last_seq=new[-1].seq)
    # An undo of this command brings back the state it started from (its voids voided), whatever
    # was folded again to make it: the history below it stays as it was.
    return state, done.did(change(new[0].command, new[0].seq, now, state))


def by_command(records: Sequence[Any]) -> list[list[Any]]:
    """The records in groups of one command each, in order."""
    groups: list[list[Any]] = []
    for record in records:
        if groups and groups[-1][0].command == record.command:
            groups[-1].append(record)
        else:
            groups.append([record])
    return groups


def following(done: History, before: FightState, new: Sequence[Any], after: FightState, replayed: bool) -> History:
    """The history after a command that is not an undo or redo answered from the history: a founding
    command starts it again, a replayed one (its events void others) leaves it unknown."""
    if replayed:
        return UNKNOWN
    first = new[0]
    if isinstance(first.event, history.FOUNDING):
        return FOUNDED
    if isinstance(first.event, history.META):
        return UNKNOWN
    return done.did(change(first.command, first.seq, before, after))
