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

        renderer = (structlog.dev.ConsoleRenderer() if sys.stderr.isatty()
                    else structlog.processors.JSONRenderer())
        structlog.configure(
            processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"), renderer],
            wrapper_class=structlog.make_filtering_bound_logger(level),
            logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
            cache_logger_on_first_use=False,
        )

    log.threshold, log.setup = level, setup


def store_path(option: Path | None) -> Path:
    if option is not None:
        return option
    return Path(os.environ.get("FUDGE_STORE") or DEFAULT_STORE)


def fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
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
