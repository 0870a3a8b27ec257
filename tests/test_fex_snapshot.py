"""F-EX: Fudge 4.7's Snorri vs Brynhild fight, replayed event by event with the text's dice."""

from __future__ import annotations

from importlib import resources

import pytest

from cli import render
from cli.rules import DEMO_FEX
from engine import commands as cmd
from engine.sheets import parse_sheet
from engine.wounds import HURT, SCRATCH
from events import models as ev
from projections.fold import evolve_all
from tests.conftest import dice, start


def play_fex(fights) -> str:
    name = start(fights, "fex", damage_roll="4dF_limited")
    for who in ("snorri", "brynhild"):
        text = (resources.files("examples") / "sheets" / f"{who}.toml").read_text()
        fights.execute(name, cmd.Join(sheet=parse_sheet(text, who).model_dump(mode="json"), source=f"{who}.toml"))
    for _, command, faces in DEMO_FEX:
        fights.execute(name, command, dice(*faces))
    return name


def test_F_EX_rounds_as_the_text_tells_them(fights):
    """F-EX, with F-DMG-3, F-GRAZE-2, F-GRAZE-3, F-MOD-3, F-MOD-6, F-MOD-7, F-DROLL 4dF_limited."""
    name = play_fex(fights)
    log = fights.log(name)
    rounds = [r.event for r in log if isinstance(r.event, ev.ExchangeResolved)]
    results = [tuple(s.result for s in e.sides) for e in rounds]
    assert results == [(2, 0), (1, 1), (2, 1), (2, 2), (1, 2)]  # Great/Fair, Good/Good, Great/Good, Great/Great, Good/Great
    first, second, third, fourth, fifth = rounds
    assert (first.hits[0].calculated, first.hits[0].damage_roll, first.hits[0].damage, first.hits[0].level) == (5, -2, 3, HURT)
    assert second.outcome == "stand-off" and fourth.hits == ()
    assert third.hits[0].graze and third.hits[0].level == SCRATCH
    assert fifth.hits[0].attacker == "Brynhild" and fifth.hits[0].graze and fifth.hits[0].level == HURT
    state = fights.state(name)
    assert render.status_json(state)["combatants"][0]["wound_level"] == "Hurt"
    brynhild = render.status_json(state)["combatants"][1]
    assert brynhild["boxes"]["Hurt"] == ["Hurt"] and brynhild["boxes"]["Scratch"] == ["Scratch", None, None]
    assert brynhild["penalty"] == -1


@pytest.mark.parametrize("upto", ["whole"])
def test_F_EX_replay_snapshot(fights, snapshot, upto):
    """F-EX, A-REPLAY-1: the state after every event of the fight."""
    name = play_fex(fights)
    steps = [{"seq": record.seq, "type": record.event.type,
              "event": render.describe(record.event, state.ladder),
              "state": render.status_json(state)}
             for record, state in evolve_all(fights.log(name))]
    assert steps == snapshot(name=f"fex-{upto}")
