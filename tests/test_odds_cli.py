"""`fudge odds` through Typer's CliRunner: text chart, --json, every preset, errors as one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner, Result

from fudge_combat.cli.main import app
from fudge_combat.engine.kernel.presets import PRESETS

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"
HOUSE = ROOT / "examples" / "house"


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def write_sheet(tmp_path: Path, name: str, skill: str) -> Path:
    path = tmp_path / f"{name.lower()}.toml"
    path.write_text(f'name = "{name}"\n[skills]\nSword = "{skill}"\n[combat]\nattack = "Sword"\n')
    return path


def fudge(tmp_path: Path, *args: Any) -> Result:
    db = tmp_path / "fudge.db"
    return CliRunner().invoke(app, ["--store", str(db), *[str(a) for a in args]], env={"FUDGE_STORE": None})


def test_great_against_good_prints_the_exact_fraction_and_bars(tmp_path: Path) -> None:
    """F-MEL-1, C-DICE-1: Great beats Good (rolling 4dF each) with 3834/6561; the chart shows it with a bar."""
    ann, bob = write_sheet(tmp_path, "Ann", "Great"), write_sheet(tmp_path, "Bob", "Good")
    result = fudge(tmp_path, "odds", ann, bob)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    landed = lines.index("blows landed (graze or hit)")
    ann_line = lines[landed + 1]
    assert "3834/6561" in ann_line and "58.436%" in ann_line and "█" in ann_line
    assert any(line.strip().startswith("stand-off") and "1016/6561" in line for line in lines)
    assert not (tmp_path / "fudge.db").exists()  # nothing is stored


def test_chart_snapshot(tmp_path: Path, snapshot: Any) -> None:
    """The chart of Fudge 4.7's Snorri against Brynhild, one exchange (F-EX sheets, default `fudge` options)."""
    result = fudge(tmp_path, "odds", SHEETS / "snorri.toml", SHEETS / "brynhild.toml")
    assert result.stdout == snapshot


def test_json_gives_exact_fractions(tmp_path: Path) -> None:
    """--json: every outcome as "n/d" and a float; the outcomes sum to exactly 1."""
    ann, bob = write_sheet(tmp_path, "Ann", "Great"), write_sheet(tmp_path, "Bob", "Good")
    result = fudge(tmp_path, "odds", ann, bob, "--json")
    data = json.loads(result.stdout)
    assert data["hits"]["Ann"]["fraction"] == "3834/6561"
    assert sum(Fraction(o["fraction"]) for o in data["outcomes"]) == 1


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_gives_one_action(tmp_path: Path, preset: str) -> None:
    """Each preset: one exchange (simultaneous, or Fate's) or one attack by the first sheet (turns)."""
    result = fudge(tmp_path, "odds", SHEETS / "snorri.toml", SHEETS / "brynhild.toml", "--rules", preset, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == ("exchange" if preset in ("fudge", "fate") else "attack")
    assert sum(Fraction(o["fraction"]) for o in data["outcomes"]) == 1


def test_house_rules_and_declarations_reach_the_odds(tmp_path: Path) -> None:
    """F-MMM, F-TAC-1: a min-mid-max house file and postures change the odds, and are read."""
    base = fudge(tmp_path, "odds", SHEETS / "snorri.toml", SHEETS / "brynhild.toml", "--json")
    house = fudge(tmp_path, "odds", SHEETS / "snorri.toml", SHEETS / "brynhild.toml", "--json",
                  "--house", HOUSE / "postures.toml", "--posture", "snorri=+2", "--posture", "Brynhild=-1")
    assert house.exit_code == 0, house.stderr
    assert json.loads(base.stdout)["outcomes"] != json.loads(house.stdout)["outcomes"]


def test_duel_text_and_json(tmp_path: Path) -> None:
    """F-PACE-2: the whole duel: who is left standing, how it ends, the expected number of rounds."""
    args = ["odds", SHEETS / "snorri.toml", SHEETS / "brynhild.toml", "--duel"]
    text = fudge(tmp_path, *args)
    assert text.exit_code == 0, text.stderr
    assert "who is left standing" in text.stdout and "expected rounds:" in text.stdout
    data = json.loads(fudge(tmp_path, *args, "--json").stdout)
    assert sum(Fraction(w["fraction"]) for w in data["winners"]) == 1
    assert sum(Fraction(f["fraction"]) for f in data["finals"]) == 1
    assert data["expected_rounds"]["value"] > 1


@pytest.mark.parametrize("args, message", [
    (["--rules", "fudge-phases", "--duel"], "simultaneous rounds"),
    (["--rules", "fate", "--all-out", "snorri=offense"], "Fate has no all-out"),
    (["--mods", "1"], "--mods takes"),
    (["--all-out", "nobody=offense"], "is not one of"),
    (["--all-out", "snorri=sideways"], "offense or defense"),
    (["--posture", "snorri=1"], "postures need tactics"),
    (["--rules", "nope"], "unknown rules"),
])
def test_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    """Bad input: one line on stderr naming what to do, non-zero exit, nothing on stdout."""
    result = fudge(tmp_path, "odds", SHEETS / "snorri.toml", SHEETS / "brynhild.toml", *args)
    assert result.exit_code != 0
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr, result.stderr
