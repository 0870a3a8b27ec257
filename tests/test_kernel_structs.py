"""C-ACT-1, A-LOG-1: a sheet and a fight's options are validated by their pydantic models (engine.kernel.models)
where a file or a request gives them, and held by the engine as the structs derived from those models
(engine/kernel/structs.py, written by engine.derive).

- the structs are the ones the models give (a model changed since fails here, naming the command to run);
- every example sheet and every preset is held, and written into its event, as the model writes it, and the
  stored form reads back as the same value;
- a stored value the model refuses for its types or bounds, the struct refuses too;
- a sheet a command gives is read by the model, its own validators included;
- reading a fight (its snapshot, or its log from the first event) builds neither model.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from fudge_combat.engine import commands as cmd
from fudge_combat.engine import derive
from fudge_combat.engine.kernel import models
from fudge_combat.engine.kernel.inputs import load_toml
from fudge_combat.engine.kernel.options import RuleOptions, stored_options
from fudge_combat.engine.kernel.presets import PRESETS, given_options, resolve
from fudge_combat.engine.kernel.sheets import Sheet, given_sheet, parse_sheet, stored_sheet
from fudge_combat.events.records import json_form
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import make_fights, sheet, start

ROOT = Path(__file__).resolve().parents[1]
SHEETS = sorted((ROOT / "examples" / "sheets").glob("*.toml"))


@pytest.mark.parametrize("target", sorted(derive.TARGETS), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_derived_structs_are_the_ones_the_models_give(target: Path) -> None:
    assert target.read_text(encoding="utf-8") == derive.TARGETS[target](), (
        f"{target} is stale: run `python -m fudge_combat.engine.derive`")


@pytest.mark.parametrize("path", SHEETS, ids=lambda p: p.stem)
def test_every_example_sheet_is_held_and_written_as_its_model_writes_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    held = parse_sheet(text, path.name)
    written = models.Sheet.model_validate(load_toml(text, path.name)).model_dump(mode="json")
    assert isinstance(held, Sheet)
    assert json_form(held) == written
    assert list(json_form(held)) == list(written)  # the same keys in the same order: the same event bytes
    assert stored_sheet(written) == held


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_is_held_and_written_as_its_model_writes_it(preset: str) -> None:
    _, held = resolve(preset)
    written = models.RuleOptions.model_validate(PRESETS[preset].overrides).model_dump(mode="json")
    assert isinstance(held, RuleOptions)
    assert json_form(held) == written
    assert list(json_form(held)) == list(written)
    assert stored_options(written) == held


BAD_SHEETS = {
    "an empty name": {"name": ""},
    "a level past its bound": {"name": "A", "scale": 1001},
    "negative fudge points": {"name": "A", "fudge_points": -1},
    "an unknown key": {"name": "A", "zz": 1},
    "a text for a number": {"name": "A", "weapon": {"damage": "big"}},
    "a trait's name past its length": {"name": "A", "skills": {"S" * 201: 1}},
    "a shield of no size": {"name": "A", "shield": {"size": "huge"}},
    "four wound boxes": {"name": "A", "wounds": {"boxes": [1, 1, 1, 1]}},
}
BAD_OPTIONS = {
    "a number past its bound": {"min_hit": 5000},
    "an unknown pace": {"pace": "slow"},
    "three wound boxes": {"wound_boxes": [1, 2, 3]},
    "an unknown option": {"speed": 1},
    "a text for a flag": {"scratch_cap": "sometimes"},
}


@pytest.mark.parametrize("bad", list(BAD_SHEETS))
def test_a_stored_sheet_the_model_refuses_the_struct_refuses(bad: str) -> None:
    with pytest.raises(ValidationError):
        models.Sheet.model_validate(BAD_SHEETS[bad])
    with pytest.raises(msgspec.ValidationError):
        stored_sheet(BAD_SHEETS[bad])


@pytest.mark.parametrize("bad", list(BAD_OPTIONS))
def test_stored_options_the_model_refuses_the_struct_refuses(bad: str) -> None:
    with pytest.raises(ValidationError):
        given_options(BAD_OPTIONS[bad])
    with pytest.raises(msgspec.ValidationError):
        stored_options(BAD_OPTIONS[bad])


LEVELS = st.one_of(st.integers(-1000, 1000), st.sampled_from(["Good", "Fair", "Great+", "Poor"]))
NAMES = st.text(st.characters(codec="utf-8", exclude_characters="="), min_size=1, max_size=12).filter(str.strip)


@settings(max_examples=200, deadline=None)
@given(name=NAMES, skills=st.dictionaries(NAMES, LEVELS, max_size=4), points=st.none() | st.integers(0, 1000),
       scale=st.integers(-1000, 1000), damage=st.none() | st.integers(-1000, 1000),
       aspects=st.dictionaries(NAMES, st.integers(0, 1000), max_size=3))
def test_a_sheet_the_model_takes_is_stored_and_read_back_the_same(name: str, skills: dict[str, Any],
                                                                    points: int | None, scale: int,
                                                                    damage: int | None,
                                                                    aspects: dict[str, int]) -> None:
    data: dict[str, Any] = {"name": name, "skills": skills, "fudge_points": points, "scale": scale,
                            "aspects": aspects}
    if damage is not None:
        data["weapon"] = {"damage": damage}
    written = models.Sheet.model_validate(data).model_dump(mode="json")
    held = given_sheet(data)
    assert json_form(held) == written
    assert stored_sheet(written) == held


def test_a_sheet_a_command_gives_is_read_by_the_model_and_its_own_validators() -> None:
    assert given_sheet({"name": " Ann ", "fate_points": 2}) == Sheet(name="Ann", fudge_points=2)  # C-FP-4
    with pytest.raises(ValidationError, match="cannot contain '='"):
        given_sheet({"name": "a=b"})
    with pytest.raises(ValidationError, match="not both"):
        given_sheet({"name": "Ann", "fate_points": 1, "fudge_points": 1})


def test_named_wound_tables_are_read_by_the_options_model() -> None:
    """F-DMG-4, F-WND-2: a name stands for its numbers, which are what the struct holds and the event stores."""
    options = given_options({"wound_thresholds": "doubled", "wound_boxes": "cinematic"})
    assert options.wound_thresholds == (1, 4, 7, 10, 13) and options.relative_degree_weight == 2
    assert json_form(options)["wound_boxes"] == [4, 2, 1, 1, 1]
    with pytest.raises(msgspec.ValidationError):
        stored_options({"wound_boxes": "cinematic"})  # a stored fight holds the numbers, never the name


def test_reading_a_fight_builds_no_sheet_or_options_model(tmp_path: Path) -> None:
    """The state a command reads, from its snapshot or its log, holds the structs: the models stay unbuilt."""
    path = tmp_path / "fudge.db"
    fights = make_fights(SqliteStore(path), views=True)
    start(fights)
    for who in ("Ann", "Bob"):
        fights.execute("fight", cmd.Join(sheet=sheet(who, skills={"Sword": "Good"}, attack="Sword",
                                                     fudge_points=1), source=f"{who}.toml"))
    code = ("import sys; from fudge_combat.service.fights import Fights; "
            "from fudge_combat.store.sqlite import SqliteStore; "
            f"fights = Fights(SqliteStore({str(path)!r})); "
            "state = fights.state('fight'); replayed = fights.replayed('fight')[1]; "
            "assert state == replayed and len(state.combatants) == 2, state; "
            "print(type(state.options).__module__, type(state.find('Ann').fighter.sheet).__module__, "
            "'fudge_combat.engine.kernel.models' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["fudge_combat.engine.kernel.structs"] * 2 + ["False"]
