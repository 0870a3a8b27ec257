"""Replay snapshots (A-REPLAY-1): the state after each event of a whole fight.

F-EX: Fudge 4.7's Snorri vs Brynhild fight (seed 001, section 4.7), played with the
text's dice (cli.demos.FEX_ROUNDS), the sheets in examples/sheets, and
damage_roll = "4dF_limited". The snapshot is reviewed against the text; the
checkpoints the text names are asserted here as well, so a snapshot updated by
mistake cannot hide them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


from fudge_combat.events.records import json_form
from fudge_combat.cli import render
from fudge_combat.cli.demos import FEX_ROUNDS
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import evolve_all
from fudge_combat.service.fights import Fights
from tests.conftest import dice, start

SHEETS = Path(__file__).resolve().parent.parent / "examples" / "sheets"


def play_fex(fights: Fights) -> str:
    name = start(fights, "fex", damage_roll="4dF_limited")
    for who in ("snorri", "brynhild"):
        path = SHEETS / f"{who}.toml"
        sheet = parse_sheet(path.read_text(), path.name)
        fights.execute(name, cmd.Join(sheet=json_form(sheet), source=path.name))
    for _, command, faces in FEX_ROUNDS:
        fights.execute(name, command, dice(*faces))
    return name


def replay_steps(fights: Fights, name: str) -> list[dict[str, Any]]:
    return [{"seq": record.seq, "type": record.event.type,
             "event": render.line(record.event, state),  # what `replay` prints
             "state": render.status_json(state)}
            for record, state in evolve_all(fights.log(name))]


def wounds(step: dict[str, Any]) -> dict[str, tuple[str, int]]:
    return {c["name"]: (c["wound_level"], c["penalty"]) for c in step["state"]["combatants"]}


def after_round(steps: list[dict[str, Any]], number: int) -> dict[str, Any]:
    """The last step of the n-th exchange (its wound marks included)."""
    exchanges = [i for i, s in enumerate(steps) if s["type"] == "exchange_resolved"]
    end = exchanges[number] if number < len(exchanges) else len(steps)
    index = exchanges[number - 1]
    while index + 1 < end and steps[index + 1]["type"] == "wound_marked":
        index += 1
    return steps[index]


def test_F_EX_A_REPLAY_1_snorri_vs_brynhild_state_after_each_event(fights, snapshot):
    """F-EX (with F-DMG-3, F-GRAZE-2, F-GRAZE-3, F-DROLL 4dF_limited, F-MOD-6, F-MOD-7, F-WND): the replay, event by event."""
    name = play_fex(fights)
    steps = replay_steps(fights, name)

    assert [s["seq"] for s in steps] == list(range(1, len(steps) + 1))
    # Round 1: Snorri Great vs Brynhild Fair, damage 5, damage roll -2 -> 3: Brynhild Hurt (-1).
    assert wounds(after_round(steps, 1)) == {"Snorri": ("Undamaged", 0), "Brynhild": ("Hurt", -1)}
    # Round 2: a stand-off, nothing changes.
    assert wounds(after_round(steps, 2)) == {"Snorri": ("Undamaged", 0), "Brynhild": ("Hurt", -1)}
    # Round 3: a graze -> Scratch: a Scratch box is marked, she stays Hurt (-1).
    third = after_round(steps, 3)
    brynhild = third["state"]["combatants"][1]
    assert brynhild["boxes"]["Scratch"][0] == "Scratch" and brynhild["boxes"]["Hurt"] == ["Hurt"]
    assert wounds(third) == {"Snorri": ("Undamaged", 0), "Brynhild": ("Hurt", -1)}
    # Round 4: all-out offense vs all-out defense, Great vs Great: no damage.
    assert wounds(after_round(steps, 4)) == {"Snorri": ("Undamaged", 0), "Brynhild": ("Hurt", -1)}
    # Round 5: Brynhild's graze plus her all-out +1 is a Hurt: Snorri Hurt (-1).
    assert wounds(after_round(steps, 5)) == {"Snorri": ("Hurt", -1), "Brynhild": ("Hurt", -1)}
    assert steps[-1]["state"]["round"] == 5 and steps[-1]["state"]["last_seq"] == len(steps)

    assert steps == snapshot(name="fex-state-after-each-event")


def test_F_EX_A_REPLAY_1_command_by_command_matches_event_by_event(fights, snapshot):
    """A-REPLAY-1: the state after each command, as of its last event, is the event-by-event state there."""
    name = play_fex(fights)
    steps = {s["seq"]: s for s in replay_steps(fights, name)}
    log = fights.log(name)
    ends = [r.seq for i, r in enumerate(log) if i + 1 == len(log) or log[i + 1].command != r.command]
    by_command = [{"as_of": seq, "state": render.status_json(fights.state(name, as_of=seq))} for seq in ends]
    for view in by_command:
        assert view["state"] == steps[view["as_of"]]["state"]
    assert any(isinstance(r.event, ev.AdvantageGained) for r in log)  # F-MOD-7: the spilled drink
    assert by_command == snapshot(name="fex-state-after-each-command")


def test_a_combatant_read_from_a_snapshot_is_written_again_byte_for_byte_as_taking_him_apart_gives(fights: Fights) -> None:
    """A-REPLAY-1: a combatant a snapshot's state still holds after a command (the same object) is written from
    what msgpack held for him (store.schema), not taken apart again: the snapshot's bytes are the same either
    way, for the fighters left alone and beside one the command changed. A combatant holding a persistent map,
    whose newest version changes the dict it was read into, is always taken apart again."""
    from msgspec.structs import replace

    from fudge_combat.engine.kernel.pmap import PMap
    from fudge_combat.engine.kernel.rewind import FOUNDED
    from fudge_combat.store import schema

    name = play_fex(fights)
    body = schema.encode(fights.state(name), FOUNDED)
    state, history = schema.decode(body)
    assert sorted(id(who) for who in state.combatants.values()) == sorted(schema._read())  # noqa: SLF001  (each kept)
    snorri, brynhild = state.combatants["snorri"], state.combatants["brynhild"]
    changed = replace(state, combatants=PMap.holding({**state.combatants, "snorri": replace(snorri, fudge_points=0)}))
    remembered = schema.encode(state, history), schema.encode(changed, history)
    kept = schema._read()[id(brynhild)]  # noqa: SLF001
    schema._read()[id(brynhild)] = (brynhild, schema._read()[id(snorri)][1])  # noqa: SLF001  (what is written is what was read)
    assert schema.encode(state, history) != body
    schema._read()[id(brynhild)] = kept  # noqa: SLF001
    schema._read().clear()  # noqa: SLF001  (taken apart again, field by field)
    assert remembered == (body, schema.encode(changed, history))
    assert remembered[1] != body

    # a persistent map of locations (F-LOC-2): its dict is the one msgpack's was read into
    wounded = replace(snorri, locations=PMap.holding({"left leg": (2, None)}))
    body = schema.encode(replace(state, combatants=PMap.holding({**state.combatants, "snorri": wounded})), history)
    state, history = schema.decode(body)
    snorri = state.combatants["snorri"]
    assert id(snorri) not in schema._read() and id(state.combatants["brynhild"]) in schema._read()  # noqa: SLF001
    snorri.locations.set("head", (3, None))  # the newest version: the dict it was read into changes
    assert schema.encode(state, history) == body
