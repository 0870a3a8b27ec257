"""Text made harmless for display, and the styled lines the read models are built of.

A name read from a file can hold an escape sequence (clear the screen, recolour, retitle the window),
a carriage return or a line feed (forge a line such as "Snorri is dead") or a bidi override (show
text in another order than it is stored). Every text a read model holds for display passes through
`safe`, which writes such characters as visible escapes (`\\x1b`, `\\r`, `\\u202e`): the stored board
(projections.board_view) holds its texts escaped already, and the shell (cli.terminal) escapes what
else it prints with the same function.

A line for display is a list of segments, `(text, kind)`: the text escaped already, the kind a word
for what it is ("hit", "wound3", "out", "turn"...), never a colour; the shell draws them (cli.style).
"""

from __future__ import annotations

import re

Segment = tuple[str, str]
Line = list[Segment]

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
