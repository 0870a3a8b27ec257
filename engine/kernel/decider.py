"""What a ruleset is to `engine.decide`: its decide table, the lines it refuses other rulesets' commands
with, its initial state and when a fight under it is over."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Never, TypeVar, cast

from msgspec import Struct

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.state import Combatant, FightState, RulesPart, initial_part

if TYPE_CHECKING:
    from typing import TypeAlias

    from fudge_combat.engine.kernel.command_base import CommandModel
    from fudge_combat.events.structs import Event

    # A command: one of this project's (a struct derived from its model) or a ruleset of another package's own (a model)
    Command: TypeAlias = Struct | CommandModel

# A decide table's handler: (state, a command of its key's class, dice) -> the events it makes. Each handler
# names its own command class (`attack(state, c: Attack, dice)`), which a table's one type cannot tie to
# its key: so a handler takes `Never` there, which every handler's own class is (a parameter's type is
# read the other way round), and a command reaches it only through `Decider.handler`, its one caller.
Handler = Callable[[FightState, Never, Dice], "list[Event]"]
# A handler as `decide` calls it: with a command of the class its table keys it by.
Decides = Callable[[FightState, "Command", Dice], "list[Event]"]
C = TypeVar("C", bound="Command")
# A handler of one command class, as a rule that wraps or falls back on another names it (`HandlerOf[SpendPoint]`).
HandlerOf = Callable[[FightState, C, Dice], "list[Event]"]


class Decider(Struct, frozen=True):
    name: str  # the `ruleset` option that picks it
    title: str  # its name in a line to the GM
    table: Mapping[type, Handler]  # a command's type -> what decides it (`handler`)
    refusals: Mapping[type, str]  # a command it lacks -> the line refusing it ({ruleset}: `name`)
    # A combatant is still in the fight (not out, not Taken Out). It reads the combatant and the ruleset's own part
    # of the state for him (what its Reading's `touched` reports changed) alone: a view asks it again only of
    # those (projections.consequences, projections.board_view).
    still_fights: Callable[[FightState, Combatant], bool]

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

    def handler(self, command: Command) -> Decides | None:
        """What decides `command`: the handler its class is keyed by, or None if this ruleset has none.

        The handler takes commands of that class, which `command` is: the table's type cannot say so
        (see `Handler`), and this is the one place it is said."""
        return cast("Decides | None", self.table.get(type(command)))

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

    def initial_part(self) -> RulesPart:
        """The ruleset's own part of the state its fights start with (`FightState.part`, which `FightStarted`
        sets): its package's `state` module declares it, so that a fold finds it without loading this Decider."""
        return initial_part(self.name)


def able_to_act(state: FightState, who: Combatant) -> bool:
    """Fudge and Atari Isev: still in the fight while able to act (F-WND-1: not Incapacitated or worse,
    F-STUN-1: not knocked out, F-WND-6: not killed)."""
    return who.track.can_act
