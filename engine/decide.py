"""decide(state, command, dice) -> events: the fight's ruleset decides what a command makes happen.

Pure: the state comes from a fold, dice from the shell (entered faces or a
seeded stream). A command the rules forbid raises RuleError and yields no
event. Each ruleset is a Decider with its own table (`engine.rulesets`): this
module only looks up the fight's ruleset, then the command.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.rulesets.fudge.declarations import seal_of, seal_text
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.decider import Decider
from fudge_combat.engine.kernel.registry import RULESETS, ruleset_module
from fudge_combat.engine.kernel.state import FightState

if TYPE_CHECKING:
    from fudge_combat.events.structs import Event

__all__ = ["DECIDERS", "decide", "decider_of", "seal_of", "seal_text"]


class _Deciders(Mapping[str, Decider]):
    """Each ruleset's Decider by its name (`kernel.registry`), its package loaded when it is first asked for: a
    Fudge fight never loads Fate's or Atari Isev's rules (bench/README.md, target 4)."""

    def __init__(self) -> None:
        self.loaded: dict[str, Decider] = {}

    def __getitem__(self, name: str) -> Decider:
        decider = self.loaded.get(name)
        if decider is None:  # once a process: `decide` asks at every command
            decider = self.loaded[name] = ruleset_module(name, "decider").DECIDER
        return decider

    def __iter__(self) -> Iterator[str]:
        return iter(RULESETS)

    def __len__(self) -> int:
        return len(RULESETS)


DECIDERS: Mapping[str, Decider] = _Deciders()


def decider_of(state: FightState) -> Decider:
    """The Decider of the fight's ruleset (a fight not yet started is decided as Fudge: it can only start)."""
    return DECIDERS[state.options.ruleset]


def decide(state: FightState, command: cmd.Command, dice: Dice) -> list[Event]:
    decider = decider_of(state)
    handler = decider.handler(command)
    if handler is None and type(command) not in decider.refusals:  # every ruleset decides or refuses each command
        raise RuleError(f"no rule handles {type(command).__name__}")
    if not state.name and not isinstance(command, cmd.StartFight):
        raise RuleError("no fight: start one with `fudge new NAME`")
    if handler is None:
        raise RuleError(decider.refusal(command))
    return handler(state, command, dice)
