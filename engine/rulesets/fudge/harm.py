"""What a hit does to its target: the step between a Hit and its WoundMarked.

The hit's level comes from the damage rules (F-DMG, F-GRAZE, F-DROLL, ...).
Here it becomes a mark, after the adjustments the fight's options and the
attacker's declared intent call for, each noted with its rule ID:

- F-STUN-2 a pulled blow is capped at the level the attacker named;
- F-STUN-1 a stunning blow marks a Stun, Very Stunned or knockout instead
  of a wound; F-STUN-3 a Good head blow that wins knocks out;
- F-DEATH-1 / F-DEATH-2 (for PCs and major NPCs, F-DEATH-4) cap the level
  the track may reach; the lost excess is noted.

Readings taken:
- A Scratch dealt by a stunning blow has no effect (only Hurt or worse
  stuns), and a second Stun, in any round, makes the target Very Stunned.
- A knocking head blow (F-STUN-3) is a knockout on top of the wound it deals
  (none, if the blow was a stunning one).
- F-DC `roll` and `willpower` roll the defender's trait with no modifier
  (Great or better: one less, Poor or worse: one more); `gift` applies to
  every hit, Scratches included; a `point` step on a graze (which has no
  damage points) moves the level instead. These come before a pulled punch
  and the death rules.
- F-DEATH-1 counts the levels from the track's level before the blow to the
  level after it, overflow included; F-DEATH-2's "began the round" is the
  track as it stood at the round's RoundStarted (or before this blow, when
  this very command starts the round).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.rulesets.fudge.tracks import track_of
from fudge_combat.engine.kernel.wounds import (DEAD, HURT, INCAPACITATED, LEVELS, NEAR_DEATH, UNDAMAGED, VERY_HURT, Mark, Track,
                           halve, level_for_damage)
from fudge_combat.events import structs as ev

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.options import RuleOptions
    from fudge_combat.engine.kernel.state import Combatant, FightState

PENDING = 10**9  # seq of a mark not yet written; it sorts after every written one
GOOD = 1


def protected(who: Combatant, options: RuleOptions) -> bool:
    """F-DEATH-4: the death rules guard PCs and major NPCs, not ordinary NPCs (unless set to all)."""
    return options.death_protects == "all" or who.fighter.sheet.kind in ("pc", "major")


def _track(who: Combatant, marks: Sequence[Mark], options: RuleOptions) -> Track:
    return track_of(who.fighter, who.boxes, marks, options, who.out)


def capped(who: Combatant, marks: Sequence[Mark], began: Sequence[Mark], level: int, options: RuleOptions) -> tuple[int, list[str]]:
    """F-DEATH-1, F-DEATH-2: the worst level at most `level` whose mark keeps the track within the caps."""
    if not protected(who, options) or not (options.death_three_levels or options.death_needs_incapacitated):
        return level, []
    now = _track(who, marks, options).level
    ceiling = DEAD
    rules = []
    if options.death_three_levels:
        ceiling = min(ceiling, now + 3)
        rules.append("F-DEATH-1")
    if options.death_needs_incapacitated and _track(who, began, options).level < INCAPACITATED:
        ceiling = min(ceiling, INCAPACITATED)
        rules.append("F-DEATH-2")
    for candidate in range(level, UNDAMAGED, -1):
        after = _track(who, [*marks, Mark(candidate, PENDING)], options).level
        if after <= ceiling:
            if candidate == level:
                return level, []
            return candidate, [f"{' '.join(rules)}: {LEVELS[level]} lowered to {LEVELS[candidate]}"]
    return UNDAMAGED, [f"{' '.join(rules)}: {LEVELS[level]} lost"]


DC_TRAITS = {"roll": "Damage Capacity", "willpower": "Willpower"}
ADJUSTMENT_PURPOSE = " vs the wound"  # the purpose of an F-DC roll ends so: "Damage Capacity vs the wound"
DC_GIFTS = {"damage resistant": -1, "fragile": 1}
GREAT, POOR = 2, -2


def is_adjustment_roll(event: ev.DiceRolled) -> bool:
    """A Damage Capacity or Willpower roll made for a blow (F-DC), not an action roll."""
    return event.purpose.endswith(ADJUSTMENT_PURPOSE)


class AdjustmentDice:
    """The rolls F-DC asks for; a re-resolved blow reuses the rolls it already made."""

    def __init__(self, action: int, dice: Dice | None, reuse: Sequence[ev.DiceRolled] = ()) -> None:
        self.action, self.dice, self.pool = action, dice, list(reuse)

    def roll(self, roller: str, purpose: str) -> tuple[ev.DiceRolled, bool]:
        for index, old in enumerate(self.pool):
            if old.roller.lower() == roller.lower() and old.purpose.lower() == purpose.lower():
                return self.pool.pop(index), False
        if self.dice is None:
            raise ValueError("an F-DC roll needs dice")
        rolled = self.dice.roll(roller, 4, purpose)
        return ev.DiceRolled(action=self.action, roller=roller, purpose=purpose, faces=rolled.faces,
                             source=rolled.source, stream=rolled.stream, draw=rolled.draw), True


def capacity_shift(who: Combatant, hit: ev.Hit, level: int, options: RuleOptions, dice: AdjustmentDice,
                   out: list[ev.Event]) -> tuple[int, str]:
    """F-DC: -1, 0 or +1 severity from a Damage Capacity or Willpower roll, or from gifts; and why."""
    mode = options.damage_capacity
    if mode == "gift":
        shift = sum(DC_GIFTS.get(g.strip().lower(), 0) for g in who.fighter.sheet.gifts)
        shift = max(-1, min(1, shift))
        return shift, "Damage Resistant" if shift < 0 else "Fragile"
    if mode in DC_TRAITS and level >= HURT:
        trait, trait_level, _ = who.fighter.trait(DC_TRAITS[mode], options)
        rolled, fresh = dice.roll(who.name, trait + ADJUSTMENT_PURPOSE)
        if fresh:
            out.append(rolled)
        result = trait_level + sum(rolled.faces)
        shift = -1 if result >= GREAT else 1 if result <= POOR else 0
        return shift, f"{trait} roll {result:+d}"
    return 0, ""


def adjusted(hit: ev.Hit, level: int, shift: int, options: RuleOptions) -> int:
    """F-DC: one wound level, or one damage point read again on the thresholds."""
    if options.damage_capacity_step == "point" and hit.damage is not None:
        return level_for_damage(max(0, hit.damage + shift), options.wound_thresholds)
    return max(UNDAMAGED, min(level + shift, NEAR_DEATH))


def stun_effect(level: int, stuns: int) -> Literal["stun", "very_stunned", "knocked_out"] | None:
    """F-STUN-1: Hurt stuns (a second Stun is Very Stunned), Very Hurt very stuns, worse knocks out."""
    if level < HURT:
        return None
    if level >= INCAPACITATED:
        return "knocked_out"
    if level == VERY_HURT or stuns >= 1:
        return "very_stunned"
    return "stun"


def marks_for_hits(state: FightState, action: int, hits: Sequence[ev.Hit], sides: Sequence[ev.Side],
                   new_round: bool, exclude: Collection[int] = (), dice: Dice | None = None,
                   reuse: Sequence[ev.DiceRolled] = ()) -> list[ev.Event]:
    """The WoundMarked / StunMarked events of an action's hits (`exclude`: marks being replaced),
    after the DiceRolled of any F-DC roll."""
    adjustment_dice = AdjustmentDice(action, dice, reuse)
    options = state.options
    by_name = {side.combatant.lower(): side for side in sides}
    round_start = action if new_round else round_start_at(state.round_starts, action)
    round_number = state.round + (1 if new_round else 0)
    out: list[ev.Event] = []
    pending: dict[str, list[Mark]] = {}
    kept = points_kept(state, action, exclude)
    for hit in hits:
        who = state.combatants[hit.defender.lower()]
        side = by_name.get(hit.attacker.lower())
        marks = [m for m in who.marks if m.seq not in exclude] + pending.get(who.key, [])
        began = [m for m in marks if m.seq < round_start]
        level, notes = hit.level, []
        if level > UNDAMAGED:
            shift, why = capacity_shift(who, hit, level, options, adjustment_dice, out)
            if shift:
                new = adjusted(hit, level, shift, options)
                if new != level:
                    notes.append(f"F-DC {why}: {LEVELS[level]} {'lowered' if new < level else 'raised'} to {LEVELS[new]}")
                level = new
        if side is not None and side.pull is not None and level > side.pull:
            notes.append(f"F-STUN-2: pulled to {LEVELS[max(side.pull, UNDAMAGED)]}")
            level = max(side.pull, UNDAMAGED)
        result = None
        if side is not None:
            result = side.offense if side.offense is not None else side.result
        knocks = (side is not None and side.head and options.head_blow_knockout
                  and result is not None and result >= GOOD)
        if side is not None and side.stun:
            stuns = who.stuns + sum(1 for e in out if isinstance(e, ev.StunMarked) and e.combatant == who.name)
            effect = "knocked_out" if knocks else stun_effect(level, stuns)
            if effect is not None:
                if knocks:
                    notes.append("F-STUN-3: a Good blow to the head")
                out.append(ev.StunMarked(action=action, combatant=who.name, effect=effect, round=round_number,
                                         dealt=hit.level, notes=tuple(notes)))
            continue
        if level > UNDAMAGED:
            level, more = capped(who, marks, began, level, options)
            notes += more
        if level > UNDAMAGED:
            halved, ticking = kept.get((who.key, hit.attacker.lower()), (False, False))
            marked = ev.WoundMarked(action=action, combatant=who.name, level=halve(level) if halved else level,
                                    damage=hit.damage, still_ticking=ticking, halved_from=level if halved else None,
                                    dealt=hit.level if level != hit.level else None, notes=tuple(notes))
            out.append(marked)
            pending.setdefault(who.key, []).append(Mark(marked.level, PENDING + len(out), ticking))
        if knocks:
            out.append(ev.StunMarked(action=action, combatant=who.name, effect="knocked_out", round=round_number,
                                     dealt=hit.level, notes=("F-STUN-3: a Good blow to the head",)))
    return out


def round_start_at(starts: Mapping[int, int], action: int) -> int:
    """The seq of the latest RoundStarted at or before `action` (0: none), by bisection: the starts are
    in order, and a blow re-resolved long after its round looks back without reading every round."""
    low, high = 0, len(starts)
    while low < high:
        middle = (low + high) // 2
        if starts[middle] <= action:
            low = middle + 1
        else:
            high = middle
    return starts[low - 1] if low else 0


def points_kept(state: FightState, action: int, replaced: Collection[int]) -> dict[tuple[str, str], tuple[bool, bool]]:
    """C-FP-2: the points already spent on this action's blows stay spent when it is re-resolved.

    Only a Scratch and Still Ticking change one blow's mark; a later point on the action's
    rolls (skill, luck, a spare die) settles the blows again. The defender keeps what he paid
    for: the new mark of the same blow (same attacker, same defender) is halved again, and
    spared again, so every order of spends on one action ends where the rules say.
    Keyed (defender, attacker): (halved, still ticking).
    """
    record = state.actions.get(action)
    old = state.events.get(record.resolution) if record else None
    marks = [state.events[seq] for seq in sorted(replaced)
             if isinstance(state.events.get(seq), ev.WoundMarked) and state.events[seq].action == action]
    kept: dict[tuple[str, str], tuple[bool, bool]] = {}
    for defender in {m.combatant.lower() for m in marks if m.halved_from is not None or m.still_ticking}:
        hits = [h for h in getattr(old, "hits", ()) if h.defender.lower() == defender
                and h.level > UNDAMAGED and not h.location]
        mine = [m for m in marks if m.combatant.lower() == defender]
        for hit, mark in zip(hits, mine):  # a blow's mark follows its hit (marks_for_hits)
            if mark.halved_from is not None or mark.still_ticking:
                kept[(defender, hit.attacker.lower())] = (mark.halved_from is not None, mark.still_ticking)
    return kept
