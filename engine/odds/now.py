"""The odds before the dice: the exact chances of one fighter's next action in a running fight.

`odds_now(state, attacker, target)` weighs the action the fight's ruleset and pace
would resolve next between the two (an exchange under simultaneous pace and Fate's
exchanges, a directed attack under turns, Fate's attack under its turn pace) on the
fight exactly as it stands: the wounds both carry and their penalties, the
declarations in force, the options and house rules. Nothing is restated: the command
goes through `decide` with every possible roll (`weighing.every_roll`), as
`fudge odds` weighs sheets, and each result is folded into the state to see who is
still standing after it.

Readings taken:
- The attacker who has the turn (or who may act now beside him, as Atari Isev's
  equal totals do) acts in it: the state is weighed as it is, turn checks
  included. Anyone else is weighed as if he acted now, out of turn (the
  initiative system decides who acts and when, not what one blow does), and the
  answer says so (`in_turn`).
- Under PH-4's structured declaration the actor's turn opens with his declaration:
  his blow is weighed as if it resolved now (the line says so).
- A sealed declaration counts only when its reveal is given (the shell reads it from
  the GM's secrets, as for the blow itself); without it the odds are refused.
- Fudge points, aspects and other spends after the roll are not weighed: the odds
  are those of the dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import msgspec
from msgspec import Struct

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import decide
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState, replace
from fudge_combat.engine.kernel.weighing import add_chance, every_roll
from fudge_combat.engine.odds.duel import apply, profile_of
from fudge_combat.engine.rulesets.fudge.sides import combatant
from fudge_combat.engine.turns import current_actor, still_fights as standing

SERIOUS = "Hurt"  # the level a line counts "or worse" from, on every ruleset's levels (Fudge's track, Fate's boxes)


class Chance(Struct, frozen=True):
    """One fighter's blows on another in the action weighed."""

    attacker: str
    target: str
    lands: Fraction  # a graze or a hit (Fate: the contest won by 1 or more; a tie is Scratched, no effect: FT-OUT)
    serious: Fraction  # the target marked Hurt or worse by this action
    out: Fraction  # the target no longer standing after it (out of the fight or dead)


class NowOdds(Struct, frozen=True):
    """The exact chances of one action from the fight as it stands."""

    kind: str  # "exchange" or "attack"
    fate: bool
    in_turn: bool  # weighed on the fight as it stands, turn checks included (the pace has no turns, or he may act)
    chances: tuple[Chance, ...]  # the attacker's on the target first; in an exchange the target's back
    runs: int = 0  # the rolls weighed (each a run of `decide`): what the odds cost
    note: str = ""  # how it was weighed otherwise: "out of turn", or "as if it resolved now" (PH-4 structured)

    def line(self) -> str:
        """`Snorri hits Brynhild 58.4% (Hurt or worse 31.2%, out 4.1%)`, one clause per direction."""
        verb = "beats" if self.fate else "hits"
        parts = [f"{c.attacker} {verb} {c.target} {percent(c.lands)} ({SERIOUS} or worse {percent(c.serious)}, "
                 f"out {percent(c.out)})" for c in self.chances]
        return "; ".join(parts) + (f" [{self.note}]" if self.note else "")


def percent(chance: Fraction) -> str:
    """One decimal, never rounded to a certainty or an impossibility it is not."""
    text = f"{float(chance) * 100:.1f}%"
    if text == "0.0%" and chance > 0:
        return "<0.1%"
    if text == "100.0%" and chance < 1:
        return ">99.9%"
    return text


def foes_standing(state: FightState, attacker: Combatant) -> list[Combatant]:
    """The likely targets of an attacker: everyone of another side still standing, in join order."""
    return [c for c in state.combatants.values() if c.side != attacker.side and standing(state, c)]


def command_now(state: FightState, attacker: Combatant, target: Combatant,
                reveals: Sequence[cmd.Reveal] = ()) -> tuple[str, Any]:
    """The command of the attacker's next action on the target under the fight's ruleset and pace."""
    return profile_of(state).command_now(state, attacker, target, reveals)


class Costly(Exception):
    """More rolls to weigh than the budget allows (many damage or luck dice, many foes)."""


def odds_now(state: FightState, attacker: str | None, target: str,
             reveals: Sequence[cmd.Reveal] = (), budget: int | None = None) -> NowOdds:
    """The exact chances of `attacker`'s next action on `target` (attacker None: whoever has the turn).

    `budget`: the most rolls of the action to weigh (each a run of `decide`), else `Costly` is raised."""
    foe = combatant(state, target)
    if attacker is None:
        actor = current_actor(state)
        if actor is None:
            raise RuleError("nobody has the turn: name the attacker (`fudge odds --fight ATTACKER TARGET`)")
    else:
        actor = combatant(state, attacker)
    if foe.key == actor.key:
        whose = " (the one with the turn)" if attacker is None else ""
        raise RuleError(f"the attacker{whose} and the target are both {actor.name}: name another target")
    for who in (actor, foe):
        if not standing(state, who):
            raise RuleError(f"{who.name} is out of the fight: no odds to weigh")
    sealed = [state.combatants[k].name for k in state.sealed if k in (actor.key, foe.key)]
    missing = [n for n in sealed if n.lower() not in {r.combatant.lower() for r in reveals}]
    if missing:
        raise RuleError(f"{missing[0]}'s declaration is sealed and its reveal was not given: the odds cannot count it")
    kind, command = command_now(state, actor, foe, reveals)
    now = current_actor(state)
    his_turn = now is None and state.options.initiative == "none" or now is not None and now.key == actor.key
    declaring = state.turn is not None and state.turn.step == "declare"
    if his_turn and declaring:  # PH-4 structured: the blow resolves once the phase has declared
        return _weigh(_out_of_turn(state), command, kind, actor, foe, "as if it resolved now", budget)
    try:  # another may act now beside the one with the turn (Atari Isev's equal totals, AI-INIT-2)
        return _weigh(state, command, kind, actor, foe, "", budget)
    except RuleError:
        if his_turn:
            raise  # the rules refuse the action itself
        return _weigh(_out_of_turn(state), command, kind, actor, foe, "out of turn", budget)


def _out_of_turn(state: FightState) -> FightState:
    """The fight with its turn checks left out, as `fudge odds` weighs sheets: the blow as if made now."""
    return replace(state, options=msgspec.structs.replace(state.options, initiative="none"), turn=None,
                   part=state.part.out_of_turn())


def _weigh(state: FightState, command: Any, kind: str, actor: Combatant, foe: Combatant, note: str,
           budget: int | None) -> NowOdds:
    fate = ruleset_of(state).boxes  # harm in Fate's boxes (FT-TRACK): its contests are told as "beats"
    profile = profile_of(state)  # the ruleset's levels, and the first that did something
    serious_at, effect_at = profile.levels.index(SERIOUS), profile.effect_at
    runs = [0]

    def run(dice: Any) -> list[Any]:
        runs[0] += 1
        if budget is not None and runs[0] > budget:
            raise Costly(f"more than {budget} rolls to weigh")
        return decide(state, command, dice)

    grouped: dict[Any, tuple[Fraction, Any]] = {}
    for chance, events in every_roll(run):
        outcome = profile.outcome(events)
        add_chance(grouped, (outcome, _marks(events)), chance, events)  # alike outcomes are folded once
    pairs = [(actor.key, foe.key)] + ([(foe.key, actor.key)] if kind == "exchange" else [])
    lands = dict.fromkeys(pairs, Fraction(0))
    serious = dict.fromkeys(pairs, Fraction(0))
    out = dict.fromkeys(pairs, Fraction(0))
    for (outcome, _), (chance, events) in grouped.items():
        after = apply(state, events)
        for a, d in pairs:
            blows = [b for b in outcome.blows if b[0].lower() == a and b[1].lower() == d]
            if any(level >= effect_at for *_, level in blows):
                lands[(a, d)] += chance
            if any(level >= serious_at for *_, level in blows):
                serious[(a, d)] += chance
            if not standing(after, after.combatants[d]):
                out[(a, d)] += chance
    name = {actor.key: actor.name, foe.key: foe.name}
    chances = tuple(Chance(name[a], name[d], lands[(a, d)], serious[(a, d)], out[(a, d)]) for a, d in pairs)
    return NowOdds(kind, fate, not note, chances, runs[0], note)


OFFER_BUDGET = 1000  # rolls weighed for the lines after `fudge next`, all foes together (bench/odds_now.py)


def odds_offered(state: FightState, reveals: Sequence[cmd.Reveal] = (), budget: int = OFFER_BUDGET) -> list[str]:
    """After the turn passes: one line per foe standing with the odds of the actor's blow on him, or one
    hint line when weighing them all would cost more than `budget` rolls. Nothing when nobody has the turn."""
    actor = current_actor(state)
    if actor is None or not standing(state, actor):
        return []
    foes = foes_standing(state, actor)
    hint = [f"odds: `fudge odds --fight TARGET` weighs {actor.name}'s blow on one of {len(foes)} foes"]
    lines = []
    for foe in foes:
        try:
            found = odds_now(state, None, foe.name, reveals, budget)
        except Costly:
            return hint
        except RuleError as exc:  # a sealed declaration without its reveal, a pace with no blows
            return [f"odds: not weighed ({exc})"]
        budget -= found.runs
        lines.append(f"odds: {found.line()}")
    return lines


MARKS = ("WoundMarked", "StunMarked", "FateBoxMarked", "CombatantKilled", "LocationWounded")


def _marks(events: Sequence[Any]) -> tuple[str, ...]:
    """What of an action's events the tracks read: outcomes alike in these leave the same fighters standing."""
    return tuple(repr(e) for e in events if type(e).__name__ in MARKS)
