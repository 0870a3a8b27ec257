"""Fights and combatants: new, use, fights, join, status, initiative."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from cli.context import fight_name, guard, house_rules, open_store, read_file, service
from cli.views import stored_output, with_receipt
from engine import commands as cmd

if TYPE_CHECKING:
    from store.sqlite import SqliteStore

app = typer.Typer()

FightOpt = Annotated[Optional[str], typer.Option("--fight", "-f", help="Fight to act on (default: the current one).")]


@app.command()
def new(
    name: Annotated[str, typer.Argument(help="A name for the fight.")],
    rules: Annotated[str, typer.Option("--rules", "-r", help="Preset: see `fudge rules`.")] = "fudge",
    house: Annotated[Optional[Path], typer.Option("--house", help="House-rules TOML: extends a preset, overrides options.")] = None,
) -> None:
    """Start a fight and make it current. Its resolved rules are fixed in its first event."""
    with guard():
        rules_name, options = house_rules(rules, house)
        fights = service()
        fights.new(name, rules_name, options.model_dump(mode="json"))
        typer.echo(f"fight {name} started under {rules_name}; it is now the current fight")


@app.command()
def use(name: Annotated[str, typer.Argument(help="The fight to make current.")]) -> None:
    """Make a fight the current one."""
    with guard():
        service().use(name)
        typer.echo(f"current fight: {name}")


@app.command()
def fights(as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """List the fights in the store, with parent and fork point for branches."""
    with guard():
        store = service().store
        current = store.setting("current")
        rows = [{"name": f.name, "parent": f.parent, "fork_seq": f.fork_seq, "events": store.last_seq(f.name),
                 "current": f.name == current, "created_at": f.created_at} for f in store.fights()]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            typer.echo("no fights yet: `fudge new NAME` starts one")
        for row in rows:
            branch = f", branch of {row['parent']} at event {row['fork_seq']}" if row["parent"] else ""
            typer.echo(f"{'*' if row['current'] else ' '} {row['name']}: {row['events']} events{branch}")


@app.command()
def join(
    sheet: Annotated[Path, typer.Argument(help="Character sheet (TOML).")],
    side: Annotated[Optional[str], typer.Option("--side", help="Side (default: the sheet's, or its own name).")] = None,
    as_name: Annotated[Optional[str], typer.Option("--as", help="Join under another name (a second thug).")] = None,
    fight: FightOpt = None,
) -> None:
    """A combatant joins the fight from a sheet file; the sheet is copied into the log."""
    from engine.sheets import parse_sheet

    with guard():
        parsed = parse_sheet(read_file(sheet, "sheet"), str(sheet))
        fights = service()
        name = fight_name(fights, fight)
        outcome = fights.execute(name, cmd.Join(sheet=parsed.model_dump(mode="json"), source=sheet.name,
                                                name=as_name, side=side))
        joined = outcome.records[-1].event
        typer.echo(f"{joined.combatant} joins {name} (side {joined.side})")


@app.command()
def status(
    fight: FightOpt = None,
    as_of: Annotated[Optional[int], typer.Option("--as-of", help="State as of this event.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Wounds, penalties, fudge points, declarations and initiative of everyone."""
    with guard():
        store = open_store()
        stored = stored_output(store, fight, as_json) if as_of is None else None  # the read model: no fold
        if stored is not None:
            typer.echo(stored)
            return
        from cli import render
        from cli.damaged import readable

        fights = service(store)
        name = fight_name(fights, fight)
        with readable(fights, name):
            state = fights.state(name, as_of)
            if as_json:
                typer.echo(json.dumps(render.status_json(state), indent=2))
                return
            text = render.status_text(state)
        typer.echo(with_receipt(text, *head_at(store, name, state.last_seq)))


def head_at(store: SqliteStore, name: str, seq: int) -> tuple[int, str]:
    """(seq, hash) of the event a status shows the fight at: its receipt ((0, "") before the first)."""
    tail = store.tail(name)
    if seq == tail[0]:
        return tail
    rows = store.read(name, seq)[-1:]
    return (seq, rows[0].hash) if rows and rows[0].seq == seq else (0, "")


@app.command()
def initiative(fight: FightOpt = None) -> None:
    """The initiative cards: each combatant's dice in the five phase rows (* = acts)."""
    from cli import render

    with guard():
        fights = service()
        state = fights.state(fight_name(fights, fight))
        if not state.initiative:
            typer.echo("no initiative this round: `fudge round` rolls it")
        for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
            if who.key in state.initiative:
                typer.echo(who.name)
                typer.echo("\n".join(render.card(state, who)))
