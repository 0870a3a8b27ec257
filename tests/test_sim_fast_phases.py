"""The fast path for duels in phase order (`engine.rulesets.fudge.fast_phases`) against the engine, fight for fight.

For random sheets, options and seeds inside what it takes, every fight has the same winner, rounds and
final wound levels whether the engine (`sim.runner.simulate_one`: StartRound, NextTurn and Attack
through decide and fold) or the fast path plays it; just outside, it declines and the engine plays.
`fudge sim --rules fudge-phases --json` prints the same statistics either way, and says which path ran.

Rules restated by the fast path and proven here against the engine: PH-1, PH-2, PH-3, CT-TABLE,
CT-GIFT, PC-DICE (the cards and the order of turns), F-PACE-3, F-MEL-1, F-HIT-1, F-MOD-1, F-MOD-3,
F-MOD-4, F-NPC-1, F-FANCY-2, F-DMG-3, F-DMG-4, F-GRAZE-1, F-GRAZE-2, F-GRAZE-3, F-DROLL, F-WND-1,
F-WND-3, F-WND-5, F-WND-6. A-FAIR-1: the dice.
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
from fudge_combat.engine.kernel.dice import derive_faces
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.rulesets.fudge import fast, fast_phases
from fudge_combat.projections.fast import source_digest
from fudge_combat.sim.runner import Opening, Setup, fast_plan, fight_seed, simulate_fast, simulate_one, simulate_range
from tests.fuzzing import fuzz
from tests.processes import fudge
from tests.test_sim_fast import POLICY, SHEETS, demo, eligible_options, options_of, setup_of, sheets

FIGHTS = 12  # fights per example, each played both ways


@st.composite
def phase_options(draw: st.DrawFn) -> dict[str, Any]:
    """What the simultaneous fast path takes, in phase order: either phase system with its bartering, any
    dice table, duplicates acting or not, any determinant and in-phase order trait."""
    options = draw(eligible_options())
    system = draw(st.sampled_from(fast_phases.SYSTEMS))
    bartering = {"phases-crunch": "crunch", "phases-classic": "classic"}[system]
    options.update({
        "pace": "alternating", "initiative": system, "bartering": draw(st.sampled_from((bartering, bartering, "none"))),
        "crunch_table": draw(st.sampled_from(("rolled", "rolled_fixed", "fixed"))),
        "duplicates_act": draw(st.booleans()),
        "initiative_trait": draw(st.sampled_from(("Agility", "Strength", "Sword", "Health"))),
        "initiative_order_trait": draw(st.sampled_from(("", "Strength", "Agility"))),
        "crunch_single_plus_trade": draw(st.booleans()), "crunch_downgrades": draw(st.booleans()),
        "all_out_exposure": draw(st.sampled_from(("minus2", "no_defense"))),
        "unaware_difficulty": draw(st.integers(-3, 0)),
    })
    return options


@st.composite
def phase_sheets(draw: st.DrawFn, name: str, plus: bool) -> dict[str, Any]:
    """A duel's sheet (`tests.test_sim_fast.sheets`), at times with a defense trait of its own and a CT-GIFT."""
    data = draw(sheets(name, plus))
    if draw(st.booleans()):
        levels = ("Poor", "Fair", "Great", "Good+") if plus else ("Poor", "Fair", "Great")
        data["skills"] = {**data["skills"], "Shield": draw(st.sampled_from(levels))}
        data["combat"] = {**(data.get("combat") or {"attack": "Brawling"}), "defend": "Shield"}
    if draw(st.integers(0, 3)) == 0:
        data["gifts"] = [*data.get("gifts", ()), draw(st.sampled_from(("Quick Reflexes", "Two Left Feet")))]
    return data


@fuzz(100)
@given(phase_options(), st.data(), st.integers(0, 2**40), st.integers(1, 12))
def test_phase_fast_path_plays_the_engines_fight(overrides: dict[str, Any], data: st.DataObject, master: int,
                                                 max_rounds: int) -> None:
    """Inside its bounds the phase fast path plays every fight as the engine does (PH-1, PH-3, F-PACE-3):
    same winner, rounds and final wound levels, for any sheets, phase options and seed."""
    try:
        options = options_of(overrides)
    except InputError:
        return  # a combination the rules refuse
    people = [data.draw(phase_sheets(name, options.plus_levels)) for name in ("Ann", "Bob")]
    policies = [data.draw(POLICY) for _ in people]
    for person, policy in zip(people, policies):
        if policy == "sensible" and data.draw(st.integers(0, 3)):
            person["fudge_points"] = 0  # mostly none to spend: the policy then barters (CT-BARTER-1) on the fast path
    setup = setup_of(options, people, policies, max_rounds)
    opening = Opening.of(setup)
    points = [c.fudge_points for c in sorted(opening.state.combatants.values(), key=lambda c: c.joined_seq)]
    duel = fast_plan(setup, opening)
    if any(p == "sensible" and n > 0 for p, n in zip(policies, points)):
        assert duel is None  # a point may be spent: the engine plays
        return
    assert isinstance(duel, fast_phases.PhaseDuel)
    for index in range(FIGHTS):
        assert simulate_fast(duel, master, index) == simulate_one(setup, master, index, opening), index


def test_the_phase_demo_duels_are_taken_and_agree() -> None:
    """The `fudge-phases` preset's demo duels, by each policy the fast path takes, 150 fights each way each."""
    for pair, policy in ((("duellist", "dwarzuga"), "plain"), (("snorri", "brynhild"), "reckless"),
                         (("leroy", "brynhild"), "sensible")):
        setup = demo(*pair, preset="fudge-phases", policy=policy)
        opening = Opening.of(setup)
        duel = fast_plan(setup, opening)
        assert isinstance(duel, fast_phases.PhaseDuel), pair
        assert [simulate_fast(duel, 2026, i) for i in range(150)] == [simulate_one(setup, 2026, i, opening)
                                                                       for i in range(150)], pair


PHASE_OUTSIDE: dict[str, dict[str, Any]] = {  # one option beyond the phase fast path's bounds
    "PH-4 structured": {"phase_declaration": "structured"},
    "CT-SPARE": {"spares_as_points": True},
    "F-DEATH-1": {"death_three_levels": True},
    "F-INIT-2": {"initiative": "opposed", "bartering": "none"},
}


@pytest.mark.parametrize("outside", sorted(PHASE_OUTSIDE))
def test_phase_options_outside_go_to_the_engine(outside: str) -> None:
    label, preset = resolve("fudge-phases")
    options = options_of({**msgspec.structs.asdict(preset), **PHASE_OUTSIDE[outside]})
    base = demo("leroy", "brynhild", preset="fudge-phases")
    setup = Setup(label, json_form(options), base.entrants, "plain", 10)
    opening = Opening.of(setup)
    assert fast_plan(setup, opening) is None
    assert simulate_range(setup, 4, 0, 2) == [simulate_one(setup, 4, i, opening) for i in range(2)]


@pytest.mark.parametrize("why, setup", [
    ("sensible with points to spend (C-FP-2)", demo("leroy", "brynhild", preset="fudge-phases", policy="sensible",
                                                    options={"default_fudge_points": 2})),
    ("three fighters", demo("leroy", "brynhild", "snorri", preset="fudge-phases", sides=("one", "two", "two"))),
])
def test_phase_setups_outside_go_to_the_engine(why: str, setup: Setup) -> None:
    opening = Opening.of(setup)
    assert fast_plan(setup, opening) is None, why
    assert simulate_range(setup, 9, 0, 2) == [simulate_one(setup, 9, i, opening) for i in range(2)]


def test_phase_options_are_classified_once() -> None:
    """Each option is fixed, read, read at the opening or never read by a phase duel: a new option is in none,
    and a fight that sets it goes to the engine."""
    groups = [set(fast_phases.FIXED), fast_phases.READ, fast_phases.AT_OPENING, fast_phases.UNREAD]
    assert sum(len(g) for g in groups) == len(set().union(*groups))
    assert set().union(*groups) == set(RuleOptions.__struct_fields__)


def test_an_unclassified_option_goes_to_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    label, preset = resolve("fudge-phases")
    options = options_of({**msgspec.structs.asdict(preset), "duplicates_act": True})
    assert fast_phases.options_eligible(options)
    monkeypatch.setattr(fast_phases, "READ", fast_phases.READ - {"duplicates_act"})
    assert not fast_phases.options_eligible(options)
    assert fast_phases.options_eligible(preset)  # at its default it changes nothing


def test_initiative_faces_are_the_engines() -> None:
    """A-FAIR-1: the initiative dice read by the fast path are `derive_faces`'s, for every count a table gives."""
    seed = fight_seed(5, 1)
    dice = fast.Dice(seed, fast.stream_of(seed))
    for draw in range(400):
        for count in range(1, 9):
            assert fast_phases.faces(dice, draw, count) == derive_faces(seed, fast.stream_of(seed), draw, count)


def test_the_engine_code_restated_is_unchanged() -> None:
    """A rule changed in the engine must be changed in the phase fast path too: each piece of engine code it
    restates is named with the digest of its source when the two were last read together."""
    changed = {name: source_digest(name) for name, digest in fast_phases.RESTATES.items()
               if source_digest(name) != digest}
    assert not changed, (f"engine code the phase fast path restates has changed: {sorted(changed)}; make the change "
                         f"in engine/rulesets/fudge/fast_phases.py too (or see that it does not matter there), then "
                         f"set its digests in RESTATES to {changed}")


@pytest.mark.parametrize("seed, extra", [(3, []), (2026, ["--max-rounds", "2"])])
def test_phase_cli_json_is_the_same_with_the_engine(tmp_path: Path, seed: int, extra: list[str]) -> None:
    """`fudge sim --rules fudge-phases --json`: the same statistics, byte for byte, whichever path plays the
    fights; `path` says which one did."""
    args = ["sim", str(SHEETS / "leroy.toml"), str(SHEETS / "brynhild.toml"), "-r", "fudge-phases", "-n", "200",
            "--seed", str(seed), "--json", *extra]
    quick = fudge(*args, store=tmp_path / "fudge.db")
    engine = fudge(*args, "--engine", store=tmp_path / "fudge.db")
    assert quick.returncode == engine.returncode == 0, quick.stderr + engine.stderr
    assert json.loads(quick.stdout)["path"] == "fast"
    assert json.loads(engine.stdout)["path"] == "engine"
    assert quick.stdout.replace('"path": "fast"', '"path": "engine"') == engine.stdout
    assert json.loads(quick.stdout)["fights"] == 200
