"""Exact odds: the probability of every outcome of one action, and of a whole duel, from the dice.

Nothing here restates a rule. Every outcome comes from the engine's own
functions run with each possible roll, weighted by its exact probability
(`fractions.Fraction`): `every_roll` runs a pure function with dice that
answer each roll it asks for with one of its possible results, and branches
on every result in turn, so whatever the rules roll (the action rolls, a
damage roll of any mode, a 3d6 for min-mid-max, a Damage Capacity roll) is
weighed without this module knowing which rolls a rule makes.

- `single_action`: one `fudge exchange` (simultaneous pace), one Fate exchange
  (each acting against the other), or one `fudge attack` (alternating pace,
  any ruleset) through `decide` itself.
- `duel`: a whole fight of simultaneous exchanges between two fighters, as a
  Markov chain over both wound tracks. Each ruleset's package declares its
  steps (its `odds` module's `ODDS`, `kernel.weighing.OddsProfile`): under
  Fudge a round's sides come from `sides.blow_sides`, its hits from
  `settle.settle_exchange`, its marks from `settle.wound_events` (F-DC,
  F-DEATH); under Fate from `fate.build_side`, `fate.contests` and
  `fate.mark_events`; the next state from `evolve`, which the chain hands in.
  Tests hold each round against `decide` itself, every roll weighed.

Readings taken:
- A single attack is weighed on the fight as it stands before any turn:
  the initiative system decides who acts and when, not what one blow does,
  so its turn checks are left out (options are read with initiative "none").
- In a duel both fighters keep the same declaration every round, spend no
  fudge points and take no other action; it ends when either cannot act
  (F-WND-1). A round in which nobody's track changes is a stand-off repeated:
  the chain's self-loop, solved exactly by dividing by 1 - p(stay).
- The 4dF action rolls are weighed by their sums (1, 4, 10, 16, 19, 16, 10, 4,
  1 in 81): the rules read a Fudge roll's total, parity included. Dice of N
  sides are weighed by their sorted faces (min-mid-max reads only those).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import msgspec
from msgspec import Struct, field
from msgspec.structs import replace

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import decide
from fudge_combat.engine.evolve import evolve
from fudge_combat.engine.kernel import weighing
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.registry import ruleset_part
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.engine.kernel.weighing import (ONE, OddsProfile, ScriptedDice, every_roll,  # noqa: F401 (read by tests)
                                                 fudge_sums, tally)
from fudge_combat.events import structs as ev


def apply(state: FightState, events: Sequence[Any]) -> FightState:
    """Fold events into the state with `evolve`, as the store would after appending them."""
    return weighing.apply(evolve, state, events)


# --- a fight to weigh -----------------------------------------------------------------

def setup(rules: str, options: RuleOptions, sheets: Sequence[tuple[dict[str, Any], str]]) -> tuple[FightState, list[str]]:
    """A fight with these sheets joined (a second sheet of the same name joins as `NAME 2`)."""
    state = FightState()
    state = apply(state, decide(state, cmd.StartFight(name="odds", rules=rules, options=json_form(options),
                                                      seed_commitment="", stream=""), ScriptedDice(())))
    names: list[str] = []
    for sheet, source in sheets:
        name = str(sheet.get("name", source))
        if state.find(name) is not None:
            name = f"{name} {len(names) + 1}"
        state = apply(state, decide(state, cmd.Join(sheet=sheet, source=source, name=name), ScriptedDice(())))
        names.append(name)
    return state, names


class Match(Struct, frozen=True):
    """Who fights whom, with what declarations and GM modifiers (kept every round of a duel)."""

    first: str
    second: str
    declarations: Mapping[str, ev.Declaration] = field(default_factory=dict)  # by name, any case
    mods: tuple[int, int] = (0, 0)

    def declared(self) -> dict[str, ev.Declaration]:
        return {k.lower(): v for k, v in self.declarations.items()}


# --- one action -----------------------------------------------------------------------


class Odds(Struct, frozen=True):
    """Exact probabilities: of each outcome, and of the wound level each fighter takes."""

    kind: str  # "exchange" or "attack"
    fighters: tuple[str, str]
    outcomes: tuple[tuple[str, Fraction], ...]  # label, probability; most likely first
    wounds: tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...]  # fighter -> (level taken, probability)
    hits: tuple[tuple[str, Fraction], ...]  # fighter -> probability of landing a blow (graze or hit)
    grazes: tuple[tuple[str, Fraction], ...]  # fighter -> probability of a graze (RD +1); none under Fate
    ruleset: str = "fudge"


def action_command(state: FightState, match: Match) -> tuple[str, Any]:
    """The command of one action under the fight's ruleset and pace."""
    return profile_of(state).command(state, match)


def single_action(state: FightState, match: Match) -> Odds:
    """The exact odds of one exchange (simultaneous pace, or Fate's exchange) or one attack by `first` on
    `second` (turns).

    The action goes through `decide` with every possible roll: declarations are made
    with the fight's own Declare command first, so each rule sees what it sees at the table.
    """
    kind, command = action_command(state, match)
    state = replace(state, options=msgspec.structs.replace(state.options, initiative="none"))  # no turn checks
    state = declare(state, match)
    profile = profile_of(state)
    weighted = [(p, profile.outcome(events)) for p, events in every_roll(lambda dice: decide(state, command, dice))]
    by_outcome = tally(weighted)
    names = (state.combatants[match.first.lower()].name, state.combatants[match.second.lower()].name)
    wounds = []
    for name in names:
        taken = tally([(p, max([lvl for _, d, _, lvl in o.blows if d == name], default=0)) for p, o in weighted])
        wounds.append((name, tuple((profile.levels[level], p) for level, p in sorted(taken.items()))))
    hits = tuple((n, sum((p for p, o in weighted if any(a == n for a, *_ in o.blows)), Fraction(0))) for n in names)
    grazes = () if not profile.grazes else tuple(
        (n, sum((p for p, o in weighted if any(a == n and g for a, _, g, _ in o.blows)), Fraction(0))) for n in names)
    ordered = sorted(by_outcome.items(), key=lambda item: (-item[1], item[0].label(kind, names[1])))
    return Odds(kind, names, tuple((o.label(kind, names[1]), p) for o, p in ordered), tuple(wounds), hits, grazes,
                state.options.ruleset)


def declare(state: FightState, match: Match) -> FightState:
    """Each declaration through the Declare command (under Atari Isev it takes effect at the next round)."""
    for name, declaration in match.declarations.items():
        if declaration != ev.Declaration():
            state = apply(state, decide(state, cmd.Declare(combatant=name, declaration=declaration), ScriptedDice(())))
    if state.pending:
        state = apply(state, decide(state, cmd.StartRound(), ScriptedDice(())))
    return state


# --- a whole duel -----------------------------------------------------------------------

StateKey = Hashable
End = tuple[int, int, bool, bool]  # both levels at the end, and whether each can still act


class DuelOdds(Struct):
    """Exact probabilities of a whole duel's end."""

    fighters: tuple[str, str]
    winners: tuple[tuple[str, Fraction], ...]  # first's name, second's name, "neither" (both fall together)
    finals: tuple[tuple[tuple[str, str], Fraction], ...]  # (first's level, second's level) at the end
    expected_rounds: Fraction
    states: int  # track states of the chain


class _Chain(Struct):
    match: Match
    first: str
    second: str
    settled: dict[Hashable, Any] = field(default_factory=dict)  # a round's weighed rolls, by what they depend on
    edges: dict[StateKey, tuple[list[tuple[StateKey, Fraction]], Fraction]] = field(default_factory=dict)
    ends: dict[StateKey, End] = field(default_factory=dict)  # states where one (or both) cannot act
    order: list[StateKey] = field(default_factory=list)
    on_path: set[StateKey] = field(default_factory=set)
    profile: OddsProfile = field(default_factory=lambda: odds_profile("fudge"))  # the ruleset's steps

    def key(self, state: FightState) -> StateKey:
        return tuple(self.steps.key(state, k) for k in (self.first, self.second))

    def apply(self, state: FightState, events: Sequence[Any]) -> FightState:
        return apply(state, events)

    @property
    def steps(self) -> OddsProfile:
        return self.profile

    def acts(self, state: FightState, key: str) -> bool:
        return self.steps.acts(state, key)

    def level(self, state: FightState, key: str) -> int:
        return self.steps.level(state, key)


def duel(state: FightState, match: Match) -> DuelOdds:
    """A whole duel of simultaneous exchanges (F-PACE-2, or Fate's FT-PACE exchanges) as a Markov chain
    over both wound tracks.

    Each state's round is weighed exactly: the action rolls of both, any damage or
    Damage Capacity roll, each hit's mark placed by the engine; a round that changes
    nothing is a self-loop. Memoised by the two tracks, so it runs once per state.
    """
    profile = profile_of(state)
    profile.command(state, match)  # what one action refuses (story pace, Fate's other paces) a duel refuses too
    profile.check_duel(state)
    first, second = state.combatants[match.first.lower()], state.combatants[match.second.lower()]
    if state.options.plus_levels and (first.fighter.plus or second.fighter.plus):
        raise RuleError("plus levels (F-FANCY-2) add +1 on even rounds only, which a chain over wound tracks "
                        "cannot follow: drop --duel for one exchange, or write the levels without +")
    chain = _Chain(match, first.key, second.key, profile=profile)
    start = _explore(chain, state)
    ends, rounds = _flow(chain, start)
    names = (first.name, second.name)
    winners: dict[str, Fraction] = {names[0]: Fraction(0), names[1]: Fraction(0), "neither": Fraction(0)}
    finals: dict[tuple[str, str], Fraction] = {}
    level_names = profile.levels
    for (level_a, level_b, a_acts, b_acts), p in ends.items():
        final = (level_names[level_a], level_names[level_b])
        finals[final] = finals.get(final, Fraction(0)) + p
        winner = names[0] if a_acts else names[1] if b_acts else "neither"
        winners[winner] += p
    ordered = sorted(finals.items(), key=lambda item: -item[1])
    return DuelOdds(names, tuple(winners.items()), tuple(ordered), rounds, len(chain.order))


def _explore(chain: _Chain, state: FightState) -> StateKey:
    """Every state the duel can reach from this one, each round weighed once; the order is a post-order."""
    a, b = state.combatants[chain.first], state.combatants[chain.second]
    key = chain.key(state)
    if key in chain.ends or key in chain.edges:
        return key
    a_acts, b_acts = chain.acts(state, chain.first), chain.acts(state, chain.second)
    if not (a_acts and b_acts):
        chain.ends[key] = (chain.level(state, chain.first), chain.level(state, chain.second), a_acts, b_acts)
        chain.order.append(key)
        return key
    if key in chain.on_path:
        raise RuleError("a duel state repeats after a change: the chain is not acyclic")
    chain.on_path.add(key)
    stay = Fraction(0)
    onward: list[tuple[StateKey, Fraction]] = []
    moves = chain.steps.transitions(chain, state)
    for after_key, (chance, after) in moves.items():
        if after_key == key:
            stay += chance
        else:
            onward.append((_explore(chain, after), chance))
    chain.on_path.discard(key)
    if stay == 1:
        raise RuleError(f"{a.name} and {b.name} cannot change each other's wounds here: the duel never ends")
    chain.edges[key] = (onward, 1 / (1 - stay))
    chain.order.append(key)
    return key


def _flow(chain: _Chain, start: StateKey) -> tuple[dict[End, Fraction], Fraction]:
    """The chance of each end and the expected rounds, pushing the chance of reaching each state forward.

    Tracks only worsen, so no state is reached twice: a state reached with chance m is left after
    1/(1 - p(stay)) rounds on average, to each other state with its chance / (1 - p(stay)).
    """
    reach: dict[StateKey, Fraction] = {start: ONE}
    ends: dict[End, Fraction] = {}
    rounds = Fraction(0)
    for key in reversed(chain.order):  # a reversed post-order visits every state after all that lead to it
        mass = reach.get(key)
        if not mass:
            continue
        if key in chain.ends:
            end = chain.ends[key]
            ends[end] = ends.get(end, Fraction(0)) + mass
            continue
        onward, scale = chain.edges[key]
        leaving = mass * scale
        rounds += leaving
        for after, chance in onward:
            reach[after] = reach.get(after, Fraction(0)) + leaving * chance
    return ends, rounds


def profile_of(state: FightState) -> OddsProfile:
    """The odds of the fight's ruleset, declared in its package (its `odds` module's `ODDS`)."""
    return odds_profile(state.options.ruleset)


def odds_profile(ruleset: str) -> OddsProfile:
    """The odds the ruleset named `ruleset` declares (RuleError: it declares none)."""
    module = ruleset_part(ruleset, "odds")
    if module is None:
        raise RuleError(f"the {ruleset} rules declare no exact odds: weigh them at the table")
    profile: OddsProfile = module.ODDS
    return profile
