"""F-MULTI: a lone fighter against several foes in one simultaneous round (001 4.3.4).

Readings taken where the text leaves room:
- A foe's shield (F-MOD-3) and weapon size (F-MOD-4) change the lone
  fighter's result against that foe only; each comparison records them.
- An ignored foe (F-MULTI-5) attacks an undefended fighter: as in F-MEL-3 his
  result is compared with the unaware difficulty (default Poor) and hits when
  it beats it. Ignored foes still count for the -1 per extra foe.
- `--target` names the foe the lone fighter means to hit, before the roll; if
  he cannot wound that foe he wounds nobody. Without it he hits the foe he
  may wound that he beat by most (the first named, on a tie).
- A sweeping blow (F-MULTI-4) strikes the target at full damage, then each
  foe named with `--sweep` that he may also wound, in the order given, with
  -1 (or -2, GM input) damage more for each foe already cut through.
- NPCs are sheets of kind "npc"; major NPCs roll like PCs. With both
  `npc_static` and `npc_group_roll` on, a static NPC does not roll at all.
- Under postures (F-TAC-4) his offense meets each foe's defense and each foe's
  offense meets his defense (both counting that foe's shield and weapon size).
- All-out declarations keep their skill modifiers; an all-out defender cannot
  wound, an all-out attacker who hits adds the damage bonus. The F-MOD-6 tie
  rule belongs to a duel and is not applied between a lone fighter and a foe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from msgspec.structs import replace as with_fields

from fudge_combat.engine.rulesets.fudge.declarations import declarations_after, reveal_events, round_events
from fudge_combat.engine.rulesets.fudge.reresolve import Spent, earlier_rolls, fresh_rolls, reresolve
from fudge_combat.engine.rulesets.fudge.rolls import DamageDice, damage_roller, roll_event
from fudge_combat.engine.rulesets.fudge.settle import make_hit, min_hit_for, wound_events
from fudge_combat.engine.rulesets.fudge.sides import NO_DECLARATION, able, shield_value, side_for, with_roll
from fudge_combat.engine.rulesets.fudge.story import STORY_ONLY
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.melee_mods import check_magic, is_static_npc, magic_modifiers, plus_modifiers, weapon_size_modifiers
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Action, Combatant, FightState, replace

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import Melee


def foe_modifiers(state: FightState, lone: Combatant, foe: Combatant) -> tuple[ev.Modifier, ...]:
    """What one foe alone changes in the lone fighter's result: his shield, the weapon sizes."""
    mods = []
    shield, value = foe.fighter.sheet.shield, shield_value(foe, state.options)
    if shield is not None and value:
        mods.append(ev.Modifier(name=f"{foe.name}'s {shield.size} shield", value=-value))
    mods += weapon_size_modifiers(state, lone, foe)
    return tuple(mods)


def _checked(state: FightState, c: Melee) -> tuple[Combatant, list[Combatant], int]:
    opts = state.options
    if opts.pace == "story":
        raise RuleError(STORY_ONLY)
    if opts.pace != "simultaneous":
        raise RuleError(f"a lone fighter's melee against several foes is a simultaneous round (F-MULTI-2); "
                        f"this fight's pace is {opts.pace}: use `fudge attack` for each foe")
    lone = able(state, c.lone)
    foes = [able(state, name) for name in c.foes]
    if not foes:
        raise RuleError("name at least one foe: fudge melee LONE FOE [FOE...]")
    keys = [f.key for f in foes]
    if len(set(keys)) != len(keys):
        raise RuleError("a foe is named twice")
    if lone.key in keys:
        raise RuleError(f"{lone.name} cannot be his own foe")
    for foe in foes:
        if foe.side == lone.side:
            raise RuleError(f"{foe.name} is on {lone.name}'s side ({lone.side}): not a foe")
    limit = opts.max_foes if c.max_foes is None else c.max_foes
    if not 1 <= limit <= opts.max_foes:
        raise RuleError(f"--max-foes is 1..{opts.max_foes} (F-MULTI-6: room to swing, a doorway)")
    if len(foes) > limit:
        raise RuleError(f"at most {limit} foes can attack {lone.name} at once (F-MULTI-6); "
                        f"{len(foes)} were named: leave some out of this round")
    named = set(keys)
    for name in (*c.ignore, *c.sweep, *((c.target,) if c.target else ())):
        if name.lower() not in named:
            raise RuleError(f"{name} is not one of {lone.name}'s foes in this melee")
    ignored = {n.lower() for n in c.ignore}
    if ignored == named:
        raise RuleError("every foe is ignored: the lone fighter must face at least one (F-MULTI-5)")
    if c.target and c.target.lower() in ignored:
        raise RuleError(f"{c.target} is ignored: the chosen foe must be one he fights (F-MULTI-5)")
    if c.sweep:
        if not opts.sweeping_blow:
            raise RuleError("sweeping blows are off in this fight (F-MULTI-4: option sweeping_blow)")
        if not c.target:
            raise RuleError("a sweeping blow starts at a chosen foe: give --target FOE too (F-MULTI-4)")
        swept = [n.lower() for n in c.sweep]
        if c.target.lower() in swept or len(set(swept)) != len(swept):
            raise RuleError("--sweep names each other foe once, not the --target")
        if ignored & set(swept):
            raise RuleError("a sweeping blow cannot cut through a foe he ignores (F-MULTI-5)")
    if not 1 <= c.sweep_penalty <= 2:
        raise RuleError("--sweep-penalty is 1 or 2 damage per foe cut through (F-MULTI-4)")
    check_magic(c.magic, [lone, *foes])
    for name, value in c.foe_mods:
        if name.lower() not in named:
            raise RuleError(f"--foe-mod {name}={value:+d}: {name} is not one of {lone.name}'s foes in this melee")
    return lone, foes, limit


def decide_melee(state: FightState, c: Melee, dice: Dice) -> list[ev.Event]:
    """F-MULTI-1, F-MULTI-2, F-MULTI-3, F-MULTI-4, F-MULTI-5, F-MULTI-6, F-MULTI-7, F-NPC-1: one roll for
    the lone fighter, compared with each foe's result."""
    opts = state.options
    lone, foes, limit = _checked(state, c)
    everyone = [lone, *foes]
    out: list[ev.Event] = round_events(state, [w.name for w in everyone])
    out += reveal_events(state, c.reveals)
    revealed = {r.combatant.lower() for r in c.reveals}
    if any(k in state.sealed and k not in revealed for k in (w.key for w in everyone)):
        raise RuleError("a sealed declaration must be revealed before the blow (A-SEAL-1)")
    new_round = bool(out) and isinstance(out[0], ev.RoundStarted)
    declared = declarations_after(state, c.reveals, fresh=new_round)
    action = state.last_seq + len(out) + 1

    now = replace(state, round=state.round + 1) if new_round else state  # what this round's penalties see (F-STUN-1)
    lone_side = side_for(now, lone, None, "attack", declared.get(lone.key, NO_DECLARATION), c.mod)
    extra = len(foes) - 1
    penalty = [ev.Modifier(name=f"{extra} foe(s) beyond the first", value=-extra * opts.multi_penalty)] \
        if extra and opts.multi_penalty else []
    number = state.round + new_round
    lone_side = with_fields(lone_side, modifiers=lone_side.modifiers + tuple(penalty)
                            + tuple(magic_modifiers(c.magic, lone)) + tuple(plus_modifiers(lone, lone_side.trait, number)))
    foe_sides = []
    for foe in foes:
        side = side_for(now, foe, lone, "attack", declared.get(foe.key, NO_DECLARATION), 0)
        gm = tuple(ev.Modifier(name="GM modifier", value=v) for n, v in c.foe_mods if n.lower() == foe.key and v)
        foe_sides.append(with_fields(side, modifiers=side.modifiers + gm + tuple(magic_modifiers(c.magic, foe))
                                                 + tuple(plus_modifiers(foe, side.trait, number))))

    rolled: list[ev.DiceRolled] = []
    if is_static_npc(state, lone):
        lone_side = with_roll(lone_side, 0)
    else:
        rolled.append(roll_event(action, lone.name, lone_side.trait, 4, dice))
        lone_side = with_roll(lone_side, sum(rolled[-1].faces))
    group: int | None = None
    grouped = [f.fighter.sheet.kind == "npc" and not is_static_npc(state, f) for f in foes]
    if opts.npc_group_roll and any(grouped):
        rolled.append(roll_event(action, "GM", "NPC group roll (F-MULTI-7)", 2, dice))
        group = sum(rolled[-1].faces)
    for index, (foe, side) in enumerate(zip(foes, foe_sides)):
        if is_static_npc(state, foe):
            foe_sides[index] = with_roll(side, 0)
        elif group is not None and grouped[index]:
            foe_sides[index] = with_roll(side, group)
        else:
            rolled.append(roll_event(action, foe.name, side.trait, 4, dice))
            foe_sides[index] = with_roll(side, sum(rolled[-1].faces))

    ignored = {n.lower() for n in c.ignore}
    min_hits = tuple(min_hit_for(state, lone, foe, c.min_hit) for foe in foes)
    comparisons = compare(state, lone, lone_side, foes, foe_sides, ignored, min_hits)
    hits, damage_rolls, target = strike(state, c.target, c.sweep, c.sweep_penalty, lone, lone_side, foes,
                                        foe_sides, comparisons, damage_roller(action, dice))
    resolved = ev.MeleeResolved(
        action=action, round=state.round + new_round, lone=lone_side, foes=tuple(foe_sides),
        comparisons=comparisons, target=target, sweep=tuple(state.combatants[n.lower()].name for n in c.sweep),
        sweep_penalty=c.sweep_penalty if c.sweep else 0, max_foes=limit, min_hit=min_hits, group_roll=group,
        outcome=describe_melee(lone.name, comparisons, hits), hits=hits, target_named=c.target is not None)
    marks = wound_events(action, hits, state, [lone_side, *foe_sides], new_round, dice=dice)
    return out + rolled + damage_rolls + [resolved] + marks


def _results(side: ev.Side, postures: bool) -> tuple[int, int]:
    """A rolled side's (offense, defense): under postures the two its posture splits (F-TAC-4), else its result twice."""
    offense, defense = (side.offense, side.defense) if postures else (side.result, side.result)
    assert offense is not None and defense is not None, "a side is compared once rolled"
    return offense, defense


def compare(state: FightState, lone: Combatant, lone_side: ev.Side, foes: Sequence[Combatant],
            foe_sides: Sequence[ev.Side], ignored: set[str], min_hits: Sequence[int]) -> tuple[ev.Comparison, ...]:
    """F-MULTI-2, F-MULTI-3, F-MULTI-5 (with F-TAC-4 under postures): each foe's result against the lone fighter's;
    who hits, whom he may wound.

    Under postures his offense meets each foe's defense (whether he may wound) and each foe's offense
    meets his defense (whether that foe hits him).
    """
    postures = state.options.tactics == "postures"
    offense, defense = _results(lone_side, postures)
    rows = []
    for foe, side in zip(foes, foe_sides):
        attack, theirs = _results(side, postures)
        mods = foe_modifiers(state, lone, foe)
        shift = sum(m.value for m in mods)
        mine = offense + shift
        rd = mine - theirs
        guard = defense + shift
        skip = foe.key in ignored
        foe_rd = attack - (state.options.unaware_difficulty if skip else guard)
        foe_least = min_hit_for(state, foe, lone, None)
        can_harm = side.declaration.all_out != "defense"
        hits = can_harm and foe_rd >= 1 and attack >= foe_least
        rows.append(ev.Comparison(foe=foe.name, lone_result=mine, lone_modifiers=mods, foe_result=theirs,
                                  relative_degree=rd, ignored=skip, foe_hits=hits, foe_relative_degree=foe_rd))
    faced = [r for r in rows if not r.ignored]
    if lone_side.declaration.all_out == "defense" or any(r.relative_degree < 0 for r in faced):
        return tuple(rows)  # F-MULTI-3: he must beat or tie every foe he faces to wound one
    tied = any(r.relative_degree == 0 for r in faced)
    need = 2 if tied else 1
    return tuple(with_fields(r, may_wound=not r.ignored and r.relative_degree >= need
                                      and r.lone_result >= least)
                 for r, least in zip(rows, min_hits))


def strike(state: FightState, named: str | None, sweep: Sequence[str], sweep_penalty: int, lone: Combatant,
           lone_side: ev.Side, foes: Sequence[Combatant], foe_sides: Sequence[ev.Side],
           comparisons: Sequence[ev.Comparison],
           damage_dice: DamageDice) -> tuple[tuple[ev.Hit, ...], list[ev.DiceRolled], str | None]:
    """F-MULTI-2, F-MULTI-3, F-MULTI-4: every foe who hits wounds him (each a separate mark); he wounds his
    chosen foe(s)."""
    opts = state.options
    by_key = {f.key: (f, s, r) for f, s, r in zip(foes, foe_sides, comparisons)}
    eligible = [r for r in comparisons if r.may_wound]
    if named:
        target = by_key[named.lower()][0].name
    elif eligible:
        target = max(eligible, key=lambda r: r.relative_degree).foe  # max keeps the first of equals
    else:
        target = None
    hits: list[ev.Hit] = []
    rolls: list[ev.DiceRolled] = []
    bonus = opts.all_out_offense_damage if lone_side.declaration.all_out == "offense" else 0
    if target is not None and by_key[target.lower()][2].may_wound:
        struck = [target] + [n for n in sweep if by_key[n.lower()][2].may_wound]
        for through, name in enumerate(struck):
            foe, foe_side, row = by_key[name.lower()]
            hit, roll = make_hit(state, lone, foe, row.relative_degree, bonus - through * sweep_penalty, damage_dice,
                                 lone_side.roll, foe_side.roll)
            hits.append(hit)
            rolls += roll
    for foe, side, row in zip(foes, foe_sides, comparisons):
        if row.foe_hits:
            rd = row.foe_relative_degree if row.foe_relative_degree is not None else -row.relative_degree
            foe_bonus = opts.all_out_offense_damage if side.declaration.all_out == "offense" else 0
            hit, roll = make_hit(state, foe, lone, rd, foe_bonus, damage_dice, side.roll,
                                 None if row.ignored else lone_side.roll)
            hits.append(hit)
            rolls += roll
    return tuple(hits), rolls, target


def describe_melee(lone: str, comparisons: Sequence[ev.Comparison], hits: Sequence[ev.Hit]) -> str:
    parts = []
    for row in comparisons:
        if row.ignored:
            parts.append(f"{row.foe} ignored")
        else:
            verb = "beats" if row.relative_degree > 0 else "ties" if row.relative_degree == 0 else "loses to"
            parts.append(f"{lone} {verb} {row.foe} ({row.relative_degree:+d})")
    blows = [f"{h.attacker} {'grazes' if h.graze else 'hits'} {h.defender}: "
             f"{LEVELS[h.level] if h.level else 'no wound'}" for h in hits]
    return "; ".join(parts) + " → " + ("; ".join(blows) if blows else "nobody is hit")


def reresolve_melee(state: FightState, spent: Spent, dice: Dice) -> list[ev.Event]:
    """C-FP-2 on a melee roll: skill (or a CT-SPARE spare die) shifts, luck rerolls the spender's roll;
    the melee is decided again."""
    if spent.roll.purpose == "damage":
        raise RuleError("spend on the action roll, not on a damage roll; spend on the blow (scratch, ticking) "
                        "to change a wound")
    return reresolve(state, spent, dice, resettle_melee)


def resettle_melee(state: FightState, record: Action, spent: Spent, new_roll: int | None,
                   voids: list[int], dice: Dice) -> list[ev.Event]:
    """The melee decided again from the changed side.

    The foes, the named target, the sweep and the ignored foes stand as declared; a target the
    rule chose is chosen again. Damage rolls already made are reused by the same striker.
    """
    resolution: ev.MeleeResolved = state.events[record.resolution]
    sides = [resolution.lone, *resolution.foes]
    index = next(i for i, side in enumerate(sides) if side.combatant.lower() == spent.who.key)
    side = sides[index]
    side = with_fields(side, modifiers=spent.shifted(side.modifiers))
    sides[index] = with_roll(side, new_roll if new_roll is not None else side.roll or 0)
    lone = state.combatants[resolution.lone.combatant.lower()]
    foes = [state.combatants[f.combatant.lower()] for f in resolution.foes]
    ignored = {r.foe.lower() for r in resolution.comparisons if r.ignored}
    comparisons = compare(state, lone, sides[0], foes, sides[1:], ignored, resolution.min_hit)
    old_damage = earlier_rolls(state, record, damage=True)
    hits, damage_rolls, chosen = strike(state, resolution.target if resolution.target_named else None,
                                        resolution.sweep, resolution.sweep_penalty, lone, sides[0], foes, sides[1:],
                                        comparisons, damage_roller(record.action, dice, old_damage))
    new = with_fields(resolution, lone=sides[0], foes=tuple(sides[1:]), comparisons=comparisons, target=chosen,
                      hits=hits, outcome=describe_melee(lone.name, comparisons, hits), supersedes=record.resolution)
    marks = wound_events(record.action, hits, state, sides, False, voids, dice, earlier_rolls(state, record, False))
    return [*fresh_rolls(damage_rolls, old_damage), new, *marks]
