"""The line of every event type (`log`, `replay` and command output): one small function per type, declared
beside its evolve in its ruleset's `events` module (tests/test_event_types.py holds every type to one).

The lines of the stored-row fixtures (tests/fixtures: a body of every event type in each shape the
suite wrote, and whole fights) are kept in a snapshot, on the Fudge ladder with fudge and fate points.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

from fudge_combat.cli import render
from fudge_combat.engine.kernel.ladder import FUDGE7
from fudge_combat.events import structs as ev
from fudge_combat.events.records import load

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_no_event_falls_through_to_its_bare_type_name() -> None:
    """The views describe through the engine's declarations: every type of the union has its own line."""
    for body in [json.loads(line) for line in (FIXTURES / "schema1_bodies.jsonl").read_text().splitlines()]:
        event = load(body).event
        assert render.describe(event, FUDGE7) != event.type, event.type
    assert {type(load(body).event) for body in
            [json.loads(line) for line in (FIXTURES / "schema1_bodies.jsonl").read_text().splitlines()]} <= set(
        get_args(ev.Event))


def test_the_line_of_every_stored_fixture_event(snapshot) -> None:  # type: ignore[no-untyped-def]
    bodies = [json.loads(line) for line in (FIXTURES / "schema1_bodies.jsonl").read_text().splitlines()]
    bodies += [json.loads(line)["body"] for line in (FIXTURES / "schema1_logs.jsonl").read_text().splitlines()]
    lines = [f"{points}: {render.describe(load(body).event, FUDGE7, points=points)}"
             for body in bodies for points in ("fudge", "fate")]
    assert len(lines) == 2 * len(bodies)
    assert lines == snapshot(name="describe-every-fixture-event")


def test_FT_INIT_a_turn_passed_or_held_says_which_and_after_whom() -> None:
    """The stored bodies of the types added since schema 1 (fixtures/schema2_bodies.jsonl) have their lines."""
    from tests.test_stored_rows import new_type_bodies

    lines = [render.describe(load(body).event, FUDGE7, points="fate") for body in new_type_bodies()]
    assert lines == ["Finn holds his turn in round 1: he acts after Cyrus (FT-INIT)",
                     "Cyrus passes his turn in round 1: it is used with no action (FT-INIT)",
                     # an event of a ruleset installed from another package, read where it is not installed
                     # (tests/test_toy_ruleset.py reads it where it is)
                     "wits told (an event of the wits rules, which are not installed)",
                     # conditions and leaving (docs/table.md)
                     "Snorri is prone until round 2 (1 round): tripped on a shield",
                     "Brynhild is on fire",
                     "Brynhild is no longer on fire",
                     "Snorri fled: out of the fight without wounds",
                     "Brynhild left the fight: out of the fight without wounds"]
