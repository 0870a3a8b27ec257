"""The lines a ruleset's sheet template is written in (`fudge sheet new`): a TOML line with its comment,
and a level as the ladder names it. A ruleset's package writes its template with them (its Reading's
`sheet_template`), the CLI the head above it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.options import RuleOptions


def row(code: str, comment: str = "") -> str:
    """A line of TOML and, aligned after it, its comment."""
    return f"{code:<27} # {comment}" if comment else code


def level(options: RuleOptions, value: int) -> str:
    """The ladder's name of `value` under these rules, as a TOML string (`"Fair"`)."""
    from fudge_combat.engine.kernel.ladder import ladder_of

    return json.dumps(ladder_of(options).name(value))
