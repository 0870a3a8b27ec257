"""What a command's field may be marked with, read by the shell and by the log's reading of a command.

Pydantic-free: the command models (engine.kernel.command_base) and the structs derived from them
(engine.derive) both carry these marks in their annotations (`Annotated[str, NAMES_A_COMBATANT]`), so
the shell reads a command the engine holds (a struct) as it reads one a ruleset of another package declares
(a model), and a one-shot command never loads pydantic's models to read them.
"""

import typing
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

import msgspec


class Mark:
    """A mark in a field's annotation: it changes neither validation nor what the field holds."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:  # the name it has in this module: the derived structs' source writes it so
        return self.name


# A field that holds a combatant's name, as the GM may have typed it ("grok", "sn"). The shell reads the mark
# to write the full name the fight knows ("Grok the Orc") before the command is decided and logged
# (service.names): a logged command never depends on how a name was abbreviated.
NAMES_A_COMBATANT = Mark("NAMES_A_COMBATANT")
CombatantName = Annotated[str, NAMES_A_COMBATANT]

# A field holding a part (a blow's `targeting`) whose own fields the log's `issued` dump holds flat, beside the
# command's (`aim`, `called`, ... beside `first` and `second`), as the commands of older logs hold them: a dump
# stays byte for byte what it was, and `fudge verify` re-decides an old log from it. Given flat or nested.
STORED_FLAT = Mark("STORED_FLAT")


def nested(data: Any, flat: Mapping[str, Iterable[str]]) -> Any:
    """`data` (a command's fields, as given or stored) with each flat field's keys gathered into it; `flat`:
    each field stored flat, with its part's own fields. A part given nested is kept, a flat key overriding."""
    if not isinstance(data, dict):
        return data
    for field, keys in flat.items():
        keys = frozenset(keys)
        if keys.isdisjoint(data):
            continue
        part = data.get(field, {})
        if not isinstance(part, dict):
            return data  # a part given otherwise (a model, a struct): the validator says what is wrong
        data = {**{k: v for k, v in data.items() if k not in keys}, field: {**part, **{k: data[k] for k in keys if k in data}}}
    return data


def flattened(dump: dict[str, Any], flat: Iterable[str]) -> dict[str, Any]:
    """A command's dump with each flat field's part written beside the command's own fields (in place)."""
    for field in flat:
        dump.update(dump.pop(field, None) or {})
    return dump


def field_hints(cls: type) -> tuple[tuple[str, Any], ...]:
    """A command's (or a part's) fields with their annotations, marks and all: a struct's or a model's alike."""
    found = _HINTS.get(cls)
    if found is None:
        fields = getattr(cls, "model_fields", None)
        if fields is not None:  # a model: pydantic keeps an annotation's marks apart from its type
            found = tuple((name, Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation)
                          for name, info in fields.items())
        else:
            hints = typing.get_type_hints(cls, include_extras=True)
            found = tuple((name, hints[name]) for name in cls.__struct_fields__)  # type: ignore[attr-defined]  # a struct class: its fields in order
        _HINTS[cls] = found
    return found


_HINTS: dict[type, tuple[tuple[str, Any], ...]] = {}


def is_part(value: Any) -> bool:
    """A command or a part of one (a Fate action, a blow's targeting): a struct or a model."""
    return isinstance(value, msgspec.Struct) or hasattr(type(value), "model_fields")


def with_values(value: Any, changes: Mapping[str, Any]) -> Any:
    """A command (or part) with some fields changed: a struct's or a model's way."""
    if isinstance(value, msgspec.Struct):
        return msgspec.structs.replace(value, **changes)
    return value.model_copy(update=dict(changes))
