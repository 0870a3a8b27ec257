"""The few rules of English every line the GM reads follows: a count with its noun, a name's possessive.

Pure functions (no I/O): the describe lines, the consequences, the board and the commands' refusals
all say "1 fudge point", "2 levels", "heroes' side" the same way.
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """"1 level", "2 levels", "0 levels"; `plural` where adding an s is wrong ("1 foe", "3 foes" need none)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def possessive(name: str) -> str:
    """"Snorri's", "heroes'": a name that ends in s takes the apostrophe alone."""
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def some_of(names: list[str], shown: int = 12) -> str:
    """Names for a line that lists them: all of a table's few, the first `shown` of a crowd's and how many
    more (a roster of 800 in one error line is no help): "F0, F1, ..., F11 and 788 more"."""
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"

