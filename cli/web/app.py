"""The live board's web application (Starlette): one fight, pushed by server-sent events. The board's routes
are GET only; a player's own link (`/p/<secret>/`, cli.web.players) also posts requests the GM answers.

Why polling the store: commands are separate processes writing one SQLite file, with no channel to
the server. The store's tail (last seq and hash, one indexed row) is read every POLL seconds; when it
moves, the board is rebuilt and sent to every open page. A poll costs one small query, so a command
shows on the players' screens within about a second, whoever wrote it. A store that notifies
(PostgreSQL: every append sends a NOTIFY) is waited on instead, in a worker thread: the page moves
as soon as the command commits, and an idle fight costs the server no queries.

Everything runs on the event loop's thread: the SQLite connection is used by one thread only, and a
rebuild (a replay of the fight's log) is short next to the poll interval.

`prefix` is "" on localhost, or "/" + the fight's secret link (service.links) when the page is served to
the table's network: no other path answers (404), so a guest who knows the address of one fight cannot read
another. Then `/join` also answers: a player who cannot scan the QR code types there the short code the GM
reads out, and is sent to the board's link (cli.web.lan: the code, and why wrong tries are limited).

One watch for all the pages: the first open stream that waits for a change starts it (a notifying store's
wait, or one poll), every other stream waits on the same one, and it reads the store's tail once for all
of them: a hundred open pages cost the store what one does. At most STREAMS streams are open at once (the
next is refused with 503 and its page retries), so streams never take every connection the server holds
(cli.web.net).

A store that cannot be read now is said on the page in words for a read: a club's server that went away
(a restart, the network) is "the store is reconnecting" above the last board shown, and the board follows
the fight again by itself once the server answers; the GM's terminal gets one line each way.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator, Callable
from html import escape
from urllib.parse import parse_qs
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response,
                                 StreamingResponse)
from starlette.routing import Route

from fudge_combat.cli.web import cards, view
from fudge_combat.cli.web.html import CSS
from fudge_combat.cli.web.lan import Tries, check
from fudge_combat.cli.web.net import HostCheck
from fudge_combat.cli.web.players import BODY, HEADERS as PLAYER_HEADERS, Players, page_html as player_html
from fudge_combat.cli.web.story import steps
from fudge_combat.cli.web.wounds import WoundView, view_of
from fudge_combat.store.base import StoreError

if TYPE_CHECKING:
    from fudge_combat.service.fights import Fights

POLL = 0.1  # seconds between two reads of the store's tail (one indexed row: bench/serve.py); a player waits on it
WAIT = 1.0  # seconds a stream waits on a notifying store before it checks for a closed page or Ctrl-C
SHOWN = 8  # commands listed under the board
HEARTBEAT = 15.0  # seconds: a comment line keeps proxies and phones from closing an idle stream
STREAMS = 64  # open streams at most: a table's phones and a TV, many times over (cli.web.net.CONNECTIONS: 256)
REVOKED = "this link is not (or no longer) a player's link to this fight: ask the GM for yours"
RECONNECTING = "the store is reconnecting: this page follows the fight again by itself when it answers"

class Board:
    """The fight's board as HTML, rebuilt when the store's tail moves; `warn` gives the GM's terminal a line;
    `wounds` gives a fight's (by its id) choice of wounds shown (cli.web.wounds: the GM's, read at each build)."""

    def __init__(self, fights: Fights, fight: str | None, warn: Callable[[str], None] = lambda line: None,
                 wounds: Callable[[str], WoundView] = view_of) -> None:
        self.fights, self.fight, self.warn, self.wounds = fights, fight, warn, wounds
        self.tail: tuple[str, int, str] | None = None
        self.payload: dict[str, object] = {}  # the last board built
        self.shown: dict[str, object] = {}  # what the pages show now: that board, or why the store is unread
        self.trouble: str | None = None  # why the store's server cannot be read now, as the GM was told
        self.watch: asyncio.Future[None] | None = None  # the one wait for a change that every stream shares

    def name(self) -> str:
        return self.fight or self.fights.current()  # without --fight: the current fight, as `fudge use` sets it

    def poll(self) -> dict[str, object]:
        """The payload for the page: rebuilt only if the fight or its last event changed. A store that cannot
        be read now (no current fight any more, a file being replaced, a server restarting) is said on the
        page, and polled again."""
        try:
            self.shown = self._poll()
            if self.trouble is not None:
                self.trouble = None
                self.warn("the store answers again: the board follows the fight")
        except StoreError as exc:
            self.shown = self.unread(exc)
        return self.shown

    def _poll(self) -> dict[str, object]:
        name = self.name()
        seq, digest = self.fights.store.tail(name)
        if self.tail != (name, seq, digest):
            self.payload = self.build(name, seq)
            self.tail = (name, seq, digest)
        return self.payload

    def unread(self, exc: StoreError) -> dict[str, object]:
        """The page while the store cannot be read: sent once (the tail changes when it can be read again)."""
        reason, passing = unreadable(exc)
        if not passing:
            self.tail = ("", -1, reason)
            return {"seq": 0, "title": "fudge", "html": f'<p class="status">{escape(reason)}</p>'}
        if self.trouble is None:  # one line for the GM when it starts, one when it ends
            self.warn(f"warning: {reason}; the players' page says the store is reconnecting, "
                      "and follows the fight again when it answers")
        self.trouble = reason
        self.tail = ("", -1, RECONNECTING)
        last = self.payload or {"seq": 0, "title": "fudge", "html": ""}
        return {**last, "html": f'<p class="status" role="status">{escape(RECONNECTING)}</p>{last["html"]}'}

    async def changed(self) -> None:
        """Until the fight may have changed and the board has read the store's tail again: one wait shared
        by every open stream (the first to come starts it; a stream that goes away does not cancel it)."""
        loop = asyncio.get_running_loop()
        if self.watch is None or self.watch.done() or self.watch.get_loop() is not loop:
            self.watch = loop.create_task(self._changed())
        await asyncio.shield(self.watch)

    async def _changed(self) -> None:
        """The store's notification where it sends one (store.postgres, LISTEN/NOTIFY, woken by the append's
        commit), else one POLL; then the tail, read once for every page."""
        store = self.fights.store
        waited = False
        if store.notifies and self.tail is not None and self.tail[1] >= 0:
            name, seq, _ = self.tail
            try:
                await asyncio.to_thread(store.wait_for_change, name, seq, WAIT)
                waited = True
            except StoreError:
                pass  # the store cannot be read now: the poll below says so on the page
        if not waited:
            await asyncio.sleep(POLL)
        self.poll()

    def build(self, name: str, seq: int) -> dict[str, object]:
        """The players' view (cli.web.view), filtered for them before it is drawn: every page gets these bytes."""
        state = self.fights.state(name)
        records = self.fights.log(name, seq)
        wounds = self.wounds(state.fight_id)
        told = view.story(steps(records, keep=SHOWN), {r.seq: r.event for r in records}, wounds)
        details = [f"event {seq}", f"dice seed committed {state.commitment[:12]}…"] if state.commitment else []
        html = cards.live_html(view.board(state, wounds), told, details)
        return {"seq": seq, "title": view.title(state), "html": html}


def unreadable(exc: StoreError) -> tuple[str, bool]:
    """Why the store cannot be read, in words for a read, and whether it passes by itself: a club's server
    that went away (psycopg's OperationalError: a restart, the network, a server starting up). The store's
    own line is written for every use, a write's included ("nothing was written"): behind a server's error
    the board says the server's own first line instead."""
    psycopg = sys.modules.get("psycopg")
    driver = exc.__cause__ or exc.__context__
    if psycopg is not None and isinstance(driver, psycopg.Error):
        line = (str(driver).strip().splitlines() or [type(driver).__name__])[0]
        return f"the store cannot be read: {line}", isinstance(driver, psycopg.OperationalError)
    return str(exc), False


def page(payload: dict[str, object], large: bool) -> str:
    """The players' page (cli.web.cards); `large`: in TV mode from the start."""
    return cards.page_html(payload, large)


def join_page(said: str = "") -> str:
    """The short page where a player types the GM's code (no script: a form, posted to itself)."""
    alert = f'<p class="status" role="alert">{escape(said, quote=False)}</p>' if said else ""
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="color-scheme" content="light dark">'
            f"<title>Join the board</title><style>{CSS}</style></head><body><main>"
            '<h1>Join the board</h1><form method="post" action="join">'
            '<label for="code">The code the GM reads out</label> '
            '<input id="code" name="code" maxlength="16" autocomplete="off" autocapitalize="characters" '
            f'spellcheck="false" autofocus required> <button>Join</button></form>{alert}'
            "</main></body></html>")


JOIN_BODY = 1024  # bytes of a posted code at most: a form's `code=ABC-DEF`, many times over


def create_app(fights: Fights, fight: str | None = None, prefix: str = "", large: bool = False, *,
               hosts: Callable[[str], bool], stopping: Callable[[], bool] = lambda: False,
               warn: Callable[[str], None] = lambda line: None, join: str | None = None) -> HostCheck:
    """The application; `hosts` says which Host headers name this server (cli.web.net.host_rule), `stopping`
    that the server is shutting down (Ctrl-C): the open streams then end; `warn` writes to the GM; `join`:
    the short code that `/join` takes to the board (None: no /join)."""
    board = Board(fights, fight, warn)
    board._poll()  # a fight that does not exist fails here, before the server starts
    streams = 0  # open now

    class Stream(StreamingResponse):
        """An event stream, counted while it is open, whatever ends it (the page closed, Ctrl-C)."""

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            nonlocal streams
            streams += 1
            try:
                await super().__call__(scope, receive, send)
            finally:
                streams -= 1

    async def index(request: Request) -> Response:
        return HTMLResponse(page(board.poll(), large), headers=cards.HEADERS)

    async def board_json(request: Request) -> Response:
        return JSONResponse(board.poll(), headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        if streams >= STREAMS:  # counted from here to the stream's start with no await between
            return PlainTextResponse("too many open boards: this page retries in a moment\n", status_code=503,
                                     headers={"Retry-After": "5", "Cache-Control": "no-store"})

        async def stream() -> AsyncIterator[str]:
            sent = None
            idle = 0.0
            payload = board.poll()
            while not stopping() and not await request.is_disconnected():
                if board.tail != sent:  # the fight's last event, or the fight followed, changed
                    sent = board.tail
                    idle = 0.0
                    yield f"data: {json.dumps(payload)}\n\n"
                elif idle >= HEARTBEAT:
                    idle = 0.0
                    yield ": still here\n\n"
                started = time.monotonic()
                await board.changed()
                payload = board.shown
                idle += time.monotonic() - started

        return Stream(stream(), media_type="text/event-stream",
                      headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    tries = Tries()

    async def join_form(request: Request) -> Response:
        return HTMLResponse(join_page(), headers={"Cache-Control": "no-store"})

    async def join_code(request: Request) -> Response:
        """A typed code: the right one is sent to the board (303), a wrong one counted (cli.web.lan.Tries)."""
        assert join is not None
        where = request.client.host if request.client else ""
        wait = tries.wait(where)
        if wait > 0:
            return HTMLResponse(join_page(f"too many wrong codes: try again in {int(wait) + 1} s"), status_code=429,
                                headers={"Retry-After": str(int(wait) + 1), "Cache-Control": "no-store"})
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > JOIN_BODY:
                return HTMLResponse(join_page("that is no code"), status_code=413, headers={"Connection": "close"})
        given = parse_qs(body.decode("utf-8", "replace")).get("code", [""])[0]
        if check(join, given):
            return RedirectResponse(f"{prefix}/", status_code=303, headers={"Cache-Control": "no-store"})
        tries.failed(where)
        return HTMLResponse(join_page("that is not this board's code: check it with the GM"), status_code=403,
                            headers={"Cache-Control": "no-store"})

    players = Players(board)

    def refused_link() -> Response:
        return JSONResponse({"said": REVOKED}, status_code=403, headers={"Cache-Control": "no-store"})

    async def player_page(request: Request) -> Response:
        token = request.path_params["token"]
        fighter = players.fighter(token)
        if fighter is None:
            return PlainTextResponse(REVOKED + "\n", status_code=403, headers={"Cache-Control": "no-store"})
        return HTMLResponse(player_html(players.payload(token, fighter), fighter, players.csrf(token)),
                            headers=player_headers)

    async def player_events(request: Request) -> Response:
        token = request.path_params["token"]
        if players.fighter(token) is None:
            return refused_link()
        if streams >= STREAMS:
            return PlainTextResponse("too many open boards: this page retries in a moment\n", status_code=503,
                                     headers={"Retry-After": "5", "Cache-Control": "no-store"})

        async def stream() -> AsyncIterator[str]:
            sent = ""
            idle = 0.0
            built: object = None  # the fight's tail and the link's requests the last payload was built at
            while not stopping() and not await request.is_disconnected():
                fighter = players.fighter(token)  # read at every turn: a revoked link's stream ends at once
                if fighter is None:
                    yield f"data: {json.dumps({'revoked': True, 'said': REVOKED})}\n\n"
                    return
                mark = (board.tail, players.marks(token))  # the tail as the last wait read it
                data = json.dumps(players.payload(token, fighter)) if mark != built else sent
                built = mark
                if data != sent:
                    sent, idle = data, 0.0
                    yield f"data: {data}\n\n"
                elif idle >= HEARTBEAT:
                    idle = 0.0
                    yield ": still here\n\n"
                started = time.monotonic()
                await board.changed()  # the fight's change, or one POLL: a request answered shows by then
                idle += time.monotonic() - started

        return Stream(stream(), media_type="text/event-stream",
                      headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def player_act(request: Request) -> Response:
        """A player's action (cli.web.players): the link, its CSRF token, this server's origin, a small JSON body."""
        token = request.path_params["token"]
        fighter = players.fighter(token)
        if fighter is None:
            return refused_link()
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
            return JSONResponse({"said": "a request from another site is refused"}, status_code=403)
        if not players.csrf_ok(token, request.headers.get("x-fudge-csrf", "")):
            return JSONResponse({"said": "this page is out of date: reload it"}, status_code=403)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"said": "a request is JSON"}, status_code=415)
        wait = players.limit.wait(token)
        if wait > 0:
            return JSONResponse({"said": f"too many requests: try again in {int(wait) + 1} s"}, status_code=429,
                                headers={"Retry-After": str(int(wait) + 1)})
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > BODY:
                return JSONResponse({"said": "that request is too long"}, status_code=413, headers={"Connection": "close"})
        status, said = players.ask(token, fighter, body)
        return JSONResponse({"said": said}, status_code=status, headers={"Cache-Control": "no-store"})

    async def player_odds(request: Request) -> Response:
        token = request.path_params["token"]
        fighter = players.fighter(token)
        if fighter is None:
            return refused_link()
        wait = players.limit.wait(token)
        if wait > 0:
            return JSONResponse({"said": f"too many requests: try again in {int(wait) + 1} s"}, status_code=429)
        status, said = players.odds(fighter, request.query_params.get("target", ""), request.headers.get("x-fudge-open", ""))
        return JSONResponse({"said": said}, status_code=status, headers={"Cache-Control": "no-store"})

    player_headers = PLAYER_HEADERS
    routes = [Route("/p/{token}/", player_page, methods=["GET"]),
              Route("/p/{token}/events", player_events, methods=["GET"]),
              Route("/p/{token}/act", player_act, methods=["POST"]),
              Route("/p/{token}/odds", player_odds, methods=["GET"]),
              Route(f"{prefix}/", index, methods=["GET"]),
              Route(f"{prefix}/board.json", board_json, methods=["GET"]),
              Route(f"{prefix}/events", events, methods=["GET"])]
    if prefix:
        routes.append(Route(prefix, index, methods=["GET"]))
    if prefix and join is not None:
        routes += [Route("/join", join_form, methods=["GET"]), Route("/join", join_code, methods=["POST"])]
    return HostCheck(Starlette(routes=routes), hosts)
