"""Every event type the log may hold is declared once, by one ruleset, with its evolve and its line in words
beside it (each ruleset's `events.EVENTS`, `kernel.event_rules.EventRule`): so a new event type cannot be
folded without a line, or shown without a fold. The few words an undo or a redo names its command by
(`consequences._SUMMARY`, or `consequences.UNSUMMARIZED` with why not) are checked here too.
"""

from __future__ import annotations

from typing import get_args

import dataclasses

import pytest

from fudge_combat.engine import evolve
from fudge_combat.engine.kernel.event_rules import EventRule
from fudge_combat.engine.kernel.registry import RULESETS, ruleset_module
from fudge_combat.events import models as ev
from fudge_combat.projections import consequences, fast

TYPES = set(get_args(get_args(ev.Event)[0]))


def names(types: set[type]) -> list[str]:
    return sorted(kind.__name__ for kind in types)


def test_the_union_is_the_event_types() -> None:
    """The types read from the union are the event models (so the checks below are over all of them)."""
    models = {kind for kind in vars(ev).values()
              if isinstance(kind, type) and issubclass(kind, ev.BaseModel) and "type" in kind.model_fields
              and kind.__module__ == ev.__name__}
    assert names(models - TYPES) == []
    assert len(TYPES) > 40


def test_every_event_type_is_declared_once_by_one_ruleset_with_its_evolve_and_its_line() -> None:
    """The rulesets' declarations cover the union exactly, none twice; each has both functions; the fold's table
    and the views' lines are those declarations."""
    declared: dict[type, str] = {}
    for name in RULESETS:
        for kind, rule in ruleset_module(name, "events").EVENTS.items():
            assert kind not in declared, f"{kind.__name__}: declared by {declared[kind]} and {name}"
            declared[kind] = name
            assert isinstance(rule, EventRule) and callable(rule.evolve) and callable(rule.describe), kind.__name__
    assert names(TYPES - set(declared)) == []
    assert names(set(declared) - TYPES) == []
    assert evolve.HANDLERS == {kind: rule.evolve for kind, rule in evolve.EVENT_RULES.items()}
    assert set(evolve.EVENT_RULES) == TYPES


def test_a_declaration_without_its_evolve_or_its_line_is_refused() -> None:
    """An event type cannot be declared with one of the two left out (nor with either set to nothing)."""
    with pytest.raises(TypeError):
        EventRule(evolve=lambda s, r, e: s)  # type: ignore[call-arg]  # the line left out, on purpose
    with pytest.raises(TypeError):
        EventRule(describe=lambda e, ladder, points: "")  # type: ignore[call-arg]  # the evolve left out
    assert [f.name for f in dataclasses.fields(EventRule)] == ["evolve", "describe"]


def test_every_event_type_has_a_summary_or_says_why_not() -> None:
    """An undo names the command it took back by its most telling event (`consequences.summary`): each type
    has its words there, or is listed as named by another beside it, with the reason."""
    summarized, unsummarized = set(consequences._SUMMARY), set(consequences.UNSUMMARIZED)
    assert names(TYPES - summarized - unsummarized) == []
    assert names(summarized & unsummarized) == []
    assert names((summarized | unsummarized) - TYPES) == []
    assert all(reason.strip() for reason in consequences.UNSUMMARIZED.values())


def test_the_rebuild_fold_overrides_only_event_types_it_reads() -> None:
    """`projections.fast` folds a few types with its own handlers: each is a type the plain fold has,
    among those it takes as structs."""
    own = set(fast._OWN)
    assert names(own - set(fast.READ_ONLY)) == []
    assert names(own - set(evolve.HANDLERS)) == []
