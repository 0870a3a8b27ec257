"""The state a fight's Decider folds: `FightState` and the values it holds, and `replace`.

`engine.evolve` builds it, one event at a time; `decide` reads it. Every state is a value: a
change makes a new one (`replace`), and the old one stays as it was.
"""

import operator
from collections.abc import Mapping
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace as _replace

from fudge_combat.engine.kernel.initiative import Initiative
from fudge_combat.engine.kernel.ladder import Ladder, ladder_of
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.pmap import EventMap, PMap
from fudge_combat.engine.kernel.registry import UnknownRuleset, ruleset_part
from fudge_combat.engine.kernel.sheets import Fighter
from fudge_combat.engine.kernel.wounds import Mark, Track, empty_track
from fudge_combat.events import structs as ev

class Condition(Struct, frozen=True):
    """A state the GM marked on a fighter (`ConditionMarked`): shown, never applied to a roll."""

    name: str
    note: str = ""
    until: int | None = None  # the round at whose start it is gone; None: until unmarked
    seq: int = 0


class Combatant(Struct, frozen=True, gc=False):
    """One fighter in the fight. Like his Fighter and sheet, not tracked by the cyclic collector (`gc=False`): a
    frozen tree that holds no cycle, of which a roster of hundreds holds hundreds a full collection would walk
    at every command (bench/README.md, rosters)."""

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


class Action(Struct, frozen=True):
    """What a fudge point may re-resolve: the resolution and what it caused."""

    action: int
    resolution: int  # seq of the ActionResolved / ExchangeResolved now in force
    rolls: tuple[int, ...] = ()
    consequences: tuple[int, ...] = ()


class Turn(Struct, frozen=True):
    round: int
    phase: int
    combatant: str
    index: int
    acted: bool = False
    step: str = "act"  # PH-4 `structured`: "declare" or "resolve"


class RulesPart(Struct, frozen=True):
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

    def out_of_turn(self) -> "RulesPart":
        """This part with its own turn order left out, as `fudge odds` weighs a blow made now (`odds.now`):
        itself, when it keeps none (Fate's drops its Alertness order, FT-INIT)."""
        return self


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


class FightState(Struct, frozen=True):
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
# A state is a value: `replace` makes a new one (msgspec's, which copies the fields in C and runs no
# __init__ of Python's).


def replace(obj: Any, /, **changes: Any) -> Any:
    """`msgspec.structs.replace`, except on a fold's own `Draft`, which is changed in place (see Draft)."""
    if type(obj) is Draft:
        return _update(obj, changes)
    return _replace(obj, **changes)


class Draft(FightState, frozen=True):
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


_STATE_ORDER = FightState.__struct_fields__
_STATE_FIELDS = frozenset(_STATE_ORDER)


_SLOTS = {name: FightState.__dict__[name].__set__ for name in _STATE_ORDER}  # the slots' own setters


def _update(draft: Draft, changes: dict[str, Any]) -> Draft:
    if not changes.keys() <= _STATE_FIELDS:
        raise TypeError(f"FightState has no field {sorted(changes.keys() - _STATE_FIELDS)[0]!r}")
    for name, value in changes.items():
        _SLOTS[name](draft, value)  # a frozen struct's field, written through its slot: the draft is the fold's own
    return draft


_read_state = operator.attrgetter(*_STATE_ORDER)  # every field in one call


def draft_of(state: FightState) -> Draft:
    """A draft copy of `state` for one fold to change (`state` is left as it was)."""
    return _copied(Draft, state)


def freeze(state: FightState, **changes: Any) -> FightState:
    """The fold's result as a plain, immutable `FightState`, with `changes` made: a copy of the draft,
    which the fold then drops (no object changes its class)."""
    if type(state) is Draft:
        _update(state, changes)
        return _copied(FightState, state)
    return _replace(state, **changes)


def _copied(cls: type[FightState], state: FightState) -> Any:
    """A `cls` (FightState or its Draft) with the fields of `state`.

    Speed: the simulator folds every command's few events on their own, so this copy is paid twice per
    command (`draft_of`, `freeze`); the fields are read in one call and given to the struct's own
    __init__, which msgspec runs in C."""
    return cls(*_read_state(state))
