"""A second decoder of stored bodies: msgspec structs with the pydantic models' fields (events.structs).

Why: a replay from scratch validates every row, and pydantic-core takes several times as long to build a
record as msgspec takes to decode and validate the same JSON into structs (bench/README.md, replay). The
pydantic models stay the one schema: every struct is written from a model's fields by events.derive (its
docstring says what is derived and what is refused), none by hand, and tests/test_decoder.py fails while
events/structs.py is not the one the models give.

What it accepts is a subset of what the models accept, decoded to the same values:
- the types map one for one (str, int, bool, None, `Literal`, tuples, `dict[str, Any]`, nested models,
  the event union by its `type` tag), unknown fields refused, a left-out field the model's default;
- msgspec is strict where pydantic's JSON mode is lax (a number for a string, `"3"` or `3.0` for an
  int, `1` for a bool, `NaN`): such a body is refused here (`Refused`) and the caller hands it to
  pydantic, which decides. A body this decoder takes is one pydantic takes too, with the same value in
  every field (tests/test_decoder.py: every golden log, random fights, and fuzzed bodies both ways);
- the models' bounds (events.bounds) are msgspec's `Meta` on the same types, at any depth: a body beyond
  one is refused by both decoders alike, and one at the bound taken by both (tests/test_event_bounds.py).

A struct has the fields of its model under the same names, and an event's struct answers `type` like
the model, so code that only reads an event's fields reads either (projections.rebuild). Decoding loads
no pydantic model: a process that only reads the log builds none.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import msgspec

from fudge_combat.events import structs as _structs

if TYPE_CHECKING:
    from pydantic import BaseModel

Refused = (msgspec.ValidationError, msgspec.DecodeError)


@lru_cache(maxsize=1)
def structs() -> dict[type[msgspec.Struct], type[BaseModel]]:
    """Every derived struct, with the model it was derived from (this imports the models)."""
    found = {}
    for struct, where in _structs.MODELS.items():
        module, _, name = where.rpartition(".")
        found[struct] = getattr(importlib.import_module(module), name)
    return found


@lru_cache(maxsize=1)
def _decoder() -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(_structs.Recorded)


def decoder() -> Callable[[str | bytes], Any]:
    """The decode function: a body to its envelope's struct (the `event` field an event's struct), or
    one of `Refused` raised; pydantic then decides (it may take what msgspec's strict types refuse)."""
    return _decoder().decode
