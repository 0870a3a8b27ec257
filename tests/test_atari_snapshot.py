"""Replay snapshot of Max's tavern knife fight (seed 000, AI-WND-2) and the Atari Isev demo.

The script is examples/demo_atari.py's KNIFE_FIGHT with the dice that give the
seed's numbers; the checkpoints the text names are asserted as well, so a
snapshot updated by mistake cannot hide them.
"""

from __future__ import annotations

from pathlib import Path

import structlog


from fudge_combat.events.records import json_form
from fudge_combat.cli.demos import DEMOS
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.examples.demo_atari import KNIFE_FIGHT
from fudge_combat.service.fights import Fights
from tests.atari_helpers import atari
from tests.conftest import dice, make_fights
from tests.test_cli import Fudge
from tests.test_snapshots import replay_steps, wounds


def play_knife_fight(fights: Fights) -> str:
    name = atari(fights, "max", "cutthroat")
    for _, command, faces in KNIFE_FIGHT:
        fights.execute(name, command, dice(*faces))
    return name


def test_AI_WND_2_AI_INIT_2_A_REPLAY_1_max_knife_fight_state_after_each_event(fights: Fights, snapshot) -> None:
    """AI-WND-2, AI-INIT-2, AI-ATK-2, AI-DMG-1 (A-REPLAY-1): Max's knife fight, event by event."""
    name = play_knife_fight(fights)
    steps = replay_steps(fights, name)
    blows = [i for i, s in enumerate(steps) if s["type"] == "exchange_resolved"]
    after = [steps[i + 1] if i + 1 < len(steps) and steps[i + 1]["type"] == "wound_marked" else steps[i]
             for i in blows]
    assert [wounds(s) for s in after] == [
        {"Max": ("Undamaged", 0), "Cutthroat": ("Hurt", -1)},
        {"Max": ("Hurt", -1), "Cutthroat": ("Hurt", -1)},  # the slash: 4 points
        {"Max": ("Hurt", -1), "Cutthroat": ("Very Hurt", -2)},  # through the window
        {"Max": ("Very Hurt", -2), "Cutthroat": ("Very Hurt", -2)},  # the stab: 3 points, Hurt box full
    ]
    damages = [r.event.damage for r in fights.log(name) if isinstance(r.event, ev.WoundMarked)]
    assert damages == [3, 4, 3, 3]
    assert steps == snapshot(name="atari-knife-fight-state-after-each-event")


def test_AI_WND_2_the_atari_demo_plays_and_verifies() -> None:
    """AI-WND-2: the demo script (examples/demo_atari.py, as cli/demos.py plays it) plays under its preset, ends as the text does, verifies."""
    chosen = DEMOS["atari-isev"]
    fights = make_fights()
    label, options = resolve(chosen.rules, chosen.house)
    fights.new("demo-atari", label, json_form(options))
    for _, command, faces in chosen.steps:
        fights.execute("demo-atari", command, dice(*faces))
    state = fights.state("demo-atari")
    assert [(c.name, c.track.level) for c in state.combatants.values()] == [("Max", 3), ("Cutthroat", 3)]
    assert verify(fights.store.read("demo-atari")).ok


def test_AI_INIT_2_the_demo_runs_under_fudge_demo(tmp_path: Path) -> None:
    """AI-INIT-2: `fudge demo atari-isev` plays it and verifies ok."""
    try:
        out = Fudge(tmp_path)("demo", "atari-isev").stdout
    finally:
        structlog.reset_defaults()
    assert "-- verify demo-atari-isev: ok" in out
    assert "Max (Max): Very Hurt -2" in out
