"""Reading the GM's TOML files (sheets, house rules): one-line errors and bounds the rules never need to pass.

A sheet or house file is copied into the log and read again by every later command, so what it
may hold is bounded here, once, before anything is stored: a wound track of a billion boxes or a
name of a megabyte would otherwise cost memory and time on every read of the fight.
"""

from __future__ import annotations

import math
from typing import Any

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.events.bounds import MAX_NUMBER, MAX_TEXT, Count, Number, Text

MAX_DEPTH = 6  # the deepest a sheet goes is a table in a table holding a list: [weapon] attributes = [...]
MAX_ENTRIES = 200  # keys of a table, items of a list: a sheet lists a few dozen traits at most
MAX_BOXES = 20  # boxes of one wound level or aspect: the rules give 1 to 4
MAX_DIGITS = 4300  # Python's own limit on the digits of an integer read from text (sys.get_int_max_str_digits)

# A text runs to MAX_TEXT characters, a number from -MAX_NUMBER to MAX_NUMBER: the bounds of every event
# (events.bounds), and the same on the models a file is read into, and a stored log read back (a fight's
# options, a joined sheet, as `Number`, `Count` and `Text`): a log re-hashed by someone who can write the
# store is refused where it passes them, as any other alteration, before a rule allocates a billion boxes.
# Counts (boxes, days) are checked against the rules' own smaller bounds when a file is read (check_boxes);
# a stored count is only kept below MAX_NUMBER.


def load_toml(text: str, source: str) -> dict[str, Any]:
    """The TOML of a GM's file, every error one line naming the file; within the bounds above."""
    import tomllib  # only sheets and house rules are TOML: most commands never parse any

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not valid TOML ({exc})") from None
    except ValueError:  # tomllib reads an integer with int(), which refuses more digits than Python's limit
        raise InputError(f"{source}: a number has more than {MAX_DIGITS} digits; numbers run from "
                         f"-{MAX_NUMBER} to {MAX_NUMBER}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise InputError(f"{source}: nested too deeply (at most {MAX_DEPTH} levels of tables and lists)") from None
    _check(data, source, (), 1)
    return data


def _check(value: Any, source: str, where: tuple[str, ...], depth: int) -> None:
    """Refuse a value beyond the bounds, naming its key and the bound."""
    key = repr(".".join(where)) if where else "the file"  # repr: a key may hold a line break or an escape
    if isinstance(value, (dict, list)):
        if depth > MAX_DEPTH:
            raise InputError(f"{source}: {key} is nested too deeply (at most {MAX_DEPTH} levels of tables and lists)")
        if len(value) > MAX_ENTRIES:
            raise InputError(f"{source}: {key} has {len(value)} entries; at most {MAX_ENTRIES}")
        items = value.items() if isinstance(value, dict) else ((str(i), v) for i, v in enumerate(value))
        for name, item in items:
            if len(name) > MAX_TEXT:
                raise InputError(f"{source}: a key in {key} has {len(name)} characters; at most {MAX_TEXT}")
            _check(item, source, (*where, name), depth + 1)
    elif isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise InputError(f"{source}: {key} has {len(value)} characters; at most {MAX_TEXT}")
    elif isinstance(value, bool):
        pass
    elif isinstance(value, (int, float)):
        if not (isinstance(value, int) or math.isfinite(value)) or abs(value) > MAX_NUMBER:
            raise InputError(f"{source}: {key} = {_shown(value)} is out of range; numbers run from "
                             f"-{MAX_NUMBER} to {MAX_NUMBER}")


def _shown(value: int | float) -> str:
    """A number as the error line quotes it: a long one by its first digits and its length."""
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text)} characters)"


def check_boxes(counts: Any, source: str, key: str) -> None:
    """A wound level or an aspect holds 0 to MAX_BOXES boxes."""
    for count in counts:
        if not 0 <= count <= MAX_BOXES:
            raise InputError(f"{source}: {key}: {count} boxes; a level holds 0 to {MAX_BOXES}")


def validation_line(exc: Any, source: str, label: str = "key") -> str:
    """A pydantic ValidationError as one line: the file, the first bad key and what is wrong."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top)"
    return f"{source}: {label} {where!r}: {err['msg'].removeprefix('Value error, ')}"
