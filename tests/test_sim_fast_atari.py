"""The fast path for Atari Isev duels (`engine.rulesets.atari_isev.fast`) against the engine, fight for fight.

For random sheets, options, policies and seeds inside what it takes, every fight has the same winner,
rounds and final wound levels whether the engine (`sim.runner.simulate_one`: declarations,
StartRound, NextTurn and Attack through decide and fold) or the fast path plays it; just outside, it
declines and the engine plays. `fudge sim --rules atari-isev --json` prints the same statistics
either way, and says which path ran.

Rules restated by the fast path and proven here against the engine: AI-INIT-1, AI-INIT-2 (the order,
the simultaneous slot), AI-ATK-1, AI-ATK-2, AI-POST, AI-DMG-1, AI-GRAZE, AI-SCALE, AI-WND-1, F-HIT-1,
F-WND-3, F-WND-6. A-FAIR-1: the dice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fudge_combat.events.records import json_form
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.rulesets.atari_isev import fast as fast_atari
from fudge_combat.projections.fast import source_digest
from fudge_combat.sim.runner import Opening, Setup, fast_plan, simulate_fast, simulate_one, simulate_range
from tests.conftest import sheet
from tests.fuzzing import fuzz
from tests.processes import fudge
from tests.test_sim_fast import LEVELS, SHEETS, demo, options_of, setup_of

FIGHTS = 12  # fights per example, each played both ways
ATTRIBUTES = ("Health", "Strength", "Agility", "Perception", "Intuition")


def levels() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(LEVELS), st.integers(-4, 4))


@st.composite
def atari_sheets(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """A sheet with what an Atari Isev duel reads: the initiative attributes (or an Initiative trait),
    Health, Strength, an attack skill, a dodge or a parry, weapon, armor, scale, points."""
    attributes = {trait: draw(levels()) for trait in ATTRIBUTES if draw(st.integers(0, 4))}
    skills = {"Sword": draw(levels())}
    defend = draw(st.sampled_from(("Dodge", "Sword Parry", "Sword", None)))
    if defend in ("Dodge", "Sword Parry"):
        skills[defend] = draw(levels())
    if draw(st.integers(0, 5)) == 0:
        skills["Initiative"] = draw(levels())
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["weapon"] = {"name": "weapon", "damage": draw(st.integers(-1, 4)),
                           "muscle_powered": draw(st.integers(0, 3)) > 0}
    if draw(st.booleans()):
        extra["armor"] = {"name": "armor", "protection": draw(st.integers(0, 4))}
    if draw(st.integers(0, 3)) == 0:
        extra["wounds"] = {"boxes": draw(st.tuples(*[st.integers(0, 3)] * 5))}
    data = sheet(name, kind=draw(st.sampled_from(("pc", "npc"))), scale=draw(st.integers(-1, 1)),
                 fudge_points=draw(st.one_of(st.none(), st.integers(0, 2))), attributes=attributes, skills=skills,
                 attack="Sword" if draw(st.integers(0, 5)) else None, defend=defend)
    if defend is None and "combat" in data:
        data["combat"] = {"attack": "Sword"}
    return {**data, **extra}


@st.composite
def atari_options(draw: st.DrawFn) -> dict[str, Any]:
    """The preset with every option the fast path reads, and some never read by a duel, at random values."""
    label, preset = resolve("atari-isev")
    return {**msgspec.structs.asdict(preset),
            "min_hit": draw(st.integers(-4, 0)),
            "wound_penalties": draw(st.tuples(*[st.integers(-3, 0)] * 3)),
            "graze_max_damage": draw(st.integers(0, 6)),
            "wound_boxes": draw(st.one_of(st.sampled_from(("realistic", "cinematic", "epic")),
                                          st.tuples(*[st.integers(0, 3)] * 5))),
            "scratch_cap": draw(st.booleans()),
            "death_rule": draw(st.sampled_from(("overflow", "gm"))),
            # read at the opening
            "missing_attribute": draw(st.integers(-1, 1)), "unlisted_skill": draw(st.integers(-3, -1)),
            "default_fudge_points": draw(st.integers(0, 2)), "npc_fudge_points": draw(st.integers(0, 1)),
            # never read by an Atari Isev duel
            "wound_thresholds": draw(st.sampled_from(("standard", "doubled", "epic"))),
            "damage_roll": draw(st.sampled_from(("none", "4dF_limited", "1dF_level"))),
            "graze_table": draw(st.tuples(st.integers(-1, 3), st.integers(2, 7))),
            "all_out_offense_skill": draw(st.integers(0, 2)), "shield_values": draw(st.tuples(*[st.integers(0, 3)] * 3)),
            "weapon_size": draw(st.booleans()), "npc_static": draw(st.booleans()),
            "unaware_difficulty": draw(st.integers(-3, 0)), "hasty_penalty": draw(st.integers(-2, 0)),
            "heroic_penalty": draw(st.integers(-3, -1)), "max_foes": draw(st.integers(1, 6))}


POLICY = st.sampled_from(("plain", "reckless", "sensible"))


@fuzz(100)
@given(atari_options(), st.data(), st.integers(0, 2**40), st.integers(1, 12))
def test_atari_fast_path_plays_the_engines_fight(overrides: dict[str, Any], data: st.DataObject, master: int,
                                                 max_rounds: int) -> None:
    """Inside its bounds the Atari Isev fast path plays every fight as the engine does (AI-INIT-2, AI-ATK-1):
    same winner, rounds and final wound levels, for any sheets, options, policies and seed."""
    try:
        options = options_of(overrides)
    except InputError:
        return  # a combination the rules refuse
    people = [data.draw(atari_sheets(name)) for name in ("Ann", "Bob")]
    policies = [data.draw(POLICY) for _ in people]
    setup = setup_of(options, people, policies, max_rounds)
    opening = Opening.of(setup)
    points = [c.fudge_points for c in sorted(opening.state.combatants.values(), key=lambda c: c.joined_seq)]
    duel = fast_plan(setup, opening)
    if any(p == "sensible" and n > 0 for p, n in zip(policies, points)):
        assert duel is None  # a fudge point may be spent: the engine plays
        return
    assert isinstance(duel, fast_atari.AtariDuel)
    for index in range(FIGHTS):
        assert simulate_fast(duel, master, index) == simulate_one(setup, master, index, opening), index


def test_the_atari_demo_duels_are_taken_and_agree() -> None:
    """The `atari-isev` preset's demo duels, by each policy the fast path takes, 150 fights each way."""
    for pair, policy in ((("max", "cutthroat"), "plain"), (("sylthaen", "dwarzuga"), "plain"),
                         (("max", "cutthroat"), "reckless")):
        setup = demo(*pair, preset="atari-isev", policy=policy)
        opening = Opening.of(setup)
        duel = fast_plan(setup, opening)
        assert isinstance(duel, fast_atari.AtariDuel), pair
        assert [simulate_fast(duel, 2026, i) for i in range(150)] == [simulate_one(setup, 2026, i, opening)
                                                                       for i in range(150)], pair


ATARI_OUTSIDE: dict[str, dict[str, Any]] = {  # one option beyond the fast path's bounds
    "AI-SWEEP reading": {"sweep_foes_avoid": False},
    "AI-MULTI-ATK delay": {"second_attack_delay": 2},
    "F-DEATH-1": {"death_three_levels": True},
    "F-PACE-3 in phases": {"initiative": "phases-crunch", "bartering": "crunch"},
}


@pytest.mark.parametrize("outside", sorted(ATARI_OUTSIDE))
def test_atari_options_outside_go_to_the_engine(outside: str) -> None:
    label, preset = resolve("atari-isev")
    try:
        options = options_of({**msgspec.structs.asdict(preset), **ATARI_OUTSIDE[outside]})
    except InputError:
        pytest.fail(f"{outside}: a combination the rules refuse is no test of the fast path's bounds")
    base = demo("max", "cutthroat", preset="atari-isev")
    setup = Setup(label, json_form(options), base.entrants, "plain", 10)
    opening = Opening.of(setup)
    assert fast_plan(setup, opening) is None
    assert simulate_range(setup, 4, 0, 2) == [simulate_one(setup, 4, i, opening) for i in range(2)]


@pytest.mark.parametrize("why, setup", [
    ("sensible with points to spend (C-FP-2)", demo("max", "cutthroat", preset="atari-isev", policy="sensible")),
    ("three fighters", demo("max", "cutthroat", "sylthaen", preset="atari-isev", sides=("one", "two", "two"))),
])
def test_atari_setups_outside_go_to_the_engine(why: str, setup: Setup) -> None:
    opening = Opening.of(setup)
    assert fast_plan(setup, opening) is None, why
    assert simulate_range(setup, 9, 0, 2) == [simulate_one(setup, 9, i, opening) for i in range(2)]


def test_atari_option_groups_are_options() -> None:
    """Each named option is a real one, named once; every other option must have the preset's value."""
    groups = [fast_atari.READ, fast_atari.AT_OPENING, fast_atari.UNREAD]
    assert sum(len(g) for g in groups) == len(set().union(*groups))
    assert set().union(*groups) < set(RuleOptions.__struct_fields__)


def test_an_option_off_the_preset_goes_to_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    label, preset = resolve("atari-isev")
    options = options_of({**msgspec.structs.asdict(preset), "graze_max_damage": 2})
    assert fast_atari.options_eligible(options)
    monkeypatch.setattr(fast_atari, "READ", fast_atari.READ - {"graze_max_damage"})
    assert not fast_atari.options_eligible(options)
    assert fast_atari.options_eligible(preset)  # at the preset's value it changes nothing


def test_the_engine_code_restated_is_unchanged() -> None:
    """A rule changed in the engine must be changed in the Atari Isev fast path too: each piece of engine code
    it restates is named with the digest of its source when the two were last read together."""
    changed = {name: source_digest(name) for name, digest in fast_atari.RESTATES.items()
               if source_digest(name) != digest}
    assert fast_atari.RESTATES
    assert not changed, (f"engine code the Atari Isev fast path restates has changed: {sorted(changed)}; make the "
                         f"change in engine/rulesets/atari_isev/fast.py too (or see that it does not matter there), "
                         f"then set its digests in RESTATES to {changed}")


@pytest.mark.parametrize("seed, extra", [(8, []), (2026, ["--policy", "reckless", "--max-rounds", "3"])])
def test_atari_cli_json_is_the_same_with_the_engine(tmp_path: Path, seed: int, extra: list[str]) -> None:
    """`fudge sim --rules atari-isev --json`: the same statistics, byte for byte, whichever path plays the
    fights; `path` says which one did."""
    args = ["sim", str(SHEETS / "max.toml"), str(SHEETS / "cutthroat.toml"), "-r", "atari-isev", "-n", "200",
            "--seed", str(seed), "--json", *extra]
    quick = fudge(*args, store=tmp_path / "fudge.db")
    engine = fudge(*args, "--engine", store=tmp_path / "fudge.db")
    assert quick.returncode == engine.returncode == 0, quick.stderr + engine.stderr
    assert (json.loads(quick.stdout)["path"], json.loads(engine.stdout)["path"]) == ("fast", "engine")
    assert quick.stdout.replace('"path": "fast"', '"path": "engine"') == engine.stdout
    assert json.loads(quick.stdout)["fights"] == 200
