"""C-LAD: trait levels and results shown by name on a ladder."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from msgspec import Struct

from fudge_combat.engine.kernel.errors import InputError


class Ladder(Struct, frozen=True):
    """An ordered set of named levels (C-LAD-1).

    `names` are the levels shown, lowest first; results beyond either end are
    shown as the end name with the excess (C-LAD-4). `extra` are names that
    input accepts but display does not use (fudge7's rare Legendary, Crunch
    Time's Abysmal).
    """

    key: str
    names: tuple[tuple[str, int], ...]
    extra: tuple[tuple[str, int], ...] = ()

    @property
    def lowest(self) -> tuple[str, int]:
        return self.names[0]

    @property
    def highest(self) -> tuple[str, int]:
        return self.names[-1]

    def name(self, value: int) -> str:
        low_name, low = self.lowest
        high_name, high = self.highest
        if value < low:
            return f"{low_name}{value - low}"
        if value > high:
            return f"{high_name}+{value - high}"
        for name, level in self.names:
            if level == value:
                return name
        raise AssertionError(f"ladder {self.key} has a gap at {value}")

    def parse(self, text: str | int) -> int:
        """A level by name (case-insensitive), `Name+N`/`Name-N`, or a signed integer (C-LAD-5)."""
        if isinstance(text, int):
            return text
        return _parse(self, text)


@lru_cache(maxsize=4096, typed=True)  # a replay reads every sheet's levels; a fight's sheets share most of them
def _parse(ladder: Ladder, text: str) -> int:
    """`Ladder.parse` of a text: a pure function of the ladder (a frozen value) and the text."""
    raw = str(text).strip()
    if re.fullmatch(r"[+-]?\d+", raw):
        return int(raw)
    match = re.fullmatch(r"(.*?)([+-]\d+)?", raw)
    assert match is not None
    base, excess = match.group(1).strip().lower(), match.group(2)
    for name, level in ladder.names + ladder.extra:
        if name.lower() == base:
            return level + (int(excess) if excess else 0)
    raise InputError(
        f"unknown level {raw!r} on the {ladder.key} ladder; use one of: "
        + ", ".join(f"{n} ({v:+d})" for n, v in ladder.names + ladder.extra)
        + ", or a signed number"
    )


FUDGE7 = Ladder(
    key="fudge7",
    names=(("Terrible", -3), ("Poor", -2), ("Mediocre", -1), ("Fair", 0),
           ("Good", 1), ("Great", 2), ("Superb", 3)),
    extra=(("Legendary", 4), ("Abysmal", -4)),
)

FATE11 = Ladder(
    key="fate11",
    names=(("Awful", -4), ("Terrible", -3), ("Poor", -2), ("Mediocre", -1),
           ("Average", 0), ("Fair", 1), ("Good", 2), ("Great", 3), ("Superb", 4),
           ("Epic", 5), ("Legendary", 6)),
)

LADDERS = {ladder.key: ladder for ladder in (FUDGE7, FATE11)}


@lru_cache(maxsize=64)
def _house(levels: tuple[tuple[str, int], ...]) -> Ladder:
    return Ladder(key="house", names=levels)


def ladder_of(options: Any) -> Ladder:
    """The ladder a fight's options name: a built-in one, or the house rules' own levels."""
    if options.ladder == "house":
        return _house(tuple(options.ladder_levels))
    return LADDERS[options.ladder]
