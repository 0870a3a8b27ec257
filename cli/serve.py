"""`fudge serve`: the board in the players' browsers, read-only, updated as the GM plays.

Starlette and uvicorn (the `serve` extra) are imported when the command runs: no other command pays for them.
The server holds against the network it faces (cli.web.net): slow requests are closed, connections and
streams are bounded, and a Host header that names another server is refused.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import sys
from typing import Annotated, Optional

import typer

from fudge_combat.cli.context import echo, fight_named, guard, open_store
from fudge_combat.engine.kernel.errors import InputError

app = typer.Typer()

LOOPBACK_NAMES = ("localhost", "ip6-localhost")


def loopback(host: str) -> bool:
    """Is `host` this machine alone? A name other than localhost counts as the network."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bound(host: str, port: int, backlog: int) -> socket.socket:
    """A listening socket, bound here so a port in use is one clear error (and port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                         "try another --port or --host") from None
    sock.listen(backlog)
    return sock


@app.command()
def serve(
    fight: Annotated[Optional[str], typer.Option(
        "--fight", "-f", metavar="FIGHT", help="Fight to show (default: the current one, followed as it changes).")] = None,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")] = 8000,
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on (requests must name it: no DNS rebinding); other than localhost, "
                       "the page is served under a secret path.")]
        = "127.0.0.1",
    large: Annotated[bool, typer.Option("--large", help="Large type, for a TV across the table.")] = False,
    wounds: Annotated[Optional[str], typer.Option(
        "--wounds", metavar="exact|words|npc-words", show_default="npc-words, or what was kept",
        help="What players see of wounds: the exact track, words (hurt, badly hurt, down, out), or NPCs in words "
             "and the others exact. Kept for the fight among the GM's settings, never in the log.")] = None,
    words_for: Annotated[Optional[list[str]], typer.Option(
        "--words-for", metavar="NAME", help="Show this fighter's wounds in words (repeat for more).")] = None,
    exact_for: Annotated[Optional[list[str]], typer.Option(
        "--exact-for", metavar="NAME", help="Show this fighter's wounds exactly (repeat for more).")] = None,
) -> None:
    """A read-only web page of the board for the players: turn order, wounds, points and the last commands,
    updated within a second of any command. Nothing on it can change the fight."""
    with guard():
        if not host.strip():  # the socket would listen on every address, and say nothing of it
            raise InputError("--host is empty: give the address to listen on (127.0.0.1: this machine alone; "
                             "0.0.0.0: every network it is on)")
        try:
            import uvicorn

            from fudge_combat.cli.web import net
            from fudge_combat.cli.web.app import create_app
        except ImportError as exc:
            raise InputError(f"`fudge serve` needs {exc.name}: install fudge with its serve extra "
                             "(pip install '.[serve]' in fudge's source folder)") from None
        from fudge_combat.service.fights import Fights

        fights = Fights(open_store())  # no read model kept: the server never writes
        name = fight_named(fights.store, fight) if fight else None
        if name is None:
            fights.current()  # no current fight: say so now, not in the players' browsers
        prefix = ""
        if not loopback(host):
            prefix = "/" + secrets.token_urlsafe(16)
            echo(f"warning: serving to the network on {host}: anyone who can reach it and has the address below "
                 "can read the fight (never change it); share the address with the table only", err=True)
        servers: list[uvicorn.Server] = []
        limit = net.connection_limit(net.descriptors())
        from fudge_combat.cli.web.wounds import keep as keep_wounds  # the GM's choice of wounds shown, checked now
        seen = keep_wounds(fights, name or fights.current(), wounds, words_for or (), exact_for or ())
        sock = bound(host, port, net.BACKLOG)
        shown = sock.getsockname()
        hosts = net.host_rule(host, shown[0], shown[1], loopback(host))
        web = create_app(fights, name, prefix, large, hosts=hosts, warn=lambda line: echo(line, err=True),
                         stopping=lambda: any(server.should_exit for server in servers))
        where = f"[{shown[0]}]" if ":" in shown[0] else shown[0]
        echo(f"the board of {name or 'the current fight'} at http://{where}:{shown[1]}{prefix}/ "
             "(Ctrl-C stops)")
        sys.stdout.flush()
        echo(seen)  # after the address, the first line a reader of this output looks for
        sys.stdout.flush()
        # Ctrl-C: the players' streams end at their next poll (`stopping`), well within the grace period.
        # uvicorn's warnings are a stranger's malformed requests: not the GM's to read, nor to be flooded with.
        server = uvicorn.Server(uvicorn.Config(web, http=net.guarded(limit), backlog=net.BACKLOG, log_level="error",
                                               lifespan="off", timeout_graceful_shutdown=3))
        servers.append(server)
        server.run(sockets=[sock])
