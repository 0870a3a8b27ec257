"""Fudge points (C-FP-2, C-FP-3) and Crunch Time's spare dice (CT-SPARE): what a point may be spent
on, what it costs, and the re-resolution it asks of `engine.rulesets.fudge.reresolve`."""

from __future__ import annotations

from typing import Any, Literal, TYPE_CHECKING

from msgspec.structs import replace

from fudge_combat.engine.kernel.words import counted
from fudge_combat.engine.rulesets.fudge import harm
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.melee_multi import reresolve_melee
from fudge_combat.engine.rulesets.fudge.phase_order import spare_spent
from fudge_combat.engine.rulesets.fudge.ranged import reresolve_shot
from fudge_combat.engine.rulesets.fudge.reresolve import Settle, Spent, reresolve, resettle_exchange, resettle_roll
from fudge_combat.engine.rulesets.fudge.sides import combatant
from fudge_combat.engine.kernel.wounds import LEVELS, NEAR_DEATH, SCRATCH, build_track, halve, would_kill
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import SpendPoint


def spend(state: FightState, c: SpendPoint, dice: Dice, *, settle: Settle) -> list[ev.Event]:
    """C-FP-2, C-FP-3, CT-SPARE: a point spent on a roll or a blow; `settle` settles the ruleset's blows again."""
    who = combatant(state, c.combatant)
    blow_use = c.use in ("scratch", "ticking")
    target = c.target if c.target is not None else latest(state, who, blow_use)
    event = state.events.get(target)
    if event is None:
        raise RuleError(f"event {target} is not a roll or blow in force (it may not exist, or was undone)")
    record = state.actions[event.action]
    if not blow_use and beyond_points(state.events.get(record.resolution), event):
        raise RuleError("a fudge point re-resolves a trait roll, a blow or a shot, not this roll "
                        "(a story element, a median of three, a posture die, a speed contest); "
                        "spend it on a blow taken (scratch, ticking) instead")
    if blow_use:
        return spend_on_blow(state, who, c, target, event)
    if isinstance(state.events.get(record.resolution), (ev.WoundsHealed, ev.DiceRolled)):
        raise RuleError(f"event {target} is a healing or recovery roll: fudge points change action rolls and blows")
    if isinstance(event, ev.DiceRolled) and harm.is_adjustment_roll(event):
        raise RuleError(f"event {target} adjusts a wound (F-DC): spend on the action roll or on the blow instead")
    if not isinstance(event, ev.DiceRolled) or event.roller.lower() != who.key:
        raise RuleError(f"event {target} is not one of {who.name}'s rolls")
    if c.use == "spare":  # CT-SPARE: a spare initiative die, spent like a skill point for +1
        if c.shift not in (None, 1):
            raise RuleError("a spare die gives +1 to a roll (CT-SPARE): no --shift")
        paid: Any = spare_spent(state, who, target)
        c = replace(c, shift=1)
    else:
        if who.fudge_points < 1:
            raise RuleError(f"{who.name} has no fudge points left (C-FP-3)")
        if c.use == "skill" and c.shift is None:
            raise RuleError("a skill spend shifts the result: give --shift +1 or --shift -1")
        paid = ev.FudgePointSpent(combatant=who.name, use=c.use, target=target, cost=1, shift=c.shift)
    label = "spare die (CT-SPARE)" if c.use == "spare" else f"fudge point ({c.use})"
    spent = Spent(who=who, roll=event, target=target, use=c.use, label=label,
                  shift=(c.shift or 0) if c.use in ("skill", "spare") else None, reroll=c.use == "luck",
                  reason=f"{who.name} spent a {label}")
    return [paid, *respend(state, spent, dice, settle)]


def respend(state: FightState, spent: Spent, dice: Dice, settle: Settle) -> list[ev.Event]:
    """C-FP-2: the action the roll belongs to, re-resolved the way its kind of resolution is settled."""
    resolution = state.events[state.actions[spent.roll.action].resolution]
    if isinstance(resolution, ev.ShotResolved):
        return reresolve_shot(state, spent, dice)
    if isinstance(resolution, ev.MeleeResolved):
        return reresolve_melee(state, spent, dice)
    if spent.roll.purpose == "damage":
        if spent.reroll:
            raise RuleError("luck rerolls an action roll; spend on the blow (scratch, ticking) to change a wound")
        raise RuleError("spend skill on the action roll, not on a damage roll")
    if isinstance(resolution, ev.ActionResolved):
        return reresolve(state, spent, dice, resettle_roll)
    if spent.use == "panache":
        raise RuleError("panache makes an unopposed action succeed: a blow is opposed (C-FP-2)")
    return reresolve(state, spent, dice, resettle_exchange(settle))


def beyond_points(resolution: Any, roll: Any) -> bool:
    """Rolls no fudge point re-resolves: F-PACE-1 story elements, C-ACT-5 medians, the F-TAC-3 posture die,
    an F-FANCY-1 speed contest roll (the GM narrates, or a re-resolution could not say what changed)."""
    if isinstance(resolution, ev.StoryRolled) or getattr(resolution, "median_of", None):
        return True
    return isinstance(roll, ev.DiceRolled) and roll.purpose.startswith(("posture (1d6)", "speed contest"))


def latest(state: FightState, who: Combatant, blow_use: bool) -> int:
    """The fighter's latest roll (or blow taken) in force: what a point is spent on when none is named."""
    # No use spends on a damage roll (luck and skill refuse it): aim at the action roll. The fold keeps
    # the newest of each (FightState.index), so this is one read, not a scan of the fight's events.
    seq = state.index.get(("blow" if blow_use else "action roll", who.key))
    if seq is not None:
        return seq
    raise RuleError(f"{who.name} has no {'blow taken' if blow_use else 'roll'} to spend a point on")


def spend_on_blow(state: FightState, who: Combatant, c: SpendPoint, target: int, event: Any) -> list[ev.Event]:
    """C-FP-2 Only a Scratch and Still Ticking (F-DEATH-3): replace one blow's wound mark."""
    if not isinstance(event, ev.WoundMarked) or event.combatant.lower() != who.key:
        raise RuleError(f"event {target} is not a blow {who.name} took")
    if not any(m.seq == target and m.healed_from is None for m in who.marks):
        raise RuleError(f"the wound of event {target} has been healed since (F-HEAL): no point changes it now")
    before = build_track(who.boxes, [m for m in who.marks if m.seq < target], state.options)
    use: Literal["scratch", "ticking"] = "scratch" if c.use == "scratch" else "ticking"  # `spend` sends these only
    halved: int | None
    if use == "scratch":
        if event.level <= SCRATCH:
            raise RuleError("Only a Scratch halves a wound worse than a Scratch")
        if event.halved_from is not None:
            raise RuleError(f"that blow is already halved (from {LEVELS[event.halved_from]}): Only a Scratch "
                            "halves one blow once (C-FP-2)")
        cost, level, ticking, halved = 1, halve(event.level), event.still_ticking, event.level
    else:
        if not would_kill(before, event.level, state.options) or event.still_ticking:
            raise RuleError(f"that blow does not kill {who.name}: Still Ticking is for a deadly blow (F-DEATH-3)")
        cost = state.options.still_ticking_cost_near_death if before.level >= NEAR_DEATH else 1
        level, ticking, halved = event.level, True, event.halved_from
    if who.fudge_points < cost:
        raise RuleError(f"{who.name} has {counted(who.fudge_points, 'fudge point')}; this costs {cost} (C-FP-3)")
    return [ev.FudgePointSpent(combatant=who.name, use=use, target=target, cost=cost),
            ev.EventsVoided(seqs=(target,), reason=f"{who.name} spent a fudge point ({c.use})"),
            ev.WoundMarked(action=event.action, combatant=who.name, level=level, damage=event.damage,
                           still_ticking=ticking, halved_from=halved if c.use == "scratch" else event.halved_from)]
