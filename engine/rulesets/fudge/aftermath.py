"""F-HEAL commands: the end of a battle, rest, and healing rolls -> events.

Each heal is a WoundsHealed event naming every mark it changed, from which
level to which; the track is derived again from the marks, so undo, replay
and branches need nothing special.
"""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

from fudge_combat.engine.kernel.commands import ByCommand
from fudge_combat.engine.kernel.decider import Handler
from fudge_combat.engine.rulesets.fudge import healing
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.rolls import next_action, roll_event
from fudge_combat.engine.rulesets.fudge.sides import able, combatant, wound_modifiers
from fudge_combat.engine.kernel.wounds import HURT, SCRATCH
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import EndBattle, Heal, Rest


def _living(state: FightState, names: tuple[str, ...]) -> list[Combatant]:
    if names:
        chosen = [combatant(state, n) for n in names]
    else:
        chosen = sorted(state.combatants.values(), key=lambda c: c.joined_seq)
    return [who for who in chosen if not who.track.dead]


def _end(state: FightState, c: EndBattle, dice: Dice) -> list[ev.Event]:
    """F-HEAL-1: Scratches are erased; F-STUN-1: stun marks clear. Once is enough: nothing since, nothing to end."""
    if state.ended_through and state.ended_through == state.last_seq:
        raise RuleError(f"the battle already ended (round {state.round}) and nothing has happened since: "
                        "`fudge rest` or `fudge heal` for the days after it")
    out: list[ev.Event] = [ev.BattleEnded(round=state.round)]
    for who in _living(state, ()):
        changes = healing.erase_scratches(who.marks)
        if changes:
            out.append(ev.WoundsHealed(combatant=who.name, cause="end", levels=0, changes=changes))
    return out


def _rest(state: FightState, c: Rest, dice: Dice) -> list[ev.Event]:
    """F-HEAL-1 a short rest erases Scratches; F-HEAL-3 each week of rest heals one level."""
    chosen = _living(state, c.combatants)
    if c.combatants and len(chosen) < len(c.combatants):
        raise RuleError("the dead do not heal: name only living combatants")
    out: list[ev.Event] = []
    action = next_action(state)
    for who in chosen:
        marks = who.marks
        changes = healing.erase_scratches(marks)
        if changes:
            out.append(ev.WoundsHealed(combatant=who.name, cause="rest", levels=0, changes=changes))
            marks = healing.apply(marks, changes)
        for week in range(1, c.weeks + 1):
            if not any(m.level >= HURT for m in marks):
                break
            worst = max(m.level for m in marks)
            fields: dict[str, Any] = {}
            levels = 1
            if state.options.natural_healing_roll:
                trait, level, _ = who.fighter.trait(state.options.healing_trait, state.options)
                rolled = roll_event(action + len(out), who.name, trait, 4, dice)
                out.append(rolled)
                difficulty = healing.natural_difficulty(worst)
                result = level + sum(rolled.faces)
                levels = 1 if result >= difficulty else 0
                fields = dict(action=rolled.action, trait=trait, skill_level=level, roll=sum(rolled.faces),
                              result=result, difficulty=difficulty)
            changes = healing.heal(marks, levels)
            out.append(ev.WoundsHealed(combatant=who.name, cause="natural", levels=levels, changes=changes,
                                       weeks=week, **fields))
            marks = healing.apply(marks, changes)
    if not out:
        raise RuleError("nobody has a wound that rest would heal")
    return out


def _heal(state: FightState, c: Heal, dice: Dice) -> list[ev.Event]:
    """F-HEAL-2: Good heals every wound one level, Great two, Superb three (F-HEAL-4: from each mark's level)."""
    if (c.healer is None) == (c.skill_level is None):
        raise RuleError("say who heals: a combatant (--by NAME) or the healer's skill level (--level LEVEL)")
    patient = combatant(state, c.patient)
    if patient.track.dead:
        raise RuleError(f"{patient.name} is dead: no skill heals that")
    if not any(m.level > SCRATCH for m in patient.marks):
        raise RuleError(f"{patient.name} has no wound worse than a Scratch to heal (Scratches go after the battle)")
    opts = state.options
    wanted = c.skill or opts.healing_skill
    mods: list[ev.Modifier] = []
    if c.healer is not None:
        healer = able(state, c.healer)
        roller, (trait, level, _) = healer.name, healer.fighter.trait(wanted, opts)
        mods = wound_modifiers(healer, opts)
    else:
        roller, trait, level = "healer", wanted, c.skill_level or 0
    if c.mod:
        mods.append(ev.Modifier(name="GM modifier", value=c.mod))
    action = next_action(state)
    rolled = roll_event(action, roller, trait, 4, dice)
    result = level + sum(rolled.faces) + sum(m.value for m in mods)
    levels = healing.levels_for_result(result)
    return [rolled, ev.WoundsHealed(combatant=patient.name, cause="skill", levels=levels,
                                    changes=healing.heal(patient.marks, levels), action=action,
                                    healer=roller, trait=trait, skill_level=level, roll=sum(rolled.faces),
                                    modifiers=tuple(mods), result=result)]


HANDLERS: ByCommand[Handler] = ByCommand({
    "EndBattle": _end,
    "Rest": _rest,
    "Heal": _heal,
})
