"""Melee options: a lone fighter against several foes (F-MULTI), story elements (F-PACE-1)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from fudge_combat.cli.gm_inputs import FoeModOpt, MagicOpt, parse_foe_mods, parse_magic
from fudge_combat.cli.outcome import JsonOpt
from fudge_combat.cli.table import CommandIdOpt, DiceOpt, FightOpt, level_of, run
from fudge_combat.engine import commands as cmd
from fudge_combat.service.fights import Fights

app = typer.Typer()

@app.command()
def melee(
    lone: Annotated[str, typer.Argument(help="The lone fighter.")],
    foes: Annotated[list[str], typer.Argument(help="The foes attacking him at once (at most 6) [F-MULTI-6]")],
    target: Annotated[Optional[str], typer.Option(
        "--target", metavar="NAME", help="The foe he means to hit, named before the roll (default: the one he beat by most) [F-MULTI-3]")] = None,
    sweep: Annotated[Optional[list[str]], typer.Option(
        "--sweep", metavar="NAME", help="Another foe the blow cuts through after --target (repeat; option sweeping_blow) [F-MULTI-4]")] = None,
    sweep_penalty: Annotated[int, typer.Option(
        "--sweep-penalty", help="Damage lost per foe cut through, 1 or 2 [F-MULTI-4]")] = 1,
    ignore: Annotated[Optional[list[str]], typer.Option(
        "--ignore", metavar="NAME", help="A foe he does not defend against (repeat) [F-MULTI-5]")] = None,
    max_foes: Annotated[Optional[int], typer.Option(
        "--max-foes", help="How many foes can reach him here (3-4 with room-hungry weapons, 1-2 in a doorway) [F-MULTI-6]")] = None,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the lone fighter [F-MOD-2]")] = 0,
    foe_mod: FoeModOpt = None,
    magic: MagicOpt = None,
    min_hit: Annotated[Optional[str], typer.Option(
        "--min-hit", metavar="LEVEL", help="Minimum result for him to hit [F-HIT-1]")] = None,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A lone fighter against several foes: one roll compared with each foe's (F-MULTI-1, F-MULTI-2,
    F-MULTI-3, F-MULTI-4, F-MULTI-5, F-MULTI-6, F-MULTI-7).

    Typed dice: --dice NAME=FACES for each roller; with npc_group_roll the GM's 2dF is --dice GM=FACES.
    """
    def build(fights: Fights, name: str, state: Any) -> cmd.Melee:
        return cmd.Melee(lone=lone, foes=tuple(foes), target=target, sweep=tuple(sweep or ()),
                         sweep_penalty=sweep_penalty, ignore=tuple(ignore or ()), max_foes=max_foes, mod=mod,
                         magic=parse_magic(magic), min_hit=level_of(fights, name, min_hit),
                         reveals=fights.reveals(state, [lone, *foes]), foe_mods=parse_foe_mods(foe_mod))
    run(fight, build, dice, command_id, as_json=as_json)


@app.command()
def story(
    combatant: Annotated[str, typer.Argument(help="The PC acting in this story element.")],
    trait: Annotated[str, typer.Argument(help="The trait the GM chose for the PC's plan.")],
    mod: Annotated[int, typer.Option("--mod", help="The GM's modifier for the plan and circumstances, -3..+3 [F-PACE-1]")] = 0,
    median: Annotated[bool, typer.Option("--median", help="Three rolls, the median counts (all recorded) [C-ACT-5]")] = False,
    element: Annotated[str, typer.Option(
        "--element", metavar="TEXT", help="What this story element is, for the log.")] = "",
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A story element's roll (pace = "story", F-PACE-1): the result is recorded; the GM narrates the outcome."""
    run(fight, lambda f, n, s: cmd.StoryRoll(combatant=combatant, trait=trait, mod=mod, median=median,
                                             element=element), dice, command_id, as_json=as_json)
