"""evolve for Fate's events (seed 004): the exchange's clip, the stress boxes, aspects, the turn order
and turns passed or held, the end of a scene and recovery from an injury."""

from __future__ import annotations

from fudge_combat.engine.rulesets.fudge.conditions import expire
from fudge_combat.engine.rulesets.fudge.evolving import remember, with_item
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.engine.rulesets.fate.state import FateMark, fate_of, with_fate
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded


def _fate_resolved(s: FightState, r: Recorded, e: ev.FateResolved) -> FightState:
    """FT-TRACK-3: a roll that took the clipped -1 has used it; FT-PACE scene: one roll each."""
    s = remember(s, r, e.action, resolution=r.seq)
    keys = [side.combatant.lower() for side in e.sides]
    used = {side.combatant.lower() for side in e.sides if side.clip_used}
    fate = fate_of(s)
    s = with_fate(s, clip=fate.clip - used, last_action=e.action)
    if e.pace == "scene":
        s = with_fate(s, scene_rolled=fate.scene_rolled | frozenset(keys))
    if e.pace == "turn":
        s = with_fate(s, acted=fate.acted | {keys[0]})
        s = replace(s, turn=replace(s.turn, acted=True) if s.turn else None)
    return s


def _fate_box(s: FightState, r: Recorded, e: ev.FateBoxMarked) -> FightState:
    record = s.actions.get(e.action)
    s = remember(s, r, e.action, consequences=(record.consequences if record else ()) + (r.seq,))
    key = e.combatant.lower()
    fate = fate_of(s)
    marks = fate.marks.get(key, ()) + (FateMark(r.seq, e.box, e.non_lethal, e.by),)
    clip = fate.clip | {key} if e.box == "clipped" else fate.clip
    return with_fate(s, marks=with_item(fate.marks, key, marks), clip=clip)


def _aspect_checked(s: FightState, r: Recorded, e: ev.AspectChecked) -> FightState:
    key = e.combatant.lower()
    aspects = fate_of(s).aspects
    return with_fate(s, aspects=with_item(aspects, key, aspects.get(key, ()) + ((e.aspect, e.box),)))


def _fate_order(s: FightState, r: Recorded, e: ev.FateTurnOrder) -> FightState:
    s = expire(s, e.round)  # a round's order starts it: timed conditions run out (docs/table.md)
    return with_fate(replace(s, round=e.round), order=tuple(n.lower() for n in e.order), acted=frozenset())


def _fate_passed(s: FightState, r: Recorded, e: ev.FateTurnPassed) -> FightState:
    """FT-INIT (a reading, engine.rulesets.fate.rules): a pass uses the turn as an action would; a hold moves the actor
    to just after the fighter he waits for, in this round's order only."""
    key = e.combatant.lower()
    fate = fate_of(s)
    if e.behind is None:
        return with_fate(s, acted=fate.acted | {key})
    order = [k for k in fate.order if k != key]
    order.insert(order.index(e.behind.lower()) + 1, key)
    return with_fate(s, order=tuple(order))


def _fate_scene_ended(s: FightState, r: Recorded, e: ev.FateSceneEnded) -> FightState:
    """FT-TRACK-3: clipped and hurt last the scene, and Taken Out the fight; FT-HEAL-1: non-lethal
    injuries heal with it. Lethal injuries stay until healed."""
    kept = {key: tuple(m for m in marks if m.box == "injured" and not m.non_lethal)
            for key, marks in fate_of(s).marks.items()}
    return with_fate(s, marks=kept, clip=frozenset(), scene=e.scene + 1, scene_rolled=frozenset(), order=(),
                     acted=frozenset())


def _injury_recovered(s: FightState, r: Recorded, e: ev.InjuryRecovered) -> FightState:
    key = e.combatant.lower()
    if e.action is not None:
        s = remember(s, r, e.action, resolution=r.seq)
    marks = fate_of(s).marks
    return with_fate(s, marks=with_item(marks, key, tuple(m for m in marks.get(key, ()) if m.seq != e.mark)))
