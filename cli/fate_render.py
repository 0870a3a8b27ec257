"""Fate's events and status, one line each (FT-*)."""

from __future__ import annotations

from typing import Any

from fudge_combat.engine.rulesets.fate.rules import penalty_view
from fudge_combat.engine.evolve import describe
from fudge_combat.events import models as ev
from fudge_combat.engine.kernel.state import Combatant, FightState

def box_line(event: ev.FateBoxMarked, state: FightState, seq: int | None) -> str:
    """FT-TRACK-2: the box marked (after overflow, so the box he ends in); consequence first when it
    takes the fighter out. `state` and `seq` as `render.line` takes them."""
    line = describe(event, state.ladder, "fate")
    if event.box == "taken_out":
        return line.replace(f"{event.combatant} is Taken Out", f"{event.combatant} is out of the fight: Taken Out", 1)
    return line


def status_json(state: FightState, who: Combatant) -> dict[str, Any]:
    return {"fate": penalty_view(state, who)}


def status_lines(state: FightState, who: Combatant) -> list[str]:
    view = penalty_view(state, who)
    boxes = "  ".join(f"{name} " + "[x]" * view["boxes"][name] + "[ ]" * max(0, cap - view["boxes"][name])
                      for name, cap in view["capacity"].items())
    lines = [f"    {boxes}"]
    if who.track.dead:
        lines.append("    dead (the GM's ruling)")
    elif view["taken_out"]:
        lines.append("    taken out: out of the fight")
    else:
        hurt = "hurt -1 when the GM says (scene pace)" if view["hurt_narrative"] else f"{view['scene']:+d}"
        lines.append(f"    penalties: next action {view['next_action']:+d}, this scene {hurt}, "
                     f"beyond the scene {view['beyond_scene']:+d} (next roll {view['total_next_action']:+d})")
    aspects = ", ".join(f"{name} {'[x]' * len(a['checked'])}{'[ ]' * (a['boxes'] - len(a['checked']))}"
                        for name, a in view["aspects"].items())
    lines.append(f"    fate points {view['fate_points']}{'; aspects ' + aspects if aspects else ''}")
    return lines
