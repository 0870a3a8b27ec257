"""What the simulator (`sim/`) reads of a ruleset: how it tells who can still act and how hurt each fighter
ends, the command of a directed attack on a turn, and how its points save a fighter (the `sensible` policy).

Each ruleset's package declares its own in its `sim` module (`SIM`), as pure functions of the fight's state
and data, found through the registry (`sim_rules`): the simulator sits above the engine and reads them, so
adding a ruleset to the simulator is its package's one module, not a line in the simulator's tables. A
variant is composed from the ruleset it varies (`dataclasses.replace`). The paces a fight is played at are
the simulator's own (`sim.driver.PACES`, by the `pace` option).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.registry import ruleset_part
from fudge_combat.engine.kernel.state import Combatant, FightState


@dataclass(frozen=True)
class SimRules:
    able: Callable[[FightState, Combatant], bool]  # can still act (F-WND-1 on the wound track)
    wound: Callable[[FightState, Combatant], str]  # the name of the fighter's worst wound
    levels: tuple[str, ...]  # every wound name, least hurt first (the order of the statistics)
    badly: str  # the first wound name that counts as badly hurt
    blows: tuple[type[Any], ...]  # events that mark a wound (a policy may spend a point on one), each with its `combatant`
    in_force: Callable[[FightState, Combatant, int], bool]  # the blow of this seq still counts
    rounds: Callable[[FightState], int]  # rounds (or exchanges) fought
    attack: Callable[[FightState, Combatant, Combatant], Any]  # (state, attacker, target) -> a directed attack's command
    save: Callable[[FightState, Combatant, Any, int], Any]  # (state, fighter, blow, its seq) -> a point's command, or None
    # (able, wound rank in `levels`) at once, where the ruleset can say it without naming the wound
    read: Callable[[FightState, Combatant], tuple[bool, int]] | None = None


_LOADED: dict[str, SimRules] = {}


def sim_rules(ruleset: str) -> SimRules:
    """What the simulator reads of the ruleset named `ruleset` (InputError: its package declares nothing for it)."""
    found = _LOADED.get(ruleset)
    if found is None:
        module = ruleset_part(ruleset, "sim")
        if module is None:
            raise InputError(f"the {ruleset} rules declare nothing the simulator can play them by (no `sim` "
                             "module in their package): simulate another ruleset")
        found = _LOADED[ruleset] = module.SIM
    return found
