"""`fudge serve`: the board in the players' browsers, read-only, updated as the GM plays.

Starlette and uvicorn (the `serve` extra) are imported when the command runs: no other command pays for them.
The server holds against the network it faces (cli.web.net): slow requests are closed, connections and
streams are bounded, and a Host header that names another server is refused.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import Annotated, Optional

import typer

from fudge_combat.cli.context import echo, echo_drawn, fight_named, guard, open_store
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


def unspecified(host: str) -> bool:
    """Is `host` every address (0.0.0.0, ::), no address of its own?"""
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_unspecified
    except ValueError:  # a name
        return False


def bound(host: str, port: int, backlog: int) -> socket.socket:
    """A listening socket, bound here so a port in use is one clear error (and port 0 picks a free one).
    On `::` it takes IPv4 too, so the IPv4 address printed for it opens the board."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6 and unspecified(host):
        try:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        except OSError:
            pass  # IPv6 alone: the address printed is then an IPv6 one (printed_address)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                         "try another --port or --host") from None
    sock.listen(backlog)
    return sock


def printed_address(bound_to: str, v6only: bool) -> tuple[str, str | None]:
    """The address to print for a server bound to `bound_to`, and a warning when no player can open it.
    Every address (0.0.0.0, ::) is no address a phone can open: the machine's LAN address is printed, of a
    family the socket takes (:: takes IPv4 too unless the system keeps it to IPv6)."""
    from fudge_combat.cli.web.lan import lan_address

    if not unspecified(bound_to):
        return bound_to, None
    six = ":" in bound_to
    found = lan_address(versions=(6,) if six and v6only else (4, 6) if six else (4,))
    if found is not None:
        return found, None
    alone = "::1" if six and v6only else "127.0.0.1"
    return alone, (f"warning: this machine has no address on a network: the board is at {alone} "
                   "for this machine alone until it joins one")


@app.command()
def serve(
    fight: Annotated[Optional[str], typer.Option(
        "--fight", "-f", metavar="FIGHT", help="Fight to show (default: the current one, followed as it changes).")] = None,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")] = 8000,
    host: Annotated[Optional[str], typer.Option(
        "--host", metavar="ADDRESS", show_default="127.0.0.1",
        help="Address to listen on (requests must name it: no DNS rebinding); other than localhost, the page is "
             "served under the fight's secret link. 0.0.0.0 listens on every network: the LAN address is printed.")]
        = None,
    lan: Annotated[bool, typer.Option(
        "--lan", help="Serve to the table's network: listen on this machine's LAN address (found without any "
                      "outside request) and print the link, its QR code and a short code players type on /join.")]
        = False,
    no_qr: Annotated[bool, typer.Option(
        "--no-qr", help="Print no QR code of the link (the link and the short code are still printed).")] = False,
    new_link: Annotated[bool, typer.Option(
        "--new-link", help="Give the fight a new secret link: the old one (saved, shared or scanned) is refused "
                           "from now on. The link is otherwise kept among your secrets, the same at every serve.")]
        = False,
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
    updated within a second of any command. Nothing on it can change the fight; a player's own link
    (`fudge invite FIGHTER`) asks for their fighter's actions, which the GM accepts in `fudge play`.

    Served to the table's network (--lan, or --host other than localhost), the page is under the fight's
    secret link, kept among the GM's secrets so it outlives a restart; players open it, scan its QR code,
    or type the short code on /join."""
    with guard():
        if lan and host is not None:
            raise InputError("--lan and --host both say where to listen: give one of them")
        if host is not None and not host.strip():  # the socket would listen on every address, and say nothing of it
            raise InputError("--host is empty: give the address to listen on (127.0.0.1: this machine alone; "
                             "0.0.0.0: every network it is on)")
        try:
            import uvicorn

            from fudge_combat.cli.web import lan as joining
            from fudge_combat.cli.web import net
            from fudge_combat.cli.web.app import create_app
            if not no_qr and (lan or (host is not None and not loopback(host))):
                import segno  # noqa: F401  (here: a missing QR library is said before anything starts)
        except ImportError as exc:
            raise InputError(f"`fudge serve` needs {exc.name}: install fudge with its serve extra "
                             "(pip install '.[serve]' in fudge's source folder)") from None
        from fudge_combat.service.fights import Fights
        from fudge_combat.service.links import board_link

        fights = Fights(open_store())  # no read model kept: the server never writes to the store
        name = fight_named(fights.store, fight) if fight else None
        shown_fight = name or fights.current()  # no current fight: say so now, not in the players' browsers
        if lan:
            host = joining.lan_address()
            if host is None:
                raise InputError("this machine has no address on a network (only loopback): join the table's "
                                 "network (Wi-Fi or cable), or give --host ADDRESS")
        host = host or "127.0.0.1"
        local = loopback(host)
        if new_link and local:
            raise InputError("--new-link replaces the link served to the table's network: add --lan "
                             "(or --host ADDRESS)")
        servers: list[uvicorn.Server] = []
        limit = net.connection_limit(net.descriptors())
        from fudge_combat.cli.web.wounds import keep as keep_wounds  # the GM's choice of wounds shown, checked now
        seen = keep_wounds(fights, name or fights.current(), wounds, words_for or (), exact_for or ())
        sock = bound(host, port, net.BACKLOG)
        shown = sock.getsockname()
        prefix, replaced = "", False
        if not local:
            token, replaced = board_link(fights.keeper, fights.store.fight(shown_fight).fight_id, shown_fight,
                                         renew=new_link)
            prefix = "/" + token
            where = " (every network this machine is on)" if unspecified(shown[0]) else ""
            echo(f"warning: serving to the network on {host}{where}: anyone who can reach it and has the link below can read the fight "
                 "(never change it); share it with the table only", err=True)
        v6only = sock.family == socket.AF_INET6 and sock.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY) != 0
        address, alone = printed_address(shown[0], v6only)
        if alone:
            echo(alone, err=True)
        hosts = net.host_rule(host, shown[0], shown[1], local)
        code = joining.new_code() if prefix else None
        web = create_app(fights, name, prefix, large, hosts=hosts, join=code, warn=lambda line: echo(line, err=True),
                         stopping=lambda: any(server.should_exit for server in servers))
        base = f"http://{joining.url_host(address)}:{shown[1]}"
        echo(f"the board of {name or 'the current fight'} at {base}{prefix}/ (Ctrl-C stops)")
        if replaced:
            echo(f"a new link for fight {shown_fight}: the old one is refused from now on")
        if code is not None:
            if not no_qr:
                from fudge_combat.cli import style

                colour = style.wanted(sys.stdout)  # escapes of its own, not a name's: written as they are
                echo_drawn(joining.qr_lines(f"{base}{prefix}/", colour), colour)
            echo(f"or open {base}/join and type the code {joining.spoken(code)} (good while this server runs)")
        sys.stdout.flush()
        echo(seen)  # after the address, the first line a reader of this output looks for
        sys.stdout.flush()
        # Ctrl-C: the players' streams end at their next poll (`stopping`), well within the grace period.
        # uvicorn's warnings are a stranger's malformed requests: not the GM's to read, nor to be flooded with.
        server = uvicorn.Server(uvicorn.Config(web, http=net.guarded(limit), backlog=net.BACKLOG, log_level="error",
                                               lifespan="off", timeout_graceful_shutdown=3))
        servers.append(server)
        server.run(sockets=[sock])
