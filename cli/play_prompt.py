"""`fudge play` on a terminal: prompt_toolkit's line editor, Tab completion, and a history per store.

Tab completes as a shell's readline does: the common part at once, the choices listed above the
prompt (they stay in the scrollback, no menu floats over the board).

A line REPL rather than a full-screen app: the session stays in the terminal's scrollback (what
happened three rounds ago is a scroll away), works over ssh and in any terminal, and a script
on stdin runs the very same lines (cli.play). Imported only when a session starts on a terminal.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.shortcuts import CompleteStyle

from fudge_combat.cli import play_requests
from fudge_combat.cli.context import echo
from fudge_combat.cli.shorthands import HELP, LEAVE, SHORTHANDS, Leave, blow

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import FightState
    from fudge_combat.service.fights import Fights

# Commands whose first argument is a fight's name; options whose value is one, or a file.
FIGHT_ARGUMENT = frozenset({"use", "replay", "log", "verify", "export"})
FIGHT_OPTIONS = frozenset({"--fight", "-f"})
PATH_ARGUMENT = frozenset({"join", "import"})
PATH_OPTIONS = frozenset({"--house", "--output", "-o"})


class Session(Protocol):
    """What the prompt drives and completes from: a session at the table (cli.play.Session)."""

    store_path: Path | str
    fights: Fights
    state: FightState | None  # the state the board shows

    confirm: Callable[[str], bool] | None

    def board(self, force: bool = False) -> None: ...
    def prompt(self) -> str: ...
    def run(self, line: str) -> int: ...
    def after(self) -> None: ...
    def command(self, words: list[str]) -> Any: ...


def interactive(session: Session) -> None:
    """Prompt, run, redraw, until `q` or Ctrl-D; Ctrl-C drops the line being typed."""
    prompt: PromptSession[str] = PromptSession(history=history(session.store_path), completer=Completions(session),
                                               complete_while_typing=False, complete_style=CompleteStyle.READLINE_LIKE)
    session.confirm = ask
    session.board(force=True)
    with play_requests.watching(prompt, session):
        _loop(session, prompt)


def _loop(session: Session, prompt: PromptSession[str]) -> None:
    typed = ""  # the line being typed when a player's request woke the prompt (cli.play_requests)
    play_requests.show(session)
    while True:
        try:
            line = prompt.prompt(session.prompt(), default=typed)
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        typed = prompt.default_buffer.text if line == play_requests.WAKE else ""
        try:
            session.run(line)
            session.after()
        except Leave:
            return
        except KeyboardInterrupt:  # outside a command (which says so itself): the session goes on
            echo("error: interrupted", err=True)


def ask(question: str) -> bool:
    """A y/n question at the prompt, kept out of the session's history: y or yes is yes; anything else,
    Ctrl-C or Ctrl-D is no."""
    try:
        answer = PromptSession[str]().prompt(question)
    except (KeyboardInterrupt, EOFError):
        return False
    return answer.strip().lower() in ("y", "yes")


def history_file(store: Path | str) -> Path:
    """The history of sessions on this store: under the user's fudge folder, keyed by the store's full path
    (a server's by its URL, hashed: a password in it never names a file)."""
    from fudge_combat.store.snapshots import state_dir

    if isinstance(store, Path):
        stem, where = store.stem[:40], str(store.expanduser().resolve())
    else:
        stem, where = "server", store
    return state_dir() / "history" / f"{stem}-{hashlib.sha256(where.encode()).hexdigest()[:16]}"


def history(store: Path | str) -> History:
    path = history_file(store)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.touch(mode=0o600, exist_ok=True)
    except OSError as exc:
        echo(f"warning: no history kept ({path}: {exc.strerror or exc})", err=True)
        return InMemoryHistory()
    return FileHistory(str(path))


# --- completion ---------------------------------------------------------------------------------
def current_word(text: str) -> tuple[list[str], str, int]:
    """(the words before the one being typed, that word unquoted, its length as typed)."""
    start, quote = 0, ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in " \t\r\n":  # shlex's whitespace, not every Unicode space: the words shlex.split reads
            start = index + 1
    typed = text[start:]
    try:
        before = shlex.split(text[:start])
    except ValueError:
        before = text[:start].split()
    return before, typed.lstrip("\"'"), len(typed)


def quoted(word: str) -> str:
    return shlex.quote(word) if any(c.isspace() or c in "\"'\\" for c in word) else word


class Completions(Completer):
    """Commands, options (read from the click command), fights, combatants and traits (the board's state)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        before, word, length = current_word(document.text_before_cursor)
        if self._wants_path(before, word):
            if self._wants_sheet(before):  # sheets and the folders that may hold one, each folder with its `/`
                from fudge_combat.cli.completion import SHEETS, paths

                for path in paths(word, SHEETS):  # the rest of the name, as a shell (and PathCompleter) completes it
                    yield Completion(path[len(word):], start_position=0,
                                     display=path.rstrip("/").rpartition("/")[2] + ("/" if path.endswith("/") else ""))
                return
            yield from self.paths.get_completions(Document(word, len(word)), complete_event)
            return
        stem, _, partial = word.rpartition(">") if ">" in word else ("", "", word)
        stem = f"{stem}>" if stem else ""
        try:
            candidates = list(words_for(self.session, before, partial))
        except Exception:  # noqa: BLE001 - no completion (a store gone, a defect) must cost the GM his line
            return
        seen = set()
        for candidate in candidates:
            if candidate.lower().startswith(partial.lower()) and candidate not in seen:
                seen.add(candidate)
                yield Completion(quoted(stem + candidate), start_position=-length)

    @staticmethod
    def _wants_sheet(before: list[str]) -> bool:
        command = [w for w in before if w != "fudge"]
        return command[-1] == "--house" or command[0] == "join"

    @staticmethod
    def _wants_path(before: list[str], word: str) -> bool:
        command = [w for w in before if w != "fudge"]
        if not command or word.startswith("-"):
            return False
        return command[-1] in PATH_OPTIONS or (command[0] in PATH_ARGUMENT and len(command) == 1)


def words_for(session: Session, before: list[str], partial: str) -> Iterable[str]:
    """What may come next on a line that has `before`, the word being typed starting `partial`."""
    from fudge_combat.cli import main

    before = before[1:] if before[:1] == ["fudge"] else before
    if not before:
        return [*main.COMMANDS, *SHORTHANDS, "a", *HELP, *LEAVE]
    state = session.state
    command = before[0]
    if command in HELP:
        return list(main.COMMANDS)
    words = spelled_out(state, before)
    clicked = session.command(words)
    subcommands = getattr(clicked, "commands", None)
    if subcommands is not None and len(words) == 1:
        return list(subcommands)
    if partial.startswith("-"):
        return options_of(clicked)
    if command in ("mark", "unmark") and len(before) == 2:
        return conditions(state, command, before[1])
    if words[:2] == ["fate", "aspect"] and len(words) == 3:  # `fate aspect FIGHTER `: his aspects, not his skills
        return aspects(state, words[2])
    last = before[-1]
    if last in FIGHT_OPTIONS or (command in FIGHT_ARGUMENT and len(before) == 1):
        return [info.name for info in session.fights.store.fights()]
    if last.startswith("-") and takes_value(clicked, last) and last not in ("--dice", "-d"):
        return [*names(state), *traits(state, before)]
    if last.startswith("-") and takes_value(clicked, last):
        return [f"{n.lower()}=" for n in names(state)]
    return [*names(state), *traits(state, before)]


def spelled_out(state: FightState | None, before: list[str]) -> list[str]:
    """The command a shorthand stands for (`a`: the blow under these rules), for its options."""
    if before[0] in SHORTHANDS:
        return [SHORTHANDS[before[0]], *before[1:]]
    if before[0] == "a":
        return blow(state) if state is not None else ["attack"]
    return before


def options_of(clicked: Any) -> list[str]:
    if clicked is None:
        return ["--help"]
    out = []
    for param in getattr(clicked, "params", ()):
        if getattr(param, "param_type_name", "") == "option":
            out += [opt for opt in [*param.opts, *param.secondary_opts] if opt.startswith("--")]
    return [*out, "--help"]


def takes_value(clicked: Any, option: str) -> bool:
    for param in getattr(clicked, "params", ()):
        if option in getattr(param, "opts", ()):
            return not getattr(param, "is_flag", False) and not getattr(param, "count", False)
    return False


def conditions(state: FightState | None, command: str, typed: str) -> list[str]:
    """`mark FIGHTER `: the rules' own states (docs/table.md); `unmark FIGHTER `: those marked on him."""
    from fudge_combat.engine.rulesets.fudge.conditions import NAMED

    if command == "mark":
        return list(NAMED)
    who = next((c for c in (state.combatants.values() if state else ()) if c.name.lower().startswith(typed.lower())), None)
    return [c.name for c in who.conditions] if who is not None else []


def aspects(state: FightState | None, typed: str) -> list[str]:
    """The aspects on the sheet of the fighter `typed` names (FT-PTS)."""
    who = next((c for c in (state.combatants.values() if state else ()) if c.name.lower().startswith(typed.lower())), None)
    return list(who.fighter.sheet.aspects) if who is not None else []


def names(state: FightState | None) -> list[str]:
    if state is None:
        return []
    return [who.name for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq)]


def traits(state: FightState | None, before: list[str]) -> list[str]:
    """The traits of the combatants named on the line (`roll kara ` completes Kara's skills)."""
    if state is None:
        return []
    out: list[str] = []
    for word in before:
        who = state.find(word.partition(">")[0].partition("=")[0])
        if who is not None:
            sheet = who.fighter.sheet
            out += [*sheet.attributes, *sheet.skills]
    return out
