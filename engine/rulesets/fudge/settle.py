"""Settling a blow: the least result that hits, who hits whom in a Fudge exchange or directed attack,
and the marks the hits leave.

Part of the shared toolkit every ruleset builds on (it imports no ruleset). Atari Isev
settles its attacks its own way (`engine.rulesets.atari_isev.blows.settle_attack`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from msgspec import Struct

from fudge_combat.engine.rulesets.fudge import harm
from fudge_combat.engine.rulesets.fudge import stun
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.ladder import Ladder
from fudge_combat.engine.rulesets.fudge.locations import location_marks
from fudge_combat.engine.rulesets.fudge.rolls import DamageDice
from fudge_combat.engine.rulesets.fudge.wounding import strike
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState


def good_level(state: FightState) -> int:
    """The ladder's Good (F-HIT-2's least aim); a house ladder without one: three above the minimum hit level."""
    good = _good_on(state.ladder)
    return state.options.min_hit + 3 if good is None else good


@lru_cache(maxsize=64)
def _good_on(ladder: Ladder) -> int | None:
    """Good on a ladder (read by name once per ladder: every blow checks its aim against it)."""
    try:
        return ladder.parse("Good")
    except RuleError:
        return None


def make_hit(state: FightState, attacker: Combatant, defender: Combatant, rd: int, bonus: int,
             damage_dice: DamageDice, attack_roll: int | None = None,
             defense_roll: int | None = None) -> tuple[ev.Hit, list[ev.DiceRolled]]:
    """F-DMG-3: one won blow's damage outside a duel (a lone fighter's melee, F-MULTI), as a duel strikes."""
    return strike(attacker.fighter, defender.fighter, (attacker.name, defender.name), rd, bonus, state.options,
                  damage_dice, attack_roll, defense_roll)


def min_hit_for(state: FightState, attacker: Combatant, defender: Combatant, given: int | None) -> int:
    """F-HIT-1: Poor plus the Scale difference, unless the GM sets it."""
    if given is not None:
        return given
    return state.options.min_hit + attacker.fighter.sheet.scale - defender.fighter.sheet.scale



class Settled(Struct, frozen=True):
    outcome: str
    hits: tuple[ev.Hit, ...]
    damage_rolls: tuple[ev.DiceRolled, ...]


def settle_exchange(state: FightState, kind: str, sides: Sequence[ev.Side], min_hits: Sequence[int],
                    damage_dice: DamageDice) -> Settled:
    """F-MEL-1, F-MEL-2, F-MOD-6, F-MOD-7, F-TAC-4 (and F-PACE-3 for a directed attack): Fudge's blows."""
    opts = state.options
    a, b = sides
    directions: list[tuple[ev.Side, ev.Side, int, int, int]] = []  # attacker, defender, rd, bonus, min_hit
    if opts.tactics == "postures":
        pairs = [(a, b, min_hits[0])] + ([(b, a, min_hits[1])] if kind == "exchange" else [])
        for att, dfd, least in pairs:
            assert att.offense is not None and dfd.defense is not None
            rd = att.offense - dfd.defense
            if rd >= 1 and att.offense >= least:
                directions.append((att, dfd, rd, 0, least))
    else:
        assert a.result is not None and b.result is not None
        rd = a.result - b.result
        ao = {s.combatant: s.declaration.all_out for s in sides}
        if kind == "attack":
            if rd >= 1 and a.result >= min_hits[0]:
                bonus = opts.all_out_offense_damage if ao[a.combatant] == "offense" else 0
                directions.append((a, b, rd, bonus, min_hits[0]))
        else:
            if rd == 0:
                # F-MOD-6: an all-out attacker who ties loses, unless the foe only defends or also all-out attacks
                lone = [s for s in sides if ao[s.combatant] == "offense"]
                if len(lone) == 1:
                    loser = lone[0]
                    winner = b if loser is a else a
                    least = min_hits[1] if winner is b else min_hits[0]
                    if ao[winner.combatant] != "defense" and winner.result is not None and winner.result >= least:
                        directions.append((winner, loser, 0, opts.all_out_loser_bonus, least))
            else:
                winner, loser = (a, b) if rd > 0 else (b, a)
                least = min_hits[0] if winner is a else min_hits[1]
                bonus = (opts.all_out_offense_damage if ao[winner.combatant] == "offense" else 0) + (
                    opts.all_out_loser_bonus if ao[loser.combatant] == "offense" else 0)
                if ao[winner.combatant] != "defense" and winner.result is not None and winner.result >= least:
                    directions.append((winner, loser, abs(rd), bonus, least))
    directions = [d for d in directions if stun.can_attack(state, state.combatants[d[0].combatant.lower()])]
    hits: list[ev.Hit] = []
    rolls: list[ev.DiceRolled] = []
    for att, dfd, rd, bonus, _ in directions:
        attacker, defender = state.combatants[att.combatant.lower()], state.combatants[dfd.combatant.lower()]
        defense_roll = None if dfd.trait.startswith("difficulty") else dfd.roll  # an unaware defender rolled nothing
        hit, taken = strike(attacker.fighter, defender.fighter, (attacker.name, defender.name), rd, bonus, opts,
                            damage_dice, att.roll, defense_roll)
        rolls.extend(taken)
        hits.append(hit)
    return Settled(describe(sides, hits, kind), tuple(hits), tuple(rolls))


def describe(sides: Sequence[ev.Side], hits: Sequence[ev.Hit], kind: str) -> str:
    if not hits:
        return "stand-off" if kind == "exchange" else f"{sides[1].combatant} is not hit"
    parts = []
    for hit in hits:
        what = LEVELS[hit.level] if hit.level else "no wound"
        parts.append(f"{hit.attacker} {'grazes' if hit.graze else 'hits'} {hit.defender}: {what}")
    return "; ".join(parts)


def wound_events(action: int, hits: Sequence[ev.Hit], state: FightState | None = None,
                 sides: Sequence[ev.Side] = (), new_round: bool = False, exclude: Sequence[int] = (),
                 dice: Dice | None = None, reuse: Sequence[ev.DiceRolled] = ()) -> list[ev.Event]:
    """Each hit's mark: through engine.rulesets.fudge.harm (F-DC, F-STUN, F-DEATH) when the state is known."""
    if state is not None:
        return harm.marks_for_hits(state, action, hits, sides, new_round, frozenset(exclude), dice, reuse)
    return [ev.WoundMarked(action=action, combatant=h.defender, level=h.level, damage=h.damage)
            for h in hits if h.level > 0]


def blow_marks(action: int, hits: Sequence[ev.Hit], affects: str | None = None, *args: Any, **kwargs: Any) -> list[ev.Event]:
    """F-WND-3, F-LOC-2: body blows are marked as wound_events marks them; a blow on a named part wounds that part."""
    return [*wound_events(action, [h for h in hits if not h.location], *args, **kwargs),
            *location_marks(action, hits, affects)]

