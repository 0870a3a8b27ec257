"""`fudge status`'s read model as the service keeps it (store.views.ReadModel): its name, the code
that builds it, and how a state becomes its rows.

Declared apart from the reader (cli.views, which opens stores and prints) so that the service the
shell makes (cli.context.service) can keep it without importing the shell back. The writer
(cli.status_view: the board and the text, the engine behind them) is imported when a view is
first built, not when the service is made: a command that only reads does not load it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fudge_combat.cli.status_rows import STATUS_NAME
from fudge_combat.store import snapshots, views

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import FightState

SOURCES = ("engine", "events", "projections", "cli")
_VERSION: list[str] = []


def version() -> str:
    """The code that builds the status view (pydantic's version read from its version file, unimported)."""
    if not _VERSION:
        spec = importlib.util.find_spec("pydantic")
        folder = Path(spec.origin).parent if spec is not None and spec.origin else None
        pydantic = (folder / "version.py").read_text() if folder is not None else ""
        _VERSION.append(snapshots.source_digest(SOURCES, f"{views.FORMAT}|{sys.version}|{pydantic}"))
    return _VERSION[0]


def build(state: FightState) -> dict[str, Any]:
    """The view of `state`: its text (cli.render.status_text), JSON (`status_json`), board
    (cli.board.board_lines at 80 columns) and traits, built one combatant at a time (cli.status_view)."""
    from fudge_combat.cli import status_view

    return status_view.build(state)


def pack(state: FightState, fight_id: str, seq: int, last_hash: str, key: bytes, store: Any, name: str,
         memo: dict[str, Any]) -> tuple[views.View, ...]:
    """The view's rows for an append: its head, and the combatants' parts that changed (cli.status_view)."""
    from fudge_combat.cli import status_view

    return status_view.pack(state, fight_id, seq, last_hash, key, store, name, memo, version())


STATUS = views.ReadModel(STATUS_NAME, build, version, pack)
