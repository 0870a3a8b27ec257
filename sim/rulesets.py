"""How the simulator reads a fight of each ruleset: who can still act, and how hurt each fighter ends.

A ruleset whose fighters are taken out or hurt otherwise than on the wound
track (`Combatant.track`) adds one `View` to `VIEWS`, keyed by its `ruleset`
option; the fight driver and the statistics read fights through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.wounds import LEVELS
from projections.state import Combatant, FightState


@dataclass(frozen=True)
class View:
    able: Callable[[FightState, Combatant], bool]  # can still act (F-WND-1 on the wound track)
    wound: Callable[[FightState, Combatant], str]  # the name of the fighter's worst wound
    levels: tuple[str, ...]  # every wound name, least hurt first (the order of the statistics)


def track_able(state: FightState, who: Combatant) -> bool:
    return who.track.can_act


def track_wound(state: FightState, who: Combatant) -> str:
    return LEVELS[who.track.level]


TRACK = View(track_able, track_wound, LEVELS)
VIEWS: dict[str, View] = {"fudge": TRACK, "atari-isev": TRACK}


def view_of(state: FightState) -> View:
    return VIEWS.get(state.options.ruleset, TRACK)
