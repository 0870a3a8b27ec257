"""At the table: conditions the GM marks on a fighter, and a fighter who leaves the fight (docs/table.md)."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import typer

from fudge_combat.cli.outcome import JsonOpt
from fudge_combat.cli.table import CommandIdOpt, FightOpt, run
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.rulesets.fudge.commands_conditions import CONDITION_LENGTH, NOTE_LENGTH
from fudge_combat.engine.rulesets.fudge.conditions import NAMED

app = typer.Typer()


def _checked(condition: str, note: str = "") -> str:
    if len(condition) > CONDITION_LENGTH:
        raise InputError(f"a condition's name is at most {CONDITION_LENGTH} characters; put the rest in --note")
    if len(note) > NOTE_LENGTH:
        raise InputError(f"a note is at most {NOTE_LENGTH} characters")
    return condition


@app.command()
def mark(
    combatant: Annotated[str, typer.Argument(help="Who is marked.")],
    condition: Annotated[str, typer.Argument(
        help=f"The rules' own ({', '.join(NAMED)}) or your own words, quoted.")],
    rounds: Annotated[Optional[int], typer.Option(
        "--rounds", min=1, max=100, help="It lasts N rounds: gone at the start of the round N rounds later.")] = None,
    note: Annotated[str, typer.Option("--note", metavar="TEXT", help="A note shown with it.")] = "",
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark a condition on a fighter: shown on the board and in the log, never applied to a roll (the GM's
    --mod does that). Marked again, it takes the new --rounds and --note."""
    run(fight, lambda f, n, s: cmd.MarkCondition(combatant=combatant, condition=_checked(condition, note),
                                                 rounds=rounds, note=note),
        None, command_id, as_json=as_json)


@app.command()
def unmark(
    combatant: Annotated[str, typer.Argument(help="Whose condition.")],
    condition: Annotated[str, typer.Argument(help="The condition to take off.")],
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Take a condition off a fighter."""
    run(fight, lambda f, n, s: cmd.ClearCondition(combatant=combatant, condition=_checked(condition)),
        None, command_id, as_json=as_json)


@app.command()
def leave(
    combatant: Annotated[str, typer.Argument(help="Who leaves the fight.")],
    fled: Annotated[bool, typer.Option("--fled", help="He fled.")] = False,
    surrendered: Annotated[bool, typer.Option("--surrendered", help="He surrendered.")] = False,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Take a fighter out of the fight without wounds: he no longer counts as still fighting."""
    if fled and surrendered:
        raise typer.BadParameter("choose one of --fled and --surrendered")
    how: Literal["fled", "surrendered", "left"] = "fled" if fled else "surrendered" if surrendered else "left"
    run(fight, lambda f, n, s: cmd.Leave(combatant=combatant, how=how), None, command_id, as_json=as_json)
