"""Commands: what a GM asks for, imperative, validated before the core sees them.

One name space for the shell, `engine.commands` (`cmd.Attack`), over the modules that define the classes:
the kernel's (a fight's start, branches, seeds, joins, undo), each ruleset's in its own package, and the
union of them all (`Command`, `COMMAND_ADAPTER`). A class is created when it is first named, with the others
of its module: creating a pydantic class costs time even with its schema deferred, and a one-shot command
names a handful of them (bench/README.md, target 4). Inside the engine, a ruleset's code imports the classes
it names from their own modules, never this name space, so no ruleset depends on another's commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel, Reveal  # noqa: F401  (cmd.Reveal, ...)
from fudge_combat.engine.kernel.commands import MODULES, ByCommand, command_class, read_issued  # noqa: F401  (cmd.ByCommand, ...)

if TYPE_CHECKING:  # the classes as a type checker sees them; at run time `__getattr__` creates each when first named
    from fudge_combat.engine.rulesets.fudge.commands_aftermath import EndBattle, GmWound, Heal, Kill, Rest
    from fudge_combat.engine.rulesets.fudge.commands_conditions import ClearCondition, Leave, MarkCondition
    from fudge_combat.engine.rulesets.fudge.commands_blows import Attack, Exchange, NO_TARGETING, TARGETING_FIELDS, Targeting
    from fudge_combat.engine.rulesets.fate.commands import (CheckAspect, EndScene, FateAction, FateAttack, FateExchange, FateMod, FatePass,
                                      FateRound, FateScene, RecoverInjury)
    from fudge_combat.engine.kernel.commands_fight import CommitSeed, Join, Redo, RevealSeed, StartBranch, StartFight, Undo
    from fudge_combat.engine.rulesets.fudge.commands_rolls import (HeroicAvoidance, Melee, ResistSpell, RollTrait, Shoot, SpendPoint, StoryRoll,
                                       Willpower)
    from fudge_combat.engine.rulesets.fudge.commands_round import (Barter, Declare, DeclareIntent, HoldAction, NextTurn, OrderTies,
                                       SealDeclaration, StartRound)
    from fudge_combat.engine.commands_union import COMMAND_ADAPTER, Command


if not TYPE_CHECKING:  # hidden from the type checker: a name it does not know is an error, not `Any`
    def __getattr__(name: str) -> Any:
        if name not in MODULES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = globals()[name] = command_class(name)  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *MODULES})
