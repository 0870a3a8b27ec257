"""Writes events/structs.py: a msgspec struct for every pydantic model of a stored body, as Python source.

    python -m fudge_combat.events.derive          # write events/structs.py again after a model changed
    python -m fudge_combat.events.derive --check  # exit 1 if the file written is not the one the models give

The pydantic models (events.models, events.envelope) are the one schema of the log. The engine decides, folds
and shows the events as msgspec structs with the same fields (events.records reads and writes them; the
decoder, events.decoder, reads a body several times faster than pydantic-core builds a record). Those
structs are derived from the models, field by field, none written by hand; they used to be derived as each
process started, which needed every pydantic model built first. Written ahead of time, a command builds no
event model at all (a pydantic class costs about half a millisecond to create), and tests/test_decoder.py
fails while the file is not the one the models give.

What is derived, and how (a model that needs anything else is refused, so a new one cannot be added without
this learning it):
- the types map one for one: str, int, bool, None, `Any`, `Literal` of texts and numbers, unions,
  tuples, `dict[str, Any]`, nested models (their own structs), the event union by its `type` tag;
- the models' bounds (events.bounds: `Annotated[int, Field(ge=..., le=...)]`, a text's or a list's
  `max_length`) become msgspec's `Meta` on the same type, at any depth; a constraint given as a field's
  default (`x: int = Field(ge=0)`, not in the annotation), one with no `Meta` (a pattern), a validator of
  the model's own or a default factory is refused;
- unknown fields are refused (`extra="forbid"`), a field left out takes the model's default, an alias is
  the stored name (`schema`), and an event's struct answers `type` as its class does.
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union

import annotated_types
from pydantic import AfterValidator, BaseModel, BeforeValidator, PlainSerializer, PlainValidator, WrapSerializer, WrapValidator
from pydantic.fields import FieldInfo

TARGET = Path(__file__).with_name("structs.py")

# pydantic's constraints (annotated_types, as `Field(ge=..., max_length=...)` records them) and msgspec's `Meta`
# keyword for each: the same bound, inclusive or not, on a number, or on the length of a text or a list.
_META = {annotated_types.Ge: "ge", annotated_types.Le: "le", annotated_types.Gt: "gt", annotated_types.Lt: "lt",
         annotated_types.MinLen: "min_length", annotated_types.MaxLen: "max_length"}

HEADER = '''"""The log's events and records as msgspec structs, the values the engine holds: written by `python -m
fudge_combat.events.derive` from the pydantic models (events.models, events.envelope), which are the schema. Do
not edit: change a model, then write this again (tests/test_decoder.py fails until it is). Why and how:
events.derive."""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field
'''


def constraints(extras: Any) -> list[Any]:
    """The constraints in an annotation's metadata (`Annotated[T, *extras]`): each `Field(...)`'s own, in order."""
    found: list[Any] = []
    for extra in extras:
        found += extra.metadata if isinstance(extra, FieldInfo) else [extra]
    return found


# A model's own conversions of a field's value (pydantic's functional validators and serializers): run where the
# model reads a file or a request (`edge`), so not the struct's, which holds what they give.
_FUNCTIONAL = (AfterValidator, BeforeValidator, PlainValidator, WrapValidator, PlainSerializer, WrapSerializer)


# Where two constraints bound the same thing (a field's own `Field(min_length=1)` on a `Text`), pydantic checks
# both: the tighter one decides, and msgspec's one `Meta` holds that one.
_TIGHTER = {"ge": max, "gt": max, "min_length": max, "le": min, "lt": min, "max_length": min}


def meta(found: list[Any], where: Any) -> str:
    """msgspec's `Meta` for pydantic's constraints, as source; a constraint with no counterpart is refused."""
    bounds: dict[str, Any] = {}
    for constraint in found:
        key = _META.get(type(constraint))
        if key is None:
            raise TypeError(f"{where!r}: the constraint {constraint!r} has no derived decoder")
        value = getattr(constraint, key)
        bounds[key] = _TIGHTER[key](bounds[key], value) if key in bounds else value
    return f"Meta({', '.join(f'{key}={value!r}' for key, value in bounds.items())})"


class Deriver:
    """Walks the models' annotations once, writing a struct's class per model (the nested ones first).

    `edge`: the models validate what a file or a request gives (their own validators included) before the engine
    holds it as their structs, which take a stored value already validated: a model with validators of its own is
    then derived (its struct checks the types and bounds), and a dict's or a list's default factory is kept.
    The log's models are derived without it: a stored body is checked by the struct alone."""

    def __init__(self, unions: dict[str, Any] | None = None, edge: bool = False,
                 known: dict[type[BaseModel], str] | None = None, constants: dict[str, Any] | None = None,
                 marks: tuple[type, ...] = (), untracked: bool = False) -> None:
        self.edge = edge
        # The structs are not tracked by the cyclic collector (msgspec's `gc=False`): values of a fight's state,
        # frozen trees of texts, numbers and containers of them, which never hold a cycle; a roster of hundreds
        # holds thousands, which every full collection would walk.
        self.untracked = untracked
        self.marks = marks  # the classes of marks an annotation may hold beside its bounds: written by their repr
        self.known = dict(known or {})  # models derived in another module: the name their struct is imported by
        self.constants = {id(value): name for name, value in (constants or {}).items()}  # defaults named once
        self.written_constants: list[str] = []
        self.names: dict[type[BaseModel], str] = {}
        self.classes: list[str] = []
        self.unions = {id(tp): name for name, tp in (unions or {}).items()}
        self.written_unions: list[str] = []

    def annotation(self, tp: Any, extra: list[Any] | None = None) -> str:
        """The source of the msgspec type for a model's annotation; `extra`: the constraints a field gives as its
        default (`Field(default=None, ge=0)`), which pydantic checks on the value, not on its `None`."""
        if extra:
            return self.bounded(tp, extra)
        if tp in (str, int, bool) or tp is Any:
            return "Any" if tp is Any else tp.__name__
        if tp is type(None):
            return "None"
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            return self.known.get(tp) or self.struct(tp)
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Annotated and any(getattr(extra, "discriminator", None) for extra in args[1:]):
            return self.tagged(tp)
        if origin is typing.Annotated:  # a bound (events.bounds): the same on msgspec's type; a mark kept as it is
            return self.annotated(args[0], constraints(args[1:]), tp)
        if origin is Literal and all(type(arg) in (str, int) for arg in args):
            return f"Literal[{', '.join(map(repr, args))}]"
        if origin in (Union, types.UnionType):
            return " | ".join(self.annotation(arg) for arg in args)
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return f"tuple[{self.annotation(args[0])}, ...]"
        if origin is tuple:
            return f"tuple[{', '.join(self.annotation(arg) for arg in args)}]"
        if origin is dict and args == (str, Any):
            return "dict[str, Any]"
        if origin is dict and self.edge:
            return f"dict[{self.annotation(args[0])}, {self.annotation(args[1])}]"
        raise TypeError(f"{tp!r} has no derived decoder")

    def bounded(self, tp: Any, extra: list[Any]) -> str:
        """The type with a field's own constraints added to those its annotation holds."""
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in (Union, types.UnionType) and type(None) in args:
            return " | ".join("None" if arg is type(None) else self.bounded(arg, extra) for arg in args)
        if origin is typing.Annotated:
            return self.annotated(args[0], constraints(args[1:]) + extra, tp)
        return f"Annotated[{self.annotation(tp)}, {meta(extra, tp)}]"

    def annotated(self, tp: Any, extras: list[Any], where: Any) -> str:
        """`Annotated[tp, ...]` with msgspec's `Meta` for the bounds among `extras` and the marks (`marks`: the
        commands', engine.kernel.command_marks) by their names; a model's own conversions (`edge`) left to it."""
        if self.edge:
            extras = [extra for extra in extras if not isinstance(extra, _FUNCTIONAL)]
        marks = [repr(extra) for extra in extras if isinstance(extra, self.marks)]
        bounds = [extra for extra in extras if not isinstance(extra, self.marks)]
        written = ([meta(bounds, where)] if bounds else []) + marks
        return f"Annotated[{self.annotation(tp)}, {', '.join(written)}]" if written else self.annotation(tp)

    def tagged(self, tp: Any) -> str:
        """A union of models told apart by their `type` field (`Field(discriminator="type")`): msgspec's
        tagged union of their structs, by its name when it is one of the unions named."""
        union, *extras = typing.get_args(tp)
        if [getattr(extra, "discriminator", None) for extra in extras] != ["type"]:
            raise TypeError(f"{tp!r} is not a union tagged by `type`")
        members = [self.struct(model, tag=model.model_fields["type"].default) for model in typing.get_args(union)]
        name = self.unions.get(id(tp))
        if name is None:
            return " | ".join(members)
        if name not in self.written_unions:
            self.written_unions.append(name)
            self.classes.append(f"{name} = " + " | ".join(members))
        return name

    def struct(self, model: type[BaseModel], tag: str | None = None) -> str:
        if model in self.names:
            return self.names[model]
        decorators = model.__pydantic_decorators__
        if not self.edge and (decorators.field_validators or decorators.model_validators or decorators.validators
                or decorators.root_validators):
            raise TypeError(f"{model.__name__} has a validator of its own: it cannot be derived")
        if model.model_config.get("extra") != "forbid":
            raise TypeError(f"{model.__name__} does not forbid unknown fields")
        if model.__name__ in self.names.values():
            raise TypeError(f"two models are named {model.__name__}")
        hints = typing.get_type_hints(model, include_extras=True)
        lines: list[str] = []
        for name, info in model.model_fields.items():
            if name == "type" and tag is not None:
                continue  # the union's tag: msgspec checks it; the struct's class answers it (below)
            hint = hints[name]
            written = constraints(typing.get_args(hint)[1:]) if typing.get_origin(hint) is typing.Annotated else []
            # the field's own constraints (given with its default), beside those its annotation writes
            extra = [item for item in info.metadata if repr(item) not in set(map(repr, written))]
            if len(info.metadata) - len(extra) != len(written) or (extra and not self.edge):
                raise TypeError(f"{model.__name__}.{name}: a constraint given as a default, not in the annotation, "
                                "is not derived")
            derived = self.annotation(hint, extra)  # the hint, bounds and all: pydantic's own are those it writes
            stored = f'name={info.alias!r}' if info.alias and info.alias != name else ""
            factory = info.default_factory
            if factory is not None and not (self.edge and factory in (dict, list, tuple)):
                raise TypeError(f"{model.__name__}.{name}: a default factory is not derived")
            if factory is not None:
                lines.append(f"    {name}: {derived} = field(default_factory={factory.__name__})")
            elif info.is_required():
                lines.append(f"    {name}: {derived}" + (f" = field({stored})" if stored else ""))
            elif stored:
                lines.append(f"    {name}: {derived} = field(default={self.default(info.default)}, {stored})")
            else:
                lines.append(f"    {name}: {derived} = {self.default(info.default)}")
        options = "frozen=True, kw_only=True, forbid_unknown_fields=True" + (", gc=False" if self.untracked else "")
        if tag is not None:
            options += f', tag_field="type", tag={tag!r}'
            lines.insert(0, f"    type = {tag!r}")
        self.classes.append(f"class {model.__name__}(Struct, {options}):\n" + "\n".join(lines or ["    pass"]))
        self.names[model] = model.__name__
        return model.__name__

    def default(self, value: Any) -> str:
        """A model's default as the struct's source holds it: a model instance becomes its struct's (by the
        constant's name, written once after its class, where it is one of the `constants`)."""
        name = self.constants.get(id(value))
        if name is not None:
            if name not in self.written_constants:
                self.written_constants.append(name)
                self.constants.pop(id(value))
                self.classes.append(f"{name} = {self.default(value)}")
                self.constants[id(value)] = name
            return name
        if isinstance(value, BaseModel):
            name = self.struct(type(value))
            changed = {key: getattr(value, key) for key, info in type(value).model_fields.items()
                       if getattr(value, key) != info.default}
            if any(isinstance(item, BaseModel) for item in changed.values()):
                raise TypeError(f"{value!r}: a default holding a model inside a model is not derived")
            return f"{name}({', '.join(f'{key}={item!r}' for key, item in changed.items())})"
        if _plain(value):  # a tuple too: immutable, so the struct may share it as pydantic's model does
            return repr(value)
        raise TypeError(f"the default {value!r} is not derived")


def _plain(value: Any) -> bool:
    """None, a flag, a whole number, a text, or a tuple of those (at any depth)."""
    return value is None or type(value) in (bool, int, str) or (
        type(value) is tuple and all(_plain(item) for item in value))


def source() -> str:
    """events/structs.py as the models give it."""
    from fudge_combat.events import envelope, models

    deriver = Deriver({"Event": models.Event})
    deriver.tagged(models.Event)
    deriver.struct(envelope.Recorded)
    voiding = ", ".join(deriver.names[kind] for kind in models.VOIDING)
    origins = ",\n".join(f"    {name}: {f'{model.__module__}.{name}'!r}" for model, name in deriver.names.items())
    return (HEADER + "\n\n" + "\n\n\n".join(deriver.classes) + "\n\n\n"
            + f"VOIDING = ({voiding})  # the events that void others (events.models.VOIDING)\n\n"
            + "# each struct's model, by its module's name (events.decoder.structs)\n"
            + f"MODELS: dict[type[Struct], str] = {{\n{origins},\n}}\n")


def main(argv: list[str]) -> int:
    wanted = source()
    if argv[1:] == ["--check"]:
        if TARGET.read_text(encoding="utf-8") == wanted:
            return 0
        print(f"{TARGET} is not the one the models give: run `python -m fudge_combat.events.derive`", file=sys.stderr)
        return 1
    TARGET.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
