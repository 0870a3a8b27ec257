"""`fudge`: the GM's command line. Each module adds its commands; this one assembles them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.main import get_command_name

from cli import atari, context, fate, fight, history, melee, odds, recovery, rules, table


class _Fudge(typer.Typer):
    """Builds only the command the command line names.

    Typer reads every command's options from its signature when the program starts; for one
    command that was most of its start-up time. Help, no command or an unknown one: all of them.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        wanted = _named(sys.argv[1:])
        commands, groups = self.registered_commands, self.registered_groups
        keep = [c for c in commands if (c.name or get_command_name(c.callback.__name__)) == wanted]
        keep_groups = [g for g in groups if g.name == wanted]
        if keep or keep_groups:
            self.registered_commands, self.registered_groups = keep, keep_groups
        try:
            return super().__call__(*args, **kwargs)
        finally:
            self.registered_commands, self.registered_groups = commands, groups


def _named(argv: list[str]) -> str | None:
    """The command in `fudge [--store FILE] [-v] COMMAND ...`."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token == "--store":
            skip = True
        elif not token.startswith("-"):
            return token
    return None


app = _Fudge(
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


# The help groups commands by what a GM is doing (module by module).
PANELS = ((fight, "Fights and combatants"), (table, "At the table"), (melee, "At the table"),
          (recovery, "After the blows"), (atari, "Atari Isev"), (fate, "Fate"),
          (history, "History and audit"), (rules, "Rules and demos"), (odds, "Odds and simulation"))

for module, panel in PANELS:
    for info in (*module.app.registered_commands, *module.app.registered_groups):
        info.rich_help_panel = info.rich_help_panel or panel
    app.registered_commands += module.app.registered_commands
    app.registered_groups += module.app.registered_groups

from cli import sim  # noqa: E402  (Monte Carlo fights: `fudge sim`)

for info in sim.app.registered_commands:
    info.rich_help_panel = info.rich_help_panel or "Odds and simulation"
app.registered_commands += sim.app.registered_commands

if __name__ == "__main__":
    app()
