"""Fudge's exact odds (`ODDS`, read by `engine.odds`): its blows' commands, what an action's hits marked, and a
duel of simultaneous exchanges (F-PACE-2) as a chain over both wound tracks. A round's sides come from
`sides.blow_sides`, its hits from `settle.settle_exchange`, its marks from `settle.wound_events` (F-DC, F-DEATH),
and the next state from the fold the chain hands in; tests hold each round against `decide` itself, every roll
weighed. Atari Isev's blows mark the same wound track: its odds are these."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

from msgspec.structs import replace

from fudge_combat.engine.kernel.command_structs import Reveal
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.weighing import (ONE, Chain, OddsProfile, Outcome, add_chance, every_roll, fudge_sums,
                                                 states_by_key)
from fudge_combat.engine.kernel.wounds import LEVELS, SCRATCH
from fudge_combat.engine.rulesets.fudge.command_structs import Attack, Exchange
from fudge_combat.engine.rulesets.fudge.melee_mods import is_static_npc
from fudge_combat.engine.rulesets.fudge.rolls import damage_roller
from fudge_combat.engine.rulesets.fudge.settle import min_hit_for, settle_exchange, wound_events
from fudge_combat.engine.rulesets.fudge.sides import blow_sides, with_roll
from fudge_combat.engine.rulesets.fudge.tracks import SCRATCHES_PER_HIT, DamageCapacityTrack
from fudge_combat.events import structs as ev

StateKey = Hashable


def fudge_command(state: FightState, match: Any) -> tuple[str, Any]:
    """One action under Fudge or Atari Isev: an exchange (simultaneous pace) or a directed attack."""
    opts = state.options
    if opts.pace == "story":
        raise RuleError("a story-paced fight (F-PACE-1) has no exchanges to weigh: use --rules fudge or another preset")
    if opts.pace == "simultaneous":
        return "exchange", Exchange(first=match.first, second=match.second, mods=match.mods)
    return "attack", Attack(attacker=match.first, target=match.second, mod=match.mods[0],
                            defense_mod=match.mods[1])


def fudge_command_now(state: FightState, attacker: Combatant, target: Combatant,
                      reveals: Sequence[Reveal]) -> tuple[str, Any]:
    """The attacker's next blow on the target in a running fight: an exchange (simultaneous pace) or an attack,
    with the reveals of the sealed declarations of either."""
    opts = state.options
    if opts.pace == "story":
        raise RuleError("a story-paced fight (F-PACE-1) has no blows to weigh")
    mine = tuple(r for r in reveals if r.combatant.lower() in (attacker.key, target.key))
    if opts.pace == "simultaneous":
        return "exchange", Exchange(first=attacker.name, second=target.name, reveals=mine)
    return "attack", Attack(attacker=attacker.name, target=target.name, reveals=mine)


def fudge_outcome(events: Sequence[Any]) -> Outcome:
    """Each hit with the level its mark took (after F-DC, F-DEATH), and stuns."""
    resolved = next(e for e in events if isinstance(e, ev.ExchangeResolved))
    marked: dict[str, int] = {}
    for event in events:
        if isinstance(event, ev.WoundMarked):
            marked[event.combatant.lower()] = max(marked.get(event.combatant.lower(), 0), event.level)
    blows = tuple((h.attacker, h.defender, h.graze, marked.get(h.defender.lower(), 0)) for h in resolved.hits)
    stuns = tuple((e.combatant, e.effect) for e in events if isinstance(e, ev.StunMarked))
    return Outcome(blows, stuns, levels=LEVELS)


# --- a whole duel -----------------------------------------------------------------------

def track_key(who: Combatant) -> Hashable:
    """What of a fighter's state the rest of a duel depends on: how many boxes of each level are marked
    (F-WND-3: where the next mark goes; which wound put it there no longer matters),
    whether he is out, and on a Damage Capacity track the Scratches toward the next hit (F-WND-8).

    A mark that changes none of these (a Scratch lost past a full track, F-WND-5) leaves the state as it was.
    """
    filled = tuple(sum(box is not None for box in row) for row in who.track.boxes)
    counted: tuple[int, ...] = ()
    if isinstance(who.track, DamageCapacityTrack):
        counted = (who.track.hits, sum(1 for m in who.marks if m.level == SCRATCH) % SCRATCHES_PER_HIT)
    return (filled, who.track.dead, who.out, who.stuns, counted)


def round_transitions(chain: Chain, state: FightState) -> dict[StateKey, tuple[Fraction, FightState]]:
    """One simultaneous exchange from this state: each next state (by tracks) with its probability.

    The same steps as `decide` takes for `fudge exchange` in a new round: the sides
    (`blow_sides`), the action rolls, `settle_exchange`, then `wound_events`.
    """
    match = chain.match
    a, b = state.combatants[chain.first], state.combatants[chain.second]
    now = replace(state, round=state.round + 1)
    sides = blow_sides(now, "exchange", a, b, match.declared(), match.mods)
    min_hits = (min_hit_for(state, a, b, None), min_hit_for(state, b, a, None))
    action = state.last_seq + 2  # after the round's RoundStarted, as in `decide`
    cache_key = (tuple(sides), min_hits)
    hits_by_chance = chain.settled.get(cache_key)
    if hits_by_chance is None:
        hits_by_chance = settle_all(now, sides, min_hits, (is_static_npc(state, a), is_static_npc(state, b)), action)
        chain.settled[cache_key] = hits_by_chance
    started = chain.apply(state, [ev.RoundStarted(round=state.round + 1)])
    by_marks: dict[tuple[Any, ...], tuple[Fraction, tuple[Any, ...]]] = {}
    for chance, hits in hits_by_chance:
        for p, marks in every_roll(lambda dice: wound_events(action, hits, state, sides, True, dice=dice)):
            kept = tuple(e for e in marks if isinstance(e, (ev.WoundMarked, ev.StunMarked)))
            same = tuple((e.type, e.combatant, getattr(e, "level", None), getattr(e, "effect", None),
                          getattr(e, "still_ticking", None)) for e in kept)  # what the track reads of a mark
            add_chance(by_marks, same, chance * p, kept)
    return states_by_key(chain, started, by_marks)


def settle_all(state: FightState, sides: Sequence[ev.Side], min_hits: tuple[int, int],
               static: tuple[bool, bool], action: int) -> list[tuple[Fraction, tuple[ev.Hit, ...]]]:
    """`settle_exchange` for every pair of action rolls (and every damage roll it asks for)."""
    sums = [((0, ONE),) if is_static else tuple((t, Fraction(w, 81)) for t, w in fudge_sums(4)) for is_static in static]
    weighted: list[tuple[Fraction, tuple[ev.Hit, ...]]] = []
    for roll_a, p_a in sums[0]:
        for roll_b, p_b in sums[1]:
            rolled = [with_roll(sides[0], roll_a), with_roll(sides[1], roll_b)]
            for p, settled in every_roll(
                    lambda dice: settle_exchange(state, "exchange", rolled, min_hits, damage_roller(action, dice))):
                weighted.append((p_a * p_b * p, settled.hits))
    # harm reads of a hit who struck whom and its level (its damage points only for an F-DC point step):
    # hits alike in those mark alike
    points = state.options.damage_capacity_step == "point"
    kept: dict[Hashable, tuple[Fraction, tuple[ev.Hit, ...]]] = {}
    for chance, hits in weighted:
        same = tuple((h.attacker, h.defender, h.level, h.damage if points else None, h.location) for h in hits)
        before = kept.get(same)
        kept[same] = ((before[0] if before else Fraction(0)) + chance, before[1] if before else hits)
    return list(kept.values())




def fudge_duel_check(state: FightState) -> None:
    """A chain over wound tracks follows simultaneous rounds only (F-PACE-2): one attack is weighed alone."""
    if state.options.pace != "simultaneous":
        raise RuleError(f"a whole duel is computed for simultaneous rounds (pace = \"simultaneous\", as under "
                        f"--rules fudge, or Fate's exchanges); this fight's pace is {state.options.pace}: "
                        f"drop --duel for one attack")


def fudge_acts(state: FightState, key: str) -> bool:
    return state.combatants[key].track.can_act


def fudge_level(state: FightState, key: str) -> int:
    return state.combatants[key].track.level


ODDS = OddsProfile(name="fudge", levels=LEVELS, grazes=True, command=fudge_command, command_now=fudge_command_now,
                   outcome=fudge_outcome, effect_at=0, check_duel=fudge_duel_check,
                   key=lambda state, k: track_key(state.combatants[k]), acts=fudge_acts, level=fudge_level,
                   transitions=round_transitions)
