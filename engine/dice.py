"""C-DICE and A-FAIR: Fudge dice, entered faces, and provably fair generation.

Generated faces are derived, never drawn from a global generator: face `i` of
draw `d` in stream `s` comes from HMAC-SHA256(seed, "s:d:block") bytes, with
rejection sampling (a byte of 255 is skipped) so each of -1, 0, +1 has
probability exactly 1/3. Anyone holding the revealed seed re-derives every
generated roll (A-FAIR-1); before the reveal only `commitment(seed)` is public.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from engine.errors import InputError, RuleError

FACE_SYMBOL = {1: "+", 0: "0", -1: "-"}


def parse_faces(text: str) -> tuple[int, ...]:
    """Faces as typed at the table: `+ - 0 +`, `+-0+`, `1,-1,0,1` (C-DICE-3)."""
    raw = text.strip()
    if not raw:
        raise InputError("no dice faces given; type them like '+ - 0 +' or '1,-1,0,1'")
    if re.fullmatch(r"[+\-0\s,]+", raw) and not re.search(r"[+-]1|1", raw):
        faces = [{"+": 1, "-": -1, "0": 0}[c] for c in raw if c in "+-0"]
    else:
        parts = [p for p in re.split(r"[\s,]+", raw) if p]
        try:
            faces = [int(p) for p in parts]
        except ValueError:
            raise InputError(
                f"cannot read dice faces {text!r}; type them like '+ - 0 +', '+-0+' or '1,-1,0,1'"
            ) from None
        if any(f not in (-1, 0, 1) for f in faces):
            raise InputError(f"a Fudge die shows -1, 0 or +1, not {text!r}")
    return tuple(faces)


def parse_entered(text: str) -> tuple[int, ...]:
    """Typed faces of any die: Fudge faces as `parse_faces` reads them, or plain numbers (`3 5 6` for 3d6).

    Which die they are for is known only when a rule rolls: `EnteredDice` checks the faces then.
    """
    try:
        return parse_faces(text)
    except InputError as fudge_error:
        parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
        if parts and all(p.isdigit() and int(p) >= 1 for p in parts):
            return tuple(int(p) for p in parts)
        raise fudge_error from None


def check_faces(faces: Sequence[int], sides: int | None, what: str) -> None:
    """Entered faces must be faces of the die rolled: dF -1..+1, dN 1..N."""
    low, high = (-1, 1) if sides is None else (1, sides)
    if any(not low <= f <= high for f in faces):
        die = "a Fudge die shows -1, 0 or +1" if sides is None else f"a d{sides} shows 1..{sides}"
        raise InputError(f"{what}: {die}, not {' '.join(str(f) for f in faces)}")


def format_faces(faces: Sequence[int], sides: int | None = None) -> str:
    if sides is not None:
        return " ".join(str(f) for f in faces)
    return " ".join(FACE_SYMBOL[f] for f in faces)


def commitment(seed: bytes) -> str:
    """The public hash of a secret seed, stored in the log at fight start."""
    return hashlib.sha256(seed).hexdigest()


def derive_faces(seed: bytes, stream: str, draw: int, count: int, sides: int | None = None) -> tuple[int, ...]:
    """The `count` faces of generated draw `draw` in `stream` (A-FAIR-1): dF, or dN when `sides` is given."""
    faces: list[int] = []
    block = 0
    width = 3 if sides is None else sides
    limit = 256 - 256 % width  # bytes at or above a multiple of the faces are rejected: every face equally likely
    while len(faces) < count:
        digest = hmac.new(seed, f"{stream}:{draw}:{block}".encode(), hashlib.sha256).digest()
        for byte in digest:
            if byte >= limit:  # dF: 255 = 3 * 85 is rejected
                continue
            faces.append(byte % 3 - 1 if sides is None else byte % width + 1)
            if len(faces) == count:
                break
        block += 1
    return tuple(faces)


Source = Literal["generated", "entered"]


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll's faces and where they came from (C-DICE-2, C-DICE-3)."""

    faces: tuple[int, ...]
    source: Source
    stream: str | None = None
    draw: int | None = None
    sides: int | None = None  # None: Fudge dice (C-DICE-1); 6: d6 (C-DICE-5)

    @property
    def total(self) -> int:
        return sum(self.faces)


class Dice(Protocol):
    """What `decide` rolls with: the shell hands in entered faces or a seeded stream."""

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll: ...


@dataclass
class SeededDice:
    """Generated dice from a fight's secret seed; draws are numbered from `next_draw`."""

    seed: bytes
    stream: str
    next_draw: int = 0

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll:
        draw = self.next_draw
        self.next_draw += 1
        return Roll(derive_faces(self.seed, self.stream, draw, count, sides), "generated", self.stream, draw, sides)


@dataclass
class EnteredDice:
    """Faces typed at the table, per roller, used in order; the rest fall back.

    `fallback` is None when every roll must be entered: a missing roll is then
    an error that says which dice to type.
    """

    by_roller: Mapping[str, Sequence[tuple[int, ...]]] = field(default_factory=dict)
    anyone: Sequence[tuple[int, ...]] = ()
    fallback: Dice | None = None
    used: dict[str, int] = field(default_factory=dict)

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll:
        key = roller.lower()
        queue = self.by_roller.get(key)
        source_key = key
        if queue is None:
            queue, source_key = self.anyone, "*"
        index = self.used.get(source_key, 0)
        if index < len(queue):
            faces = queue[index]
            self.used[source_key] = index + 1
            if len(faces) != count:
                raise InputError(
                    f"{roller}'s {purpose} roll needs {count} dice, {len(faces)} were entered"
                )
            check_faces(faces, sides, f"{roller}'s {purpose} roll")
            return Roll(tuple(faces), "entered", sides=sides)
        if self.fallback is None:
            raise RuleError(
                f"{roller} needs a {purpose} roll of {count}{'dF' if sides is None else f'd{sides}'}: "
                f"add --dice {roller}=FACES"
            )
        if sides is None:
            return self.fallback.roll(roller, count, purpose)
        return self.fallback.roll(roller, count, purpose, sides=sides)

    def unused(self) -> list[str]:
        left = []
        for key, queue in self.by_roller.items():
            if self.used.get(key, 0) < len(queue):
                left.append(key)
        if self.used.get("*", 0) < len(self.anyone):
            left.append("(unnamed)")
        return left
