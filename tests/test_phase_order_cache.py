"""PH-1, PH-3, PH-4: `slots` reuses the last order it worked out while nothing it reads has changed;
every state of a phase fight gets the order `slots_of` works out afresh, asked in any order."""

from __future__ import annotations

import random

import msgspec
from hypothesis import HealthCheck, given, settings, strategies as st

from fudge_combat.engine.rulesets.fudge.phase_order import slots, slots_of
from fudge_combat.projections.fold import evolve_all
from fudge_combat.engine.kernel.state import replace
from tests.test_fold_draft import fight_log


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(("plain", "sensible", "reckless")), st.booleans(), st.integers(0, 10_000))
def test_PH_1_PH_3_every_state_gets_the_order_worked_out_afresh(policy: str, crowd: bool, index: int) -> None:
    states = [state for _, state in evolve_all(fight_log("fudge-phases", policy, crowd, index))
              if state.initiative]
    assert states
    for state in states:  # in the order a fight asks
        assert slots(state) == slots_of(state)
    for state in random.Random(index).sample(states, len(states)):  # and out of order
        assert slots(state) == slots_of(state)


def test_PH_3_a_new_tie_order_or_a_fighter_out_is_seen() -> None:
    """The cached order is not reused once the GM orders ties (PH-3) or a tied fighter can no longer act."""
    # everyone at the same level of an order trait no one has: those who share a phase are tied
    tied = next(t for _, s in evolve_all(fight_log("fudge-phases", "plain", True, 3)) if s.initiative
                for t in [replace(s, options=msgspec.structs.replace(s.options, **{"initiative_order_trait": "Juggling"}))]
                if any(slot.tied_with for slot in slots_of(t)))
    before = slots(tied)
    assert before == slots_of(tied)
    ranked = replace(tied, initiative={k: replace(v, tie_rank=rank)
                                       for rank, (k, v) in enumerate(reversed(tied.initiative.items()))})
    assert slots(ranked) == slots_of(ranked) != before
    key = next(iter(tied.initiative))
    who = tied.combatants[key]
    out = replace(tied, combatants={**tied.combatants, key: replace(who, track=replace(who.track, out="out"))})
    assert slots(out) == slots_of(out) != before
    assert slots(tied) == before
