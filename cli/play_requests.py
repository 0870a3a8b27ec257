"""Players' requests in the GM's `fudge play` (store.requests; made on the players' own devices, cli.web.players).

A request is shown as soon as it comes, as one line ("Leroy's player declares (sealed): accept? y/n"), and the
GM answers it at the prompt: `y` accepts the oldest request waiting, `n` refuses it. Accepted, it runs as the
GM's own command would (the same line through the same session: the same events, the same words, the board
after it), with who asked kept beside the command in the first event's `issued` (engine.kernel.commands,
REQUESTED). A command the rules refuse leaves the request refused with the rules' own line, which the
player's page shows. A sealed declaration holds only its seal: it is appended as `declare --sealed` appends
it (SealDeclaration); its stance stays on the player's device until a blow needs it (service.secrets).

Where the GM said so (`fudge invite --auto`), a request is accepted as soon as it is shown.

On a terminal a watcher thread reads the store's waiting requests (its own connection) and wakes the prompt
when one comes (`watching`); in a script they are read after each line.
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fudge_combat.cli.context import echo
from fudge_combat.cli.shorthands import Refused, and_list
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.words import possessive
from fudge_combat.store.base import StoreError
from fudge_combat.store.requests import ACCEPTED, HELD, PENDING, REFUSED, Request, RequestStore

AUTO = "requests.auto:"  # + a fight's id: the GM accepts its players' requests as they come ("1")
WAKE = "\x00requests"  # what the prompt returns when the watcher wakes it: no line of the GM's
YES, NO = ("y", "yes"), ("n", "no")
WATCH = 0.1  # seconds between two reads of the waiting requests, on a terminal


class Waiting:
    """The requests of the session's fight shown so far and waiting for the GM's answer, oldest first."""

    def __init__(self) -> None:
        self.shown: list[Request] = []
        self.fight: str | None = None


def _waiting(session: Any) -> Waiting:
    found = getattr(session, "requests_waiting", None)
    if found is None:
        found = session.requests_waiting = Waiting()
    return found


def answered(session: Any, line: str) -> bool:
    """Whether `line` was the GM's answer to a request (or the watcher's wake): then it is done here."""
    if line == WAKE:
        return True
    waiting = _waiting(session)
    word = line.strip().lower()
    if not waiting.shown or word not in (*YES, *NO):
        return False
    request = waiting.shown.pop(0)
    if word in YES:
        accept(session, waiting.fight or "", request)
    else:
        settle(session, waiting.fight or "", request, REFUSED, "the GM said no")
        echo(f"refused: {said_of(session, waiting.fight or '', request)}")
    return True


def show(session: Any) -> None:
    """New requests of the current fight, one line each; accepted at once where the GM said so."""
    store: Any = session.fights.store
    if not isinstance(session.fights.store, RequestStore):
        return
    waiting = _waiting(session)
    session.requests_woken = False  # the watcher may wake the prompt again for the next new request
    try:
        name = store.setting("current")
        if not name:
            return
        if name != waiting.fight:
            waiting.shown, waiting.fight = [], name
        known = {request.id for request in waiting.shown}
        new = [request for request in store.requests(name, PENDING) if request.id not in known]
        auto = bool(new) and store.setting(AUTO + store.fight(name).fight_id) == "1"
    except StoreError as exc:
        echo(f"error: the players' requests cannot be read: {exc}", err=True)
        return
    for request in new:
        if auto:
            echo(f"{said_of(session, name, request)}: accepted (the GM accepts the players' requests)")
            accept(session, name, request)
            session.board(force=True)
        else:
            waiting.shown.append(request)
            echo(f"{said_of(session, name, request)}: accept? y/n")


def said_of(session: Any, name: str, request: Request) -> str:
    """The request in the GM's words, a point's use in the fight's ruleset's (by its key if the fight is unread)."""
    from fudge_combat.cli import player_actions

    try:
        state = session.fights.state(name)
    except StoreError:
        state = None
    try:
        return player_actions.said(request.fighter, player_actions.read(request.body), state)
    except ValueError:
        return f"{possessive(request.fighter)} player asks for something this fudge does not know"


def accept(session: Any, name: str, request: Request) -> None:
    """The request run as the GM's command, with who asked kept in its `issued`; settled with the outcome."""
    from fudge_combat.cli import player_actions

    try:  # a stored request is untrusted: its action read again, its fighter one of the fight's, by full name
        action = player_actions.read(request.body)
        state = session.fights.state(name)
        who = state.find(request.fighter)
        if who is None or who.name != request.fighter:
            raise ValueError("no such fighter")
        # the words the fight's rules give the action now: a blow its pace strikes, a point its ruleset offers
        words = player_actions.words(request.fighter, action, state)
    except (ValueError, StoreError):
        settle(session, name, request, REFUSED, "this fudge does not know that request")
        echo(f"refused: {said_of(session, name, request)} (not a request this fudge knows)")
        return
    except (RuleError, Refused) as exc:  # the rules refuse it now: their line, as the command's would be
        settle(session, name, request, REFUSED, str(exc))
        echo(f"refused: {said_of(session, name, request)}: {exc}", err=True)
        return
    if isinstance(action, player_actions.Initiative):  # held: the next round's start rolls them (`held_dice`)
        if settle(session, name, request, HELD, "held for the next round: its start rolls them"):
            echo(f"  {possessive(request.fighter)} initiative dice held for the next round")
        else:
            echo(f"{said_of(session, name, request)}: answered already (by another session): nothing done")
        return
    if not settle(session, name, request, ACCEPTED, "accepted"):  # claimed before it runs: it runs once
        echo(f"{said_of(session, name, request)}: answered already (by another session): nothing done")
        return
    fights = session.fights
    fights.requested = {"v": 1, "fighter": request.fighter, "link": request.link, "request": request.id}
    errors = Tee(sys.stderr)
    try:
        sys.stderr = errors
        if isinstance(action, player_actions.Declare) and action.sealed:
            code = _seal(session, name, request.fighter, action.seal or "")
        else:
            line = shlex.join(words)
            echo(f"  ({line})")
            code = session.run(line)
    except KeyboardInterrupt:  # the GM stopped it (a blow waiting for a player's page to open a seal)
        echo("error: interrupted: nothing done", err=True)
        code = 1
    finally:
        sys.stderr = errors.stream
        fights.requested = None
    if code != 0:
        refusal = errors.last().removeprefix("error: ") or "refused"
        settle(session, name, request, REFUSED, refusal, was=ACCEPTED)


def starts_a_round(words: list[str]) -> bool:
    return words[:1] == ["round"] or words[:2] == ["fate", "round"]


def held_dice(session: Any, words: list[str]) -> tuple[list[str], list[Request]]:
    """A round's start (`round`, `fate round`) with the initiative dice the players' requests hold for it:
    `-d NAME=FACES` for each fighter the GM gave no dice of his own, and the requests they came from."""
    from fudge_combat.cli import player_actions

    store = session.fights.store
    if not isinstance(store, RequestStore) or not starts_a_round(words):
        return words, []
    from fudge_combat.engine.kernel.errors import InputError
    from fudge_combat.service.names import resolve

    try:
        name = session.fights.store.setting("current")
        held = store.requests(name, HELD) if name else []
        state = session.fights.state(name) if held else None
    except StoreError:
        return words, []
    if state is None:
        return words, []
    typed = [value for flag, value in zip(words, words[1:]) if flag in ("-d", "--dice")]
    typed += [word.removeprefix("--dice=") for word in words if word.startswith("--dice=")]
    given = set()
    for value in typed:  # the fighters the GM typed dice for, by full name (a name may be typed short)
        try:
            given.add(resolve(state, value.partition("=")[0].strip()).lower())
        except InputError:
            continue  # the command says what it is
    used, added = [], []
    for request in held:  # a stored row is untrusted: its action read again, its fighter one of the fight's
        try:
            action = player_actions.read(request.body)
        except ValueError:
            continue
        who = state.find(request.fighter)
        if who is None or who.name != request.fighter:
            continue
        if isinstance(action, player_actions.Initiative) and request.fighter.lower() not in given:
            given.add(request.fighter.lower())
            used.append(request)
            added += ["-d", f"{request.fighter}={action.dice.strip()}"]
    return [*words, *added], used


def rolled(session: Any, used: list[Request], code: int, refusal: str) -> None:
    """The held initiative dice after the round's start: rolled (accepted), or refused with the rules' line,
    the GM then starting the round again without them."""
    name = _waiting(session).fight or session.fights.store.setting("current") or ""
    for request in used:
        if code == 0:
            settle(session, name, request, ACCEPTED, "rolled at the round's start", was=HELD)
        else:
            settle(session, name, request, REFUSED, refusal or "the round's start refused them", was=HELD)
    if code and used:
        echo(f"the players' initiative dice were refused with the round ({and_list([r.fighter for r in used])}): "
             "start it again, with the fight's dice or yours", err=True)


def _seal(session: Any, name: str, fighter: str, seal: str) -> int:
    """A sealed declaration, as `declare --sealed` appends it: its plaintext was kept by the players' server."""
    from fudge_combat.engine import commands as cmd
    from fudge_combat.engine.kernel.errors import InputError, RuleError

    try:
        outcome = session.fights.execute(name, cmd.SealDeclaration(combatant=fighter, seal=seal))
    except (InputError, RuleError, StoreError) as exc:  # the rules refuse it now: their line, as a command's
        echo(f"error: {exc}", err=True)
        return 1
    for record in outcome.records:
        echo(f"  {record.seq:>3}  {fighter} seals a declaration ({seal[:12]}…)")
    session.ran = "declare"
    return 0


def settle(session: Any, name: str, request: Request, state: str, said: str, was: str = PENDING) -> bool:
    """The request answered (False: it was not `was` any more, or the store refused the write)."""
    try:
        return bool(session.fights.store.settle_request(name, request.id, state, said[:300], was))
    except StoreError as exc:
        echo(f"error: the request could not be answered: {exc}", err=True)
        return False


class Tee:
    """stderr, with the lines written kept: a refused command's own line is the player's answer."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.lines = stream, [""]

    def write(self, text: str) -> int:
        parts = text.split("\n")
        self.lines[-1] += parts[0]
        self.lines += parts[1:]
        return self.stream.write(text)

    def last(self) -> str:
        return next((line for line in reversed(self.lines) if line.strip()), "")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def watching(prompt: Any, session: Any) -> Iterator[None]:
    """On a terminal: a thread reads the fight's waiting requests every WATCH seconds, with a store connection
    of its own, and wakes the prompt (it returns WAKE, the line typed so far kept) when one comes that the
    session has not shown."""
    from fudge_combat.cli import context

    store = session.fights.store
    if not isinstance(store, RequestStore):
        yield
        return
    stop = threading.Event()

    def watch() -> None:
        own = context.open_store()
        try:
            while not stop.wait(WATCH):
                try:
                    name = own.setting("current")
                    ids = {r.id for r in own.requests(name, PENDING)} if name else set()
                except StoreError:
                    continue
                shown = {r.id for r in _waiting(session).shown}
                app = prompt.app
                if ids - shown and app.is_running and not getattr(session, "requests_woken", False):
                    session.requests_woken = True
                    app.loop.call_soon_threadsafe(lambda: app.is_running and app.exit(result=WAKE))
        finally:
            close = getattr(own, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=watch, name="requests", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=1)
