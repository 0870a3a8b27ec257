"""What every command shares: the store, the current fight, errors as one line."""

from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.cli import style
from fudge_combat.cli.exits import WRITE_CONFLICT
from fudge_combat.store.base import Conflict, StoreError
from fudge_combat.cli.terminal import escape_log_values, json_text, safe
from fudge_combat.store.log import log

if TYPE_CHECKING:  # the service and the dice load the engine: imported when a command needs them
    from fudge_combat.service.dice import DiceInput
    from fudge_combat.service.fights import Fights
    from fudge_combat.store.sqlite import SqliteStore

DEFAULT_STORE = "fudge.db"


class Settings:
    store_path: Path | str = Path(DEFAULT_STORE)  # a store file, or a postgresql:// URL
    session: Fights | None = None  # `fudge play`: one service for every command of the session (cli.play)
    playing: bool = False  # the GM types at play's prompt (or its script): hints name play's forms (in_place)


settings = Settings()

# A hint names a command as `fudge round` does at the shell. Inside `fudge play` the same command is typed
# without `fudge`, and a round's end is the next step of the loop, `n` (cli.shorthands.next_words).
PLAY_FORMS = (("`fudge fate round` starts the next", "`n` starts the next"),
              ("`fudge round` starts the next", "`n` starts the next"), ("`fudge ", "`"))


def in_place(text: str) -> str:
    """A line as the place it is read in says it: at play's prompt (settings.playing) its hints name the
    commands as play takes them; elsewhere (and for `fudge play FIGHT` refused before any prompt) unchanged. Every line out passes here (echo, echo_segments,
    fail), so no command has to know where it runs."""
    if not settings.playing or "`fudge " not in text:
        return text
    for shell, play in PLAY_FORMS:
        text = text.replace(shell, play)
    return text


def configure_logging(verbose: int) -> None:
    """structlog to stderr only; console on a terminal, JSON otherwise.

    Configured (and imported) at the first message the level lets through: without `-v`, never.
    """
    level = logging.WARNING - 10 * min(verbose, 2)

    def setup() -> None:
        import structlog

        from fudge_combat.cli.style import wanted

        console = sys.stderr.isatty()
        renderer = (structlog.dev.ConsoleRenderer(colors=wanted(sys.stderr)) if console
                    else structlog.processors.JSONRenderer(serializer=json_text))
        structlog.configure(
            processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"),
                        *([escape_log_values] if console else []), renderer],
            wrapper_class=structlog.make_filtering_bound_logger(level),
            logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
            cache_logger_on_first_use=False,
        )

    log.threshold, log.setup = level, setup


def store_path(option: Path | str | None) -> Path | str:
    """The store `--store` or $FUDGE_STORE names: a file's path, or a `postgresql://` URL kept as it is."""
    from fudge_combat.store.base import is_url

    given = option if option is not None else (os.environ.get("FUDGE_STORE") or DEFAULT_STORE)
    return given if is_url(given) else Path(given)


def echo(text: str, err: bool = False, nl: bool = True, lines: bool = False, styled: bool = True) -> None:
    """The one way out to the terminal: control characters in `text` are shown escaped.

    One line unless `lines=True`, for text whose lines were escaped one by one where they were
    built (`render.status_text`): a line feed in a name cannot forge a line. On a terminal that
    wants colour (cli.style.wanted) the escaped lines are coloured by what they say (wounds, hits,
    turns, rounds, dice drawn as dice) and wrapped to its width; elsewhere (or `styled=False`: JSON
    text) they are printed as they are.
    """
    shown = safe(in_place(text), lines=lines)
    stream = sys.stderr if err else sys.stdout
    if styled and style.wanted(stream):
        echo_segments([style.command_line(line) for line in shown.split("\n")], err=err, nl=nl)
        return
    if styled and style.on_terminal(stream):  # plain on a terminal (NO_COLOR): broken between words
        shown = style.wrap(shown, style.width(stream))
    typer.echo(shown, err=err, nl=nl)


def echo_drawn(lines: list[str], colour: bool) -> None:
    """Lines the program drew itself, with colour codes of its own (`fudge serve`'s QR code of its own link):
    nothing in them came from a file, a store or a user, so they are written as they are, not escaped."""
    typer.echo("\n".join(lines), color=colour)


def echo_segments(lines: list[style.Line], err: bool = False, nl: bool = True) -> None:
    """Styled output (cli.style): lines of (text, kind) segments whose texts were escaped where they
    were built (cli.terminal.safe; escaped again here, which changes nothing then). Coloured by rich
    on a terminal that wants colour, plain otherwise (rich is not imported then)."""
    stream = sys.stderr if err else sys.stdout
    lines = [[(safe(in_place(text)), kind) for text, kind in line] for line in lines]
    if style.wanted(stream):
        drawn = style.ansi(lines, style.width(stream))
        typer.echo(drawn if nl else drawn.removesuffix("\n"), err=err, nl=False, color=True)
        return
    text = style.plain(lines)
    typer.echo(style.wrap(text, style.width(stream)) if style.on_terminal(stream) else text, err=err, nl=nl)


def echo_json(data: Any, **options: Any) -> None:
    """`--json` output: JSON's own escapes for every control and non-ASCII character."""
    typer.echo(json_text(data, **options))


def fail(message: str, code: int = 1) -> typer.Exit:
    """One line on stderr: a line feed in the message (a name from a file) is shown escaped."""
    typer.echo(f"error: {safe(in_place(message))}", err=True)
    return typer.Exit(code)


@contextmanager
def guard() -> Iterator[None]:
    """A domain, store, input or environment error becomes one line on stderr and a non-zero exit
    (cli.exits: a write conflict has its own code, so a script can run the command again).

    Only errors that say something about the input or the machine are caught (see `edge_message`):
    any other exception is a defect and reaches cli.main's last-resort handler as one.
    """
    try:
        yield
    except Conflict as exc:  # another process appended first: the same command again is safe
        raise fail(str(exc), code=WRITE_CONFLICT) from None
    except (RuleError, StoreError) as exc:
        raise fail(str(exc)) from None
    except Exception as exc:
        line = edge_message(exc)
        if line is None:
            raise
        raise fail(line) from None


def edge_message(exc: BaseException) -> str | None:
    """The line for an error the GM's input or machine caused; None for a defect of the program."""
    import sqlite3

    from fudge_combat.store.sqlite import store_problem

    if isinstance(exc, sqlite3.Error):
        problem = store_problem(exc)
        return f"the store {settings.store_path}: {problem}" if problem else None
    if isinstance(exc, UnicodeEncodeError) and exc.reason == "surrogates not allowed":
        # an argument of bytes that are not UTF-8 (Python keeps them as lone surrogates): it fails where it
        # is first encoded, the event's bytes, before anything is written
        return _not_utf8(exc.object[exc.start] if isinstance(exc.object, str) else "\udc00")
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and isinstance(exc, pydantic.ValidationError):  # a value given on the command line
        err = exc.errors()[0]
        if err["type"] == "string_unicode" and isinstance(err.get("input"), str):  # a bounded text (events.bounds)
            return _not_utf8(next((c for c in err["input"] if "\udc80" <= c <= "\udcff"), "\udc00"))
        where = ".".join(str(p) for p in err["loc"]) or "a value"
        return f"{where}: {err['msg']}"
    return None


def _not_utf8(surrogate: str) -> str:
    """The line for an argument of bytes that are not UTF-8: Python keeps each byte as a lone surrogate."""
    return f"a value given is not UTF-8 text (byte 0x{ord(surrogate) - 0xDC00:02x}): type it in UTF-8; nothing was written"


# The most a GM's file may hold: a sheet or house file is a page of text, an exported log a few thousand events.
MAX_FILE = {"sheet": 1 << 20, "house rules": 1 << 20, "log": 64 << 20}


FILE_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a named pipe", stat.S_IFSOCK: "a socket",
              stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


def read_file(path: Path, what: str) -> str:
    """A file the GM named as UTF-8 text, or a one-line error that names it (and the bound it passes)."""
    limit = MAX_FILE.get(what, 1 << 20)
    try:
        # O_NONBLOCK: a named pipe nobody writes would hold the command forever at its open; it is refused
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    kind = stat.S_IFMT(os.fstat(fd).st_mode)
    if kind != stat.S_IFREG:
        os.close(fd)
        raise InputError(f"cannot read {what} {path}: it is {FILE_KINDS.get(kind, 'not a regular file')}, "
                         "not a file; give the file itself")
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputError(f"{what} {path} is larger than {limit >> 20} MiB: is it the right file?")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{what} {path} is UTF-16 text: save it as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): "
                         "save it as UTF-8") from None
    if "\x00" in text:
        raise InputError(f"{what} {path} is not text (it holds NUL bytes): is it the right file?")
    return text.removeprefix("\ufeff")  # a byte-order mark some editors write before UTF-8


def write_file(path: Path, text: str) -> None:
    """Write a file the GM named whole, or not at all, with a one-line error naming it.

    A regular file is written beside its place and renamed over it: a full disk or a kill leaves
    the old file (or none), never half of the new one. A device or a pipe (/dev/stdout) is written directly.
    """
    data = text.encode("utf-8")
    try:
        if path.is_dir():
            raise InputError(f"cannot write {path}: it is a folder; name a file in it")
        if path.exists() and not path.is_file():
            with path.open("wb") as handle:
                handle.write(data)
            return
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with temporary.open("wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
    except FileNotFoundError:
        raise InputError(f"cannot write {path}: its folder {path.parent} does not exist") from None
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def house_rules(rules: str, house: Path | None) -> tuple[str, Any]:
    """The rules name and resolved options of a preset and an optional house-rules file."""
    from fudge_combat.engine.kernel.presets import resolve

    text = read_file(house, "house rules") if house is not None else None
    return resolve(rules, text, str(house) if house else "house rules")


def open_store(pooled: bool = False) -> SqliteStore:
    return store_at(settings.store_path, pooled)


def store_at(target: Path | str, pooled: bool = False) -> Any:
    """The store at a path (SQLite) or a `postgresql://` URL (store.postgres; the GM is $FUDGE_GM, else
    the connection's role; `pooled`: a pool of connections, for a process that runs many commands)."""
    from fudge_combat.store.base import is_url

    if is_url(target):
        try:
            from fudge_combat.store.postgres import PostgresStore
        except ImportError as exc:
            raise StoreError(f"a postgresql:// store needs psycopg ({exc}): "
                             "install fudge with its postgres extra (pip install '.[postgres]' in fudge's "
                             "source folder), or give a store file") from None

        gm = os.environ.get("FUDGE_GM") or None
        return PostgresStore.pooled(str(target), gm) if pooled else PostgresStore(str(target), gm)
    from fudge_combat.store.sqlite import SqliteStore

    return SqliteStore(target)


def service(store: SqliteStore | None = None) -> Fights:
    """The service on the store (which keeps `fudge status`'s read model with every command itself, where
    the store can: store.views).

    Inside `fudge play` every command gets the session's service: its states stay cached between
    commands (each checked against the log's last event before it is used, service.fights).
    """
    kept = settings.session
    if store is None and kept is not None and (getattr(kept.store, "path", None) or getattr(kept.store, "url", None)
                                               ) == settings.store_path:
        return kept
    from fudge_combat.service.fights import Fights

    fights = Fights(store or open_store())
    fights.keeper.say = lambda line: echo(line, err=True)  # a blow waiting for a player's page to open a seal
    return fights


def fight_name(fights: Fights, given: str | None) -> str:
    """The fight `--fight` (or a fight argument) names, typed short or in any case; else the current one."""
    if given:
        return fight_named(fights.store, given)
    name = fights.current()
    fights.store.fight(name)
    return name


def fight_named(store: Any, typed: str) -> str:
    """The stored fight `typed` names: its name, or (in any case) the one name it begins. Several are
    listed to choose from; none gets the closest names and where the list is."""
    from fudge_combat.service.names import fight_name_problem, shown
    from fudge_combat.store.base import UnknownFight

    problem = fight_name_problem(typed)
    if problem is not None and problem.startswith("is not UTF-8"):  # no store can look it up, no fight has it
        raise InputError(f"no fight named {shown(typed)}: the name {problem}")
    try:
        store.fight(typed)
        return typed
    except UnknownFight:
        from fudge_combat.service.names import one_of, pick

        def unknown(close: list[str]) -> str:
            where = f" in {store.path}" if store.path else ""
            if close:
                return f"no fight named {typed!r}{where}: did you mean {one_of(close)}? (`fudge fights` lists them)"
            return f"no fight named {typed!r}{where}; `fudge fights` lists them"

        return pick([info.name for info in store.fights()], typed, unknown)


def within_log(fights: Fights, name: str, seq: int | None, option: str) -> None:
    """An event number the log holds (`status --as-of`, `replay --to`): outside it, say what it holds."""
    if seq is None:
        return
    last = fights.reads.last_seq(name)
    if not 1 <= seq <= last:
        events = f"{last} event" + ("" if last == 1 else "s")
        raise InputError(f"the log of {name} has {events}; {option} takes 1..{last}")


def dice_input(values: list[str] | None) -> DiceInput:
    """`--dice "+ 0 - +"` for the one roller, or `--dice NAME=FACES` (repeatable, in order)."""
    from fudge_combat.engine.kernel.dice import parse_entered
    from fudge_combat.service.dice import DiceInput

    given = DiceInput()
    for value in values or []:
        if "=" in value:
            who, faces = value.split("=", 1)
            given.by_roller.setdefault(who.strip().lower(), []).append(parse_entered(faces))
        else:
            given.anyone.append(parse_entered(value))
    return given
