"""A club's server: `fudge store copy` moves fights between a laptop's SQLite file and a PostgreSQL server,
`fudge share` lets another GM of the server see and write one of your fights, and `fudge club` is the
admin's: the tables, their migrations and each GM's rights (store.postgres)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from fudge_combat.cli.context import echo, fight_named, guard, open_store, store_at, store_path

app = typer.Typer()
group = typer.Typer(help="Move fights between stores: a SQLite file and a PostgreSQL server.", no_args_is_help=True)
app.add_typer(group, name="store")
club = typer.Typer(help="The club's admin: a PostgreSQL server's tables and its GMs' rights.", no_args_is_help=True)
app.add_typer(club, name="club")


@group.command("copy")
def copy(
    source: Annotated[str, typer.Argument(metavar="SRC", help="Store to read: a file, or a postgresql:// URL.")],
    target: Annotated[str, typer.Argument(metavar="DST", help="Store to write: a file, or a postgresql:// URL.")],
    only: Annotated[Optional[list[str]], typer.Option(
        "--fight", "-f", metavar="FIGHT", help="Copy this fight (repeatable; default: every fight you see in SRC).")] = None,
) -> None:
    """Copy fights row for row (the same bytes, the same hash chain), each verified on both sides.

    A fight DST already holds with the same rows is left as it is; one with other rows is refused. Your
    dice seeds and sealed declarations stay in your secrets file, keyed by fight id: they serve both stores.
    """
    from fudge_combat.engine.audit import verify
    from fudge_combat.engine.kernel.errors import InputError

    with guard():
        src, dst = store_at(store_path(source)), store_at(store_path(target))
        names = [fight_named(src, typed) for typed in only] if only else [info.name for info in src.fights()]
        if not names:
            raise InputError(f"{source} holds no fight you can see: nothing to copy")
        for name in names:
            info, rows = src.fight(name), src.read(name)
            checked = verify(rows, info.fight_id)
            if not checked.ok:
                seq, why = checked.problems[0]
                raise InputError(f"{name} does not verify in {source} (event {seq}: {why}); nothing more was copied")
            if name in {held.name for held in dst.fights()}:
                if dst.read(name) != rows:
                    raise InputError(f"{target} already holds another fight named {name}: nothing more was copied")
                echo(f"{name}: already in {target} ({len(rows)} events, the same rows)")
                continue
            dst.append(name, 0, rows, create=info)
            copied = dst.read(name)
            if copied != rows or not verify(copied, info.fight_id).ok:
                raise InputError(f"{name} reads back differently from {target}: check the store")
            echo(f"{name}: {len(rows)} events copied; hash chain verified in both stores")


@app.command()
def share(
    fight: Annotated[str, typer.Argument(help="Your fight to share.")],
    gm: Annotated[str, typer.Option("--with", metavar="GM", help="The GM who may see and write it.")],
) -> None:
    """Let another GM of a PostgreSQL server see and write one of your fights (they keep their own dice seeds)."""
    from fudge_combat.engine.kernel.errors import InputError

    with guard():
        store: Any = open_store()
        if not hasattr(store, "share"):
            raise InputError("sharing needs a club's server (--store postgresql://...): a store file is one GM's")
        fight = fight_named(store, fight)
        store.share(fight, gm)
        echo(f"{fight} is shared with {gm}: `fudge --store ... use {fight}` as {gm} picks it")


def _server() -> Any:
    """The store --store names, which must be a club's server."""
    from fudge_combat.engine.kernel.errors import InputError

    store: Any = open_store()
    if not hasattr(store, "add_gm"):
        raise InputError("`fudge club` sets up a club's server (--store postgresql://...): a store file is one GM's")
    return store


@club.command("init")
def club_init() -> None:
    """Make the club's tables (or bring them to this version) and give every GM's role its rights.

    Run it as the club's admin: the PostgreSQL role that is to own the tables. Run again, it changes nothing
    but the GMs' rights, given again as this version has them.
    """
    with guard():
        found, now = _server().upgrade()
        echo(f"the club's store is ready (schema {now}" + (f", migrated from schema {found})" if 0 < found < now else ")")
             + ": `fudge club add-gm NAME` adds each GM")


@club.command("upgrade")
def club_upgrade() -> None:
    """Migrate the club's tables to this version of fudge, in one transaction (the club's admin only).

    GMs' own roles cannot change the tables: their first write on an older schema asks for this command.
    """
    from fudge_combat.engine.kernel.errors import InputError

    with guard():
        store = _server()
        if store.schema_version() == 0:
            raise InputError(f"{store.where} holds no fudge store yet: `fudge club init` makes one")
        found, now = store.upgrade()
        echo(f"the club's store is at schema {now}" + (f" (migrated from schema {found})" if found < now else
                                                       " already: the GMs' rights were given again"))


@club.command("add-gm")
def club_add_gm(
    name: Annotated[str, typer.Argument(help="The GM's name: their PostgreSQL role (or their FUDGE_GM).")],
    role: Annotated[bool, typer.Option(
        "--role/--no-role", help="Give the GM a login role of their own (default), or list the name alone "
                                 "(a club whose GMs share one role and name themselves with FUDGE_GM).")] = True,
) -> None:
    """Add a GM to the club: their own login role (made if it does not exist) with only a GM's rights.

    Held by row-level security, the role sees and writes only the fights it owns and those shared with it.
    Give it a password in psql (\\password NAME), or let it log in as the server's authentication says.
    """
    from fudge_combat.engine.kernel.errors import InputError

    with guard():
        if not name or len(name.encode()) > 63 or not name.isprintable():
            raise InputError("a GM's name is 1 to 63 bytes of printable text (a PostgreSQL role's name)")
        made = _server().add_gm(name, role)
        if not role:
            echo(f"{name} is one of the club's GMs (no role: they name themselves with FUDGE_GM={name})")
        else:
            echo(f"{name} is one of the club's GMs: their role" + (" (made now: LOGIN, no password yet)" if made else "")
                 + " has a GM's rights")
