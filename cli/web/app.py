"""The live board's web application (Starlette): GET only, one fight, pushed by server-sent events.

Why polling the store: commands are separate processes writing one SQLite file, with no channel to
the server. The store's tail (last seq and hash, one indexed row) is read every POLL seconds; when it
moves, the board is rebuilt and sent to every open page. A poll costs one small query, so a command
shows on the players' screens within about a second, whoever wrote it. A store that notifies
(PostgreSQL: every append sends a NOTIFY) is waited on instead, in a worker thread: the page moves
as soon as the command commits, and an idle fight costs the server no queries.

Everything runs on the event loop's thread: the SQLite connection is used by one thread only, and a
rebuild (a replay of the fight's log) is short next to the poll interval.

`prefix` is "" on localhost, or "/" + a random token when the page is served to the table's network:
no other path answers (404), so a guest who knows the address of one fight cannot read another.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from html import escape
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from cli.web.html import CSS, board_html, events_html
from cli.web.story import steps
from store.base import StoreError

if TYPE_CHECKING:
    from service.fights import Fights

POLL = 0.3  # seconds between two reads of the store's tail
WAIT = 1.0  # seconds a stream waits on a notifying store before it checks for a closed page or Ctrl-C
SHOWN = 8  # commands listed under the board
HEARTBEAT = 15.0  # seconds: a comment line keeps proxies and phones from closing an idle stream

# A few lines of plain JavaScript: the page replaces its live part with what the server sends.
SCRIPT = """
const live = document.getElementById("live"), state = document.getElementById("conn");
const source = new EventSource(location.pathname.replace(/\\/?$/, "/") + "events");
source.onmessage = (m) => { const d = JSON.parse(m.data); live.innerHTML = d.html; document.title = d.title;
  document.body.dataset.seq = d.seq; state.textContent = "live · event " + d.seq; };
source.onerror = () => { state.textContent = "reconnecting…"; };
if (new URLSearchParams(location.search).has("large")) document.body.classList.add("large");
"""


class Board:
    """The fight's board as HTML, rebuilt when the store's tail moves."""

    def __init__(self, fights: Fights, fight: str | None) -> None:
        self.fights, self.fight = fights, fight
        self.tail: tuple[str, int, str] | None = None
        self.payload: dict[str, object] = {}

    def name(self) -> str:
        return self.fight or self.fights.current()  # without --fight: the current fight, as `fudge use` sets it

    def poll(self) -> dict[str, object]:
        """The payload for the page: rebuilt only if the fight or its last event changed. A store that cannot
        be read now (no current fight any more, a file being replaced) is said on the page, and polled again."""
        try:
            return self._poll()
        except StoreError as exc:
            self.tail = ("", -1, str(exc))  # sent once; a readable store again changes the tail
            return {"seq": 0, "title": "fudge", "html": f'<p class="status">{escape(str(exc))}</p>'}

    def _poll(self) -> dict[str, object]:
        name = self.name()
        seq, digest = self.fights.store.tail(name)
        if self.tail != (name, seq, digest):
            self.payload = self.build(name, seq)
            self.tail = (name, seq, digest)
        return self.payload

    async def changed(self) -> None:
        """Until the fight may have changed: the store's notification where it sends one (store.postgres,
        LISTEN/NOTIFY, woken by the append's commit), else one POLL."""
        store = self.fights.store
        if store.notifies and self.tail is not None and self.tail[1] >= 0:
            name, seq, _ = self.tail
            try:
                await asyncio.to_thread(store.wait_for_change, name, seq, WAIT)
                return
            except StoreError:
                pass  # the store cannot be read now: the next poll says so on the page
        await asyncio.sleep(POLL)

    def build(self, name: str, seq: int) -> dict[str, object]:
        state = self.fights.state(name)
        records = self.fights.log(name, seq)
        html = board_html(state) + "<h2>Last commands</h2>" + events_html(steps(records, keep=SHOWN))
        return {"seq": seq, "title": f"{name} · round {state.round}" if state.round else name, "html": html}


def page(payload: dict[str, object], large: bool) -> str:
    body = ' class="large"' if large else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="color-scheme" content="light dark">'
            f"<title>{escape(str(payload['title']))}</title><style>{CSS}</style></head>"
            f'<body{body} data-seq="{payload["seq"]}"><main><div id="live">{payload["html"]}</div>'
            f'<p class="status" id="conn">event {payload["seq"]}</p></main>'
            f"<script>{SCRIPT}</script></body></html>")


def create_app(fights: Fights, fight: str | None = None, prefix: str = "", large: bool = False,
               stopping: Callable[[], bool] = lambda: False) -> Starlette:
    """The application; `stopping` says the server is shutting down (Ctrl-C): the open streams then end."""
    board = Board(fights, fight)
    board._poll()  # a fight that does not exist fails here, before the server starts

    async def index(request: Request) -> Response:
        return HTMLResponse(page(board.poll(), large), headers={"Cache-Control": "no-store"})

    async def board_json(request: Request) -> Response:
        return JSONResponse(board.poll(), headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            sent = None
            idle = 0.0
            while not stopping() and not await request.is_disconnected():
                payload = board.poll()
                if board.tail != sent:  # the fight's last event, or the fight followed, changed
                    sent = board.tail
                    idle = 0.0
                    yield f"data: {json.dumps(payload)}\n\n"
                elif idle >= HEARTBEAT:
                    idle = 0.0
                    yield ": still here\n\n"
                started = time.monotonic()
                await board.changed()
                idle += time.monotonic() - started

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    routes = [Route(f"{prefix}/", index, methods=["GET"]),
              Route(f"{prefix}/board.json", board_json, methods=["GET"]),
              Route(f"{prefix}/events", events, methods=["GET"])]
    if prefix:
        routes.append(Route(prefix, index, methods=["GET"]))
    return Starlette(routes=routes)
