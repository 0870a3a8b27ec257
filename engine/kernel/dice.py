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
from typing import Literal, Protocol

from msgspec import Struct, field

from fudge_combat.engine.kernel.errors import InputError, RuleError

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


# C-DICE-4: the Fudge SRD's charts for tables without Fudge dice, as (highest total, 4dF result).
SUBSTITUTE_CHARTS: dict[str, tuple[tuple[int, int], ...]] = {
    "3d6": ((4, -4), (5, -3), (7, -2), (9, -1), (11, 0), (13, 1), (15, 2), (16, 3), (18, 4)),
    "d%": ((1, -4), (6, -3), (18, -2), (38, -1), (62, 0), (82, 1), (94, 2), (99, 3), (100, 4)),
}


class Substituted(tuple[int, ...]):
    """Fudge faces standing for a 3d6 or d% roll typed at the table (C-DICE-4); `typed` is what was typed."""

    typed: str

    def __new__(cls, faces: tuple[int, ...], typed: str) -> Substituted:
        made = super().__new__(cls, faces)
        made.typed = typed
        return made


def faces_for(total: int) -> tuple[int, ...]:
    """The plainest four Fudge faces with this sum: +2 is `+ + 0 0`."""
    sign = 1 if total > 0 else -1
    return tuple([sign] * abs(total) + [0] * (4 - abs(total)))


def parse_substitute(text: str) -> Substituted | None:
    """`3d6:4 5 6` (three dice, or their total) or `d%:57` (00 is 100) read on the SRD chart; None if not one."""
    match = re.fullmatch(r"\s*(3d6|d%)\s*[:=]?\s*(.*?)\s*", text, flags=re.IGNORECASE)
    if match is None:
        return None
    kind, rest = match.group(1).lower(), match.group(2)
    parts = [p for p in re.split(r"[\s,]+", rest) if p]
    if not parts or not all(p.isdigit() for p in parts):
        raise InputError(f"type {kind} as '3d6:4 5 6' (or its total, '3d6:15') or 'd%:57'")
    numbers = [int(p) for p in parts]
    if kind == "3d6":
        if len(numbers) == 3 and all(1 <= n <= 6 for n in numbers):
            total = sum(numbers)
        elif len(numbers) == 1 and 3 <= numbers[0] <= 18:
            total = numbers[0]
        else:
            raise InputError(f"3d6 is three dice of 1..6 or a total of 3..18, not {rest!r}")
    else:
        if len(numbers) != 1 or not 0 <= numbers[0] <= 100:
            raise InputError(f"d% is one number 1..100 (00 is 100), not {rest!r}")
        total = numbers[0] or 100
    result = next(value for highest, value in SUBSTITUTE_CHARTS[kind] if total <= highest)
    return Substituted(faces_for(result), f"{kind} {' '.join(parts)}")


def parse_entered(text: str) -> tuple[int, ...]:
    """Typed faces of any die: Fudge faces as `parse_faces` reads them, or plain numbers (`3 5 6` for 3d6).

    `3d6:...` and `d%:...` are C-DICE-4 substitutes for a 4dF roll. Which die the faces are for is
    known only when a rule rolls: `EnteredDice` checks the faces then.
    """
    substitute = parse_substitute(text)
    if substitute is not None:
        return substitute
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


class Roll(Struct, frozen=True):
    """One roll's faces and where they came from (C-DICE-2, C-DICE-3)."""

    faces: tuple[int, ...]
    source: Source
    stream: str | None = None
    draw: int | None = None
    sides: int | None = None  # None: Fudge dice (C-DICE-1); 6: d6 (C-DICE-5)
    substitute: str | None = None  # C-DICE-4: the 3d6 or d% typed in place of 4dF

    @property
    def total(self) -> int:
        return sum(self.faces)


class Dice(Protocol):
    """What `decide` rolls with: the shell hands in entered faces or a seeded stream."""

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll: ...


class SeededDice(Struct):
    """Generated dice from a fight's secret seed; draws are numbered from `next_draw`."""

    seed: bytes
    stream: str
    next_draw: int = 0

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll:
        draw = self.next_draw
        self.next_draw += 1
        return Roll(derive_faces(self.seed, self.stream, draw, count, sides), "generated", self.stream, draw, sides)


def article(word: str) -> str:
    """`a` or `an` before a word a GM reads (an Axe roll, a Sword roll): by its first letter."""
    return "an" if word[:1].lower() in "aeiou" and word[:1] else "a"


class EnteredDice(Struct):
    """Faces typed at the table, per roller, used in order; the rest fall back.

    `fallback` is None when every roll must be entered: a missing roll is then
    an error that says which dice to type.
    """

    by_roller: Mapping[str, Sequence[tuple[int, ...]]] = field(default_factory=dict)
    anyone: Sequence[tuple[int, ...]] = ()
    fallback: Dice | None = None
    used: dict[str, int] = field(default_factory=dict)
    substitutes: bool = False  # C-DICE-4: 3d6 and d% may stand for 4dF
    rolled: dict[str, list[str]] = field(default_factory=dict)  # roller -> purposes, typed or not: who rolled

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll:
        key = roller.lower()
        self.rolled.setdefault(key, []).append(purpose)
        queue = self.by_roller.get(key)
        source_key = key
        if queue is None:
            queue, source_key = self.anyone, "*"
        index = self.used.get(source_key, 0)
        if index < len(queue):
            faces = queue[index]
            self.used[source_key] = index + 1
            if isinstance(faces, Substituted):
                if not self.substitutes:
                    raise InputError(f"{faces.typed} was typed for {roller}'s {purpose} roll: this fight takes "
                                     "Fudge dice only (house rule dice_substitutes = true allows 3d6 and d%, C-DICE-4)")
                if count != 4 or sides is not None:
                    raise InputError(f"{faces.typed} stands for 4dF; {roller}'s {purpose} roll is "
                                     f"{count}{'dF' if sides is None else f'd{sides}'} (C-DICE-4)")
                return Roll(tuple(faces), "entered", substitute=faces.typed)
            if len(faces) != count:
                raise InputError(
                    f"{roller}'s {purpose} roll needs {count} dice, {len(faces)} were entered"
                )
            check_faces(faces, sides, f"{roller}'s {purpose} roll")
            return Roll(tuple(faces), "entered", sides=sides)
        if self.fallback is None:
            raise RuleError(
                f"{roller} needs {article(purpose)} {purpose} roll of {count}{'dF' if sides is None else f'd{sides}'}: "
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
