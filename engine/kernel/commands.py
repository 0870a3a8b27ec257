"""Where each command class is defined, and tables keyed by command class (`ByCommand`).

A class is created when it is first named (`command_class`), with the others of its module: creating a
pydantic class costs time even with its schema deferred, and a one-shot command names a handful of them
(bench/README.md, target 4). The deciders' tables are keyed by the classes' names for the same reason. The
shell names the classes through `engine.commands`.
"""

from __future__ import annotations

import functools
import importlib
import typing
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.command_base import CommandModel

# Each class (and constant) of a command module: the module that defines it, under fudge_combat.engine.
MODULES: dict[str, str] = {
    **dict.fromkeys(("StartFight", "StartBranch", "CommitSeed", "RevealSeed", "Join", "Undo", "Redo"),
                    "kernel.commands_fight"),
    **dict.fromkeys(("Declare", "SealDeclaration", "StartRound", "Barter", "NextTurn", "OrderTies", "DeclareIntent",
                     "HoldAction"), "rulesets.fudge.commands_round"),
    **dict.fromkeys(("Targeting", "NO_TARGETING", "TARGETING_FIELDS", "Exchange", "Attack"), "rulesets.fudge.commands_blows"),
    **dict.fromkeys(("RollTrait", "SpendPoint", "Shoot", "Melee", "StoryRoll", "Willpower", "ResistSpell",
                     "HeroicAvoidance"), "rulesets.fudge.commands_rolls"),
    **dict.fromkeys(("Kill", "GmWound", "EndBattle", "Rest", "Heal"), "rulesets.fudge.commands_aftermath"),
    **dict.fromkeys(("MarkCondition", "ClearCondition", "Leave"), "rulesets.fudge.commands_conditions"),
    **dict.fromkeys(("FateAction", "FateMod", "FateExchange", "FateScene", "FateRound", "FateAttack", "FatePass",
                     "CheckAspect", "EndScene", "RecoverInjury"), "rulesets.fate.commands"),
    **dict.fromkeys(("Command", "COMMAND_ADAPTER"), "commands_union"),
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


@functools.cache
def _built_in_types() -> frozenset[str]:
    """The `type` of every command of the union (`Command`)."""
    return frozenset(tag for cls in typing.get_args(typing.get_args(command_class("Command"))[0])
                     for tag in typing.get_args(cls.model_fields["type"].annotation))


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
    cls = own.get(issued.get("type")) if isinstance(issued, Mapping) else None
    if cls is not None:
        return cls.model_validate(issued)
    return command_class("COMMAND_ADAPTER").validate_python(issued)


def _command(name: str) -> type:
    kind = command_class(name)
    if not isinstance(kind, type):  # a table names command classes, not a module's constants
        raise TypeError(f"{name} is not a command class")
    return kind
