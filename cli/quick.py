"""A one-shot command's line read from its declaration, before Typer builds the command.

Typer reads a command's options from its function's signature and coerces every value through a pydantic
`TypeAdapter` it builds for each parameter when it builds the command: for `fudge attack`'s 28 parameters
that is most of what Typer costs a command, and the first adapter loads pydantic's schema machinery. A
line of plain words and whole numbers needs none of it. `read` reads such a line from the same
declaration Typer reads (`typer.utils.get_params_from_function`: the names, the types, the defaults, the
bounds `cli.params` gives whole numbers) and gives the keyword arguments Typer would give the function;
anything it does not read exactly as Typer does it leaves to Typer, whole:

- a parameter declared with anything that changes how its value is read (a callback, an environment
  variable, a parser, choices, a path's checks, a type other than text, a whole number, a flag or a path)
  makes its command Typer's;
- so does a token it does not know (`--help`, an unknown or misspelt option, `--`, `-xVALUE`, `-vv`), a
  value it would have to judge (a number not written plainly, one out of bounds, a value that begins with
  `-` and is not a number, an empty path), a missing value, option or argument, one argument too many, a
  group's own options or callback (`fudge fate exchange` is read here: its group has none), completion,
  help and no command.

Typer then reads the line as it always did and says what is wrong in its words, so a line read here and
one read by Typer cannot differ in what the command does (tests/test_quick.py compares the two, line for
line, over every command this module reads). Nothing is written before a line is read, either way.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from msgspec import Struct
from typer.models import ArgumentInfo, OptionInfo, ParameterInfo
from typer.utils import get_params_from_function

from fudge_combat.cli.params import int_bounds

# What the help alone reads: a parameter may set these and still be read here.
SHOWN = frozenset({"help", "metavar", "rich_help_panel", "show_default", "show_choices", "show_envvar", "hidden",
                   "autocompletion", "shell_complete"})
PLAIN = (str, int, bool, Path)
# A whole number as the GM types one, of at most 18 digits; `+1`, `007`, `1_000` or a number of thousands of
# digits (which Python refuses to convert) are Typer's to read.
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")


class NotRead(Exception):
    """The line, or the command, is Typer's to read."""


class Param(Struct, frozen=True):
    """One parameter as the command line gives it."""

    name: str
    option: bool
    names: tuple[str, ...]  # an option's: `--fight`, `-f`
    kind: type  # str, int, bool or Path: one value's
    many: bool  # a list: an option given again, an argument taking every word left
    default: Any
    required: bool
    count: bool = False  # `-v -v`
    bounds: tuple[int | None, int | None] | None = None

    def value(self, text: str) -> Any:
        """One value as Typer gives it, or NotRead: one Typer must judge (and word its refusal)."""
        if self.kind is int:
            if not NUMBER.fullmatch(text):
                raise NotRead
            number = int(text)
            low, high = self.bounds or (None, None)
            if (low is not None and number < low) or (high is not None and number > high):
                raise NotRead
            return number
        if text.startswith("-") or (self.kind is Path and not text):
            raise NotRead
        return Path(text) if self.kind is Path else text


def params_of(function: Any, skip: frozenset[str] = frozenset()) -> list[Param]:
    """A function's parameters as Typer declares them (`skip`: none to read; a root option whose callback acts
    only when it is given), or NotRead: one of them is Typer's to read."""
    out = []
    for name, meta in get_params_from_function(function).items():
        if name in skip:
            continue
        info = meta.default
        if not isinstance(info, ParameterInfo):  # `x: int = 3`: Typer makes it an option; `x: str`, an argument
            info = OptionInfo(default=info) if info is not inspect.Parameter.empty else ArgumentInfo(default=...)
        fresh = type(info)()
        set_here = {key for key, value in vars(info).items() if key not in SHOWN and value != getattr(fresh, key)}
        if set_here - {"default", "param_decls", "count", "min", "max"}:
            raise NotRead
        kind, many = element(meta.annotation)
        option = isinstance(info, OptionInfo)
        count = bool(getattr(info, "count", False))
        if count and kind is not int:
            raise NotRead
        decls = tuple(info.param_decls or ())
        if option and not decls:
            if kind is bool:
                raise NotRead  # Typer declares `--x/--no-x`: left to it
            decls = ("--" + name.replace("_", "-"),)
        if option and any("/" in decl or not decl.startswith("-") for decl in decls):
            raise NotRead
        if not option and decls:
            raise NotRead
        required = info.default is ... or info.default is inspect.Parameter.empty
        if kind is bool and (required or info.default is not False or many):
            raise NotRead
        bounds = None
        if kind is int and not count and option:  # an option's bounds, as `cli.params.plain` gives them
            bounds = int_bounds(name, info.metavar or "N", info.min, info.max)
        elif info.min is not None or info.max is not None:
            raise NotRead
        out.append(Param(name, option, decls, kind, many, None if required else info.default, required, count,
                         bounds))
    return out


def element(annotation: Any) -> tuple[type, bool]:
    """`Optional[list[str]]` → (str, True); NotRead for a type read otherwise than plainly."""
    if get_origin(annotation) is Union:
        args = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(args) != 1:
            raise NotRead
        annotation = args[0]
    many = get_origin(annotation) is list
    if many:
        (annotation,) = get_args(annotation)
    if annotation not in PLAIN:
        raise NotRead
    return annotation, many


def read(params: list[Param], tokens: list[str], group: bool = False) -> tuple[dict[str, Any], list[str]]:
    """The keyword arguments Typer gives the function for `tokens`, and what is left for a command (`group`: the
    line from the first word on, as click gives a group's), or NotRead."""
    by_name = {decl: param for param in params if param.option for decl in param.names}
    given: dict[str, Any] = {}
    words: list[str] = []
    rest = iter(tokens)
    for token in rest:
        if group and not token.startswith("-"):
            return {param.name: given.get(param.name, param.default) for param in params}, [token, *rest]
        if token.startswith("-") and len(token) > 1:
            decl, eq, attached = token.partition("=")
            param = by_name.get(decl if decl.startswith("--") else token)
            if param is None:
                raise NotRead
            if param.kind is bool or param.count:
                if eq:
                    raise NotRead
                given[param.name] = given.get(param.name, 0) + 1 if param.count else True
                continue
            text = attached if eq else next(rest, None)
            if text is None:
                raise NotRead
            value = param.value(text)
            if param.many:
                given.setdefault(param.name, []).append(value)
            else:  # given again: the last, as click reads it
                given[param.name] = value
        else:
            words.append(token)
    for param in params:
        if not param.option and param.many:
            if words:
                given[param.name] = [param.value(word) for word in words]
                words = []
        elif not param.option and words:
            given[param.name] = param.value(words.pop(0))
        if param.required and param.name not in given:
            raise NotRead
    if words or group:
        raise NotRead
    return {param.name: given.get(param.name, param.default) for param in params}, []
