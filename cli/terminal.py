"""What reaches the terminal: text from sheets, house rules, `--reason` and imported logs, made harmless.

A name read from a file can hold an escape sequence (clear the screen, recolour, retitle the window),
a carriage return or a line feed (forge a line such as "Snorri is dead") or a bidi override (show
text in another order than it is stored). Every text that leaves for the terminal passes through
`safe` (projections.text), which writes such characters as visible escapes (`\\x1b`, `\\r`,
`\\u202e`); `--json` output keeps JSON's own escapes (`json_text`).
"""

from __future__ import annotations

import codecs
import json
import sys
import unicodedata
from collections.abc import MutableMapping
from typing import Any

from fudge_combat.projections.text import safe as safe  # the shell escapes what it prints as the read models do


def json_text(data: Any, **options: Any) -> str:
    """`json.dumps` with every non-ASCII character escaped, DEL too (which JSON allows raw)."""
    return json.dumps(data, ensure_ascii=True, **options).replace("\x7f", "\\u007f")


class _Escaped:
    """A log value shown as its escaped text: the console renderer would `repr` a string with spaces,
    escaping the escapes a second time."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"'{self.text}'"


def escape_log_values(logger: Any, method: str, event: MutableMapping[str, Any]) -> dict[str, Any]:
    """structlog processor for the console renderer: every string value escaped (the JSON one escapes)."""
    out = {}
    for key, value in event.items():
        shown = safe(value) if isinstance(value, str) else value
        out[key] = shown if key == "event" or shown is value or shown == value else _Escaped(shown)
    return out


# The board's and the log's symbols in ASCII, for an output whose encoding has none of them (LC_ALL=C,
# PYTHONIOENCODING=latin-1): a box is a bracket, a bar a hash, an arrow an arrow of dashes.
_ASCII = {
    "·": "-", "→": "->", "←": "<-", "□": "[ ]", "▢": "[ ]", "■": "[x]", "…": "...", "▶": ">", "◀": "<",
    "−": "-", "–": "-", "—": "-", "±": "+/-", "×": "x", "χ": "chi", "²": "2", "µ": "u", "⊞": "[+]", "⊟": "[-]",
    "█": "#", "▉": "#", "▊": "#", "▋": "#", "▌": "#", "▍": "|", "▎": "|", "▏": "|", "‘": "'", "’": "'",
    "“": '"', "”": '"', "≤": "<=", "≥": ">=", "✓": "v", "✗": "x", "•": "*",
}
ASCII_FALLBACK = "fudge-ascii"


def _in_ascii(exc: UnicodeError) -> tuple[str, int]:
    """The codec error handler of an output that cannot encode a character: its ASCII stand-in (the table
    above, else the letter without its accents, else `?`)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for char in exc.object[exc.start:exc.end]:
        plain = _ASCII.get(char)
        if plain is None:
            plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode() or "?"
        out.append(plain)
    return "".join(out), exc.end


codecs.register_error(ASCII_FALLBACK, _in_ascii)


def fit_output_encoding(*streams: Any) -> None:
    """Each output (default: stdout and stderr) that cannot encode fudge's symbols writes them in ASCII
    instead of failing on the first one. Text the encoding holds is written as it is."""
    for stream in streams or (sys.stdout, sys.stderr):
        try:
            "".join(_ASCII).encode(getattr(stream, "encoding", None) or "ascii")
        except (LookupError, UnicodeEncodeError):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                try:
                    reconfigure(errors=ASCII_FALLBACK)
                except (ValueError, OSError):  # a stream already closed or detached: nothing to print on
                    pass
