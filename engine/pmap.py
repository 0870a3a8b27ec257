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

from collections.abc import Iterator, Mapping
from typing import Any

_MISSING: Any = object()


class PMap(Mapping[Any, Any]):
    __slots__ = ("_ref",)

    def __init__(self, items: Mapping[Any, Any] | None = None) -> None:
        # Either the shared dict (this version is the newest one read), or (key, value, next):
        # this version is `next` with `key` bound to `value` (_MISSING: not bound).
        self._ref: Any = dict(items) if items else {}

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

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PMap({self._data()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (PMap, (dict(self._data()),))
