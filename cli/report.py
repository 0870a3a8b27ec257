"""`fudge report`: a fight's after-action report, HTML (one file, offline) or Markdown (a forum post)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from fudge_combat.cli import exits
from fudge_combat.cli.context import echo, fail, fight_name, guard, service, write_file
from fudge_combat.cli.damaged import readable
from fudge_combat.engine.kernel.errors import InputError

app = typer.Typer()

FORMATS = ("html", "md")


@app.command()
def report(
    fight: Annotated[Optional[str], typer.Argument(help="Fight (default: the current one).")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "--output", "-o", metavar="FILE", help="File to write (default: stdout).")] = None,
    form: Annotated[str, typer.Option(
        "--format", metavar="FORMAT", help="html (one self-contained file) or md (Markdown, for a forum).")] = "html",
) -> None:
    """The fight's story round by round, wound charts, each roll's luck, the dice's fairness, the points spent,
    and the proof the log is unaltered (verify, receipt, seeds). Exit 3: written, but the log does not verify."""
    with guard():
        if form not in FORMATS:
            raise InputError(f"--format {form}: choose html or md")
        if output is None and form == "html" and sys.stdout.isatty():  # a page of markup is no reading at a terminal
            raise InputError("the report is HTML: write it to a file with -o FILE (or --format md)")
        from fudge_combat.cli.web.report import facts, html_report, md_report
        from fudge_combat.engine.audit import verify as verify_log

        fights = service()
        name = fight_name(fights, fight)
        with readable(fights, name):
            rows = fights.store.read(name)
            records = fights.log(name)
            state = fights.state(name)
        verified = verify_log(rows, fights.store.fight(name).fight_id)
        branches = [info for info in fights.store.fights() if info.parent == name]
        found = facts(name, state, records, [row.hash for row in rows], verified, branches)
        text = html_report(found) if form == "html" else md_report(found)
        if output is None:
            echo(text, nl=False, lines=True, styled=False)
        else:
            write_file(output, text)
            echo(f"report of {name} written to {output} ({len(records)} events)", err=True)
        if not verified.ok:
            seq, why = verified.problems[0]
            raise fail(f"{name}: event {seq}: {why}: the report says so", exits.VERIFY_FAILED)
