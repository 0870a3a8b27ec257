"""Time travel and audit: undo, redo, branch, replay, log, verify, export, import, reveal-seed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from fudge_combat.cli import exits, render
from fudge_combat.cli.context import echo, echo_json, fail, fight_name, guard, read_file, service, within_log, write_file
from fudge_combat.cli.damaged import readable
from fudge_combat.cli.outcome import JsonOpt, json_of, report, said_of, show_consequences, undone_of
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events.receipt import parse as parse_receipt, receipt
from fudge_combat.engine.kernel.history import voided
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded
from fudge_combat.projections.consequences import Consequence, consequences, touched
from fudge_combat.projections.fold import evolve_all

if TYPE_CHECKING:
    from fudge_combat.service.fights import Fights

app = typer.Typer()

FightArg = Annotated[Optional[str], typer.Argument(help="Fight (default: the current one; or --fight).")]
FightOpt = Annotated[Optional[str], typer.Option(
    "--fight", "-f", metavar="FIGHT", help="Fight to act on (default: the current one).")]


@app.command()
def undo(
    to: Annotated[Optional[int], typer.Option("--to", metavar="SEQ", help="Undo every command after this event.")] = None,
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Void the last command in force (A-UNDO-1): appended, never deleted."""
    with guard():
        fights = service()
        name = fight_name(fights, fight)
        before = fights.state(name)
        outcomes = fights.undo_to(name, to) if to is not None else [fights.execute(name, cmd.Undo())]
        log = undone_of(fights, name)
        if as_json and len(outcomes) > 1:  # one document: the undos' events, each one's consequences
            reports = [json_of(outcome, said_of(was, outcome, log))
                       for was, outcome in zip([before, *(o.state for o in outcomes)], outcomes)]
            echo_json({"events": [e for r in reports for e in r["events"]],
                       "consequences": [c for r in reports for c in r["consequences"]],
                       "board": reports[-1]["board"]}, indent=2)
            return
        for outcome in outcomes:
            report(before, outcome, as_json, log)
            before = outcome.state


@app.command()
def redo(fight: FightOpt = None, as_json: JsonOpt = False) -> None:
    """Restore the most recently undone command."""
    with guard():
        fights = service()
        name = fight_name(fights, fight)
        before = fights.state(name)
        outcome = fights.execute(name, cmd.Redo())
        report(before, outcome, as_json, undone_of(fights, name))


@app.command()
def branch(
    name: Annotated[str, typer.Argument(help="Name of the new fight.")],
    at: Annotated[Optional[int], typer.Option("--at", metavar="SEQ", help="Fork after this event (default: the last).")] = None,
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Start a new fight from another's history up to an event (A-BRANCH-1); it becomes current."""
    with guard():
        fights = service()
        parent = fight_name(fights, fight)
        outcome = fights.branch(parent, name, at)
        if as_json:  # the branch's own event: the events before it are the parent's
            report(None, outcome, as_json)
            return
        started = outcome.records[0].event
        assert isinstance(started, ev.BranchStarted)  # a branch's first event
        echo(f"{name} branches from {parent} at event {started.fork_seq}; it is now current")


def chosen(argument: str | None, option: str | None) -> str | None:
    """The fight named as an argument or with --fight (as every other command takes it)."""
    if argument and option and argument.lower() != option.lower():
        raise InputError(f"two fights named: {argument} and --fight {option}; name one")
    return argument or option


@app.command()
def replay(
    fight: FightArg = None,
    fight_opt: FightOpt = None,
    to: Annotated[Optional[int], typer.Option("--to", metavar="SEQ", help="Stop at this event (as of).")] = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each event.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The state after each event, as JSON lines.")] = False,
) -> None:
    """Step through a fight event by event with the state after each (A-REPLAY-1)."""
    with guard():
        fights = service()
        name = fight_name(fights, chosen(fight, fight_opt))
        within_log(fights, name, to, "--to")
        with readable(fights, name):
            _replay(fights, name, to, step, as_json)


def _replay(fights: Fights, name: str, to: int | None, step: bool, as_json: bool) -> None:
    records = fights.log(name, to)
    gone = voided(records)
    said = Said(records)
    for index, (record, state) in enumerate(evolve_all(records)):
        if as_json:
            echo_json({"seq": record.seq, "type": record.event.type, "voided": record.seq in gone,
                       "state": render.status_json(state)}, sort_keys=True)
            continue
        mark = " (voided)" if record.seq in gone else ""
        line = said.line(record, state)
        echo(f"{record.seq:>4}  {line}{mark}")
        wounds = ", ".join(f"{c.name} {LEVELS[c.track.level]}" for c in state.combatants.values())
        if wounds:
            echo(f"        {wounds}")
        show_consequences(*said.after(index, state))
        if step and sys.stdin.isatty():
            input()


class Said:
    """The consequences of each command of a log, read as the log is folded once (A-REPLAY-1): at a
    command's last event, from the state after the command before it to the state after it."""

    def __init__(self, records: list[Recorded]) -> None:
        self.records = records
        self.by_command: dict[str, list[Recorded]] = {}
        for record in records:
            self.by_command.setdefault(record.command, []).append(record)
        self.before = FightState()
        self.first = 0  # the index of the current command's first event
        self.lines: list[str] = []  # the current command's event lines

    def line(self, record: Recorded, state: FightState) -> str:
        """The event's line (`render.line`), kept so its consequences do not say it again."""
        self.lines.append(render.line(record.event, state))
        return self.lines[-1]

    def after(self, index: int, state: FightState) -> tuple[list[Consequence], list[str]]:
        """The consequences to show after event `index` (none unless it ends its command), and the
        command's event lines."""
        records = self.records
        if index + 1 < len(records) and records[index + 1].command == records[index].command:
            return [], []
        mine = records[self.first:index + 1]
        said = consequences(self.before, state, mine, touched(self.by_command, mine))
        lines, self.lines = self.lines, []
        self.before, self.first = state, index + 1
        return said, lines


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
        with readable(fights, name):
            records = fights.log(name)
            gone = voided(records)
            if as_json:
                echo_json(render.log_json(records, gone), indent=2)
                return
            said = Said(records)
            for index, (record, state) in enumerate(evolve_all(records)):  # each line as of its event, as `replay`
                mark = f"  [voided by {gone[record.seq]}]" if record.seq in gone else ""
                echo(f"{record.seq:>4} {record.command[:8]}  {said.line(record, state)}{mark}")
                show_consequences(*said.after(index, state))


VERIFY_FAILED = exits.VERIFY_FAILED  # `fudge verify` found the log altered (exit 1: any other error)


@app.command()
def verify(
    fight: FightArg = None,
    fight_opt: FightOpt = None,
    head: Annotated[Optional[str], typer.Option(
        "--head", metavar="SEQ:HASH",
        help="A receipt kept from earlier (`fudge verify` and `fudge status` print it): the log must still "
             "hold that very event.")] = None,
) -> None:
    """Check the hash chain, the seals, the dice (after reveal-seed), re-run the rules (A-VERIFY-1), and check a
    receipt of the log's head kept outside the store (--head). Exit 3: the log does not verify."""
    with guard():
        try:
            wanted = parse_receipt(head) if head is not None else None
        except ValueError as exc:
            raise InputError(f"--head: {exc}") from None
        fights = service()
        name = fight_name(fights, chosen(fight, fight_opt))
        from fudge_combat.engine.audit import verify as verify_log  # re-runs every decision: only this command needs it

        from fudge_combat.service.history import lineage_of

        rows = fights.store.read(name)
        if not rows:  # a fight's log holds at least its start: one line, not a count of nothing
            from fudge_combat.service.fights import empty_log

            raise fail(empty_log(name), VERIFY_FAILED)
        report = verify_log(rows, lineage_of(fights.store, name), wanted)
        if not report.ok:
            seq, why = report.problems[0]
            more = f" (and {len(report.problems) - 1} more)" if len(report.problems) > 1 else ""
            raise fail(f"{name}: event {seq}: {why}{more}", VERIFY_FAILED)
        dice = (f"{report.rolls_checked} generated rolls re-derived from revealed seeds"
                + (f", {report.rolls_unchecked} await `fudge reveal-seed`" if report.rolls_unchecked else ""))
        echo(f"{name}: {report.events} events verified: hash chain intact, rules agree; {dice}")
        if wanted is not None:
            echo(f"receipt {wanted[0]}:{wanted[1]} holds: the log up to event {wanted[0]} is the one receipted")
        echo(f"receipt {receipt(rows[-1].seq, rows[-1].hash)}")


@app.command()
def export(
    fight: FightArg = None,
    fight_opt: FightOpt = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
) -> None:
    """Write a fight's log as JSON lines, hashes included."""
    with guard():
        fights = service()
        name = fight_name(fights, chosen(fight, fight_opt))
        with readable(fights, name):
            lines = fights.export(name)
        text = "\n".join(lines) + "\n"
        if output is None:
            # JSON lines, never coloured or wrapped: DEL as JSON writes it
            echo(text.replace("\x7f", "\\u007f"), nl=False, lines=True, styled=False)
        else:
            write_file(output, text)
            echo(f"{len(lines)} events written to {output}", err=True)
        last = json.loads(lines[-1])
        echo(f"receipt {receipt(last['seq'], last['hash'])}", err=True)


@app.command(name="import")
def import_(
    source: Annotated[Path, typer.Argument(help="A file written by `fudge export`.")],
    as_name: Annotated[str, typer.Option("--as", metavar="FIGHT", help="Name of the imported fight.")],
    as_json: JsonOpt = False,
) -> None:
    """Import an exported log as a new fight (its hash chain is checked first)."""
    with guard():
        lines = read_file(source, "log").splitlines()
        fights = service()
        outcome = fights.import_(lines, as_name)
        if as_json:  # every event the store now holds for it: the imported ones and the new seed's
            import msgspec

            records = fights.log(as_name)
            outcome = msgspec.structs.replace(outcome, state=fights.state(as_name))  # under the name given to it
            report(None, outcome, as_json, events=records, gone=voided(records))
            return
        echo(f"imported {source} as {as_name}")


@app.command(name="reveal-seed")
def reveal_seed(fight: FightOpt = None, as_json: JsonOpt = False) -> None:
    """Publish the dice seeds (A-FAIR-1) so `verify` re-derives every generated roll; a new seed is committed."""
    with guard():
        fights = service()
        name = fight_name(fights, fight)
        before = fights.state(name)
        outcome = fights.reveal_seed(name)
        report(before, outcome, as_json)
