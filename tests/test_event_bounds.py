"""A-LOG-2: every number, text and list a stored body holds is bounded, and both decoders hold it to the same bound.

A log re-hashed after an edit verifies its chain, so what its events may hold is bounded on the models
(events.bounds) and derived for the msgspec structs (events.decoder). The places are found by walking the
models' annotations, so a field added later is covered by these tests without a line here:

- no int, str or list of any event, of a model inside one, or of the envelope is left without a bound;
- at each bounded place of each event type (and of the envelope), a body at the bound (each end) is taken by
  both decoders with the same values, and a body just beyond it (and a number of 5,000 digits) is refused
  by both: by msgspec's structs (`Refused`: the caller hands the body to pydantic) and by pydantic, which
  decides, each naming the place.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fudge_combat.events.decoder import Refused, decoder
from fudge_combat.events.derive import Deriver, constraints
from fudge_combat.events.envelope import Recorded
from fudge_combat.events.models import Event
from tests.test_decoder import same

HUGE = "9" * 5000  # a number of 5,000 digits, written into the JSON as it is: past Python's 4,300 of int()
WIDE = "é"  # texts are bounded in characters: a two-byte one shows neither decoder counts bytes


def hints(model: type[BaseModel]) -> dict[str, Any]:
    return typing.get_type_hints(model, include_extras=True)


def split(tp: Any) -> tuple[Any, dict[str, Any]]:
    """An annotation's type and its bounds (`ge`, `le`, `max_length`...), from `Annotated[T, Field(...)]`."""
    if typing.get_origin(tp) is typing.Annotated:
        inner, *extras = typing.get_args(tp)
        bounds = {}
        for constraint in constraints(extras):
            bounds.update(dataclasses.asdict(constraint))
        return inner, bounds
    return tp, {}


def tagged(tp: Any) -> list[type[BaseModel]] | None:
    """The models of a union told apart by `type` (`Event`), or None."""
    if typing.get_origin(tp) is typing.Annotated and any(
            getattr(extra, "discriminator", None) for extra in typing.get_args(tp)[1:]):
        return list(typing.get_args(typing.get_args(tp)[0]))
    return None


def minimal(tp: Any) -> Any:
    """The least JSON value the annotation takes: what the rest of a body holds around the place tried."""
    models = tagged(tp)
    if models is not None:
        return minimal(models[0])
    inner, bounds = split(tp)
    origin, args = typing.get_origin(inner), typing.get_args(inner)
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        return copy.deepcopy(_minimal_model(inner))  # a body of its own, whatever a case then puts in it
    if inner is int:
        return max(bounds.get("ge", 0), min(bounds.get("le", 0), 0))
    if inner is str:
        return ""
    if inner is bool:
        return False
    if origin is Literal:
        return args[0]
    if origin in (Union, types.UnionType):
        return None if type(None) in args else minimal(args[0])
    if origin is tuple:
        return [] if args[-1] is Ellipsis else [minimal(arg) for arg in args]
    if origin is dict:
        return {}
    raise TypeError(f"no minimal value for {tp!r}")


@functools.cache  # the collection asks for each model's body thousands of times, and it is the same each time
def _minimal_model(model: type[BaseModel]) -> dict[str, Any]:
    fields = hints(model)
    value = {info.alias or name: minimal(fields[name]) for name, info in model.model_fields.items()
             if info.is_required()}
    if "type" in model.model_fields:
        value["type"] = model.model_fields["type"].default
    return value


@dataclass(frozen=True)
class Place:
    """A bounded place in a body: its path, values at its bounds, values just beyond them."""

    path: str
    at: tuple[Any, ...]
    beyond: tuple[Any, ...]


def places(tp: Any, path: str = "") -> Iterator[tuple[str, Any, dict[str, Any], Any]]:
    """Every (path, value setter, bounds, inner type) of an annotation, where it carries bounds, at any depth.

    The setter takes a value for the place and gives the whole value of `tp` holding it, the rest minimal."""
    models = tagged(tp)
    if models is not None:
        for model in models:
            yield from places(model, f"{path}<{model.model_fields['type'].default}>")
        return
    inner, bounds = split(tp)
    origin, args = typing.get_origin(inner), typing.get_args(inner)
    if bounds:
        yield path, (lambda value: value), bounds, inner
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        fields = hints(inner)
        for name, info in inner.model_fields.items():
            key = info.alias or name
            for where, put, found, kind in places(fields[name], f"{path}.{key}"):
                yield where, _in_model(inner, key, put), found, kind
    elif origin in (Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                yield from places(arg, path)
    elif origin is tuple and args and args[-1] is Ellipsis:
        for where, put, found, kind in places(args[0], f"{path}[0]"):
            yield where, (lambda value, put=put: [put(value)]), found, kind
    elif origin is tuple:
        for index, arg in enumerate(args):
            for where, put, found, kind in places(arg, f"{path}[{index}]"):
                yield where, _at_index(args, index, put), found, kind


def _in_model(model: type[BaseModel], key: str, put: Any) -> Any:
    return lambda value: {**minimal(model), key: put(value)}


def _at_index(args: tuple[Any, ...], index: int, put: Any) -> Any:
    return lambda value: [put(value) if i == index else minimal(arg) for i, arg in enumerate(args)]


def trials(inner: Any, bounds: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Values at a place's bounds, and just beyond them (HUGE: a number of 5,000 digits)."""
    at: list[Any] = []
    beyond: list[Any] = []
    if "ge" in bounds:
        at.append(bounds["ge"])
        beyond.append(bounds["ge"] - 1)
    if "le" in bounds:
        at.append(bounds["le"])
        beyond += [bounds["le"] + 1, HUGE]
    if "max_length" in bounds:
        if inner is str:
            at.append(WIDE * bounds["max_length"])
            beyond.append(WIDE * (bounds["max_length"] + 1))
        else:
            item = minimal(typing.get_args(inner)[0])
            at.append([item] * bounds["max_length"])
            beyond.append([item] * (bounds["max_length"] + 1))
    assert at and beyond and set(bounds) <= {"ge", "le", "max_length"}, bounds
    return tuple(at), tuple(beyond)


def body(data: dict[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=False)
    return text.replace(json.dumps(HUGE), HUGE)  # the number itself, not a text of digits


def cases() -> dict[str, list[tuple[str, dict[str, Any], bool]]]:
    """Each bounded place of each event type (through the envelope's `event`) and of the envelope, by type: a whole
    body at or past the place's bound, the rest of it minimal."""
    out: dict[str, list[tuple[str, dict[str, Any], bool]]] = {}
    for path, put, bounds, inner in places(Recorded):
        kind = path.split("<")[1].split(">")[0] if "<" in path else "envelope"
        at, beyond = trials(inner, bounds)
        out.setdefault(kind, []).extend([(path, put(value), True) for value in at]
                                        + [(path, put(value), False) for value in beyond])
    return out


CASES = cases()


def test_every_event_type_has_bounded_places_tried() -> None:
    """The walk reaches every event type (each holds a bounded place: its `v` at least) and the envelope."""
    assert set(CASES) == {model.model_fields["type"].default for model in tagged(Event) or []} | {"envelope"}
    assert {path for path, _, _ in CASES["envelope"]} >= {".seq", ".fight", ".schema"}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_both_decoders_take_the_bound_and_refuse_past_it(kind: str) -> None:
    for path, data, taken in CASES[kind]:
        text = body(data)
        if taken:
            record = Recorded.model_validate_json(text)
            assert same(record, decoder()(text)), (path, text[:300])
            continue
        with pytest.raises(Refused) as by_msgspec:
            decoder()(text)
        with pytest.raises(ValidationError) as by_pydantic:
            Recorded.model_validate_json(text)
        if HUGE not in text:  # JSON's own refusal of a number past its range names no field
            last = path.rsplit(".", 1)[-1].split("[")[0]  # the field named by both refusals
            assert last in str(by_msgspec.value), (path, by_msgspec.value)
            assert any(last in map(str, error["loc"]) for error in by_pydantic.value.errors()), (path, by_pydantic.value)


def unbounded(tp: Any, path: str = "") -> Iterator[str]:
    """Every place of an annotation that holds an int, a text or a list with no bound on it."""
    models = tagged(tp)
    if models is not None:
        for model in models:
            yield from unbounded(model, f"{path}<{model.model_fields['type'].default}>")
        return
    inner, bounds = split(tp)
    origin, args = typing.get_origin(inner), typing.get_args(inner)
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        fields = hints(inner)
        for name in inner.model_fields:
            yield from unbounded(fields[name], f"{path}.{name}")
    elif inner in (int, str) and not bounds:
        yield path
    elif origin in (Union, types.UnionType):
        for arg in args:
            yield from unbounded(arg, path)
    elif origin is tuple:
        if args and args[-1] is Ellipsis and not bounds:
            yield f"{path}[...]"
        for index, arg in enumerate(args[:-1] if args[-1] is Ellipsis else args):
            yield from unbounded(arg, f"{path}[{index}]")


def test_no_number_text_or_list_of_a_stored_body_is_unbounded() -> None:
    """A new field of an event is given a bound of events.bounds (a `dict[str, Any]` is bounded by the model that
    reads it: a fight's options by RuleOptions, a joined sheet by Sheet, a command by its own)."""
    assert list(unbounded(Recorded)) == []


def test_the_walk_finds_an_unbounded_field() -> None:
    """The check above can fail: a model with a plain int, text and list is found out, place by place."""
    class Loose(BaseModel):
        count: int
        name: str | None = None
        faces: tuple[int, ...] = ()

    assert list(unbounded(Loose)) == [".count", ".name", ".faces[...]", ".faces[0]"]


def test_a_constraint_the_decoder_cannot_carry_is_not_derived() -> None:
    """A bound given as a field's default (not in its annotation) or one msgspec has no `Meta` for (a pattern)
    would be pydantic's alone: the deriver refuses the model rather than decode more than the models take."""
    class AsDefault(BaseModel):
        model_config = ConfigDict(frozen=True, extra="forbid")
        count: int = Field(default=0, ge=0)

    class Patterned(BaseModel):
        model_config = ConfigDict(frozen=True, extra="forbid")
        name: Annotated[str, Field(pattern="^[a-z]+$")]

    with pytest.raises(TypeError, match="as a default"):
        Deriver().struct(AsDefault)
    with pytest.raises(TypeError, match="no derived decoder"):
        Deriver().struct(Patterned)
