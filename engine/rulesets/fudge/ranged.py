"""F-RNG-1, F-RNG-2, F-RNG-3, F-RNG-4, F-RNG-5: ranged combat (Fudge 4.4).

The GM's difficulty holds range, light and cover; the shooter's skill is not
modified for them (F-RNG-1), only for what the shooter brings: wounds, a
shield on the target (F-MOD-3, ranged values), a GM modifier for equipment.

Readings taken (the text leaves them open):
- The relative degree of an unopposed shot is its margin over the
  difficulty (C-ACT-2). A shot that exactly makes the difficulty hits with
  the narrowest win there is: it is read as a graze (RD +1), like a margin of 1.
- A shield counts against a shot only when its bearer knows of it (aware,
  or shooting back); an unaware target does not raise it.
- Automatic fire (F-RNG-5): bullets on target = burst x RD / 8, rounded down,
  at least one and at most the burst. They make ONE blow at the shot's RD
  (the text's "medium result" instead of a roll per bullet), with a damage
  bonus outside the factor (GM input `burst_bonus`; default: one per
  doubling of the bullets, 1 -> +0, 2-3 -> +1, 4-7 -> +2, ...). Like any
  such bonus it raises a graze one level (F-GRAZE-3). The burst is the
  shooter's: a target shooting back fires single shots.
- All-out declarations are melee stances (F-MOD-6, F-MOD-7): a shot ignores them.
"""

from __future__ import annotations

from typing import Literal, TYPE_CHECKING

from msgspec.structs import replace as with_fields

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.phase_order import check_turn
from fudge_combat.engine.rulesets.fudge.wounding import RollDamage, strike
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events import structs as ev
from fudge_combat.engine.rulesets.fudge.declarations import round_events
from fudge_combat.engine.rulesets.fudge.reresolve import Spent, earlier_rolls, fresh_rolls, reresolve
from fudge_combat.engine.rulesets.fudge.rolls import damage_roller, roll_event
from fudge_combat.engine.rulesets.fudge.settle import wound_events
from fudge_combat.engine.rulesets.fudge.sides import SHIELD_SIZES, able, combatant, with_roll, wound_modifiers
from fudge_combat.engine.kernel.state import Action, Combatant, FightState

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import Shoot

GRAZE = 1


def bullets_on_target(burst: int, relative_degree: int) -> int:
    """F-RNG-5: the fraction RD/8 of the burst hits (RD +8 or more: all of it), at least one bullet."""
    return max(1, min(burst, burst * relative_degree // 8))


def burst_bonus(bullets: int) -> int:
    """F-RNG-5 (our reading): a slight damage bonus, one per doubling of the bullets on target."""
    return bullets.bit_length() - 1


def ranged_trait(who: Combatant, given: str | None) -> str:
    combat = who.fighter.sheet.combat
    return given or (combat.ranged or combat.attack if combat else "Brawling")


def dodge_trait(who: Combatant, given: str | None) -> str:
    """F-RNG-2: the defender's Dodge, or Agility without one."""
    combat = who.fighter.sheet.combat
    if given:
        return given
    if combat and combat.dodge:
        return combat.dodge
    if any(name.lower() == "dodge" for name in who.fighter.skills):
        return "Dodge"
    return "Agility"


def shooter_side(state: FightState, who: Combatant, target: Combatant, skill: str | None, mod: int,
                 shield_counts: bool) -> ev.Side:
    opts = state.options
    trait, level, _ = who.fighter.trait(ranged_trait(who, skill), opts)
    mods = wound_modifiers(who, opts)
    shield = target.fighter.sheet.shield
    if shield_counts and shield is not None:
        value = opts.ranged_shield_values[SHIELD_SIZES.index(shield.size)]
        if value:
            mods.append(ev.Modifier(name=f"{target.name}'s {shield.size} shield (ranged)", value=-value))
    if mod:
        mods.append(ev.Modifier(name="GM modifier", value=mod))
    return ev.Side(combatant=who.name, trait=trait, level=level, roll=None, modifiers=tuple(mods), result=None)


def weapon_kind(who: Combatant, given: Literal["thrown", "propelled"] | None) -> Literal["thrown", "propelled"]:
    """F-RNG-2: thrown or propelled, from the command or the sheet's weapon."""
    weapon = who.fighter.sheet.weapon
    kind = given or (weapon.ranged if weapon else None) or (
        "propelled" if weapon is not None and not weapon.muscle_powered else None)
    if kind is None:
        raise RuleError(f"is {who.name}'s weapon thrown or propelled (F-RNG-2)? add --thrown or --propelled, "
                        "or `ranged = \"thrown\"` to the sheet's weapon")
    return kind


def shoot(state: FightState, c: Shoot, dice: Dice) -> list[ev.Event]:
    """F-RNG-1 unaware, F-RNG-2 aware (a dodge), F-RNG-3 shooting back; F-RNG-4 guns, F-RNG-5 bursts."""
    opts = state.options
    shooter, target = able(state, c.shooter), combatant(state, c.target)
    if shooter.key == target.key:
        raise RuleError("a fighter cannot shoot itself")
    if c.aware and c.shoot_back:
        raise RuleError("a target who shoots back does not dodge (F-RNG-3): give --aware or --shoot-back, not both")
    if c.shoot_back and not target.track.can_act:
        raise RuleError(f"{target.name} cannot act, so cannot shoot back (F-WND-1)")
    if c.back_difficulty is not None and not c.shoot_back:
        raise RuleError("--back-difficulty is the target's difficulty when it shoots back: add --shoot-back")
    if c.burst is not None and c.burst < 1:
        raise RuleError("--burst is the most bullets that can hit this round (at least 1)")
    if c.burst_bonus is not None and c.burst is None:
        raise RuleError("--burst-bonus goes with automatic fire: add --burst N")
    if c.weapon is not None and not c.aware:
        raise RuleError("thrown or propelled only changes a dodge (F-RNG-2): add --aware, or leave it out")
    if opts.initiative != "none":  # a shot is an attack: in a turn order it is the shooter's action
        check_turn(state, shooter, target)
    if c.aware and not target.track.can_act:
        raise RuleError(f"{target.name} cannot act, so cannot dodge: shoot without --aware (F-RNG-1)")
    out: list[ev.Event] = round_events(state, [shooter.name, target.name])
    action = state.last_seq + len(out) + 1
    difficulty = c.difficulty if c.difficulty is not None else opts.default_difficulty
    mode: Literal["unaware", "aware", "shoot_back"] = (
        "shoot_back" if c.shoot_back else "aware" if c.aware else "unaware")
    kind = weapon_kind(shooter, c.weapon) if c.aware else None

    sides = [shooter_side(state, shooter, target, c.skill, c.mod, mode != "unaware")]
    difficulties = [difficulty]
    if mode == "aware":
        trait, level, _ = target.fighter.trait(dodge_trait(target, c.dodge), opts)
        mods = wound_modifiers(target, opts)
        if kind == "propelled" and opts.propelled_dodge_penalty:
            mods.append(ev.Modifier(name="dodging a propelled weapon", value=opts.propelled_dodge_penalty))
        if c.defense_mod:
            mods.append(ev.Modifier(name="GM defense modifier", value=c.defense_mod))
        sides.append(ev.Side(combatant=target.name, trait=trait, level=level, roll=None, modifiers=tuple(mods),
                             result=None))
    elif mode == "shoot_back":
        sides.append(shooter_side(state, target, shooter, None, c.defense_mod, True))
        difficulties.append(c.back_difficulty if c.back_difficulty is not None else difficulty)

    rolled = []
    for index, side in enumerate(sides):
        rolled.append(roll_event(action, side.combatant, side.trait, 4, dice))
        sides[index] = with_roll(side, sum(rolled[-1].faces))
    unsettled = ev.ShotResolved(action=action, round=state.round + len(out), mode=mode,
                                weapon=kind, target=target.name, sides=tuple(sides),
                                difficulties=tuple(difficulties), outcome="", hits=(),
                                burst=c.burst, burst_bonus=c.burst_bonus)
    resolved, damage_rolls = settle_shot(state, unsettled, damage_roller(action, dice))
    return out + rolled + damage_rolls + [resolved] + wound_events(
        action, resolved.hits, state, resolved.sides, resolved.round > state.round, dice=dice)


def settle_shot(state: FightState, shot: ev.ShotResolved,
                roller: RollDamage) -> tuple[ev.ShotResolved, list[ev.DiceRolled]]:
    """Who hits whom, from the rolled sides (F-RNG-1, F-RNG-2, F-RNG-3), and how hard (F-RNG-4, F-RNG-5, `strike`)."""
    sides, difficulties = shot.sides, shot.difficulties
    shooter = sides[0].combatant.lower()
    # (attacker, defender, relative degree, attacker's and defender's dice totals, for parity)
    directions: list[tuple[str, str, int, int | None, int | None]] = []
    first = sides[0]
    assert first.result is not None
    if shot.mode == "aware":
        assert sides[1].result is not None
        rd = first.result - sides[1].result
        if rd >= 1 and first.result >= difficulties[0]:
            directions.append((first.combatant, sides[1].combatant, rd, first.roll, sides[1].roll))
    else:
        for index, side in enumerate(sides):
            assert side.result is not None
            if side.result >= difficulties[index]:
                foe = shot.target if index == 0 else first.combatant
                margin = side.result - difficulties[index]
                directions.append((side.combatant, foe, max(margin, GRAZE), side.roll, None))
    hits: list[ev.Hit] = []
    damage_rolls: list[ev.DiceRolled] = []
    for att_name, dfd_name, rd, attack_roll, defense_roll in directions:
        att, dfd = state.combatants[att_name.lower()], state.combatants[dfd_name.lower()]
        extra: dict[str, int | None] = {}
        bonus = 0
        if shot.burst is not None and att.key == shooter:
            bullets = bullets_on_target(shot.burst, rd)
            bonus = shot.burst_bonus if shot.burst_bonus is not None else burst_bonus(bullets)
            extra = {"bullets": bullets, "bullets_max": shot.burst}
        hit, taken = strike(att.fighter, dfd.fighter, (att.name, dfd.name), rd, bonus, state.options, roller,
                            attack_roll, defense_roll, itemize=True, **extra)
        hits.append(hit)
        damage_rolls.extend(taken)
    settled = with_fields(shot, hits=tuple(hits), outcome=describe_shot(shot.mode, list(sides), hits))
    return settled, damage_rolls


def describe_shot(mode: str, sides: list[ev.Side], hits: list[ev.Hit]) -> str:
    if not hits:
        return "both miss" if mode == "shoot_back" else f"{sides[0].combatant} misses"
    parts = []
    for hit in hits:
        what = LEVELS[hit.level] if hit.level else "no wound"
        shots = f" ({hit.bullets} of {hit.bullets_max} bullets)" if hit.bullets is not None else ""
        parts.append(f"{hit.attacker} {'grazes' if hit.graze else 'hits'} {hit.defender}{shots}: {what}")
    return "; ".join(parts)


def reresolve_shot(state: FightState, spent: Spent, dice: Dice) -> list[ev.Event]:
    """C-FP-2 on a shot: luck rerolls, skill (or a CT-SPARE spare die) shifts one side's result."""
    if spent.roll.purpose == "damage":
        raise RuleError("a fudge point changes an action roll, not a damage roll: spend on the wound (scratch, ticking)")
    if spent.use == "panache":
        raise RuleError("panache makes an unopposed action outside combat succeed (C-FP-2): not a shot")
    return reresolve(state, spent, dice, resettle_shot)


def resettle_shot(state: FightState, record: Action, spent: Spent, new_roll: int | None,
                  voids: list[int], dice: Dice) -> list[ev.Event]:
    """The shot settled again from the changed sides (F-RNG-1, F-RNG-2, F-RNG-3); damage rolls made are reused."""
    shot: ev.ShotResolved = state.events[record.resolution]
    sides = list(shot.sides)
    for index, side in enumerate(sides):
        if side.combatant.lower() != spent.who.key:
            continue
        side = with_fields(side, modifiers=spent.shifted(side.modifiers))
        sides[index] = with_roll(side, new_roll if new_roll is not None else side.roll or 0)
    old_damage = earlier_rolls(state, record, damage=True)
    settled, rolls = settle_shot(state, with_fields(shot, sides=tuple(sides)),
                                 damage_roller(record.action, dice, old_damage))
    new = with_fields(settled, supersedes=record.resolution)
    return [*fresh_rolls(rolls, old_damage), new,
            *wound_events(record.action, new.hits, state, new.sides, False, voids, dice,
                          earlier_rolls(state, record, damage=False))]
