"""What every evolve function shares: a map with one more item (persistent where the map grows with the
fight), and an action's record remembered with the event that changed it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.harm import ADJUSTMENT_PURPOSE
from engine.pmap import PMap
from engine.state import Action, FightState, replace
from events import models as ev
from events.envelope import Recorded


def with_item(mapping: Mapping[Any, Any], key: Any, value: Any) -> Mapping[Any, Any]:
    if isinstance(mapping, PMap):  # the maps that grow with the fight: O(1), not a copy
        return mapping.set(key, value)
    new = dict(mapping)
    new[key] = value
    return new


def without(mapping: Mapping[Any, Any], *keys: Any) -> dict[Any, Any]:
    return {k: v for k, v in mapping.items() if k not in keys}


def remember(s: FightState, r: Recorded, action: int, **changes: Any) -> FightState:
    record = s.actions.get(action) or Action(action=action, resolution=r.seq)
    record = replace(record, **changes)
    s = replace(s, actions=with_item(s.actions, action, record), events=with_item(s.events, r.seq, r.event))
    return _indexed(s, r.seq, r.event)


AVOIDANCES = ("dodge", "parry", "dodge-parry")  # AI-ATK: the avoidances that use one up per foe
HEROIC = "Agility (heroic avoidance"  # AI-HEROIC: how the trait of a roll with a blow begins


def _indexed(s: FightState, seq: int, event: Any) -> FightState:
    """The indexes of `events` (FightState.latest, avoided, heroic) with this event remembered: each answers,
    in one read, a question a command used to ask by scanning every event of the fight."""
    if isinstance(event, ev.DiceRolled):
        key = event.roller.lower()
        latest = with_item(s.latest, ("roll", key), seq)
        if event.purpose != "damage" and not event.purpose.endswith(ADJUSTMENT_PURPOSE):
            latest = with_item(latest, ("action roll", key), seq)
        return replace(s, latest=latest)
    if isinstance(event, ev.WoundMarked):
        return replace(s, latest=with_item(s.latest, ("blow", event.combatant.lower()), seq))
    if isinstance(event, ev.ExchangeResolved) and event.avoidance in AVOIDANCES and len(event.sides) > 1:
        key = (event.sides[1].combatant.lower(), event.round)
        return replace(s, avoided=with_item(s.avoided, key, s.avoided.get(key, 0) + len(event.sides) - 1))
    if isinstance(event, ev.ActionResolved) and event.trait.startswith(HEROIC):
        return replace(s, heroic=with_item(s.heroic, event.trait, seq))
    return s
