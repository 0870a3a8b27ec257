"""Initiative rounds and turns, a part every ruleset composes: phase initiative (the PH rules, with Pure
Crunch Time's and Phased Combat's dice and bartering) and rolled initiative (F-INIT-3, AI-INIT, through
`engine.rulesets.fudge.ranked`). A fight with initiative = "none" has no rounds to roll and no turns to give."""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

from fudge_combat.engine.kernel.commands import ByCommand
from fudge_combat.engine.rulesets.fudge import ranked
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.initiative import allotment, barter, barter_classic, bonus_phases, discards
from fudge_combat.engine.rulesets.fudge.phase_order import declared_intent, held_action, ordered_ties, reordered_turn, slots
from fudge_combat.engine.kernel.decider import Handler
from fudge_combat.engine.rulesets.fudge.sides import able, combatant
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import Barter, DeclareIntent, HoldAction, NextTurn, OrderTies, StartRound


def start_round(state: FightState, c: StartRound, dice: Dice) -> list[ev.Event]:
    if state.options.initiative in ("opposed", "ranked"):
        return ranked.start_round(state, c, dice)
    surprised = {combatant(state, n).key for n in c.surprised}
    number = state.round + 1
    out: list[ev.Event] = [ev.RoundStarted(round=number, surprised=tuple(state.combatants[k].name for k in sorted(surprised)))]
    if state.options.initiative == "none":
        if surprised:
            raise RuleError("surprise here shifts phase initiative (PH-5); this fight has no initiative")
        return out
    for who in sorted(state.combatants.values(), key=lambda w: w.joined_seq):
        if not who.track.can_act:
            continue
        _, determinant, _ = who.fighter.trait(state.options.initiative_trait, state.options)
        allot = allotment(determinant, state.options)  # PC-DICE or CT-TABLE
        rolled = dice.roll(who.name, allot.rolled, "initiative") if allot.rolled else None
        faces = rolled.faces if rolled else ()
        gifts = who.fighter.sheet.gifts
        out.append(ev.InitiativeRolled(combatant=who.name, round=number, determinant=determinant,
                                       faces=faces, surprised=who.key in surprised,
                                       source=rolled.source if rolled else "entered",
                                       stream=rolled.stream if rolled else None,
                                       draw=rolled.draw if rolled else None,
                                       fixed=allot.fixed, discarded=discards(faces + allot.fixed, allot, gifts),
                                       bonus_phases=bonus_phases(gifts)))
    return out


def barter_dice(state: FightState, c: Barter, dice: Dice) -> list[ev.Event]:
    who = combatant(state, c.combatant)
    initiative = state.initiative.get(who.key)
    if initiative is None:
        raise RuleError(f"{who.name} has no initiative dice this round: `fudge round` rolls them")
    if state.turn is not None:
        raise RuleError("bartering ends when the round's first turn is taken")
    if state.options.bartering == "classic":
        return barter_classic_events(state, who, initiative, c)
    if c.second_trade is not None:
        raise RuleError("crunch bartering trades one + die at a time (CT-BARTER-1): give --trade once")
    after = barter(initiative, c.trade, c.alter, c.direction, state.options)
    return [ev.DieBartered(combatant=who.name, round=state.round, traded=c.trade, altered=c.alter,
                           direction=c.direction, face_before=initiative.dice[c.alter].face,
                           face_after=after.dice[c.alter].face)]


def barter_classic_events(state: FightState, who: Combatant, initiative: Any, c: Barter) -> list[ev.Event]:
    """PC-BARTER-1, PC-BARTER-2, PC-BARTER-3, PH-6: each traded die and the altered die, each its own event."""
    if c.second_trade is None:
        raise RuleError("classic bartering trades two dice (PC-BARTER-1): give --trade twice")
    after = barter_classic(initiative, (c.trade, c.second_trade), c.alter, c.direction, state.options)
    traded: list[ev.Event] = [ev.DieTraded(combatant=who.name, round=state.round, die=index, face=initiative.dice[index].face)
              for index in (c.trade, c.second_trade)]
    return traded + [ev.DieAltered(combatant=who.name, round=state.round, die=c.alter, direction=c.direction,
                                   face_before=initiative.dice[c.alter].face, face_after=after.dice[c.alter].face)]


def turn_order(state: FightState) -> list[tuple[int, str, tuple[str, ...]]]:
    """PH-1, PH-3: (phase, combatant key, tied names) in acting order for this round.

    Everyone who rolled keeps their places all round, so a turn's index means
    the same after a fighter is taken out; `next_turn` skips turns of those who
    can no longer act. (`engine.rulesets.fudge.phase_order.slots` adds PH-4's steps.)
    """
    return [(slot.phase, slot.combatant, slot.tied_with) for slot in slots(state)]


def next_turn(state: FightState, c: NextTurn, dice: Dice) -> list[ev.Event]:
    if state.options.initiative == "none":
        raise RuleError("this fight has no initiative order: every exchange is simultaneous")
    if state.options.initiative in ("opposed", "ranked"):
        return ranked.next_turn(state, c, dice)
    if not state.initiative:
        raise RuleError("no initiative rolled this round: `fudge round` rolls it")
    index = next_index(state)
    if index is None:
        raise RuleError(f"round {state.round} is over: `fudge round` starts the next one")
    slot = slots(state)[index]
    return [ev.TurnTaken(round=state.round, phase=slot.phase, combatant=state.combatants[slot.combatant].name,
                         index=index, tied_with=slot.tied_with, step=slot.step)]


def next_index(state: FightState) -> int | None:
    """PH-1, PH-3: the place in this round's order of the next turn `fudge next` gives (the next fighter
    still able to act), or None: the round's turns are used."""
    order = slots(state)
    index = 0 if state.turn is None else state.turn.index + 1
    while index < len(order) and not state.combatants[order[index].combatant].track.can_act:
        index += 1
    return index if index < len(order) else None


def order_ties(state: FightState, c: OrderTies, dice: Dice) -> list[ev.Event]:
    """PH-3: the GM orders tied combatants (GM input)."""
    ordered = ordered_ties(state, c.order)
    return [ordered, *reordered_turn(state, ordered.order)]


def hold(state: FightState, c: HoldAction, dice: Dice) -> list[ev.Event]:
    """PH-4 `open`: the actor waits for the others in the phase."""
    return [held_action(state)]


def intend(state: FightState, c: DeclareIntent, dice: Dice) -> list[ev.Event]:
    """PH-4 `structured`: the declaration step."""
    who = able(state, c.combatant)
    target = combatant(state, c.target) if c.target is not None else None
    return [declared_intent(state, who, c.what, target)]



TABLE: ByCommand[Handler] = ByCommand({
    "StartRound": start_round,
    "Barter": barter_dice,
    "NextTurn": next_turn,
    "OrderTies": order_ties,
    "HoldAction": hold,
    "DeclareIntent": intend,
})
