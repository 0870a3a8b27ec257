"""Commands: what a GM asks for, imperative, validated before the core sees them.

One name space, `engine.commands` (`cmd.Attack`), over the modules that define the classes by theme: a
class is created when it is first named, with the others of its module. Creating a pydantic class costs
time even with its schema deferred, and a one-shot command names a handful of them (bench/README.md,
target 4). The deciders' tables are keyed by the classes' names (`ByCommand`) for the
same reason. `Command`, the union of them all, and its `COMMAND_ADAPTER` create every class.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from fudge_combat.engine.command_base import CombatantName, CommandModel, Reveal  # noqa: F401  (cmd.Reveal, ...)

# Each class (and constant) of a command module: the module that defines it.
MODULES: dict[str, str] = {
    **dict.fromkeys(("StartFight", "StartBranch", "CommitSeed", "RevealSeed", "Join", "Undo", "Redo"), "fight"),
    **dict.fromkeys(("Declare", "SealDeclaration", "StartRound", "Barter", "NextTurn", "OrderTies", "DeclareIntent",
                     "HoldAction"), "round"),
    **dict.fromkeys(("Targeting", "NO_TARGETING", "TARGETING_FIELDS", "Exchange", "Attack"), "blows"),
    **dict.fromkeys(("RollTrait", "SpendPoint", "Shoot", "Melee", "StoryRoll", "Willpower", "ResistSpell",
                     "HeroicAvoidance"), "rolls"),
    **dict.fromkeys(("Kill", "GmWound", "EndBattle", "Rest", "Heal"), "aftermath"),
    **dict.fromkeys(("FateAction", "FateMod", "FateExchange", "FateScene", "FateRound", "FateAttack", "FatePass",
                     "CheckAspect", "EndScene", "RecoverInjury"), "fate"),
    **dict.fromkeys(("Command", "COMMAND_ADAPTER"), "union"),
}

if TYPE_CHECKING:  # the classes as a type checker sees them; at run time `__getattr__` creates each when first named
    from fudge_combat.engine.commands_aftermath import EndBattle, GmWound, Heal, Kill, Rest
    from fudge_combat.engine.commands_blows import Attack, Exchange, NO_TARGETING, TARGETING_FIELDS, Targeting
    from fudge_combat.engine.commands_fate import (CheckAspect, EndScene, FateAction, FateAttack, FateExchange, FateMod, FatePass,
                                      FateRound, FateScene, RecoverInjury)
    from fudge_combat.engine.commands_fight import CommitSeed, Join, Redo, RevealSeed, StartBranch, StartFight, Undo
    from fudge_combat.engine.commands_rolls import (HeroicAvoidance, Melee, ResistSpell, RollTrait, Shoot, SpendPoint, StoryRoll,
                                       Willpower)
    from fudge_combat.engine.commands_round import (Barter, Declare, DeclareIntent, HoldAction, NextTurn, OrderTies,
                                       SealDeclaration, StartRound)
    from fudge_combat.engine.commands_union import COMMAND_ADAPTER, Command


if not TYPE_CHECKING:  # hidden from the type checker: a name it does not know is an error, not `Any`
    def __getattr__(name: str) -> Any:
        module = MODULES.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"fudge_combat.engine.commands_{module}"), name)
        globals()[name] = value  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *MODULES})


V = TypeVar("V")
_MISSING = object()


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
        found = self._by_class.get(kind, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        name = getattr(kind, "__name__", None)
        if name not in self.by_name or _command(name) is not kind:  # a class of that name elsewhere is not it
            raise KeyError(kind)
        value = self._by_class[kind] = self.by_name[name]
        return value

    def get(self, kind: type, default: Any = None) -> Any:  # `decide` asks at every command: no exception raised
        found = self._by_class.get(kind, _MISSING)
        if found is not _MISSING:
            return found
        return self[kind] if kind in self else default

    def __iter__(self) -> Iterator[type]:
        return (_command(name) for name in self.by_name)

    def __len__(self) -> int:
        return len(self.by_name)

    def __repr__(self) -> str:
        return f"ByCommand({self.by_name!r})"


def _command(name: str) -> type:
    found: type = globals()[name] if name in globals() else getattr(sys.modules[__name__], name)
    return found
