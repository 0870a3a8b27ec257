"""What every evolve function shares: a map with one more item (persistent where the map grows with the
fight), and an action's record remembered with the event that changed it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.pmap import PMap
from engine.state import Action, FightState, replace
from events.envelope import Recorded


def with_item(mapping: Mapping[Any, Any], key: Any, value: Any) -> Mapping[Any, Any]:
    if type(mapping) is PMap:  # the maps that grow with the fight: O(1), not a copy
        return mapping.set(key, value)
    new = dict(mapping)
    new[key] = value
    return new


def without(mapping: Mapping[Any, Any], *keys: Any) -> dict[Any, Any]:
    return {k: v for k, v in mapping.items() if k not in keys}


def remember(s: FightState, r: Recorded, action: int, **changes: Any) -> FightState:
    record = s.actions.get(action) or Action(action=action, resolution=r.seq)
    record = replace(record, **changes)
    return replace(s, actions=with_item(s.actions, action, record), events=with_item(s.events, r.seq, r.event))
