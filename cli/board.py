"""The board drawn: the read model's lines (projections.board) as text, plain or coloured, or as JSON.

What the board shows, and how it is derived from the fight, is projections.board; the stored view of
it (projections.board_view) holds the same lines. The shell only draws them: here for the terminal,
cli.web.html for a browser.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.cli.style import ansi, plain
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.projections.board import board_lines


def board_json(state: FightState, width: int = 80) -> dict[str, Any]:
    """The board for another drawing: its width and lines of {"text", "kind"} (texts escaped)."""
    return {"width": width,
            "lines": [[{"text": text, "kind": kind} for text, kind in line] for line in board_lines(state, width)]}


def render_board(state: FightState, width: int = 80, colour: bool = False) -> str:
    """The board as text: plain, or coloured by rich (no line feed at the end)."""
    lines = board_lines(state, width)
    return ansi(lines, width).rstrip("\n") if colour else plain(lines)
