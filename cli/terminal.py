"""What reaches the terminal: text from sheets, house rules, `--reason` and imported logs, made harmless.

A name read from a file can hold an escape sequence (clear the screen, recolour, retitle the window),
a carriage return or a line feed (forge a line such as "Snorri is dead") or a bidi override (show
text in another order than it is stored). Every text that leaves for the terminal passes through
`safe`, which writes such characters as visible escapes (`\\x1b`, `\\r`, `\\u202e`); `--json` output
keeps JSON's own escapes (`json_text`).
"""

from __future__ import annotations

import json
import re
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


def escape_log_values(logger: Any, method: str, event: dict[str, Any]) -> dict[str, Any]:
    """structlog processor for the console renderer: every string value escaped (the JSON one escapes)."""
    out = {}
    for key, value in event.items():
        shown = safe(value) if isinstance(value, str) else value
        out[key] = shown if key == "event" or shown is value or shown == value else _Escaped(shown)
    return out
