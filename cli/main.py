"""`fudge`: the GM's command line. Each module adds its commands; this one assembles them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli import atari, context, fate, fight, history, melee, recovery, rules, table

app = typer.Typer(
    name="fudge",
    help="Run FUDGE-family fights as an append-only event log: replay, undo, branch, audit.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def main(
    store: Annotated[Optional[Path], typer.Option(
        "--store", help="SQLite store file (default: $FUDGE_STORE or ./fudge.db).")] = None,
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, help="More logs on stderr (-vv: debug).")] = 0,
) -> None:
    context.configure_logging(verbose)
    context.settings.store_path = context.store_path(store)


for module in (fight, table, history, rules, recovery, atari, melee, fate):
    app.registered_commands += module.app.registered_commands
    app.registered_groups += module.app.registered_groups

from cli import sim  # noqa: E402  (Monte Carlo fights: `fudge sim`)

app.registered_commands += sim.app.registered_commands

if __name__ == "__main__":
    app()
