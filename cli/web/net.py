"""`fudge serve` facing the network: what happens to a connection before the board sees its request.

uvicorn closes a keep-alive connection left idle, but it waits for ever on a request whose headers never
end (`GET / HTTP/1.1\\r\\nHo`), on a connection that sends nothing at all, and it holds every connection
it accepts: a few hundred slow clients held the board, and once the process ran out of file
descriptors it stayed stuck after they left. So the server speaks uvicorn's own HTTP/1.1 protocol (h11)
with two limits of its own (`guarded`):

- a request's headers must all have come HEADERS seconds after the connection opened, or after the
  previous response on it ended; else the connection is closed;
- at most `limit` connections are held. One more closes the connection that has waited longest for its
  headers (a slow client, or one idle between requests: never a player's open stream or a request being
  answered); when every held connection is busy, the new one is refused (503) and closed.

So 1,000 slow clients cost the server at most `limit` sockets, and a player who arrives next is served at
once, by taking the slot of the slowest of them. The open streams are bounded by the application
(cli.web.app.STREAMS), under `limit`, so some slots are always free for the page itself.

`HostCheck` refuses a request whose Host header names another server (DNS rebinding: a page of another
site whose name was pointed at this machine's address would read a board served on localhost).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable
from typing import Any

HEADERS = 5.0  # seconds for a request's headers: a browser sends them in its first packet
CONNECTIONS = 256  # connections held at most: a table's phones and a TV use a few each
BACKLOG = 512  # connections the kernel queues, and the server accepts in one go, before it sees them
HEADROOM = 64  # file descriptors kept for the store, its server connections, the log and Python itself
_BUSY = b"too many connections: try again soon\n"
REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 5\r\n"
           b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_BUSY), _BUSY))


def descriptors(wanted: int = CONNECTIONS + BACKLOG + HEADROOM) -> int:
    """The process's soft limit on open files, raised to `wanted` when it is lower and the hard limit allows
    (a Mac starts a process with 256): the connections the server holds, plus a batch being accepted,
    plus HEADROOM. A process never runs out of descriptors if it holds no more than it can open."""
    try:
        import resource
    except ImportError:  # not a Unix: no such limit to raise
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return wanted if soft == resource.RLIM_INFINITY else soft
    raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    except (ValueError, OSError):
        return soft
    return raised


def connection_limit(files: int) -> int:
    """How many connections a process that may open `files` descriptors holds, keeping the headroom."""
    return max(8, min(CONNECTIONS, files - BACKLOG - HEADROOM))


def guarded(limit: int, headers: float = HEADERS) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline for every request's headers and at most `limit` connections
    (the module's docstring says why). One class per server: it keeps that server's waiting connections."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: dict[Any, None] = {}  # the connections waiting for a request's headers, longest first

    class Guarded(H11Protocol):
        deadline: asyncio.TimerHandle | None = None
        awaited: object = None  # the request cycle (None: none yet) after which the next request is awaited

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]  # uvicorn narrows asyncio's parameter to a Transport, which a server's connection is
            held = sum(1 for other in self.connections if not other.transport.is_closing())
            if held > limit:
                if waiting:
                    next(iter(waiting)).too_slow()  # the slowest client gives its slot to this one
                else:  # every connection is answering a request or holds a stream: refuse, do not queue
                    self.transport.write(REFUSED)
                    self.transport.close()
                    return
            self.await_headers()

        def await_headers(self) -> None:
            """From now on, the next request's headers have `headers` seconds."""
            self.awaited = self.cycle
            waiting[self] = None
            self.deadline = self.loop.call_later(headers, self.too_slow)

        def headers_came(self) -> None:
            if self.deadline is not None and self.cycle is not self.awaited:  # uvicorn began a new request
                self.deadline.cancel()
                self.deadline = None
                waiting.pop(self, None)

        def too_slow(self) -> None:
            """Close the connection: its request's headers did not come in time (or its slot is needed)."""
            waiting.pop(self, None)
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self.headers_came()

        def on_response_complete(self) -> None:
            super().on_response_complete()  # may start a request that was sent behind this one
            if not self.transport.is_closing() and self.deadline is None and (
                    self.cycle is None or self.cycle.response_complete):
                self.await_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            waiting.pop(self, None)
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None
            super().connection_lost(exc)

    return Guarded


def authority(value: str) -> tuple[str, int] | None:
    """The host and port a Host header names (port 80 when it names none), or None if it is not one."""
    value = value.strip().lower()
    if value.startswith("["):
        host, closed, rest = value[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
        given = rest.startswith(":")
    else:
        host, colon, port = value.partition(":")
        given = bool(colon)
    if not host or (given and not (port.isascii() and port.isdigit() and len(port) <= 5)):
        return None
    return host, int(port) if given else 80


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def host_rule(given: str, address: str, port: int, local: bool) -> Callable[[str], bool]:
    """Which Host headers name the board served on `address`:`port` (`given`: the --host typed; `local`:
    a loopback address, this machine alone). The port must be the one served, and the host:

    - on loopback: localhost, 127.0.0.1 or [::1] (or the address or name given);
    - on one address: that address, or the name given for it;
    - on every address (0.0.0.0, ::): any address written as such (a rebinding needs a name, and a page
      reached by an address is that address's own), or this machine's name (NAME and NAME.local).
    """
    names = {given.strip().lower().rstrip("."), address.lower()}
    bound = _address(address)
    every = bound is not None and bound.is_unspecified
    if local:
        names |= {"localhost", "127.0.0.1", "::1"}
    if every:
        machine = socket.gethostname().lower()
        names |= {machine, machine.split(".")[0] + ".local"}
    addresses = {_address(name) for name in names} - {None}

    def allowed(header: str) -> bool:
        found = authority(header)
        if found is None or found[1] != port:
            return False
        host = found[0]
        ip = _address(host)
        if ip is None:
            return host in names
        return every or ip in addresses

    return allowed


class HostCheck:
    """ASGI middleware: a request whose Host header does not name this board gets 400, "misdirected
    request", and nothing of the board (one Host header, as HTTP/1.1 requires)."""

    def __init__(self, app: Any, allowed: Callable[[str], bool]) -> None:
        self.app, self.allowed = app, allowed

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            hosts = [value.decode("latin-1") for key, value in scope["headers"] if key.lower() == b"host"]
            if len(hosts) != 1 or not self.allowed(hosts[0]):
                from starlette.responses import PlainTextResponse

                response = PlainTextResponse("misdirected request: this server answers only to the address "
                                             "`fudge serve` printed\n", status_code=400,
                                             headers={"Connection": "close"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
