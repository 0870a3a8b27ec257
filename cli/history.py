"""Time travel and audit: undo, redo, branch, replay, log, verify, export, import, reveal-seed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli import render
from cli.context import fail, fight_name, guard, read_file, service, write_file
from engine import commands as cmd
from engine.errors import InputError
from engine.wounds import LEVELS
from projections.fold import evolve_all, voided

app = typer.Typer()

FightArg = Annotated[Optional[str], typer.Argument(help="Fight (default: the current one; or --fight).")]
FightOpt = Annotated[Optional[str], typer.Option("--fight", "-f", help="Fight to act on (default: the current one).")]


@app.command()
def undo(
    to: Annotated[Optional[int], typer.Option("--to", help="Undo every command after this event.")] = None,
    fight: FightOpt = None,
) -> None:
    """Void the last command in force (A-UNDO-1): appended, never deleted."""
    with guard():
        fights = service()
        name = fight_name(fights, fight)
        outcomes = fights.undo_to(name, to) if to is not None else [fights.execute(name, cmd.Undo())]
        for outcome in outcomes:
            for record in outcome.records:
                typer.echo(f"{record.seq:>4}  {render.line(record.event, outcome.state)}")


@app.command()
def redo(fight: FightOpt = None) -> None:
    """Restore the most recently undone command."""
    with guard():
        fights = service()
        name = fight_name(fights, fight)
        outcome = fights.execute(name, cmd.Redo())
        for record in outcome.records:
            typer.echo(f"{record.seq:>4}  {render.line(record.event, outcome.state)}")


@app.command()
def branch(
    name: Annotated[str, typer.Argument(help="Name of the new fight.")],
    at: Annotated[Optional[int], typer.Option("--at", help="Fork after this event (default: the last).")] = None,
    fight: FightOpt = None,
) -> None:
    """Start a new fight from another's history up to an event (A-BRANCH-1); it becomes current."""
    with guard():
        fights = service()
        parent = fight_name(fights, fight)
        outcome = fights.branch(parent, name, at)
        typer.echo(f"{name} branches from {parent} at event {outcome.records[0].event.fork_seq}; it is now current")


def chosen(argument: str | None, option: str | None) -> str | None:
    """The fight named as an argument or with --fight (as every other command takes it)."""
    if argument and option and argument.lower() != option.lower():
        raise InputError(f"two fights named: {argument} and --fight {option}; name one")
    return argument or option


@app.command()
def replay(
    fight: FightArg = None,
    fight_opt: FightOpt = None,
    to: Annotated[Optional[int], typer.Option("--to", help="Stop at this event (as of).")] = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each event.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The state after each event, as JSON lines.")] = False,
) -> None:
    """Step through a fight event by event with the state after each (A-REPLAY-1)."""
    with guard():
        fights = service()
        name = fight_name(fights, chosen(fight, fight_opt))
        records = fights.log(name, to)
        gone = voided(records)
        for record, state in evolve_all(records):
            if as_json:
                typer.echo(json.dumps({"seq": record.seq, "type": record.event.type,
                                       "voided": record.seq in gone,
                                       "state": render.status_json(state)}, sort_keys=True))
                continue
            mark = " (voided)" if record.seq in gone else ""
            typer.echo(f"{record.seq:>4}  {render.line(record.event, state)}{mark}")
            wounds = ", ".join(f"{c.name} {LEVELS[c.track.level]}" for c in state.combatants.values())
            if wounds:
                typer.echo(f"        {wounds}")
            if step and sys.stdin.isatty():
                input()


@app.command(name="log")
def log_(
    fight: FightArg = None,
    fight_opt: FightOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Every event with its payload.")] = False,
) -> None:
    """The audit trail: every event, voided ones marked as voided (A-UNDO-2)."""
    with guard():
        fights = service()
        name = fight_name(fights, chosen(fight, fight_opt))
        records = fights.log(name)
        gone = voided(records)
        if as_json:
            typer.echo(json.dumps(render.log_json(records, gone), indent=2))
            return
        state = fights.state(name)
        for record in records:
            mark = f"  [voided by {gone[record.seq]}]" if record.seq in gone else ""
            typer.echo(f"{record.seq:>4} {record.command[:8]}  {render.line(record.event, state)}{mark}")


@app.command()
def verify(fight: FightArg = None, fight_opt: FightOpt = None) -> None:
    """Check the hash chain, the seals, the dice (after reveal-seed) and re-run the rules (A-VERIFY-1)."""
    with guard():
        fights = service()
        name = fight_name(fights, chosen(fight, fight_opt))
        from engine.audit import verify as verify_log  # re-runs every decision: only this command needs it

        report = verify_log(fights.store.read(name))
        if not report.ok:
            seq, why = report.problems[0]
            raise fail(f"{name}: event {seq}: {why}" + (f" (and {len(report.problems) - 1} more)" if len(report.problems) > 1 else ""))
        dice = (f"{report.rolls_checked} generated rolls re-derived from revealed seeds"
                + (f", {report.rolls_unchecked} await `fudge reveal-seed`" if report.rolls_unchecked else ""))
        typer.echo(f"{name}: {report.events} events verified: hash chain intact, rules agree; {dice}")


@app.command()
def export(
    fight: FightArg = None,
    fight_opt: FightOpt = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
) -> None:
    """Write a fight's log as JSON lines, hashes included."""
    with guard():
        fights = service()
        lines = fights.export(fight_name(fights, chosen(fight, fight_opt)))
        text = "\n".join(lines) + "\n"
        if output is None:
            typer.echo(text, nl=False)
        else:
            write_file(output, text)
            typer.echo(f"{len(lines)} events written to {output}", err=True)


@app.command(name="import")
def import_(
    source: Annotated[Path, typer.Argument(help="A file written by `fudge export`.")],
    as_name: Annotated[str, typer.Option("--as", help="Name of the imported fight.")],
) -> None:
    """Import an exported log as a new fight (its hash chain is checked first)."""
    with guard():
        lines = read_file(source, "log").splitlines()
        fights = service()
        fights.import_(lines, as_name)
        typer.echo(f"imported {source} as {as_name}")


@app.command(name="reveal-seed")
def reveal_seed(fight: FightOpt = None) -> None:
    """Publish the dice seeds (A-FAIR-1) so `verify` re-derives every generated roll; a new seed is committed."""
    with guard():
        fights = service()
        name = fight_name(fights, fight)
        outcome = fights.reveal_seed(name)
        for record in outcome.records:
            typer.echo(f"{record.seq:>4}  {render.line(record.event, outcome.state)}")
