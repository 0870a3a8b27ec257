"""A persistent mapping whose `set` costs O(1) when versions are used one after another.

`FightState` keeps every action's rolls and consequences for the whole fight. Copying those
dicts on every event made replay quadratic in the length of a fight; `PMap.set` instead
shares one dict between all versions (Baker's "shallow binding"): the newest version holds
the dict, every older version holds the one change that separates it from a newer one.
Reading an older version rewinds the dict to it (O(changes between them)), so every version
stays correct and immutable from the outside; a fold that only moves forward pays O(1).

Not thread-safe (rewinding mutates the shared dict); a fight is folded in one thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Self

class Unbound:
    """A key not bound (one instance, kept one when copied or pickled: compared with `is`)."""

    __slots__ = ()
    _one: Unbound | None = None

    def __new__(cls) -> Unbound:
        if cls._one is None:
            cls._one = object.__new__(cls)
        return cls._one

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), ())

    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Any = Unbound()
# PMap and each of its subclasses: the maps `engine.rulesets.fudge.evolving.with_item` sets rather than copies (a set of
# exact types: `isinstance` of an abstract Mapping's subclass takes the slow ABC path for every dict).
KINDS: set[type] = set()
MISSING = _MISSING  # a key not bound, in `changes_since`


class PMap(Mapping[Any, Any]):
    __slots__ = ("_ref",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        KINDS.add(cls)

    def __init__(self, items: Mapping[Any, Any] | None = None) -> None:
        # Either the shared dict (this version is the newest one read), or (key, value, next):
        # this version is `next` with `key` bound to `value` (_MISSING: not bound).
        self._ref: Any = dict(items) if items else {}

    @classmethod
    def holding(cls, data: dict[Any, Any]) -> PMap:
        """A map of `data`, which it takes as its own (not copied: a snapshot's decoded dict)."""
        new = PMap.__new__(PMap)
        new._ref = data
        return new

    def _data(self) -> dict[Any, Any]:
        ref = self._ref
        if type(ref) is dict:
            return ref
        path = []
        node = self
        while type(node._ref) is not dict:
            path.append(node)
            node = node._ref[2]
        data = node._ref
        for step in reversed(path):  # rewind one change at a time, newest first
            key, value, newer = step._ref
            now = data.get(key, _MISSING)
            if value is _MISSING:
                del data[key]
            else:
                data[key] = value
            newer._ref = (key, now, step)
            step._ref = data
        return data

    def set(self, key: Any, value: Any) -> PMap:
        """A new version with `key` bound to `value`; this one is unchanged."""
        data = self._data()
        new = PMap.__new__(PMap)
        before = data.get(key, _MISSING)
        data[key] = value
        new._ref = data
        self._ref = (key, before, new)
        return new

    def delete(self, key: Any) -> PMap:
        """A new version without `key` (this one unchanged)."""
        data = self._data()
        if key not in data:
            return self
        new = type(self).__new__(type(self))
        self._copy_to(new)
        before = data.pop(key)
        new._ref = data
        self._ref = (key, before, new)
        return new

    def _copy_to(self, new: Self) -> None:
        """What a new version takes from this one besides the shared dict (nothing, for a plain PMap)."""

    def changes_since(self, older: PMap) -> dict[Any, Any] | None:
        """{key: its value in `older`, or MISSING} for every key this version changed since `older`, when
        `older` is an earlier version of this map; None when it is not (a map rebuilt, not set)."""
        self._data()  # this version holds the dict: an older one is a chain of changes up to it
        out: dict[Any, Any] = {}
        node = older
        while node is not self:
            ref = node._ref
            if type(ref) is dict:
                return None
            key, value, node = ref
            out.setdefault(key, value)
        return out

    def __getitem__(self, key: Any) -> Any:
        return self._data()[key]

    def get(self, key: Any, default: Any = None) -> Any:
        return self._data().get(key, default)

    def __contains__(self, key: Any) -> bool:
        return key in self._data()

    def __len__(self) -> int:
        return len(self._data())

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._data()))

    # Views of a copy: the shared dict may be rewound while they are read.
    def keys(self) -> Any:
        return self._data().copy().keys()

    def values(self) -> Any:
        return self._data().copy().values()

    def items(self) -> Any:
        return self._data().copy().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PMap):
            return self is other or self._data().copy() == other._data()
        if isinstance(other, Mapping):
            return self._data() == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a dict is: typeshed types object's __hash__ as a method

    def __repr__(self) -> str:
        return f"PMap({self._data()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (PMap, (dict(self._data()),))


KINDS.add(PMap)


class Logged(Unbound):
    """Where an `EventMap` keeps a value that stays in the log: read through the map's reader."""

    __slots__ = ()
    _one: Logged | None = None

    def __repr__(self) -> str:
        return "LOGGED"


LOGGED = Logged()


class Reader:
    """What every version of one `EventMap` shares: how to read a value left in the log, and whether new
    values are kept in memory (`keep`) or left in the log too (a replay from a store)."""

    __slots__ = ("read", "keep")

    def __init__(self, read: Callable[[Any], Any] | None = None, keep: bool = True) -> None:
        self.read, self.keep = read, keep


class EventMap(PMap):
    """`FightState.events` (seq -> the event of an action): a `PMap` whose values may stay in the log.

    Why: a fight's state holds every action's events (a fudge point may re-resolve any roll, C-FP-2),
    so a snapshot that held them grew with the fight, and so did a replay's memory. A snapshot keeps
    only the keys (`logged_keys`, `in_log`); a replay from a store may keep none of the values (`Reader.keep`): a value not
    held is `LOGGED` and is read, when a command asks for it, through the reader the service gives
    (`read_from`: the event of that seq in the fight's log, which is immutable). The engine only reads
    a mapping: it does no I/O itself. A value read is kept, so each is read at most once.
    """

    __slots__ = ("_reader",)

    def __init__(self, items: Mapping[Any, Any] | None = None, logged: Iterable[Any] = (),
                 reader: Reader | None = None) -> None:
        super().__init__(items)
        data = self._ref
        for key in logged:
            data[key] = LOGGED
        self._reader = reader or Reader()

    def read_from(self, read: Callable[[Any], Any], keep: bool = True) -> None:
        """Read the values left in the log with `read(key)`; `keep`: hold the values set from now on."""
        self._reader.read, self._reader.keep = read, keep

    def _copy_to(self, new: Self) -> None:
        new._reader = self._reader

    def set(self, key: Any, value: Any) -> EventMap:
        data = self._data()
        new = EventMap.__new__(EventMap)
        new._reader = self._reader
        before = data.get(key, _MISSING)
        data[key] = value if self._reader.keep else LOGGED
        new._ref = data
        self._ref = (key, before, new)
        return new

    def _value(self, data: dict[Any, Any], key: Any, value: Any) -> Any:
        if value is not LOGGED:
            return value
        if self._reader.read is None:
            raise LookupError(f"event {key} is in the fight's log and this state has no reader for it")
        value = data[key] = self._reader.read(key)
        return value

    def __getitem__(self, key: Any) -> Any:
        data = self._data()
        return self._value(data, key, data[key])

    def get(self, key: Any, default: Any = None) -> Any:
        data = self._data()
        value = data.get(key, _MISSING)
        return default if value is _MISSING else self._value(data, key, value)

    def _resolved(self) -> dict[Any, Any]:
        data = self._data()
        return {key: self._value(data, key, value) for key, value in list(data.items())}

    def values(self) -> Any:
        return self._resolved().values()

    def items(self) -> Any:
        return self._resolved().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self is other or self._resolved() == dict(other.items())
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"EventMap({self._data()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (EventMap, (self._resolved(),))

    def logged_keys(self) -> tuple[Any, ...]:
        """What a snapshot keeps of this map (store.schema): the keys alone, the values left in the log."""
        return tuple(self._data())

    @classmethod
    def in_log(cls, keys: Iterable[Any]) -> EventMap:
        """A map of these keys whose values are all in the log (`LOGGED`), read once a reader is given
        (`read_from`): a snapshot's event map."""
        new = EventMap.__new__(EventMap)
        new._ref = dict.fromkeys(keys, LOGGED)
        new._reader = Reader()
        return new


_ABSENT = object()  # no value, in `changed_keys` (a value may be None)


def changed_keys(old: Any, new: Any) -> set[Any]:
    """The keys whose value is not the same object in mapping `new` as in `old` (through `changes_since`
    when both are versions of one PMap): what a read model renders again."""
    if old is new:
        return set()
    if type(old) is PMap and type(new) is PMap:
        changes = new.changes_since(old)
        if changes is not None:
            return set(changes)
    return {key for key in old.keys() | new.keys() if old.get(key, _ABSENT) is not new.get(key, _ABSENT)}

