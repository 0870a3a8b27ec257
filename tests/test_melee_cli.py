"""The melee options' GM inputs at the command line: F-TAC-3, F-HIT-2, F-MOD-5, F-FANCY-1, F-LOC-1.

Each runs `fudge` through Typer's CliRunner against a SQLite file; a bad input
is one line on stderr, a non-zero exit, and nothing written.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fudge_combat.cli.main import app


class Fudge:
    def __init__(self, tmp: Path) -> None:
        self.tmp, self.db, self.runner = tmp, tmp / "fudge.db", CliRunner()

    def __call__(self, *args: str) -> Any:
        result = self.runner.invoke(app, ["--store", str(self.db), *args], env={"FUDGE_STORE": None})
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
        return result

    def fails(self, *args: str) -> str:
        before = self.events()
        result = self.runner.invoke(app, ["--store", str(self.db), *args], env={"FUDGE_STORE": None})
        assert result.exit_code != 0 and result.stdout == "", (args, result.stdout)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert self.events() == before
        return lines[0]

    def events(self) -> int:
        with sqlite3.connect(self.db) as db:
            return db.execute("SELECT count(*) FROM events").fetchone()[0]


@pytest.fixture
def fudge(tmp_path: Path) -> Fudge:
    f = Fudge(tmp_path)
    house = tmp_path / "postures.toml"
    house.write_text('extends = "fudge"\ntactics = "postures"\n')
    f("new", "duel", "--house", str(house))
    for name, skill in (("Ann", "Great"), ("Bob", "Good")):
        path = tmp_path / f"{name}.toml"
        path.write_text(f'name = "{name}"\n[attributes]\nSpeed = "Good"\n[skills]\nSword = "{skill}"\n'
                        f'[combat]\nattack = "Sword"\n[weapon]\ndamage = 2\n')
        f("join", str(path))
    return f


def test_F_TAC_3_declare_posture_roll_and_posture_die(fudge: Fudge) -> None:
    """F-TAC-3: `--posture-die 6` is +2; `--posture-roll` generates a d6; sealed or bad faces are refused."""
    out = fudge("declare", "Ann", "--posture-die", "6").stdout
    assert "Ann rolls posture (1d6): " in out and "Ann declares posture +2" in out
    assert "Bob declares posture" in fudge("declare", "Bob", "--posture-roll").stdout
    assert "Bob declares posture -2" in fudge("declare", "Bob", "--posture-roll", "--dice", "bob=1").stdout
    assert "--posture-roll" in fudge.fails("declare", "Bob", "--posture", "1", "--dice", "bob=1")
    assert "cannot be --sealed" in fudge.fails("declare", "Ann", "--posture-roll", "--sealed")
    assert "1 to 6" in fudge.fails("declare", "Ann", "--posture-die", "0")
    assert "not both" in fudge.fails("declare", "Ann", "--posture-roll", "--posture", "1")


def test_F_HIT_2_F_MOD_5_F_FANCY_1_exchange_options(fudge: Fudge) -> None:
    """F-HIT-2, F-MOD-5, F-FANCY-1: `fudge exchange --aim Great --aim-at eye --magic Bob=-1 --speed-contest`."""
    out = fudge("exchange", "Ann", "Bob", "--aim", "Great", "--aim-at", "eye", "--magic", "Bob=-1", "--speed-contest",
                "--dice", "ann=0000", "--dice", "bob=0000", "--dice", "ann=+000", "--dice", "bob=0000").stdout
    assert "speed contest (Speed)" in out and "-1 aimed blow" in out and "-1 magic curse" in out
    assert "at the eye" in out  # Great +1 -1 +0 = Great vs Good -1 = Fair: RD 2, the eye is struck
    assert "Good or Great" in fudge.fails("exchange", "Ann", "Bob", "--aim", "Fair", "--aim-at", "eye")
    assert "--magic" in fudge.fails("exchange", "Ann", "Bob", "--magic", "Bob")


def test_F_LOC_1_attack_called_shot(fudge: Fudge) -> None:
    """F-LOC-1: `fudge attack --called 'sword arm' --need-rd 3 --otherwise 'shield arm'`."""
    out = fudge("attack", "Ann", "Bob", "--called", "sword arm", "--need-rd", "3", "--otherwise", "shield arm",
                "--dice", "ann=0000", "--dice", "bob=0000").stdout
    assert "Bob's shield arm is Scratched" in out  # won by 1 only: where the defender names
    assert "1 or more" in fudge.fails("attack", "Ann", "Bob", "--called", "eye", "--need-rd", "0")


def test_F_MULTI_2_F_MOD_3_the_melee_line_shows_a_foes_shield_against_the_lone_fighter(tmp_path: Path) -> None:
    """F-MULTI-2, F-MOD-3: Ann (Great) rolls once against Bob (medium shield) and Cid; the line shows that
    against Bob her result is one lower (Good), so "ties Bob" reads true."""
    f = Fudge(tmp_path)
    f("new", "melee")
    for name, skill, shield in (("Ann", "Great", ""), ("Bob", "Good", '[shield]\nsize = "medium"\n'),
                                ("Cid", "Mediocre", "")):
        path = tmp_path / f"{name}.toml"
        path.write_text(f'name = "{name}"\n[skills]\nSword = "{skill}"\n[combat]\nattack = "Sword"\n'
                        f'[weapon]\ndamage = 2\n{shield}')
        f("join", str(path))
    out = f("melee", "Ann", "Bob", "Cid", "--dice", "ann=+ 0 0 0", "--dice", "bob=0 0 0 0",
            "--dice", "cid=0 0 0 0").stdout
    assert "Bob Sword Good +0 = Good (Ann vs Bob -1 Bob's medium shield = Good);" in out
    assert "Ann ties Bob (+0)" in out


def test_F_MULTI_7_melee_help_says_how_to_type_the_gms_group_roll(tmp_path: Path) -> None:
    """F-MULTI-7: the GM's one 2dF roll for every NPC is typed as GM=FACES; `fudge melee --help` says so."""
    result = CliRunner().invoke(app, ["melee", "--help"], env={"FUDGE_STORE": None, "COLUMNS": "200"})
    assert result.exit_code == 0 and "--dice GM=FACES" in result.stdout


def test_F_MOD_2_F_MULTI_2_a_gm_modifier_to_one_foe_of_a_melee(tmp_path: Path) -> None:
    """F-MOD-2, F-MULTI-2: `--foe-mod Bob=-1` (Bob on bad footing) lowers Bob's result only; the melee verifies
    and undoes; a foe not in the melee is refused in one line and nothing is written."""
    from fudge_combat.engine.audit import verify
    from fudge_combat.store.sqlite import SqliteStore
    f = Fudge(tmp_path)
    f("new", "melee")
    for name, skill in (("Ann", "Great"), ("Bob", "Good"), ("Cid", "Good")):
        path = tmp_path / f"{name}.toml"
        path.write_text(f'name = "{name}"\n[skills]\nSword = "{skill}"\n[combat]\nattack = "Sword"\n[weapon]\ndamage = 2\n')
        f("join", str(path))
    assert "Cid is not one of Ann's foes" in f.fails("melee", "Ann", "Bob", "--foe-mod", "Cid=-1")
    out = f("melee", "Ann", "Bob", "Cid", "--foe-mod", "Bob=-1", "--dice", "ann=0 0 0 0", "--dice", "bob=0 0 0 0",
            "--dice", "cid=0 0 0 0").stdout
    assert "Bob Sword Good +0 -1 GM modifier = Fair;" in out and "Cid Sword Good +0 = Good" in out
    assert verify(SqliteStore(f.db).read("melee")).ok
    f("undo")
    assert verify(SqliteStore(f.db).read("melee")).ok
