"""The Fate ruleset's Decider (FT-PACE): exchanges, scenes and turns, fate points and aspects (FT-PTS),
injury recovery (FT-HEAL-1), and Fudge's trait rolls, points and phase initiative where Fate keeps them.

The rules these commands apply (the track, the outcome table, the arms) are in `engine.rulesets.fate.rules`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import islice
from typing import Any, TYPE_CHECKING, TypeVar

import msgspec
from msgspec.structs import replace as with_fields

from fudge_combat.engine.kernel.commands import ByCommand
from fudge_combat.engine.rulesets.fudge import points
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fate.rules import (build_side, check_actions, check_arms, fate_able, is_taken_out, marks_of, next_actor,
                         penalties, resolution, skill_of, still_to_act, tie_breaks)
from fudge_combat.engine.rulesets.fudge.reresolve import Spent, reresolve
from fudge_combat.engine.rulesets.fudge.rolls import roll_event, settle_roll
from fudge_combat.engine.rulesets.fudge import decider as fudge
from fudge_combat.engine.rulesets.fudge import lifecycle
from fudge_combat.engine.rulesets.fudge import phases
from fudge_combat.engine.kernel.decider import Decider, Handler, HandlerOf
from fudge_combat.engine.rulesets.fudge.settle import settle_exchange
from fudge_combat.engine.kernel.sheets import given_sheet
from fudge_combat.engine.rulesets.fudge.sides import able, combatant
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Action, Combatant, FightState
from fudge_combat.engine.rulesets.fate.state import fate_of

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.decider import Command
    from fudge_combat.engine.kernel.command_structs import Join
    from fudge_combat.engine.rulesets.fate.command_structs import CheckAspect, EndScene, FateAction, FateAttack, FateExchange, FatePass, FateRound, FateScene, RecoverInjury
    from fudge_combat.engine.rulesets.fudge.command_structs import RollTrait, SpendPoint


def _need_pace(state: FightState, pace: str, what: str) -> None:
    if state.options.pace != pace:
        raise RuleError(f"{what} is for pace = \"{pace}\"; this Fate fight runs at pace \"{state.options.pace}\" "
                        f"(FT-PACE): {pace_commands(state)}")


def pace_commands(state: FightState) -> str:
    """The commands that play a Fate fight at its pace and initiative: where a refusal sends the GM
    (FT-PACE, FT-INIT), naming none the fight would refuse in turn."""
    opts = state.options
    if opts.pace == "scene":
        return "`fudge fate scene` rolls the scene, `fudge end-scene` ends it"
    if opts.pace == "exchange":
        return "`fudge fate exchange` rolls each exchange, `fudge end-scene` ends the scene"
    if opts.initiative == "alertness":
        return ("`fudge fate round` orders a round by Alertness, `fudge fate attack` takes the turn, "
                "`fudge fate pass` or `fudge fate hold` gives it up, `fudge end-scene` ends the scene")
    hold = ", `fudge hold` waits for the others in the phase" if opts.phase_declaration == "open" else ""
    return ("`fudge round` rolls phase initiative, `fudge next` gives the turn, `fudge fate attack` takes it"
            f"{hold}, `fudge end-scene` ends the scene")


def _rolls(state: FightState, actions: Sequence[FateAction], dice: Dice, action: int,
           roles: Sequence[str] = ()) -> list[ev.DiceRolled]:
    out = []
    for index, a in enumerate(actions):
        who = fate_able(state, a.combatant)
        role = roles[index] if roles else "act"
        out.append(roll_event(action, who.name, skill_of(who, a, role, state), 4, dice))
    return out


def exchange(state: FightState, c: FateExchange, dice: Dice) -> list[ev.Event]:
    """FT-PACE exchange: all declare, all roll, each compared with whom they oppose."""
    _need_pace(state, "exchange", "`fudge fate exchange`")
    if not c.actions:
        raise RuleError("an exchange needs its combatants: NAME or NAME>TARGET")
    check_actions(state, c.actions, c.mods)
    action = state.last_seq + 1
    rolled = _rolls(state, c.actions, dice, action)
    sides = [build_side(state, a, c.mods, sum(r.faces), mobile=c.mobile) for a, r in zip(c.actions, rolled)]
    return [*rolled, *resolution(state, action, "exchange", sides)]


def scene(state: FightState, c: FateScene, dice: Dice) -> list[ev.Event]:
    """FT-PACE scene, FT-SCENE: one roll per participant for the whole scene."""
    _need_pace(state, "scene", "`fudge fate scene`")
    check_actions(state, c.actions, c.mods)
    again = [a.combatant for a in c.actions if a.combatant.lower() in fate_of(state).scene_rolled]
    if again:
        raise RuleError(f"{again[0]} has rolled in this scene (FT-PACE: one roll each); `fudge end-scene` first")
    if c.mode == "paired" and any(a.target is None for a in c.actions):
        raise RuleError("paired sub-fights need each combatant's opponent: NAME>TARGET (or --total)")
    if c.mode == "total" and any(m.against for m in c.mods):
        raise RuleError("the total difference adds each side's rolls: a modifier cannot be against one foe here")
    action = state.last_seq + 1
    rolled = _rolls(state, c.actions, dice, action)
    sides = [build_side(state, a, c.mods, sum(r.faces)) for a, r in zip(c.actions, rolled)]
    return [*rolled, *resolution(state, action, "scene", sides, mode="total" if c.mode == "total" else "contests")]


def new_round(state: FightState, c: FateRound, dice: Dice) -> list[ev.Event]:
    """FT-INIT: everyone able rolls Alertness (4dF); ties go to Tactics, then the combat skill.

    Remaining ties keep the joining order and are shown. Each roll is a
    recorded DiceRolled of the round's action.
    """
    _need_pace(state, "turn", "`fudge fate round`")
    if state.options.initiative != "alertness":
        raise RuleError(f"this fight orders turns by phase initiative: {pace_commands(state)}")
    able = [w for w in sorted(state.combatants.values(), key=lambda w: w.joined_seq)
            if w.left is None and not is_taken_out(marks_of(state, w))]
    if not able:
        raise RuleError("nobody can act")
    action = state.last_seq + 1
    rolled = [roll_event(action, w.name, "initiative (Alertness)", 4, dice) for w in able]
    keys = {w.key: (w.fighter.trait("Alertness", state.options)[1] + sum(r.faces), *tie_breaks(state, w))
            for w, r in zip(able, rolled)}
    ranked = sorted(able, key=lambda w: tuple(-k for k in keys[w.key]))
    return [*rolled, ev.FateTurnOrder(round=state.round + 1, order=tuple(w.name for w in ranked),
                                      keys=tuple(keys[w.key] for w in ranked))]


def attack(state: FightState, c: FateAttack, dice: Dice) -> list[ev.Event]:
    """FT-PACE turn: the actor's attack roll against the defender's defence roll."""
    _need_pace(state, "turn", "`fudge fate attack`")
    attacker = fate_able(state, c.attack.combatant)
    defender = fate_able(state, c.defense.combatant)
    if state.options.initiative == "alertness":
        actor = _actor(state)
        if actor.key != attacker.key:
            raise RuleError(f"it is {actor.name}'s turn (FT-INIT), not {attacker.name}'s: {actor.name} attacks, "
                            "or gives his turn up with `fudge fate pass` or `fudge fate hold`")
    elif state.options.initiative.startswith("phases"):
        if state.turn is None or state.turn.combatant != attacker.key or state.turn.acted:
            raise RuleError(f"it is not {attacker.name}'s turn: `fudge next` gives the next turn (phase initiative)")
    # initiative "none" at the turn pace is no fight's option: it is `fudge odds` weighing a blow out of turn
    actions = (with_fields(c.attack, target=defender.name), with_fields(c.defense, target=None))
    check_actions(state, actions, c.mods)
    action = state.last_seq + 1
    rolled = _rolls(state, actions, dice, action, ("attack", "defend"))
    sides = [build_side(state, actions[0], c.mods, sum(rolled[0].faces), role="attack", mobile=c.mobile),
             build_side(state, actions[1], c.mods, sum(rolled[1].faces), role="defend", mobile=c.mobile)]
    return [*rolled, *resolution(state, action, "turn", sides)]


def _actor(state: FightState) -> Combatant:
    """FT-INIT: who has the turn in this round's Alertness order, or why nobody has."""
    if not fate_of(state).order:
        raise RuleError("no order yet: `fudge fate round` orders the round (FT-INIT)")
    actor = next_actor(state)
    if actor is None:
        raise RuleError(f"round {state.round} is over: `fudge fate round` starts the next")
    return actor


def pass_turn(state: FightState, c: FatePass, dice: Dice) -> list[ev.Event]:
    """FT-INIT (a reading, engine.rulesets.fate.rules): the actor passes (his turn used with no action) or holds (he acts
    after the next fighter who still has a turn this round)."""
    typed = "`fudge fate hold`" if c.hold else "`fudge fate pass`"
    _need_pace(state, "turn", typed)
    if state.options.initiative != "alertness":
        raise RuleError(f"{typed} gives up a turn in Fate's Alertness order; this fight orders turns by phase "
                        f"initiative: {pace_commands(state)}")
    actor = _actor(state)
    if c.combatant is not None:
        named = combatant(state, c.combatant)
        if named.key != actor.key:
            raise RuleError(f"it is {actor.name}'s turn (FT-INIT), not {named.name}'s: only the actor "
                            "passes or holds")
    if not c.hold:
        return [ev.FateTurnPassed(round=state.round, combatant=actor.name)]
    later = next(islice(still_to_act(state), 1, None), None)
    if later is None:
        raise RuleError(f"nobody acts after {actor.name} in round {state.round}: he acts "
                        f"(`fudge fate attack TARGET`) or passes (`fudge fate pass`)")
    return [ev.FateTurnPassed(round=state.round, combatant=actor.name, behind=later.name)]


def _latest_roll(state: FightState, who: Combatant, target: int | None) -> tuple[int, ev.DiceRolled]:
    if target is None:
        target = state.index.get(("roll", who.key))  # the newest, kept by the fold (FightState.index)
        if target is None:
            raise RuleError(f"{who.name} has no roll to change")
    event = state.events.get(target)
    if not isinstance(event, ev.DiceRolled) or event.roller.lower() != who.key:
        raise RuleError(f"event {target} is not one of {who.name}'s rolls in force")
    return target, event


def _fate_action(state: FightState, event: ev.DiceRolled, target: int) -> tuple[Any, ev.FateResolved] | None:
    record = state.actions.get(event.action)
    resolved = state.events.get(record.resolution) if record else None
    if not isinstance(resolved, ev.FateResolved):
        return None
    if event.action != fate_of(state).last_action:
        raise RuleError(f"event {target} is in an earlier exchange: fate points and aspect rerolls change the "
                        f"latest one only (FT-PTS)")
    return record, resolved


def resettle(state: FightState, record: Action, spent: Spent, new_roll: int | None,
             voids: list[int], dice: Dice) -> list[ev.Event]:
    """FT-PTS: the exchange compared again with the spender's changed roll; its old marks are left out."""
    resolved: ev.FateResolved = state.events[record.resolution]
    change: dict[str, Any] = {} if new_roll is None else {"roll": new_roll}
    sides = [with_fields(s, modifiers=spent.shifted(s.modifiers), **change)
             if s.combatant.lower() == spent.who.key else s for s in resolved.sides]
    return resolution(state, record.action, resolved.pace, sides, resolved.mode, record.resolution,
                      exclude=frozenset(voids))


def spend(state: FightState, c: SpendPoint, dice: Dice, *, fallback: HandlerOf[SpendPoint]) -> list[ev.Event]:
    """FT-PTS: a fate point (the fudge-point pool, C-FP-4) for +1 to a roll."""
    who = combatant(state, c.combatant)
    if c.use != "skill" or c.shift not in (None, 1):
        raise RuleError("a fate point gives +1 to a roll (FT-PTS): `fudge spend NAME skill --shift +1`")
    if who.fudge_points < 1:
        raise RuleError(f"{who.name} has no fate points left (FT-PTS)")
    target, event = _latest_roll(state, who, c.target)
    found = _fate_action(state, event, target)
    if found is None:
        record = state.actions.get(event.action)
        if record is None or not isinstance(state.events.get(record.resolution), ev.ActionResolved):
            raise RuleError(f"event {target} is a recovery roll: fate points change action rolls (FT-PTS)")
        return fallback(state, with_fields(c, shift=1, target=target), dice)
    spent = Spent(who=who, roll=event, target=target, use="fate point", label="fate point (FT-PTS)", shift=1,
                  reroll=False, reason=f"{who.name} spent a fate point")
    paid = ev.FudgePointSpent(combatant=who.name, use="skill", target=target, cost=1, shift=1)
    return [paid, *reresolve(state, spent, dice, resettle)]


def check_aspect(state: FightState, c: CheckAspect, dice: Dice) -> list[ev.Event]:
    """FT-PTS: check one of an aspect's boxes to reroll a roll; both rolls stay in the log."""
    who = combatant(state, c.combatant)
    aspects = who.fighter.sheet.aspects
    name = next((a for a in aspects if a.lower() == c.aspect.strip().lower()), None)
    if name is None:
        raise RuleError(f"{who.name} has no aspect {c.aspect!r}; aspects: {', '.join(aspects) or 'none'}")
    checked = {b for a, b in fate_of(state).aspects.get(who.key, ()) if a == name}
    if c.box is not None:
        if not 1 <= c.box <= aspects[name]:
            raise RuleError(f"{name} has boxes 1..{aspects[name]}")
        if c.box in checked:
            raise RuleError(f"{who.name}'s {name} box {c.box} is already checked (FT-PTS): check another box "
                            "or spend a fate point")
        box = c.box
    else:
        free = [b for b in range(1, aspects[name] + 1) if b not in checked]
        if not free:
            raise RuleError(f"every box of {who.name}'s {name} is checked (FT-PTS): use another aspect or a fate point")
        box = free[0]
    target, event = _latest_roll(state, who, c.target)
    found = _fate_action(state, event, target)
    if found is None:
        raise RuleError(f"event {target} is not a roll of a Fate exchange, scene or attack")
    spent = Spent(who=who, roll=event, target=target, use="aspect", label=name, shift=None, reroll=True,
                  reason=f"{who.name} checked {name} for a reroll")
    checked_event = ev.AspectChecked(combatant=who.name, aspect=name, box=box, target=target)
    return [checked_event, *reresolve(state, spent, dice, resettle)]


def end_scene(state: FightState, c: EndScene, dice: Dice) -> list[ev.Event]:
    """FT-TRACK-3: the scene is over; clipped, hurt and taken out clear, injuries stay."""
    return [ev.FateSceneEnded(scene=fate_of(state).scene)]


def recover(state: FightState, c: RecoverInjury, dice: Dice) -> list[ev.Event]:
    """FT-HEAL-1: an injury heals in a week (or 2-3 weeks, option), a day less per MoS of a medicine roll."""
    opts = state.options
    patient = combatant(state, c.combatant)
    injuries = [m for m in marks_of(state, patient) if m.box == "injured"]
    if not injuries:
        raise RuleError(f"{patient.name} has no Injured box to recover (FT-HEAL-1)")
    if c.healer is not None and c.skill_level is not None:
        raise RuleError("say who treats the injury: a combatant (--by NAME) or a skill level (--level LEVEL), not both")
    long = opts.fate_recovery == "long"
    base = (14 if c.activity == "rest" else 21) if long else opts.fate_injury_days
    difficulty = 0 if long else 1  # above Average (long), or vs Fair (week)
    mark = injuries[0]
    fields: dict[str, Any] = {"activity": c.activity if long else None}
    days = base
    out: list[ev.Event] = []
    if c.healer is not None or c.skill_level is not None:
        action = state.last_seq + 1
        if c.healer is not None:
            healer = able(state, c.healer)
            skill, level, _ = healer.fighter.trait(opts.fate_medicine, opts)
            roller = healer.name
        else:
            skill, level, roller = opts.fate_medicine, c.skill_level or 0, "healer"
        rolled = roll_event(action, roller, skill, 4, dice)
        out.append(rolled)
        worn = sum(m.value for m in penalties(state, healer, "defend")[0]) if c.healer is not None else 0
        result = level + sum(rolled.faces) + c.mod + worn  # FT-TRACK-3: a hurt or injured healer rolls worse
        days = max(0, base - max(0, result - difficulty))
        fields.update(action=action, healer=roller, skill=skill, level=level, roll=sum(rolled.faces),
                      result=result, difficulty=difficulty)
    return out + [ev.InjuryRecovered(combatant=patient.name, mark=mark.seq, days=days, **fields)]


def roll(state: FightState, c: RollTrait, dice: Dice, *,
         fallback: HandlerOf[RollTrait] = fudge.roll_trait) -> list[ev.Event]:
    """FT-TRACK-3: any other roll (a chase, a medicine check) carries the Hurt and Injured penalties.

    The clipped -1 is left to the next exchange or attack, which is where the text spends it.
    """
    who = fate_able(state, c.combatant)
    if c.opponent is not None:
        fate_able(state, c.opponent)
    events = fallback(state, c, dice)
    if c.trait is None:
        return events
    out = []
    for event in events:
        if isinstance(event, ev.ActionResolved) and event.combatant == who.name:
            mine = tuple(penalties(state, who, "defend")[0])
            resolved: dict[str, Any] = {"difficulty": event.difficulty}
            if event.opponent is not None:
                foe = fate_able(state, event.opponent)
                resolved = dict(opponent=event.opponent, opponent_trait=event.opponent_trait,
                                opponent_level=event.opponent_level, opponent_roll=event.opponent_roll,
                                opponent_modifiers=tuple(penalties(state, foe, "defend")[0])
                                + tuple(event.opponent_modifiers))
            event = settle_roll(event.combatant, event.trait, event.level, event.roll,
                                mine + tuple(event.modifiers), resolved, event.advantage, event.action)
        out.append(event)
    return out


def join(state: FightState, c: Join, dice: Dice) -> list[ev.Event]:
    """FT-SIMPLE, FT-ADV-1: a Fate sheet's arms are checked when it joins."""
    check_arms(given_sheet(c.sheet), state.options.arms_rating_limit, state.options.arms)
    return lifecycle.join(state, c, dice)


# The commands Fate leaves out, with the words the GM typed for each.
FUDGE_ONLY = {"Exchange": "fudge exchange", "Attack": "fudge attack", "Shoot": "fudge shoot",
              "Declare": "fudge declare", "SealDeclaration": "fudge declare --sealed", "EndBattle": "fudge end",
              "Rest": "fudge rest", "Heal": "fudge heal", "Melee": "fudge melee", "StoryRoll": "fudge story",
              "Willpower": "fudge willpower", "ResistSpell": "fudge resist-spell", "HeroicAvoidance": "fudge heroic"}
PHASES_ONLY = {"StartRound": "fudge round", "NextTurn": "fudge next", "Barter": "fudge barter",
               "OrderTies": "fudge order", "HoldAction": "fudge hold", "DeclareIntent": "fudge intend"}


C = TypeVar("C", bound="Command")


def phased(handler: HandlerOf[C], typed: str) -> HandlerOf[C]:
    """A phase initiative command (the PH rules), for a Fate fight in turns ordered by phase initiative only."""

    def guarded(state: FightState, command: C, dice: Dice) -> list[ev.Event]:
        if not state.options.initiative.startswith("phases"):
            raise RuleError(not_fate(state, typed))
        return handler(state, command, dice)

    return guarded


def refused(typed: str) -> Handler:
    """A Fudge command Fate leaves out: refused with the commands this fight plays at its pace instead.

    A handler rather than a line of REFUSALS: the line names the fight's own commands, which depend on
    its pace and initiative, and a refusal line is the same for every fight."""

    def refuse(state: FightState, command: Command, dice: Dice) -> list[ev.Event]:
        raise RuleError(not_fate(state, typed))

    return refuse


def not_fate(state: FightState, typed: str) -> str:
    return f"`{typed}` is not used under Fate (FT-PACE): use the Fate commands of this fight's pace: " \
           f"{pace_commands(state)}"

TABLE: ByCommand[Handler] = ByCommand({
    **lifecycle.TABLE.by_name,
    **{name: phased(handler, PHASES_ONLY[name]) for name, handler in phases.TABLE.by_name.items()},
    **{name: refused(typed) for name, typed in FUDGE_ONLY.items()},
    "Join": join,
    "RollTrait": roll,
    "SpendPoint": partial(spend, fallback=partial(points.spend, settle=settle_exchange)),
    "FateExchange": exchange,
    "FateScene": scene,
    "FateRound": new_round,
    "FateAttack": attack,
    "FatePass": pass_turn,
    "CheckAspect": check_aspect,
    "EndScene": end_scene,
    "RecoverInjury": recover,
})

REFUSALS: ByCommand[str] = ByCommand({
    "GmWound": "a Fate fight marks boxes from exchanges (FT-TRACK); a wound level is a Fudge ruling",
})


def still_in(state: FightState, who: Combatant) -> bool:
    """FT-TRACK-3: a fighter Taken Out (or ruled dead, or who left) is out of the fight."""
    return not who.track.dead and who.left is None and not is_taken_out(marks_of(state, who))


FATE = Decider("fate", "Fate", TABLE, REFUSALS, still_in)
DECIDER = FATE  # what `kernel.registry` finds
