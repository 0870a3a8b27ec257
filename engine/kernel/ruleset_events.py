"""The event types a ruleset of another package adds (`kernel.registry`): each kind its own model in that
package, every one stored as one type of the log, `ev.RulesetEvent` (its ruleset, its kind, its fields).

Why one stored type: the log's union, both decoders of a stored body (events.decoder), the bounds and the
stores then read any log whichever rulesets are installed, and the built-in events' stored form and hash
chain are untouched. A ruleset's package declares each kind as an `AddedEvent` model in its `events`
module's `EVENTS`, with its evolve, its line in words and its words for an undo as every event type is
(`kernel.event_rules`; its rank is the stored type's, `ADDED`). Its decide handlers
return `stored(state, event)` (`kernel.added_events`, a module apart: a fight of a built-in ruleset folds
with this one and never creates the model class). Folding or showing the stored event validates its fields
by the kind's model (its own bounds: events.bounds), then hands the model to the declared evolve or line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.event_rules import EventRule, Named
from fudge_combat.engine.kernel.registry import UnknownRuleset, added, is_built_in, ruleset_module
from fudge_combat.events import structs as ev

if TYPE_CHECKING:
    from pydantic import BaseModel

    from fudge_combat.engine.kernel.state import FightState
    from fudge_combat.events.records import Recorded


Summary = Callable[[Any, "FightState"], str]  # (the event, the state) -> the few words an undo names it by

_KINDS: dict[str, dict[str, tuple[type[BaseModel], EventRule, Summary | None]]] = {}


def kinds_of(ruleset: str) -> dict[str, tuple[type[BaseModel], EventRule, Summary | None]]:
    """The kinds of event the ruleset's package declares: kind -> (its model, its rule, its undo's words)."""
    found = _KINDS.get(ruleset)
    if found is None:
        module = ruleset_module(ruleset, "events")
        found = _KINDS[ruleset] = {model.kind: (model, rule, rule.words.say if isinstance(rule.words, Named) else None)
                                   for model, rule in module.EVENTS.items()
                                   if isinstance(getattr(model, "kind", None), str)}  # its AddedEvents
    return found


def opened(event: ev.RulesetEvent) -> tuple[BaseModel, EventRule, Summary | None]:
    """The stored event as its kind's model, with the kind's rule and words (RuleError: its ruleset is not
    installed, declares no such kind, or its fields do not fit the kind's model: an altered log)."""
    try:
        model, rule, summary = kinds_of(event.ruleset)[event.kind]
    except UnknownRuleset as exc:
        raise RuleError(f"a {event.kind} event: {exc}") from None
    except KeyError:
        raise RuleError(f"the {event.ruleset} ruleset has no event {event.kind!r}: the log was written by "
                        "another version of it, or altered") from None
    from pydantic import ValidationError  # here: a fight of a built-in ruleset never loads pydantic

    try:
        return model.model_validate(event.data), rule, summary
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(map(str, error["loc"])) or "its fields"
        raise RuleError(f"a {event.kind} event of the {event.ruleset} ruleset does not fit its model "
                        f"({where}: {error['msg']}): the log was altered") from None


def _evolve(state: FightState, recorded: Recorded, event: ev.RulesetEvent) -> FightState:
    inner, rule, _ = opened(event)
    return rule.evolve(state, recorded, inner)


def _describe(event: ev.RulesetEvent, ladder: Any, points: str) -> str:
    """Its ruleset's line; a log whose ruleset is not installed here (or does not know the event) still reads,
    each such event as its kind and why it has no line."""
    if event.ruleset not in added() and not is_built_in(event.ruleset):
        return f"{event.kind.replace('_', ' ')} (an event of the {event.ruleset} rules, which are not installed)"
    try:
        inner, rule, _ = opened(event)
    except RuleError as exc:
        return f"{event.kind.replace('_', ' ')} ({exc})"
    return rule.describe(inner, ladder, points)


def summary(event: ev.RulesetEvent, state: FightState) -> str:
    """The few words an undo names the event's command by: its ruleset's, else its kind's own words."""
    inner, _, words = opened(event)
    return words(inner, state) if words is not None else event.kind.replace("_", " ")


# How the log's `ruleset_event` folds, reads and names its command: by its kind's declaration in its ruleset's
# package. Its words rank after a point spent, before any resolution (`kernel.event_rules.Named`).
ADDED: EventRule = EventRule(_evolve, _describe, Named(40, summary))
