"""Fate's events in words (FT-*), one line each, as `rulesets.fudge.describe` writes Fudge's.

Each function takes the event, the fight's ladder and the points' word (always "fate" here, unused). The
rules and tables a line reads are imported when a Fate event is first described, so a Fudge fight that folds
and describes its own events never loads Fate's rules.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine.kernel.words import counted
from fudge_combat.events import structs as ev


def _mods(modifiers: Any) -> str:
    return "".join(f" {m.value:+d} {m.name}" for m in modifiers)


def side_text(side: ev.FateSide, ladder: Any) -> str:
    from fudge_combat.engine.rulesets.fate.rules import result_vs  # Fate's rules: loaded by a Fate event

    stance = {"defensive": " (defensive)", "non_combat": " (non-combat)"}.get(side.stance, "")
    target = f" → {side.target}" if side.target else ""
    against = "".join(f" [{_mods(m).strip()} vs {foe}]" for foe, m in side.against)
    return (f"{side.combatant}{target}{stance}: {side.skill} {ladder.name(side.level)} {side.roll:+d}"
            f"{_mods(side.modifiers)} = {ladder.name(result_vs(side))}{against}")


def contest_text(c: ev.FateContest, ladder: Any) -> str:
    from fudge_combat.engine.rulesets.fate.tables import OUTCOME_NAME  # Fate's tables: loaded by a Fate event

    what = c.maneuver and f"maneuver: {c.maneuver}" or (OUTCOME_NAME.get(c.outcome, "no effect"))
    note = f" ({c.note})" if c.note else ""
    return (f"{c.attacker} {ladder.name(c.attacker_result)} vs {c.defender} {ladder.name(c.defender_result)}: "
            f"MoS {c.margin:+d} → {what}{note}")


def _resolved(e: ev.FateResolved, ladder: Any, points: str = "fate") -> str:
    again = f" (re-resolves event {e.supersedes})" if e.supersedes else ""
    head = {"scene": "scene", "exchange": "exchange", "turn": "attack"}[e.pace]
    sides = "; ".join(side_text(s, ladder) for s in e.sides)
    contests = "; ".join(contest_text(c, ladder) for c in e.contests) or "nobody is affected"
    return f"{head}{again}: {sides} || {contests}"


def _box(e: ev.FateBoxMarked, ladder: Any, points: str = "fate") -> str:
    from fudge_combat.engine.rulesets.fate.tables import OUTCOME_NAME  # Fate's tables: loaded by a Fate event

    spill = f" (no {OUTCOME_NAME[e.outcome]} box left)" if e.box != e.outcome else ""
    lethal = " (non-lethal)" if e.non_lethal else ""
    return f"{e.combatant} is {OUTCOME_NAME[e.box]}{spill}{lethal}, by {e.by}"


def _aspect(e: ev.AspectChecked, ladder: Any, points: str = "fate") -> str:
    return f"{e.combatant} checks {e.aspect} box {e.box}: reroll of event {e.target}"


def _order(e: ev.FateTurnOrder, ladder: Any, points: str = "fate") -> str:
    keys = ", ".join(f"{n} ({'/'.join(f'{k:+d}' for k in key)})" for n, key in zip(e.order, e.keys))
    return f"round {e.round}: order by rolled Alertness, then Tactics, then combat skill: {keys}"


def _passed(e: ev.FateTurnPassed, ladder: Any, points: str = "fate") -> str:
    if e.behind is None:
        return f"{e.combatant} passes his turn in round {e.round}: it is used with no action (FT-INIT)"
    return f"{e.combatant} holds his turn in round {e.round}: he acts after {e.behind} (FT-INIT)"


def _scene_ended(e: ev.FateSceneEnded, ladder: Any, points: str = "fate") -> str:
    return f"scene {e.scene} ends: clipped, hurt and taken out clear; injuries stay"


def _recovered(e: ev.InjuryRecovered, ladder: Any, points: str = "fate") -> str:
    roll = ""
    if e.result is not None:
        # the GM's --mod and a hurt or injured healer's penalty (FT-TRACK-3) are stored summed in the result
        extra = e.result - (e.level or 0) - (e.roll or 0)
        shown = f" {extra:+d} (wounds, GM modifier)" if extra else ""
        roll = (f"{e.healer} {e.skill} {ladder.name(e.level)} {e.roll:+d}{shown} = "
                f"{ladder.name(e.result)} vs {ladder.name(e.difficulty)}: ")
    activity = f" of {e.activity}" if e.activity else ""
    return f"{roll}{e.combatant}'s injury (event {e.mark}) heals in {counted(e.days, 'day')}{activity}"


