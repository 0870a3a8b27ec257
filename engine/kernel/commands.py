"""Where each command class is defined, and tables keyed by command class (`ByCommand`).

A class is created when it is first named (`command_class`), with the others of its module: creating a
pydantic class costs time even with its schema deferred, and a one-shot command names a handful of them
(bench/README.md, target 4). The deciders' tables are keyed by the classes' names for the same reason. The
shell names the classes through `engine.commands`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar, overload

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
    """

    def __init__(self, by_name: Mapping[str, V]) -> None:
        self.by_name: dict[str, V] = dict(by_name)
        self._by_class: dict[type, V] = {}  # the classes looked up so far: a dict's speed from the second time

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
        return (_command(name) for name in self.by_name)

    def __len__(self) -> int:
        return len(self.by_name)

    def __repr__(self) -> str:
        return f"ByCommand({self.by_name!r})"


def _command(name: str) -> type:
    kind = command_class(name)
    if not isinstance(kind, type):  # a table names command classes, not a module's constants
        raise TypeError(f"{name} is not a command class")
    return kind
