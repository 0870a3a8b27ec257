"""The simulator's fast path (`engine.rulesets.fudge.fast`) against the engine: the same fight, fight for fight.

For random sheets, options and seeds inside what the fast path takes, every fight has the same
winner, rounds and final wound levels whether the engine (`sim.runner.simulate_one`: commands,
decide, fold) or the fast path plays it; just outside (one option, one sheet, one policy, one
fighter too many), the fast path declines and the engine plays. `fudge sim --json` prints the same
bytes either way (`--engine` makes the engine play every fight) but for `path`, which says which played.

Rules restated by the fast path and proven here against the engine: F-PACE-2, F-MEL-1, F-MEL-2,
F-HIT-1, F-MOD-1, F-MOD-3, F-MOD-4, F-MOD-6, F-TAC-1, F-TAC-4, F-NPC-1, F-FANCY-2, F-DMG-3,
F-DMG-4, F-GRAZE-1, F-GRAZE-2, F-GRAZE-3, F-DROLL, F-WND-1, F-WND-3, F-WND-5, F-WND-6; and for Fate
exchanges (`engine.rulesets.fate.fast`): FT-PACE, FT-OUT, FT-SIMPLE, FT-TRACK-2, FT-TRACK-3. A-FAIR-1: the dice.
"""

from __future__ import annotations

import hashlib
import hmac
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
from fudge_combat.engine.kernel.options import RuleOptions, check_combination
from fudge_combat.engine.kernel.presets import given_options, resolve
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.engine.rulesets.fate import fast as fast_fate
from fudge_combat.engine.rulesets.fudge import fast
from fudge_combat.sim.parallel import run_serial
from fudge_combat.sim.runner import (Entrant, Opening, Setup, fast_plan, fight_seed, simulate_fast, simulate_one,
                        simulate_range)
from tests.conftest import sheet
from tests.fuzzing import fuzz
from tests.processes import fudge

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"
LEVELS = ("Terrible", "Poor", "Mediocre", "Fair", "Good", "Great", "Superb")
FIGHTS = 20  # fights per example, each played both ways


def levels() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(LEVELS), st.integers(-3, 3))


@st.composite
def sheets(draw: st.DrawFn, name: str, plus: bool = False) -> dict[str, Any]:
    """A sheet with whatever a Fudge duel reads: traits, weapon, armor, shield, scale, kind, gifts, boxes."""
    skill = draw(levels())
    attack = "Sword" if draw(st.integers(0, 4)) else None  # None: Brawling, not on the sheet
    if attack and plus and isinstance(skill, str) and skill not in ("Terrible", "Superb") and draw(st.booleans()):
        skill += "+"  # F-FANCY-2
    attributes = {trait: draw(levels()) for trait in ("Strength", "Damage Capacity", "Agility", "Health")
                  if draw(st.integers(0, 3))}
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["weapon"] = {"name": "weapon", "damage": draw(st.integers(-1, 4)), "blunt_heavy": draw(st.booleans()),
                           "muscle_powered": draw(st.integers(0, 3)) > 0,
                           "tech": draw(st.one_of(st.none(), st.integers(0, 2)))}
    if draw(st.booleans()):
        extra["armor"] = {"name": "armor", "protection": draw(st.integers(0, 3)),
                          "tech": draw(st.one_of(st.none(), st.integers(0, 2)))}
    gifts = draw(st.lists(st.sampled_from(("High Pain Threshold", "Low Pain Threshold", "Damage Resistant",
                                           "Combat Reflexes")), max_size=2, unique=True))
    if gifts:
        extra["gifts"] = gifts
    if draw(st.integers(0, 3)) == 0:
        extra["wounds"] = {"boxes": draw(st.tuples(*[st.integers(0, 3)] * 5))}
    data = sheet(name, kind=draw(st.sampled_from(("pc", "npc", "major"))), scale=draw(st.integers(-1, 1)),
                 fudge_points=draw(st.one_of(st.none(), st.integers(0, 2))),
                 attributes=attributes, skills={"Sword": skill},
                 attack=attack,
                 shield=draw(st.sampled_from((None, None, "small", "medium", "large"))))
    return {**data, **extra}


@st.composite
def eligible_options(draw: st.DrawFn) -> dict[str, Any]:
    """Options the fast path takes: every option it reads, some the engine reads at the opening, some a
    duel never reads, at random values."""
    options: dict[str, Any] = {
        "tactics": draw(st.sampled_from(("all_out", "postures"))),
        "min_hit": draw(st.integers(-4, 0)),
        "shield_values": draw(st.tuples(*[st.integers(0, 3)] * 3)),
        "weapon_size": draw(st.booleans()),
        "npc_static": draw(st.integers(0, 3)) == 0,
        "plus_levels": draw(st.booleans()),
        "all_out_offense_skill": draw(st.integers(0, 2)),
        "all_out_offense_damage": draw(st.integers(0, 2)),
        "all_out_loser_bonus": draw(st.integers(0, 3)),
        "wound_thresholds": draw(st.one_of(st.sampled_from(("standard", "doubled", "epic")),
                                           st.tuples(*[st.integers(0, 10)] * 5))),
        "graze_table": draw(st.tuples(st.integers(-1, 3), st.integers(2, 7))),
        "graze_cap": draw(st.integers(0, 5)),
        "damage_roll": draw(st.sampled_from(("none", "4dF_limited", "1dF_damage", "1dF_level", "parity", "4dF_free"))),
        "graze_damage_roll": draw(st.booleans()),
        "wound_boxes": draw(st.one_of(st.sampled_from(("realistic", "cinematic", "epic")),
                                      st.tuples(*[st.integers(0, 3)] * 5))),
        "wound_penalties": draw(st.tuples(*[st.integers(-3, 0)] * 3)),
        "scratch_cap": draw(st.booleans()),
        "death_rule": draw(st.sampled_from(("overflow", "gm"))),
        # read by the engine at the opening
        "missing_attribute": draw(st.integers(-1, 1)),
        "unlisted_skill": draw(st.integers(-3, -1)),
        "default_fudge_points": draw(st.integers(0, 2)),
        "npc_fudge_points": draw(st.integers(0, 1)),
        "wound_chart": draw(st.sampled_from(("fixed", "health"))),
        "dc_in_defense": draw(st.booleans()),
        "blunt_heavy_halves_armor": draw(st.booleans()),
        "tech_scale": draw(st.booleans()),
        # never read by a duel
        "unaware_difficulty": draw(st.integers(-3, 0)),
        "all_out_defense_skill": draw(st.integers(0, 3)),
        "head_blow_knockout": draw(st.booleans()),
        "death_protects": draw(st.sampled_from(("pc_major", "all"))),
        "max_foes": draw(st.integers(1, 6)),
        "hasty_penalty": draw(st.integers(-2, 0)),
        "mmm_deep_penalty": draw(st.one_of(st.none(), st.integers(-6, -4))),
    }
    if draw(st.booleans()):
        options["relative_degree_weight"] = draw(st.integers(1, 2))
    return options


def options_of(overrides: dict[str, Any]) -> RuleOptions:
    options = given_options(overrides)
    check_combination(options)
    return options


def setup_of(options: RuleOptions, people: list[dict[str, Any]], policies: list[str], max_rounds: int) -> Setup:
    entrants = tuple(Entrant(person, f"{person['name']}.toml", f"side {i}", None, policy)
                     for i, (person, policy) in enumerate(zip(people, policies)))
    return Setup("fudge+house", json_form(options), entrants, "plain", max_rounds)


def both_ways(setup: Setup, master: int, fights: int = FIGHTS) -> None:
    """Every fight of `master` 0..fights-1: the engine's result equals the fast path's."""
    opening = Opening.of(setup)
    duel = fast.plan(setup, opening)
    assert duel is not None, "the fast path takes this setup"
    for index in range(fights):
        assert simulate_fast(duel, master, index) == simulate_one(setup, master, index, opening), index


POLICY = st.sampled_from(("plain", "reckless", "sensible"))


@fuzz(200)
@given(eligible_options(), st.data(), st.integers(0, 2**40), st.integers(1, 30))
def test_fast_path_plays_the_engines_fight(overrides: dict[str, Any], data: st.DataObject, master: int,
                                           max_rounds: int) -> None:
    """Inside its bounds the fast path plays every fight as the engine does: same winner, rounds and final
    wound levels, for any sheets, options, policies and seed."""
    try:
        options = options_of(overrides)
    except InputError:
        return  # a combination the rules refuse (`dc_in_defense` with another DC mode cannot be drawn here)
    people = [data.draw(sheets(name, options.plus_levels)) for name in ("Ann", "Bob")]
    policies = [data.draw(POLICY) for _ in people]
    setup = setup_of(options, people, policies, max_rounds)
    opening = Opening.of(setup)
    points = [c.fudge_points for c in sorted(opening.state.combatants.values(), key=lambda c: c.joined_seq)]
    if any(p == "sensible" and n > 0 for p, n in zip(policies, points)):
        assert fast.plan(setup, opening) is None  # a point may be spent: the engine plays
        return
    both_ways(setup, master)


# --- just outside: the fast path declines and the engine plays ---------------------------------------

OUTSIDE: dict[str, dict[str, Any]] = {  # one option beyond the fast path's bounds
    "F-DEATH-1": {"death_three_levels": True},
    "F-DEATH-2": {"death_needs_incapacitated": True},
    "F-DC roll": {"damage_capacity": "roll", "dc_in_defense": False},
    "F-DC gift": {"damage_capacity": "gift", "dc_in_defense": False},
    "F-WND-8": {"dc_track": True, "dc_in_defense": False},
    "F-MMM": {"damage_system": "min_mid_max", "damage_roll": "none"},
    "F-INIT-2": {"pace": "alternating", "initiative": "opposed"},
    "PH-4": {"pace": "alternating", "initiative": "phases-classic", "phase_declaration": "structured"},  # phase
    # order itself is `fast_phases`'s (tests/test_sim_fast_phases.py), its structured declarations are not
}


@fuzz(25)
@given(eligible_options(), st.sampled_from(sorted(OUTSIDE)), st.data(), st.integers(0, 2**40))
def test_one_option_outside_goes_to_the_engine(overrides: dict[str, Any], outside: str, data: st.DataObject,
                                                master: int) -> None:
    try:
        options = options_of({**overrides, **OUTSIDE[outside]})
    except InputError:
        return
    people = [data.draw(sheets(name)) for name in ("Ann", "Bob")]
    setup = setup_of(options, people, ["plain", "plain"], 10)
    opening = Opening.of(setup)
    assert fast.plan(setup, opening) is None
    assert simulate_range(setup, master, 0, 3, opening) == [simulate_one(setup, master, i, opening) for i in range(3)]


def demo(*names: str, preset: str = "fudge", policy: str = "plain", sides: tuple[str, ...] = ("one", "two"),
         max_rounds: int = 50, options: dict[str, Any] | None = None) -> Setup:
    label, resolved = resolve(preset)
    options = given_options({**msgspec.structs.asdict(resolved), **(options or {})})
    entrants = tuple(Entrant(json_form(parse_sheet((SHEETS / f"{n}.toml").read_text(), f"{n}.toml")),
                             f"{n}.toml", side) for n, side in zip(names, sides))
    return Setup(label, json_form(options), entrants, policy, max_rounds)


@pytest.mark.parametrize("why, setup", [
    ("a pawn's track (F-WND-7)", None),
    ("three fighters", demo("snorri", "brynhild", "leroy", sides=("one", "two", "two"))),
    ("sensible with points to spend (C-FP-2)", demo("snorri", "brynhild", policy="sensible")),
    ("another preset, points to spend", demo("leroy", "brynhild", preset="fudge-phases", policy="sensible",
                                             options={"default_fudge_points": 2})),
    ("another ruleset", demo("max", "cutthroat", preset="atari-isev")),
])
def test_setups_outside_go_to_the_engine(why: str, setup: Setup | None) -> None:
    if setup is None:
        base = demo("snorri", "brynhild")
        pawn = {**base.entrants[1].sheet, "track": "pawn"}
        setup = Setup(base.rules, base.options, (base.entrants[0], Entrant(pawn, "pawn.toml", "two")), "plain")
    opening = Opening.of(setup)
    assert fast.plan(setup, opening) is None, why
    assert simulate_range(setup, 9, 0, 2) == [simulate_one(setup, 9, i, opening) for i in range(2)]


def test_the_demo_duels_are_taken_and_agree() -> None:
    """The `fudge` preset's demo duel, by each policy the fast path takes, 300 fights each way."""
    for policy in ("plain", "reckless"):
        both_ways(demo("snorri", "brynhild", policy=policy), 2026, 300)
    assert fast.plan(demo("snorri", "brynhild", policy="sensible"), Opening.of(demo("snorri", "brynhild"))) is None


def test_fast_dice_are_the_engines_dice() -> None:
    """A-FAIR-1: every draw's faces summed as `engine.kernel.dice.derive_faces` derives them, rejected bytes (255)
    included, for 4dF and 1dF rolls of several fights' streams."""
    rejected = 0
    for index in range(3):
        seed = fight_seed(77, index)
        stream = fast.stream_of(seed)
        dice = fast.Dice(seed, stream)
        for block in range(3):
            assert dice.block(5, block) == hmac.new(seed, f"{stream}:5:{block}".encode(), hashlib.sha256).digest()
        for draw in range(1500):
            for count in (4, 1):
                assert dice.total(draw, count) == sum(derive_faces(seed, stream, draw, count)), (seed, draw, count)
            rejected += 255 in dice.block(draw, 0)[:4]
    assert rejected > 20  # the rejection was met, not only the common case


def test_every_option_is_classified_once() -> None:
    """Each option is fixed, read by the fast path, read at the opening, or never read by a duel: a new
    option is in none, and a fight that sets it goes to the engine."""
    groups = [set(fast.FIXED), fast.READ, fast.AT_OPENING, fast.UNREAD]
    assert sum(len(g) for g in groups) == len(set().union(*groups))
    assert set().union(*groups) == set(RuleOptions.__struct_fields__)


def test_an_unclassified_option_goes_to_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    options = options_of({"min_hit": -3})
    assert fast.options_eligible(options)
    monkeypatch.setattr(fast, "READ", fast.READ - {"min_hit"})
    assert not fast.options_eligible(options)
    assert fast.options_eligible(options_of({}))  # at its default it changes nothing


def test_run_serial_takes_the_fast_path_with_the_same_results() -> None:
    setup = demo("snorri", "brynhild")
    engine = Setup(setup.rules, setup.options, setup.entrants, setup.policy, setup.max_rounds, fast=False)
    assert run_serial(setup, 5, 120) == run_serial(engine, 5, 120)


@pytest.mark.parametrize("seed, extra", [(1, []), (42, ["--policy", "reckless"]), (2026, ["--max-rounds", "3"])])
def test_cli_json_is_the_same_bytes_with_the_engine(tmp_path: Path, seed: int, extra: list[str]) -> None:
    """`fudge sim --json`: byte for byte the same whether the fast path or the engine plays the fights."""
    args = ["sim", str(SHEETS / "snorri.toml"), str(SHEETS / "brynhild.toml"), "-n", "300", "--seed", str(seed),
            "--json", *extra]
    quick = fudge(*args, store=tmp_path / "fudge.db")
    engine = fudge(*args, "--engine", store=tmp_path / "fudge.db")
    assert quick.returncode == engine.returncode == 0, quick.stderr + engine.stderr
    assert (json.loads(quick.stdout)["path"], json.loads(engine.stdout)["path"]) == ("fast", "engine")
    assert quick.stdout.replace('"path": "fast"', '"path": "engine"') == engine.stdout
    assert json.loads(quick.stdout)["fights"] == 300


# --- Fate exchanges (engine.rulesets.fate.fast): FT-PACE, FT-OUT, FT-SIMPLE, FT-TRACK-2, FT-TRACK-3 -------------------

FATE_LEVELS = ("Terrible", "Poor", "Mediocre", "Average", "Fair", "Good", "Great", "Superb")


@st.composite
def fate_sheets(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """A Fate sheet: a combat skill (or none: Fighting, not on the sheet), weapon and armor ratings, points."""
    data: dict[str, Any] = {"name": name, "kind": draw(st.sampled_from(("pc", "npc"))),
                            "skills": {"Swords": draw(st.one_of(st.sampled_from(FATE_LEVELS), st.integers(-3, 3)))},
                            "fate_points": draw(st.integers(0, 2)) if draw(st.booleans()) else None}
    if data["fate_points"] is None:
        del data["fate_points"]
    if draw(st.integers(0, 4)):
        data["combat"] = {"attack": "Swords"}
    if draw(st.booleans()):
        data["fate_weapon"] = {"name": "weapon", "rating": draw(st.integers(0, 4))}
    if draw(st.booleans()):
        data["fate_armor"] = {"name": "armor", "rating": draw(st.integers(0, 4))}
    return data


@st.composite
def fate_options(draw: st.DrawFn) -> dict[str, Any]:
    label, preset = resolve("fate")
    return {**msgspec.structs.asdict(preset), "fate_boxes": draw(st.tuples(*[st.integers(0, 3)] * 3)),
            "arms": draw(st.sampled_from(("dramatic", "simple"))), "unlisted_skill": draw(st.integers(-2, 0)),
            "default_fudge_points": draw(st.integers(0, 2)), "npc_fudge_points": draw(st.integers(0, 1)),
            # never read by an exchange
            "default_difficulty": draw(st.integers(0, 2)), "tactics": draw(st.sampled_from(("all_out", "postures"))),
            "min_hit": draw(st.integers(-3, 0)), "damage_roll": draw(st.sampled_from(("none", "4dF_limited")))}


@fuzz(60)
@given(fate_options(), st.data(), st.integers(0, 2**40), st.integers(1, 30))
def test_fate_fast_path_plays_the_engines_fight(overrides: dict[str, Any], data: st.DataObject, master: int,
                                                max_rounds: int) -> None:
    """Fate exchanges (FT-PACE): same winner, exchanges and worst box both ways, for any sheets, boxes,
    dramatic or simple arms, policies and seed."""
    options = options_of(overrides)
    people = [data.draw(fate_sheets(name)) for name in ("Ann", "Bob")]
    policies = [data.draw(POLICY) for _ in people]
    setup = setup_of(options, people, policies, max_rounds)
    opening = Opening.of(setup)
    points = [c.fudge_points for c in sorted(opening.state.combatants.values(), key=lambda c: c.joined_seq)]
    duel = fast_plan(setup, opening)
    if any(p == "sensible" and n > 0 for p, n in zip(policies, points)):
        assert duel is None  # a fate point may be spent: the engine plays
        return
    assert isinstance(duel, fast_fate.FateDuel)
    for index in range(FIGHTS):
        assert simulate_fast(duel, master, index) == simulate_one(setup, master, index, opening), index


FATE_OUTSIDE = {"FT-ADV": {"arms": "advanced"}, "FT-INIT": {"pace": "turn", "initiative": "alertness"},
                "FT-PACE scene": {"pace": "scene"}, "F-DEATH-1": {"death_three_levels": True}}


@pytest.mark.parametrize("outside", sorted(FATE_OUTSIDE))
def test_fate_outside_goes_to_the_engine(outside: str) -> None:
    label, preset = resolve("fate")
    options = options_of({**msgspec.structs.asdict(preset), **FATE_OUTSIDE[outside]})
    base = demo("cyrus", "finn", preset="fate")
    setup = Setup(label, json_form(options), base.entrants, "plain", 10)
    opening = Opening.of(setup)
    assert fast_plan(setup, opening) is None
    if outside != "FT-PACE scene":  # the simulator plays no scenes
        assert simulate_range(setup, 4, 0, 2) == [simulate_one(setup, 4, i, opening) for i in range(2)]


def test_fate_demo_duel_is_taken_and_agrees() -> None:
    setup = demo("cyrus", "finn", preset="fate")
    opening = Opening.of(setup)
    duel = fast_plan(setup, opening)
    assert isinstance(duel, fast_fate.FateDuel)
    assert [simulate_fast(duel, 2026, i) for i in range(300)] == [simulate_one(setup, 2026, i, opening)
                                                                   for i in range(300)]
    assert fast_plan(demo("cyrus", "finn", "guard", preset="fate", sides=("a", "b", "b")), opening) is None
    assert fast_plan(demo("cyrus", "finn", preset="fate", policy="sensible"), opening) is None  # 3 fate points


def test_fate_options_are_options() -> None:
    groups = [set(fast_fate.FIXED), fast_fate.READ, fast_fate.AT_OPENING, fast_fate.UNREAD]
    assert sum(len(g) for g in groups) == len(set().union(*groups))
    assert set().union(*groups) <= set(RuleOptions.__struct_fields__)


def test_fate_cli_json_is_the_same_bytes_with_the_engine(tmp_path: Path) -> None:
    args = ["sim", str(SHEETS / "cyrus.toml"), str(SHEETS / "finn.toml"), "-r", "fate", "--side", "a", "--side", "b",
            "-n", "300", "--seed", "13", "--json"]
    quick = fudge(*args, store=tmp_path / "fudge.db")
    engine = fudge(*args, "--engine", store=tmp_path / "fudge.db")
    assert quick.returncode == engine.returncode == 0, quick.stderr + engine.stderr
    assert (json.loads(quick.stdout)["path"], json.loads(engine.stdout)["path"]) == ("fast", "engine")
    assert quick.stdout.replace('"path": "fast"', '"path": "engine"') == engine.stdout
