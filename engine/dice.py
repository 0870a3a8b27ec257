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


def format_faces(faces: Sequence[int]) -> str:
    return " ".join(FACE_SYMBOL[f] for f in faces)


def commitment(seed: bytes) -> str:
    """The public hash of a secret seed, stored in the log at fight start."""
    return hashlib.sha256(seed).hexdigest()


def derive_faces(seed: bytes, stream: str, draw: int, count: int) -> tuple[int, ...]:
    """The `count` dF faces of generated draw `draw` in `stream` (A-FAIR-1)."""
    faces: list[int] = []
    block = 0
    while len(faces) < count:
        digest = hmac.new(seed, f"{stream}:{draw}:{block}".encode(), hashlib.sha256).digest()
        for byte in digest:
            if byte == 255:  # 255 = 3 * 85: reject so the three faces stay equally likely
                continue
            faces.append(byte % 3 - 1)
            if len(faces) == count:
                break
        block += 1
    return tuple(faces)


def derive_d6(seed: bytes, stream: str, draw: int) -> int:
    """The face of a generated 1d6 (F-TAC-3): bytes of 252 or more are skipped so each face is 1/6."""
    block = 0
    while True:
        digest = hmac.new(seed, f"{stream}:{draw}:{block}".encode(), hashlib.sha256).digest()
        for byte in digest:
            if byte < 252:
                return byte % 6 + 1
        block += 1


Source = Literal["generated", "entered"]
Die = Literal["dF", "d6"]


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll's faces and where they came from (C-DICE-2, C-DICE-3)."""

    faces: tuple[int, ...]
    source: Source
    stream: str | None = None
    draw: int | None = None

    @property
    def total(self) -> int:
        return sum(self.faces)


class Dice(Protocol):
    """What `decide` rolls with: the shell hands in entered faces or a seeded stream."""

    def roll(self, roller: str, count: int, purpose: str, die: Die = "dF") -> Roll: ...


@dataclass
class SeededDice:
    """Generated dice from a fight's secret seed; draws are numbered from `next_draw`."""

    seed: bytes
    stream: str
    next_draw: int = 0

    def roll(self, roller: str, count: int, purpose: str, die: Die = "dF") -> Roll:
        draw = self.next_draw
        self.next_draw += 1
        if die == "d6":
            return Roll((derive_d6(self.seed, self.stream, draw),), "generated", self.stream, draw)
        return Roll(derive_faces(self.seed, self.stream, draw, count), "generated", self.stream, draw)


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

    def roll(self, roller: str, count: int, purpose: str, die: Die = "dF") -> Roll:
        if die == "d6":  # typed Fudge faces never stand for a d6: a typed d6 comes with its command
            if self.fallback is None:
                raise RuleError(f"{roller} needs a {purpose} roll of 1d6: type the face the command asks for")
            return self.fallback.roll(roller, count, purpose, die)
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
            return Roll(tuple(faces), "entered")
        if self.fallback is None:
            raise RuleError(
                f"{roller} needs a {purpose} roll of {count}dF: add --dice {roller}=FACES"
            )
        return self.fallback.roll(roller, count, purpose)

    def unused(self) -> list[str]:
        left = []
        for key, queue in self.by_roller.items():
            if self.used.get(key, 0) < len(queue):
                left.append(key)
        if self.used.get("*", 0) < len(self.anyone):
            left.append("(unnamed)")
        return left
