"""`evolve`: the state after one event, by the event type's declaration in its ruleset's package.

Each ruleset declares the event types it adds to the log in its `events` module (`EVENTS`: each type's evolve
and its line in words, `kernel.event_rules`); the fold's table is their union over every ruleset in the
registry. Each evolve function takes the state and the recorded event and returns a new state (`replace`);
none mutates what it is given. Voiding events change nothing here: which events count is worked out before
evolve sees them (`kernel.history.effective`).
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine.kernel.event_rules import Evolve, EventRule
from fudge_combat.engine.kernel.registry import RULESETS, ruleset_module
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.events.records import Recorded


def _declared() -> dict[type, EventRule]:
    rules: dict[type, EventRule] = {}
    for name in RULESETS:
        for kind, rule in ruleset_module(name, "events").EVENTS.items():
            if kind in rules:
                raise RuntimeError(f"{kind.__name__} is declared by two rulesets")  # a defect: tests catch it
            rules[kind] = rule
    return rules


# event class -> its declaration (evolve and describe), over every ruleset
EVENT_RULES: dict[type, EventRule] = _declared()
# event class -> its handler (state, its record, the event of that class) -> the state after it
HANDLERS: dict[type, Evolve] = {kind: rule.evolve for kind, rule in EVENT_RULES.items()}


def evolve(state: FightState, recorded: Recorded) -> FightState:
    """The state after one effective event."""
    state = HANDLERS[type(recorded.event)](state, recorded, recorded.event)
    return replace(state, last_seq=recorded.seq)


def describe(event: Any, ladder: Any, points: str = "fudge") -> str:
    """One line of plain text per event, for `log`, `replay` and command output (the shell escapes it). `points`
    names the points spent: fudge, or fate under Fate. An event of no declared line is shown by its type."""
    rule = EVENT_RULES.get(type(event))
    return rule.describe(event, ladder, points) if rule is not None else event.type
