"""What the simulator (`sim/`) reads of a ruleset: how it tells who can still act and how hurt each fighter
ends, the command of a directed attack on a turn, how its points save a fighter (the `sensible` policy), and
the commands of the paces a ruleset plays its own way (Fate's exchanges and its turns in Alertness order).

Each ruleset's package declares its own in its `sim` module (`SIM`), as pure functions of the fight's state
and data, found through the registry (`sim_rules`): the simulator sits above the engine and reads them, so
adding a ruleset to the simulator is its package's one module, not a line in the simulator's tables. A
variant is composed from the ruleset it varies (`msgspec.structs.replace`). The paces a fight is played at are
the simulator's own (`sim.driver.PACES`, by the `pace` option): how a pace loops is driver code, what each
step's command is and whose turn it is in the ruleset's own order are the ruleset's, asked here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from msgspec import Struct

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.registry import ruleset_part
from fudge_combat.engine.kernel.state import Combatant, FightState


class SimRules(Struct, frozen=True):
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
    # The command of one exchange where everyone able acts at once, from each one's (fighter, the policy's
    # target or None, the policy's declaration or None); None: the ruleset has no such pace (Fate's, FT-PACE).
    exchange: Callable[[FightState, Sequence[tuple[Combatant, Combatant | None, Any]]], Any] | None = None
    # The command that orders a round in the ruleset's own turn order, None when this fight has none (Fate
    # under phase initiative); and whose turn it is in that order, None once the round's turns are used
    # (FT-INIT). None: the ruleset has no order of its own.
    new_round: Callable[[FightState], Any] | None = None
    next_actor: Callable[[FightState], Combatant | None] | None = None


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
