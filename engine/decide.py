"""decide(state, command, dice) -> events: the fight's ruleset decides what a command makes happen.

Pure: the state comes from a fold, dice from the shell (entered faces or a
seeded stream). A command the rules forbid raises RuleError and yields no
event. Each ruleset is a Decider with its own table (`engine.rulesets`): this
module only looks up the fight's ruleset, then the command.
"""

from __future__ import annotations

from typing import Any

from engine import commands as cmd
from engine.declarations import seal_of
from engine.dice import Dice
from engine.errors import RuleError
from engine.rulesets.atari_isev import ATARI_ISEV
from engine.rulesets.decider import Decider
from engine.rulesets.fate import FATE
from engine.rulesets.fudge import FUDGE
from engine.state import FightState

__all__ = ["DECIDERS", "decide", "decider_of", "seal_of"]

DECIDERS: dict[str, Decider] = {decider.name: decider for decider in (FUDGE, ATARI_ISEV, FATE)}
COMMANDS: frozenset[type] = frozenset(kind for d in DECIDERS.values() for kind in (*d.table, *d.refusals))


def decider_of(state: FightState) -> Decider:
    """The Decider of the fight's ruleset (a fight not yet started is decided as Fudge: it can only start)."""
    return DECIDERS[state.options.ruleset]


def decide(state: FightState, command: Any, dice: Dice) -> list[Any]:
    if type(command) not in COMMANDS:
        raise RuleError(f"no rule handles {type(command).__name__}")
    if not state.name and not isinstance(command, cmd.StartFight):
        raise RuleError("no fight: start one with `fudge new NAME`")
    decider = decider_of(state)
    handler = decider.table.get(type(command))
    if handler is None:
        raise RuleError(decider.refusal(command))
    return handler(state, command, dice)
