"""How the simulator reads a fight of each ruleset: who can still act, and how hurt each fighter ends.

Each ruleset declares what the simulator reads of it in its own package (its `sim` module's `SIM`,
`kernel.sim_rules.SimRules`: the wound track for Fudge and Atari Isev, the boxes for Fate), found through
the registry; the fight driver, the policies and the statistics read fights through it.
"""

from __future__ import annotations

from fudge_combat.engine.kernel.sim_rules import SimRules, sim_rules
from fudge_combat.engine.kernel.state import Combatant, FightState


View = SimRules  # what the simulator reads of a ruleset, declared in its package (`kernel.sim_rules`)


def view_of(state: FightState) -> View:
    """What the simulator reads of the fight's ruleset: its package's `sim` module (`kernel.sim_rules`)."""
    return sim_rules(state.options.ruleset)


_last: tuple[FightState | None, dict[str, tuple[bool, int]]] = (None, {})


def reading(state: FightState) -> dict[str, tuple[bool, int]]:
    """Each combatant's (able to act, wound rank in `View.levels`) in this state.

    The driver and the policies ask this many times of one state; it is worked
    out once per state (states are immutable: the same object reads the same).
    The pair is replaced whole, so threads sharing the module never mix two
    states' readings.
    """
    global _last
    cached = _last
    if cached[0] is state:
        return cached[1]
    view = view_of(state)
    read = view.read
    if read is not None:
        out = {key: read(state, who) for key, who in state.combatants.items()}
    else:
        out = {key: (view.able(state, who), view.levels.index(view.wound(state, who)))
               for key, who in state.combatants.items()}
    _last = (state, out)
    return out


def badly_hurt(state: FightState, who: Combatant) -> bool:
    """Hurt at least as badly as the view's `badly`, and still able to act."""
    able, rank = reading(state)[who.key]
    return able and rank >= view_of(state).levels.index(view_of(state).badly)
