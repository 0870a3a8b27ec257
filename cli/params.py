"""How the help shows a command's parameters, and what the shell completes for them: one place for all.

Typer labels every value with its Python type (`<str>`, `<list[str]>`, and `<bool>` beside a flag that
takes no value): words for the code's author. Here an option shows its metavar (the kind of value the
GM types: NAME, LEVEL, FACES, N), a flag shows nothing, an argument shows its own name in capitals
(ATTACKER TARGET), as click-based tools have always done. `cli.main` makes every command of fudge a
`FudgeCommand` (and every group a `FudgeGroup`), which applies this to the parameters Typer built.

The shell completes a fight, a combatant or a trait from the store (cli.completion), by what the help
calls the value: an option's metavar, an argument's name (`COMPLETES`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

if TYPE_CHECKING:
    from typer._click.core import Context, Parameter  # the click Typer vendors (and its classes subclass)

# The help's panels: each ruleset's options where they apply (`rich_help_panel=`); the rest under "Options".
FUDGE = "Fudge"
ATARI = "Atari Isev"
FATE = "Fate"
PHASES = "Phase initiative"
TABLE = "Table dice and identity"  # the dice rolled at the table, the fight acted on

# A whole number typed as an option (a modifier, a count, a level) runs within the bounds of every number a
# file gives (engine.kernel.inputs.MAX_NUMBER), unless its option sets its own: an event number (metavar SEQ) is
# checked against the log, and a simulation's sizes and seed against what a run can do (cli.sim).
MAX_NUMBER = 1000
UNBOUNDED = frozenset({"seed", "n", "jobs", "keep_k", "max_rounds"})

# The label of a value whose parameter does not name one (`metavar=`), by its type.
BY_TYPE: dict[Any, str] = {int: "N", Path: "FILE"}
TEXT = "TEXT"

# What the shell completes, by the label the help gives the value (an option's metavar) or, for an
# argument, by its parameter's name. A file (a sheet, a log) is left to the shell's own completion.
COMPLETES = {
    **dict.fromkeys(("FIGHT", "fight"), "fights"),
    **dict.fromkeys(("NAME", "combatant", "combatants", "attacker", "target", "defender", "first", "second",
                     "shooter", "lone", "foes", "names", "patient", "caster", "who", "fighters"), "combatants"),
    **dict.fromkeys(("TRAIT", "trait"), "traits"),
    "RULE": "rules",
    "aspect": "aspects",
    **dict.fromkeys(("sheet", "sheets"), "sheets"),  # a file, but only sheets and the folders that may hold one
}
FILE_KINDS = frozenset({"sheets"})  # what a `Path` parameter completes itself (the rest: the shell's own)


class Argument(TyperArgument):
    """An argument shown by its name alone: `ATTACKER` in the usage line and the help, no type beside it."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        return name if self.required else f"[{name}]"


class Option(TyperOption):
    """An option shown with the kind of value it takes (its metavar), a flag with none."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        return self.metavar


def plain(param: Any) -> None:
    """Give a parameter Typer built its label for the GM and its completion (once; later calls do nothing)."""
    if isinstance(param, (Argument, Option)) or not isinstance(param, (TyperArgument, TyperOption)):
        return
    given = param.metavar  # set with `metavar=` where the option is declared
    annotation = getattr(param.type_descriptor, "annotation", None)
    element = getattr(annotation, "__args__", (annotation,))[0] if param.multiple or param.nargs != 1 else annotation
    if isinstance(param, TyperArgument):
        param.__class__ = Argument
        if given is None:
            param.metavar = param.name.upper().replace("_", "-") + ("..." if param.nargs != 1 else "")
        key = param.name if param.name in COMPLETES else given or param.name  # `fighters`: [ATTACKER] TARGET
    else:
        param.__class__ = Option
        if given is None:
            param.metavar = BY_TYPE.get(element, TEXT)
        key = param.metavar or ""
        if element is int and not param.count and param.min is None and param.max is None:
            bounds = int_bounds(param.name, key, None, None)
            if bounds is not None:
                param.min, param.max = bounds
                info = getattr(param.type_descriptor, "parameter_info", None)  # what Typer's conversion reads
                if info is not None and info.min is None and info.max is None:
                    info.min, info.max = bounds
    kind = COMPLETES.get(key)
    if element is Path and kind not in FILE_KINDS:
        kind = None
    if kind is not None and param._custom_shell_complete is None:
        param._custom_shell_complete = _completer(kind)


def int_bounds(name: str | None, metavar: str | None, low: int | None,
               high: int | None) -> tuple[int | None, int | None] | None:
    """The bounds of a whole number typed as an option or argument: its own (`min=`, `max=`), else
    ±MAX_NUMBER, except for an event number (metavar SEQ) and a simulation's sizes (UNBOUNDED). Read by the
    help's parameters (`plain`) and by `cli.quick`. None: unbounded (so is a side given as None)."""
    if low is not None or high is not None:
        return low, high
    if metavar == "SEQ" or name in UNBOUNDED:
        return None
    return -MAX_NUMBER, MAX_NUMBER


def _completer(kind: str) -> Any:
    def complete(ctx: Any, param: Any, incomplete: str) -> list[Any]:
        from fudge_combat.cli import completion  # the store is read only when the shell asks

        return completion.complete(kind, ctx, incomplete)
    return complete


def one_line_paragraphs(text: str | None) -> str | None:
    """A docstring's paragraphs each on one line: the help wraps them to the terminal, not to the source."""
    if not text:
        return text
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in text.split("\n\n"))


def _plain_params(params: list[Parameter]) -> list[Parameter]:
    """Shared by the command and group classes: the parameters, made plain when click first asks for them;
    the table's dice and the fight last, so every command's help ends with them (a panel is shown where its
    first option comes). Only options move: the arguments keep their order, and options parse in any."""
    for param in params:
        plain(param)
    return sorted(params, key=lambda param: getattr(param, "rich_help_panel", None) == TABLE)


class FudgeCommand(TyperCommand):
    def __init__(self, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, help=one_line_paragraphs(help), **kwargs)

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _plain_params(super().get_params(ctx))


class FudgeGroup(TyperGroup):
    def __init__(self, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, help=one_line_paragraphs(help), **kwargs)

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _plain_params(super().get_params(ctx))
