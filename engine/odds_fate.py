"""Exact odds of Fate's exchanges (FT-PACE exchange): one exchange from a state, every roll weighed, through
the same rules `fudge fate exchange` applies (`build_side`, `contests`, `FateResolved` and `mark_events`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from fractions import Fraction
from typing import Any

from engine import commands as cmd
from engine import fate as fate_rules
from engine.weighing import apply, fudge_sums
from events import models as ev
from engine.state import FightState

FATE_BOXES = ("clipped", "hurt", "injured", "taken_out")  # FT-TRACK-1
StateKey = Hashable


def fate_key(state: FightState, key: str) -> Hashable:
    """What of a Fate combatant the rest of a duel depends on: how many of each box are marked (FT-TRACK-2),
    and whether a clipped -1 still waits for his next roll (FT-TRACK-3)."""
    marked = Counter(m.box for m in state.fate_marks.get(key, ()))
    return (tuple(marked[box] for box in FATE_BOXES), key in state.fate_clip)


def fate_transitions(chain: Any, state: FightState) -> dict[StateKey, tuple[Fraction, FightState]]:
    """One Fate exchange (FT-PACE) from this state, each fighter acting against the other: the same steps
    `fudge fate exchange` takes (`build_side`, `contests`, `FateResolved` and `mark_events`), every roll weighed."""
    match = chain.match
    actions = (cmd.FateAction(combatant=match.first, target=match.second, mod=match.mods[0]),
               cmd.FateAction(combatant=match.second, target=match.first, mod=match.mods[1]))
    cache_key = tuple(fate_rules.build_side(state, a, (), 0) for a in actions)
    found_by_chance = chain.settled.get(cache_key)
    if found_by_chance is None:
        sums = tuple((t, Fraction(w, 81)) for t, w in fudge_sums(4))
        found: dict[Hashable, tuple[Fraction, Any]] = {}
        for roll_a, p_a in sums:
            for roll_b, p_b in sums:
                sides = (cache_key[0].model_copy(update={"roll": roll_a}),  # build_side only records the roll
                         cache_key[1].model_copy(update={"roll": roll_b}))
                contests = tuple(fate_rules.contests(state, sides))
                same = tuple((c.attacker, c.defender, c.outcome, c.maneuver) for c in contests)
                before = found.get(same)
                found[same] = ((before[0] if before else Fraction(0)) + p_a * p_b,
                               before[1] if before else (contests, sides))
        found_by_chance = [(p, rest) for p, rest in found.values()]
        chain.settled[cache_key] = found_by_chance  # type: ignore[assignment]
    action = state.last_seq + 1
    # the resolution itself changes only who paid a clipped -1, the same whatever the rolls: fold it once
    _, (contests, sides) = found_by_chance[0]  # type: ignore[misc]
    resolved = apply(state, [ev.FateResolved(action=action, pace="exchange", round=state.round, sides=sides,
                                             contests=contests)])
    by_marks: dict[Hashable, tuple[Fraction, tuple[Any, ...]]] = {}
    for chance, (contests, sides) in found_by_chance:  # type: ignore[misc]
        marks = tuple(fate_rules.mark_events(state, action, contests, sides))
        same = tuple((m.combatant, m.box, m.non_lethal) for m in marks)  # what the track reads of a mark
        before_marks = by_marks.get(same)
        by_marks[same] = ((before_marks[0] if before_marks else Fraction(0)) + chance, marks)
    out: dict[StateKey, tuple[Fraction, FightState]] = {}
    for chance, marks in by_marks.values():
        after = apply(resolved, marks)
        key = chain.key(after)
        before = out.get(key)
        out[key] = ((before[0] if before else Fraction(0)) + chance, before[1] if before else after)
    return out

