"""AI: Atari Isev blows, avoidances, willpower and heroic avoidance as decide handlers.

A blow is one `Attack` command: the attacker's roll against the target's
avoidance roll (or against Poor when the target has none left), settled by
`engine.rulesets.atari_isev.rules.settle` through `settle_attack`, which the Atari Isev ruleset also
gives the re-resolution of a fudge point spent on either roll (AI-FP, C-FP-2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from msgspec.structs import replace

from fudge_combat.engine.rulesets.fudge import ranked
from fudge_combat.engine.rulesets.atari_isev.rules import (BACK_TO_ENEMY, NO_AVOIDANCE, OFFENCE_POSITION, POSTURE_NAME, RANGED_AVOIDANCE,
                                WAIT_TABLE, heroic_level, settle)
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.rulesets.fudge.campaign import check_declaration, resist_spell, willpower  # noqa: F401  (its table)
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.phase_order import check_turn
from fudge_combat.engine.rulesets.fudge.points import latest
from fudge_combat.engine.rulesets.fudge.rolls import DamageDice, damage_roller, next_action, roll_event, settle_roll
from fudge_combat.engine.rulesets.fudge.settle import Settled, min_hit_for, wound_events
from fudge_combat.engine.rulesets.fudge.sides import acting_wound, combatant, with_roll
from fudge_combat.engine.kernel.wounds import LEVELS, NEAR_DEATH, UNDAMAGED, Mark, build_track
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import Attack
    from fudge_combat.engine.rulesets.fudge.command_structs import HeroicAvoidance, ResistSpell, Willpower

AVOIDING = ("dodge", "parry")


def settle_attack(state: FightState, kind: str, sides: Sequence[ev.Side], min_hits: Sequence[int],
                  damage_dice: DamageDice) -> Settled:
    """AI-ATK-1, AI-ATK-2, AI-ATK-3: an attack against an avoidance, settled by Atari Isev's rules (the `kind` is always an attack)."""
    fighters = {k: c.fighter for k, c in state.combatants.items()}
    return Settled(*settle(state.options, fighters, sides, min_hits[0], damage_dice))


def wound_penalty(state: FightState, who: Combatant) -> list[ev.Modifier]:
    level, penalty = acting_wound(state, who, ranked.slot_track(state, who))
    if level == UNDAMAGED:
        return []
    label = f"wound: {LEVELS[level]}"
    if state.will_relief.get(who.key):
        label += f" (willpower, marked {LEVELS[who.track.level]})"
    return [ev.Modifier(name=label, value=penalty)] if penalty else []


def unbalanced(state: FightState, who: Combatant) -> list[ev.Modifier]:
    advantage = state.advantages.get(who.key)
    if advantage and advantage[2] == state.round:
        label = "unbalanced (heroic avoidance)" if advantage[0].lower() == who.key else f"{advantage[0]}'s advantage"
        return [ev.Modifier(name=label, value=advantage[1])]
    return []


def avoidances_used(state: FightState, who: Combatant) -> int:
    """AI-ATK: the avoidances `who` has used this round (the fold counts them: FightState.index)."""
    return state.index.get(("avoided", who.key, state.round), 0)


def avoidance_budget(decl: ev.Declaration) -> int:
    """AI-ATK-1: one free avoidance; two with AI-MULTI-AVD; none after two attacks or a multi-strike."""
    if decl.two_attacks or decl.sweep:
        return 0
    return 2 if decl.two_avoidances else 1


def skill_like(who: Combatant, word: str, fallback: str, state: FightState) -> tuple[str, int]:
    for key, value in who.fighter.skills.items():
        if word in key.lower():
            return key, value
    name, level, _ = who.fighter.trait(fallback, state.options)
    return name, level


def attacker_side(state: FightState, c: Attack, who: Combatant, foe: Combatant, strike: int,
                  sweep_index: int) -> ev.Side:
    opts = state.options
    decl = ranked.declaration(state, who.key)
    weapon = c.weapon
    if weapon is None and strike == 2 and who.fighter.sheet.off_hand is not None:
        weapon = "off-hand"
    if weapon == "off-hand" and who.fighter.sheet.off_hand is None:
        raise RuleError(f"{who.name} has no off-hand weapon on the sheet (AI-MULTI-ATK)")
    if weapon == "unarmed":
        trait, level = skill_like(who, "unarmed", "Unarmed", state)
    else:
        combat = who.fighter.sheet.combat
        trait, level, _ = who.fighter.trait(combat.attack if combat else "Brawling", opts)
    mods = wound_penalty(state, who) + unbalanced(state, who)
    posture = decl.posture or 0
    if posture:
        mods.append(ev.Modifier(name=f"posture: {POSTURE_NAME[posture]}", value=posture))
    if decl.wait:
        mods.append(ev.Modifier(name="hurrying" if decl.wait > 0 else "waiting", value=WAIT_TABLE[decl.wait][0]))
    if decl.hasty:
        mods.append(ev.Modifier(name="hasty attack", value=opts.hasty_penalty))
    if weapon == "off-hand" and not any(g.lower() == "ambidextrous" for g in who.fighter.sheet.gifts):
        mods.append(ev.Modifier(name="off hand", value=opts.off_hand_penalty))
    for place in c.position:
        mods.append(ev.Modifier(name=f"position: {place}", value=OFFENCE_POSITION[place]))
    if sweep_index:
        mods.append(ev.Modifier(name=f"multi-strike foe {sweep_index}", value=opts.sweep_penalty * sweep_index))
    if c.mod:
        mods.append(ev.Modifier(name="GM modifier", value=c.mod))
    return ev.Side(combatant=who.name, trait=trait, level=level, roll=None, modifiers=tuple(mods), result=None,
                   declaration=decl, weapon=weapon)


def avoidance_side(state: FightState, c: Attack, who: Combatant, kind: str) -> ev.Side:
    decl = ranked.declaration(state, who.key)
    if kind == "dodge":
        trait, level = skill_like(who, "dodge", "Dodge", state)
    else:
        combat = who.fighter.sheet.combat
        trait, level = skill_like(who, "parry", (combat.defend or combat.attack) if combat else "Brawling", state)
    mods = wound_penalty(state, who) + unbalanced(state, who)
    posture = decl.posture or 0
    if posture:
        mods.append(ev.Modifier(name=f"posture: {POSTURE_NAME[posture]}", value=-posture))
    if decl.wait:
        mods.append(ev.Modifier(name="hurrying" if decl.wait > 0 else "waiting", value=WAIT_TABLE[decl.wait][1]))
    if decl.hasty:
        mods.append(ev.Modifier(name="hasty attack", value=state.options.hasty_penalty))
    if c.target_back:
        mods.append(ev.Modifier(name="back to enemy", value=BACK_TO_ENEMY[kind]))
    if c.ranged:
        what = "shield" if (kind == "parry" and who.fighter.sheet.shield) else kind
        mildest, harshest = RANGED_AVOIDANCE[(c.ranged, what)]
        value = mildest if c.ranged_mod is None else c.ranged_mod
        if not harshest <= value <= mildest:
            raise RuleError(f"a {what} against a {c.ranged} missile is {mildest:+d}..{harshest:+d} (AI-RNG-2)")
        if value:
            mods.append(ev.Modifier(name=f"{what} vs {c.ranged} missile", value=value))
    if c.defense_mod:
        mods.append(ev.Modifier(name="GM defense modifier", value=c.defense_mod))
    return ev.Side(combatant=who.name, trait=trait, level=level, roll=None, modifiers=tuple(mods), result=None,
                   declaration=decl)


def no_avoidance(who: Combatant, baseline: int) -> ev.Side:
    """AI-ATK-3: no avoidance: the blow is compared with Poor (or a ranged difficulty)."""
    return ev.Side(combatant=who.name, trait=NO_AVOIDANCE, level=baseline, roll=0, modifiers=(), result=baseline,
                   offense=baseline, defense=baseline, declaration=ev.Declaration())


def attack(state: FightState, c: Attack, dice: Dice) -> list[ev.Event]:
    """AI-ATK-1, AI-ATK-2, AI-ATK-3 (and AI-SWEEP, AI-MULTI-ATK, AI-MULTI-AVD, AI-RNG, AI-POS): one attack command."""
    if c.stun or c.pull is not None or c.head:
        raise RuleError("stun, pulled and head blows (F-STUN) are Fudge rules; Atari Isev blows wound (AI-DMG-1)")
    attacker = combatant(state, c.attacker)
    if not (track := ranked.slot_track(state, attacker)).can_act:
        raise RuleError(track.unable(attacker.name))
    targets = [combatant(state, c.target)] + [combatant(state, n) for n in c.targets]
    if state.options.initiative in ranked.SYSTEMS:
        check_turn(state, attacker)
    elif state.options.initiative in ("phases-classic", "phases-crunch"):
        check_turn(state, attacker, targets[0])  # F-INIT-4: Atari Isev blows in phase order
    decl = ranked.declaration(state, attacker.key)
    if decl.two_avoidances:
        raise RuleError(f"{attacker.name} declared two avoidances and surrendered the attack (AI-MULTI-AVD)")
    if c.targets and not decl.sweep:
        raise RuleError("several targets need a multi-strike declared at round start (`declare NAME --sweep`)")
    if any(t.key == attacker.key for t in targets):
        raise RuleError("a fighter cannot attack itself")
    if len({t.key for t in targets}) < len(targets):
        raise RuleError("a multi-strike strikes each foe once: name every foe once (AI-SWEEP)")
    if c.targets_avoid and len(c.targets_avoid) != len(c.targets):
        raise RuleError(f"give one avoidance for every foe of the multi-strike ({len(targets)}), or one for all")
    avoids = (c.avoid, *(c.targets_avoid or (None,) * len(c.targets)))
    strike = ranked.current_strike(state) if state.options.initiative in ranked.SYSTEMS else 1
    out: list[ev.Event] = []
    for index, target in enumerate(targets):
        blow = one_blow(state, replace(c, avoid=avoids[index]), attacker, target, strike,
                        index + 1 if decl.sweep else 0, state.last_seq + len(out) + 1, dice)
        out += blow
        resolved = next(e for e in blow if isinstance(e, ev.ExchangeResolved))
        if decl.sweep and not resolved.hits:
            break  # AI-SWEEP: the first miss ends the sweep
    return out


def one_blow(state: FightState, c: Attack, attacker: Combatant, target: Combatant, strike: int,
             sweep_index: int, action: int, dice: Dice) -> list[ev.Event]:
    """One attack roll against the target's avoidance (AI-ATK-1, AI-ATK-2, AI-ATK-3).

    Readings: without an avoidance (used, surrendered, `--avoid none`, unaware)
    the blow is compared with Poor; a ranged attack with
    a GM difficulty (AI-RNG-1) is compared with that difficulty instead, which
    is then also the least result that hits (default Fair when none is given).
    The target's avoidance defaults to the sheet's defence (dodge if its name
    says so, else parry) while one is left.
    AI-SWEEP: the sweeper surrendered his own avoidance (avoidance_budget);
    each foe he strikes keeps its free one. Fights recorded before the option
    `sweep_foes_avoid` read it the other way (foes hit on Poor) and replay so.
    """
    opts = state.options
    tdecl = ranked.declaration(state, target.key)
    left = avoidance_budget(tdecl) - avoidances_used(state, target)
    unable = c.unaware or not ranked.slot_track(state, target).can_act
    foe_bare = bool(sweep_index) and not opts.sweep_foes_avoid  # the reading of fights recorded before
    wanted: str | None = c.avoid
    if wanted is None:
        wanted = "none" if (left <= 0 or unable or foe_bare) else default_avoidance(target, tdecl)
    if wanted != "none":
        if unable:
            raise RuleError(f"{target.name} is unaware or unable and cannot avoid: attack with --avoid none")
        if foe_bare:
            raise RuleError("this fight's multi-strike hits its foes on Poor (option sweep_foes_avoid = false, "
                            "AI-SWEEP): use --avoid none")
        if left <= 0:
            why = "surrendered it this round" if avoidance_budget(tdecl) == 0 else "already used it this round"
            raise RuleError(f"{target.name} has no avoidance left ({why}, AI-ATK-1): attack with --avoid none")
        if wanted == "dodge-parry" and tdecl.two_avoidances != "dodge-parry":
            raise RuleError("a dodge-parry against one blow needs `--two-avoidances dodge-parry` declared (AI-MULTI-AVD)")
        if wanted == "dodge-parry" and left < 2:
            raise RuleError(f"{target.name} has one avoidance left: --avoid dodge or --avoid parry")
        pair = {"dodge-dodge": ("dodge",), "parry-parry": ("parry",)}.get(tdecl.two_avoidances or "")
        if pair and wanted not in pair:
            raise RuleError(f"{target.name} declared {tdecl.two_avoidances}: avoid with --avoid {pair[0]}")
    scale_min = min_hit_for(state, attacker, target, c.min_hit)
    if c.ranged and (c.difficulty is not None or wanted == "none"):
        baseline = c.difficulty if c.difficulty is not None else opts.default_difficulty
        least = baseline  # AI-RNG-1: meeting the GM's difficulty hits
    else:
        baseline = c.difficulty if (c.unaware and c.difficulty is not None) else opts.min_hit
        least = scale_min
    sides = [attacker_side(state, c, attacker, target, strike, sweep_index)]
    kinds = ("dodge", "parry") if wanted == "dodge-parry" else (wanted,)
    if wanted == "none":
        sides.append(no_avoidance(target, baseline))
    else:
        sides += [avoidance_side(state, c, target, kind) for kind in kinds]
    rolled = []
    for index, side in enumerate(sides):
        if side.trait == NO_AVOIDANCE:
            continue
        rolled.append(roll_event(action, side.combatant, side.trait, 4, dice))
        sides[index] = with_roll(side, sum(rolled[-1].faces))
    settled = settle_attack(state, "attack", sides, (least, least), damage_roller(action, dice))
    why = ("surrendered" if avoidance_budget(tdecl) == 0 else "used") if (wanted == "none" and c.avoid is None
                                                                         and not unable and not foe_bare) else wanted
    resolved = ev.ExchangeResolved(action=action, kind="attack", round=state.round, sides=tuple(sides),
                                   min_hit=(least, least), outcome=settled.outcome, hits=settled.hits,
                                   avoidance=why, strike=sweep_index or strike)
    return rolled + list(settled.damage_rolls) + [resolved] + wound_events(action, settled.hits)


def default_avoidance(target: Combatant, decl: ev.Declaration) -> str:
    if decl.two_avoidances == "dodge-dodge":
        return "dodge"
    if decl.two_avoidances == "parry-parry":
        return "parry"
    combat = target.fighter.sheet.combat
    wanted = (combat.defend or "") if combat else ""
    return "dodge" if "dodge" in wanted.lower() else "parry"


def heroic(state: FightState, c: HeroicAvoidance, dice: Dice) -> list[ev.Event]:
    """AI-HEROIC: the wound just taken drops one class; Agility vs Fair: -2 next round, or prone on a failure."""
    who = combatant(state, c.combatant)
    if who.track.dead:
        raise RuleError(f"{who.name} is Dead: no heroic avoidance (AI-HEROIC)")
    target = c.target if c.target is not None else latest(state, who, True)
    mark = state.events.get(target)
    if not isinstance(mark, ev.WoundMarked) or mark.combatant.lower() != who.key:
        raise RuleError(f"event {target} is not a wound {who.name} took")
    rolled_with = f"Agility (heroic avoidance, blow {mark.action})"
    if ("heroic", rolled_with) in state.index:
        raise RuleError(f"{who.name} already rolled with that blow (AI-HEROIC)")
    action = next_action(state)
    out: list[ev.Event] = [ev.EventsVoided(seqs=(target,), reason=f"{who.name} rolls with the blow (AI-HEROIC)")]
    lower = heroic_level(mark.level)
    if lower > UNDAMAGED:
        out.append(ev.WoundMarked(action=mark.action, combatant=who.name, level=lower, damage=mark.damage))
    level = who.fighter.trait("Agility", state.options)[1]
    marks = tuple(m for m in who.marks if m.seq != target) + ((Mark(lower, state.last_seq + 1),) if lower else ())
    after = replace(who, marks=marks, track=build_track(who.boxes, marks, state.options))
    mods = tuple(wound_penalty(replace(state, turn=None), after))  # the lighter wound weighs on the roll
    rolled = roll_event(action, who.name, rolled_with, 4, dice)
    outcome = settle_roll(who.name, rolled_with, level, sum(rolled.faces), mods,
                               {"difficulty": state.options.heroic_difficulty}, False, action)
    out += [rolled, outcome]
    if outcome.success:
        out.append(ev.AdvantageGained(combatant=who.name, over=who.name, modifier=state.options.heroic_penalty,
                                      round=state.round + 1))
    return out
