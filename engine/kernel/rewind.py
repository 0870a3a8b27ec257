"""A-UNDO-1 without a replay: what each command in force changed in the state, kept so an undo can take
it back and a redo make it again, each in the time of one command whatever the fight's length.

Why this is the state a replay gives (A-UNDO-2): an undo voids the last command in force, C. Every
command after C is voided or is an undo or redo, and voiding events change nothing in a fold
(engine.evolve), so the events in force after the undo are those in force just before C: the
state is the one C started from, with `last_seq` at the undo. A redo (which voids that undo)
brings C's events back in force after the same events: the state C made. So the service keeps,
for each command in force, the fields it changed with their values before (`Change`); an undo puts
them back and keeps the values it replaced, which are the redo. The persistent maps that grow with
the fight (engine.kernel.pmap) give their changes since an older version, so a change holds only what
one command touched, not copies of the fight.

`History` is the two stacks (done, undone) beside a state: its top is the command an undo voids
and the undo a redo cancels, the answers `engine.kernel.history.undo_target` and `redo_target` find by
reading the whole log (tests/test_rewind.py checks they agree). It is bounded (`DEPTH`); an
undo deeper than it, or one whose history is not known (`exact` false), reads the log as before.
A fudge point's void takes commands back the same way and folds them again without the voided
event (service.step.refolded): the fold itself lives above the engine.
"""

from typing import Any

from msgspec import Struct

from fudge_combat.engine.kernel.pmap import MISSING, PMap
from fudge_combat.engine.kernel.state import FightState, replace

DEPTH = 64  # commands kept for undo (and undos for redo); deeper ones replay the log
_NAMES = tuple(name for name in FightState.__struct_fields__ if name != "last_seq")  # last_seq is the log's


class Change(Struct, frozen=True):
    """What one command changed: each field it replaced with the value before (a value of that field's
    own type), and for each persistent map, each key it set with the value before (of the map's values;
    MISSING: the key was not there; for `events`, the event at that seq in the log). A snapshot stores
    these typed by the field each names (store.schema: a union tagged by the field's name)."""

    command: str
    first: int  # the command's first seq
    values: tuple[tuple[str, Any], ...]
    keys: tuple[tuple[str, tuple[tuple[Any, Any], ...]], ...]


def change(command: str, first: int, before: FightState, after: FightState) -> Change | None:
    """The change from `before` to `after` (after = before folded with the command's events); None if it
    cannot be told in the size of the command (a map of `after` that is not a later version of before's)."""
    values, keys = [], []
    for name in _NAMES:
        old, new = getattr(before, name), getattr(after, name)
        if old is new:
            continue
        if isinstance(new, PMap) and isinstance(old, PMap):
            changed = new.changes_since(old)
            if changed is None:
                return None
            keys.append((name, tuple(changed.items())))
        else:
            values.append((name, old))
    return Change(command, first, tuple(values), tuple(keys))


def apply(state: FightState, undo: Change, last_seq: int) -> tuple[FightState, Change]:
    """`state` with the change's values put back (the state before its command, or after it for a redo),
    and the change that goes the other way."""
    back_values, back_keys, updates = [], [], {}
    for name, value in undo.values:
        back_values.append((name, getattr(state, name)))
        updates[name] = value
    for name, items in undo.keys:
        mapping: PMap = getattr(state, name)
        now = mapping._data()
        back_keys.append((name, tuple((key, now.get(key, MISSING)) for key, _ in items)))
        for key, value in items:
            mapping = mapping.delete(key) if value is MISSING else mapping.set(key, value)
        updates[name] = mapping
    return (replace(state, last_seq=last_seq, **updates),
            Change(undo.command, undo.first, tuple(back_values), tuple(back_keys)))


class History(Struct, frozen=True):
    """The commands in force an undo may void, newest last, and the undos a redo may cancel
    ((undo command id, the change that redoes its command)), newest last. `exact`: the stacks hold
    every such command since the fight's last founding command (nothing dropped, nothing unknown)."""

    done: tuple[Change, ...] = ()
    undone: tuple[tuple[str, Change], ...] = ()
    exact: bool = True

    def did(self, done: Change | None) -> "History":
        """After a command: it is the newest an undo may void; a redo chain ends (A-UNDO-1)."""
        if done is None:
            return UNKNOWN
        stack = self.done + (done,)
        exact = self.exact and len(stack) <= DEPTH
        return History(stack[-DEPTH:], (), exact)

    def undid(self, undo_command: str, redo: Change) -> "History":
        undone = self.undone + ((undo_command, redo),)
        return History(self.done[:-1], undone[-DEPTH:], self.exact and len(undone) <= DEPTH)

    def redid(self, done: Change) -> "History":
        stack = self.done + (done,)
        return History(stack[-DEPTH:], self.undone[:-1], self.exact and len(stack) <= DEPTH)

    def knows_undo(self) -> bool:
        """The top of `done` is the undo's target, or there is none and the log agrees."""
        return bool(self.done) or self.exact

    def knows_redo(self) -> bool:
        return bool(self.undone) or self.exact


FOUNDED = History()  # after a founding command: nothing before it is undone (engine.kernel.history.FOUNDING)
UNKNOWN = History(exact=False)  # nothing known: an undo reads the log
