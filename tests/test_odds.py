"""Exact odds (`engine.odds.duel`): hand-computed fractions and the duel chain against the real engine
(`tests/test_odds_sim.py` holds whole duels against `fudge sim`).

4dF sums weigh 1, 4, 10, 16, 19, 16, 10, 4, 1 out of 81 (C-DICE-1). For two independent
4dF rolls X and Y, with D = X - Y (symmetric):
  P(D = 0) = (1 + 16 + 100 + 256 + 361 + 256 + 100 + 16 + 1) / 6561 = 1107/6561
  P(D = 1) = (4 + 40 + 160 + 304 + 304 + 160 + 40 + 4) / 6561 = 1016/6561
  P(D = 2) = (10 + 64 + 190 + 256 + 190 + 64 + 10) / 6561 = 784/6561
  P(D >= 0) = (6561 + 1107) / 2 / 6561 = 3834/6561;  P(D >= 1) = 2727/6561;  P(D >= 3) = 927/6561
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import decide
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.odds.duel import Match, _Chain, apply, duel, every_roll, fudge_sums, setup, single_action
from fudge_combat.engine.rulesets.fate.odds import ODDS as FATE_ODDS, fate_transitions
from fudge_combat.engine.rulesets.fudge.odds import round_transitions, track_key
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from tests.conftest import sheet


def fight(rules: str = "fudge", sheets: tuple[dict[str, Any], ...] = (), **options: Any) -> Any:
    """A fight with these sheets joined, under a preset with option overrides (as a house file sets them)."""
    house = None
    if options:
        import json
        house = "\n".join([f'extends = "{rules}"'] + [f"{k} = {json.dumps(v)}" for k, v in options.items()])
    label, resolved = resolve(rules, house)
    return setup(label, resolved, [(s, s["name"]) for s in sheets])


def fencer(name: str, skill: str, **extra: Any) -> dict[str, Any]:
    return sheet(name, skills={"Sword": skill}, attack="Sword", **extra)


def outcome(odds: Any, label: str) -> Fraction:
    return dict(odds.outcomes).get(label, Fraction(0))


def test_fudge_sums_are_the_4df_table() -> None:
    """C-DICE-1: 4dF totals -4..+4 weigh 1,4,10,16,19,16,10,4,1 out of 81."""
    assert fudge_sums(4) == ((-4, 1), (-3, 4), (-2, 10), (-1, 16), (0, 19), (1, 16), (2, 10), (3, 4), (4, 1))


def test_skill_plus_two_beats_plus_one_exactly() -> None:
    """F-MEL-1, F-MEL-2, C-DICE-1: Great (+2) against Good (+1), 4dF each, one exchange: the first hits
    when X >= Y (3834/6561, icepool's figure), a stand-off when Y - X = 1, the second hits when Y - X >= 2.
    Both always reach Poor, so the minimum hit level never stops a winner."""
    state, names = fight(sheets=(fencer("Ann", "Great"), fencer("Bob", "Good")))
    odds = single_action(state, Match(*names))
    assert dict(odds.hits) == {"Ann": Fraction(3834, 6561), "Bob": Fraction(1711, 6561)}
    assert outcome(odds, "stand-off") == Fraction(1016, 6561)
    assert dict(odds.grazes)["Ann"] == Fraction(1107, 6561)  # RD +1: X = Y
    assert dict(odds.grazes)["Bob"] == Fraction(784, 6561)  # RD -1 for Ann: Y - X = 2
    assert sum(p for _, p in odds.outcomes) == 1


def test_single_attack_under_turns_is_one_directed_blow() -> None:
    """F-PACE-3, F-MEL-2: under fudge-phases Ann attacks and Bob only defends: Ann hits when X >= Y,
    and Bob never hurts her; a GM +1 to the attack makes it X - Y >= -1."""
    state, names = fight("fudge-phases", sheets=(fencer("Ann", "Great"), fencer("Bob", "Good")))
    odds = single_action(state, Match(*names))
    assert dict(odds.hits) == {"Ann": Fraction(3834, 6561), "Bob": Fraction(0)}
    assert outcome(odds, "Bob is not hit") == Fraction(2727, 6561)
    # +1 to the attack: a hit when X - Y >= -1, i.e. 1 - P(D >= 2) = 1 - (2727 - 1016) / 6561
    plus_one = single_action(state, Match(*names, mods=(1, 0)))
    assert dict(plus_one.hits)["Ann"] == 1 - Fraction(2727 - 1016, 6561)


def test_all_out_defense_and_shield_move_the_odds_as_the_modifiers_say() -> None:
    """F-MOD-3, F-MOD-7: Bob's medium shield (-1 to Ann) and all-out defense (+2, and he cannot hurt Ann):
    Ann at +2 - 1 = +1 faces Bob at +1 + 2 = +3: she hits when X - Y >= 3, 927/6561."""
    state, names = fight(sheets=(fencer("Ann", "Great"), fencer("Bob", "Good", shield="medium")))
    odds = single_action(state, Match(*names, declarations={"Bob": ev.Declaration(all_out="defense")}))
    assert dict(odds.hits) == {"Ann": Fraction(927, 6561), "Bob": Fraction(0)}


def test_every_preset_weighs_one_action() -> None:
    """Every preset has one action to weigh, and its outcomes sum to exactly 1."""
    from fudge_combat.engine.kernel.presets import PRESETS
    for preset in PRESETS:
        state, names = fight(preset, sheets=(fencer("Ann", "Great", weapon=2), fencer("Bob", "Good", armor=1)))
        odds = single_action(state, Match(*names))
        assert sum(p for _, p in odds.outcomes) == 1, preset
        assert 0 < dict(odds.hits)["Ann"] < 1, preset


def test_duel_that_one_blow_ends_has_the_geometric_odds() -> None:
    """F-MEL-1, F-GRAZE-1, F-WND-1: weapons of +20 put anyone hit at RD 2+ Near Death, and a graze table
    no factor reaches makes grazes harmless. Each round Ann (+2) ends it with P(D >= 1) = 2727/6561,
    Bob (+1) with P(D <= -3) = 927/6561, else the round changes nothing. So Ann wins with
    2727 / (2727 + 927) = 303/406, and the duel lasts 6561 / 3654 = 729/406 rounds on average."""
    state, names = fight(sheets=(fencer("Ann", "Great", weapon=20), fencer("Bob", "Good", weapon=20)),
                         graze_table=[100, 100])
    result = duel(state, Match(*names))
    assert dict(result.winners) == {"Ann": Fraction(303, 406), "Bob": Fraction(103, 406), "neither": 0}
    assert result.expected_rounds == Fraction(729, 406)


def test_equal_fighters_win_a_duel_equally_often() -> None:
    """F-PACE-2: two fighters alike, the chain's answer is exactly one half each (symmetry)."""
    state, names = fight(sheets=(fencer("Ann", "Good", weapon=1, armor=1), fencer("Bob", "Good", weapon=1, armor=1)))
    result = duel(state, Match(*names))
    assert dict(result.winners) == {"Ann": Fraction(1, 2), "Bob": Fraction(1, 2), "neither": 0}
    assert sum(p for _, p in result.finals) == 1


def reference_transitions(state: Any, match: Match) -> dict[Any, Fraction]:
    """The real `fudge exchange` with every roll: decide, then fold its events."""
    command = cmd.Exchange(first=match.first, second=match.second, mods=match.mods)
    declared = state
    for name, declaration in match.declarations.items():
        declared = apply(declared, decide(declared, cmd.Declare(combatant=name, declaration=declaration), None))
    out: dict[Any, Fraction] = {}
    first, second = match.first.lower(), match.second.lower()
    for p, events in every_roll(lambda dice: decide(declared, command, dice)):
        after = apply(declared, events)
        key = (track_key(after.combatants[first]), track_key(after.combatants[second]))
        out[key] = out.get(key, Fraction(0)) + p
    return out


def wounded(state: Any, name: str, *levels: int) -> Any:
    """The state after `name` took these wound marks (as if from earlier blows)."""
    return apply(state, [ev.WoundMarked(action=state.last_seq + 1, combatant=name, level=lvl, damage=None)
                         for lvl in levels])


CASES = {
    "default": ({}, {}, {}),
    "4dF limited damage roll": ({"damage_roll": "4dF_limited"}, {}, {}),
    "1dF level shift": ({"damage_roll": "1dF_level"}, {}, {}),
    "parity": ({"damage_roll": "parity"}, {}, {}),
    "min-mid-max": ({"damage_system": "min_mid_max"}, {}, {}),
    "Damage Capacity roll": ({"damage_capacity": "roll", "dc_in_defense": False}, {}, {}),
    "death caps": ({"death_three_levels": True, "death_needs_incapacitated": True}, {}, {}),
    "all-out offense against defense": ({}, {"Ann": "offense", "Bob": "defense"}, {}),
    "postures": ({"tactics": "postures"}, {}, {"Ann": 1, "Bob": -2}),
    "shield and scale": ({}, {}, {"shield": "large", "scale": 1}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_duel_round_is_what_fudge_exchange_does(case: str) -> None:
    """F-MEL-1, F-MEL-2, F-MOD-1, F-MOD-3, F-MOD-6, F-MOD-7, F-TAC-1, F-TAC-4, F-HIT-1, F-DROLL, F-MMM, F-DC, F-DEATH-1,
    F-DEATH-2, F-WND-3: from a wounded state, the chain's round gives the same next states with the same
    probabilities as the real `decide` of an Exchange run with every roll and folded."""
    options, all_out, extra = CASES[case]
    posture = {k: v for k, v in extra.items() if k in ("Ann", "Bob")}
    bob_extra = {k: v for k, v in extra.items() if k not in ("Ann", "Bob")}
    state, names = fight(sheets=(fencer("Ann", "Great", weapon=2, armor=1, attributes={"Damage Capacity": "Good"}),
                                 fencer("Bob", "Good", weapon=3, armor=2, **bob_extra)), **options)
    state = wounded(state, "Ann", 1)
    state = wounded(state, "Bob", 2)
    declarations = {n: ev.Declaration(all_out=all_out.get(n), posture=posture.get(n)) for n in names
                    if n in all_out or n in posture}
    match = Match(*names, declarations=declarations)
    chain = _Chain(match, "ann", "bob")
    ours = {key: p for key, (p, _) in round_transitions(chain, state).items()}
    assert ours == reference_transitions(state, match)
    assert sum(ours.values()) == 1


def test_postures_let_a_duel_end_with_both_down() -> None:
    """F-TAC-4: under postures both may hit in the same round, so both can fall together ("neither")."""
    state, names = fight(sheets=(fencer("Ann", "Good", weapon=3), fencer("Bob", "Good", weapon=3)), tactics="postures")
    all_in = {n: ev.Declaration(posture=2) for n in names}
    result = duel(state, Match(*names, declarations=all_in))
    winners = dict(result.winners)
    assert winners["neither"] > 0 and winners["Ann"] == winners["Bob"]
    assert sum(winners.values()) == 1


def test_a_duel_is_refused_outside_simultaneous_rounds_with_the_reason() -> None:
    """F-PACE-3: under turns a whole duel depends on initiative; one attack is what is offered."""
    state, names = fight("fudge-phases", sheets=(fencer("Ann", "Great"), fencer("Bob", "Good")))
    with pytest.raises(RuleError, match="simultaneous rounds"):
        duel(state, Match(*names))


def test_a_duel_nobody_can_end_is_refused() -> None:
    """F-MOD-7: two all-out defenders never hurt each other: the chain says so instead of looping."""
    state, names = fight(sheets=(fencer("Ann", "Good"), fencer("Bob", "Good")))
    both = {n: ev.Declaration(all_out="defense") for n in names}
    with pytest.raises(RuleError, match="never ends"):
        duel(state, Match(*names, declarations=both))


# --- Fate ------------------------------------------------------------------------------------

def test_fate_exchange_exactly() -> None:
    """FT-PACE, FT-OUT: a Fate exchange between Great and Good fencers, each acting against the other: a tie
    (Y - X = 1) is a Scratch both ways, 1016/6561; Ann wins something when X - Y >= -1 (1 - 1711/6561 =
    4850/6561), Bob when X - Y <= -1 (2727/6561)."""
    state, names = fight("fate", sheets=(fencer("Ann", "Great"), fencer("Bob", "Good")))
    odds = single_action(state, Match(*names))
    assert outcome(odds, "Ann beats Bob: Scratched; Bob beats Ann: Scratched") == Fraction(1016, 6561)
    assert dict(odds.hits) == {"Ann": Fraction(4850, 6561), "Bob": Fraction(2727, 6561)}
    assert odds.grazes == ()


def test_fate_refuses_declarations_with_the_reason() -> None:
    """FT-DEF: Fate has no all-out declarations; the odds say so instead of ignoring them."""
    state, names = fight("fate", sheets=(fencer("Ann", "Great"), fencer("Bob", "Good")))
    with pytest.raises(RuleError, match="Fate has no all-out"):
        single_action(state, Match(*names, declarations={"Ann": ev.Declaration(all_out="offense")}))


@pytest.mark.parametrize("arms", ["dramatic", "simple"])
def test_a_fate_duel_round_is_what_fudge_fate_exchange_does(arms: str) -> None:
    """FT-PACE, FT-OUT, FT-TRACK-2, FT-TRACK-3, FT-SIMPLE: from a state with boxes marked and a clipped -1
    pending, the chain's exchange gives the same next states with the same chances as the real `decide` of
    a FateExchange run with every roll and folded."""
    extra = {"weapon": 2, "armor": 1} if arms == "simple" else {}
    state, names = fight("fate", sheets=(fencer("Ann", "Great", **extra), fencer("Bob", "Good", **extra)), arms=arms)
    state = apply(state, [ev.FateBoxMarked(action=state.last_seq + 1, combatant="Ann", outcome="clipped", box="clipped",
                                           by="Bob"),
                          ev.FateBoxMarked(action=state.last_seq + 1, combatant="Bob", outcome="hurt", box="hurt",
                                           by="Ann")])
    match = Match(*names)
    chain = _Chain(match, "ann", "bob", profile=FATE_ODDS)
    ours = {key: p for key, (p, _) in fate_transitions(chain, state).items()}
    command = cmd.FateExchange(actions=(cmd.FateAction(combatant="Ann", target="Bob"),
                                        cmd.FateAction(combatant="Bob", target="Ann")))
    reference: dict[Any, Fraction] = {}
    for p, events in every_roll(lambda dice: decide(state, command, dice)):
        key = chain.key(apply(state, events))
        reference[key] = reference.get(key, Fraction(0)) + p
    assert ours == reference and sum(ours.values()) == 1
    assert len(ours) > 3


def test_fate_duel_ends_when_one_is_taken_out() -> None:
    """FT-TRACK-1, FT-TRACK-3: a Fate duel (one box of each kind) ends when one is Taken Out; equal fencers
    win it equally often."""
    state, names = fight("fate", sheets=(fencer("Ann", "Good"), fencer("Bob", "Good")), fate_boxes=[1, 1, 1])
    result = duel(state, Match(*names))
    assert dict(result.winners) == {"Ann": Fraction(1, 2), "Bob": Fraction(1, 2), "neither": 0}
    assert all("Taken Out" in ending for ending, _ in result.finals)


LEVEL_NAMES = ("Poor", "Mediocre", "Fair", "Good", "Great", "Superb")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(skills=st.tuples(st.sampled_from(LEVEL_NAMES), st.sampled_from(LEVEL_NAMES)),
       weapons=st.tuples(st.integers(-1, 4), st.integers(-1, 4)), armors=st.tuples(st.integers(0, 3), st.integers(0, 3)),
       wounds=st.tuples(st.lists(st.integers(1, 3), max_size=2), st.lists(st.integers(1, 3), max_size=2)),
       mode=st.sampled_from(["none", "1dF_damage", "parity"]))
def test_any_duel_round_is_what_fudge_exchange_does(skills: Any, weapons: Any, armors: Any, wounds: Any,
                                                     mode: str) -> None:
    """F-MEL-1, F-MEL-2, F-MOD-1, F-DROLL, F-WND-3: for any two fencers, weapons, armor, damage-roll mode and
    earlier wounds that leave both able, the chain's round is the real exchange, every roll weighed."""
    sheets = (fencer("Ann", skills[0], weapon=weapons[0], armor=armors[0]),
              fencer("Bob", skills[1], weapon=weapons[1], armor=armors[1]))
    state, names = fight(sheets=sheets, damage_roll=mode)
    state = wounded(wounded(state, "Ann", *wounds[0]), "Bob", *wounds[1])
    assume(all(c.track.can_act for c in state.combatants.values()))
    match = Match(*names)
    chain = _Chain(match, "ann", "bob")
    ours = {key: p for key, (p, _) in round_transitions(chain, state).items()}
    assert ours == reference_transitions(state, match)
