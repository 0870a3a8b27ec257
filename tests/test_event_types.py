"""Every event type the log may hold is known to each place that reads one by its type, so a new event
type cannot be forgotten in any of them: the fold (`engine.evolve.HANDLERS`), its line in the log
(`render.DESCRIBE` and Fate's `fate_render.DESCRIBE`, tests/test_describe.py) and the few words an undo
or a redo names its command by (`consequences._SUMMARY`, or `consequences.UNSUMMARIZED` with why not).
"""

from __future__ import annotations

from typing import get_args

from fudge_combat.cli import fate_render, render
from fudge_combat.engine import evolve
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


def test_every_event_type_has_an_evolve_handler() -> None:
    """The fold knows every type: a stored event it could not fold would stop the replay."""
    assert names(TYPES - set(evolve.HANDLERS)) == []
    assert names(set(evolve.HANDLERS) - TYPES) == []


def test_every_event_type_has_a_description() -> None:
    assert names(TYPES - set(render.DESCRIBE) - set(fate_render.DESCRIBE)) == []


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
