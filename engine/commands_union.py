"""`Command`: every command, told apart by its `type` (a log's `issued` dumps are read back through it).

One module of `engine.commands`: naming the union creates every command class."""

from __future__ import annotations

from typing import Annotated, Union

from pydantic import ConfigDict, Field, TypeAdapter

from fudge_combat.engine.rulesets.fudge.commands_aftermath import EndBattle, GmWound, Heal, Kill, Rest
from fudge_combat.engine.rulesets.fudge.commands_blows import Attack, Exchange
from fudge_combat.engine.rulesets.fudge.commands_conditions import ClearCondition, Leave, MarkCondition
from fudge_combat.engine.rulesets.fate.commands import (CheckAspect, EndScene, FateAttack, FateExchange, FatePass, FateRound,
                                  FateScene, RecoverInjury)
from fudge_combat.engine.kernel.commands_fight import CommitSeed, Join, Redo, RevealSeed, StartBranch, StartFight, Undo
from fudge_combat.engine.rulesets.fudge.commands_rolls import (HeroicAvoidance, Melee, ResistSpell, RollTrait, Shoot, SpendPoint, StoryRoll,
                                   Willpower)
from fudge_combat.engine.rulesets.fudge.commands_round import (Barter, Declare, DeclareIntent, HoldAction, NextTurn, OrderTies,
                                   SealDeclaration, StartRound)

Command = Annotated[
    Union[StartFight, StartBranch, CommitSeed, RevealSeed, Join, Declare, SealDeclaration,
          StartRound, Exchange, Attack, RollTrait, Barter, NextTurn, SpendPoint, Kill, Undo, Redo,
          OrderTies, DeclareIntent, Shoot, HoldAction, Heal, Rest, EndBattle, Willpower, ResistSpell,
          HeroicAvoidance, Melee, StoryRoll, GmWound, FateExchange, FateScene, FateRound, FateAttack, CheckAspect,
          EndScene, RecoverInjury, FatePass, MarkCondition, ClearCondition, Leave],
    Field(discriminator="type"),
]
COMMAND_ADAPTER: TypeAdapter[Command] = TypeAdapter(Command, config=ConfigDict(defer_build=True))
