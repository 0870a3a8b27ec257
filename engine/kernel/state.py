"""The state a fight's Decider folds: `FightState` and the values it holds, and `replace`.

`engine.evolve` builds it, one event at a time; `decide` reads it. Every state is a value: a
change makes a new one (`replace`), and the old one stays as it was.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from fudge_combat.engine.kernel.initiative import Initiative
from fudge_combat.engine.kernel.ladder import Ladder, ladder_of
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.pmap import EventMap, PMap
from fudge_combat.engine.kernel.registry import UnknownRuleset, ruleset_part
from fudge_combat.engine.kernel.sheets import Fighter
from fudge_combat.engine.kernel.wounds import Mark, Track, empty_track
from fudge_combat.events import models as ev

@dataclass(frozen=True, slots=True)
class Condition:
    """A state the GM marked on a fighter (`ConditionMarked`): shown, never applied to a roll."""

    name: str
    note: str = ""
    until: int | None = None  # the round at whose start it is gone; None: until unmarked
    seq: int = 0


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
    conditions: tuple[Condition, ...] = ()  # marked by the GM, in the order marked
    left: str | None = None  # "fled", "surrendered" or "left": out of the fight without wounds (CombatantLeft)

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
class RulesPart:
    """The part of a fight's state that its ruleset alone keeps (`FightState.part`): a ruleset that keeps
    fields of its own subclasses it in its package (`rulesets.fate.state.FateState`), and its package's
    `state` module names the part its fights start with (`initial_part`). The kernel never reads one: only
    its ruleset's package (and the views that ask it) know its fields.

    This class itself, with no field, is the part of a ruleset that keeps nothing of its own (Fudge, Atari
    Isev, or a ruleset added from outside that declares no `state` module).

    Fudge's own fields (its melee's forfeits and advantages, rolled initiative, willpower's relief) stay on
    `FightState`: Atari Isev and every ruleset composed from Fudge fold them with Fudge's handlers, and a
    Fudge fight may record willpower too (AI-WILL-1 is a GM option there).
    """


NO_PART = RulesPart()  # the part of a ruleset that keeps none of its own

_initial_parts: dict[str, RulesPart] = {}


def initial_part(ruleset: str) -> RulesPart:
    """The part of the state a fight under `ruleset` starts with: its package's `state` module's `INITIAL`,
    or the empty part when it has none (or when the ruleset is not installed here: a recorded fight still folds).

    A module of its own, not the Decider's, so that folding a fight's log never loads its rules' tables."""
    part = _initial_parts.get(ruleset)
    if part is None:
        try:
            module = ruleset_part(ruleset, "state")
        except UnknownRuleset:
            module = None
        part = _initial_parts[ruleset] = NO_PART if module is None else module.INITIAL
    return part


@dataclass(frozen=True, slots=True)
class FightState:
    """Mappings here are never mutated: every change makes a new one."""

    fight_id: str = ""
    name: str = ""
    rules: str = ""
    # The ruleset's own part of the state (`RulesPart`: Fate's boxes, aspects, scene and turn order),
    # set by `FightStarted` from the ruleset's `state` module. Named `part`, not `rules`: `rules` is the name
    # of the rules the fight was started under, as its log records it, and every view reads it so.
    part: RulesPart = NO_PART
    options: RuleOptions = field(default_factory=RuleOptions)
    stream: str = ""
    commitment: str = ""
    revealed: tuple[str, ...] = ()
    last_seq: int = 0
    round: int = 0
    combatants: Mapping[str, Combatant] = field(default_factory=dict)  # a PMap once large (evolving.with_item)
    declarations: Mapping[str, ev.Declaration] = field(default_factory=dict)
    sealed: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # key -> (seal, seq)
    fought: frozenset[str] = frozenset()
    advantages: Mapping[str, tuple[str, int, int]] = field(default_factory=dict)  # victim -> (by, modifier, round)
    advantage_open: Mapping[str, str] = field(default_factory=dict)  # defender -> foe (F-MOD-7)
    initiative: Mapping[str, Initiative] = field(default_factory=dict)
    turn: Turn | None = None
    actions: Mapping[int, Action] = field(default_factory=PMap)
    # seq -> effective event of an action: the event at that seq in the log, which a snapshot leaves there
    events: EventMap = field(default_factory=EventMap)
    # seqs of RoundStarted by their order (0, 1, ...) (F-DEATH-2: the level a round began at); a map that
    # becomes persistent as it grows (evolving.with_item), not a tuple copied at every round (quadratic)
    round_starts: Mapping[int, int] = field(default_factory=dict)
    # Indexes of `events`, kept by the fold (engine.rulesets.fudge.evolving.remember) so that a command reads one entry
    # where it scanned every event of the fight.
    # One map, not one field each (a fold's draft copies every field, per command in the simulator):
    # ("roll" | "action roll" | "blow", combatant key) -> the newest DiceRolled, DiceRolled a fudge point
    # may aim at, WoundMarked; ("avoided", defender, round) -> AI-ATK avoidances used; ("heroic", trait)
    # -> the seq of an AI-HEROIC roll with a blow.
    index: Mapping[tuple[str | int, ...], int] = field(default_factory=dict)
    # --- rolled initiative and atari isev ---
    ranked: Mapping[str, ev.InitiativeRanked] = field(default_factory=dict)  # F-INIT-2, AI-INIT-2
    slot_start: int = 0  # seq of the first turn at the current initiative total (simultaneous ties)
    will_relief: Mapping[str, int] = field(default_factory=dict)  # AI-WILL-1: levels ignored this scene
    pending: Mapping[str, tuple[int, ev.Declaration]] = field(default_factory=dict)  # declared for a coming round
    round_declarations: Mapping[str, ev.Declaration] = field(default_factory=dict)  # they last the whole round
    # --- melee (F-MOD-8) ---
    forfeits: frozenset[str] = frozenset()  # all-out defenders who may not attack this round
    exposed: Mapping[str, str] = field(default_factory=dict)  # all-out attacker -> the foe whose next turn finds him exposed
    # --- aftermath (F-HEAL) ---
    ended_through: int = 0  # the last event of the latest battle end: nothing since it means the battle is over

    @property
    def ladder(self) -> Ladder:
        return ladder_of(self.options)

    def find(self, name: str) -> Combatant | None:
        return self.combatants.get(name.strip().lower())


# --- copies ---------------------------------------------------------------------------------------------
# A state is a value: `replace` makes a new one. `dataclasses.replace` runs a class's __init__ again,
# which cost a fold more than its rules did; these classes' __init__ only sets their fields, so a copy
# that sets them directly is the same value.

_set = object.__setattr__  # the classes are frozen: only a copy being made, or a fold's own Draft, is written


@cache  # keyed by the class: a handful of classes, each for the life of the program
def _fields(cls: type) -> frozenset[str] | None:
    """The fields of `cls` when a copy may set them one by one (a slotted dataclass whose __init__ does
    nothing else: no __post_init__, no field left out of it); None otherwise."""
    fields = dataclasses.fields(cls)
    if not hasattr(cls, "__slots__") or hasattr(cls, "__post_init__") or any(not f.init for f in fields):
        return None
    return frozenset(f.name for f in fields)


def _copy(cls: type, obj: Any, names: frozenset[str], changes: dict[str, Any]) -> Any:
    """A `cls` with the fields of `obj`, and `changes` made."""
    if not changes.keys() <= names:
        raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - names)[0]!r}")
    new: Any = object.__new__(cls)  # filled in field by field below
    for name in names:
        _set(new, name, changes[name] if name in changes else getattr(obj, name))
    return new


def replace(obj: Any, /, **changes: Any) -> Any:
    """`dataclasses.replace`, for the fold's hot path: the same value, without re-running __init__.
    A fold's own `Draft` is changed in place instead (see Draft)."""
    cls: type = type(obj)
    if cls is Draft:
        return _update(obj, changes)
    names = _fields(cls)
    if names is None:
        return dataclasses.replace(obj, **changes)
    return _copy(cls, obj, names, changes)


class Draft(FightState):
    """A `FightState` that one fold owns and changes in place (`replace` on it changes it).

    Why: a fold keeps none of its intermediate states, yet `evolve` copies the state's 40-odd fields
    once or twice per event: with a draft, a fold copies the state once at its start (`draft_of`) and
    once at its end (`freeze`), and each event's handler changes the draft.

    Why this is the same result as folding with `evolve`:
    - only the draft itself is changed in place; what it holds (mappings, combatants, actions,
      tracks) is replaced, never mutated, as in any state;
    - every handler reads the state it is given before it replaces it, and reads only the newest
      state after that (each `s = replace(s, ...)` rebinds `s`); a handler that kept the state it
      was given and read it after a replace would see the change (tests/test_fold_draft.py compares
      the two folds over whole fights, and a new handler must keep to this);
    - a draft never leaves its fold: `draft_of` copies the state the fold starts from (which is left
      as it was) and `freeze` copies the draft into a plain `FightState`.
    """

    __slots__ = ()


_STATE_FIELDS = frozenset(FightState.__dataclass_fields__)


def _update(draft: Draft, changes: dict[str, Any]) -> Draft:
    if not changes.keys() <= _STATE_FIELDS:
        raise TypeError(f"FightState has no field {sorted(changes.keys() - _STATE_FIELDS)[0]!r}")
    for name, value in changes.items():
        _set(draft, name, value)
    return draft


_STATE_ORDER = tuple(FightState.__dataclass_fields__)
_read_state = operator.attrgetter(*_STATE_ORDER)  # every field in one call
_STATE_SLOTS = tuple(FightState.__dict__[name].__set__ for name in _STATE_ORDER)  # the slots' own setters


def draft_of(state: FightState) -> Draft:
    """A draft copy of `state` for one fold to change (`state` is left as it was)."""
    return _copied(Draft, state)


def freeze(state: FightState, **changes: Any) -> FightState:
    """The fold's result as a plain, immutable `FightState`, with `changes` made: a copy of the draft,
    which the fold then drops (no object changes its class)."""
    if type(state) is Draft:
        _update(state, changes)
        return _copied(FightState, state)
    return _copy(FightState, state, _STATE_FIELDS, changes)


def _copied(cls: type[FightState], state: FightState) -> Any:
    """A `cls` (FightState or its Draft) with the fields of `state`.

    Speed: the simulator folds every command's few events on their own, so this copy is paid twice per
    command (`draft_of`, `freeze`); the fields are read in one call and written through the slots' own
    setters (cheaper than a field-by-field copy, bench/README.md)."""
    new = object.__new__(cls)
    for write, value in zip(_STATE_SLOTS, _read_state(state)):
        write(new, value)
    return new
