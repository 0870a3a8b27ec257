"""What a command did to Fate's fighters and turns, in the GM's words (`projections.consequences` asks the
fight's ruleset through its `Reading`): the boxes marked and their penalties (FT-TRACK-3), and whose turn it is
in Alertness order (FT-INIT); at another initiative, Fudge's turns. Each line is (its kind, its text)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fudge_combat.engine.kernel.state import FightState
from fudge_combat.engine.rulesets.fate.state import fate_of
from fudge_combat.engine.rulesets.fudge import consequences as fudge
from fudge_combat.events import structs as ev

Said = tuple[str, str]  # (kind, text): a consequence, as `projections.consequences.Consequence` holds it


def harm(before: FightState, after: FightState) -> list[Said]:
    """FT-TRACK-3: the boxes a fighter has marked, and the penalties they bring."""
    from fudge_combat.engine.rulesets.fate.rules import is_taken_out, penalty_view
    from fudge_combat.engine.rulesets.fate.tables import BOXES, OUTCOME_NAME

    out = []
    for key, now in after.combatants.items():
        marks = fate_of(after).marks.get(key, ())
        was = before.combatants.get(key)
        if was is None or fate_of(before).marks.get(key, ()) == marks or is_taken_out(marks):
            continue
        view = penalty_view(after, now)
        if _harm(view) == _harm(penalty_view(before, was)):
            continue  # re-marked as it was (a point re-resolved the exchange the marks came from)
        boxes = {m.box for m in marks}
        worst = next((OUTCOME_NAME[b] for b in reversed(BOXES) if b in boxes), None)
        bits = []
        if view["next_action"]:
            bits.append(f"{view['next_action']:+d} to the next "
                        f"{'attack' if after.options.pace == 'turn' else 'roll'}")
        if view["scene"]:
            bits.append(f"{view['scene']:+d} to every roll this scene")
        if view["hurt_narrative"]:
            bits.append("-1 where the GM says, this scene")
        if view["beyond_scene"]:
            bits.append(f"{view['beyond_scene']:+d} until healed")
        state = f"is {worst}" if worst else "is unharmed"
        out.append(("wound", f"{now.name} {state}: {', '.join(bits) or 'no penalty'}"))
    return out


def _harm(view: Mapping[str, object]) -> tuple[object, ...]:
    return (view["boxes"], view["next_action"], view["scene"], view["beyond_scene"], view["hurt_narrative"])


def turn(before: FightState, after: FightState) -> list[Said]:
    """Whose turn it is in Alertness order (FT-INIT); at phase initiative, as in Fudge."""
    if after.options.initiative == "alertness":  # FT-INIT: only Fate's turn pace takes it (engine.kernel.options)
        return _fate_turn(before, after)
    return fudge.turn(before, after)


def _fate_turn(before: FightState, after: FightState) -> list[Said]:
    from fudge_combat.engine.rulesets.fate.rules import next_actor

    now = next_actor(after) if fate_of(after).order else None
    was = next_actor(before) if fate_of(before).order else None
    if now is not None and (was is None or was.key != now.key or fate_of(after).order != fate_of(before).order):
        return [("turn", f"{now.name}'s turn (Alertness order)")]
    if now is None and was is not None and fate_of(after).order:
        return [("turn", f"round {after.round}'s turns are all taken: `fudge fate round` starts the next")]
    return []


# --- resolutions, scenes and order (FT-PTS, FT-SCENE, FT-INIT) ---------------------------------------------

def result(event: Any, state: FightState) -> str | None:
    """An exchange's contests in words (None: not Fate's own resolution)."""
    if not isinstance(event, ev.FateResolved):
        return None
    return "; ".join(_contest(c, state) for c in event.contests) or "nobody is affected"


def re_resolved(old: Any, new: Any, before: FightState, after: FightState) -> list[Said] | None:
    """FT-PTS: the contests a point or a reroll changed, each on its own line (None: not Fate's own)."""
    if not (isinstance(old, ev.FateResolved) and isinstance(new, ev.FateResolved)):
        return None
    was = {(c.attacker, c.defender): c for c in old.contests}
    now = {(c.attacker, c.defender): c for c in new.contests}
    out = []
    for pair, contest in now.items():
        earlier = was.get(pair)
        if earlier is None:
            out.append(("result", f"now {_contest(contest, after)}"))
        elif earlier != contest:
            out.append(("result", f"now {_contest(contest, after)} (was {_contest(earlier, before)})"))
    out += [("result", f"no longer {_contest(c, before)}") for pair, c in was.items() if pair not in now]
    return out


def _contest(c: ev.FateContest, state: FightState) -> str:
    from fudge_combat.engine.rulesets.fate.tables import OUTCOME_NAME
    name = state.ladder.name
    what = f"maneuver: {c.maneuver}" if c.maneuver else OUTCOME_NAME.get(c.outcome, "no effect")
    return f"{c.attacker} {name(c.attacker_result)} vs {c.defender} {name(c.defender_result)}: {what}"


def pairs(event: Any) -> list[tuple[str, str]] | None:
    """Who struck at whom in a Fate exchange (None: not Fate's own resolution)."""
    return [(c.attacker, c.defender) for c in event.contests] if isinstance(event, ev.FateResolved) else None


def rounds(before: FightState, after: FightState) -> list[Said]:
    """FT-SCENE: a scene begun, or gone back to."""
    now, was = fate_of(after).scene, fate_of(before).scene
    if now == was:
        return []
    return [("round", f"scene {now} begins" if now > was else f"back in scene {now}")]


def order(before: FightState, after: FightState) -> list[Said]:
    """FT-INIT: a new Alertness order."""
    now = fate_of(after).order
    if not now or now == fate_of(before).order:
        return []
    return [("order", "order: " + ", ".join(after.combatants[k].name for k in now))]
