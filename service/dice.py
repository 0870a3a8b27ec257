"""The dice of a command: faces typed at the table, else the fight's seeded stream from its next draw.

`next_draw` is the one scan for where a stream goes on: the service runs it over the stored log
(newest first, parsed as reached), the simulator over each command's new events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, get_args

from msgspec import Struct, field

from fudge_combat.engine.kernel.command_marks import field_hints
from fudge_combat.engine.kernel.dice import EnteredDice, SeededDice, commitment
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.store.base import StoreError

# The events that can carry a generated draw: only these are parsed when looking back for the latest.
DRAWING = frozenset(kind for kind in get_args(ev.Event) if "draw" in kind.__struct_fields__)
DRAW_TYPES = frozenset(kind.type for kind in DRAWING)


class DiceInput(Struct):
    """Faces typed at the table: per roller (`NAME=FACES`) or for the one roller."""

    by_roller: dict[str, list[tuple[int, ...]]] = field(default_factory=dict)
    anyone: list[tuple[int, ...]] = field(default_factory=list)


class UnusedDice(Struct, frozen=True):
    """Faces typed for a roller that the command never rolled (a damage roll typed before a miss).

    Shown to the GM, never stored: they were not rolled, so no event and no state depends on them.
    """

    roller: str  # the combatant's name, or "(unnamed)" for dice typed without a name
    faces: tuple[tuple[int, ...], ...]  # each roll typed and not used, in the order typed
    rolled: tuple[str, ...]  # what this roller did roll in the command (purposes, in order)
    used: int = 0  # how many of the rolls typed for this roller (or without a name) were rolled


class NoSeed:
    """The dice of a fight whose seed is not usable here: a roll that is not typed is refused, saying why."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Any:
        raise StoreError(self.problem)


def seed_of(kept: str, committed: str) -> bytes | None:
    """The seed in hex `kept`, if it is the one the log committed to (A-FAIR-1); None if not."""
    try:
        seed = bytes.fromhex(kept)
    except ValueError:
        return None
    return seed if commitment(seed) == committed else None


def next_draw(newest_first: Iterable[Any], stream: str, default: int = 0) -> int:
    """The draw after the latest one of `stream` among these records (newest first); `default` if none.

    Only the event types that carry a draw are asked for one (`DRAWING`).
    """
    for record in newest_first:
        event = record.event
        if type(event) in DRAWING and event.draw is not None and event.stream == stream:
            return event.draw + 1
    return default


def dice_source(state: FightState, given: DiceInput, seed: bytes | None, problem: str,
                newest_first: Iterable[Any]) -> EnteredDice:
    """The typed faces, falling back on the fight's seeded stream (`seed`), or on a refusal saying
    `problem` when the seed is not usable here; `newest_first` (the log's records) is scanned for the
    stream's next draw only when generated dice are rolled from a seed."""
    fallback: Any = None
    if state.options.dice == "generated":
        if seed is None:
            fallback = NoSeed(problem)  # refused only if a roll is not typed
        else:
            fallback = SeededDice(seed, state.stream, next_draw(newest_first, state.stream))
    return EnteredDice(by_roller={k.lower(): v for k, v in given.by_roller.items()},
                       anyone=given.anyone, fallback=fallback, substitutes=state.options.dice_substitutes)


def unused_dice(state: FightState, command: Any, source: EnteredDice) -> tuple[UnusedDice, ...]:
    """The typed dice this command did not roll, to be shown; dice typed for the wrong name are refused.

    Which rolls a command makes can depend on its own dice (a damage roll only after a hit), so the
    GM may type more than turns out to be needed: that is not an error. Dice typed for a name that
    rolled nothing and takes no part in the command are: a misspelled or wrong name, which would
    otherwise let the roll meant for someone else be generated behind the GM's back.
    """
    rolled = source.rolled
    out = []
    queues = [(key, queue, source.used.get(key, 0)) for key, queue in source.by_roller.items()]
    queues.append(("*", source.anyone, source.used.get("*", 0)))
    for key, queue, used in queues:
        if used >= len(queue):
            continue
        who = state.find(key) if key != "*" else None
        if key != "*" and used == 0 and key not in rolled and key not in _named_in(command):
            raise InputError(_wrong_roller(state, key, who, rolled))
        name = who.name if who is not None else ("(unnamed)" if key == "*" else key)
        out.append(UnusedDice(name, tuple(queue[used:]), tuple(rolled.get(key, ())), used))
    return tuple(out)


def _named_in(command: Any) -> set[str]:
    """Every name a command's fields hold, lowercased: the combatants who take part in it."""
    names: set[str] = set()
    pending = [getattr(command, field) for field, _ in field_hints(type(command))]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            names.add(value.strip().lower())
        elif isinstance(value, (tuple, list)):
            pending.extend(value)
    return names


def _wrong_roller(state: FightState, key: str, who: Any, rolled: dict[str, list[str]]) -> str:
    rollers = [found.name if (found := state.find(roller)) else roller for roller in rolled]
    here = f"rolling here: {', '.join(rollers)}" if rollers else "this command rolls no dice"
    if who is not None:
        return f"dice typed for {who.name}, who takes no part in this command ({here}): check the name"
    import difflib  # only for this message: not imported by every command

    names = [c.name for c in state.combatants.values()]
    close = difflib.get_close_matches(key, [n.lower() for n in names], n=1, cutoff=0.6)
    hint = next((f"did you mean {n}? " for n in names if close and n.lower() == close[0]), "")
    return f"dice typed for {key}, but no one of that name is in {state.name}: {hint}{here}"
