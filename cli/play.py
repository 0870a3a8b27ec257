"""`fudge play`: a session at the table in one process, the board redrawn after every command.

A line is a `fudge` command without the `fudge`, parsed by the same Typer app (one grammar, one set
of help texts), or a table shorthand (`SHORTHANDS`, `?`, `q`; `a TARGET` and `n` read the fight's
rules: cli.shorthands). One process for the whole session: the commands and the fight's state
stay loaded, so a command costs its own work, not Python's start-up and a read of the fight
(`context.settings.session`). A bad line is one `error:` line, and the session goes on.

On a terminal the prompt is prompt_toolkit's (completion, history per store: cli.play_prompt);
otherwise stdin is a script, one command a line, echoed after the prompt it would have had.
"""

from __future__ import annotations

import difflib
from pathlib import Path
import shlex
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from fudge_combat.cli import context, play_requests
from fudge_combat.cli.context import echo
from fudge_combat.cli.shorthands import (HELP, LEAVE, SHORTHANDS, USAGE, Leave, Refused, and_list, attack_words, current_actor, next_words,
                            odds_words)
from fudge_combat.cli.terminal import safe
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.store.base import StoreError

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import FightState

app = typer.Typer()

NO_FIGHT = "no current fight: `new NAME --rules PRESET` starts one, `use NAME` picks one"


@app.command()
def play(
    ctx: typer.Context,
    fight: Annotated[Optional[str], typer.Argument(
        help="The fight to play; it becomes the current fight (default: the current one).")] = None,
    strict: Annotated[bool, typer.Option(
        "--strict", help="A script on stdin stops at the first line that fails, with that line's exit status "
                         "(without it: exit status 0, as a session at the table goes on).")] = False,
) -> None:
    """Play a fight in one session: fudge's commands without `fudge`, the board after each.

    Shorthands: n (next), a TARGET (the current actor's blow), u / r (undo / redo), ? (help), q (leave).

    When stdin is not a terminal it is a script, one command a line: `fudge play duel < round.txt`.
    """
    verbose = int((ctx.parent.params if ctx.parent else {}).get("verbose") or 0)
    with context.guard():  # a store that cannot be opened: its one line, before any session
        session = Session(verbose)
    try:
        if fight is not None:
            code = session.run(shlex.join(["use", fight]))
            if code:
                raise typer.Exit(code)
        context.settings.playing = True
        if sys.stdin.isatty() and sys.stdout.isatty():
            from fudge_combat.cli.play_prompt import interactive

            interactive(session)
            return
        code = scripted(session, sys.stdin, strict)
    finally:
        context.settings.playing = False
        session.close()
    if code:
        raise typer.Exit(code)


def scripted(session: Session, lines: Any, strict: bool = False) -> int:
    """Each line as the GM would type it, after its prompt; blank lines and `#` comments are skipped.

    The exit status is 0 (the session goes on past a failed line, as at the table); with `strict`
    the first failing line ends it with its own status.
    """
    session.board()
    play_requests.show(session)
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        echo(session.prompt() + line)
        try:
            code = session.run(line)
        except Leave:
            break
        if code and strict:
            return code
        session.after()
    return 0


def odds_in_fight(words: list[str]) -> bool:
    """`odds TARGET` (or `odds ATTACKER TARGET`) at the table: the odds of the next blow in this fight,
    as `fudge odds --fight` weighs them; `odds A.toml B.toml`, two sheets, stays the sheets' odds."""
    names = [word for word in words if not word.startswith("-")]
    return "--fight" not in words and bool(names) and not any(Path(name).is_file() for name in names)


def board_after(state: FightState, tail: tuple[int, str]) -> None:
    """Draw the board after a command as `fudge status` shows it (projections/board.py): the one place that says
    what the session draws. Without the receipt (`tail`, the log's last event): a hash under every board is
    noise at the table; `verify` and `status` print it, and each event's line shows the seq `undo --to` takes."""
    import sys

    from fudge_combat.cli.views import board_shown, board_width, show
    from fudge_combat.projections.board import board_lines

    del tail
    show(board_shown(board_lines(state, board_width(sys.stdout)), 0, ""))


class Session:
    """One store, one warm service, the click commands built once each, the board as last drawn."""

    def __init__(self, verbose: int = 0) -> None:
        self.store_path = context.settings.store_path
        self.prefix = ["--store", str(self.store_path), *["-v"] * verbose]  # the callback sets them again each line
        self.store = context.open_store(pooled=True)  # a server's store: a pool of connections
        self.fights = context.service(self.store)
        context.settings.session = self.fights
        self.groups: dict[str, Any] = {}
        self.shown: Any = ()  # (fight, its last event) the board shows; None: no current fight
        self.state: FightState | None = None  # the state the board shows (completion reads it)
        self.ran: str | None = None  # the command the last line ran to its end (None: it failed, or ran none)
        self.confirm: Callable[[str], bool] | None = None  # asks the GM a y/n question (on a terminal only)

    def close(self) -> None:
        context.settings.session = None
        if getattr(self.store, "url", None):  # a server's pool of connections
            self.store.close()

    # --- a line ------------------------------------------------------------------------
    def run(self, line: str) -> int:
        """Run one line; its exit status (0: done). `q` raises Leave; nothing else leaves the session."""
        self.ran = None
        if play_requests.answered(self, line):  # y / n to a player's request (cli.play_requests)
            return 0
        try:
            words = self.expand(split(line))
            words, held = play_requests.held_dice(self, words)  # a round's start: the players' initiative dice
            if held:
                return self.round_with(words, held)
            code = self.invoke(words) if words else 0
            self.ran = words[0] if words and not code else None
            return code
        except Refused as refused:
            echo(f"error: {refused}", err=True)
            return refused.code
        except Leave:
            raise
        except Exception as exc:  # a defect of the session itself: one line, as for a command's
            return defect(exc)

    def round_with(self, words: list[str], held: list[Any]) -> int:
        """A round's start with the initiative dice players' requests hold for it, who asked for them kept in
        its `issued` (`requested`, version 2: several requests); the requests settled with the outcome."""
        echo(f"  ({shlex.join(words)})")
        self.fights.requested = {"v": 2, "requests": [{"fighter": request.fighter, "link": request.link,
                                                       "request": request.id} for request in held]}
        errors = play_requests.Tee(sys.stderr)
        try:
            sys.stderr = errors
            code = self.invoke(words)
        finally:
            sys.stderr = errors.stream
            self.fights.requested = None
        play_requests.rolled(self, held, code, errors.last().removeprefix("error: "))
        self.ran = words[0] if not code else None
        return code

    def expand(self, words: list[str]) -> list[str]:
        """The command a line stands for: `fudge` dropped, shorthands spelled out; `?` and `q` handled here."""
        if words[:1] == ["fudge"]:
            words = words[1:]
        if not words:
            return []
        head, rest = words[0], words[1:]
        if head in LEAVE and not rest:
            raise Leave
        if head in HELP:
            if not rest:
                echo(help_text(), lines=True)
                return []
            return [*rest, "--help"]
        if head == "n" and self.current() and not {"--fight", "-f"} & set(rest):
            expanded = next_words(self.current_state(), rest)
            if expanded[0] != "next":
                echo(f"  ({shlex.join(expanded)})")
            return self.confirmed(expanded)
        if head in SHORTHANDS:
            return self.confirmed([SHORTHANDS[head], *rest])
        if head == "a":
            expanded = attack_words(self.current_state(), rest)
            echo(f"  ({shlex.join(expanded)})")
            return expanded
        if play_requests.starts_a_round(words):
            return self.confirmed(words)
        if head == "play":
            raise Refused("already playing: type the commands without `fudge` (? lists them)", USAGE)
        if head == "odds" and odds_in_fight(rest):
            expanded = odds_words(self.current_state(), rest)
            echo(f"  ({shlex.join(expanded)})")
            return expanded
        return words

    def confirmed(self, words: list[str]) -> list[str]:
        """`round` (or `n` at a round's end) while a fighter who can act has not: on a terminal the GM is
        asked, naming who would lose a turn (y: `--force`, anything else: nothing is done); in a script
        the command refuses it itself, in one line."""
        if self.confirm is None or words[0] not in ("round", "fate") or "--force" in words or not self.current():
            return words
        from fudge_combat.engine.turns import round_begun, yet_to_act

        state = self.current_state()
        waiting = yet_to_act(state)
        if not round_begun(state):
            question = f"nobody has acted in round {state.round}"
        elif waiting:
            verb = "has" if len(waiting) == 1 else "have"
            question = f"{and_list([who.name for who in waiting])} {verb} not acted"
        else:
            return words
        if not self.confirm(safe(f"{question}: start round {state.round + 1} anyway? y/n ")):
            echo("nothing done: the round goes on")
            return []
        return [*words, "--force"]

    def invoke(self, words: list[str]) -> int:
        """Run a command through the Typer app, in this process, as `fudge --store STORE WORDS...` would."""
        from fudge_combat.cli import main

        head = words[0]
        if head not in main.COMMANDS:
            raise Refused(unknown_command(head), USAGE)
        context.settings.session = self.fights
        try:
            self.group(head).main(args=[*self.prefix, *words], prog_name="fudge", standalone_mode=True)
        except SystemExit as stop:
            return exit_status(stop.code)
        except KeyboardInterrupt:
            echo("error: interrupted: nothing more was done", err=True)
            return 130
        except Exception as exc:  # a defect: its one line, as `fudge` alone prints it, and the session goes on
            return defect(exc)
        return 0

    def group(self, name: str) -> Any:
        """The click group of `fudge` holding the command `name` alone: built once, as `fudge NAME` builds it."""
        if name not in self.groups:
            from fudge_combat.cli import main

            group = typer.main.get_group(main.app)
            group.get_command(None, name)  # type: ignore[arg-type]  # built, not run: no context to give  # its module imported and the command built, as click asks for it
            self.groups[name] = group
        return self.groups[name]

    def command(self, words: list[str]) -> Any:
        """The click command a line's first words name (`attack`, `fate exchange`), or None."""
        from fudge_combat.cli import main

        if not words or words[0] not in main.COMMANDS:
            return None
        found = self.group(words[0]).commands.get(words[0])
        sub = getattr(found, "commands", None)
        if sub is not None and len(words) > 1:
            return sub.get(words[1], found)
        return found

    # --- the board -----------------------------------------------------------------------
    def current(self) -> str | None:
        with refusing():
            return self.fights.store.setting("current")

    def current_state(self) -> FightState:
        name = self.current()
        if not name:
            raise Refused(NO_FIGHT)
        with refusing():
            return self.fights.state(name)

    def after(self) -> None:
        """The board after a line: after every command that ran (but `status`, which printed the fight),
        and whenever the fight moved. A line that failed, or ran no command (`?`), changed nothing:
        the board above still holds."""
        self.board(force=self.ran not in (None, "status"))
        play_requests.show(self)  # the players' requests come between two lines (cli.play_requests)

    def board(self, force: bool = False) -> None:
        """Draw the board if the fight moved (or another became current) since it was last drawn, or if forced.

        The state is the service's, kept from the command that wrote it; one query of the log's last
        event says it still holds.
        """
        try:
            name = self.current()
            tail = self._tail(name) if name else None
            shown = (name, tail) if name else None
            if shown == self.shown and not force:
                return
            self.shown, self.state = shown, None
            if not name or tail is None:
                echo(NO_FIGHT)
                return
            from fudge_combat.cli.damaged import readable

            with refusing(), readable(self.fights, name):
                self.state = self.fights.state(name)
            board_after(self.state, tail)
        except Refused as refused:
            echo(f"error: {refused}", err=True)
        except Exception as exc:  # a defect in drawing the board: its line, and the session goes on
            defect(exc)

    def _tail(self, name: str) -> tuple[int, str]:
        with refusing():
            return self.fights.store.tail(name)

    def prompt(self) -> str:
        """`duel> `, or `duel Kara> ` when Kara has the turn: who `a TARGET` would make attack."""
        state = self.state
        if state is None:
            return "> "
        actor = current_actor(state)
        if actor is None and state.options.pace == "simultaneous" and state.fought:
            from fudge_combat.engine.turns import yet_to_act

            waiting = yet_to_act(state)  # after a pair has fought: who has not yet, this round (F-PACE-2)
            if waiting:
                return safe(f"{state.name}, {and_list([who.name for who in waiting])} to fight> ")
        return safe(f"{state.name}{' ' + actor.name if actor else ''}> ")


@contextmanager
def refusing() -> Iterator[None]:
    """An error of the fight, the store or the machine as a Refused line (as `context.guard` makes it one)."""
    try:
        yield
    except (RuleError, StoreError) as exc:
        raise Refused(str(exc)) from None
    except Exception as exc:
        line = context.edge_message(exc)
        if line is None:
            raise
        raise Refused(line) from None


def split(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise Refused(f"cannot read the line ({str(exc).lower()}): close the quote", USAGE) from None


def defect(exc: Exception) -> int:
    """A defect's one line, as `fudge` alone prints it (cli.main.last_resort); its exit status."""
    from fudge_combat.cli import main

    try:
        main.last_resort(exc)
    except SystemExit as stop:
        if stop.code == 141:  # the reader of stdout is gone: nobody sees the session any more
            raise
        return exit_status(stop.code)
    except Exception:  # noqa: BLE001 - FUDGE_TRACEBACK=1 asked for the traceback
        echo(traceback.format_exc(), err=True, lines=True)
    return main.INTERNAL_ERROR


def exit_status(code: Any) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def unknown_command(word: str) -> str:
    from fudge_combat.cli import main

    if word.lower() in ("y", "yes"):  # an answer to a player's request (cli.play_requests), none waiting
        return (f"no player's request is waiting for {word!r}: play shows each as it comes "
                "(`fudge invite` gives players their links)")

    known = [*main.COMMANDS, *SHORTHANDS, "a", *HELP, *LEAVE]
    close = difflib.get_close_matches(word, known, n=3, cutoff=0.6)
    meant = f": did you mean {' or '.join(close)}?" if close else ""
    return f"no command {word!r}{meant} (? lists the commands and shorthands)"


def help_text() -> str:
    from fudge_combat.cli import main

    panels: dict[str, list[str]] = {}
    for name, module in main.COMMANDS.items():
        if name != "play":
            panels.setdefault(main.PANELS[module], []).append(name)
    lines = ["Commands, as `fudge COMMAND` takes them without `fudge` (`COMMAND --help` or `? COMMAND` for one):"]
    lines += [f"  {panel}: {' '.join(names)}" for panel, names in panels.items()]
    lines += ["Shorthands:",
              "  n                  next: the next actor's turn (Fate's turns: fate round, once all have had",
              "                     theirs; fate pass or fate hold gives up a turn)",
              "  a TARGET [OPTIONS] the current actor attacks TARGET: attack under turns, exchange in",
              "                     simultaneous rounds (the only foe standing), fate attack or fate exchange",
              "  a FIGHTER TARGET   the same, naming who attacks",
              "  odds TARGET        the exact chances of that blow, as the fight stands (odds --fight)",
              "  u, r               undo, redo",
              "  ?, ? COMMAND       this help, a command's help",
              "  q, Ctrl-D          leave; Ctrl-C cancels the line being typed; Tab completes"]
    return "\n".join(lines)
