"""The few words an undo or a redo names a command by, for each event type Fate declares (`events.EVENTS`,
`kernel.event_rules.Named`)."""

from __future__ import annotations

from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import structs as ev


def aspect(e: ev.AspectChecked, s: FightState) -> str:
    return f"{e.combatant}'s {e.aspect} reroll"


def resolved(e: ev.FateResolved, s: FightState) -> str:
    names = [side.combatant for side in e.sides]
    if e.pace == "turn" and len(names) > 1:
        return f"{names[0]}'s attack on {names[1]}"
    return f"the {e.pace} of {', '.join(names)}"


def scene_ended(e: ev.FateSceneEnded, s: FightState) -> str:
    return f"the end of scene {e.scene}"


def recovered(e: ev.InjuryRecovered, s: FightState) -> str:
    return f"{e.combatant}'s recovery"


def order(e: ev.FateTurnOrder, s: FightState) -> str:
    return f"round {e.round}'s order"


def passed(e: ev.FateTurnPassed, s: FightState) -> str:
    return f"{e.combatant}'s {'held' if e.behind else 'passed'} turn"
