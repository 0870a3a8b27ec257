"""Every event type the log may hold is declared once, by one ruleset, with its evolve, its line in words and
the few words an undo or a redo names its command by (or why it has none) beside it (each ruleset's
`events.EVENTS`, `kernel.event_rules.EventRule`): so a new event type cannot be folded without a line, shown
without a fold, or undone without its words.
"""

from __future__ import annotations

from typing import get_args


import msgspec
import pytest

from fudge_combat.engine import evolve
from fudge_combat.engine.kernel.event_rules import EventRule, Named
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.engine.kernel.registry import RULESETS, ruleset_module
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded
from fudge_combat.projections import consequences, fast

TYPES = set(get_args(ev.Event))  # the union of the events' structs (events.structs: the engine's values)


def names(types: set[type]) -> list[str]:
    return sorted(kind.__name__ for kind in types)


def test_the_union_is_the_event_types() -> None:
    """The types read from the union are the event structs (so the checks below are over all of them)."""
    models = {kind for kind in vars(ev).values()
              if isinstance(kind, type) and issubclass(kind, msgspec.Struct)
              and isinstance(getattr(kind, "type", None), str)
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


def test_a_declaration_without_its_evolve_its_line_or_its_words_is_refused() -> None:
    """An event type cannot be declared with one of the three left out (nor with any set to nothing)."""
    with pytest.raises(TypeError):
        EventRule(evolve=lambda s, r, e: s, words="")  # type: ignore[call-arg]  # the line left out, on purpose
    with pytest.raises(TypeError):
        EventRule(describe=lambda e, ladder, points: "", words="")  # type: ignore[call-arg]  # the evolve left out
    with pytest.raises(TypeError):
        EventRule(lambda s, r, e: s, lambda e, ladder, points: "")  # type: ignore[call-arg]  # the words left out
    assert list(EventRule.__struct_fields__) == ["evolve", "describe", "words"]


def test_every_event_type_has_its_words_or_says_why_not() -> None:
    """An undo names the command it took back by its most telling event (`consequences.summary`): each type's
    declaration gives its words, ranked in one order over every ruleset (no two types alike), or the reason
    another event beside it names the command."""
    words = {kind: rule.words for kind, rule in evolve.EVENT_RULES.items()}
    named = {kind: w for kind, w in words.items() if isinstance(w, Named)}
    reasons = {kind: w for kind, w in words.items() if not isinstance(w, Named)}
    assert names(TYPES - set(named) - set(reasons)) == []
    assert all(callable(w.say) and isinstance(w.rank, int) for w in named.values())
    assert len({w.rank for w in named.values()}) == len(named), "two event types rank alike"
    assert [kind.__name__ for kind, reason in reasons.items() if not (isinstance(reason, str) and reason.strip())] == []


def test_a_command_is_named_by_its_event_of_the_lowest_rank() -> None:
    """A point spent names its command before the round it opened, whatever their order in the log; a command
    of events without words is named by its first event's type."""
    def record(seq: int, event: ev.Event) -> Recorded:
        return Recorded(fight="f", seq=seq, command="c", at="", prev="", event=event)

    rolled = ev.DiceRolled(action=1, roller="Ann", purpose="attack", faces=(1, 0, 0, -1), source="entered")
    spent = ev.FudgePointSpent(combatant="Ann", use="luck", target=1, cost=1)
    started = ev.RoundStarted(round=2)
    state = FightState()
    assert consequences.summary([record(1, rolled), record(2, started), record(3, spent)], state) == \
        "Ann's fudge point (luck)"
    assert consequences.summary([record(1, rolled), record(2, started)], state) == "the start of round 2"
    assert consequences.summary([record(1, rolled)], state) == "dice rolled"


def test_the_rebuild_fold_overrides_only_event_types_it_reads() -> None:
    """`projections.fast` folds a few types with its own handlers: each is a type the plain fold has,
    among those it takes as structs."""
    own = set(fast._OWN)
    assert names(own - set(fast.READ_ONLY)) == []
    assert names(own - set(evolve.HANDLERS)) == []
