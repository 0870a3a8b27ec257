"""What every command shares: the store, the current fight, errors as one line."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from engine.errors import InputError, RuleError
from store.base import StoreError
from cli.terminal import escape_log_values, json_text, safe
from store.log import log

if TYPE_CHECKING:  # the service and the dice load the engine: imported when a command needs them
    from store.fights import DiceInput, Fights
    from store.sqlite import SqliteStore

DEFAULT_STORE = "fudge.db"


class Settings:
    store_path: Path = Path(DEFAULT_STORE)


settings = Settings()


def configure_logging(verbose: int) -> None:
    """structlog to stderr only; console on a terminal, JSON otherwise.

    Configured (and imported) at the first message the level lets through: without `-v`, never.
    """
    level = logging.WARNING - 10 * min(verbose, 2)

    def setup() -> None:
        import structlog

        console = sys.stderr.isatty()
        renderer = (structlog.dev.ConsoleRenderer() if console
                    else structlog.processors.JSONRenderer(serializer=json_text))
        structlog.configure(
            processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"),
                        *([escape_log_values] if console else []), renderer],
            wrapper_class=structlog.make_filtering_bound_logger(level),
            logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
            cache_logger_on_first_use=False,
        )

    log.threshold, log.setup = level, setup


def store_path(option: Path | None) -> Path:
    if option is not None:
        return option
    return Path(os.environ.get("FUDGE_STORE") or DEFAULT_STORE)


def echo(text: str, err: bool = False, nl: bool = True, lines: bool = False) -> None:
    """The one way out to the terminal: control characters in `text` are shown escaped.

    One line unless `lines=True`, for text whose lines were escaped one by one where they were
    built (`render.status_text`): a line feed in a name cannot forge a line.
    """
    typer.echo(safe(text, lines=lines), err=err, nl=nl)


def echo_json(data: Any, **options: Any) -> None:
    """`--json` output: JSON's own escapes for every control and non-ASCII character."""
    typer.echo(json_text(data, **options))


def fail(message: str, code: int = 1) -> typer.Exit:
    """One line on stderr: a line feed in the message (a name from a file) is shown escaped."""
    typer.echo(f"error: {safe(message)}", err=True)
    return typer.Exit(code)


@contextmanager
def guard() -> Iterator[None]:
    """A domain or store error becomes one line on stderr and a non-zero exit."""
    try:
        yield
    except (RuleError, StoreError) as exc:
        raise fail(str(exc)) from None


def read_file(path: Path, what: str) -> str:
    """A file the GM named, or a one-line error that names it."""
    try:
        return path.read_text()
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror}") from None


def house_rules(rules: str, house: Path | None) -> tuple[str, Any]:
    """The rules name and resolved options of a preset and an optional house-rules file."""
    from engine.options import resolve

    text = read_file(house, "house rules") if house is not None else None
    return resolve(rules, text, str(house) if house else "house rules")


def open_store() -> SqliteStore:
    from store.sqlite import SqliteStore

    return SqliteStore(settings.store_path)


def service(store: SqliteStore | None = None) -> Fights:
    """The service on the store, keeping `fudge status`'s read model (cli.views) with every command."""
    from cli.views import STATUS
    from store.fights import Fights

    return Fights(store or open_store(), read_models=(STATUS,))


def fight_name(fights: Fights, given: str | None) -> str:
    name = given or fights.current()
    fights.store.fight(name)
    return name


def within_log(fights: Fights, name: str, seq: int | None, option: str) -> None:
    """An event number the log holds (`status --as-of`, `replay --to`): outside it, say what it holds."""
    if seq is None:
        return
    last = fights.store.last_seq(name)
    if not 1 <= seq <= last:
        events = f"{last} event" + ("" if last == 1 else "s")
        raise InputError(f"the log of {name} has {events}; {option} takes 1..{last}")


def dice_input(values: list[str] | None) -> DiceInput:
    """`--dice "+ 0 - +"` for the one roller, or `--dice NAME=FACES` (repeatable, in order)."""
    from engine.dice import parse_entered
    from store.fights import DiceInput

    given = DiceInput()
    for value in values or []:
        if "=" in value:
            who, faces = value.split("=", 1)
            given.by_roller.setdefault(who.strip().lower(), []).append(parse_entered(faces))
        else:
            given.anyone.append(parse_entered(value))
    return given
