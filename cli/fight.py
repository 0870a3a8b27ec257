"""Fights and combatants: new, use, fights, join, status, initiative."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from fudge_combat.cli.context import (echo, echo_json, fight_name, fight_named, guard, house_rules, open_store, read_file, service,
                         within_log)
from fudge_combat.cli.outcome import JsonOpt, report, said_of, show_consequences
from fudge_combat.cli.views import Shown, board_shown, board_width, show, stored_output, with_receipt
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.events import structs as ev
from fudge_combat.events.records import json_form

if TYPE_CHECKING:
    from fudge_combat.store.sqlite import SqliteStore

app = typer.Typer()

FightOpt = Annotated[Optional[str], typer.Option(
    "--fight", "-f", metavar="FIGHT", help="Fight to act on (default: the current one).")]


@app.command()
def new(
    name: Annotated[str, typer.Argument(help="A name for the fight.")],
    rules: Annotated[str, typer.Option(
        "--rules", "-r", metavar="PRESET", help="Preset: see `fudge rules`.")] = "fudge",
    house: Annotated[Optional[Path], typer.Option("--house", help="House-rules TOML: extends a preset, overrides options.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Start a fight and make it current. Its resolved rules are fixed in its first event."""
    with guard():
        rules_name, options = house_rules(rules, house)
        fights = service()
        outcome = fights.new(name, rules_name, json_form(options))
        if as_json:
            report(None, outcome, as_json)
            return
        echo(f"fight {name} started under {rules_name}; it is now the current fight")


@app.command()
def use(name: Annotated[str, typer.Argument(metavar="FIGHT", help="The fight to make current.")]) -> None:
    """Make a fight the current one."""
    with guard():
        fights = service()
        name = fight_named(fights.store, name)
        fights.use(name)
        echo(f"current fight: {name}")


@app.command()
def fights(as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """List the fights in the store, with parent and fork point for branches."""
    with guard():
        held = service()
        store = held.store
        current = store.setting("current")
        rows = [{"name": f.name, "parent": f.parent, "fork_seq": f.fork_seq, "events": held.reads.last_seq(f.name),
                 "current": f.name == current, "created_at": f.created_at} for f in store.fights()]
        if as_json:
            echo_json(rows, indent=2)
            return
        if not rows:
            echo("no fights yet: `fudge new NAME` starts one")
        for row in rows:
            branch = f", branch of {row['parent']} at event {row['fork_seq']}" if row["parent"] else ""
            echo(f"{'*' if row['current'] else ' '} {row['name']}: {row['events']} events{branch}")


@app.command()
def join(
    sheet: Annotated[Path, typer.Argument(help="Character sheet (TOML).")],
    side: Annotated[Optional[str], typer.Option(
        "--side", metavar="SIDE", help="Side (default: the sheet's, or its own name).")] = None,
    as_name: Annotated[Optional[str], typer.Option(
        "--as", metavar="NAME", help="Join under another name (a second thug).")] = None,
    new_side: Annotated[bool, typer.Option(
        "--new-side", help="--side names a new side, though one already joined is spelled almost so.")] = False,
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A combatant joins the fight from a sheet file; the sheet is copied into the log."""
    from fudge_combat.engine.kernel.sheets import parse_sheet, unlisted_combat_traits

    with guard():
        parsed = parse_sheet(read_file(sheet, "sheet"), str(sheet))
        fights = service()
        name = fight_name(fights, fight)
        state = fights.state(name)
        if side is not None and not new_side:
            typo_of_a_side(state, side)
        warnings = unlisted_combat_traits(parsed, state.options, state.ladder, str(sheet), as_name)
        outcome = fights.execute(name, cmd.Join(sheet=json_form(parsed), source=sheet.name,
                                                name=as_name, side=side))
        if as_json:
            report(state, outcome, as_json)
            for warning in warnings:
                echo(f"warning: {warning}", err=True)
            return
        joined = outcome.records[-1].event
        assert isinstance(joined, ev.CombatantJoined)  # a join's last event
        echo(f"{joined.combatant} joins {name} (side {joined.side})")
        for warning in warnings:
            echo(f"  warning: {warning}")
        show_consequences(said_of(state, outcome, None))


def typo_of_a_side(state: Any, side: str) -> None:
    """A `--side` spelled almost as a side already joined is a typo far more often than a new side (a new side
    would silently change who is whose foe): refused, with the near side and `--new-side` to mean it."""
    import difflib

    sides = sorted({who.side for who in state.combatants.values()})
    if side.lower() in {known.lower() for known in sides}:
        return
    near = difflib.get_close_matches(side.lower(), [known.lower() for known in sides], n=1, cutoff=0.7)
    if near:
        meant = next(known for known in sides if known.lower() == near[0])
        raise InputError(f"no side {side!r} has joined: did you mean --side {meant}? "
                         f"(`--new-side` makes side {side} on purpose)")


@app.command()
def status(
    fight: FightOpt = None,
    as_of: Annotated[Optional[int], typer.Option("--as-of", metavar="SEQ", help="State as of this event.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    long: Annotated[bool, typer.Option("--long", help="Everyone's full card: every box, the initiative "
                                                      "card, stun, parts, willpower.")] = False,
    with_head: Annotated[bool, typer.Option("--receipt", help="Add the receipt of the event shown (SEQ:HASH, "
                                                              "for `fudge verify --head` later).")] = False,
) -> None:
    """The board: everyone in turn order, whose turn it is, wounds, boxes, points, initiative and
    declarations (`--long`: the full cards; `--receipt`: the receipt under it, as `fudge verify` ends)."""
    import sys

    width = board_width(sys.stdout)
    with guard():
        store = open_store()
        fight = fight_named(store, fight) if fight else None
        stored = stored_output(store, fight, as_json, long, width, with_head) if as_of is None else None  # no fold
        if stored is not None:
            show(stored)
            return
        from fudge_combat.cli import render
        from fudge_combat.cli.damaged import readable

        fights = service(store)
        name = fight_name(fights, fight)
        within_log(fights, name, as_of, "--as-of")
        with readable(fights, name):
            state = fights.state(name, as_of)
            if as_json:
                echo_json(render.status_json(state), indent=2)
                return
            head = head_at(store, name, state.last_seq) if with_head else (0, "")
            if long:
                shown = Shown(with_receipt(render.status_text(state), *head))
            else:
                from fudge_combat.projections.board import board_lines

                shown = board_shown(board_lines(state, width), *head)
        show(shown)


def head_at(store: SqliteStore, name: str, seq: int) -> tuple[int, str]:
    """(seq, hash) of the event a status shows the fight at: its receipt ((0, "") before the first)."""
    tail = store.tail(name)
    if seq == tail[0]:
        return tail
    rows = store.read(name, seq)[-1:]
    return (seq, rows[0].hash) if rows and rows[0].seq == seq else (0, "")


@app.command()
def initiative(fight: FightOpt = None) -> None:
    """Who acts when, in the order the fight's rules use: phase cards (* = acts), rolled totals, or
    Fate's order by Alertness."""
    from fudge_combat.cli import render

    with guard():
        fights = service()
        state = fights.state(fight_name(fights, fight))
        if not state.options.initiative.startswith("phases"):
            for line in order_lines(state):
                echo(line)
            return
        if not state.initiative:
            echo("no initiative this round: `fudge round` rolls it")
        for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
            if who.key in state.initiative:
                echo(who.name)
                for line in render.card(state, who):
                    echo(line)


def order_lines(state: Any) -> list[str]:
    """The order of a fight without phase cards: rolled totals (F-INIT-2, AI-INIT-2), Fate's Alertness
    order (FT-INIT), or none (simultaneous rounds, F-INIT-1; Fate's exchange and scene paces)."""
    kind = state.options.initiative
    if kind in ("opposed", "ranked"):
        if not state.ranked:
            return [f"no initiative rolled for round {state.round + 1} yet: `fudge round` rolls it "
                    f"({ruleset_of(state).ranked_rule})"]
        turn = state.turn.combatant if state.turn else None
        lines = [f"round {state.round}: rolled initiative, highest total first"
                 + (" (equal totals act together, AI-INIT-2)" if ruleset_of(state).ties_together else "")]
        for key, rolled in sorted(state.ranked.items(), key=lambda item: -item[1].total):
            mark = ">" if key == turn else " "
            how = " (automatic)" if rolled.automatic else ""
            lines.append(f"  {mark} {rolled.total:+3d}  {state.combatants[key].name}{how}")
        return lines
    if kind == "alertness":
        order, had = ruleset_of(state).own_order(state)
        if not order:
            return ["no order yet: `fudge fate round` orders the round by Alertness (FT-INIT)"]
        lines = [f"round {state.round}: turns by Alertness, then Tactics, then combat skill (FT-INIT)"]
        for number, key in enumerate(order, start=1):
            done = " (has acted)" if key in had else ""
            lines.append(f"  {number}. {state.combatants[key].name}{done}")
        return lines
    return [ruleset_of(state).no_order(state.options.pace)]
