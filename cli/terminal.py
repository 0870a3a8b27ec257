"""What reaches the terminal: text from sheets, house rules, `--reason` and imported logs, made harmless.

A name read from a file can hold an escape sequence (clear the screen, recolour, retitle the window),
a carriage return or a line feed (forge a line such as "Snorri is dead") or a bidi override (show
text in another order than it is stored). Every text that leaves for the terminal passes through
`safe`, which writes such characters as visible escapes (`\\x1b`, `\\r`, `\\u202e`); `--json` output
keeps JSON's own escapes (`json_text`).
"""

from __future__ import annotations

import codecs
import json
import re
import sys
import unicodedata
from collections.abc import MutableMapping
from typing import Any

# C0 controls, DEL, C1 controls (U+0085 among them), the line and paragraph separators, the bidi
# embeddings, overrides and isolates, and the bidi marks: what a terminal acts on or reorders.
_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_ANY = re.compile(f"[\x00-\x1f{_OTHERS}]")
_BUT_LINES = re.compile(f"[\x00-\x09\x0b-\x1f{_OTHERS}]")  # line feeds kept
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def safe(text: str, lines: bool = False) -> str:
    """`text` with every control, separator and bidi character written as a visible escape.

    `lines=True` keeps line feeds: for output made of lines whose parts were escaped already
    (a line feed inside a name is escaped where the line is built). Idempotent: an escape is
    plain text.
    """
    return (_BUT_LINES if lines else _ANY).sub(_escape, text)


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
