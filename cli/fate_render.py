"""Fate's events, one line each (FT-*): what the CLI adds to the lines the Fate ruleset declares."""

from __future__ import annotations

from fudge_combat.engine.evolve import describe
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import models as ev


def box_line(event: ev.FateBoxMarked, state: FightState, seq: int | None) -> str:
    """FT-TRACK-2: the box marked (after overflow, so the box he ends in); consequence first when it
    takes the fighter out. `state` and `seq` as `render.line` takes them."""
    line = describe(event, state.ladder, "fate")
    if event.box == "taken_out":
        return line.replace(f"{event.combatant} is Taken Out", f"{event.combatant} is out of the fight: Taken Out", 1)
    return line
