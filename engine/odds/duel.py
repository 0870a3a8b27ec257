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
  Markov chain over both wound tracks. A round's sides come from
  `sides.blow_sides`, its hits from `settle.settle_exchange`, its marks from
  `settle.wound_events` (F-DC, F-DEATH), and the next state from `evolve`;
  under Fate from `fate.build_side`, `fate.contests` and `fate.mark_events`.
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
from dataclasses import InitVar, dataclass, field, replace
from fractions import Fraction
from typing import Any

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import decide
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.melee_mods import is_static_npc
from fudge_combat.engine.odds.fate import FATE_LEVELS, FATE_ODDS, FATE_SEVERITY, fate_key, fate_transitions  # noqa: F401 (read by tests)
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.rulesets.fudge.rolls import damage_roller
from fudge_combat.engine.rulesets.fudge.settle import min_hit_for, settle_exchange, wound_events
from fudge_combat.engine.rulesets.fudge.sides import blow_sides, with_roll
from fudge_combat.engine.rulesets.fudge.tracks import SCRATCHES_PER_HIT, DamageCapacityTrack
from fudge_combat.engine.odds.weighing import (ONE, OddsProfile, ScriptedDice, add_chance, apply, every_roll, fudge_sums, states_by_key,
                             tally)
from fudge_combat.engine.kernel.wounds import LEVELS, SCRATCH
from fudge_combat.events import models as ev
from fudge_combat.engine.kernel.state import Combatant, FightState


# --- a fight to weigh -----------------------------------------------------------------

def setup(rules: str, options: RuleOptions, sheets: Sequence[tuple[dict[str, Any], str]]) -> tuple[FightState, list[str]]:
    """A fight with these sheets joined (a second sheet of the same name joins as `NAME 2`)."""
    state = FightState()
    state = apply(state, decide(state, cmd.StartFight(name="odds", rules=rules, options=options.model_dump(mode="json"),
                                                      seed_commitment="", stream=""), ScriptedDice(())))
    names: list[str] = []
    for sheet, source in sheets:
        name = str(sheet.get("name", source))
        if state.find(name) is not None:
            name = f"{name} {len(names) + 1}"
        state = apply(state, decide(state, cmd.Join(sheet=sheet, source=source, name=name), ScriptedDice(())))
        names.append(name)
    return state, names


@dataclass(frozen=True)
class Match:
    """Who fights whom, with what declarations and GM modifiers (kept every round of a duel)."""

    first: str
    second: str
    declarations: Mapping[str, ev.Declaration] = field(default_factory=dict)  # by name, any case
    mods: tuple[int, int] = (0, 0)

    def declared(self) -> dict[str, ev.Declaration]:
        return {k.lower(): v for k, v in self.declarations.items()}


# --- one action -----------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One distinguishable result of an action: its blows, each as (attacker, defender, graze, level marked).

    Levels index `LEVELS` (Fudge wound levels) or, under Fate, `FATE_LEVELS` (the box marked).
    """

    blows: tuple[tuple[str, str, bool, int], ...]
    stuns: tuple[tuple[str, str], ...] = ()
    fate: bool = False

    def label(self, kind: str, defender: str) -> str:
        if not self.blows and not self.stuns:
            return "stand-off" if kind == "exchange" else f"{defender} is not hit"
        if self.fate:
            return "; ".join(f"{a} beats {d}: {FATE_LEVELS[level]}" for a, d, _, level in self.blows)
        parts = [f"{a} {'grazes' if graze else 'hits'} {d}: {LEVELS[level] if level else 'no wound'}"
                 for a, d, graze, level in self.blows]
        parts += [f"{who}: {effect.replace('_', ' ')}" for who, effect in self.stuns]
        return "; ".join(parts)


def outcome_of(events: Sequence[Any]) -> Outcome:
    """What an action's events did: each hit with the level its mark took (after F-DC, F-DEATH), and stuns;
    under Fate each contest won with the box it marked (FT-TRACK-2), or Scratched."""
    fate = next((e for e in events if isinstance(e, ev.FateResolved)), None)
    if fate is not None:
        boxes = {e.combatant.lower(): FATE_SEVERITY[e.box] for e in events if isinstance(e, ev.FateBoxMarked)}
        won = tuple((c.attacker, c.defender, False, boxes.get(c.defender.lower(), FATE_SEVERITY["scratched"]))
                    for c in fate.contests if c.outcome != "none")
        return Outcome(won, fate=True)
    resolved = next(e for e in events if isinstance(e, ev.ExchangeResolved))
    marked: dict[str, int] = {}
    for event in events:
        if isinstance(event, ev.WoundMarked):
            marked[event.combatant.lower()] = max(marked.get(event.combatant.lower(), 0), event.level)
    blows = tuple((h.attacker, h.defender, h.graze, marked.get(h.defender.lower(), 0)) for h in resolved.hits)
    stuns = tuple((e.combatant, e.effect) for e in events if isinstance(e, ev.StunMarked))
    return Outcome(blows, stuns)


@dataclass(frozen=True)
class Odds:
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


def fudge_command(state: FightState, match: Match) -> tuple[str, Any]:
    """One action under Fudge or Atari Isev: an exchange (simultaneous pace) or a directed attack."""
    opts = state.options
    if opts.pace == "story":
        raise RuleError("a story-paced fight (F-PACE-1) has no exchanges to weigh: use --rules fudge or another preset")
    if opts.pace == "simultaneous":
        return "exchange", cmd.Exchange(first=match.first, second=match.second, mods=match.mods)
    return "attack", cmd.Attack(attacker=match.first, target=match.second, mod=match.mods[0],
                                defense_mod=match.mods[1])


def single_action(state: FightState, match: Match) -> Odds:
    """The exact odds of one exchange (simultaneous pace, or Fate's exchange) or one attack by `first` on
    `second` (turns).

    The action goes through `decide` with every possible roll: declarations are made
    with the fight's own Declare command first, so each rule sees what it sees at the table.
    """
    kind, command = action_command(state, match)
    state = replace(state, options=state.options.model_copy(update={"initiative": "none"}))  # no turn checks
    state = declare(state, match)
    weighted = [(p, outcome_of(events)) for p, events in every_roll(lambda dice: decide(state, command, dice))]
    by_outcome = tally(weighted)
    names = (state.combatants[match.first.lower()].name, state.combatants[match.second.lower()].name)
    profile = profile_of(state)
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


@dataclass
class DuelOdds:
    """Exact probabilities of a whole duel's end."""

    fighters: tuple[str, str]
    winners: tuple[tuple[str, Fraction], ...]  # first's name, second's name, "neither" (both fall together)
    finals: tuple[tuple[tuple[str, str], Fraction], ...]  # (first's level, second's level) at the end
    expected_rounds: Fraction
    states: int  # track states of the chain


@dataclass
class _Chain:
    match: Match
    first: str
    second: str
    settled: dict[Hashable, list[tuple[Fraction, tuple[ev.Hit, ...]]]] = field(default_factory=dict)
    edges: dict[StateKey, tuple[list[tuple[StateKey, Fraction]], Fraction]] = field(default_factory=dict)
    ends: dict[StateKey, End] = field(default_factory=dict)  # states where one (or both) cannot act
    order: list[StateKey] = field(default_factory=list)
    on_path: set[StateKey] = field(default_factory=set)
    profile: OddsProfile | None = None  # None: Fudge's, or Fate's with fate=True (a chain built by hand)
    fate: InitVar[bool] = False

    def __post_init__(self, fate: bool) -> None:
        if self.profile is None:
            self.profile = FATE_ODDS if fate else FUDGE_ODDS

    def key(self, state: FightState) -> StateKey:
        return tuple(self.steps.key(state, k) for k in (self.first, self.second))

    @property
    def steps(self) -> OddsProfile:
        assert self.profile is not None  # set in __post_init__
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


def round_transitions(chain: _Chain, state: FightState) -> dict[StateKey, tuple[Fraction, FightState]]:
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
    started = apply(state, [ev.RoundStarted(round=state.round + 1)])
    by_marks: dict[tuple[Any, ...], tuple[Fraction, tuple[Any, ...]]] = {}
    for chance, hits in hits_by_chance:
        for p, marks in every_roll(lambda dice: wound_events(action, hits, state, sides, True, dice=dice)):
            kept = tuple(e for e in marks if isinstance(e, (ev.WoundMarked, ev.StunMarked)))
            same = tuple((e.type, e.combatant, getattr(e, "level", None), getattr(e, "effect", None),
                          getattr(e, "still_ticking", None)) for e in kept)  # what the track reads of a mark
            add_chance(by_marks, same, chance * p, kept)
    return states_by_key(started, by_marks, chain.key)


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


FUDGE_ODDS = OddsProfile(name="fudge", levels=LEVELS, grazes=True, command=fudge_command,
                         check_duel=fudge_duel_check, key=lambda state, k: track_key(state.combatants[k]),
                         acts=fudge_acts, level=fudge_level, transitions=round_transitions)
# Atari Isev's blows mark Fudge's wound track: its odds are weighed as Fudge's
ODDS_PROFILES: dict[str, OddsProfile] = {"fudge": FUDGE_ODDS, "atari-isev": FUDGE_ODDS, "fate": FATE_ODDS}


def profile_of(state: FightState) -> OddsProfile:
    """The odds profile of the fight's ruleset."""
    return ODDS_PROFILES[state.options.ruleset]
