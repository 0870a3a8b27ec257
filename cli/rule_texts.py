"""The numbered rules in plain words, for `fudge rules explain ID` (and the IDs the help cites).

`cli/rules_digest.md` is a verbatim copy of the project's rules digest (RULES.md, kept beside the
source texts outside this repository): every rule ID a test, an event or a help text names is one of
its list items (`- F-MOD-6 All-out offense ...`) or headings (`### F-MOD Melee modifiers`). Copy it
anew when the digest changes; tests/test_cli_conventions.py checks every ID the help cites is in it.
Reading it needs no engine: it is parsed here, when a rule is asked for.
"""

from __future__ import annotations

import difflib
import re
import textwrap
from pathlib import Path

from msgspec import Struct


DIGEST = Path(__file__).with_name("rules_digest.md")
RULE_ID = r"[A-Z]{1,3}(?:-[A-Z0-9]+)*"
_ITEM = re.compile(rf"^- ({RULE_ID}) (.*)$")
_HEADING = re.compile(rf"^(#{{2,3}}) ({RULE_ID})(?: —)? (.*)$")


class Rule(Struct, frozen=True):
    id: str
    text: str  # markdown as the digest writes it; `plain` turns it into the words shown
    section: str  # the heading it is listed under


def rules(text: str | None = None) -> dict[str, Rule]:
    """Every rule of the digest by ID, headings (families such as F-MOD) included, in the digest's order."""
    lines = (DIGEST.read_text(encoding="utf-8") if text is None else text).splitlines()
    found: dict[str, Rule] = {}
    section = rule_id = ""
    current: list[str] | None = None  # the lines of the rule being read
    for line in [*lines, ""]:
        if current is not None and line.startswith("  "):
            current.append(line)
            continue
        if current is not None:
            found[rule_id] = Rule(rule_id, "\n".join(current), section)
            current = None
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            rule_id, section = heading.group(2), f"{heading.group(2)} {heading.group(3)}"
            current = [heading.group(3)]
        elif item:
            rule_id, current = item.group(1), [item.group(2)]
    return found


def family(all_rules: dict[str, Rule], wanted: str) -> list[Rule]:
    """A rule, or a family's heading and every rule it numbers (F-MOD: F-MOD-1, F-MOD-2, ...; AI-ATK too,
    which has no heading of its own)."""
    return [rule for key, rule in all_rules.items() if key == wanted or key.startswith(wanted + "-")]


def suggestions(all_rules: dict[str, Rule], wanted: str) -> list[str]:
    """The IDs a mistyped one was probably meant to be (`F-MOD6`, `f-mod-66`)."""
    close = difflib.get_close_matches(wanted, list(all_rules), n=3, cutoff=0.6)
    prefix = [key for key in all_rules if key.startswith(wanted)][:3] if len(wanted) >= 2 else []
    return list(dict.fromkeys([*close, *prefix]))[:3]


def plain(text: str) -> str:
    """Markdown emphasis and code marks taken off: `**Panache**` reads Panache, `` `pace` `` reads pace."""
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text, flags=re.S)
    text = re.sub(r"(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])", r"\1", text, flags=re.S)
    return text.replace("`", "")


def explain(rule: Rule, width: int) -> list[str]:
    """A rule as lines of at most `width` columns: its ID and where it stands, then its words; a list inside
    a rule (C-FP-2's uses) keeps one item a paragraph."""
    out = [f"{rule.id}  ({plain(rule.section)})" if rule.section and not rule.section.startswith(rule.id + " ")
           else rule.id]
    paragraphs: list[tuple[str, list[str]]] = []
    for line in rule.text.splitlines():
        stripped = line.strip()
        if stripped.startswith("- "):
            paragraphs.append(("  - ", [stripped[2:]]))
        elif paragraphs and line.startswith("  "):
            paragraphs[-1][1].append(stripped)
        else:
            paragraphs.append(("", [stripped]))
    for bullet, words in paragraphs:
        first = "  " + bullet
        out.extend(textwrap.wrap(plain(" ".join(words)), width=max(width, 40), initial_indent=first,
                                 subsequent_indent=" " * len(first)))
    return out
