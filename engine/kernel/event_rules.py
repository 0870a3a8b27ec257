"""What a ruleset declares for each event type it adds to the log, in one place: how the event changes the
fight's state (`evolve`), how it reads in words (`describe`), and the few words an undo or a redo names the
command that holds it by (`words`: a `Named`, or why the type names no command).

Each ruleset's package lists its event types in its `events` module (`EVENTS`); `engine.evolve` folds with the
union of them and the views describe with it, so an event type declared without either cannot be folded or
shown, nor undone without its words or the reason it has none (tests/test_event_types.py holds every type
of the log's union to exactly one declaration).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from msgspec import Struct


if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import FightState
    from fudge_combat.events.records import Recorded

# (the state, the event's record, the event) -> the state after it
Evolve = Callable[["FightState", "Recorded", Any], "FightState"]
# (the event, the fight's ladder, the word for its points: "fudge" or "fate") -> one line of plain text
Describe = Callable[[Any, Any, str], str]
# (the event, the state the command is undone or redone from) -> the few words that name its command
Say = Callable[[Any, "FightState"], str]


class Named(Struct, frozen=True):
    """The words a command holding an event of this type is named by in an undo's or a redo's line
    (`projections.consequences.summary`), and how telling they are: of a command's events, the one of the
    lowest `rank` names it (a point before the resolution it re-resolves, a resolution or a declaration before
    the dice and the round it opened). The built-in rulesets number their ranks in tens, one order over all
    of them; an added ruleset's own events are ranked as the one stored type they share (`RulesetEvent`)."""

    rank: int
    say: Say


class EventRule(Struct, frozen=True):
    evolve: Evolve
    describe: Describe
    words: Named | str  # its words, or why it has none (another event beside it names the command, or its type's words)


EventRules = Mapping[type, EventRule]
