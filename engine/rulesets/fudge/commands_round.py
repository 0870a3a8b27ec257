"""The round's commands: declarations, the start of a round and phase initiative's turns.

One module of `engine.commands`, which loads it when one of its classes is first named."""

from typing import Literal

from fudge_combat.engine.kernel.command_base import Declaration
from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel, Reveal


class Declare(CommandModel):
    type: Literal["declare"] = "declare"
    combatant: CombatantName
    declaration: Declaration
    posture_roll: bool = False  # F-TAC-3: a 1d6 picks the posture
    posture_die: int | None = None  # the d6 face rolled at the table


class SealDeclaration(CommandModel):
    """A-SEAL-1: the shell keeps the choice and salt secret; only the seal is logged."""

    type: Literal["seal_declaration"] = "seal_declaration"
    combatant: CombatantName
    seal: str


class StartRound(CommandModel):
    type: Literal["start_round"] = "start_round"
    surprised: tuple[CombatantName, ...] = ()
    reveals: tuple[Reveal, ...] = ()
    # --- rolled initiative (F-INIT-2): GM inputs for surprise ---
    initiative_bonus: tuple[tuple[CombatantName, int], ...] = ()
    automatic: tuple[CombatantName, ...] = ()


class Barter(CommandModel):
    type: Literal["barter"] = "barter"
    combatant: CombatantName
    trade: int
    alter: int
    direction: Literal[1, -1]
    second_trade: int | None = None  # PC-BARTER-1: classic bartering trades two dice


class NextTurn(CommandModel):
    type: Literal["next"] = "next"


class OrderTies(CommandModel):
    """PH-3: the GM orders combatants tied on the determinant (GM input), for this round."""

    type: Literal["order_ties"] = "order_ties"
    order: tuple[CombatantName, ...]


class DeclareIntent(CommandModel):
    """PH-4 `structured`: the declaration step of a phase."""

    type: Literal["declare_intent"] = "declare_intent"
    combatant: CombatantName
    what: str = ""
    target: CombatantName | None = None  # an attack on this combatant


class HoldAction(CommandModel):
    """PH-4 `open`: the current actor holds the action until the others in the phase have acted."""

    type: Literal["hold_action"] = "hold_action"
