"""Atari Isev at the table: willpower, spell resistance, heroic avoidance (AI-WILL, AI-HEROIC)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from fudge_combat.cli.outcome import JsonOpt
from fudge_combat.cli.table import CommandIdOpt, DiceOpt, FightOpt, run
from fudge_combat.engine import commands as cmd

app = typer.Typer()


@app.command()
def willpower(
    combatant: Annotated[str, typer.Argument(help="Who draws on story inspiration.")],
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the Will roll.")] = 0,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A Will roll; each level above Fair lowers the effective wound status for the scene [AI-WILL-1]."""
    run(fight, lambda f, n, s: cmd.Willpower(combatant=combatant, mod=mod), dice, command_id, as_json=as_json)


@app.command(name="resist-spell")
def resist_spell(
    caster: Annotated[str, typer.Argument(help="The mage whose spell succeeded.")],
    target: Annotated[str, typer.Argument(help="The spell's target.")],
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Both roll Will; caster >= target: full effect, else reduced by the difference [AI-WILL-2]."""
    run(fight, lambda f, n, s: cmd.ResistSpell(caster=caster, target=target), dice, command_id, as_json=as_json)


@app.command()
def heroic(
    combatant: Annotated[str, typer.Argument(help="Who rolls with the blow.")],
    wound: Annotated[Optional[int], typer.Option(
        "--wound", metavar="SEQ", help="Event number of the wound (default: the latest).")] = None,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The wound drops one level; an Agility roll vs Fair: -2 next round, or prone on a failure [AI-HEROIC]."""
    run(fight, lambda f, n, s: cmd.HeroicAvoidance(combatant=combatant, target=wound), dice, command_id, as_json=as_json)
