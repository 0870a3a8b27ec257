"""Ranged combat (Fudge 4.4, seed 001): F-RNG-1, F-RNG-2, F-RNG-3, F-RNG-4, F-RNG-5 and the ranged shields of F-MOD-3.

The text's showdowns (Nevada Slim and the El Paso Hombre; Will Scarlet and
Dicken) run with dice that give the results the text names.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.ranged import bullets_on_target, burst_bonus
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, sheet, start


def join(fights: Fights, name: str, *sheets: dict[str, Any]) -> None:
    for data in sheets:
        fights.execute(name, cmd.Join(sheet=data, source="test"))


def shot_of(outcome: Any) -> ev.ShotResolved:
    return next(r.event for r in outcome.records if isinstance(r.event, ev.ShotResolved))


def wounds_of(outcome: Any) -> list[tuple[str, int]]:
    return [(r.event.combatant, r.event.level) for r in outcome.records if isinstance(r.event, ev.WoundMarked)]


def armed(data: dict[str, Any], **weapon: Any) -> dict[str, Any]:
    return {**data, "weapon": {"name": "weapon", **weapon}}


def gunslinger(name: str, skill: str = "Good") -> dict[str, Any]:
    return armed(sheet(name, skills={"Guns": skill}, attack="Guns"), damage=3, muscle_powered=False)


@pytest.fixture
def showdown(fights: Fights) -> str:
    name = start(fights, "showdown")
    join(fights, name, gunslinger("Slim"), gunslinger("Hombre"))
    return name


# --- F-RNG-1 -------------------------------------------------------------------------

def test_F_RNG_1_unaware_target_is_an_unopposed_roll_against_the_difficulty(fights: Fights, showdown: str) -> None:
    """F-RNG-1: Good shot, +0 rolled = Good vs a Good difficulty: it hits (margin 0 is read as a graze)."""
    out = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=1), dice("slim=+-00"))
    shot = shot_of(out)
    assert shot.mode == "unaware" and len(shot.sides) == 1 and shot.difficulties == (1,)
    assert shot.sides[0].result == 1
    (hit,) = shot.hits
    assert (hit.relative_degree, hit.graze, hit.damage_factor) == (1, True, 3)  # the gun's 3 against Fair DC, no armor
    assert wounds_of(out) == [("Hombre", 1)]  # graze at factor 0-4: Scratch
    # one step short misses; range and light are only in the difficulty, never in the skill
    miss = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=2), dice("slim=+-00"))
    assert shot_of(miss).hits == () and shot_of(miss).outcome == "Slim misses"
    assert [m.name for m in shot_of(miss).sides[0].modifiers] == []


def test_F_RNG_1_margin_is_the_relative_degree(fights: Fights, showdown: str) -> None:
    """F-RNG-1, F-DMG-3: Good +3 = Superb+1 vs Fair: RD +4, damage 4 + 3 = 7 -> Incapacitated."""
    out = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=0), dice("slim=+++0"))
    (hit,) = shot_of(out).hits
    assert (hit.relative_degree, hit.damage, hit.level) == (4, 7, 4)


def test_F_RNG_1_default_difficulty_is_fair(fights: Fights, showdown: str) -> None:
    """F-RNG-1, C-ACT-2: no --difficulty given: Fair."""
    out = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre"), dice("slim=--00"))
    assert shot_of(out).difficulties == (0,) and shot_of(out).hits == ()


# --- F-RNG-2 -------------------------------------------------------------------------

def test_F_RNG_2_aware_target_dodges_propelled_at_minus_two(fights: Fights) -> None:
    """F-RNG-2: opposed, Bow Great vs Dodge Good -2 (propelled); RD +3, above the Mediocre difficulty."""
    name = start(fights)
    join(fights, name, sheet("Will", skills={"Bow": "Great"}, attack="Bow", weapon=2),
         sheet("Dicken", skills={"Dodge": "Good"}))
    out = fights.execute(name, cmd.Shoot(shooter="Will", target="Dicken", difficulty=-1, aware=True,
                                         weapon="propelled"), dice("will=0000", "dicken=0000"))
    shot = shot_of(out)
    assert shot.mode == "aware" and shot.weapon == "propelled"
    will, dicken = shot.sides
    assert (will.result, dicken.trait, dicken.result) == (2, "Dodge", -1)
    assert [(m.name, m.value) for m in dicken.modifiers] == [("dodging a propelled weapon", -2)]
    (hit,) = shot.hits
    assert hit.relative_degree == 3


def test_F_RNG_2_thrown_weapon_no_dodge_modifier_and_agility_without_dodge(fights: Fights) -> None:
    """F-RNG-2: thrown: no modifier; no Dodge skill: Agility."""
    name = start(fights)
    join(fights, name, sheet("Ann", skills={"Throwing": "Good"}, attack="Throwing", weapon=1),
         sheet("Bob", attributes={"Agility": "Great"}))
    out = fights.execute(name, cmd.Shoot(shooter="Ann", target="Bob", aware=True, weapon="thrown", difficulty=-2),
                         dice("ann=+000", "bob=0000"))
    ann, bob = shot_of(out).sides
    assert (bob.trait, bob.modifiers, bob.result) == ("Agility", (), 2)
    assert shot_of(out).hits == ()  # Great beats Great: no hit (RD 0)


def test_F_RNG_2_difficulty_is_still_the_least_result_to_hit(fights: Fights) -> None:
    """F-RNG-2: winning the dodge is not enough below the difficulty."""
    name = start(fights)
    join(fights, name, sheet("Will", skills={"Bow": "Fair"}, attack="Bow", weapon=2), sheet("Dicken"))
    out = fights.execute(name, cmd.Shoot(shooter="Will", target="Dicken", difficulty=2, aware=True,
                                         weapon="propelled"), dice("will=++00", "dicken=0000"))
    will, dicken = shot_of(out).sides
    assert will.result == 2 and dicken.result == -2 and shot_of(out).hits != ()
    out = fights.execute(name, cmd.Shoot(shooter="Will", target="Dicken", difficulty=2, aware=True,
                                         weapon="propelled"), dice("will=+000", "dicken=0000"))
    assert shot_of(out).sides[0].result == 1 and shot_of(out).hits == ()


def test_F_RNG_2_option_minus_three_and_the_sheets_weapon_kind(fights: Fights) -> None:
    """F-RNG-2: propelled_dodge_penalty = -3; the sheet's `ranged = "propelled"` needs no flag."""
    name = start(fights, propelled_dodge_penalty=-3)
    join(fights, name, armed(sheet("Will", skills={"Bow": "Great"}, attack="Bow"), damage=2, ranged="propelled"),
         sheet("Dicken", skills={"Dodge": "Good"}))
    out = fights.execute(name, cmd.Shoot(shooter="Will", target="Dicken", aware=True), dice("will=0000", "dicken=0000"))
    assert shot_of(out).sides[1].modifiers[0].value == -3 and shot_of(out).weapon == "propelled"


def test_F_RNG_2_unknown_weapon_kind_is_refused_and_nothing_written(fights: Fights) -> None:
    """F-RNG-2: a dodge needs to know thrown or propelled."""
    name = start(fights)
    join(fights, name, sheet("Ann", skills={"Throwing": "Good"}, attack="Throwing", weapon=1), sheet("Bob"))
    before = fights.state(name).last_seq
    with pytest.raises(RuleError, match="thrown or propelled"):
        fights.execute(name, cmd.Shoot(shooter="Ann", target="Bob", aware=True), dice("ann=0000", "bob=0000"))
    assert fights.state(name).last_seq == before


def test_F_MOD_3_shields_against_ranged_attacks(fights: Fights) -> None:
    """F-MOD-3: small 0, medium +1, large +2 against a shot (when the bearer knows of it)."""
    name = start(fights)
    join(fights, name, sheet("Will", skills={"Bow": "Great"}, attack="Bow", weapon=2),
         sheet("Small", shield="small"), sheet("Medium", shield="medium"), sheet("Large", shield="large"))
    seen = {}
    for target in ("Small", "Medium", "Large"):
        out = fights.execute(name, cmd.Shoot(shooter="Will", target=target, aware=True, weapon="thrown"),
                             dice("will=0000", f"{target}=0000"))
        seen[target] = sum(m.value for m in shot_of(out).sides[0].modifiers)
    assert seen == {"Small": 0, "Medium": -1, "Large": -2}
    unaware = fights.execute(name, cmd.Shoot(shooter="Will", target="Large"), dice("will=0000"))
    assert shot_of(unaware).sides[0].modifiers == ()


# --- F-RNG-3 -------------------------------------------------------------------------

def test_F_RNG_3_nevada_slim_and_the_el_paso_hombre_both_miss(fights: Fights, showdown: str) -> None:
    """F-RNG-3: both against Fair; Slim rolls Poor, the Hombre Mediocre: neither hits."""
    out = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=0, shoot_back=True),
                         dice("slim=---0", "hombre=--00"))
    shot = shot_of(out)
    assert [s.result for s in shot.sides] == [-2, -1] and shot.difficulties == (0, 0)
    assert shot.hits == () and shot.outcome == "both miss"


def test_F_RNG_3_will_scarlet_hits_dicken_who_misses(fights: Fights) -> None:
    """F-RNG-3: Will needs Mediocre and rolls Mediocre; Dicken needs Good and rolls Fair (a better shot, a miss)."""
    name = start(fights)
    join(fights, name, sheet("Will", skills={"Bow": "Great"}, attack="Bow", weapon=2),
         sheet("Dicken", skills={"Crossbow": "Good"}, attack="Crossbow", weapon=3))
    out = fights.execute(name, cmd.Shoot(shooter="Will", target="Dicken", difficulty=-1, shoot_back=True,
                                         back_difficulty=1), dice("will=---0", "dicken=-000"))
    shot = shot_of(out)
    assert [s.result for s in shot.sides] == [-1, 0] and shot.difficulties == (-1, 1)
    assert [(h.attacker, h.defender) for h in shot.hits] == [("Will", "Dicken")]
    assert wounds_of(out) == [("Dicken", 1)]


def test_F_RNG_3_both_may_hit_in_the_same_round(fights: Fights, showdown: str) -> None:
    """F-RNG-3: "Will and Dicken would have skewered each other"."""
    out = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=0, shoot_back=True),
                         dice("slim=++00", "hombre=+000"))
    shot = shot_of(out)
    assert sorted((h.attacker, h.relative_degree) for h in shot.hits) == [("Hombre", 2), ("Slim", 3)]
    assert sorted(wounds_of(out)) == [("Hombre", 3), ("Slim", 3)]  # 3+3 = 6, 2+3 = 5: both Very Hurt


# --- F-RNG-4 -------------------------------------------------------------------------

def test_F_RNG_4_a_gun_has_a_fixed_rating_instead_of_strength(fights: Fights) -> None:
    """F-RNG-4, F-DMG-1: Superb Strength does not add to a gun's damage; it does to a thrown knife."""
    name = start(fights)
    join(fights, name,
         armed(sheet("Strong", attributes={"Strength": "Superb"}, skills={"Guns": "Good"}, attack="Guns"),
               damage=3, muscle_powered=False),
         armed(sheet("Thrower", attributes={"Strength": "Superb"}, skills={"Guns": "Good"}, attack="Guns"),
               damage=1, ranged="thrown"),
         sheet("Target"))
    out = fights.execute(name, cmd.Shoot(shooter="Strong", target="Target"), dice("strong=+000"))
    assert shot_of(out).hits[0].damage_factor == 3
    assert (shot_of(out).hits[0].offensive, shot_of(out).hits[0].defensive) == (3, 0)
    out = fights.execute(name, cmd.Shoot(shooter="Thrower", target="Target"), dice("thrower=+000"))
    assert shot_of(out).hits[0].damage_factor == 3 + 1


# --- F-RNG-5 -------------------------------------------------------------------------

@pytest.mark.parametrize("rd, bullets", [(1, 2), (2, 5), (4, 10), (8, 20), (11, 20)])
def test_F_RNG_5_fraction_of_the_burst_on_target_is_rd_over_8(rd: int, bullets: int) -> None:
    """F-RNG-5: 20 bullets: a graze puts one or two on target, +2 a quarter, +4 half, +8 all."""
    assert bullets_on_target(20, rd) == bullets


def test_F_RNG_5_at_least_one_bullet_and_a_slight_bonus_per_doubling() -> None:
    """F-RNG-5: a hit puts at least one bullet on target; the bonus grows by one per doubling."""
    assert bullets_on_target(3, 1) == 1
    assert [burst_bonus(n) for n in (1, 2, 3, 4, 7, 8, 20)] == [0, 1, 1, 2, 2, 3, 4]


def test_F_RNG_5_a_burst_is_one_blow_with_the_bullets_recorded(fights: Fights, showdown: str) -> None:
    """F-RNG-5: RD +4 with a 20-round burst: 10 bullets, +3 damage bonus, one wound."""
    out = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=-3, burst=20),
                         dice("slim=0000"))
    (hit,) = shot_of(out).hits
    assert (hit.relative_degree, hit.bullets, hit.bullets_max, hit.bonus) == (4, 10, 20, 3)
    assert hit.damage == 4 + 3 + 3 and len(wounds_of(out)) == 1
    gm = fights.execute(showdown, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=-3, burst=20, burst_bonus=1),
                        dice("slim=0000"))
    assert shot_of(gm).hits[0].bonus == 1


# --- the command's life: log, undo, verify, refusals -----------------------------------

def test_F_RNG_shots_are_undone_replayed_and_verified(tmp_path: Path) -> None:
    """F-RNG-3 with A-VERIFY-1 and A-UNDO-1: a shot is one command; verify re-decides it from the log."""
    fights = make_fights(SqliteStore(tmp_path / "f.db"))
    name = start(fights, "showdown")
    join(fights, name, gunslinger("Slim"), gunslinger("Hombre"))
    fights.execute(name, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=0, shoot_back=True),
                   dice("slim=---0"))  # the Hombre's dice are generated
    fights.execute(name, cmd.Shoot(shooter="Slim", target="Hombre", difficulty=-4, burst=10, aware=True),
                   dice("slim=++00", "hombre=0000"))
    assert verify(fights.store.read(name)).ok
    before = fights.state(name)
    assert len(before.combatants["hombre"].marks) == 1  # RD +4 on the Hombre
    fights.execute(name, cmd.Undo())
    assert len(fights.state(name).combatants["hombre"].marks) == 0
    fights.execute(name, cmd.Redo())
    assert fights.state(name).combatants == before.combatants
    fights.reveal_seed(name)
    report = verify(fights.store.read(name))
    assert report.ok and report.rolls_checked >= 1


@pytest.mark.parametrize("command, message", [
    (cmd.Shoot(shooter="Slim", target="Slim"), "itself"),
    (cmd.Shoot(shooter="Slim", target="Hombre", aware=True, shoot_back=True), "not both"),
    (cmd.Shoot(shooter="Slim", target="Hombre", burst=0), "at least 1"),
    (cmd.Shoot(shooter="Slim", target="Hombre", back_difficulty=1), "--shoot-back"),
    (cmd.Shoot(shooter="Slim", target="Hombre", weapon="thrown"), "--aware"),
    (cmd.Shoot(shooter="Slim", target="Hombre", burst_bonus=2), "--burst"),
    (cmd.Shoot(shooter="Nobody", target="Hombre"), "no combatant"),
])
def test_F_RNG_bad_shots_are_refused_and_nothing_is_written(fights: Fights, showdown: str, command: Any,
                                                            message: str) -> None:
    """F-RNG-1, F-RNG-2, F-RNG-3, F-RNG-4, F-RNG-5: what the rules forbid is refused with the reason; the log is unchanged."""
    before = fights.state(showdown).last_seq
    with pytest.raises(RuleError, match=message):
        fights.execute(showdown, command, dice("slim=0000", "hombre=0000"))
    assert fights.state(showdown).last_seq == before


def test_F_RNG_fudge_points_re_resolve_a_shot(fights: Fights) -> None:
    """F-RNG-3 with C-FP-2: skill shifts a shooter's result, luck rerolls; the old hits are voided."""
    name = start(fights, "showdown")
    join(fights, name, {**gunslinger("Slim"), "fudge_points": 2}, {**gunslinger("Hombre"), "fudge_points": 1})
    fights.execute(name, cmd.Shoot(shooter="Slim", target="Hombre", shoot_back=True),
                   dice("slim=--00", "hombre=++00"))  # Slim Mediocre misses; the Hombre Superb hits him
    assert [len(c.marks) for c in fights.state(name).combatants.values()] == [1, 0]
    out = fights.execute(name, cmd.SpendPoint(combatant="Slim", use="skill", shift=1))
    shot = shot_of(out)
    assert shot.supersedes is not None and shot.sides[0].result == 0
    assert sorted(h.attacker for h in shot.hits) == ["Hombre", "Slim"]  # Fair now makes the Fair difficulty
    state = fights.state(name)
    assert [len(c.marks) for c in state.combatants.values()] == [1, 1]
    out = fights.execute(name, cmd.SpendPoint(combatant="Hombre", use="luck"), dice("hombre=----"))
    assert [h.attacker for h in shot_of(out).hits] == ["Slim"]
    state = fights.state(name)
    assert [len(c.marks) for c in state.combatants.values()] == [0, 1]
    assert [c.fudge_points for c in state.combatants.values()] == [1, 0]
    with pytest.raises(RuleError, match="panache"):
        fights.execute(name, cmd.SpendPoint(combatant="Slim", use="panache"))
    assert verify(fights.store.read(name)).ok


# --- at the command line -------------------------------------------------------------

def run(db: Path, *args: Any) -> Any:
    return CliRunner().invoke(app, ["--store", str(db), *map(str, args)], env={"FUDGE_STORE": None})


def events_in(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


@pytest.fixture
def cli_fight(tmp_path: Path) -> Path:
    db = tmp_path / "fudge.db"
    for sheet_name, skill in (("will", "Great"), ("dicken", "Good")):
        path = tmp_path / f"{sheet_name}.toml"
        path.write_text(f'name = "{sheet_name.title()}"\n[skills]\nBow = "{skill}"\n[combat]\nattack = "Bow"\n'
                        '[weapon]\ndamage = 2\nranged = "propelled"\n[shield]\nsize = "medium"\n')
    assert run(db, "new", "greenwood").exit_code == 0
    for sheet_name in ("will", "dicken"):
        assert run(db, "join", tmp_path / f"{sheet_name}.toml").exit_code == 0
    return db


def test_F_RNG_3_shoot_at_the_command_line_and_in_the_log(cli_fight: Path) -> None:
    """F-RNG-3, F-MOD-3: `fudge shoot ... --shoot-back`; `fudge log` shows each roll, difficulty and hit."""
    result = run(cli_fight, "shoot", "will", "dicken", "--difficulty", "Mediocre", "--shoot-back",
                 "--back-difficulty", "Good", "--dice", "will=0 0 0 -", "--dice", "dicken=- 0 0 0")
    assert result.exit_code == 0, result.stderr
    assert "shooting back" in result.stdout and "Dicken's medium shield (ranged)" in result.stdout
    log = run(cli_fight, "log").stdout
    assert "vs Mediocre" in log and "vs Good" in log and "Will grazes Dicken" in log


@pytest.mark.parametrize("args", [
    ("--thrown", "--propelled", "--aware"),
    ("--burst", "0"),
    ("--difficulty", "Splendid"),
    ("--aware", "--shoot-back"),
])
def test_F_RNG_bad_input_at_the_command_line_is_one_line_and_writes_nothing(cli_fight: Path,
                                                                           args: tuple[str, ...]) -> None:
    """F-RNG-1, F-RNG-2, F-RNG-3: errors are one line on stderr; the store is unchanged."""
    before = events_in(cli_fight)
    result = run(cli_fight, "shoot", "will", "dicken", *args, "--dice", "will=0000", "--dice", "dicken=0000")
    assert result.exit_code != 0 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error: ")
    assert events_in(cli_fight) == before


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_F_RNG_3_will_scarlet_and_dicken_from_the_example_sheets(tmp_path: Path) -> None:
    """F-RNG-3, F-RNG-4: the greenwood shoot-out at the command line with the example sheets and the text's dice:
    Will needs Mediocre and rolls Mediocre (a hit); Dicken needs Good and rolls Fair (a miss)."""
    db = tmp_path / "fudge.db"
    assert run(db, "new", "greenwood").exit_code == 0
    for name in ("will-scarlet", "dicken"):
        assert run(db, "join", EXAMPLES / "sheets" / f"{name}.toml").exit_code == 0
    result = run(db, "shoot", "Will Scarlet", "Dicken", "--difficulty", "Mediocre", "--shoot-back",
                 "--back-difficulty", "Good", "--dice", "will scarlet=- - - 0", "--dice", "dicken=- 0 0 0")
    assert result.exit_code == 0, result.stderr
    assert "Will Scarlet Bow Great -3 = Mediocre vs Mediocre" in result.stdout
    assert "Dicken Crossbow Good -1 = Fair vs Good" in result.stdout
    assert "Will Scarlet grazes Dicken: Scratch" in result.stdout
    assert "Will Scarlet→Dicken: RD +1, factor +2 (offense +3 − defense +1), graze → Scratch" in result.stdout
    assert "verified" in run(db, "verify").stdout


def test_F_RNG_shots_take_their_turn_under_phase_initiative(fights: Fights) -> None:
    """F-RNG-1 with F-INIT-4: in phase order only the fighter whose turn it is shoots, once per turn."""
    name = start(fights, "phases", rules="fudge-phases")
    join(fights, name, gunslinger("Slim"), gunslinger("Hombre"))
    with pytest.raises(RuleError, match="no one's turn"):
        fights.execute(name, cmd.Shoot(shooter="Slim", target="Hombre"), dice("slim=0000"))
    fights.execute(name, cmd.StartRound())
    fights.execute(name, cmd.NextTurn())
    state = fights.state(name)
    assert state.turn is not None
    shooter = state.combatants[state.turn.combatant].name
    other = "Hombre" if shooter == "Slim" else "Slim"
    with pytest.raises(RuleError, match=f"it is {shooter}'s turn"):
        fights.execute(name, cmd.Shoot(shooter=other, target=shooter), dice(f"{other}=0000"))
    fights.execute(name, cmd.Shoot(shooter=shooter, target=other), dice(f"{shooter}=----"))
    with pytest.raises(RuleError, match="already acted"):
        fights.execute(name, cmd.Shoot(shooter=shooter, target=other), dice(f"{shooter}=----"))
