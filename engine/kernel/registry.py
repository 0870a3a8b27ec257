"""The rulesets a fight may run: its `ruleset` option -> its package under `fudge_combat.engine.rulesets`.

One line a ruleset. A ruleset's package holds a `decider` module (its Decider as `DECIDER`), a `reading`
module (what the views ask of it, as `READING`) and an `events` module (the event types it adds, `EVENTS`);
it may hold a `fast` module, its fast path for the simulator (`plan(setup, opening)`: a `FastDuel`, or None
where it was not proven). Each is imported when a fight first asks for it, so a Fudge fight never loads Fate's
or Atari Isev's rules.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Protocol

RULESETS: dict[str, str] = {
    "fudge": "fudge",
    "atari-isev": "atari_isev",
    "fate": "fate",
}


def ruleset_module(name: str, part: str) -> ModuleType:
    """The module `part` ("decider", "reading", ...) of the ruleset named `name` (KeyError: no such ruleset)."""
    return importlib.import_module(f"fudge_combat.engine.rulesets.{RULESETS[name]}.{part}")


def ruleset_part(name: str, part: str) -> ModuleType | None:
    """The module `part` of the ruleset named `name`, or None when its package has none (a part it may lack)."""
    full = f"fudge_combat.engine.rulesets.{RULESETS[name]}.{part}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as missing:
        if missing.name != full:
            raise  # the part exists and something it imports does not: a defect, not a missing part
        return None


class FastDuel(Protocol):
    """A duel a ruleset's fast path plays without the engine, with the engine's own dice in the same order:
    from the fight's seed, (the winner's index or None, the rounds played, each fighter's wound level's name)."""

    def play(self, seed: bytes) -> tuple[int | None, int, tuple[str, str]]: ...
