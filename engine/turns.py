"""Who has the turn, and who still fights: the two questions every view of a running fight asks
(the board, the consequences of a command, the odds before the dice, `fudge play`'s `a TARGET`);
and whether the round's turns are used, and who has not acted yet (`n` at a round's end, the
guard of `fudge round` mid-round)."""

from __future__ import annotations

from fudge_combat.engine.decide import decider_of
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState


def current_actor(state: FightState) -> Combatant | None:
    """Who has the turn: the actor `fudge next` gave it to (phases, rolled initiative), or the next in
    Fate's Alertness order (FT-INIT); None when the rules have no turns or none is given yet, and once
    the round's turns are used (`round_over`) or the battle is over (`battle_over`)."""
    if battle_over(state):
        return None
    if state.turn is not None:
        if round_over(state):
            return None
        return state.combatants.get(state.turn.combatant)
    if state.options.initiative == "alertness" and _own_order(state):
        return next(iter(ruleset_of(state).to_act(state)), None)
    return None


def _own_order(state: FightState) -> tuple[str, ...]:
    """The ruleset's own turn order this round (Fate's Alertness order, FT-INIT), as its Reading reads it."""
    return ruleset_of(state).own_order(state)[0]


def battle_over(state: FightState) -> bool:
    """`fudge end` is the fight's last event: nobody has a turn (F-HEAL-1). A command after it goes on."""
    return bool(state.ended_through) and state.ended_through == state.last_seq


def still_fights(state: FightState, who: Combatant) -> bool:
    """`who` is still in the fight as the fight's ruleset reads it: able to act (F-WND-1, F-STUN-1,
    F-WND-6), or in Fate not Taken Out (FT-TRACK-3)."""
    return decider_of(state).still_fights(state, who)


def turned(state: FightState) -> bool:
    """The round is played in turns given one at a time by `fudge next` (phases PH-1, rolled initiative
    F-INIT-2 and AI-INIT-2), with its order rolled."""
    from fudge_combat.engine.rulesets.fudge.phase_order import phased

    if phased(state):
        return bool(state.initiative)
    return state.options.initiative in ("opposed", "ranked") and bool(state.ranked)


def round_over(state: FightState) -> bool:
    """Every turn of the round is used: the last actor has acted (or can act no more) and `fudge next`
    finds nobody after him (PH-1, F-INIT-2, AI-INIT-2), or everyone in Fate's Alertness order has had
    his turn (FT-INIT). The next step is a new round."""
    if state.options.initiative == "alertness":
        return bool(_own_order(state)) and next(iter(ruleset_of(state).to_act(state)), None) is None
    if not last_turn(state):
        return False
    turn = state.turn
    actor = state.combatants.get(turn.combatant) if turn is not None else None
    return actor is None or turn is None or turn.acted or not actor.track.can_act


def last_turn(state: FightState) -> bool:
    """The turn given is the round's last: `fudge next` finds nobody after it (PH-1, F-INIT-2, AI-INIT-2)."""
    return state.turn is not None and turned(state) and _next_index(state) is None


def _next_index(state: FightState) -> int | None:
    from fudge_combat.engine.rulesets.fudge import phases, ranked
    from fudge_combat.engine.rulesets.fudge.phase_order import phased

    return phases.next_index(state) if phased(state) else ranked.next_index(state)


def yet_to_act(state: FightState) -> list[Combatant]:
    """Who can still act this round and has not: the turns left in the round's order (PH-1, F-INIT-2,
    AI-INIT-2, FT-INIT), or in simultaneous rounds every fighter still standing with a foe standing
    who has not fought yet (F-PACE-2: each engaged pair rolls once a round). A new round now would
    cost each of them a turn. Empty before the first round and once the fight is decided."""
    if not state.round or decider_of(state).is_terminal(state):
        return []
    out: dict[str, Combatant] = {}
    if state.options.initiative == "alertness":
        return list(ruleset_of(state).to_act(state)) if _own_order(state) else []
    if turned(state):
        keys = _turn_keys(state)
        start = 0 if state.turn is None else state.turn.index + (1 if state.turn.acted else 0)
        for key in keys[start:]:
            who = state.combatants.get(key)
            if who is not None and who.track.can_act:
                out.setdefault(key, who)
        return list(out.values())
    if state.options.pace == "simultaneous":
        standing = [who for who in state.combatants.values() if still_fights(state, who)]
        for who in sorted(standing, key=lambda c: c.joined_seq):
            if who.key not in state.fought and any(foe.side != who.side for foe in standing):
                out[who.key] = who
    return list(out.values())


def _turn_keys(state: FightState) -> list[str]:
    from fudge_combat.engine.rulesets.fudge.phase_order import phased, slots
    from fudge_combat.engine.rulesets.fudge.ranked import turn_order

    if phased(state):
        return [slot.combatant for slot in slots(state)]
    return [key for _, key, _ in turn_order(state)]


def round_begun(state: FightState) -> bool:
    """Someone has acted in the current round: a turn given (turns), a pair fought (simultaneous rounds),
    a turn had in Fate's Alertness order. A round where nobody has is not followed by another empty one."""
    if not state.round:
        return True
    if state.options.initiative == "alertness":
        return bool(ruleset_of(state).own_order(state)[1])
    if turned(state):
        return state.turn is not None
    if state.options.pace == "simultaneous":
        return bool(state.fought)
    return True
