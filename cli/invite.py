"""`fudge invite FIGHTER`: a player's own link to the board, from which they act for their fighter.

The link is `/p/<secret>/` on the server `fudge serve` runs: the player's page shows the shared board, their
own fighter's sheet, and what the rules let them do now (a blow with their dice typed or generated, a
declaration, sealed or open, a fudge point, the odds of their next blow). Each action is a request the GM's
`fudge play` shows and answers (cli.play_requests); `--auto` accepts them as they come.

The secret is kept among the GM's secrets (service.links), so the link outlives a restart of the server;
`--revoke` deletes it, and the server refuses it from its next request. `--list` names the fighters who have
a link, never the links (print one again with `fudge invite FIGHTER`).
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from fudge_combat.cli.context import echo, echo_drawn, fight_named, guard, open_store
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.words import possessive

app = typer.Typer()


@app.command()
def invite(
    fighter: Annotated[Optional[str], typer.Argument(
        metavar="FIGHTER", help="The fighter whose player gets the link (any case, a unique prefix).")] = None,
    fight: Annotated[Optional[str], typer.Option(
        "--fight", "-f", metavar="FIGHT", help="The fight (default: the current one).")] = None,
    revoke: Annotated[bool, typer.Option(
        "--revoke", help="Refuse FIGHTER's link from now on (the server refuses it at its next request).")] = False,
    listed: Annotated[bool, typer.Option("--list", help="Name the fighters who have a link.")] = False,
    auto: Annotated[Optional[bool], typer.Option(
        "--auto/--no-auto", help="Accept the players' requests in `fudge play` as they come (or ask, y/n: the "
                                 "default).")] = None,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="The port `fudge serve` listens on.")] = 8000,
    host: Annotated[Optional[str], typer.Option(
        "--host", metavar="ADDRESS", show_default="this machine's LAN address",
        help="The address `fudge serve` listens on, as the player's device reaches it.")] = None,
    no_qr: Annotated[bool, typer.Option("--no-qr", help="Print no QR code of the link.")] = False,
) -> None:
    """Give FIGHTER's player a link of their own: on their phone they see their sheet and the board, and ask
    for their fighter's blows, declarations (sealed too) and fudge points, which the GM accepts in `fudge play`.

    Serve the board to the table's network with `fudge serve --lan` (or the --host given here)."""
    with guard():
        from fudge_combat.cli.web import lan as joining
        from fudge_combat.service import links
        from fudge_combat.service.fights import Fights
        from fudge_combat.service.names import resolve
        from fudge_combat.cli.play_requests import AUTO
        from fudge_combat.store.requests import requests_of

        fights = Fights(open_store())
        name = fight_named(fights.store, fight) if fight else fights.current()
        fight_id = fights.store.fight(name).fight_id
        if listed or (fighter is None and auto is None):
            if fighter is not None or revoke:
                raise InputError("--list takes no FIGHTER and no --revoke: `fudge invite --list`")
            kept = sorted(links.invites(fights.keeper, fight_id))
            echo(f"players' links of {name}: {', '.join(kept)}" if kept else
                 f"no player has a link to {name}: `fudge invite FIGHTER` gives one")
            return
        requests_of(fights.store)  # a store that keeps no requests: said before any link is given
        if auto is not None:
            fights.store.set_setting(AUTO + fight_id, "1" if auto else "0")
            echo(f"`fudge play` {'accepts' if auto else 'asks, y/n, for'} the players' requests of {name}"
                 + (" as they come" if auto else ""))
            if fighter is None:
                return
        assert fighter is not None
        who = resolve(fights.state(name), fighter)
        if revoke:
            if not links.revoke(fights.keeper, fight_id, who):
                raise InputError(f"{who} has no link to revoke (`fudge invite --list` names who has one)")
            echo(f"{possessive(who)} link is refused from now on; `fudge invite {who}` gives a new one")
            return
        token, made = links.invite(fights.keeper, fight_id, who)
        address = host or joining.lan_address() or "127.0.0.1"
        url = f"http://{joining.url_host(address)}:{port}/p/{token}/"
        echo(f"{possessive(who)} link{'' if made else ' (as given before)'}: {url}")
        if not no_qr:
            try:
                from fudge_combat.cli import style

                colour = style.wanted(sys.stdout)
                echo_drawn(joining.qr_lines(url, colour), colour)
            except ImportError:
                echo("(no QR code: install fudge with its serve extra for one)", err=True)
        where = f"--host {host}" if host else "--lan"
        echo(f"give it to {possessive(who)} player alone; `fudge serve {where} --port {port}` serves it, "
             f"`fudge invite --revoke {who}` refuses it")
