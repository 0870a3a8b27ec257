"""Fate's events and status, one line each (FT-*)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fudge_combat.engine.fate import result_vs
from fudge_combat.engine.fate_tables import OUTCOME_NAME
from fudge_combat.events import models as ev
from fudge_combat.engine.state import FightState

def _mods(modifiers: Any) -> str:
    return "".join(f" {m.value:+d} {m.name}" for m in modifiers)


def side_text(side: ev.FateSide, ladder: Any) -> str:
    stance = {"defensive": " (defensive)", "non_combat": " (non-combat)"}.get(side.stance, "")
    target = f" → {side.target}" if side.target else ""
    against = "".join(f" [{_mods(m).strip()} vs {foe}]" for foe, m in side.against)
    return (f"{side.combatant}{target}{stance}: {side.skill} {ladder.name(side.level)} {side.roll:+d}"
            f"{_mods(side.modifiers)} = {ladder.name(result_vs(side))}{against}")


def contest_text(c: ev.FateContest, ladder: Any) -> str:
    what = c.maneuver and f"maneuver: {c.maneuver}" or (OUTCOME_NAME.get(c.outcome, "no effect"))
    note = f" ({c.note})" if c.note else ""
    return (f"{c.attacker} {ladder.name(c.attacker_result)} vs {c.defender} {ladder.name(c.defender_result)}: "
            f"MoS {c.margin:+d} → {what}{note}")


def describe(event: Any, ladder: Any) -> str:
    """A Fate event's line, by its type in `DESCRIBE`; an event of no line is shown by its type."""
    line = DESCRIBE.get(type(event))
    return line(event, ladder) if line is not None else event.type


def _resolved(e: ev.FateResolved, ladder: Any) -> str:
    again = f" (re-resolves event {e.supersedes})" if e.supersedes else ""
    head = {"scene": "scene", "exchange": "exchange", "turn": "attack"}[e.pace]
    sides = "; ".join(side_text(s, ladder) for s in e.sides)
    contests = "; ".join(contest_text(c, ladder) for c in e.contests) or "nobody is affected"
    return f"{head}{again}: {sides} || {contests}"


def _box(e: ev.FateBoxMarked, ladder: Any) -> str:
    spill = f" (no {OUTCOME_NAME[e.outcome]} box left)" if e.box != e.outcome else ""
    lethal = " (non-lethal)" if e.non_lethal else ""
    return f"{e.combatant} is {OUTCOME_NAME[e.box]}{spill}{lethal}, by {e.by}"


def _aspect(e: ev.AspectChecked, ladder: Any) -> str:
    return f"{e.combatant} checks {e.aspect} box {e.box}: reroll of event {e.target}"


def _order(e: ev.FateTurnOrder, ladder: Any) -> str:
    keys = ", ".join(f"{n} ({'/'.join(f'{k:+d}' for k in key)})" for n, key in zip(e.order, e.keys))
    return f"round {e.round}: order by rolled Alertness, then Tactics, then combat skill: {keys}"


def _passed(e: ev.FateTurnPassed, ladder: Any) -> str:
    if e.behind is None:
        return f"{e.combatant} passes his turn in round {e.round}: it is used with no action (FT-INIT)"
    return f"{e.combatant} holds his turn in round {e.round}: he acts after {e.behind} (FT-INIT)"


def _scene_ended(e: ev.FateSceneEnded, ladder: Any) -> str:
    return f"scene {e.scene} ends: clipped, hurt and taken out clear; injuries stay"


def _recovered(e: ev.InjuryRecovered, ladder: Any) -> str:
    roll = ""
    if e.result is not None:
        # the GM's --mod and a hurt or injured healer's penalty (FT-TRACK-3) are stored summed in the result
        extra = e.result - (e.level or 0) - (e.roll or 0)
        shown = f" {extra:+d} (wounds, GM modifier)" if extra else ""
        roll = (f"{e.healer} {e.skill} {ladder.name(e.level)} {e.roll:+d}{shown} = "
                f"{ladder.name(e.result)} vs {ladder.name(e.difficulty)}: ")
    activity = f" of {e.activity}" if e.activity else ""
    return f"{roll}{e.combatant}'s injury (event {e.mark}) heals in {e.days} day(s){activity}"


DESCRIBE: dict[type, Callable[[Any, Any], str]] = {
    ev.FateResolved: _resolved,
    ev.FateBoxMarked: _box,
    ev.AspectChecked: _aspect,
    ev.FateTurnOrder: _order,
    ev.FateSceneEnded: _scene_ended,
    ev.FateTurnPassed: _passed,
    ev.InjuryRecovered: _recovered,
}


def box_line(event: ev.FateBoxMarked, state: FightState, seq: int | None) -> str:
    """FT-TRACK-2: the box marked (after overflow, so the box he ends in); consequence first when it
    takes the fighter out. `state` and `seq` as `render.line` takes them."""
    line = describe(event, state.ladder)
    if event.box == "taken_out":
        return line.replace(f"{event.combatant} is Taken Out", f"{event.combatant} is out of the fight: Taken Out", 1)
    return line
