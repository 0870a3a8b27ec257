"""What every evolve function shares: a map with one more item (persistent where the map grows with the
fight), and an action's record remembered with the event that changed it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fudge_combat.engine.rulesets.fudge.harm import ADJUSTMENT_PURPOSE
from fudge_combat.engine.kernel.pmap import KINDS, PMap
from fudge_combat.engine.kernel.state import Action, FightState, replace
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded


def with_item(mapping: Mapping[Any, Any], key: Any, value: Any) -> Mapping[Any, Any]:
    """The map with one more item. A small dict is copied (cheaper than a persistent map's set: a duel's
    state has two combatants); one that has grown past SMALL becomes a `PMap`, whose set is O(1), so
    that a map growing with the fight (the roster, the round starts, the fold's indexes) is never copied
    at every change."""
    if type(mapping) in KINDS:  # a PMap, an EventMap, or a map one rebuild grows in place (projections.rebuild)
        return mapping.set(key, value)  # type: ignore[attr-defined]  # each of KINDS has `set`
    if len(mapping) >= SMALL:
        return PMap(mapping).set(key, value)
    new = dict(mapping)
    new[key] = value
    return new


def with_items(mapping: Mapping[Any, Any], items: tuple[tuple[Any, Any], ...]) -> Mapping[Any, Any]:
    """`with_item` of several items: a small dict is copied once."""
    if type(mapping) is dict and len(mapping) < SMALL:
        new = dict(mapping)
        new.update(items)
        return new
    for key, value in items:
        mapping = with_item(mapping, key, value)
    return mapping


SMALL = 64


def without(mapping: Mapping[Any, Any], *keys: Any) -> dict[Any, Any]:
    return {k: v for k, v in mapping.items() if k not in keys}


def remember(s: FightState, r: Recorded, action: int, **changes: Any) -> FightState:
    record = s.actions.get(action) or Action(action=action, resolution=r.seq)
    record = replace(record, **changes)
    event = r.event
    index = _INDEXES.get(type(event))
    if index is None:
        return replace(s, actions=with_item(s.actions, action, record), events=with_item(s.events, r.seq, event))
    return replace(s, actions=with_item(s.actions, action, record), events=with_item(s.events, r.seq, event),
                   **index(s, r.seq, event))


# The indexes of `events` (FightState.index), one function per event type that
# feeds one: each answers, in one read, a question a command used to ask by scanning every event.
AVOIDANCES = ("dodge", "parry", "dodge-parry")  # AI-ATK: the avoidances that use one up per foe
HEROIC = "Agility (heroic avoidance"  # AI-HEROIC: how the trait of a roll with a blow begins


def _rolled(s: FightState, seq: int, event: ev.DiceRolled) -> dict[str, Any]:
    key = event.roller.lower()
    if event.purpose != "damage" and not event.purpose.endswith(ADJUSTMENT_PURPOSE):
        return {"index": with_items(s.index, ((("roll", key), seq), (("action roll", key), seq)))}
    return {"index": with_item(s.index, ("roll", key), seq)}


def _marked(s: FightState, seq: int, event: ev.WoundMarked) -> dict[str, Any]:
    return {"index": with_item(s.index, ("blow", event.combatant.lower()), seq)}


def _exchanged(s: FightState, seq: int, event: ev.ExchangeResolved) -> dict[str, Any]:
    if event.avoidance not in AVOIDANCES or len(event.sides) < 2:
        return {}
    key = ("avoided", event.sides[1].combatant.lower(), event.round)
    return {"index": with_item(s.index, key, s.index.get(key, 0) + len(event.sides) - 1)}


def _resolved(s: FightState, seq: int, event: ev.ActionResolved) -> dict[str, Any]:
    return {"index": with_item(s.index, ("heroic", event.trait), seq)} if event.trait.startswith(HEROIC) else {}


_INDEXES: dict[type, Callable[[FightState, int, Any], dict[str, Any]]] = {
    ev.DiceRolled: _rolled, ev.WoundMarked: _marked, ev.ExchangeResolved: _exchanged, ev.ActionResolved: _resolved}
