"""What a ruleset is to `engine.decide`: its decide table, the lines it refuses other rulesets' commands
with, its initial state and when a fight under it is over."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.state import Combatant, FightState

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.command_base import CommandModel as Command
    from fudge_combat.events.models import Event

# A decide table's handler: (state, a command of its key's class, dice) -> the events it makes. Each handler
# names its own command class, so the table's type leaves the arguments to them.
Handler = Callable[..., "list[Event]"]


@dataclass(frozen=True)
class Decider:
    name: str  # the `ruleset` option that picks it
    title: str  # its name in a line to the GM
    table: Mapping[type, Handler]  # a command's type -> what decides it
    refusals: Mapping[type, str]  # a command it lacks -> the line refusing it ({ruleset}: `name`)
    still_fights: Callable[[FightState, Combatant], bool]  # a combatant is still in the fight (not out, not Taken Out)

    def is_terminal(self, state: FightState) -> bool:
        """At most one side still fights: the fight is over (the simulator stops, the GM is told)."""
        standing = None
        for who in state.combatants.values():
            if self.still_fights(state, who):
                if standing is None:
                    standing = who.side
                elif who.side != standing:
                    return False  # two sides still fight: no need to read the rest
        return True

    def refusal(self, command: Command | type[Command]) -> str:
        """The one line a command this ruleset does not have is refused with: it names the ruleset.
        `command` is the command, or its class (asked before the command can be built)."""
        kind = command if isinstance(command, type) else type(command)
        line = self.refusals.get(kind)
        if line is None:
            return f"the {self.title} rules have no {kind.__name__} command"
        return line.format(ruleset=self.name)

    @staticmethod
    def initial() -> FightState:
        """The state before the first event: every ruleset starts from the same empty fight."""
        return FightState()


def able_to_act(state: FightState, who: Combatant) -> bool:
    """Fudge and Atari Isev: still in the fight while able to act (F-WND-1: not Incapacitated or worse,
    F-STUN-1: not knocked out, F-WND-6: not killed)."""
    return who.track.can_act
