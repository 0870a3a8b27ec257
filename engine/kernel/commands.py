"""Where each command class is defined, tables keyed by command class (`ByCommand`), and a command's way in
and out of the log.

The engine decides this project's commands as msgspec structs, each package's derived from its pydantic models
(engine.derive: `command_structs.py`); the models are the schema and validate a request. A command built
in code (the shell's, a test's) is checked by its struct's types and bounds before it is decided (`valid`); a
log's `issued` dump is read back into it (`read_issued`) and written from it (`issued_dump`) as the models
write it. A module is loaded when one of its classes is first named (`command_class`): a Fudge fight never
loads Fate's commands. The shell names the classes through `engine.commands`.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import importlib
import typing
import uuid
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

import msgspec

from fudge_combat.engine.kernel.command_marks import STORED_FLAT, field_hints, flattened, nested

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.command_base import CommandModel

# The derived structs of each package's commands, under fudge_combat.engine.
KERNEL, FUDGE, FATE = "kernel.command_structs", "rulesets.fudge.command_structs", "rulesets.fate.command_structs"

# Each class (and constant) of a command module: the module that defines it, under fudge_combat.engine.
MODULES: dict[str, str] = {
    **dict.fromkeys(("StartFight", "StartBranch", "CommitSeed", "RevealSeed", "Join", "Undo", "Redo", "Reveal"), KERNEL),
    **dict.fromkeys(("Declare", "SealDeclaration", "StartRound", "Barter", "NextTurn", "OrderTies", "DeclareIntent",
                     "HoldAction", "Targeting", "NO_TARGETING", "Exchange", "Attack", "RollTrait", "SpendPoint",
                     "Shoot", "Melee", "StoryRoll", "Willpower", "ResistSpell", "HeroicAvoidance", "Kill", "GmWound",
                     "EndBattle", "Rest", "Heal", "MarkCondition", "ClearCondition", "Leave"), FUDGE),
    **dict.fromkeys(("FateAction", "FateMod", "FateExchange", "FateScene", "FateRound", "FateAttack", "FatePass",
                     "CheckAspect", "EndScene", "RecoverInjury"), FATE),
    **dict.fromkeys(("Command", "COMMAND_ADAPTER"), "commands_union"),
    "CommandModel": "kernel.command_base",  # the models' base: a ruleset of another package's commands are its own
}

_FOUND: dict[str, Any] = {}


def command_class(name: str) -> Any:
    """The class (or constant) `name` of the module `MODULES` names, imported when first asked for."""
    found = _FOUND.get(name)
    if found is None:
        found = _FOUND[name] = getattr(importlib.import_module(f"fudge_combat.engine.{MODULES[name]}"), name)
    return found


V = TypeVar("V")
T = TypeVar("T")


class ByCommand(Mapping[type, V]):
    """A table keyed by command class (a decider's handlers, its refusals), written with the classes' names.

    Building it creates no class: this module creates each when it is first named, and a one-shot
    command names a handful (bench/README.md, target 4). It reads as a dict keyed by class: `table[cmd.Attack]`,
    `table.get(type(command))`, `cmd.Shoot in table`; iterating it names, so creates, every class in it.
    A ruleset of another package keys its own commands by their classes (`by_class`): `MODULES` names only
    this project's.
    """

    def __init__(self, by_name: Mapping[str, V], by_class: Mapping[type, V] | None = None) -> None:
        self.by_name: dict[str, V] = dict(by_name)
        self.by_class: dict[type, V] = dict(by_class or {})
        self._by_class: dict[type, V] = dict(self.by_class)  # the classes looked up so far: a dict's speed from the second time

    def __getitem__(self, kind: type) -> V:
        if kind in self._by_class:
            return self._by_class[kind]
        name = getattr(kind, "__name__", None)
        if name not in self.by_name or _command(name) is not kind:  # a class of that name elsewhere is not it
            raise KeyError(kind)
        value = self._by_class[kind] = self.by_name[name]
        return value

    @overload
    def get(self, kind: type, /) -> V | None: ...
    @overload
    def get(self, kind: type, /, default: V | T) -> V | T: ...

    def get(self, kind: type, /, default: V | T | None = None) -> V | T | None:
        # `decide` asks at every command: no exception raised
        if kind in self._by_class:
            return self._by_class[kind]
        return self[kind] if kind in self else default

    def __iter__(self) -> Iterator[type]:
        yield from (_command(name) for name in self.by_name)
        yield from self.by_class

    def __len__(self) -> int:
        return len(self.by_name) + len(self.by_class)

    def __repr__(self) -> str:
        return f"ByCommand({self.by_name!r}, {self.by_class!r})"


def own_commands(ruleset: str) -> dict[str, type[CommandModel]]:
    """The commands a ruleset of another package adds, by the word the GM types (`fudge act WORD`): its
    `commands` module's `COMMANDS`. A built-in ruleset's commands have commands of their own in the shell.

    Each needs a `type` of its own (say `wits.taunt`): a log's `issued` dumps are read back by it, so one
    that takes a built-in command's is refused (RuleError) rather than read as the other."""
    from fudge_combat.engine.kernel.errors import RuleError
    from fudge_combat.engine.kernel.registry import is_built_in, ruleset_module

    if is_built_in(ruleset):
        return {}
    own = dict(ruleset_module(ruleset, "commands").COMMANDS)
    for word, cls in own.items():
        if cls.model_fields["type"].default in _built_in_types():
            raise RuleError(f"the {ruleset} ruleset's command {word!r} has the type "
                            f"{cls.model_fields['type'].default!r} of a built-in command: give it its own")
    return own


def _built_in_types() -> frozenset[str]:
    """The `type` of every command of this project's."""
    return frozenset(_by_type())


@functools.cache
def _by_type() -> dict[str, type[msgspec.Struct]]:
    """Every command struct of this project's, by its `type`."""
    found: dict[str, type[msgspec.Struct]] = {}
    for module in (KERNEL, FUDGE, FATE):
        found.update(importlib.import_module(f"fudge_combat.engine.{module}").BY_TYPE)
    return found


# Beside a command in `issued`, when a player asked for it from their own device and the GM accepted it:
# {"v": 1, "fighter": NAME, "link": LINK-ID, "request": REQUEST-ID} (cli.play_requests). Not the command's:
# left out when the command is read back, so a log with it replays and verifies as the GM's own command
# would; a log without it (every older one) reads as it always did. `v` versions the record's own fields.
REQUESTED = "requested"


def read_issued(issued: Mapping[str, Any] | None, ruleset: str) -> Any:
    """A command as the log's `issued` dump holds it, read back: by the fight's ruleset's own commands when it
    is a ruleset of another package (its `commands` module's `COMMANDS`), else by the union of this
    project's (`Command`). Who asked for it (`REQUESTED`) is not the command's."""
    if isinstance(issued, Mapping) and REQUESTED in issued:
        issued = {key: value for key, value in issued.items() if key != REQUESTED}
    own = {cls.model_fields["type"].default: cls for cls in own_commands(ruleset).values()}
    kind = issued.get("type") if isinstance(issued, Mapping) else None
    cls = own.get(kind) if isinstance(kind, str) else None
    if cls is not None:
        return cls.model_validate(issued)
    struct = _by_type().get(kind) if isinstance(kind, str) else None
    if struct is not None and isinstance(issued, Mapping):
        try:
            return msgspec.convert(nested(dict(issued), _flat(struct)), struct)
        except msgspec.ValidationError:
            pass  # read by the models: their words for what is wrong, or what they accept (a number as text)
    model = command_class("COMMAND_ADAPTER").validate_python(issued)
    return msgspec.convert(nested(model.model_dump(mode="json"), _flat(struct)), struct) if struct else model


def issued_dump(command: Any) -> dict[str, Any]:
    """A command as the log's `issued` dump holds it: as its model writes it (`model_dump(mode="json")`), its
    parts stored flat beside its own fields (`STORED_FLAT`)."""
    if not isinstance(command, msgspec.Struct):  # a ruleset of another package's own command
        dump: dict[str, Any] = command.model_dump(mode="json")
        return dump
    return flattened(msgspec.json.decode(msgspec.json.encode(command)), _flat(type(command)))


# Values msgspec's `to_builtins` would turn into text (bytes as base64, a date as ISO): kept as they are, so that
# the struct refuses them where a field wants text, and the model reads them as it always did.
_AS_GIVEN = (bytes, bytearray, memoryview, datetime.datetime, datetime.date, datetime.time, datetime.timedelta,
             decimal.Decimal, uuid.UUID)


def valid(command: Any) -> Any:
    """A command built in code, as its struct's types and bounds hold it (a list given for a tuple becomes one).
    What the struct refuses (a wrong value, text that is not UTF-8, a number given as text) is read by the
    command's model, as a command was before the structs: the model's ValidationError, in its words, or the
    struct of what the model reads. A ruleset of another package's own command is its model, validated as it
    was built."""
    if not isinstance(command, msgspec.Struct):
        return command
    cls = type(command)
    try:
        made = msgspec.convert(msgspec.to_builtins(command, builtin_types=_AS_GIVEN), cls)
        msgspec.json.encode(made)  # text that is not UTF-8 (a lone surrogate) is refused here, as the log would
        return made
    except (msgspec.ValidationError, TypeError, UnicodeEncodeError):
        pass
    read = command_model(cls.__name__).model_validate({name: _given(getattr(command, name)) for name in cls.__struct_fields__})
    return msgspec.convert(nested(read.model_dump(mode="json"), _flat(cls)), cls)


def _given(value: Any) -> Any:
    """A field's value as a model reads it: a part built as a struct (a Fate action, a blow's targeting) as its
    fields, at any depth; anything else as it is."""
    if isinstance(value, msgspec.Struct):
        return {name: _given(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, (tuple, list)):
        return type(value)(_given(item) for item in value)
    return value


def command_model(name: str) -> Any:
    """The pydantic model of the command (or part) struct `name`: its schema, and its words for a wrong value."""
    struct = command_class(name)
    module = importlib.import_module(f"fudge_combat.engine.{MODULES[name]}")
    return getattr(importlib.import_module(module.MODELS[struct.__name__]), struct.__name__)


@functools.cache
def _flat(cls: type | None) -> dict[str, tuple[str, ...]]:
    """The fields of a command struct stored flat (`STORED_FLAT`), with their part's own fields."""
    if cls is None:
        return {}
    return {name: typing.get_args(hint)[0].__struct_fields__ for name, hint in field_hints(cls)
            if typing.get_origin(hint) is typing.Annotated and STORED_FLAT in typing.get_args(hint)[1:]}


def _command(name: str) -> type:
    kind = command_class(name)
    if not isinstance(kind, type):  # a table names command classes, not a module's constants
        raise TypeError(f"{name} is not a command class")
    return kind
