"""Bounds on every number, text and list an event or a GM's file may hold: far beyond what the rules need.

A log is read again by every command, and a log may come from anywhere: a store someone else can write,
an export handed over. Its hash chain proves only that nobody changed it since it was hashed, so a log
re-hashed after an edit verifies; what it may hold is therefore bounded here, once, on the models
themselves (events.models, and the sheets and house rules, engine.kernel.inputs), before a rule counts to a
trillion, allocates a list of a billion boxes or prints a number of 5,000 digits. A body beyond a bound
is refused as any altered event is (`fudge verify` names it), and both decoders of a stored body refuse
it alike (events.derive writes these constraints into the decoder's structs from the same annotations).

The bounds are generous, so that no fight the rules can play reaches one: a fight log written by any
version reads as before (tests/test_stored_rows.py, tests/test_decoder.py).
"""

from __future__ import annotations

from typing import Annotated, TypeVar

from pydantic import Field

MAX_NUMBER = 1000  # no rule reads a number (a level, a penalty, a count of days) beyond ±1000
MAX_TOTAL = 1_000_000  # what the rules add up from such numbers (a result, a margin, damage): hundreds of them
MAX_SEQ = 2**62  # an event's number, as the stores number them (a signed 64-bit column)
MAX_SIDES = 256  # the most sides of a die the generator throws (engine.kernel.dice.derive_faces)
MAX_DICE = 100  # dice in one roll: the rules throw at most 8 at once (CT-TABLE), plus fixed and bonus ones
MAX_ITEMS = 1000  # items of a list in an event: combatants, sides, hits, modifiers, voided events
MAX_TEXT = 200  # characters of a name, a key or any other text of a GM's file
MAX_NOTE = 1000  # characters of a text the rules compose from names and words (a reason, a note, a purpose)

Number = Annotated[int, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
Count = Annotated[int, Field(ge=0, le=MAX_NUMBER)]
Total = Annotated[int, Field(ge=-MAX_TOTAL, le=MAX_TOTAL)]
Version = Annotated[int, Field(ge=1, le=MAX_NUMBER)]  # an event's `v`, an envelope's schema
Seq = Annotated[int, Field(ge=1, le=MAX_SEQ)]  # an event's number: an action, what a re-resolution voids
Serial = Annotated[int, Field(ge=0, le=MAX_SEQ)]  # a number that grows with the log: a round, a scene, a draw
Sides = Annotated[int, Field(ge=1, le=MAX_SIDES)]
Face = Annotated[int, Field(ge=-2, le=MAX_SIDES)]  # a Fudge die -1..+1 (a phase die -2..+2), a dN 1..N
Bit = Annotated[int, Field(ge=0, le=1)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Note = Annotated[str, Field(max_length=MAX_NOTE)]

T = TypeVar("T")
Items = Annotated[tuple[T, ...], Field(max_length=MAX_ITEMS)]
Faces = Annotated[tuple[Face, ...], Field(max_length=MAX_DICE)]
