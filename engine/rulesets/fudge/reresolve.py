"""C-FP-2 re-resolution, once for every point that changes a roll already made: a fudge point (luck, skill,
panache), a Crunch Time spare die (CT-SPARE) and Fate's fate points and aspect rerolls (FT-PTS).

Every use runs the same steps: the action's old resolution and consequences are voided
(and the old roll, when it is rolled again), the spender's side is changed (`Spent`: a
reroll, a modifier), and the action is settled again by the `Resettle` its kind of
resolution gives: a trait roll, an exchange or attack, a shot, a melee, a Fate exchange.

Part of the shared toolkit every ruleset builds on (it imports no ruleset).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from msgspec import Struct

from msgspec.structs import replace as with_fields

from fudge_combat.engine.rulesets.fudge import harm
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.locations import locate_hits, targeting_of
from fudge_combat.engine.rulesets.fudge.rolls import advantage_events, damage_roller, roll_event, settle_roll
from fudge_combat.engine.rulesets.fudge.settle import Settled, blow_marks
from fudge_combat.engine.rulesets.fudge.sides import with_roll
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Action, Combatant, FightState


class Spent(Struct, frozen=True):
    """What a spent point changes on the spender's roll."""

    who: Combatant
    roll: ev.DiceRolled  # the roll spent on
    target: int  # its seq
    use: str  # luck, skill, panache, spare (C-FP-2, CT-SPARE), or Fate's fate point or aspect (FT-PTS)
    label: str  # the name of the modifier it adds
    shift: int | None  # the modifier's value; None adds none
    reroll: bool  # the roll is rolled again (luck, an aspect)
    reason: str  # why the old consequences are voided

    def shifted(self, modifiers: tuple[Any, ...]) -> tuple[Any, ...]:
        """The spender's modifiers with this spend's own added (when it adds one)."""
        if self.shift is None:
            return modifiers
        return modifiers + (ev.Modifier(name=self.label, value=self.shift),)


class Resettle(Protocol):
    def __call__(self, state: FightState, record: Action, spent: Spent, new_roll: int | None,
                 voids: list[int], dice: Dice) -> list[ev.Event]: ...


def reresolve(state: FightState, spent: Spent, dice: Dice, resettle: Resettle) -> list[ev.Event]:
    """C-FP-2, FT-PTS: void the action's old consequences; append the new ones that `resettle` settles."""
    record = state.actions[spent.roll.action]
    voids = [record.resolution, *record.consequences]
    out: list[ev.Event] = []
    new_roll: int | None = None
    if spent.reroll:
        roll = spent.roll
        rerolled = roll_event(record.action, roll.roller, roll.purpose, len(roll.faces), dice)
        out.append(rerolled)
        voids.append(spent.target)
        new_roll = sum(rerolled.faces)
    settled = resettle(state, record, spent, new_roll, voids, dice)
    return [ev.EventsVoided(seqs=tuple(sorted(voids)), reason=spent.reason), *out, *settled]


def earlier_rolls(state: FightState, record: Action, damage: bool) -> list[ev.DiceRolled]:
    """The action's damage rolls (`damage`), or its F-DC adjustment rolls: a new settling reuses them."""
    out = []
    for seq in record.rolls:
        event = state.events.get(seq)
        if isinstance(event, ev.DiceRolled) and (event.purpose == "damage" if damage
                                                 else harm.is_adjustment_roll(event)):
            out.append(event)
    return out


def fresh_rolls(rolls: Any, reused: list[ev.DiceRolled]) -> list[ev.DiceRolled]:
    """The damage rolls a new settling made, leaving out those it reused (they stand in the log)."""
    kept = {id(r) for r in reused}
    return [r for r in rolls if id(r) not in kept]


def resettle_roll(state: FightState, record: Action, spent: Spent, new_roll: int | None,
                  voids: list[int], dice: Dice) -> list[ev.Event]:
    """C-ACT-2, C-ACT-3 again for a trait roll; F-MOD-7's advantage and AI-WILL-1's steeled will follow it."""
    resolution: ev.ActionResolved = state.events[record.resolution]
    mine = resolution.combatant.lower() == spent.who.key
    if resolution.automatic:
        raise RuleError("panache already made this action succeed (C-FP-2): no point changes it now")
    if spent.use == "panache":
        if resolution.difficulty is None or not mine:
            raise RuleError("panache makes an unopposed action succeed: this roll was opposed (C-FP-2)")
    left_out = {"v", "result", "margin", "success", "automatic", "supersedes", "opponent_result"}
    fields = {name: getattr(resolution, name) for name in resolution.__struct_fields__ if name not in left_out}
    roll_field, mods_field = ("roll", "modifiers") if mine else ("opponent_roll", "opponent_modifiers")
    if new_roll is not None:
        fields[roll_field] = new_roll
    fields[mods_field] = spent.shifted(tuple(getattr(resolution, mods_field)))
    fields["modifiers"] = tuple(fields["modifiers"])
    fields["opponent_modifiers"] = tuple(fields["opponent_modifiers"])
    resolved = {k: fields.pop(k) for k in ("difficulty", "opponent", "opponent_trait", "opponent_level",
                                           "opponent_roll", "opponent_modifiers")}
    if resolved["opponent"] is None:
        resolved = {"difficulty": resolved["difficulty"]}
    new = settle_roll(fields.pop("combatant"), fields.pop("trait"), fields.pop("level"), fields.pop("roll"),
                      fields.pop("modifiers"), resolved, fields.pop("advantage"), record.action,
                      supersedes=record.resolution, automatic=spent.use == "panache")
    earlier = next((state.events[seq] for seq in record.consequences
                    if isinstance(state.events.get(seq), ev.AdvantageGained)), None)
    steeled = [ev.WillSteeled(combatant=new.combatant, action=record.action,
                              levels=max(0, new.result - (new.difficulty or 0)))  # AI-WILL-1 re-read
               for seq in record.consequences if isinstance(state.events.get(seq), ev.WillSteeled)]
    return [new, *advantage_events(state, new, earlier), *steeled]


Settle = Callable[..., Settled]  # (state, kind, sides, min_hits, damage dice): the ruleset's blows


def resettle_exchange(settle: Settle) -> Resettle:
    """An exchange or a directed attack settled again by the ruleset's `settle` (Fudge's F-MEL-1, F-MEL-2,
    or Atari Isev's AI-ATK); only the spender's roll changes (AI-MULTI-AVD: of a dodge-parry pair, the
    roll spent on)."""

    def resettle(state: FightState, record: Action, spent: Spent, new_roll: int | None,
                 voids: list[int], dice: Dice) -> list[ev.Event]:
        if spent.use == "panache":
            raise RuleError("panache makes an unopposed action succeed: a blow is opposed (C-FP-2)")
        resolution: ev.ExchangeResolved = state.events[record.resolution]
        sides = list(resolution.sides)
        for index, side in enumerate(sides):
            if side.combatant.lower() != spent.who.key or (len(sides) > 2 and side.trait != spent.roll.purpose):
                continue
            if spent.shift is not None:
                side = with_fields(side, modifiers=spent.shifted(side.modifiers))
            sides[index] = with_roll(side, new_roll if new_roll is not None else side.roll or 0)
        old_damage = earlier_rolls(state, record, damage=True)
        settled = settle(state, resolution.kind, sides, resolution.min_hit,
                         damage_roller(record.action, dice, old_damage))
        targeting = targeting_of(resolution)
        hits = locate_hits(settled.hits, sides[0], targeting)
        new = with_fields(resolution, sides=tuple(sides), outcome=settled.outcome, hits=hits,
                          supersedes=record.resolution)
        return [*fresh_rolls(settled.damage_rolls, old_damage), new,
                *blow_marks(record.action, hits, targeting.affects, state, sides, False, voids, dice,
                            earlier_rolls(state, record, damage=False))]

    return resettle
