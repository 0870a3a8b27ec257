"""The Atari Isev ruleset's Decider: Fudge's table with Atari Isev's own blows (AI-ATK-1, AI-ATK-2,
AI-ATK-3, avoidances, missiles as attacks: AI-RNG), its declarations before a rolled initiative
(AI-WAIT, AI-POST), the wound relief and unbalance on every action (AI-WILL-1, AI-HEROIC) and
heroic avoidance. Built here from Fudge's handlers, with Atari Isev's parameters; Fudge's table is
not changed."""

from __future__ import annotations

from functools import partial

from fudge_combat.engine.rulesets.atari_isev import blows as atari
from fudge_combat.engine.rulesets.fudge import stun
from fudge_combat.engine.kernel.commands import ByCommand
from fudge_combat.engine.rulesets.fudge.points import spend
from fudge_combat.engine.rulesets.fudge import decider as fudge
from fudge_combat.engine.kernel.decider import Decider, Handler, able_to_act
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState


def acting_modifiers(state: FightState, who: Combatant) -> list[ev.Modifier]:
    """AI-WILL-1 relief, AI-HEROIC unbalance, F-STUN-1: what weighs on every action an Atari Isev fighter takes."""
    return atari.wound_penalty(state, who) + atari.unbalanced(state, who) + stun.modifiers(state, who, "act")


TABLE: ByCommand[Handler] = ByCommand({
    **{name: handler for name, handler in fudge.TABLE.by_name.items() if name != "Shoot"},
    "Declare": partial(fudge.declare, atari_isev=True),
    "RollTrait": partial(fudge.roll_trait, acting=acting_modifiers),
    "Attack": atari.attack,
    "SpendPoint": partial(spend, settle=atari.settle_attack),
    "HeroicAvoidance": atari.heroic,
    "Willpower": atari.willpower,
    "ResistSpell": atari.resist_spell,
})

REFUSALS: ByCommand[str] = ByCommand({
    **fudge.FATE_ONLY,
    "Shoot": "Atari Isev missiles are attacks: `fudge attack A B --ranged thrown|propelled` (AI-RNG)",
})

ATARI_ISEV = Decider("atari-isev", "Atari Isev", TABLE, REFUSALS,
                     able_to_act)
DECIDER = ATARI_ISEV  # what `kernel.registry` finds
