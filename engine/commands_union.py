"""`Command`: every command the engine decides, told apart by its `type`; `COMMAND_ADAPTER`: their models' union,
the schema a log's `issued` dump is read back by where the structs refuse it (engine.kernel.commands.read_issued).

One module of `engine.commands`: naming the adapter creates every command model."""

from __future__ import annotations

from typing import Annotated, Union

from pydantic import ConfigDict, Field, TypeAdapter

from fudge_combat.engine.kernel import command_structs as kernel
from fudge_combat.engine.kernel import commands_fight
from fudge_combat.engine.rulesets.fate import command_structs as fate
from fudge_combat.engine.rulesets.fate import commands as fate_models
from fudge_combat.engine.rulesets.fudge import command_structs as fudge
from fudge_combat.engine.rulesets.fudge import commands_aftermath, commands_blows, commands_conditions, commands_rolls, commands_round

Command = Union[kernel.StartFight, kernel.StartBranch, kernel.CommitSeed, kernel.RevealSeed, kernel.Join, fudge.Declare,
                fudge.SealDeclaration, fudge.StartRound, fudge.Exchange, fudge.Attack, fudge.RollTrait, fudge.Barter,
                fudge.NextTurn, fudge.SpendPoint, fudge.Kill, kernel.Undo, kernel.Redo, fudge.OrderTies,
                fudge.DeclareIntent, fudge.Shoot, fudge.HoldAction, fudge.Heal, fudge.Rest, fudge.EndBattle,
                fudge.Willpower, fudge.ResistSpell, fudge.HeroicAvoidance, fudge.Melee, fudge.StoryRoll, fudge.GmWound,
                fate.FateExchange, fate.FateScene, fate.FateRound, fate.FateAttack, fate.CheckAspect, fate.EndScene,
                fate.RecoverInjury, fate.FatePass, fudge.MarkCondition, fudge.ClearCondition, fudge.Leave]

CommandModels = Annotated[
    Union[commands_fight.StartFight, commands_fight.StartBranch, commands_fight.CommitSeed, commands_fight.RevealSeed,
          commands_fight.Join, commands_round.Declare, commands_round.SealDeclaration, commands_round.StartRound,
          commands_blows.Exchange, commands_blows.Attack, commands_rolls.RollTrait, commands_round.Barter,
          commands_round.NextTurn, commands_rolls.SpendPoint, commands_aftermath.Kill, commands_fight.Undo,
          commands_fight.Redo, commands_round.OrderTies, commands_round.DeclareIntent, commands_rolls.Shoot,
          commands_round.HoldAction, commands_aftermath.Heal, commands_aftermath.Rest, commands_aftermath.EndBattle,
          commands_rolls.Willpower, commands_rolls.ResistSpell, commands_rolls.HeroicAvoidance, commands_rolls.Melee,
          commands_rolls.StoryRoll, commands_aftermath.GmWound, fate_models.FateExchange, fate_models.FateScene,
          fate_models.FateRound, fate_models.FateAttack, fate_models.CheckAspect, fate_models.EndScene,
          fate_models.RecoverInjury, fate_models.FatePass, commands_conditions.MarkCondition,
          commands_conditions.ClearCondition, commands_conditions.Leave],
    Field(discriminator="type"),
]
COMMAND_ADAPTER: TypeAdapter[CommandModels] = TypeAdapter(CommandModels, config=ConfigDict(defer_build=True))
