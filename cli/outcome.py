"""How every command that writes shows what it did: its events, then what they mean at the table.

The events as `fudge log` reads them, each on its line; then the consequences (`projections.consequences`:
the wound a blow left and its penalty, who is out, whose turn it is, what an undo took back), indented
under an arrow; with `--json` the same as data: the events appended, the consequences, and the board after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fudge_combat.engine.kernel.words import counted
from fudge_combat.cli.context import echo, echo_json

if TYPE_CHECKING:  # the rest is imported when a command shows its result: `fudge status` (cli.fight) loads no engine
    from fudge_combat.engine.kernel.state import FightState
    from fudge_combat.events.records import Recorded
    from fudge_combat.projections.consequences import Consequence
    from fudge_combat.service.fights import Fights, Outcome, UnusedDice

JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print the events appended, their consequences and the board after them, as JSON.")]

ARROW = "  → "


def report(before: FightState | None, outcome: Outcome, as_json: bool = False,
           log: Callable[[Sequence[Recorded]], Sequence[Recorded]] | None = None,
           events: Sequence[Recorded] | None = None,
           gone: Mapping[int, int] | None = None, extra: Mapping[str, Any] | None = None) -> None:
    """Show one command's result. `before`: the state the command was decided on (None: nothing to
    compare, as for a new fight or a branch); `log(records)`: the records an undo or a redo among
    `records` took back or brought back (`undone_of`), read when it must say what they were; `events`: what to list under `--json` when the
    command wrote more than its own events (an import), and `gone` which of them are voided; `extra`: more keys
    of the JSON."""
    from fudge_combat.cli import render

    if outcome.replayed:
        if as_json:
            echo_json({"events": [], "consequences": [], "board": render.status_json(outcome.state),
                       "replayed": True}, indent=2)
        else:
            echo("already applied (same --command-id): nothing written")
        return
    said = said_of(before, outcome, log)
    if as_json:
        echo_json({**json_of(outcome, said, events, gone), **(extra or {})}, indent=2)
        return
    lines = []
    for record in outcome.records:
        lines.append(render.line(record.event, outcome.state, record.seq))
        echo(f"{record.seq:>4}  {lines[-1]}")
        for note in default_notes(record.event, outcome.state):
            echo(f"      {note}")
    for unused in outcome.unused:
        echo(unused_line(unused))
    show_consequences(said, lines)


def json_of(outcome: Outcome, said: Sequence[Consequence], events: Sequence[Recorded] | None = None,
            gone: Mapping[int, int] | None = None) -> dict[str, Any]:
    """`--json`: the events appended (as `fudge log --json` shows them), their consequences, the board after."""
    from fudge_combat.cli import render

    data: dict[str, Any] = {"events": render.log_json(list(events or outcome.records), dict(gone or {})),
                            "consequences": [{"kind": c.kind, "text": c.text} for c in said],
                            "board": render.status_json(outcome.state)}
    if outcome.unused:
        data["unused_dice"] = [unused_line(u) for u in outcome.unused]
    return data


def said_of(before: FightState | None, outcome: Outcome,
            log: Callable[[Sequence[Recorded]], Sequence[Recorded]] | None) -> list[Consequence]:
    """The consequences of `outcome` after `before` (none without `before`)."""
    from fudge_combat.projections.consequences import consequences, named_commands

    if before is None:
        return []
    undone: Sequence[Recorded] = []
    if log is not None and named_commands(outcome.records):
        undone = log(outcome.records)
    return consequences(before, outcome.state, outcome.records, undone)


def undone_of(fights: Fights, name: str) -> Callable[[Sequence[Recorded]], list[Recorded]]:
    """The records an undo or a redo names, read from the store by their command's id: a few rows,
    not the whole log (an undo takes the time of one command)."""
    def read(records: Sequence[Recorded]) -> list[Recorded]:
        from fudge_combat.events.records import load
        from fudge_combat.projections.consequences import named_commands

        out = []
        for command in named_commands(records):
            out += [load(row.body) for row in fights.reads.command_rows(name, command)]
        return sorted(out, key=lambda r: r.seq)
    return read


def unsaid(said: Iterable[Consequence], lines: Iterable[str] = ()) -> list[Consequence]:
    """The consequences an event line of the command does not already begin with in the same words
    ("round 2 begins" under `fudge round`): what is shown under the lines, here, in the browser and
    in a report (`--json` keeps them all)."""
    shown = tuple(lines)
    return [c for c in said if not any(line.startswith(c.text) for line in shown)]


def show_consequences(said: Iterable[Consequence], lines: Iterable[str] = ()) -> None:
    """The consequences under the command's event lines, but for those the lines already say."""
    for consequence in unsaid(said, lines):
        echo(f"{ARROW}{consequence.text}")


def unused_line(unused: UnusedDice) -> str:
    """Typed dice the command did not roll: shown, so the GM sees which of his dice did not count."""
    from fudge_combat.engine.kernel.dice import format_faces

    faces = ", ".join(getattr(f, "typed", None) or (format_faces(f) if all(-1 <= x <= 1 for x in f)
                                                    else " ".join(str(x) for x in f)) for f in unused.faces)
    if unused.roller == "(unnamed)":
        why = f"not needed: {counted(unused.used, 'roll')} took dice typed without a name" if unused.used else \
            "no roll took dice typed without a name"
    elif unused.rolled:
        why = f"not needed: {unused.roller} rolled only {', '.join(unused.rolled)}"
    else:
        why = f"not needed: {unused.roller} rolled nothing in this command"
    return f"unused dice: {unused.roller} {faces} ({why})"


def default_notes(event: Any, state: Any) -> list[str]:
    """A line for each trait a roll took at the rules' default because the sheet lacks it (C-ACT-1)."""
    from fudge_combat.events import structs as ev

    if not isinstance(event, (ev.ActionResolved, ev.StoryRolled)):
        return []
    rolled = [(event.combatant, event.trait)]
    if isinstance(event, ev.ActionResolved) and event.opponent is not None and event.opponent_trait is not None:
        rolled.append((event.opponent, event.opponent_trait))
    out = []
    for name, trait in rolled:
        who = state.find(name)
        if who is None or trait == "situational":
            continue
        _, level, source = who.fighter.trait(trait, state.options)
        if source == "sheet":
            continue
        kind = "attribute" if source == "missing attribute" else "skill"
        out.append(f"{who.name} has no {trait} {kind}: rolled at the default {state.ladder.name(level)} (C-ACT-1)")
    return out


def by_command(pairs: Iterable[tuple[Recorded, FightState]]) -> Iterable[list[tuple[Recorded, FightState]]]:
    """A fold's (event, state after it) pairs, one list per command (a command's events are contiguous)."""
    group: list[tuple[Recorded, FightState]] = []
    for pair in pairs:
        if group and pair[0].command != group[-1][0].command:
            yield group
            group = []
        group.append(pair)
    if group:
        yield group
