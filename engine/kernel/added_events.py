"""What a ruleset of another package writes its own events with (`kernel.ruleset_events` folds and reads
them): each kind an `AddedEvent` model, and `stored`, the event as the log holds it."""

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import structs as ev


class AddedEvent(BaseModel):
    """One kind of event an installed ruleset adds: a frozen model that refuses unknown fields, its kind
    named by `kind` (unique within its ruleset). Bound its fields as the event models' are (events.bounds)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when a fight first reads one
    kind: ClassVar[str]


def stored(state: FightState, event: AddedEvent) -> ev.RulesetEvent:
    """The event as the log holds it, under the fight's ruleset: what a decide handler returns."""
    return ev.RulesetEvent(ruleset=state.options.ruleset, kind=event.kind, data=event.model_dump(mode="json"))
