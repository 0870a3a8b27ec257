"""The state a fight's Decider folds: `FightState` and the values it holds, and `replace`.

`engine.evolve` builds it, one event at a time; `decide` reads it. Every state is a value: a
change makes a new one (`replace`), and the old one stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.initiative import Initiative
from engine.ladder import Ladder, ladder_of
from engine.options import RuleOptions
from engine.pmap import PMap
from engine.sheets import Fighter
from engine.wounds import Mark, Track, empty_track
from events import models as ev

_dataclass_replace = replace


@dataclass(frozen=True, slots=True)
class Combatant:
    name: str
    side: str
    fighter: Fighter
    fudge_points: int
    boxes: tuple[int, ...]
    marks: tuple[Mark, ...] = ()
    track: Track = field(default_factory=lambda: empty_track(()))
    joined_seq: int = 0
    killed_by: int | None = None  # F-WND-6 `gm`: the GM's kill
    out: str | None = None  # F-STUN-1: knocked out
    stuns: int = 0  # F-STUN-1: Stun results on the sheet until the battle ends
    stunned: tuple[str, int] | None = None  # F-STUN-1: ("stun" | "very_stunned", last round it lasts)
    locations: Mapping[str, tuple[int, str | None]] = field(default_factory=dict)  # F-LOC-2: part -> (level, use)

    @property
    def key(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Action:
    """What a fudge point may re-resolve: the resolution and what it caused."""

    action: int
    resolution: int  # seq of the ActionResolved / ExchangeResolved now in force
    rolls: tuple[int, ...] = ()
    consequences: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    round: int
    phase: int
    combatant: str
    index: int
    acted: bool = False
    step: str = "act"  # PH-4 `structured`: "declare" or "resolve"


@dataclass(frozen=True, slots=True)
class FateMark:
    """FT-TRACK-2: one box marked by the event `seq`."""

    seq: int
    box: str
    non_lethal: bool = False
    by: str | None = None


@dataclass(frozen=True, slots=True)
class FightState:
    """Mappings here are never mutated: every change makes a new one."""

    fight_id: str = ""
    name: str = ""
    rules: str = ""
    options: RuleOptions = field(default_factory=RuleOptions)
    stream: str = ""
    commitment: str = ""
    revealed: tuple[str, ...] = ()
    last_seq: int = 0
    round: int = 0
    combatants: Mapping[str, Combatant] = field(default_factory=dict)
    declarations: Mapping[str, ev.Declaration] = field(default_factory=dict)
    sealed: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # key -> (seal, seq)
    fought: frozenset[str] = frozenset()
    advantages: Mapping[str, tuple[str, int, int]] = field(default_factory=dict)  # victim -> (by, modifier, round)
    advantage_open: Mapping[str, str] = field(default_factory=dict)  # defender -> foe (F-MOD-7)
    initiative: Mapping[str, Initiative] = field(default_factory=dict)
    turn: Turn | None = None
    actions: Mapping[int, Action] = field(default_factory=PMap)
    events: Mapping[int, Any] = field(default_factory=PMap)  # seq -> effective event of an action
    round_starts: tuple[int, ...] = ()  # seqs of RoundStarted (F-DEATH-2: the level a round began at)
    # --- rolled initiative and atari isev ---
    ranked: Mapping[str, ev.InitiativeRanked] = field(default_factory=dict)  # F-INIT-2, AI-INIT-2
    slot_start: int = 0  # seq of the first turn at the current initiative total (simultaneous ties)
    will_relief: Mapping[str, int] = field(default_factory=dict)  # AI-WILL-1: levels ignored this scene
    pending: Mapping[str, tuple[int, ev.Declaration]] = field(default_factory=dict)  # declared for a coming round
    round_declarations: Mapping[str, ev.Declaration] = field(default_factory=dict)  # they last the whole round
    # --- melee (F-MOD-8) ---
    forfeits: frozenset[str] = frozenset()  # all-out defenders who may not attack this round
    exposed: Mapping[str, str] = field(default_factory=dict)  # all-out attacker -> the foe whose next turn finds him exposed
    # --- fate ---
    fate_marks: Mapping[str, tuple[FateMark, ...]] = field(default_factory=dict)  # FT-TRACK: boxes marked
    fate_clip: frozenset[str] = frozenset()  # FT-TRACK-3: a clipped -1 waits for the next action
    fate_aspects: Mapping[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)  # FT-PTS: checked boxes
    fate_scene: int = 1
    fate_scene_rolled: frozenset[str] = frozenset()  # FT-PACE scene: one roll each
    fate_order: tuple[str, ...] = ()  # FT-INIT: this round's order
    fate_acted: frozenset[str] = frozenset()
    fate_last_action: int | None = None  # the latest exchange, scene or attack (fate points and rerolls change it)
    # --- aftermath (F-HEAL) ---
    ended_through: int = 0  # the last event of the latest battle end: nothing since it means the battle is over

    @property
    def ladder(self) -> Ladder:
        return ladder_of(self.options)

    def find(self, name: str) -> Combatant | None:
        return self.combatants.get(name.strip().lower())


_COPIERS: dict[type, Callable[[Any, dict[str, Any]], Any]] = {}


def _copier(cls: type) -> Callable[[Any, dict[str, Any]], Any] | None:
    """A straight-line copy of a slotted dataclass with some fields changed (no __init__ to re-run)."""
    import dataclasses

    names = [f.name for f in dataclasses.fields(cls)]
    if (not hasattr(cls, "__slots__") or hasattr(cls, "__post_init__")
            or any(not f.init for f in dataclasses.fields(cls))):
        return None
    lines = ["def copy(obj, changes):",
             "    if not changes.keys() <= NAMES:",
             "        raise TypeError(f'{cls.__name__} has no field {sorted(changes.keys() - NAMES)[0]!r}')",
             "    new = new_(cls)"]
    lines += [f"    set_(new, {n!r}, obj.{n})" for n in names]
    lines += ["    for name, value in changes.items():", "        set_(new, name, value)", "    return new"]
    scope: dict[str, Any] = {"NAMES": frozenset(names), "cls": cls, "new_": object.__new__,
                             "set_": object.__setattr__}
    exec("\n".join(lines), scope)
    return scope["copy"]  # type: ignore[no-any-return]


def replace(obj: Any, /, **changes: Any) -> Any:
    """`dataclasses.replace` for the fold's hot path: same result, several times faster."""
    cls = type(obj)
    try:
        copy = _COPIERS[cls]
    except KeyError:
        copy = _COPIERS[cls] = _copier(cls)  # type: ignore[assignment]
    if copy is None:
        return _dataclass_replace(obj, **changes)
    return copy(obj, changes)
