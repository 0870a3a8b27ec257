"""Speed code (`projections.speed`): the fast path of a replay from scratch (`projections.rebuild`), the
plain path's state from the same rows, folded by handlers of its own for the commonest events.

Why: a replay from a store (service.fights.Fights._replay) keeps no action's event in memory (its
`events` map holds `LOGGED`), so for most rows the event is read for a few fields and dropped. A dice roll
(the commonest of a fight's rows), a resolved action, an exchange, a wound and a new round are folded by
handlers of this module (`_OWN`, made for each rebuild): the engine's handler with
`engine.evolving.remember` written straight onto the fold's draft, an action's rows held as one record
until another handler reads it (`_Open`), and a wound placed on the track the earlier marks built; and
the draft's growing maps grow in place (`_Growing`). A handler of the engine that reads nothing they
hold back is given its event without their writing it first (`_UNHELD`). Every row is decoded to its
record's struct first (events.decoder; pydantic decides a body msgspec refuses: events.records.load).

They restate the engine's rules, so a change to those rules must be made here too: `RESTATES` names the
engine code each one restates with a digest of its source, and tests/test_rebuild.py fails when that
source changes until this module is read again and the digest updated. tests/test_rebuild.py also checks
that the state equals the engine handlers' fold of the same records, over the golden logs and random
fights of every ruleset; `FUDGE_PLAIN=1` replays by the plain path (tests/test_plain.py compares whole
commands).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from functools import lru_cache
from operator import attrgetter
from typing import Any

import msgspec
from msgspec.structs import replace as _replace

from fudge_combat.engine import evolve as evolving_handlers
from fudge_combat.engine.rulesets.fudge import evolve as fudge_evolve
from fudge_combat.engine.rulesets.fudge.conditions import expire
from fudge_combat.engine.rulesets.fudge.evolving import AVOIDANCES, HEROIC, SMALL, with_item, with_items
from fudge_combat.engine.rulesets.fudge.harm import ADJUSTMENT_PURPOSE
from fudge_combat.engine.rulesets.fudge.tracks import is_pawn, pain_of
from fudge_combat.engine.kernel.wounds import SCRATCH, UNDAMAGED, VERY_HURT, Mark, Track, build_track
from fudge_combat.engine.kernel.pmap import LOGGED, EventMap, PMap, Reader
from fudge_combat.engine.kernel.state import Action, Combatant, Draft, FightState, draft_of, freeze, replace
from fudge_combat.events import structs as ev
from fudge_combat.events.decoder import Refused, decoder
from fudge_combat.events.records import load
from fudge_combat.events.upcast import ENVELOPE_UPCASTERS, UPCASTERS


# The handlers that read only fields of an event (numbers, strings, the fields of its sides) and keep
# none of its objects in the state but through `remember`, which leaves them in the log here.
# A sheet or the options are read from the event's `dict[str, Any]` (the same dict whichever decoder made it).
READ_ONLY = (ev.DiceRolled, ev.ActionResolved, ev.ExchangeResolved, ev.WoundMarked, ev.RoundStarted,
             ev.FudgePointSpent, ev.EventsVoided, ev.CommandUndone, ev.CommandRedone, ev.CombatantJoined,
             ev.FightStarted, ev.BranchStarted, ev.SeedCommitted, ev.SeedRevealed)

Handler = Callable[[Draft, Any, Any], Draft]


class _Growing(PMap):
    """A map one rebuild owns and grows in place: `set` changes it and returns it.

    Why: a `PMap` keeps every version it was (each `set` makes a new one and leaves a change in the old),
    so that any older state stays correct; a fold from scratch keeps none of its states but the last, so
    the draft's growing maps (actions, events, the indexes, the roster, the round starts) need no older
    version. Handlers read the newest state only (engine.state.Draft), and `engine.evolving.with_item`
    sets a PMap in place of copying it. `_settled` turns each back into what the handlers' fold holds."""

    __slots__ = ()

    def set(self, key: Any, value: Any) -> _Growing:
        self._ref[key] = value
        return self

    # Its dict is always its own: read it without PMap's check for an older version.
    def get(self, key: Any, default: Any = None) -> Any:
        return self._ref.get(key, default)

    def __getitem__(self, key: Any) -> Any:
        return self._ref[key]

    def __contains__(self, key: Any) -> bool:
        return key in self._ref


class _GrowingEvents(EventMap):
    """`_Growing` for `events`: every value left in the log (`LOGGED`), as an `EventMap` that keeps none."""

    __slots__ = ()

    def set(self, key: Any, value: Any) -> _GrowingEvents:
        self._ref[key] = LOGGED
        return self


_GROWN = ("actions", "events", "index", "round_starts", "combatants")
_SET = {name: FightState.__dict__[name].__set__ for name in _GROWN}  # the slots' own setters
_set_actions, _set_events, _set_index = _SET["actions"], _SET["events"], _SET["index"]


def _growing(read: Callable[[int], Any]) -> Draft:
    draft = draft_of(FightState())
    for name in _GROWN:
        _SET[name](draft, _Growing())
    _set_events(draft, _GrowingEvents(reader=Reader(read, keep=False)))
    return draft


def _settled(draft: Draft) -> Draft:
    """Each grown map as the handlers' fold leaves it: `actions` a PMap, `events` an EventMap, the others
    a dict while they are small (engine.evolving.with_item's SMALL), else a PMap. Each holds the grown
    dict itself, not a copy (a replay's peak memory)."""
    for name in _GROWN:
        value = getattr(draft, name)
        if type(value) is _GrowingEvents:
            events = EventMap.__new__(EventMap)
            events._ref, events._reader = value._ref, value._reader
            _SET[name](draft, events)
        elif type(value) is _Growing and (name == "actions" or len(value._ref) > SMALL):
            _SET[name](draft, PMap.holding(value._ref))
        elif type(value) is _Growing:
            _SET[name](draft, value._ref)
    return draft


def _owned(s: Draft) -> tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any]] | None:
    """The dicts of the draft's `actions`, `index` and `events` when this rebuild still grows all three
    in place (`_Growing`), so that a handler writes them directly; None once a handler has put another
    map in one's place (the handlers' own way then)."""
    actions, index, events = s.actions, s.index, s.events
    if type(actions) is _Growing and type(index) is _Growing and type(events) is _GrowingEvents:
        return actions._ref, index._ref, events._ref
    return None


_W = {name: FightState.__dict__[name].__set__ for name in FightState.__struct_fields__}  # every slot's setter


_conditions = attrgetter("conditions")
_w_round_starts, _w_round_declarations, _w_ranked, _w_advantages, _w_round = (
    _W[name] for name in ("round_starts", "round_declarations", "ranked", "advantages", "round"))
_w_cleared = tuple(_W[name] for name in ("declarations", "sealed", "initiative", "pending"))
_w_fought, _w_forfeits, _w_turn, _w_slot_start = (_W[name] for name in ("fought", "forfeits", "turn", "slot_start"))
_w_advantage_open, _w_declarations = _W["advantage_open"], _W["declarations"]
_NONE: frozenset[str] = frozenset()


class _Open:
    """What one rebuild's own handlers hold back from the draft until another handler may read it.

    Why: a fight's commonest run of rows is one action's (its rolls, its resolution, its wounds), each of
    which `remember` records as a new `Action` in place of the last; a replay keeps only the last. The own
    handlers keep each action they change as a list instead, and `settle` writes them into the draft as
    `Action`s before any other handler runs and at the fold's end: every handler but these reads the
    `Action`s `remember` would have left. They also keep whether any combatant holds a condition (a new
    round's `expire` walks the whole roster for one), which only another handler or `expire` changes.
    And they keep the draft's own dicts (`_owned`) between two other handlers, which alone may put
    another map in one's place."""

    __slots__ = ("actions", "conditions", "owned")

    def __init__(self) -> None:
        self.actions: dict[int, list[Any]] = {}  # action -> [action, resolution, rolls, consequences]
        self.conditions: bool | None = None  # None: not known
        self.owned: tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any]] | None = None  # None: not known

    def own(self, s: Draft) -> tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any]] | None:
        """`_owned(s)`, kept until another handler runs (`settle`, `changed`)."""
        owned = self.owned
        if owned is None:
            owned = self.owned = _owned(s)
        return owned

    def changed(self) -> None:
        """The engine's code ran on the draft: what was known of it is known no more."""
        self.conditions = self.owned = None

    def settle(self, s: Draft) -> None:
        held = self.actions
        if held:
            actions = s.actions
            assert type(actions) is _Growing  # held only while the draft grows its own `actions` (`_owned`)
            ref = actions._ref
            for key, (action, resolution, rolls, consequences) in held.items():
                ref[key] = Action(action, resolution, rolls, consequences)
            held.clear()
        self.conditions = self.owned = None


def _dice_rolling(fold: _Open) -> Handler:
    held = fold.actions
    # A roller's two keys of `index`, and whether a purpose's roll is an action's (`_rolled`), worked out once
    # for each roller and purpose of the fight: a fight has a few, and thousands of rolls.
    keys: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {}
    acting: dict[str, bool] = {}

    def dice_rolled(s: Draft, r: Any, e: Any) -> Draft:
        """engine.rulesets.fudge.evolve._dice_rolled and engine.rulesets.fudge.evolving.remember with its `_rolled`
        index, written onto the draft (a fold's own, changed in place: engine.state.Draft): into its grown
        dicts themselves while it has them (`_owned`), the action held (`_Open`)."""
        seq, action = r.seq, e.action
        owned = fold.owned or fold.own(s)
        if owned is None:
            return _dice_rolled_mapped(s, seq, action, e)
        actions, index, events = owned
        row = held.get(action)
        if row is not None:
            row[2] += (seq,)
        elif (record := actions.get(action)) is None:
            held[action] = [action, seq, (seq,), ()]
        else:
            held[action] = [record.action, record.resolution, record.rolls + (seq,), record.consequences]
        roller, purpose = e.roller, e.purpose
        pair = keys.get(roller)
        if pair is None:
            key = roller.lower()
            pair = keys[roller] = (("roll", key), ("action roll", key))
        index[pair[0]] = seq
        counted = acting.get(purpose)
        if counted is None:
            counted = acting[purpose] = purpose != "damage" and not purpose.endswith(ADJUSTMENT_PURPOSE)
        if counted:
            index[pair[1]] = seq
        events[seq] = LOGGED  # as _GrowingEvents.set
        return s

    return dice_rolled


def _dice_rolled_mapped(s: Draft, seq: int, action: int, e: Any) -> Draft:
    """`dice_rolled` through the maps' own `with_item`, whatever they are."""
    actions = s.actions
    record = actions.get(action)
    if record is None:
        record = Action(action, seq, (seq,), ())
    else:
        record = Action(record.action, record.resolution, record.rolls + (seq,), record.consequences)
    key = e.roller.lower()
    purpose = e.purpose
    if purpose != "damage" and not purpose.endswith(ADJUSTMENT_PURPOSE):
        _set_index(s, with_items(s.index, ((("roll", key), seq), (("action roll", key), seq))))
    else:
        _set_index(s, with_item(s.index, ("roll", key), seq))
    _set_actions(s, with_item(actions, action, record))
    _set_events(s, with_item(s.events, seq, e))
    return s


def _hold(held: dict[int, list[Any]], actions: Any, action: int, seq: int) -> None:
    """The action's row held (`_Open`) with `seq` as its newest event: the one held already, else the state's."""
    row = held.get(action)
    if row is not None:
        row[1] = seq
    elif (record := actions.get(action)) is None:
        held[action] = [action, seq, (), ()]
    else:
        held[action] = [record.action, seq, record.rolls, record.consequences]


def _action_resolving(fold: _Open) -> Handler:
    held = fold.actions

    def action_resolved(s: Draft, r: Any, e: Any) -> Draft:
        """engine.rulesets.fudge.evolve._action_resolved: `remember` (and its `_resolved` index) written onto the
        draft, the action held (`_Open`)."""
        owned = fold.owned or fold.own(s)
        if owned is None:
            fold.settle(s)
            return fudge_evolve._action_resolved(s, r, e)
        seq = r.seq
        _hold(held, owned[0], e.action, seq)
        if e.trait.startswith(HEROIC):
            owned[1]["heroic", e.trait] = seq
        owned[2][seq] = LOGGED  # as _GrowingEvents.set
        return s

    return action_resolved


def _exchange_resolving(fold: _Open) -> Handler:
    held = fold.actions

    def exchange_resolved(s: Draft, r: Any, e: Any) -> Draft:
        """engine.rulesets.fudge.evolve._exchange_resolved, its `remember` (and the `_exchanged` index) written onto
        the draft, the action held (`_Open`); the rest as the handler does it, step for step."""
        seq, action, sides = r.seq, e.action, e.sides
        owned = fold.owned or fold.own(s)
        if owned is None:
            record = s.actions.get(action)
            record = (Action(action, seq, (), ()) if record is None
                      else Action(record.action, seq, record.rolls, record.consequences))
            _set_actions(s, with_item(s.actions, action, record))
            _set_events(s, with_item(s.events, seq, e))
        else:
            _hold(held, owned[0], action, seq)
            owned[2][seq] = LOGGED  # as _GrowingEvents.set
        if e.avoidance in AVOIDANCES and len(sides) >= 2:
            key = ("avoided", sides[1].combatant.lower(), e.round)
            if owned is None:
                _set_index(s, with_item(s.index, key, s.index.get(key, 0) + len(sides) - 1))
            else:
                owned[1][key] = owned[1].get(key, 0) + len(sides) - 1
        names = [side.combatant.lower() for side in sides]
        keys = frozenset(names)
        opened = dict(s.advantage_open)
        for side, key in zip(sides, names):
            opened.pop(key, None)
            if side.declaration.all_out == "defense":
                foes = [o for o, name in zip(sides, names) if name != key]
                if foes and all(side.result is not None and o.result is not None and side.result >= o.result
                                for o in foes):
                    opened[key] = foes[0].combatant.lower()
        advantages = s.advantages
        used = {k: v for k, v in advantages.items() if k not in keys} if advantages else {}
        turn = replace(s.turn, acted=True) if (s.turn and e.kind == "attack") else s.turn
        if s.options.pace == "alternating":  # the only pace `_all_out_turns` changes anything at
            s = fudge_evolve._all_out_turns(s, e)
            fold.owned = None
        declarations = s.declarations
        _w_fought(s, s.fought | keys)
        _w_advantage_open(s, opened)
        _w_advantages(s, used)
        _w_declarations(s, {k: v for k, v in declarations.items() if k not in keys} if declarations else {})
        _w_turn(s, turn)
        return s

    return exchange_resolved


def _round_starting(fold: _Open) -> Handler:

    def round_started(s: Draft, r: Any, e: Any) -> Draft:
        """engine.rulesets.fudge.evolve._round_started, each field set through its slot (the handler is one `replace`
        of thirteen fields); every value is worked out from the state before the round, as the handler's are.
        Its `expire` runs only when a combatant holds a condition (with none it changes nothing): a long
        fight's roster holds every fighter who ever joined."""
        known = fold.conditions
        if known is None:
            combatants = s.combatants
            known = fold.conditions = any(map(_conditions, (
                combatants._ref if type(combatants) is _Growing else combatants).values()))
        if known:
            s = expire(s, e.round)  # the timed conditions that end as this round starts (a Draft is changed in place)
            fold.changed()
        number, options, pending, advantages = e.round, s.options, s.pending, s.advantages
        starts = s.round_starts
        if type(starts) is _Growing:
            starts._ref[len(starts._ref)] = r.seq
        else:
            _w_round_starts(s, with_item(starts, len(starts), r.seq))
        _w_round_declarations(s, {k: d for k, (n, d) in pending.items() if n == number} if pending else {})
        if not (options.initiative == "opposed" and options.initiative_every == "battle"):
            _w_ranked(s, {})
        _w_advantages(s, {k: v for k, v in advantages.items() if v[2] >= number} if advantages else {})
        _w_round(s, number)
        for write in _w_cleared:
            write(s, {})
        _w_fought(s, _NONE)
        _w_forfeits(s, _NONE)
        _w_turn(s, None)
        _w_slot_start(s, 0)
        return s

    return round_started


def _placed(raw: tuple[Any, bool, int | None], mark: Mark, options: Any) -> tuple[Any, bool, int | None]:
    """engine.kernel.wounds.place on a track's (boxes, dead, killed_by), the only fields of the track the marks
    build that a wound reads (its `out` and `pain` are the combatant's): the same values, without a `Track`
    made for each mark."""
    boxes, dead, _ = raw
    level = mark.level
    if dead or level <= UNDAMAGED:
        return raw
    top = len(boxes)
    ceiling = VERY_HURT if (level == SCRATCH and options.scratch_cap) else top
    for at in range(min(level, top), ceiling + 1):
        row = boxes[at - 1]
        if None in row:
            index = row.index(None)
            return boxes[: at - 1] + (row[:index] + (level,) + row[index + 1:],) + boxes[at:], dead, raw[2]
    if ceiling < top or mark.still_ticking or options.death_rule == "gm":
        return raw
    return boxes, True, mark.seq


def _wound_marking(fold: _Open) -> Handler:
    """engine.rulesets.fudge.evolve._wound_marked for one fold, placing each mark on the track the earlier marks built.

    Why: the handler rebuilds a combatant's track from all its marks at every wound (engine.tracks.track_of:
    `build_track`, a fold of `place` from an empty track), a large share of its cost. `built` keeps, for each
    combatant, the marks last placed and the track they built; when the combatant still holds those marks
    (the same tuple), on the same boxes and options, placing the new mark on that track is `build_track`
    of all of them by its definition. A pawn's or a damage-capacity track goes through the handler."""
    built: dict[str, tuple[Any, ...]] = {}
    pains: dict[int, tuple[Any, int]] = {}  # id(sheet) -> (sheet, pain_of(sheet)): a sheet is never changed
    held = fold.actions

    def wound_marked(s: Draft, r: Any, e: Any) -> Draft:
        options = s.options
        name = e.combatant.lower()
        combatants = s.combatants
        combatant = combatants[name]
        sheet = combatant.fighter.sheet
        if options.dc_track or is_pawn(sheet):
            fold.settle(s)  # the handler reads the actions
            return fudge_evolve._wound_marked(s, r, e)
        seq, action = r.seq, e.action
        owned = fold.owned or fold.own(s)
        if owned is None:  # remember, with its `_marked` index
            record = s.actions.get(action)
            record = (Action(action, seq, (), (seq,)) if record is None
                      else Action(record.action, record.resolution, record.rolls, record.consequences + (seq,)))
            _set_actions(s, with_item(s.actions, action, record))
            _set_events(s, with_item(s.events, seq, e))
            _set_index(s, with_item(s.index, ("blow", name), seq))
        else:
            row = held.get(action)
            if row is not None:
                row[3] += (seq,)
            elif (record := owned[0].get(action)) is None:
                held[action] = [action, seq, (), (seq,)]
            else:
                held[action] = [record.action, record.resolution, record.rolls, record.consequences + (seq,)]
            owned[2][seq] = LOGGED  # as _GrowingEvents.set
            owned[1]["blow", name] = seq
        mark = Mark(e.level, seq, e.still_ticking)
        marks = combatant.marks + (mark,)
        key = combatant.key
        known = built.get(key)
        if known is not None and known[0] is combatant.marks and known[1] == combatant.boxes and known[2] is options:
            raw = _placed(known[3], mark, options)
        else:
            track = build_track(combatant.boxes, marks, options)
            raw = (track.boxes, track.dead, track.killed_by)
        built[key] = (marks, combatant.boxes, options, raw)
        # engine.rulesets.fudge.tracks.track_of's last step, then engine.rulesets.fudge.evolve._retrack
        pain = pains.get(id(sheet))
        if pain is None or pain[0] is not sheet:
            pain = pains[id(sheet)] = (sheet, pain_of(sheet))  # the sheet kept: its id is not reused
        if combatant.killed_by is not None and not raw[1]:
            track = Track(raw[0], True, combatant.killed_by, combatant.out, pain[1])
        else:
            track = Track(raw[0], raw[1], raw[2], combatant.out, pain[1])
        updated = _replace(combatant, marks=marks, track=track)  # its conditions as they were (`_Open.conditions` holds)
        if type(combatants) is _Growing:
            combatants._ref[key] = updated
            return s
        return replace(s, combatants=with_item(combatants, key, updated))

    return wound_marked


# The fold's own handlers, each made for one rebuild (its `_Open`).
_OWN: dict[type, Callable[[_Open], Handler]] = {
    ev.DiceRolled: _dice_rolling, ev.ExchangeResolved: _exchange_resolving, ev.RoundStarted: _round_starting,
    ev.WoundMarked: _wound_marking, ev.ActionResolved: _action_resolving}

# The engine's handlers that read nothing the own handlers hold back (`_Open`: the actions, whether a combatant
# holds a condition) and change neither: the fold gives them their event without settling first.
_UNHELD = frozenset({ev.Declared})

# The engine code the handlers above restate, each with the digest of its source when they were last
# checked against it (`source_digest`): a change there fails tests/test_rebuild.py until it is made here
# too (or found not to matter) and the digest updated.
RESTATES: dict[str, str] = {
    "engine.rulesets.fudge.evolve._dice_rolled": "eca285b49320",
    "engine.rulesets.fudge.evolve._exchange_resolved": "0e97c6c03150",
    "engine.rulesets.fudge.evolve._round_started": "a6cd07df172c",
    "engine.rulesets.fudge.evolve._wound_marked": "eadbf42230ac",
    "engine.rulesets.fudge.evolve._action_resolved": "08a239cd518f",
    "engine.rulesets.fudge.evolving._resolved": "00edf4bdeb34",
    "engine.rulesets.fudge.evolve._retrack": "53a3a324b41f",
    "engine.rulesets.fudge.evolving.remember": "47ff4d772b59",
    "engine.rulesets.fudge.evolving._rolled": "65b400279cc1",
    "engine.rulesets.fudge.evolving._exchanged": "d51659351a70",
    "engine.rulesets.fudge.evolving._marked": "0c7e5a41336c",
    "engine.rulesets.fudge.tracks.track_of": "e873dfab1f32",
    "engine.kernel.wounds.build_track": "310130efc8e7",
    "engine.kernel.wounds.place": "c90a67de3a67",
    # read, not restated, by the own handlers under a condition of theirs: `_all_out_turns` only when the
    # pace is alternating, `expire` only when a combatant holds a condition, `pain_of` once a sheet
    "engine.rulesets.fudge.evolve._all_out_turns": "7866c978ee07",
    "engine.rulesets.fudge.conditions.expire": "8db054dd0f98",
    "engine.rulesets.fudge.tracks.pain_of": "cf3e8f1dd681",
    # given its event without the fold settling first (`_UNHELD`): it reads no action and no condition
    "engine.rulesets.fudge.evolve._declared": "3a48bf710d94",
}


def source_digest(name: str) -> str:
    """The digest `RESTATES` keeps for the engine function `name` (module.function under fudge_combat)."""
    import hashlib
    import importlib
    import inspect

    module, _, function = name.rpartition(".")
    source = inspect.getsource(getattr(importlib.import_module(f"fudge_combat.{module}"), function))
    return hashlib.sha256(source.encode()).hexdigest()[:12]


@lru_cache(maxsize=1)
def handlers() -> tuple[dict[type, Handler], frozenset[type]]:
    """The engine's handlers by event type, and the types whose handlers only read the event (`READ_ONLY`).
    A rebuild puts its own (`_OWN`) in place of the engine's for a few of those."""
    return dict(evolving_handlers.HANDLERS), frozenset(READ_ONLY)


def rebuild(rows: Iterable[tuple[int, str]], gone: Container[int], read: Callable[[int], Any]) -> FightState:
    """The state folded from a log's rows, (seq, body) in order, leaving out the seqs in `gone` (A-UNDO-2:
    the events voided, validated but not folded), as `projections.fold.replay` folds the same records.

    Every body is validated: decoded to its record's struct, or where the decoder refuses it by pydantic,
    which decides (and raises if the models refuse it too). The state starts fresh, its `events` leaving
    every value in the log (read back with `read`); its growing maps are grown in place (`_Growing`)."""
    table, taken = handlers()
    draft = _growing(read)
    if UPCASTERS or ENVELOPE_UPCASTERS:  # an older shape is upcast first, by pydantic's path
        return _upcast(rows, gone, table, decoder(), draft)
    fold = _Open()
    settle = fold.settle
    own = {kind: _OWN[kind](fold) for kind in taken if kind in _OWN}
    decode = decoder()
    folded = None
    for seq, body in rows:
        try:
            record = decode(body)
        except Refused:  # pydantic decides: it may take what msgspec's strict types refuse, or raise
            record = load(body)
            if seq in gone:  # voided: validated all the same, not folded
                continue
            event = record.event
            settle(draft)
            draft = table[type(event)](draft, record, event)
        else:
            if seq in gone:
                continue
            event = record.event
            handler = own.get(type(event))
            if handler is None:  # the engine's handler, which may read what the own ones held back
                if type(event) not in _UNHELD:
                    settle(draft)
                handler = table[type(event)]
            draft = handler(draft, record, event)
        folded = record
    settle(draft)
    return freeze(_settled(draft), last_seq=0 if folded is None else folded.seq)


def _upcast(rows: Iterable[tuple[int, str]], gone: Container[int], table: dict[type, Handler],
            decode: Callable[[str], Any], draft: Draft) -> FightState:
    """`rebuild` while an upcaster is registered: every folded row read by pydantic's path (which upcasts)."""
    last = 0
    for seq, body in rows:
        if seq in gone:  # voided: validated all the same, not folded
            try:
                decode(body)
            except Refused:
                load(body)
            continue
        record = load(body)
        event = record.event
        draft = table[type(event)](draft, record, event)
        last = record.seq
    return freeze(_settled(draft), last_seq=last)
