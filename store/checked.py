"""A decoded snapshot checked against the state's own type hints before anything uses it.

Pickle builds whatever objects its bytes describe: a snapshot forged with the user's own key (or
written by a defect) may hold a string where the fold reads a number, a map that holds itself, or a
few bytes that share one list at every level so that any walk of it meets billions of items. The
state is a graph of frozen dataclasses, pydantic models, persistent maps and builtin containers,
each field annotated; `check` walks the decoded graph once, object by object, against those
annotations, and refuses it (raising `Invalid`) when:

- a value is not of its field's type (exact types: no subclass a pickle could smuggle in), a number
  lies outside 64 bits, or a sheet's value outside its pydantic bounds;
- an object is reached again while it is being walked (a cycle), or nested deeper than `DEPTH`;
- the graph, walked as a tree (every shared object counted each time it is reached, as a render or
  a JSON dump would walk it), exceeds `limit` items: the check counts that size in one pass over the
  distinct objects, so a bomb of shared references is refused before anything expands it.

Which classes a snapshot may name at all (`classes`) is read from the same annotations: the
state's classes, the persistent maps and their MISSING marker, nothing else.
"""

from __future__ import annotations

import collections.abc as abc
import dataclasses
import enum
import functools
import math
import types
import typing
from typing import Any

import pydantic

from engine.pmap import EventMap, Logged, PMap, Reader, Unbound
from engine.rewind import Change, History
from engine.state import FightState

DEPTH = 48  # a fight's state nests about 10 deep
BOUND = 1 << 63  # numbers a fold may meet: the store's integers are 64-bit
MAPS = (dict, PMap, EventMap)
ROOT = tuple[FightState, History]


class Invalid(Exception):
    """The decoded graph is not a fight's state (the message says where it differs)."""


def _hints(cls: type) -> dict[str, Any]:
    """A dataclass's fields or a pydantic model's, with their annotations (pydantic: and bounds)."""
    if issubclass(cls, pydantic.BaseModel):
        return {name: (typing.Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation)
                for name, field in cls.model_fields.items()}
    hints = typing.get_type_hints(cls)
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is neither a dataclass nor a pydantic model")
    return {field.name: hints[field.name] for field in dataclasses.fields(cls)}


@functools.cache
def classes() -> frozenset[type]:
    """Every class a snapshot's graph may hold: those reachable from the state's annotations."""
    found: set[type] = {PMap, EventMap, Unbound}
    todo: list[Any] = [FightState, History]
    while todo:
        hint = todo.pop()
        args = typing.get_args(hint)
        if args:
            todo += [arg for arg in args if not isinstance(arg, (str, int, bool, type(None), Ellipsis.__class__))]
            continue
        if isinstance(hint, type) and hint not in found and (
                dataclasses.is_dataclass(hint) or issubclass(hint, (pydantic.BaseModel, enum.Enum))):
            found.add(hint)
            if not issubclass(hint, enum.Enum):
                todo += list(_hints(hint).values())
    return frozenset(found)


@functools.cache
def _fields(cls: type) -> tuple[tuple[str, Any], ...]:
    return tuple(_hints(cls).items())


def check(value: Any, limit: int) -> None:
    """Raise `Invalid` unless `value` is a (FightState, History) within `limit` items walked as a tree."""
    walk = _Walk(limit)
    try:
        _compiled(ROOT)(walk, value, 0)
    except Invalid:
        raise
    except Exception as error:  # noqa: BLE001 - an object a pickle built may raise anything when read
        raise Invalid(f"{type(error).__name__}: {error}") from None


class _Walk:
    """One check's bookkeeping: the size of each (object, checker) already checked, and the objects open."""

    __slots__ = ("limit", "sizes", "open")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.sizes: dict[tuple[int, int], int] = {}
        self.open: set[int] = set()


# A checker: (walk, value, depth) -> the value's size as a tree, or raises Invalid. Each annotation is
# compiled once a process into one (a long fight's state is about 100,000 objects: reading the
# annotations at every one took ten times as long as unpickling them).
Checker = typing.Callable[[_Walk, Any, int], int]
_CHECKERS: dict[int, tuple[Any, Checker, frozenset[type]]] = {}  # id(hint) -> (hint, checker, types it takes)
_SIMPLE: set[int] = set()  # the ids of checkers that are a type test alone (numbers bounded): inlined in loops
SCALARS = frozenset({str, int, bool, float, bytes, types.NoneType})
EMPTIES = frozenset({tuple, list, dict, frozenset, set})


def _compiled(hint: Any) -> Checker:
    return _entry(hint)[1]


def _entry(hint: Any) -> tuple[Any, Checker, frozenset[type]]:
    found = _CHECKERS.get(id(hint))
    if found is None:
        checker, kinds = _compile(hint)
        found = _CHECKERS[id(hint)] = (hint, checker, kinds)  # the hint is kept: its id stays its own
    return found


def _node(inner: Checker) -> Checker:
    """`inner` (the size of what a container or object holds) with the checks every such object gets:
    once per object and checker, no cycle, not too deep, not too big."""

    def check(walk: _Walk, value: Any, depth: int) -> int:
        if not value and type(value) in EMPTIES:  # (), {}: nothing to count, nothing to hold
            return 1
        key = (id(value), id(check))
        size = walk.sizes.get(key)
        if size is not None:
            return size
        if depth > DEPTH:
            raise Invalid(f"nested deeper than {DEPTH}")
        if key[0] in walk.open:
            raise Invalid(f"a {type(value).__name__} holds itself")
        walk.open.add(key[0])
        try:
            size = 1 + inner(walk, value, depth + 1)
        finally:
            walk.open.discard(key[0])
        if size > walk.limit:
            raise Invalid(f"it would expand to more than {walk.limit} items")
        walk.sizes[key] = size
        return size

    return check


def _typed(kinds: frozenset[type], check: Checker, what: Any) -> Checker:
    if check in (_one, _int, _float):
        return _simple(kinds, what)

    def typed(walk: _Walk, value: Any, depth: int) -> int:
        if type(value) not in kinds:
            raise Invalid(f"{type(value).__name__} where {what} is read")
        return check(walk, value, depth)

    return typed


def _simple(kinds: frozenset[type], what: Any) -> Checker:
    def simple(walk: _Walk, value: Any, depth: int) -> int:
        if type(value) not in kinds:
            raise Invalid(f"{type(value).__name__} where {what} is read")
        return _scalar(value)

    simple.kinds = kinds  # type: ignore[attr-defined]
    _SIMPLE.add(id(simple))
    return simple


def _scalar(value: Any) -> int:
    kind = type(value)
    if kind is int and not -BOUND < value < BOUND or kind is float and not math.isfinite(value):
        raise Invalid("a number out of bounds")
    return 1


def _all(kinds: frozenset[type], values: Any, what: Any) -> int:
    """The size of `values`, each a scalar of `kinds` (a loop of type tests: most of a state's items)."""
    count = 0
    for value in values:
        kind = type(value)
        if kind not in kinds:
            raise Invalid(f"{kind.__name__} where {what} is read")
        if kind is int and not -BOUND < value < BOUND or kind is float and not math.isfinite(value):
            raise Invalid("a number out of bounds")
        count += 1
    return count


def _int(walk: _Walk, value: Any, depth: int) -> int:
    if type(value) is int and not -BOUND < value < BOUND:
        raise Invalid("a number out of bounds")
    return 1


def _float(walk: _Walk, value: Any, depth: int) -> int:
    if type(value) is float and not math.isfinite(value):
        raise Invalid("a number out of bounds")
    return 1


def _one(walk: _Walk, value: Any, depth: int) -> int:
    return 1


def _compile(hint: Any) -> tuple[Checker, frozenset[type]]:
    """The checker of one annotation, and the exact types it takes."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        base, bounds = _entry(args[0]), args[1:]

        def bounded(walk: _Walk, value: Any, depth: int) -> int:
            size = base[1](walk, value, depth)
            if value is not None:  # `int | None = Field(ge=0)`: the int's bound
                for bound in bounds:
                    if not _within(value, bound):
                        raise Invalid(f"{value!r:.40} outside {bound}")
            return size

        return bounded, base[2]
    if origin in (typing.Union, types.UnionType):
        return _union([_entry(arg) for arg in args], hint)
    if origin is typing.Literal:
        allowed = frozenset((type(arg), arg) for arg in args)

        def literal(walk: _Walk, value: Any, depth: int) -> int:
            if (type(value), value) not in allowed:
                raise Invalid(f"{value!r:.40} where {hint} is read")
            return 1

        return literal, frozenset(kind for kind, _ in allowed)
    if hint is Any or hint is object:
        return _anything, frozenset()  # empty: takes any type
    if hint is None or hint is types.NoneType:
        return _typed(frozenset({types.NoneType}), _one, None), frozenset({types.NoneType})
    if hint is int:
        return _typed(frozenset({int, bool}), _int, int), frozenset({int, bool})
    if hint is float:
        return _typed(frozenset({int, float}), _float, float), frozenset({int, float})
    if hint in (str, bool, bytes):
        return _typed(frozenset({hint}), _one, hint), frozenset({hint})
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(frozenset({tuple}), args[0], hint)
        items = [_compiled(arg) for arg in args]

        def fixed(walk: _Walk, value: Any, depth: int) -> int:
            if items and len(value) != len(items):
                raise Invalid(f"a tuple of {len(value)} where {hint} is read")
            if not items:
                return sum(_anything(walk, item, depth) for item in value)
            return sum(check(walk, item, depth) for check, item in zip(items, value))

        return _typed(frozenset({tuple}), _node(fixed), hint), frozenset({tuple})
    if origin in (frozenset, set, abc.Set) or hint in (frozenset, set):
        return _sequence(frozenset({frozenset, set}), args[0] if args else Any, hint)
    if origin in (list, abc.Sequence) or hint in (list, tuple):
        return _sequence(frozenset({list, tuple}), args[0] if args else Any, hint)
    if origin in (dict, abc.Mapping) or hint in (dict, abc.Mapping):
        return _mapping(*(args or (Any, Any)))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _typed(frozenset({hint}), _one, hint), frozenset({hint})
    if hint is Change:
        return _typed(frozenset({Change}), _node(_change), hint), frozenset({Change})
    if isinstance(hint, type) and issubclass(hint, pydantic.BaseModel):
        return _typed(frozenset({hint}), _node(_model(hint)), hint), frozenset({hint})
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _typed(frozenset({hint}), _node(_dataclass(hint)), hint), frozenset({hint})
    return _anything, frozenset()  # an annotation this walk does not read (a type variable): plain data


def _union(members: list[tuple[Any, Checker, frozenset[type]]], hint: Any) -> tuple[Checker, frozenset[type]]:
    """A union: the members that take the value's type, tried in turn."""
    if all(id(checker) in _SIMPLE for _, checker, _ in members):
        kinds = frozenset(kind for _, _, member in members for kind in member)
        return _simple(kinds, hint), kinds
    open_ = [checker for _, checker, kinds in members if not kinds]
    table: dict[type, list[Checker]] = {}
    for _, checker, kinds in members:
        for kind in kinds:
            table.setdefault(kind, []).append(checker)

    def union(walk: _Walk, value: Any, depth: int) -> int:
        tried = table.get(type(value), open_)
        for number, checker in enumerate(tried):
            try:
                return checker(walk, value, depth)
            except Invalid:
                if number == len(tried) - 1:
                    raise
        raise Invalid(f"{type(value).__name__} where {hint} is read")

    return union, frozenset() if open_ else frozenset(table)


def _sequence(kinds: frozenset[type], item_hint: Any, hint: Any) -> tuple[Checker, frozenset[type]]:
    item = _compiled(item_hint)
    if id(item) in _SIMPLE:
        item_kinds = item.kinds  # type: ignore[attr-defined]

        def items(walk: _Walk, value: Any, depth: int) -> int:
            return _all(item_kinds, value, item_hint)
    else:
        def items(walk: _Walk, value: Any, depth: int) -> int:
            return sum(item(walk, entry, depth) for entry in value)

    return _typed(kinds, _node(items), hint), kinds


def _mapping(key_hint: Any, item_hint: Any) -> tuple[Checker, frozenset[type]]:
    key, item = _compiled(key_hint), _compiled(item_hint)
    if id(key) in _SIMPLE and id(item) in _SIMPLE:
        key_kinds, item_kinds = key.kinds, item.kinds  # type: ignore[attr-defined]

        def entries(walk: _Walk, value: Any, depth: int) -> int:
            held = _items(value)
            return _all(key_kinds, held.keys(), key_hint) + _all(item_kinds, held.values(), item_hint)
    elif id(key) in _SIMPLE:
        key_kinds = key.kinds  # type: ignore[attr-defined]

        def entries(walk: _Walk, value: Any, depth: int) -> int:
            held = _items(value)
            return _all(key_kinds, held.keys(), key_hint) + sum(item(walk, v, depth) for v in held.values())
    else:
        def entries(walk: _Walk, value: Any, depth: int) -> int:
            return sum(key(walk, k, depth) + item(walk, v, depth) for k, v in _items(value).items())

    return _typed(frozenset(MAPS), _node(entries), "a mapping"), frozenset(MAPS)


def _items(value: Any) -> dict[Any, Any]:
    """A map's entries as pickle built them: a persistent map fresh from a pickle is one dict, never a
    version chain (an event map's values left in the log are its LOGGED marker, not read)."""
    if type(value) is dict:
        return value
    held = value._ref  # noqa: SLF001
    if type(held) is not dict:
        raise Invalid("a persistent map that is not one dict")
    if type(value) is EventMap and type(value._reader) is not Reader:  # noqa: SLF001
        raise Invalid("an event map without its reader")
    return held


def _dataclass(cls: type) -> Checker:
    checks = [(name, _compiled(hint)) for name, hint in _fields(cls)]
    simple = tuple((name, check.kinds) for name, check in checks if id(check) in _SIMPLE)  # type: ignore[attr-defined]
    fields = tuple((name, check) for name, check in checks if id(check) not in _SIMPLE)

    def inside(walk: _Walk, value: Any, depth: int) -> int:
        for name, kinds in simple:
            held = getattr(value, name)
            if type(held) not in kinds:
                raise Invalid(f"{type(held).__name__} where {cls.__name__}.{name} is read")
            _scalar(held)
        return len(simple) + sum(check(walk, getattr(value, name), depth) for name, check in fields)

    return inside


def _model(cls: type[pydantic.BaseModel]) -> Checker:
    fields = tuple((name, _compiled(hint)) for name, hint in _fields(cls))
    names = cls.model_fields.keys()

    def inside(walk: _Walk, value: Any, depth: int) -> int:
        held = value.__dict__
        given = value.__pydantic_fields_set__
        if (type(held) is not dict or held.keys() != names or value.__pydantic_extra__ is not None
                or type(given) is not set or not given <= names):
            raise Invalid(f"a {cls.__name__} with other fields")
        return sum(check(walk, held[name], depth) for name, check in fields)

    return inside


def _change(walk: _Walk, value: Change, depth: int) -> int:
    """An undo's change: each value typed as the state's field it puts back, each key and value as that
    field's map holds them (or MISSING)."""
    size = _compiled(str)(walk, value.command, depth) + _compiled(int)(walk, value.first, depth)
    hints = dict(_fields(FightState))
    for name, before in _pairs(value.values):
        size += _compiled(_field(hints, name))(walk, before, depth)
    for name, entries in _pairs(value.keys):
        hint = _field(hints, name)
        if typing.get_origin(hint) not in (dict, abc.Mapping) or type(entries) is not tuple:
            raise Invalid(f"an undo's keys of {name}, which is no map")
        key_hint, item_hint = typing.get_args(hint) or (Any, Any)
        key, item = _compiled(key_hint), _compiled(item_hint)
        for k, v in _pairs(entries):
            size += key(walk, k, depth) + (1 if type(v) is Unbound else item(walk, v, depth))
    return size


def _field(hints: dict[str, Any], name: Any) -> Any:
    if type(name) is not str or name not in hints or name == "last_seq":
        raise Invalid(f"an undo names no field of the state ({name!r:.40})")
    return hints[name]


def _anything(walk: _Walk, value: Any, depth: int) -> int:
    """A value the annotations leave open (an event map's values, an index's keys): plain data or a
    state class, walked for its size and checked by its own class."""
    kind = type(value)
    if kind in SCALARS:
        return _int(walk, value, depth) if kind is int else _float(walk, value, depth)
    if kind in (Unbound, Logged):  # MISSING, or an event left in the log
        return 1
    if kind in (tuple, list, frozenset, set):
        return _ANY_ITEMS(walk, value, depth)
    if kind in MAPS:
        return _ANY_MAP(walk, value, depth)
    if kind in classes():
        return _compiled(kind)(walk, value, depth)
    raise Invalid(f"a {kind.__name__} in a state")


_ANY_ITEMS = _node(lambda walk, value, depth: sum(_anything(walk, item, depth) for item in value))
_ANY_MAP = _node(lambda walk, value, depth: sum(_anything(walk, k, depth) + _anything(walk, v, depth)
                                                for k, v in _items(value).items()))


def _pairs(value: Any) -> tuple[tuple[Any, Any], ...]:
    if type(value) is not tuple or not all(type(pair) is tuple and len(pair) == 2 for pair in value):
        raise Invalid("an undo's change is not pairs")
    return value


def _within(value: Any, bound: Any) -> bool:
    """A pydantic field's bound (annotated_types: Ge, Gt, Le, Lt, MinLen, MaxLen); others are not checked."""
    for name, test in (("ge", lambda v, b: v >= b), ("gt", lambda v, b: v > b), ("le", lambda v, b: v <= b),
                       ("lt", lambda v, b: v < b), ("min_length", lambda v, b: len(v) >= b),
                       ("max_length", lambda v, b: len(v) <= b)):
        limit = getattr(bound, name, None)
        if limit is not None and type(limit) is int:
            try:
                if not test(value, limit):
                    return False
            except TypeError:
                return False
    return True
