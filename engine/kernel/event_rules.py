"""What a ruleset declares for each event type it adds to the log, in one place: how the event changes the
fight's state (`evolve`) and how it reads in words (`describe`).

Each ruleset's package lists its event types in its `events` module (`EVENTS`); `engine.evolve` folds with the
union of them and the views describe with it, so an event type declared without either cannot be folded or
shown (tests/test_event_types.py holds every type of the log's union to exactly one declaration).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import FightState
    from fudge_combat.events.envelope import Recorded

# (the state, the event's record, the event) -> the state after it
Evolve = Callable[["FightState", "Recorded", Any], "FightState"]
# (the event, the fight's ladder, the word for its points: "fudge" or "fate") -> one line of plain text
Describe = Callable[[Any, Any, str], str]


@dataclass(frozen=True, slots=True)
class EventRule:
    evolve: Evolve
    describe: Describe


EventRules = Mapping[type, EventRule]
