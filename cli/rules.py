"""Rulesets and the demo: `fudge rules`, `fudge rules show NAME`, `fudge rules explain ID`, `fudge demo`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Optional

import typer

from fudge_combat.events.records import json_form
from fudge_combat.cli import render, rule_texts
from fudge_combat.cli.context import echo, fight_name, guard, house_rules, service, settings
from fudge_combat.cli.outcome import said_of, show_consequences, undone_of
from fudge_combat.engine.kernel.dice import parse_faces
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel import models
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import option_rule, presets, resolve
from fudge_combat.service.dice import DiceInput

app = typer.Typer()
rules_app = typer.Typer(help="The rulesets: presets of options, house rules on top, and each rule in plain words "
                              "(`fudge rules` lists the presets).", invoke_without_command=True)
app.add_typer(rules_app, name="rules")


@rules_app.callback()
def rules_list(ctx: typer.Context) -> None:
    """List the presets (`fudge rules show NAME` prints every option)."""
    if ctx.invoked_subcommand is None:
        for preset in presets().values():  # the built-in ones, and an installed ruleset's
            echo(f"{preset.name:<14} {preset.summary}")


@rules_app.command("show")
def rules_show(
    name: Annotated[Optional[str], typer.Argument(
        help="A preset name; without one, the options recorded in a fight (--fight, or the current one).")] = None,
    house: Annotated[Optional[Path], typer.Option("--house", help="House-rules TOML to apply on top.")] = None,
    fight: Annotated[Optional[str], typer.Option(
        "--fight", metavar="FIGHT", help="Show the options recorded in this fight.")] = None,
) -> None:
    """Every option with its value and the rule it comes from; `*` marks a value that differs from the default."""
    with guard():
        if name is None:
            if house is not None:
                raise InputError("--house applies to a preset: `fudge rules show PRESET --house FILE`")
            fights = service()
            fight_key = fight_name(fights, fight)
            state = fights.state(fight_key)
            label, options = f"{state.rules} (recorded in fight {state.name})", state.options
        else:
            if fight is not None:
                raise InputError("give a preset or --fight, not both")
            label, options = house_rules(name, house)
        echo(label)
        defaults = RuleOptions()
        for field, info in models.RuleOptions.model_fields.items():
            value = getattr(options, field)
            mark = " " if value == getattr(defaults, field) else "*"
            echo(f"{mark} {field:<30} {option_rule(field):<12} {shown_value(field, value):<20} {info.description}")


@rules_app.command("explain")
def rules_explain(
    rule_id: Annotated[str, typer.Argument(
        metavar="RULE", help="A rule ID as the help and the log cite it (F-MOD-6), or a family of rules (F-MOD).")],
) -> None:
    """A rule in plain words, as the rules digest numbers it: what the simulator implements, and its decisions."""
    with guard():
        known = rule_texts.rules()
        wanted = rule_id.strip().upper()
        found = rule_texts.family(known, wanted)
        if not found:
            meant = rule_texts.suggestions(known, wanted)
            families = ", ".join(key for key in known if "-" not in key)
            hint = f": did you mean {' or '.join(meant)}?" if meant else f"; the rules are numbered by family: {families}"
            raise InputError(f"no rule {rule_id!r}{hint}")
        width = min(shutil.get_terminal_size().columns, 100)
        for number, rule in enumerate(found):
            if number:
                echo("")
            for line in rule_texts.explain(rule, width):
                echo(line)


def shown_value(field: str, value: object) -> str:
    """An option's value as a GM would write it."""
    if field == "ladder_levels":
        assert isinstance(value, tuple)  # RuleOptions.ladder_levels: (name, value) pairs
        return ", ".join(f"{n} {v:+d}" for n, v in value) or "-"
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value) or "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _dice(values: tuple[str, ...]) -> DiceInput:
    given = DiceInput()
    for value in values:
        who, faces = value.split("=", 1)
        given.by_roller.setdefault(who, []).append(parse_faces(faces))
    return given


@app.command()
def demo(
    which: Annotated[Optional[str], typer.Argument(
        help="Which demo: fudge (the default), or see --list.", show_default=False)] = None,
    name: Annotated[Optional[str], typer.Option(
        "--name", metavar="FIGHT", help="Name of the demo fight in the store.")] = None,
    list_them: Annotated[bool, typer.Option("--list", help="List the demos and stop.")] = False,
) -> None:
    """Play a fight with its source text's dice, showing every event; then its status, and verify it."""
    from fudge_combat.cli.demos import DEMOS  # only this command needs the scripts

    if list_them:
        for entry in DEMOS.values():
            echo(f"{entry.name:<14} {entry.summary}")
        return
    with guard():
        chosen = DEMOS.get(which or "fudge")
        if chosen is None:
            raise InputError(f"no demo {which!r}; demos: {', '.join(DEMOS)}")
        fights = service()
        existing = {f.name for f in fights.store.fights()}
        base = name or ("demo" if chosen.name == "fudge" else f"demo-{chosen.name}")
        fight, number = base, 2
        while fight in existing:
            fight, number = f"{base}-{number}", number + 1
        label, options = resolve(chosen.rules, chosen.house)
        fights.new(fight, label, json_form(options))
        echo(f"== {fight}: {chosen.summary}; store {getattr(fights.store, 'where', settings.store_path)}")
        for caption, command, dice in chosen.steps:
            before = fights.state(fight)
            outcome = fights.execute(fight, command, _dice(dice))
            echo(f"-- {caption}")
            lines = [render.line(record.event, outcome.state, record.seq) for record in outcome.records]
            for record, line in zip(outcome.records, lines):
                echo(f"{record.seq:>4}  {line}")
            show_consequences(said_of(before, outcome, undone_of(fights, fight)), lines)
        state = fights.state(fight)
        echo("-- status")
        echo(render.status_text(state), lines=True)
        tries = [f"fudge log {fight}", f"fudge replay {fight}"]
        if chosen.branch_at is not None:
            branch = f"{fight}-what-if"
            fights.branch(fight, branch, chosen.branch_at)
            fights.use(fight)
            echo(f"-- branched {branch} at event {chosen.branch_at}; back on {fight}")
            tries.append(f"fudge status --fight {branch}")
        from fudge_combat.engine.audit import verify  # re-runs every decision: only this command needs it

        report = verify(fights.store.read(fight))
        echo(f"-- verify {fight}: {'ok' if report.ok else report.problems[0]} ({report.events} events)")
        echo("try: " + "; ".join(tries))
