"""The rulesets a fight may run: its `ruleset` option -> the package that holds the ruleset.

One line a ruleset. A ruleset's package holds a `decider` module (its Decider as `DECIDER`), a `reading`
module (what the views ask of it, as `READING`) and an `events` module (the event types it adds, as
`EVENTS`); it may hold an `odds` module (its exact odds, as `ODDS`: `kernel.weighing.OddsProfile`), a
`sim` module (what the simulator reads of it, as `SIM`: `kernel.sim_rules.SimRules`) and a `fast` module,
its fast path for the simulator (`plan(setup, opening)`: a `FastDuel`, or None where it was not proven). A ruleset added from outside this project also holds a `preset`
module (its options, as `PRESET`) and a `commands` module (its own commands by the word the GM types, as
`COMMANDS`). Each module is imported when a fight first asks for it, so a Fudge fight never loads Fate's or
Atari Isev's rules.

The built-in rulesets are the dict `RULESETS`. A ruleset of another distribution is its one line in that
distribution's entry points, group `fudge_combat.rulesets` (`wits = toy_wits`: the ruleset's name, then its
package), found the standard way (importlib.metadata). The entry points are read only when a fight names a
ruleset that is not built in: reading them costs a one-shot command time that a built-in fight never pays.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Protocol

from fudge_combat.engine.kernel.errors import InputError

RULESETS: dict[str, str] = {
    "fudge": "fudge",
    "atari-isev": "atari_isev",
    "fate": "fate",
}

ENTRY_POINTS = "fudge_combat.rulesets"  # the entry-point group a ruleset of another distribution is declared in

_added: dict[str, str] | None = None  # name -> package of the rulesets the entry points declare, once read


class UnknownRuleset(InputError, KeyError):
    """No ruleset of that name is built in or installed: one line for the GM (an InputError), and a KeyError
    to a reader of the registry as a mapping."""

    def __str__(self) -> str:  # KeyError's own shows the repr of its argument
        return str(self.args[0])


def added() -> dict[str, str]:
    """The rulesets the installed distributions declare in the entry points (name -> package), read once.
    A name of a built-in ruleset there is not taken: a fight's ruleset is never another than the one it
    was recorded with."""
    global _added
    if _added is None:
        from importlib.metadata import entry_points

        _added = {point.name: point.module for point in entry_points(group=ENTRY_POINTS)
                  if point.name not in RULESETS}
    return _added


def is_built_in(name: str) -> bool:
    return name in RULESETS


def names() -> list[str]:
    """Every ruleset a fight may run: the built-in ones, then the installed ones (this reads the entry points)."""
    return [*RULESETS, *sorted(added())]


def package_of(name: str) -> str:
    """The import name of the package of the ruleset `name` (UnknownRuleset: none of that name)."""
    built_in = RULESETS.get(name)
    if built_in is not None:
        return f"fudge_combat.engine.rulesets.{built_in}"
    package = added().get(name)
    if package is None:
        raise UnknownRuleset(f"no ruleset {name!r} is built in or installed here (rulesets: {', '.join(names())}): "
                             f"install the package that declares it (entry points group {ENTRY_POINTS!r})")
    return package


def ruleset_module(name: str, part: str) -> ModuleType:
    """The module `part` ("decider", "reading", ...) of the ruleset named `name` (UnknownRuleset, a KeyError:
    no such ruleset)."""
    return importlib.import_module(f"{package_of(name)}.{part}")


def ruleset_part(name: str, part: str) -> ModuleType | None:
    """The module `part` of the ruleset named `name`, or None when its package has none (a part it may lack)."""
    full = f"{package_of(name)}.{part}"
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
