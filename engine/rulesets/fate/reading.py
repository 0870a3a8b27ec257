"""What the read side asks of the Fate ruleset (`engine.kernel.reading`): fate points (FT-PTS), scenes
(FT-SCENE) and its paces (FT-PACE), harm in boxes (FT-TRACK), Taken Out (FT-TRACK-3), the Alertness order
(FT-INIT) and its sheet (`views`, `sheet`: what the views read of Fate's part of the state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.reading import Reading
from fudge_combat.engine.rulesets.fate import consequences, sheet, views

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import Combatant, FightState

LEVELS = ("Unharmed", "Clipped", "Hurt", "Injured", "Taken Out")  # `severity`'s levels


def no_order(pace: str) -> str:
    """Fate's scene and exchange paces have no turn order: everyone declares and rolls together (FT-PACE)."""
    command = {"scene": "fate scene", "exchange": "fate exchange"}.get(pace, "fate attack")
    return (f"no turn order at Fate's {pace} pace (FT-PACE): everyone declares and rolls together "
            f"(`fudge {command}`)")


def severity(state: FightState, who: Combatant) -> int:
    """The worst box marked (FT-TRACK), 4 once Taken Out (FT-TRACK-3) or dead."""
    from fudge_combat.engine.rulesets.fate.rules import penalty_view

    view = penalty_view(state, who)
    if view["taken_out"] or who.track.dead:
        return 4
    marked = [index + 1 for index, name in enumerate(view["capacity"]) if view["boxes"][name]]
    return min(3, max(marked, default=0))


READING = Reading(
    name="fate", points="fate", battle="scene", end_command="end-scene",
    round_paces=frozenset({"turn"}), taken_out="Taken Out", landed="contests won (Scratched or worse)",
    ranked_rule="F-INIT-2", ties_together=False, blow_prefix=("fate",), no_order=no_order,
    severity_levels=LEVELS, severity=severity, harm=consequences.harm, turn=consequences.turn,
    result=consequences.result, re_resolved=consequences.re_resolved, pairs=consequences.pairs,
    rounds=consequences.rounds, order=consequences.order, scene=views.scene, own_order=views.own_order,
    to_act=views.to_act, track=views.track, status_lines=views.status_lines, status_json=views.status_json,
    line=views.line, invoked=views.invoked, touched=views.touched, point_uses=views.point_uses, declares=False, sheet_template=sheet.template,
    sheet_check=sheet.check)
