"""How the simulator reads a fight of each ruleset: who can still act, and how hurt each fighter ends.

A ruleset whose fighters are taken out or hurt otherwise than on the wound
track (`Combatant.track`) adds one `View` to `VIEWS`, keyed by its `ruleset`
option; the fight driver and the statistics read fights through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from fudge_combat.engine.kernel.wounds import LEVELS, VERY_HURT
from fudge_combat.events import models as ev
from fudge_combat.engine.kernel.state import Combatant, FightState


class Blow(Protocol):
    """An event that marks a wound: whom it marked."""

    combatant: str


@dataclass(frozen=True)
class View:
    able: Callable[[FightState, Combatant], bool]  # can still act (F-WND-1 on the wound track)
    wound: Callable[[FightState, Combatant], str]  # the name of the fighter's worst wound
    levels: tuple[str, ...]  # every wound name, least hurt first (the order of the statistics)
    badly: str  # the first wound name that counts as badly hurt
    blows: tuple[type[Blow], ...]  # events that mark a wound (a policy may spend a point on one)
    in_force: Callable[[FightState, Combatant, int], bool]  # the blow of this seq still counts
    rounds: Callable[[FightState], int]  # rounds (or exchanges) fought
    # (able, wound rank in `levels`) at once, where the view can say it without naming the wound
    read: Callable[[FightState, Combatant], tuple[bool, int]] | None = None


def track_able(state: FightState, who: Combatant) -> bool:
    return who.track.can_act


def track_wound(state: FightState, who: Combatant) -> str:
    return LEVELS[who.track.level]


def track_in_force(state: FightState, who: Combatant, seq: int) -> bool:
    return any(m.seq == seq for m in who.marks)


def rounds_of(state: FightState) -> int:
    return state.round


def track_read(state: FightState, who: Combatant) -> tuple[bool, int]:
    track = who.track
    return track.can_act, track.level  # the level is its name's rank in LEVELS


TRACK = View(track_able, track_wound, LEVELS, LEVELS[VERY_HURT], (ev.WoundMarked,), track_in_force, rounds_of,
             track_read)
VIEWS: dict[str, View] = {"fudge": TRACK, "atari-isev": TRACK}


def view_of(state: FightState) -> View:
    return VIEWS.get(state.options.ruleset, TRACK)


_last: tuple[FightState | None, dict[str, tuple[bool, int]]] = (None, {})


def reading(state: FightState) -> dict[str, tuple[bool, int]]:
    """Each combatant's (able to act, wound rank in `View.levels`) in this state.

    The driver and the policies ask this many times of one state; it is worked
    out once per state (states are immutable: the same object reads the same).
    The pair is replaced whole, so threads sharing the module never mix two
    states' readings.
    """
    global _last
    cached = _last
    if cached[0] is state:
        return cached[1]
    view = view_of(state)
    read = view.read
    if read is not None:
        out = {key: read(state, who) for key, who in state.combatants.items()}
    else:
        out = {key: (view.able(state, who), view.levels.index(view.wound(state, who)))
               for key, who in state.combatants.items()}
    _last = (state, out)
    return out


def badly_hurt(state: FightState, who: Combatant) -> bool:
    """Hurt at least as badly as the view's `badly`, and still able to act."""
    able, rank = reading(state)[who.key]
    return able and rank >= view_of(state).levels.index(view_of(state).badly)
