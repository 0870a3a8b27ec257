"""`fudge secrets export|import`: take the GM's dice seeds and sealed declarations to another machine.

They live outside every store (store.secrets), so copying a store file does not copy them: a GM who
moves exports them on the old machine, carries the file privately, and imports it on the new one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from fudge_combat.cli.context import echo, guard, read_file

app = typer.Typer()
group = typer.Typer(help="Move the GM's dice seeds and sealed declarations to another machine.",
                    no_args_is_help=True)
app.add_typer(group, name="secrets")


@group.command("export")
def export(
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write (readable by you alone).")],
) -> None:
    """Write every secret this machine keeps (seeds, sealed declarations and board links of all fights) to a file.

    Whoever reads the file predicts the dice of your fights: keep it private, delete it once imported.
    """
    from fudge_combat.engine.kernel.errors import InputError
    from fudge_combat.store import secrets

    with guard():
        kept = secrets.SecretFile().export()
        try:
            secrets.write_private(output, secrets.dumps(kept))
        except OSError as exc:
            raise InputError(f"cannot write {output}: {exc.strerror}; give a file in a folder you can write") from None
        echo(f"{len(kept)} secrets written to {output} (readable by you alone): "
                   f"`fudge secrets import {output.name}` on the other machine")


@group.command("import")
def import_(
    source: Annotated[Path, typer.Argument(help="A file written by `fudge secrets export`.")],
) -> None:
    """Keep the secrets of an export on this machine; secrets already kept stay as they are."""
    from fudge_combat.store import secrets

    with guard():
        loaded = secrets.loads(read_file(source, "secrets file"), check_seal=_seal_matches)
        added = secrets.SecretFile().add(loaded)
        echo(f"{added} secrets imported from {source} ({len(loaded) - added} already kept)")


def _seal_matches(data: Any, seal: str) -> bool:
    """A sealed declaration is kept only if its declaration and salt give its seal (A-SEAL-1)."""
    from fudge_combat.engine.decide import seal_of
    import msgspec

    from fudge_combat.events.structs import Declaration

    return seal_of(msgspec.convert(data["declaration"], Declaration, strict=False), str(data["salt"])) == seal
