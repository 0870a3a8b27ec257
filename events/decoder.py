"""A second decoder of stored bodies, derived from the pydantic models: msgspec structs made from their fields.

Why: a replay from scratch validates every row, and pydantic-core takes several times as long to build a
record as msgspec takes to decode and validate the same JSON into structs (bench/README.md, replay). The pydantic models stay the one schema: every struct here is generated from a model's
fields (`model_fields`: each field's type, alias and default; `extra="forbid"`), none is written by hand.

What it accepts is a subset of what the models accept, decoded to the same values:
- the types map one for one (str, int, bool, None, `Literal`, tuples, `dict[str, Any]`, nested models,
  the event union by its `type` tag), unknown fields refused, a left-out field the model's default;
- msgspec is strict where pydantic's JSON mode is lax (a number for a string, `"3"` or `3.0` for an
  int, `1` for a bool, `NaN`): such a body is refused here (`Refused`) and the caller hands it to
  pydantic, which decides. A body this decoder takes is one pydantic takes too, with the same value in
  every field (tests/test_decoder.py: every golden log, random fights, and fuzzed bodies both ways).

The models' bounds (events.bounds: `Annotated[int, Field(ge=..., le=...)]`, a text's or a list's
`max_length`) are derived as msgspec's `Meta` on the same type, at any depth: a body beyond one is refused
by both decoders alike, and one at the bound taken by both (tests/test_event_bounds.py, every bounded
place of every model). A constraint this decoder cannot translate, one given as a field's default
(`x: int = Field(ge=0)`, not in the annotation), a validator or a default factory is not derived:
`_Deriver` refuses it, so a new one cannot be added without this decoder learning it.

A struct has the fields of its model under the same names, and an event's struct answers `type` like
the model, so code that only reads an event's fields reads either (projections.rebuild).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal, Union

import annotated_types
import msgspec
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from fudge_combat.events.envelope import Recorded
from fudge_combat.events.models import Event

Refused = (msgspec.ValidationError, msgspec.DecodeError)

# pydantic's constraints (annotated_types, as `Field(ge=..., max_length=...)` records them) and msgspec's `Meta`
# keyword for each: the same bound, inclusive or not, on a number, or on the length of a text or a list.
_META = {annotated_types.Ge: "ge", annotated_types.Le: "le", annotated_types.Gt: "gt", annotated_types.Lt: "lt",
         annotated_types.MinLen: "min_length", annotated_types.MaxLen: "max_length"}


def constraints(extras: Any) -> list[Any]:
    """The constraints in an annotation's metadata (`Annotated[T, *extras]`): each `Field(...)`'s own, in order."""
    found: list[Any] = []
    for extra in extras:
        found += extra.metadata if isinstance(extra, FieldInfo) else [extra]
    return found


def meta(found: list[Any], where: Any) -> msgspec.Meta:
    """msgspec's `Meta` for pydantic's constraints; a constraint with no counterpart is refused."""
    bounds: dict[str, Any] = {}
    for constraint in found:
        key = _META.get(type(constraint))
        if key is None:
            raise TypeError(f"{where!r}: the constraint {constraint!r} has no derived decoder")
        bounds[key] = getattr(constraint, key)
    return msgspec.Meta(**bounds)


class _Deriver:
    """Walks the models' annotations once: a struct per model."""

    def __init__(self) -> None:
        self.structs: dict[type[BaseModel], type[msgspec.Struct]] = {}

    def annotation(self, tp: Any) -> Any:
        """The msgspec type for a model's annotation."""
        if tp in (str, int, bool, type(None)) or tp is Any:
            return tp
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            return self.struct(tp)
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Annotated and any(getattr(extra, "discriminator", None) for extra in args[1:]):
            return self.tagged(tp)
        if origin is typing.Annotated:  # a bound (events.bounds): the same on msgspec's type
            return typing.Annotated[self.annotation(args[0]), meta(constraints(args[1:]), tp)]
        if origin is Literal and all(type(arg) in (str, int) for arg in args):
            return tp
        if origin in (Union, types.UnionType):
            return Union[tuple(self.annotation(arg) for arg in args)]
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return tuple[self.annotation(args[0]), ...]  # type: ignore[misc]  # a type built at run time, not one to check
        if origin is tuple:
            return tuple[tuple(self.annotation(arg) for arg in args)]  # type: ignore[misc]  # a type built at run time
        if origin is dict and args == (str, Any):
            return dict[str, Any]
        raise TypeError(f"{tp!r} has no derived decoder")

    def tagged(self, tp: Any) -> Any:
        """A union of models told apart by their `type` field (`Field(discriminator="type")`): msgspec's
        tagged union of their structs."""
        union, *extras = typing.get_args(tp)
        if [getattr(extra, "discriminator", None) for extra in extras] != ["type"]:
            raise TypeError(f"{tp!r} is not a union tagged by `type`")
        return Union[tuple(self.struct(model, tag=model.model_fields["type"].default)
                           for model in typing.get_args(union))]

    def struct(self, model: type[BaseModel], tag: str | None = None) -> type[msgspec.Struct]:
        if model in self.structs:
            return self.structs[model]
        decorators = model.__pydantic_decorators__
        if (decorators.field_validators or decorators.model_validators or decorators.validators
                or decorators.root_validators):
            raise TypeError(f"{model.__name__} has a validator of its own: it cannot be derived")
        if model.model_config.get("extra") != "forbid":
            raise TypeError(f"{model.__name__} does not forbid unknown fields")
        hints = typing.get_type_hints(model, include_extras=True)
        fields: list[tuple[Any, ...]] = []
        for name, info in model.model_fields.items():
            if name == "type" and tag is not None:
                continue  # the union's tag: msgspec checks it; the struct's class answers it (below)
            hint = hints[name]
            derived = self.annotation(hint)  # the hint, bounds and all: pydantic's own are those it writes
            written = constraints(typing.get_args(hint)[1:]) if typing.get_origin(hint) is typing.Annotated else []
            if list(map(repr, info.metadata)) != list(map(repr, written)) or info.default_factory is not None:
                raise TypeError(f"{model.__name__}.{name}: a constraint given as a default, not in the annotation, "
                                "or a default factory is not derived")
            key = info.alias or name
            if info.is_required():
                fields.append((name, derived, msgspec.field(name=key)))
            else:
                fields.append((name, derived, msgspec.field(default=self.default(info.default), name=key)))
        struct = msgspec.defstruct(model.__name__, fields, kw_only=True, frozen=True, forbid_unknown_fields=True,
                                   tag_field="type" if tag is not None else None, tag=tag,
                                   namespace={"type": tag} if tag is not None else None)
        self.structs[model] = struct
        return struct

    def default(self, value: Any) -> Any:
        """A model's default as its struct holds it: a model instance becomes its struct."""
        if isinstance(value, BaseModel):
            return msgspec.convert(value.model_dump(), self.struct(type(value)))
        return value


@lru_cache(maxsize=1)
def _derived() -> tuple[msgspec.json.Decoder[Any], dict[type[msgspec.Struct], type[BaseModel]]]:
    deriver = _Deriver()
    deriver.tagged(Event)
    record = deriver.struct(Recorded)
    return msgspec.json.Decoder(record), {struct: model for model, struct in deriver.structs.items()}


def structs() -> dict[type[msgspec.Struct], type[BaseModel]]:
    """Every derived struct, with the model it was derived from."""
    return _derived()[1]


def decoder() -> Callable[[str | bytes], Any]:
    """The decode function: a body to its envelope's struct (the `event` field an event's struct), or
    one of `Refused` raised; pydantic then decides (it may take what msgspec's strict types refuse)."""
    return _derived()[0].decode
