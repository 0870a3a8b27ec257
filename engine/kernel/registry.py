"""The rulesets a fight may run: its `ruleset` option -> its package under `fudge_combat.engine.rulesets`.

One line a ruleset. A ruleset's package holds a `decider` module (its Decider as `DECIDER`) and a `reading`
module (what the views ask of it, as `READING`); each is imported when a fight first asks for it, so a Fudge
fight never loads Fate's or Atari Isev's rules.
"""

from __future__ import annotations

import importlib
from types import ModuleType

RULESETS: dict[str, str] = {
    "fudge": "fudge",
    "atari-isev": "atari_isev",
    "fate": "fate",
}


def ruleset_module(name: str, part: str) -> ModuleType:
    """The module `part` ("decider", "reading", ...) of the ruleset named `name` (KeyError: no such ruleset)."""
    return importlib.import_module(f"fudge_combat.engine.rulesets.{RULESETS[name]}.{part}")
