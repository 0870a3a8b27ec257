"""Commands: what a GM asks for, imperative, checked before the core sees them.

One name space for the shell, `engine.commands` (`cmd.Attack`), over the modules that define the classes: the
structs the engine decides, derived from each package's pydantic models (the kernel's: a fight's start,
branches, seeds, joins, undo; each ruleset's in its own package), and the union of them all (`Command`; its
models' `COMMAND_ADAPTER`). A module is loaded when one of its classes is first named. Inside the engine, a
ruleset's code imports the classes it names from their own modules, never this name space, so no ruleset
depends on another's commands. A ruleset of another package declares its own commands as models
(`CommandModel`, `CombatantName`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fudge_combat.engine.kernel.command_marks import CombatantName  # noqa: F401  (cmd.CombatantName)
from fudge_combat.engine.kernel.commands import (MODULES, ByCommand, command_class, command_model,  # noqa: F401  (cmd.ByCommand, ...)
                                                 issued_dump, read_issued, valid)

if TYPE_CHECKING:  # the classes as a type checker sees them; at run time `__getattr__` loads each module when first named
    from fudge_combat.engine.commands_union import COMMAND_ADAPTER, Command
    from fudge_combat.engine.kernel.command_base import CommandModel
    from fudge_combat.engine.kernel.command_structs import CommitSeed, Join, Redo, Reveal, RevealSeed, StartBranch, StartFight, Undo
    from fudge_combat.engine.rulesets.fate.command_structs import (CheckAspect, EndScene, FateAction, FateAttack, FateExchange, FateMod,
                                                                   FatePass, FateRound, FateScene, RecoverInjury)
    from fudge_combat.engine.rulesets.fudge.command_structs import (NO_TARGETING, Attack, Barter, ClearCondition, Declare, DeclareIntent,
                                                                    EndBattle, Exchange, GmWound, Heal, HeroicAvoidance, HoldAction,
                                                                    Kill, Leave, MarkCondition, Melee, NextTurn, OrderTies,
                                                                    ResistSpell, Rest, RollTrait, SealDeclaration, Shoot, SpendPoint,
                                                                    StartRound, StoryRoll, Targeting, Willpower)


if not TYPE_CHECKING:  # hidden from the type checker: a name it does not know is an error, not `Any`
    def __getattr__(name: str) -> Any:
        if name not in MODULES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = globals()[name] = command_class(name)  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *MODULES})
