"""`fudge sim` under Fate (FT-PACE exchange and turn): the same engine path, checked like the other rulesets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import structlog
from typer.testing import CliRunner

from fudge_combat.events.records import json_form
from fudge_combat.cli.main import app
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.sim.runner import (LightSession, ServiceSession, Setup, derived_bytes, derived_ids,
                        fight_seed, play, simulate_range)
from fudge_combat.service.fights import Fights
from fudge_combat.store.memory import MemoryStore
from fudge_combat.store.sqlite import SqliteStore
from tests.test_sim import entrant
from fudge_combat.engine.rulesets.fate.state import fate_of

SHEETS = Path(__file__).resolve().parents[1] / "examples" / "sheets"
HOUSES = {"exchange": None,
          "turn": 'extends = "fate"\npace = "turn"\ninitiative = "alertness"\n'}


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def setup_for(pace: str, policy: str) -> Setup:
    label, options = resolve("fate", HOUSES[pace])
    return Setup(label, json_form(options), (entrant("cyrus", "a"), entrant("finn", "b")), policy)


@pytest.mark.parametrize("pace", sorted(HOUSES))
@pytest.mark.parametrize("policy", ["plain", "sensible"])
def test_fate_fights_play_the_same_through_the_service_and_end(pace: str, policy: str) -> None:
    """FT-PACE: exchanges (everyone at once) and turns (FT-INIT order) end with a side taken out or the cap."""
    setup = setup_for(pace, policy)
    for index in range(3):
        seed = fight_seed(6, index)
        light = LightSession(seed)
        play(light, setup)
        service = Fights(MemoryStore(), clock=lambda: "t", new_id=derived_ids(seed), random_bytes=derived_bytes(seed))
        play(ServiceSession(service, "sim"), setup)
        assert [msgspec.to_builtins(r.event) for r in light.records] == \
               [msgspec.to_builtins(r.event) for r in service.log("sim")]
    results = simulate_range(setup, 6, 0, 20)
    assert all(1 <= r.rounds <= setup.max_rounds for r in results)
    assert sum(r.winner is not None for r in results) >= 15
    for r in results:
        if r.winner is not None:
            assert r.levels[r.winner] not in ("Taken Out", "Dead") and r.levels[1 - r.winner] == "Taken Out"


def test_sensible_spends_fate_points_against_being_taken_out() -> None:
    """FT-PTS: the sensible policy spends a fate point (+1) on the exchange that took its fighter out."""
    spent = {}
    for policy in ("plain", "sensible"):
        setup = setup_for("exchange", policy)
        uses = []
        for index in range(20):
            session = LightSession(fight_seed(3, index))
            play(session, setup)
            uses += [r.event.use for r in session.records if isinstance(r.event, ev.FudgePointSpent)]
        spent[policy] = uses
    assert spent["plain"] == [] and spent["sensible"] and set(spent["sensible"]) == {"skill"}


def test_cli_fate_keeps_fights_that_verify(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["--store", str(tmp_path / "f.db"), "sim", str(SHEETS / "cyrus.toml"),
                                 str(SHEETS / "finn.toml"), "--rules", "fate", "-n", "20", "--seed", "2",
                                 "--policy", "sensible", "--keep", "2", "--json", "--side", "a", "--side", "b"],
                           env={"FUDGE_STORE": None})
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["final_wounds"]["Cyrus"]) <= {"Undamaged", "Clipped", "Hurt", "Injured", "Taken Out"}
    store = SqliteStore(tmp_path / "f.db")
    for kept in data["kept"]:
        report = verify(store.read(kept["fight"]))
        assert report.ok, report.problems


def test_plain_targets_the_foe_with_the_worst_box() -> None:
    """FT-TRACK: the worst-wounded foe is read on Fate's boxes."""
    from fudge_combat.engine import commands as cmd
    from fudge_combat.sim.policies import worst_wounded_foe
    from tests.conftest import dice, make_fights, start

    fights = make_fights()
    start(fights, rules="fate")
    for name, side in (("cyrus", "a"), ("finn", "b"), ("guard", "b")):
        e = entrant(name, side)
        fights.execute("fight", cmd.Join(sheet=e.sheet, source=e.source, side=side))
    state = fights.execute("fight", cmd.FateExchange(actions=(cmd.FateAction(combatant="Cyrus", target="Guard"),
                                                              cmd.FateAction(combatant="Guard"))),
                           dice("cyrus=++++", "guard=----")).state
    assert fate_of(state).marks.get("guard")
    cyrus = state.find("Cyrus")
    assert worst_wounded_foe(state, cyrus, [state.find("Finn"), state.find("Guard")]).name == "Guard"
