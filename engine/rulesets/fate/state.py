"""Fate's part of a fight's state (`FightState.part`): the stress boxes marked, the clipped -1 waiting,
the aspects' checked boxes, the scene and its rolls, the round's turn order, and the latest action a fate
point or a reroll may change. Fate's handlers (`rulesets.fate.evolve`) fold it; nothing outside Fate's
package and the views that show a Fate fight reads it."""

from collections.abc import Mapping
from typing import Any

from msgspec import Struct, field

from fudge_combat.engine.kernel.state import FightState, RulesPart, replace


class FateMark(Struct, frozen=True):
    """FT-TRACK-2: one box marked by the event `seq`."""

    seq: int
    box: str
    non_lethal: bool = False
    by: str | None = None


class FateState(RulesPart, frozen=True):
    """Mappings here are never mutated: every change makes a new one (as in `FightState`)."""

    marks: Mapping[str, tuple[FateMark, ...]] = field(default_factory=dict)  # FT-TRACK: boxes marked
    clip: frozenset[str] = frozenset()  # FT-TRACK-3: a clipped -1 waits for the next action
    aspects: Mapping[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)  # FT-PTS: checked boxes
    scene: int = 1
    scene_rolled: frozenset[str] = frozenset()  # FT-PACE scene: one roll each
    order: tuple[str, ...] = ()  # FT-INIT: this round's order
    acted: frozenset[str] = frozenset()
    last_action: int | None = None  # the latest exchange, scene or attack (fate points and rerolls change it)

    def out_of_turn(self) -> "FateState":
        """Without this round's Alertness order (FT-INIT): a blow weighed as if made now (`odds.now`)."""
        return replace(self, order=())


INITIAL = FateState()  # the part a Fate fight starts with (`kernel.state.initial_part`)


def fate_of(state: FightState) -> FateState:
    """Fate's part of the state: a Fate fight's own, or for a fight under another ruleset the part a Fate
    fight starts with (no box marked, no order, scene 1), which the views shared by every ruleset read."""
    part = state.part
    return part if type(part) is FateState else INITIAL


def with_fate(state: FightState, **changes: Any) -> FightState:
    """`state` with these fields of Fate's part changed (each change makes a new part, as `replace` does)."""
    return replace(state, part=replace(fate_of(state), **changes))
