"""A blow between two fighters, as Fudge decides it: a simultaneous exchange (F-PACE-2) or a directed
attack (F-PACE-3), with sealed declarations (A-SEAL-1), aimed and called shots (F-HIT-2, F-LOC-1),
magic and plus levels, a speed contest (F-FANCY-1) and the all-out turns of alternating pace (F-MOD-8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TYPE_CHECKING

from msgspec.structs import replace as with_fields

from fudge_combat.engine.rulesets.fudge.declarations import declarations_after, reveal_events, round_events
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.locations import check_called, locate_hits, targeting_record
from fudge_combat.engine.rulesets.fudge.melee_mods import (AIM_PENALTY, check_aim, check_magic, is_static_npc, magic_modifiers, plus_modifiers,
                               speed_contest_of)
from fudge_combat.engine.rulesets.fudge.rolls import damage_roller, roll_event
from fudge_combat.engine.rulesets.fudge.settle import blow_marks, good_level, min_hit_for, settle_exchange
from fudge_combat.engine.rulesets.fudge.sides import blow_sides, with_roll
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState, replace
from fudge_combat.engine.rulesets.fudge.command_structs import NO_TARGETING

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.command_structs import Reveal
    from fudge_combat.engine.rulesets.fudge.command_structs import Attack, Exchange, Targeting


def fight(state: FightState, kind: Literal["exchange", "attack"], first: Combatant, second: Combatant, mods: tuple[int, int],
           min_hit: int | None, reveals: Sequence[Reveal], dice: Dice, unaware: bool = False,
           difficulty: int | None = None, intents: Sequence[dict[str, Any]] = ({}, {}),
           magic: Sequence[tuple[str, int]] = (),
           targeting: Targeting = NO_TARGETING,
           more: tuple[tuple[ev.Modifier, ...], tuple[ev.Modifier, ...]] = ((), ()),
           speed_contest: bool = False) -> list[ev.Event]:
    """F-MEL-1, F-MEL-2, F-MEL-3: both sides rolled (or a difficulty for an unaware defender), then settled."""
    check_magic(magic, [first, second])
    check_aim(targeting.aim, targeting.aim_at, good_level(state))
    check_called(targeting)
    out: list[ev.Event] = round_events(state, [first.name, second.name]) if kind == "exchange" else []
    out += reveal_events(state, reveals)
    pending = [k for k in state.sealed if k in (first.key, second.key)]
    revealed = {r.combatant.lower() for r in reveals}
    if any(k not in revealed for k in pending):
        raise RuleError("a sealed declaration must be revealed before the blow (A-SEAL-1)")
    new_round = bool(out) and isinstance(out[0], ev.RoundStarted)
    declared = declarations_after(state, reveals, fresh=new_round)  # a new round: none declared yet
    declared = {**state.round_declarations, **declared}
    action = state.last_seq + len(out) + 1
    now = replace(state, round=state.round + 1) if new_round else state  # F-STUN-1 counts rounds
    sides = blow_sides(now, kind, first, second, declared, mods)
    sides = [with_fields(side, **intent) if intent else side for side, intent in zip(sides, intents)]
    for index, who in enumerate((first, second)):
        extra = (magic_modifiers(magic, who) + ([AIM_PENALTY] if index == 0 and targeting.aim_at else [])
                 + plus_modifiers(who, sides[index].trait, state.round + new_round) + list(more[index]))
        if extra:
            sides[index] = with_fields(sides[index], modifiers=sides[index].modifiers + tuple(extra))
    defender_unable = kind == "attack" and (unaware or not second.track.can_act)
    rolled: list[ev.DiceRolled] = []
    speed: tuple[int, int] | None = None
    if speed_contest:
        if defender_unable:
            raise RuleError("a speed contest (F-FANCY-1) is between two fighters who both act")
        rolled, speed, boosts = speed_contest_of(
            state, (first, second), lambda who, trait: roll_event(action, who, f"speed contest ({trait})", 4, dice))
        sides = [with_fields(side, modifiers=side.modifiers + tuple(boost)) for side, boost in zip(sides, boosts)]
    for index, side in enumerate(sides):
        if index == 1 and defender_unable:
            level = difficulty if difficulty is not None else state.options.unaware_difficulty
            sides[1] = with_fields(side, trait="difficulty (unaware or unable, F-MEL-3)", level=level, modifiers=(),
                                   roll=0, result=level, offense=level, defense=level)
            continue
        if is_static_npc(state, (first, second)[index]):
            sides[index] = with_roll(side, 0)  # F-NPC-1: no roll
            continue
        rolled.append(roll_event(action, side.combatant, side.trait, 4, dice))
        sides[index] = with_roll(side, sum(rolled[-1].faces))
    min_hits = (min_hit_for(state, first, second, min_hit), min_hit_for(state, second, first, min_hit))
    settled = settle_exchange(now, kind, sides, min_hits, damage_roller(action, dice))
    hits = locate_hits(settled.hits, sides[0], targeting)
    resolved = ev.ExchangeResolved(action=action, kind=kind, round=state.round + new_round,
                                   sides=tuple(sides), min_hit=min_hits, outcome=settled.outcome, hits=hits,
                                   speed=speed, **targeting_record(targeting))
    return out + rolled + list(settled.damage_rolls) + [resolved] + blow_marks(
        action, hits, targeting.affects, state, sides, new_round, dice=dice)



def exchange_intents(state: FightState, c: Exchange, fighters: Sequence[Combatant]) -> list[dict[str, Any]]:
    """F-STUN-1, F-STUN-2, F-STUN-3: who goes for stun, pulls a punch, or aims at the head, as the command
    names them."""
    if not (c.stun or c.head or c.pull):
        return [{} for _ in fighters]  # the usual blow: nothing to check or record
    keys = [f.key for f in fighters]
    for name in [*c.stun, *c.head, *(n for n, _ in c.pull)]:
        if name.strip().lower() not in keys:
            raise RuleError(f"{name} is not in this exchange: --stun, --pull and --head name one of its fighters")
    out: list[dict[str, Any]] = []
    for who in fighters:
        intent: dict[str, Any] = {}
        if who.key in {n.strip().lower() for n in c.stun}:
            intent["stun"] = True
        if who.key in {n.strip().lower() for n in c.head}:
            intent["head"] = True
        for name, level in c.pull:
            if name.strip().lower() == who.key:
                intent["pull"] = level
        out.append(intent)
    return out



def alternating_all_out(state: FightState, attacker: Combatant, target: Combatant,
                        c: Attack) -> tuple[bool, tuple[tuple[ev.Modifier, ...], tuple[ev.Modifier, ...]]]:
    """F-MOD-8: an all-out defender forfeits his attack this round; a foe who attacked all-out
    defends at -2 on this turn (option all_out_exposure = "no_defense": not at all)."""
    declared = {**state.round_declarations, **declarations_after(state, c.reveals)}.get(attacker.key)
    if attacker.key in state.forfeits or (declared is not None and declared.all_out == "defense"):
        then = ("another fighter attacks" if state.options.initiative == "none"
                else "`fudge next` passes the turn")
        raise RuleError(f"{attacker.name} chose all-out defense this round and forfeits the attack (F-MOD-8); {then}")
    defense: tuple[ev.Modifier, ...] = ()
    if target.key in state.forfeits and target.key not in state.declarations and target.key not in state.round_declarations:
        # the all-out defense lasts the round: every defense gets it, not only the first
        defense = (ev.Modifier(name="all-out defense", value=state.options.all_out_defense_skill),)
    if state.exposed.get(target.key) != attacker.key:
        return c.unaware, ((), defense)
    if state.options.all_out_exposure == "no_defense":
        return True, ((), ())
    return c.unaware, ((), defense + (ev.Modifier(name="exposed after all-out offense", value=-2),))

