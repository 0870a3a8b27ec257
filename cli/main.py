"""`fudge`: the GM's command line. Each module adds its commands; this one assembles them."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer
from typer.core import TyperCommand
from typer.main import get_command_name
from typer.models import CommandInfo, TyperInfo

from fudge_combat.cli import context, exits, terminal, views
from fudge_combat.cli.params import FudgeCommand, FudgeGroup


try:  # Typer vendors click since 0.22; before, it raised click's own exceptions
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors  # type: ignore[no-redef]  # the same module, before Typer vendored it

# Where each command is declared (module of `cli`), in the order the help lists the modules: `fudge NAME`
# imports that module alone (tests/test_cli_startup.py checks this table against the modules).
COMMANDS: dict[str, str] = {
    **dict.fromkeys(("new", "use", "fights", "join", "status", "initiative"), "fight"),
    "sheet": "sheet",
    "play": "play",
    **dict.fromkeys(("declare", "exchange", "attack", "roll", "round", "barter", "next", "order", "hold", "intend",
                     "spend", "kill", "shoot"), "table"),
    **dict.fromkeys(("melee", "story"), "melee"),
    **dict.fromkeys(("mark", "unmark", "leave"), "conditions"),
    "act": "act",
    **dict.fromkeys(("end", "wound", "rest", "heal"), "recovery"),
    **dict.fromkeys(("willpower", "resist-spell", "heroic"), "atari"),
    **dict.fromkeys(("fate", "end-scene"), "fate"),
    **dict.fromkeys(("undo", "redo", "branch", "replay", "log", "verify", "export", "import", "reveal-seed"),
                    "history"),
    **dict.fromkeys(("rules", "demo"), "rules"),
    "odds": "odds",
    "serve": "serve",
    "invite": "invite",
    "report": "report",
    "sim": "sim",
    "secrets": "secrets",
    **dict.fromkeys(("store", "share", "club"), "club"),
}

# The help groups commands by what a GM is doing (module by module).
PANELS = {"fight": "Fights and combatants", "sheet": "Fights and combatants", "play": "At the table",
          "table": "At the table", "melee": "At the table", "conditions": "At the table", "act": "At the table",
          "recovery": "After the blows", "atari": "Atari Isev", "fate": "Fate", "history": "History and audit",
          "rules": "Rules and demos", "odds": "Odds and simulation", "sim": "Odds and simulation",
          "secrets": "History and audit", "club": "A club's server", "serve": "For the players",
          "invite": "For the players", "report": "For the players"}


def _commands(modules: Sequence[str], one_shot: bool, name: str | None = None) -> dict[str, Any]:
    """The click commands the `modules` of `cli` declare (only the one called `name`, when given), built as
    Typer builds an app's: its commands, then its groups, each in its panel with its parameters in the GM's
    words. Their modules are imported by `start_up`."""
    commands: list[CommandInfo] = []
    groups: list[TyperInfo] = []
    for module, imported in zip(modules, start_up(modules, one_shot)):
        for kind, out in (("registered_commands", commands), ("registered_groups", groups)):
            found: list[Any] = getattr(imported.app, kind)
            for info in found:
                if name is None or (info.name or get_command_name(info.callback.__name__)) == name:
                    info.rich_help_panel = info.rich_help_panel or PANELS[module]
                    _plain_help(info)
                    out.append(info)
    holder = typer.Typer()  # Typer's own build of these, as of any app's (typer.main.get_group)
    holder.registered_commands, holder.registered_groups = commands, groups
    return dict(typer.main.get_group(holder).commands)


def start_up(modules: Sequence[str], one_shot: bool) -> list[Any]:
    """The modules of `cli` that declare the commands Typer is about to read, imported: fudge's start-up
    measures, all here. Each is measured against the code without it in bench/README.md (*One-shot
    command*, what each start-up measure buys); none changes what a command does.

    - Only the module of the command the line names is imported and only that command is built (`COMMANDS`,
      through click's documented lazy loading of subcommands: `_Fudge.get_command`): a command's module
      brings the engine and the event models, and Typer reads every command's options from its signature,
      most of a command's start-up. (In the same spirit `engine.commands` creates
      each command class when it is first named, and a Fudge fight loads neither Fate's nor Atari Isev's
      rules: that row of the table.)
    - When fudge runs as the program (`one_shot`):
      - pydantic looks for no plugin (fudge uses none): its documented `PYDANTIC_DISABLE_PLUGINS`, unless
        the environment sets it, so pydantic does not read the entry points of every installed package
        when it builds its first schema;
      - the module is imported with the cyclic garbage collector paused, then what the import made is
        frozen out of every later collection (`gc.freeze`, as a server that forks does): it lives as long
        as the process, and the collector walked those tens of thousands of objects many times while they
        were made, finding nothing to free. The collector then runs as before on what the command makes.
      A test's runner calling the app in a process that goes on keeps its environment and its collector.
    """
    names = [f"fudge_combat.cli.{module}" for module in modules]
    if not one_shot or all(name in sys.modules for name in names):
        return [importlib.import_module(name) for name in names]
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [importlib.import_module(name) for name in names]
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _plain_help(info: CommandInfo | TyperInfo) -> None:
    """Every command and group shows its parameters in the GM's words (cli.params), those of a group too."""
    if isinstance(info, TyperInfo):
        info.cls = info.cls or FudgeGroup
        for command in info.typer_instance.registered_commands if info.typer_instance else ():
            _plain_help(command)
    elif info.cls in (None, TyperCommand):  # Typer's default
        info.cls = FudgeCommand


INTERNAL_ERROR = exits.INTERNAL_ERROR


def last_resort(exc: Exception) -> None:
    """An error no command caught: one line, never a traceback (FUDGE_TRACEBACK=1 shows it, for a report).

    Commands turn what the GM or the machine caused into their own `error:` lines (cli.context.guard);
    what reaches here is a defect, or the machine refusing output (a closed pipe, a full disk).
    """
    if isinstance(exc, BrokenPipeError):  # `fudge log | head`: the reader has all it wanted
        closed_pipe()
    line = context.edge_message(exc)
    if line is not None:
        context.echo(f"error: {line}", err=True)
        raise SystemExit(1) from None
    if isinstance(exc, OSError):  # writing the output itself failed (stdout on a full disk)
        context.echo(f"error: cannot write the output: {exc.strerror or exc}", err=True)
        raise SystemExit(1) from None
    if os.environ.get("FUDGE_TRACEBACK"):
        raise exc
    context.echo(f"internal error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''} "
                 "(a defect of fudge: please report it, with the command; FUDGE_TRACEBACK=1 shows where)", err=True)
    raise SystemExit(INTERNAL_ERROR) from None


def closed_pipe() -> NoReturn:
    """`fudge log | head`: the reader has all it wanted. Exit 141, as a shell reports a command SIGPIPE
    stopped, without a word; the output is pointed at /dev/null so Python's last flush does not fail again."""
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (AttributeError, OSError, ValueError):  # not a file (a test's capture): nothing to flush
            pass
    raise SystemExit(exits.CLOSED_PIPE)


COMPLETE_VAR = "_FUDGE_COMPLETE"  # set by the script `fudge --show-completion` prints: the shell asks for words


def _completing() -> list[str] | None:
    """The words before the one the shell is completing (None: the shell is not asking), read as Typer reads
    them: completing `fudge attack --fight <TAB>` needs the module of `attack` alone."""
    instruction = os.environ.get(COMPLETE_VAR)
    if not instruction:
        return None
    from typer._completion_classes import completion_init
    from typer._click.shell_completion import get_completion_class

    completion_init()
    shell = get_completion_class(instruction.partition("_")[2])  # Typer's style: complete_bash
    if shell is None or not instruction.startswith("complete_"):
        return []
    try:
        words, _ = shell(None, {}, "fudge", COMPLETE_VAR).get_completion_args()  # type: ignore[arg-type]  # no command: only the shell's words are read
    except (KeyError, ValueError):  # the shell's variables are missing: Typer says so when it reads them
        return []
    return list(words)


def version() -> str:
    """This fudge's version: the installed package's, else (a source checkout run with `python -m fudge_combat.cli.main`)
    the one pyproject.toml declares."""
    from importlib import metadata

    try:
        return metadata.version("fudge-combat")
    except metadata.PackageNotFoundError:
        import tomllib

        try:
            pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
            return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])
        except (OSError, ValueError, KeyError):
            return "(version unknown: not installed, and no pyproject.toml beside the sources)"


def _show_version(value: bool) -> None:
    """`--version` as Typer parses it (the fast path in `_Fudge.main` answers the plain form first)."""
    if value:
        context.echo(f"fudge {version()}")
        raise typer.Exit()


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


class _Fudge(FudgeGroup):
    """`fudge`'s click group: it builds only the command the command line names, and says a usage error in one
    line.

    The commands are read from their modules when click asks for one (`get_command`, `list_commands`: click's
    documented way of loading subcommands lazily; `COMMANDS` says which module, `start_up` why). Help, no
    command, an unknown one or the completion of a command's name: all of them.

    A usage error is one line on stderr, as every other error is: what is wrong, and where help is.
    Typer shows it as a panel of four lines (usage, hint, and the message boxed); docs/table.md promises
    `error: ...` and a non-zero exit (2, click's code for usage errors).
    """

    one_shot = False  # run as the program (`fudge ...`), not called by a test's runner or another program

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = self.commands.get(cmd_name)
        if found is None and cmd_name in COMMANDS:
            self.commands.update(_commands([COMMANDS[cmd_name]], self.one_shot, cmd_name))
            found = self.commands.get(cmd_name)
        elif found is None:  # no such command: all of them, for the close ones the error names
            self.list_commands(ctx)
        return found

    def list_commands(self, ctx: Any) -> list[str]:
        every = _commands(list(PANELS), self.one_shot)
        self.commands = {name: self.commands.get(name, command) for name, command in every.items()}
        return list(self.commands)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:  # where `--help` is printed
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:  # before Typer makes it exit 1
            closed_pipe()

    def invoke(self, ctx: Any) -> Any:  # where a command prints
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            closed_pipe()

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        if prog_name is not None:  # a test's runner, or `fudge play`'s line: it handles what a command raises
            return self._main(args, prog_name, complete_var, standalone_mode, windows_expand_args, **extra)
        completing = _completing()  # called as `app()`: the console script, or a program calling it
        plain = args is None and completing is None and standalone_mode and not extra
        if plain:  # run as the program: an output that cannot print the board's symbols gets them in ASCII
            terminal.fit_output_encoding()
        try:
            if plain and _named(sys.argv[1:]) == "status":
                shown = views.shown_from_argv(sys.argv[1:])  # the stored read model, if valid: no command built
                if shown is not None:
                    views.show(shown)  # its lines escaped when it was built
                    return None
            if plain and _named(sys.argv[1:]) is None and "--version" in sys.argv[1:]:
                context.echo(f"fudge {version()}")  # no command module, no engine: as quick as Python starts
                return None
            self.one_shot = plain
            if plain:
                read = _read_quickly(sys.argv[1:])
                if read is not None:
                    _exit_as_typer(lambda: _run(*read), read[0])
            # under `python -m fudge_combat.cli.main` too: help and completion say fudge
            return self._main(args, "fudge", complete_var or COMPLETE_VAR, standalone_mode, windows_expand_args,
                              **extra)
        except Exception as exc:  # SystemExit and Ctrl-C pass: Typer and the shell handle them
            last_resort(exc)

    def _main(self, args: Sequence[str] | None, prog_name: str, complete_var: str | None, standalone_mode: bool,
              windows_expand_args: bool, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        _exit_as_typer(lambda: super(_Fudge, self).main(args, prog_name, complete_var, False, windows_expand_args,
                                                        **extra))


def _exit_as_typer(call: Any, command: str | None = None) -> NoReturn:
    """Run the command line (`call`: Typer's reading of it, or the command called with what `cli.quick` read for
    `command`) and exit as fudge exits: a usage error or click's own in one line, `aborted` on end of input."""
    try:
        code = call()
    except click_errors.NoArgsIsHelpError as exc:
        sys.exit(exc.exit_code)  # the help is shown already
    except click_errors.UsageError as exc:
        context.fail(_usage_line(exc, command), code=exc.exit_code)
        sys.exit(exc.exit_code)
    except click_errors.ClickException as exc:
        context.fail(exc.format_message(), code=exc.exit_code)
        sys.exit(exc.exit_code)
    except typer.Abort:
        context.fail("aborted")
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def _read_quickly(argv: list[str]) -> tuple[str, dict[str, Any], Any, dict[str, Any]] | None:
    """`fudge [--store FILE] [-v] COMMAND ...` read from the declarations alone, when `cli.quick` reads it exactly
    as Typer would: the command's name, the root's keyword arguments, the command's function and its keyword
    arguments. None: Typer reads it (help, an error, a parameter read otherwise than plainly...)."""
    from fudge_combat.cli import quick

    try:
        root, rest = quick.read(quick.params_of(main, skip=frozenset({"version"})), argv, group=True)
        name, tokens = rest[0], rest[1:]
        if name not in COMMANDS:
            return None
        (module,) = start_up([COMMANDS[name]], one_shot=True)
        app: typer.Typer = module.app
        groups = [group for group in app.registered_groups if group.name == name]
        if groups:  # `fudge fate exchange ...`: a group of commands with no options of its own
            (group,) = groups
            inner = group.typer_instance
            if (inner is None or group.callback or inner.registered_callback or group.context_settings
                    or not tokens or tokens[0].startswith("-")):
                return None
            app, sub, tokens = inner, tokens[0], tokens[1:]
            name = f"{name} {sub}"
        found = [info for info in app.registered_commands if info.callback is not None
                 and (info.name or get_command_name(info.callback.__name__)) == name.rpartition(" ")[2]]
        if len(found) != 1:
            return None
        (info,) = found
        if info.context_settings or info.deprecated or (info.no_args_is_help and not tokens):
            return None
        kwargs, _ = quick.read(quick.params_of(info.callback), tokens)
    except quick.NotRead:
        return None
    return name, root, info.callback, kwargs


def _run(name: str, root: dict[str, Any], function: Any, kwargs: dict[str, Any]) -> Any:
    """A command read by `cli.quick`, run as Typer runs one: the root's options, then the command; end of input
    and Ctrl-C end it as click ends them, a closed pipe as `_Fudge` does."""
    try:
        main(**root, version=False)
        return function(**kwargs)
    except BrokenPipeError:
        closed_pipe()
    except EOFError as exc:
        context.echo("", err=True)
        raise typer.Abort() from exc
    except KeyboardInterrupt:
        return 130
    except typer.Exit as exc:
        return exc.exit_code


def _usage_line(exc: click_errors.UsageError, command: str | None = None) -> str:
    """`missing argument 'FIRST': see `fudge exchange --help``: the command as the GM types it (`command`: the one
    `cli.quick` read, whose function raised it outside click's context)."""
    message = _did_you_mean(exc) or exc.format_message().strip().rstrip(".")
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    names: list[str] = command.split() if command is not None and exc.ctx is None else []
    ctx = exc.ctx
    while ctx is not None and ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return f"{message}: see `{' '.join(['fudge', *names])} --help`"


def _did_you_mean(exc: click_errors.UsageError) -> str | None:
    """An unknown option or command with the close ones click and Typer found, in the words of every
    other "did you mean" (`no such option --dise (did you mean --dice?)`); None for another error."""
    import re

    from fudge_combat.service.names import one_of

    if isinstance(exc, click_errors.NoSuchOption):
        close = sorted(exc.possibilities or ())
        return f"no such option {exc.option_name}" + (f" (did you mean {one_of(close)}?)" if close else "")
    found = re.fullmatch(r"No such command ('.*?')\.(?: Did you mean (.*)\?)?", exc.message.strip())
    if found is None:
        return None
    close = re.findall(r"'([^']*)'", found.group(2) or "")
    return f"no such command {found.group(1)}" + (f" (did you mean {one_of(close)}?)" if close else "")


app = typer.Typer(
    name="fudge",
    cls=_Fudge,
    help="Run FUDGE-family fights as an append-only event log: replay, undo, branch, audit.",
    epilog=exits.EPILOG,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def main(
    store: Annotated[Optional[str], typer.Option(
        "--store", help="SQLite store file or postgresql:// URL (default: $FUDGE_STORE or ./fudge.db).")] = None,
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, help="More logs on stderr (-vv: debug).")] = 0,
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_show_version, help="Show fudge's version and exit.")] = False,
) -> None:
    context.configure_logging(verbose)
    context.settings.store_path = context.store_path(store)


if __name__ == "__main__":
    app()
