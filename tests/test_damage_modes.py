"""From damage points to a wound level, every way the text allows (Fudge 4.5.5, 4.5.6, 4.6.1, 4.6.3, 4.6.5):
F-DROLL (`1dF_damage`, `1dF_level`, `parity`, `4dF_free`), F-DMG-4 (`doubled`, `epic`), F-GRAZE-1, F-GRAZE-2 under
every damage roll, F-MMM (Rachel and Archie with the text's dice) and F-TECH.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fudge_combat.cli import render
from fudge_combat.engine.rulesets.fudge.describe import hit_detail
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.dice import EnteredDice, parse_entered
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.engine.kernel.ladder import FUDGE7
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import Fighter, Sheet, given_sheet, read_levels
from fudge_combat.engine.rulesets.fudge.wounding import mmm_bonus, mmm_read, strike
from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, NEAR_DEATH, SCRATCH, UNDAMAGED, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import sheet, start

FUDGE = resolve("fudge")[1]


def opts(**changes: Any) -> RuleOptions:
    return msgspec.structs.replace(FUDGE, **changes)


def fighter(name: str = "X", weapon: dict[str, Any] | None = None, armor: dict[str, Any] | None = None,
            **kw: Any) -> Fighter:
    data = sheet(name, **kw)
    if weapon is not None:
        data["weapon"] = {"name": "weapon", **weapon}
    if armor is not None:
        data["armor"] = {"name": "armor", **armor}
    return read_levels(given_sheet(data), FUDGE7, "test")


def with_factor(factor: int) -> tuple[Fighter, Fighter]:
    """An attacker and a defender whose damage factor is `factor` (Fair Strength and DC, weapon = factor)."""
    return fighter("A", weapon={"damage": factor}), fighter("D")


class Faces:
    """A damage roller handing out the given faces, recording what was asked."""

    def __init__(self, *faces: tuple[int, ...]) -> None:
        self.faces = list(faces)
        self.asked: list[tuple[int, int | None]] = []

    def __call__(self, attacker: str, count: int = 4, sides: int | None = None) -> ev.DiceRolled:
        self.asked.append((count, sides))
        faces = self.faces.pop(0)
        assert len(faces) == count
        return ev.DiceRolled(action=1, roller=attacker, purpose="damage", faces=faces, source="entered", sides=sides)


def hit(rd: int, factor: int, options: RuleOptions, *faces: tuple[int, ...], bonus: int = 0,
        attack_roll: int | None = None, defense_roll: int | None = None) -> tuple[ev.Hit, Faces]:
    roller = Faces(*faces)
    attacker, defender = with_factor(factor)
    made, _ = strike(attacker, defender, ("A", "D"), rd, bonus, options, roller, attack_roll, defense_roll)
    return made, roller


# --- F-DROLL ------------------------------------------------------------------------

def test_F_DROLL_1dF_damage_adds_one_die_to_the_damage() -> None:
    """F-DROLL 1dF_damage, the text's example: 4 points is Hurt; +1 makes 5, Very Hurt; -1 makes 3, still Hurt."""
    o = opts(damage_roll="1dF_damage")
    made, roller = hit(2, 2, o, (1,))
    assert roller.asked == [(1, None)] and (made.damage_roll, made.damage, made.level) == (1, 5, VERY_HURT)
    assert made.damage_roll_mode == "1dF_damage"
    made, _ = hit(2, 2, o, (-1,))
    assert (made.damage, made.level) == (3, HURT)
    made, _ = hit(2, -2, o, (-1,))
    assert (made.damage, made.level) == (0, UNDAMAGED)  # never below zero


def test_F_DROLL_1dF_level_shifts_the_wound_level() -> None:
    """F-DROLL 1dF_level, the text's example: 4 points is Hurt; -1 makes it a Scratch, +1 Very Hurt."""
    o = opts(damage_roll="1dF_level")
    made, _ = hit(2, 2, o, (-1,))
    assert (made.damage, made.level, made.level_shift) == (4, SCRATCH, -1)
    made, _ = hit(2, 2, o, (1,))
    assert (made.level, made.level_shift) == (VERY_HURT, 1)
    made, _ = hit(2, 2, o, (0,))
    assert (made.level, made.level_shift) == (HURT, 0)


def test_F_DROLL_1dF_level_never_wounds_a_harmless_blow_nor_kills() -> None:
    """F-DROLL 1dF_level (our reading): no damage stays no wound; the shift stops at Near Death."""
    o = opts(damage_roll="1dF_level")
    made, _ = hit(2, -3, o, (1,))
    assert (made.damage, made.level) == (0, UNDAMAGED)
    made, _ = hit(6, 4, o, (1,))
    assert (made.damage, made.level) == (10, NEAR_DEATH)


def test_F_DROLL_parity_the_texts_example() -> None:
    """F-DROLL parity: the attacker wins with +3 (odd, no change), the defender rolled 0 (even, +1 defense):
    the damage is one less, and no die is rolled."""
    o = opts(damage_roll="parity")
    made, roller = hit(2, 2, o, attack_roll=3, defense_roll=0)
    assert roller.asked == [] and made.parity == (0, 1) and (made.calculated, made.damage) == (3, 3)
    made, _ = hit(2, 2, o, attack_roll=2, defense_roll=-1)
    assert made.parity == (1, 0) and made.damage == 5
    made, _ = hit(2, 2, o, attack_roll=-4, defense_roll=None)  # an unaware defender rolled nothing
    assert made.parity == (1, 0)


def test_F_DROLL_parity_through_an_exchange(fights: Fights) -> None:
    """F-DROLL parity: the action dice totals of the exchange decide; the hit records them."""
    name = start(fights, damage_roll="parity")
    fights.execute(name, cmd.Join(sheet=sheet("Ann", skills={"Sword": "Good"}, attack="Sword", weapon=2), source="t"))
    fights.execute(name, cmd.Join(sheet=sheet("Bob", skills={"Sword": "Fair"}, attack="Sword"), source="t"))
    out = fights.execute(name, cmd.Exchange(first="Ann", second="Bob"),
                         DiceInput(by_roller={"ann": [(1, 1, 1, 0)], "bob": [(0, 0, 0, 0)]}))
    (made,) = next(r.event for r in out.records if isinstance(r.event, ev.ExchangeResolved)).hits
    assert (made.relative_degree, made.parity, made.damage) == (4, (0, 1), 4 + 2 - 1)
    assert not [r for r in out.records if isinstance(r.event, ev.DiceRolled) and r.event.purpose == "damage"]


def test_F_DROLL_4dF_free_has_no_limits() -> None:
    """F-DROLL 4dF_free: calculated +2 with +4 makes 6 (limited would stop at 4); -4 makes 0, not 1."""
    o = opts(damage_roll="4dF_free")
    made, _ = hit(2, 0, o, (1, 1, 1, 1))
    assert (made.damage, made.level) == (6, VERY_HURT)
    made, _ = hit(2, 0, o, (-1, -1, -1, -1))
    assert (made.damage, made.level) == (0, UNDAMAGED)
    made, _ = hit(2, -4, o, (1, 1, 1, 1))
    assert made.damage == 2  # limited would allow at most 1
    assert made.damage_roll_mode == "4dF_free"


def test_F_DROLL_modes_are_refused_by_name_when_unknown() -> None:
    """F-DROLL: an unknown mode in house rules is one clear error."""
    with pytest.raises(InputError, match="damage_roll"):
        resolve("fudge", 'damage_roll = "2dF"')


# --- F-GRAZE-1 and F-GRAZE-2 under every damage roll ------------------------------------

ROLLED = {"4dF_limited": (1, 1, 1, 1), "4dF_free": (1, 1, 1, 1), "1dF_damage": (1,), "1dF_level": (1,)}
LOW = {"4dF_limited": (-1, -1, -1, -1), "4dF_free": (-1, -1, -1, -1), "1dF_damage": (-1,), "1dF_level": (-1,)}


@pytest.mark.parametrize("mode", ["none", "4dF_limited", "4dF_free", "1dF_damage", "1dF_level", "parity"])
def test_F_GRAZE_2_a_damage_roll_moves_a_graze_one_level_at_most(mode: str) -> None:
    """F-GRAZE-2: whatever the roll, a graze is the table's level, one above or one below."""
    o = opts(damage_roll=mode)
    for factor, table in ((2, SCRATCH), (6, HURT)):
        up, _ = hit(1, factor, o, *([ROLLED[mode]] if mode in ROLLED else []), attack_roll=2, defense_roll=1)
        down, _ = hit(1, factor, o, *([LOW[mode]] if mode in LOW else []), attack_roll=1, defense_roll=2)
        assert up.graze and down.graze and up.damage is None
        moves = 0 if mode == "none" else 1
        assert (up.level, down.level) == (table + moves, table - moves)


@pytest.mark.parametrize("mode", ["none", "4dF_limited", "4dF_free", "1dF_damage", "1dF_level", "parity"])
def test_F_GRAZE_1_scale_never_pushes_a_graze_past_very_hurt(mode: str) -> None:
    """F-GRAZE-1 and F-GRAZE-3: a giant's graze (Scale in the factor), all-out bonus and a high roll: Very Hurt."""
    o = opts(damage_roll=mode)
    giant = fighter("Giant", scale=6, weapon={"damage": 3})
    human = fighter("Human")
    roller = Faces(*([ROLLED[mode]] if mode in ROLLED else []))
    made, _ = strike(giant, human, ("Giant", "Human"), 1, 1, o, roller, 2, 1)
    assert made.graze and made.damage_factor == 9 and made.level == VERY_HURT


def test_F_GRAZE_2_no_roll_on_a_graze_when_the_gm_allows_none() -> None:
    """F-GRAZE-2: graze_damage_roll = false: a graze rolls nothing in any mode."""
    for mode in ("1dF_damage", "1dF_level", "4dF_free"):
        made, roller = hit(1, 2, opts(damage_roll=mode, graze_damage_roll=False))
        assert roller.asked == [] and made.level == SCRATCH


# --- F-DMG-4 ------------------------------------------------------------------------

def test_F_DMG_4_doubled_counts_the_relative_degree_twice() -> None:
    """F-DMG-4 doubled: RD +2 and factor +2 make 6 points: Hurt on 1-3, 4-6, 7-9, 10-12, 13+."""
    name, o = resolve("fudge", 'wound_thresholds = "doubled"')
    assert o.wound_thresholds == (1, 4, 7, 10, 13) and o.relative_degree_weight == 2
    made, _ = hit(2, 2, o)
    assert (made.calculated, made.damage, made.level, made.rd_weight) == (6, 6, HURT, 2)
    made, _ = hit(5, 3, o)
    assert (made.damage, made.level) == (13, NEAR_DEATH)
    graze, _ = hit(1, 2, o)
    assert graze.graze and graze.level == SCRATCH  # the graze table, unchanged


def test_F_DMG_4_epic_thresholds_and_custom_tables() -> None:
    """F-DMG-4 epic: 1, 2-3, 4-5, 6, 7+; a custom table and the RD weight can be set apart."""
    o = resolve("fudge", 'wound_thresholds = "epic"')[1]
    assert o.wound_thresholds == (1, 2, 4, 6, 7) and o.relative_degree_weight == 1
    assert [hit(2, f - 2, o)[0].level for f in (1, 2, 3, 4, 5, 6, 7)] == [1, 2, 2, 3, 3, 4, 5]
    custom = resolve("fudge", "wound_thresholds = [2, 4, 6, 8, 10]\nrelative_degree_weight = 2")[1]
    made, _ = hit(2, 0, custom)
    assert (made.damage, made.level) == (4, HURT)
    apart = resolve("fudge", 'wound_thresholds = "doubled"\nrelative_degree_weight = 1')[1]
    assert apart.relative_degree_weight == 1
    with pytest.raises(InputError, match="unknown thresholds"):
        resolve("fudge", 'wound_thresholds = "brutal"')
    with pytest.raises(InputError, match="relative_degree_weight"):
        resolve("fudge", "relative_degree_weight = 0")


# --- F-MMM --------------------------------------------------------------------------

def test_F_MMM_bonus_tables() -> None:
    """F-MMM: factor <0 -1, 0-2 0, 3-5 +1, 6+ +2; RD 2-3 0, 4-5 +1, 6+ +2; optional -2 at -5 or worse."""
    o = opts(damage_system="min_mid_max")
    assert [mmm_bonus(f, 2, o) for f in (-5, -1, 0, 2, 3, 5, 6, 9)] == [-1, -1, 0, 0, 1, 1, 2, 2]
    assert [mmm_bonus(0, rd, o) for rd in (2, 3, 4, 5, 6, 9)] == [0, 0, 1, 1, 2, 2]
    assert mmm_bonus(3, 5, o) == 2  # the text: factor +3 and RD +5 give +2
    deep = opts(damage_system="min_mid_max", mmm_deep_penalty=-5)
    assert [mmm_bonus(f, 2, deep) for f in (-4, -5, -8)] == [-1, -2, -2]


def test_F_MMM_reading_the_dice() -> None:
    """F-MMM, C-DICE-5: 0 min, 1 mid (the median value), 2 max, 3 max+min, 4 all three; 2,4,4 has mid 4."""
    assert [mmm_read((1, 3, 5), b) for b in range(5)] == [
        ("min", 1), ("mid", 3), ("max", 5), ("max+min", 6), ("sum", 9)]
    assert mmm_read((4, 2, 4), 1) == ("mid", 4) and mmm_read((6, 1, 3), 6) == ("sum", 10)


def test_F_MMM_no_damage_possible_means_no_roll() -> None:
    """F-MMM: a total bonus below zero: no damage, the dice are not even rolled."""
    made, roller = hit(2, -1, opts(damage_system="min_mid_max"))
    assert roller.asked == [] and (made.mmm_bonus, made.damage, made.level) == (-1, 0, UNDAMAGED)


def rachel_and_archie(fights: Fights, **options: Any) -> str:
    name = start(fights, "rachel-archie", damage_system="min_mid_max", **options)
    rachel = sheet("Rachel", skills={"Staff": "Good"}, attack="Staff", weapon=2, armor=2)
    archie = sheet("Archie", attributes={"Strength": "Great"}, skills={"Sword": "Good"}, attack="Sword",
                   weapon=4, armor=2)
    for data in (rachel, archie):
        fights.execute(name, cmd.Join(sheet=data, source="4.6.3"))
    return name


def faces(**by_roller: list[str]) -> DiceInput:
    return DiceInput(by_roller={k: [parse_entered(f) for f in v] for k, v in by_roller.items()})


def exchange(fights: Fights, name: str, given: DiceInput) -> tuple[ev.Hit, list[ev.WoundMarked]]:
    out = fights.execute(name, cmd.Exchange(first="Rachel", second="Archie"), given)
    resolved = next(r.event for r in out.records if isinstance(r.event, ev.ExchangeResolved))
    (made,) = resolved.hits
    return made, [r.event for r in out.records if isinstance(r.event, ev.WoundMarked)]


def test_F_MMM_rachel_and_archie_the_texts_four_rounds(fights: Fights) -> None:
    """F-MMM, the worked example of Fudge 4.6.3 with the text's 3d6 (F-MOD-6 all-out in round four)."""
    name = rachel_and_archie(fights)
    # Round 1: Rachel wins by +2, factor 0: read the Min of 3, 5, 6 = 3: Archie is Hurt.
    made, marks = exchange(fights, name, faces(rachel=["++00", "3 5 6"], archie=["0000"]))
    assert (made.attacker, made.relative_degree, made.damage_factor) == ("Rachel", 2, 0)
    assert (made.mmm_bonus, made.mmm_read, made.mmm_value, made.level) == (0, "min", 3, HURT)
    assert [(m.combatant, m.level) for m in marks] == [("Archie", HURT)]
    # Round 2: Archie grazes (+1): the graze rule unchanged, factor 4: a Scratch, no dice.
    made, marks = exchange(fights, name, faces(rachel=["0000"], archie=["++00"]))
    assert (made.attacker, made.graze, made.damage_factor, made.level) == ("Archie", True, 4, SCRATCH)
    assert made.mmm_bonus is None
    # Round 3: Archie wins by +4, factor 4: two bonuses, read the Max of 1, 2, 3 = 3: Rachel only Hurt.
    made, marks = exchange(fights, name, faces(rachel=["-000"], archie=["++++", "1 2 3"]))
    assert (made.relative_degree, made.mmm_bonus, made.mmm_read, made.mmm_value) == (4, 2, "max", 3)
    assert [(m.combatant, m.level) for m in marks] == [("Rachel", HURT)]
    # Round 4: Rachel all-out attacks, +6: read the Max of 1, 4, 6 and add 1: 7, Incapacitated.
    fights.execute(name, cmd.Declare(combatant="Rachel", declaration=ev.Declaration(all_out="offense")))
    made, marks = exchange(fights, name, faces(rachel=["++++", "1 4 6"], archie=["-000"]))
    assert (made.relative_degree, made.bonus, made.mmm_read, made.mmm_value, made.damage) == (6, 1, "max", 6, 7)
    assert [(m.combatant, m.level) for m in marks] == [("Archie", INCAPACITATED)]
    line = render.describe(next(r.event for r in fights.log(name) if isinstance(r.event, ev.ExchangeResolved)
                                and r.event.hits and r.event.hits[0].damage == 7), FUDGE7)
    assert "min-mid-max bonus +2 reads max = 6" in line and "damage 7 → Incapacitated" in line
    assert verify(fights.store.read(name)).ok


def test_F_MMM_epic_track(fights: Fights) -> None:
    """F-MMM epic: 1 Scratch, 2-3 Hurt, 4-5 Very Hurt, 6 Incapacitated, 7+ Near Death; boxes 3/2/2/1/1."""
    o = resolve("fudge", 'damage_system = "min_mid_max"\nwound_thresholds = "epic"\nwound_boxes = "epic"')[1]
    assert o.wound_boxes == (3, 2, 2, 1, 1)
    made, _ = hit(2, 0, o, (6, 6, 6))
    assert (made.damage, made.level) == (6, INCAPACITATED)
    made, _ = hit(2, 0, opts(damage_system="min_mid_max"), (6, 6, 6))
    assert made.level == VERY_HURT


def test_F_MMM_is_its_own_damage_roll() -> None:
    """F-MMM: combined with a damage_roll mode is refused at setup."""
    with pytest.raises(InputError, match="min-mid-max"):
        resolve("fudge", 'damage_system = "min_mid_max"\ndamage_roll = "1dF_damage"')


def test_F_MMM_generated_d6_are_derived_from_the_seed_and_verified(fights: Fights) -> None:
    """F-MMM with A-FAIR-1: generated 3d6 are faces 1..6, recorded as d6, re-derived after the reveal."""
    name = rachel_and_archie(fights)
    for _ in range(6):
        fights.execute(name, cmd.Exchange(first="Rachel", second="Archie"))
        if not all(c.track.can_act for c in fights.state(name).combatants.values()):
            break
    d6 = [r.event for r in fights.log(name) if isinstance(r.event, ev.DiceRolled) and r.event.sides == 6]
    assert all(1 <= f <= 6 for roll in d6 for f in roll.faces) and all(len(r.faces) == 3 for r in d6)
    fights.reveal_seed(name)
    report = verify(fights.store.read(name))
    assert report.ok and report.rolls_unchecked == 0


def test_F_MMM_entered_d6_faces_are_checked() -> None:
    """F-MMM, C-DICE-3: a d6 shows 1..6; Fudge faces entered for a d6 roll are refused."""
    with pytest.raises(InputError, match="d6 shows 1..6"):
        EnteredDice(by_roller={"a": [(0, 1, 7)]}).roll("A", 3, "damage", sides=6)
    with pytest.raises(InputError, match="Fudge die"):
        EnteredDice(by_roller={"a": [(3, 5, 6, 1)]}).roll("A", 4, "Sword")
    assert parse_entered("3 5 6") == (3, 5, 6) and parse_entered("+-0+") == (1, -1, 0, 1)
    with pytest.raises(InputError):
        parse_entered("3 x 6")


def test_F_MMM_wrong_dice_refused_and_nothing_written(fights: Fights) -> None:
    """F-MMM: a Fudge roll typed where the 3d6 belongs is refused; the log is unchanged."""
    name = rachel_and_archie(fights)
    before = fights.state(name).last_seq
    with pytest.raises(RuleError):
        exchange(fights, name, faces(rachel=["++00", "+ 0 -"], archie=["0000"]))
    assert fights.state(name).last_seq == before


# --- F-TECH -------------------------------------------------------------------------

def test_F_TECH_tech_levels_are_a_scale_difference_between_weapon_and_armor() -> None:
    """F-TECH: a pulverizer (tech 6) against kevlar (tech 4) gains 2; plate (tech 0) vs a pistol (tech 4) loses 4;
    same era, no tech on one side, or the option off: nothing."""
    def factor(weapon_tech: int | None, armor_tech: int | None, **o: Any) -> ev.Hit:
        attacker = fighter("A", weapon={"damage": 3, "muscle_powered": False, "tech": weapon_tech})
        defender = fighter("D", armor={"protection": 3, "tech": armor_tech})
        return strike(attacker, defender, ("A", "D"), 2, 0, opts(**o), Faces())[0]

    assert (factor(6, 4).damage_factor, factor(6, 4).tech) == (2, 2)
    assert (factor(6, 4).offensive, factor(6, 4).defensive) == (3, 3)
    assert factor(4, 0).damage_factor == 4
    assert factor(0, 4).damage_factor == -4
    assert factor(4, 4).damage_factor == 0
    assert factor(None, 4).damage_factor == 0 and factor(None, 4).tech is None
    assert factor(6, 0, tech_scale=False).damage_factor == 0
    line = hit_detail(factor(6, 4))
    assert "offense +3 − defense +3, tech Scale +2" in line


def test_F_MMM_at_the_command_line_with_typed_d6(tmp_path: Any) -> None:
    """F-MMM, C-DICE-3: the house file, a typed 3d6 (`--dice rachel="3 5 6"`), and every number in `fudge log`."""
    import sqlite3
    from pathlib import Path

    from typer.testing import CliRunner

    from fudge_combat.cli.main import app

    examples = Path(__file__).resolve().parents[1] / "examples"
    db = tmp_path / "fudge.db"

    def run(*args: Any) -> Any:
        return CliRunner().invoke(app, ["--store", str(db), *map(str, args)], env={"FUDGE_STORE": None})

    assert run("new", "mmm", "--house", examples / "house" / "min-mid-max.toml").exit_code == 0
    for who in ("snorri", "brynhild"):
        assert run("join", examples / "sheets" / f"{who}.toml").exit_code == 0
    result = run("exchange", "snorri", "brynhild", "--dice", "snorri=+ + 0 0", "--dice", "brynhild=0 0 0 0",
                 "--dice", "snorri=3 5 6")
    assert result.exit_code == 0, result.stderr
    log = run("log").stdout
    assert "Snorri rolls damage: 3d6 3 5 6 (entered)" in log
    assert "min-mid-max bonus +1 reads mid = 5, damage 5 → Very Hurt" in log
    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    bad = run("exchange", "snorri", "brynhild", "--dice", "snorri=+ + 0 0", "--dice", "brynhild=0 0 0 0",
              "--dice", "snorri=3 5 9")
    assert bad.exit_code != 0 and bad.stderr.count("\n") == 1 and "d6 shows 1..6" in bad.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == before


MODES = ["none", "4dF_limited", "4dF_free", "1dF_damage", "1dF_level", "parity"]


@settings(max_examples=300, deadline=None)
@given(mode=st.sampled_from(MODES + ["min_mid_max"]), rd=st.integers(0, 10), factor=st.integers(-12, 14),
       bonus=st.sampled_from([0, 1, 2, 3]), fudge=st.lists(st.sampled_from([-1, 0, 1]), min_size=4, max_size=4),
       d6=st.lists(st.integers(1, 6), min_size=3, max_size=3), rolls=st.tuples(st.integers(-4, 4), st.integers(-4, 4)),
       weight=st.sampled_from([1, 2]))
def test_F_DROLL_F_GRAZE_1_F_GRAZE_2_F_MMM_strike_invariants(mode: str, rd: int, factor: int, bonus: int,
                                                             fudge: list[int], d6: list[int],
                                                             rolls: tuple[int, int], weight: int) -> None:
    """F-DROLL, F-GRAZE-1, F-GRAZE-2, F-MMM, F-DMG-4: for any blow, damage is never negative, the level is the
    thresholds' reading (shifted at most one by 1dF_level), and a graze stays within one level of its table
    (plus the bonus's one) and never passes Very Hurt."""
    o = opts(damage_system="min_mid_max") if mode == "min_mid_max" else opts(damage_roll=mode)
    o = msgspec.structs.replace(o, **{"relative_degree_weight": weight})
    count = 1 if mode.startswith("1dF") else 4

    def roller(attacker: str, count_: int = 4, sides: int | None = None) -> ev.DiceRolled:
        faces = tuple(d6) if sides == 6 else tuple(fudge[:count_])
        return ev.DiceRolled(action=1, roller=attacker, purpose="damage", faces=faces, source="entered", sides=sides)

    attacker, defender = with_factor(factor)
    made, taken = strike(attacker, defender, ("A", "D"), rd, bonus, o, roller, *rolls)
    assert made.damage_factor == factor and 0 <= made.level <= NEAR_DEATH
    if made.graze:
        table = UNDAMAGED if factor < 0 else SCRATCH if factor < 5 else HURT
        assert made.damage is None and made.level <= VERY_HURT
        assert abs(made.level - min(table + (bonus > 0), VERY_HURT)) <= 1
        assert not taken or mode in ROLLED
        return
    assert made.damage is not None and made.damage >= 0
    if mode == "min_mid_max":
        assert (made.level == UNDAMAGED and not taken) if made.mmm_bonus < 0 else len(taken[0].faces) == 3  # type: ignore[operator]
        return
    reading = level_for(made.damage, o)
    assert made.level == reading if mode != "1dF_level" else abs(made.level - reading) <= 1
    assert [len(t.faces) for t in taken] == ([count] if mode in ROLLED else [])


def level_for(damage: int, o: RuleOptions) -> int:
    from fudge_combat.engine.kernel.wounds import level_for_damage

    return level_for_damage(damage, o.wound_thresholds)


@pytest.mark.parametrize("mode, dice_, shown", [
    ("1dF_damage", [(1,)], "damage roll +1, 1dF_damage, damage 5 → Very Hurt"),
    ("1dF_level", [(-1,)], "damage roll -1, 1dF_level, level shifted -1, damage 4 → Scratch"),
    ("4dF_free", [(1, 1, 1, 0)], "damage roll +3, 4dF_free, damage 7 → Incapacitated"),
    ("parity", [], "parity +1 offense / +0 defense, damage 5 → Very Hurt"),
    ("doubled", [], "RD counted ×2, damage 6 → Hurt"),
])
def test_F_DROLL_F_DMG_4_every_number_is_shown_in_the_log(mode: str, dice_: list[tuple[int, ...]], shown: str) -> None:
    """F-DROLL, F-DMG-4: `fudge log` and `replay` show the roll, its mode and what it changed."""
    o = resolve("fudge", 'wound_thresholds = "doubled"')[1] if mode == "doubled" else opts(damage_roll=mode)
    made, _ = hit(2, 2, o, *dice_, attack_roll=2, defense_roll=1)
    line = hit_detail(made)
    assert line == f" [A→D: RD +2, factor +2, {shown}]" if mode != "parity" else shown in line
