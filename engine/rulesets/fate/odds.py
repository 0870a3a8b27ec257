"""Fate's exact odds (`ODDS`, read by `engine.odds`): its blows' commands, what an action's contests marked,
and a duel of Fate's exchanges (FT-PACE exchange): one exchange from a state, every roll weighed, through the
same rules `fudge fate exchange` applies (`build_side`, `contests`, `FateResolved` and `mark_events`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

from msgspec.structs import replace as with_fields

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.weighing import Chain, OddsProfile, Outcome, add_chance, fudge_sums, states_by_key
from fudge_combat.engine.rulesets.fate import rules as fate_rules
from fudge_combat.engine.rulesets.fate.command_structs import FateAction, FateAttack, FateExchange
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.engine.rulesets.fate.state import fate_of

FATE_BOXES = ("clipped", "hurt", "injured", "taken_out")  # FT-TRACK-1
FATE_LEVELS = ("Untouched", "Scratched", "Clipped", "Hurt", "Injured", "Taken Out")  # FT-OUT, FT-TRACK-1
FATE_SEVERITY = {"scratched": 1, "clipped": 2, "hurt": 3, "injured": 4, "taken_out": 5}
StateKey = Hashable


def fate_command(state: FightState, match: Any) -> tuple[str, Any]:
    """One Fate exchange (FT-PACE), each fighter acting against the other; Fate's other paces are refused."""
    if state.options.pace != "exchange":
        raise RuleError(f"under Fate the odds weigh one exchange (pace = \"exchange\", the fate preset); "
                        f"this fight's pace is {state.options.pace}")
    if any(d != ev.Declaration() for d in match.declarations.values()):
        raise RuleError("Fate has no all-out declarations or postures (FT-DEF): give GM modifiers with --mods")
    actions = (FateAction(combatant=match.first, target=match.second, mod=match.mods[0]),
               FateAction(combatant=match.second, target=match.first, mod=match.mods[1]))
    return "exchange", FateExchange(actions=actions)


def fate_command_now(state: FightState, attacker: Combatant, target: Combatant,
                     reveals: Sequence[Any]) -> tuple[str, Any]:
    """The attacker's next blow on the target in a running fight: an exchange or an attack of Fate's (FT-PACE)."""
    pace = state.options.pace
    if pace == "exchange":
        return "exchange", FateExchange(actions=(FateAction(combatant=attacker.name, target=target.name),
                                                 FateAction(combatant=target.name, target=attacker.name)))
    if pace == "turn":
        return "attack", FateAttack(attack=FateAction(combatant=attacker.name, target=target.name),
                                    defense=FateAction(combatant=target.name))
    raise RuleError(f"under Fate the odds weigh an exchange or an attack; this fight's pace is {pace} "
                    "(one roll for the whole scene)")


def fate_outcome(events: Sequence[Any]) -> Outcome:
    """Each contest won with the box it marked (FT-TRACK-2), or Scratched."""
    fate = next(e for e in events if isinstance(e, ev.FateResolved))
    boxes = {e.combatant.lower(): FATE_SEVERITY[e.box] for e in events if isinstance(e, ev.FateBoxMarked)}
    won = tuple((c.attacker, c.defender, False, boxes.get(c.defender.lower(), FATE_SEVERITY["scratched"]))
                for c in fate.contests if c.outcome != "none")
    return Outcome(won, levels=FATE_LEVELS, contests=True)


def fate_duel_check(state: FightState) -> None:
    """A duel of Fate exchanges: what one exchange refuses (`fate_command`) is all it refuses."""


def fate_acts(state: FightState, key: str) -> bool:
    """Still in the duel: not dead and not Taken Out (FT-OUT)."""
    who = state.combatants[key]
    return not who.track.dead and not fate_rules.is_taken_out(fate_rules.marks_of(state, who))


def fate_level(state: FightState, key: str) -> int:
    """The worst box marked, as an index of `FATE_LEVELS` (0: untouched)."""
    marks = fate_rules.marks_of(state, state.combatants[key])
    return max((FATE_SEVERITY[m.box] for m in marks), default=0)


def fate_key(state: FightState, key: str) -> Hashable:
    """What of a Fate combatant the rest of a duel depends on: how many of each box are marked (FT-TRACK-2),
    and whether a clipped -1 still waits for his next roll (FT-TRACK-3)."""
    marked = Counter(m.box for m in fate_of(state).marks.get(key, ()))
    return (tuple(marked[box] for box in FATE_BOXES), key in fate_of(state).clip)


def fate_transitions(chain: Chain, state: FightState) -> dict[StateKey, tuple[Fraction, FightState]]:
    """One Fate exchange (FT-PACE) from this state, each fighter acting against the other: the same steps
    `fudge fate exchange` takes (`build_side`, `contests`, `FateResolved` and `mark_events`), every roll weighed."""
    match = chain.match
    actions = (FateAction(combatant=match.first, target=match.second, mod=match.mods[0]),
               FateAction(combatant=match.second, target=match.first, mod=match.mods[1]))
    cache_key = tuple(fate_rules.build_side(state, a, (), 0) for a in actions)
    found_by_chance = chain.settled.get(cache_key)
    if found_by_chance is None:
        sums = tuple((t, Fraction(w, 81)) for t, w in fudge_sums(4))
        found: dict[Hashable, tuple[Fraction, Any]] = {}
        for roll_a, p_a in sums:
            for roll_b, p_b in sums:
                sides = (with_fields(cache_key[0], roll=roll_a),  # build_side only records the roll
                         with_fields(cache_key[1], roll=roll_b))
                contests = tuple(fate_rules.contests(state, sides))
                same = tuple((c.attacker, c.defender, c.outcome, c.maneuver) for c in contests)
                before = found.get(same)
                found[same] = ((before[0] if before else Fraction(0)) + p_a * p_b,
                               before[1] if before else (contests, sides))
        found_by_chance = [(p, rest) for p, rest in found.values()]
        chain.settled[cache_key] = found_by_chance
    action = state.last_seq + 1
    # the resolution itself changes only who paid a clipped -1, the same whatever the rolls: fold it once
    _, (contests, sides) = found_by_chance[0]
    resolved = chain.apply(state, [ev.FateResolved(action=action, pace="exchange", round=state.round, sides=sides,
                                             contests=contests)])
    by_marks: dict[Hashable, tuple[Fraction, tuple[Any, ...]]] = {}
    for chance, (contests, sides) in found_by_chance:
        marks = tuple(fate_rules.mark_events(state, action, contests, sides))
        read = tuple((m.combatant, m.box, m.non_lethal) for m in marks)  # what the track reads of a mark
        add_chance(by_marks, read, chance, marks)
    return states_by_key(chain, resolved, by_marks)


ODDS = OddsProfile(name="fate", levels=FATE_LEVELS, grazes=False, command=fate_command, command_now=fate_command_now,
                   outcome=fate_outcome,
                   effect_at=FATE_LEVELS.index("Clipped"),  # FT-OUT: a margin of 0 (Scratched) does nothing
                   check_duel=fate_duel_check, key=fate_key, acts=fate_acts, level=fate_level,
                   transitions=fate_transitions)
