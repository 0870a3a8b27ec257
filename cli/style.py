"""Colour for the terminal: styled segments, plain where colour is not wanted, rich only where it is.

Output is built as lines of segments, `(text, kind)`: the text escaped already (cli.terminal.safe),
the kind a word for what it is ("hit", "wound3", "out", "turn"...), never a colour. Plain output joins
the texts; coloured output asks rich to draw them. rich is slow to import next to a plain command's start-up
(bench/README.md, the board and colour), so it is imported only when colour is wanted: a pipe, a test or NO_COLOR never loads it.

Colour is wanted when the stream is a terminal, NO_COLOR is unset or empty and TERM is not `dumb`
(https://no-color.org); FORCE_COLOR (set and not empty) wants it anywhere.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import IO, Any

from fudge_combat.projections.text import Line as Line, Segment as Segment  # what the read models are built of

# What each kind looks like in colour (rich style strings). A kind not listed is drawn plain.
STYLES = {
    "title": "bold",
    "dim": "dim",
    "turn": "bold reverse",
    "current": "bold cyan",
    "round": "bold blue",
    "hit": "bold bright_yellow",
    "miss": "dim",
    "ok": "green",
    "wound1": "yellow",
    "wound2": "bright_red",
    "wound3": "red",
    "wound4": "bold red",
    "out": "bold white on red",
    "box": "dim",
    "marked": "red",
    "points": "cyan",
    "sealed": "italic magenta",
    "condition": "yellow",
    "acted": "dim",
    "todo": "bold",
    "die+": "bold green",
    "die-": "bold red",
    "die0": "dim",
    "error": "bold red",
}

# Fudge dice as drawn in colour. ⊞ ⊟ (U+229E, U+229F, "squared plus/minus", Mathematical Operators) and
# ▢ (U+25A2, Geometric Shapes) are in the fonts terminals ship with (DejaVu Sans Mono, Menlo, Consolas,
# Cascadia, Noto Mono), one column wide, and look like the die: a square with its face's sign.
DIE = {"+": "⊞", "-": "⊟", "0": "▢"}


def wanted(stream: IO[str] | Any) -> bool:
    """Colour on this stream? FORCE_COLOR wants it; else a terminal without NO_COLOR or TERM=dumb."""
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def width(stream: IO[str] | Any = None) -> int:
    """The columns output may use: the terminal's, else $COLUMNS, else 80."""
    isatty = getattr(stream, "isatty", None)
    try:
        if isatty and isatty():
            return shutil.get_terminal_size((80, 24)).columns
    except (ValueError, OSError):
        pass
    try:
        return max(20, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return 80


def plain(lines: list[Line]) -> str:
    return "\n".join("".join(text for text, _ in line) for line in lines)


def on_terminal(stream: IO[str] | Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def wrap(text: str, columns: int) -> str:
    """Plain text for a terminal `columns` wide, each line too long for it broken between words (as rich breaks
    coloured text), never inside one: a terminal left to wrap it cuts "Cutthroat" at its edge. A continued
    line keeps the line's indent; a word wider than the terminal stays whole."""
    from fudge_combat.projections.board import cells

    out: list[str] = []
    for line in text.split("\n"):
        if cells(line) <= columns:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        current = ""
        for word in line[len(indent):].split(" "):
            if current.strip() and cells(current) + 1 + cells(word) > columns:
                out.append(current)
                current = indent + word
            else:
                current = f"{current} {word}" if current.strip() else indent + word
        out.append(current)
    return "\n".join(out)


def ansi(lines: list[Line], columns: int) -> str:
    """The lines drawn by rich with colour, wrapped at `columns` (each line ends with a line feed).

    Drawn to a string, not printed: the output leaves through cli.context like every other."""
    from rich.color import ColorSystem
    from rich.text import Text

    console = _console(columns)
    out = []
    for line in lines:
        text = Text(end="\n")
        for part, kind in line:
            text.append(part, style=STYLES.get(kind, ""))
        for piece in console.render(text):
            out.append(piece.style.render(piece.text, color_system=ColorSystem.STANDARD) if piece.style
                       else piece.text)
    return "".join(out)


_CONSOLES: dict[int, Any] = {}


def _console(columns: int) -> Any:
    """One rich Console per width, made at the first coloured line (a command prints many)."""
    console = _CONSOLES.get(columns)
    if console is None:
        from rich.console import Console

        console = _CONSOLES[columns] = Console(
            force_terminal=True, color_system="standard", width=columns, no_color=False, highlight=False,
            markup=False, emoji=False, legacy_windows=False)
    return console


# --- command output: a line's words coloured by what they say ----------------------------------------

_LINE_KINDS = [  # first match wins: (pattern, kind of the whole line)
    (re.compile(r"out of the (fight|battle)|is dead\b|Taken Out|knocked out"), "out"),
    (re.compile(r"\bround \d+ (begins|starts)\b"), "round"),
    (re.compile(r"wounded: (Incapacitated|Near Death)|is (Incapacitated|Near Death)\b"), "wound4"),
    (re.compile(r"wounded: Very Hurt|is (Very Hurt|Injured)\b"), "wound3"),
    (re.compile(r"wounded: Hurt|is Hurt\b"), "wound2"),
    (re.compile(r"wounded: Scratch|is (Clipped|Scratched)\b"), "wound1"),
    (re.compile(r"\bphase \S+: .* (acts|declares|resolves|holds)\b|\binitiative [+-]\d+: .* acts\b|'s turn\b"),
     "turn"),
    (re.compile(r"^error: "), "error"),
]
_OUTCOME = re.compile(r"→ [^;\[]*|\[[^\]]*→[^\]]*\]")  # an exchange's outcome, and a blow's detail
_MISS = re.compile(r"not hit|no damage|stand-off|nobody|no effect|misses")
_DICE = re.compile(r"(?<![\w+-])([+\-0])((?: [+\-0]){3,})(?![\w+-])")


def command_line(text: str) -> Line:
    """One line of a command's output (escaped already) as segments: the line's kind from its words,
    hits marked, and Fudge dice (four or more faces in a row) as dice."""
    kind = next((k for pattern, k in _LINE_KINDS if pattern.search(text)), "")
    out: Line = []
    at = 0
    for match in _DICE.finditer(text):
        if match.start() > at:
            out += _hits(text[at:match.start()], kind)
        for index, face in enumerate(match.group().split(" ")):
            out.append((" " if index else "", kind))
            out.append((DIE[face], f"die{face}"))
        at = match.end()
    out += _hits(text[at:], kind)
    return out


def _hits(text: str, kind: str) -> Line:
    out: Line = []
    at = 0
    for match in (_OUTCOME.finditer(text) if " = " in text else ()):  # a roll's outcome, not a die moved
        if match.start() > at:
            out.append((text[at:match.start()], kind))
        out.append((match.group(), "miss" if _MISS.search(match.group()) else "hit"))
        at = match.end()
    if at < len(text) or not out:
        out.append((text[at:], kind))
    return out
