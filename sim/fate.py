"""Fate's paces in the simulator (FT-PACE): its exchanges, and its turns in Alertness order.

What the simulator reads of a Fate fight (taken out, the worst box, the save of the sensible policy, the
attack command of a turn) is Fate's package's (`engine.rulesets.fate.sim`); here are the two paces it is
played at, one entry each in the driver's `PACES`. Scenes (one roll each for the whole scene) are not
simulated.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine import commands as cmd
from fudge_combat.events import models as ev
from fudge_combat.engine.kernel.state import Combatant
from fudge_combat.sim import policies
from fudge_combat.sim.driver import PACES, Driver
from fudge_combat.sim.rulesets import view_of


def action(who: Combatant, target: Combatant | None, declaration: ev.Declaration | None) -> Any:
    """FT-DEF-2: a fighter who would defend all-out fights defensively (+1, inflicts nothing)."""
    defensive = declaration is not None and declaration.all_out == "defense"
    return cmd.FateAction(combatant=who.name, target=target.name if target else None, defensive=defensive)


def exchanges(driver: Driver) -> None:
    """FT-PACE exchange: everyone able declares a target and all roll at once, until one side stands."""
    fought = 0
    while not driver.over() and fought < driver.max_rounds:
        state = driver.state
        actions = [action(who, driver.policy(who).target(state, who, policies.foes(state, who)),
                          driver.policy(who).declaration(state, who)) for who in driver.able()]
        driver.must(cmd.FateExchange(actions=tuple(actions)))
        fought += 1


def turns(driver: Driver) -> None:
    """FT-PACE turn, FT-INIT: rounds of attacks in Alertness order (phase initiative: as any phase fight)."""
    from fudge_combat.engine.rulesets.fate import rules as fate

    if driver.state.options.initiative != "alertness":
        driver.alternating()
        return
    while not driver.over() and driver.state.round < driver.max_rounds:
        driver.must(cmd.FateRound())
        while not driver.over():
            actor = fate.next_actor(driver.state)
            if actor is None:
                break
            target = driver.policy(actor).target(driver.state, actor, policies.foes(driver.state, actor))
            if target is None or not driver.may(view_of(driver.state).attack(driver.state, actor, target)):
                break  # a turn the rules refuse ends the round: the next one orders everyone again


PACES["exchange"] = exchanges
PACES["turn"] = turns
