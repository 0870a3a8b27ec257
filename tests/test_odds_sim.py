"""`fudge odds --duel` against `fudge sim` on the same duel: the exact chances lie within sampling error."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from typer.testing import CliRunner

from fudge_combat.cli.main import app


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def write_sheet(tmp_path: Path, name: str, skill: str, weapon: int) -> Path:
    path = tmp_path / f"{name.lower()}.toml"
    path.write_text(f'name = "{name}"\n[skills]\nSword = "{skill}"\n[combat]\nattack = "Sword"\n'
                    f'[weapon]\nname = "sword"\ndamage = {weapon}\n[armor]\nname = "leather"\nprotection = 1\n')
    return path


@pytest.mark.parametrize("rules", ["fudge", "fate"])
def test_exact_duel_odds_agree_with_fudge_sim(tmp_path: Path, rules: str) -> None:
    """F-PACE-2, FT-PACE: `fudge sim` plays the same duel 1,500 times (a fixed seed); each side's win rate
    lies within 4 standard errors of `fudge odds --duel`'s exact chance, and the mean rounds too."""
    ann, bob = write_sheet(tmp_path, "Ann", "Great", 3), write_sheet(tmp_path, "Bob", "Good", 4)
    house = tmp_path / "house.toml"  # Fate with one box of each kind: shorter duels, a smaller chain
    house.write_text(f'extends = "{rules}"\n' + ("fate_boxes = [1, 1, 1]\n" if rules == "fate" else ""))
    runner = CliRunner()
    store = ["--store", str(tmp_path / "fudge.db")]
    exact = runner.invoke(app, [*store, "odds", str(ann), str(bob), "--house", str(house), "--duel", "--json"])
    assert exact.exit_code == 0, exact.stderr
    odds = json.loads(exact.stdout)
    n = 1500
    played = runner.invoke(app, [*store, "sim", str(ann), str(bob), "--house", str(house), "-n", str(n),
                                 "--seed", "2026", "--json"])
    assert played.exit_code == 0, played.stderr
    sim = json.loads(played.stdout)
    assert sim["draws"]["count"] == 0  # no duel reached the round cap
    for winner in odds["winners"]:
        if winner["winner"] == "neither":
            continue
        p = winner["probability"]
        rate = sim["sides"][winner["winner"]]["rate"]
        assert abs(rate - p) <= 4 * math.sqrt(p * (1 - p) / n), (winner["winner"], rate, p)
    distribution = {int(k): v for k, v in sim["rounds"]["distribution"].items()}
    mean = sum(k * v for k, v in distribution.items()) / n
    spread = math.sqrt(sum(v * (k - mean) ** 2 for k, v in distribution.items()) / (n - 1))
    assert abs(mean - odds["expected_rounds"]["value"]) <= 4 * spread / math.sqrt(n)
