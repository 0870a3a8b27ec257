"""Rulesets and the demo: `fudge rules`, `fudge rules show NAME`, `fudge demo`."""

from __future__ import annotations

import os
import tempfile
from importlib import resources
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli import render
from cli.context import guard, service, settings
from engine import commands as cmd
from engine.audit import verify
from engine.errors import InputError
from engine.options import PRESETS, RuleOptions, option_rule, resolve
from engine.sheets import parse_sheet
from events import models as ev
from store.fights import DiceInput
from engine.dice import parse_faces

app = typer.Typer()
rules_app = typer.Typer(help="The rulesets: presets of options, and house rules on top.", invoke_without_command=True)
app.add_typer(rules_app, name="rules")


@rules_app.callback()
def rules_list(ctx: typer.Context) -> None:
    """List the presets (`fudge rules show NAME` prints every option)."""
    if ctx.invoked_subcommand is None:
        for preset in PRESETS.values():
            typer.echo(f"{preset.name:<14} {preset.summary}")


@rules_app.command("show")
def rules_show(
    name: Annotated[str, typer.Argument(help="A preset name.")],
    house: Annotated[Optional[Path], typer.Option("--house", help="House-rules TOML to apply on top.")] = None,
) -> None:
    """Every option of a preset (and house rules) with its value and the rule it comes from."""
    with guard():
        text = house.read_text() if house else None
        label, options = resolve(name, text, str(house) if house else "house rules")
        typer.echo(f"{label}")
        for field, info in RuleOptions.model_fields.items():
            value = getattr(options, field)
            typer.echo(f"  {field:<30} {str(value):<24} {option_rule(field):<12} {info.description}")


def sheet_text(name: str) -> str:
    return (resources.files("examples") / "sheets" / f"{name}.toml").read_text()


# The Fudge 4.7 fight between Snorri and Brynhild (F-EX), with the text's dice.
DEMO_FEX: list[tuple[str, object, list[str]]] = [
    ("Round 1: Snorri rolls +1, Brynhild -1; damage roll -2", cmd.Exchange(first="Snorri", second="Brynhild"),
     ["snorri=+ 0 0 0", "brynhild=- 0 0 0", "snorri=- - 0 0"]),
    ("Round 2: both Good: a stand-off", cmd.Exchange(first="Snorri", second="Brynhild"),
     ["snorri=0 0 0 0", "brynhild=+ 0 0 0"]),
    ("Round 3: Great vs Good, a graze; damage roll 0", cmd.Exchange(first="Snorri", second="Brynhild"),
     ["snorri=+ 0 0 0", "brynhild=+ 0 0 0", "snorri=0 0 0 0"]),
    ("Round 4: Snorri all-out offense", cmd.Declare(combatant="Snorri", declaration=ev.Declaration(all_out="offense")), []),
    ("         Brynhild all-out defense", cmd.Declare(combatant="Brynhild", declaration=ev.Declaration(all_out="defense")), []),
    ("         Great vs Great: no damage", cmd.Exchange(first="Snorri", second="Brynhild"),
     ["snorri=0 0 0 0", "brynhild=0 0 0 0"]),
    ("         Brynhild's Perception roll finds the spilled drink (F-MOD-7)",
     cmd.RollTrait(combatant="Brynhild", trait="Perception", difficulty=1, advantage=True), ["brynhild=0 0 0 0"]),
    ("Round 5: Brynhild all-out offense", cmd.Declare(combatant="Brynhild", declaration=ev.Declaration(all_out="offense")), []),
    ("         Good vs Great: her graze, +1 all-out, is a Hurt", cmd.Exchange(first="Snorri", second="Brynhild"),
     ["snorri=+ 0 0 0", "brynhild=+ 0 0 0", "brynhild=0 0 0 0"]),
]


def _dice(values: list[str]) -> DiceInput:
    given = DiceInput()
    for value in values:
        who, faces = value.split("=", 1)
        given.by_roller.setdefault(who, []).append(parse_faces(faces))
    return given


@app.command()
def demo(
    name: Annotated[str, typer.Option("--name", help="Name of the demo fight in the store.")] = "demo",
) -> None:
    """Play Fudge 4.7's Snorri vs Brynhild fight with the text's dice, then replay, undo, branch and verify it."""
    with guard():
        fights = service()
        existing = {f.name for f in fights.store.fights()}
        base, number = name, 2
        while name in existing:
            name, number = f"{base}-{number}", number + 1
        label, options = resolve("fudge", 'extends = "fudge"\nname = "fudge (4.7 example)"\ndamage_roll = "4dF_limited"\n')
        fights.new(name, label, options.model_dump(mode="json"))
        typer.echo(f"== {name}: Fudge 4.7, Snorri vs Brynhild, on {settings.store_path}")
        for who in ("snorri", "brynhild"):
            sheet = parse_sheet(sheet_text(who), f"{who}.toml")
            fights.execute(name, cmd.Join(sheet=sheet.model_dump(mode="json"), source=f"{who}.toml"))
        for caption, command, dice in DEMO_FEX:
            outcome = fights.execute(name, command, _dice(dice))
            typer.echo(f"-- {caption}")
            for record in outcome.records:
                typer.echo(f"{record.seq:>4}  {render.describe(record.event, outcome.state.ladder)}")
        typer.echo("-- a mistaken roll: Snorri rolls Sword vs Good, then the GM undoes it and redoes it")
        outcome = fights.execute(name, cmd.RollTrait(combatant="Snorri", trait="Sword", difficulty=1))
        for record in outcome.records:
            typer.echo(f"{record.seq:>4}  {render.describe(record.event, outcome.state.ladder)}")
        for command in (cmd.Undo(), cmd.Redo()):
            for record in fights.execute(name, command).records:
                typer.echo(f"{record.seq:>4}  {render.describe(record.event, outcome.state.ladder)}")
        state = fights.state(name)
        typer.echo("-- status")
        typer.echo(render.status_text(state))
        branch = f"{name}-what-if"
        fights.branch(name, branch, 19)  # after round 3: what if round 4 went otherwise?
        typer.echo(f"-- branched {branch} at event 19; back on {name}")
        fights.use(name)
        report = verify(fights.store.read(name))
        typer.echo(f"-- verify {name}: {'ok' if report.ok else report.problems[0]} ({report.events} events)")
        typer.echo(f"try: fudge log {name} | fudge replay {name} | fudge status --fight {branch}")
