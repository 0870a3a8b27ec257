"""FT-EX: the Cyrus and Finn exchange fight (004 8.2) replayed with the text's results as dice.

The script is examples/demo_fate.py's TAVERN_BRAWL (as `fudge demo fate` plays
it). The text's checkpoints are asserted, so an updated snapshot cannot hide them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import structlog


from fudge_combat.events.records import json_form
from fudge_combat.cli.demos import DEMOS, join, join_as
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.rulesets.fate.rules import penalty_view
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.examples.demo_fate import TAVERN_BRAWL
from fudge_combat.service.fights import Fights
from tests.conftest import dice, make_fights, start
from tests.test_cli import Fudge
from fudge_combat.cli import render
from fudge_combat.projections.fold import evolve_all
from fudge_combat.engine.rulesets.fate.state import fate_of


def play(fights: Fights) -> tuple[str, list[list[Any]]]:
    """The fight, and the events each step of the script appended."""
    name = start(fights, "tavern", "fate")
    for command in (join("cyrus"), join("finn"), join_as("guard", "Guard-A"), join_as("guard", "Guard-B"),
                    join_as("guard", "Guard-C")):
        fights.execute(name, command)
    steps = []
    for _, command, faces in TAVERN_BRAWL:
        steps.append([r.event for r in fights.execute(name, command, dice(*faces)).records])
    return name, steps


def fate_steps(fights: Fights, name: str) -> list[dict[str, Any]]:
    """A-REPLAY-1: each event's line and everyone's Fate track, points and aspects after it."""
    return [{"seq": record.seq, "type": record.event.type,
             "event": render.line(record.event, state),
             "fate": {who.name: track_line(state, who) for who in state.combatants.values()}}
            for record, state in evolve_all(fights.log(name))]


def track_line(state: Any, who: Any) -> str:
    """Boxes marked, the penalties on the next roll (next action / scene / beyond), fate points, aspect boxes."""
    view = penalty_view(state, who)
    boxes = " ".join(f"{name}:{count}" for name, count in view["boxes"].items() if count)
    aspects = " ".join(f"{name}:{a['checked']}" for name, a in view["aspects"].items())
    return (f"{boxes or 'unmarked'} | next {view['next_action']:+d} scene {view['scene']:+d} "
            f"beyond {view['beyond_scene']:+d} | fate points {view['fate_points']} {aspects}".rstrip())


def resolution(events: list[Any]) -> ev.FateResolved:
    return next(e for e in events if isinstance(e, ev.FateResolved))


def marked(events: list[Any]) -> list[tuple[str, str, str | None]]:
    return [(e.combatant, e.box, e.by) for e in events if isinstance(e, ev.FateBoxMarked)]


def contest(events: list[Any], attacker: str, defender: str) -> ev.FateContest:
    return next(c for c in resolution(events).contests if (c.attacker, c.defender) == (attacker, defender))


def test_FT_EX_cyrus_and_finn_as_the_text_tells_it(fights: Fights, snapshot) -> None:
    """FT-EX (FT-PACE exchange, FT-MULTI, FT-MOD, FT-DEF-1, FT-DEF-2, FT-PTS, FT-MANEUVER, FT-TRACK-3, FT-TRACK-4)."""
    name, steps = play(fights)
    one, two, point_finn, three, brawler, point_cyrus, four, underhanded, point_finn_2 = steps
    # Exchange 1: Cyrus Great against Fair and Average, "simply successful"; Finn's Fair tumble vs Good: clipped.
    assert [(c.attacker, c.attacker_result) for c in resolution(one).contests if c.defender == "Cyrus"] == [
        ("Guard-A", 1), ("Guard-B", 0)]
    assert resolution(one).sides[0].level + resolution(one).sides[0].roll + 1 == 3
    assert marked(one) == [("Finn", "clipped", "Guard-C")]
    # Exchange 2: +1 outnumbering; Good vs Good is a scratch, vs Great a clip; Finn Great -1 = Good.
    assert contest(two, "Guard-A", "Cyrus").outcome == "scratched"
    assert (contest(two, "Guard-B", "Cyrus").attacker_result, contest(two, "Guard-B", "Cyrus").outcome) == (3, "clipped")
    finn = resolution(two).sides[3]
    assert (finn.roll, [m.value for m in finn.modifiers]) == (1, [-1])
    assert marked(two) == [("Cyrus", "clipped", "Guard-B"), ("Guard-C", "clipped", "Finn")]
    # Finn's fate point: Great, a Hurt; he knocks the guard back instead.
    kick = contest(point_finn, "Finn", "Guard-C")
    assert (kick.attacker_result, kick.margin, kick.outcome, kick.maneuver) == (
        3, 2, "hurt", "kicks him across the room, out of the fight for an exchange or two")
    assert marked(point_finn) == [("Cyrus", "clipped", "Guard-B")]
    # Exchange 3: Cyrus Good -1 clipped = Fair; Brawler's reroll: Great; a fate point: Superb; he hurts A.
    cyrus = resolution(three).sides[0]
    assert [(m.name, m.value) for m in cyrus.modifiers] == [("clipped (next action)", -1)]
    assert contest(three, "Finn", "Guard-A").attacker_result == 6  # Epic +1: Legendary
    assert next(e for e in brawler if isinstance(e, ev.AspectChecked)).aspect == "Brawler"
    assert contest(brawler, "Guard-B", "Cyrus").outcome == "scratched"  # Great vs Great
    assert [(c.attacker, c.defender, c.margin, c.outcome) for c in resolution(point_cyrus).contests
            if c.outcome not in ("none",)] == [("Cyrus", "Guard-A", 2, "hurt"), ("Finn", "Guard-A", 5, "injured")]
    assert marked(point_cyrus) == [("Guard-A", "hurt", "Cyrus"), ("Guard-A", "injured", "Finn")]
    # Exchange 4: A at -2 (injured and hurt) +1 outnumbering = Mediocre; B Great clips the defensive Cyrus.
    guard_a = resolution(four).sides[1]
    assert sum(m.value for m in guard_a.modifiers) == -2  # FT-TRACK-4
    assert contest(four, "Guard-A", "Cyrus").attacker_result == -1
    assert contest(four, "Guard-B", "Cyrus").outcome == "clipped"
    # Finn: Great, Underhanded's reroll: Superb vs A's Poor, MoS 6; a fate point: Epic, MoS 7: taken out.
    assert contest(underhanded, "Finn", "Guard-A").margin == 6
    final = contest(point_finn_2, "Finn", "Guard-A")
    assert (final.attacker_result, final.defender_result, final.margin, final.outcome) == (5, -2, 7, "taken_out")
    state = fights.state(name)
    assert [(w.name, w.fudge_points) for w in state.combatants.values()][:2] == [("Cyrus", 2), ("Finn", 1)]
    assert penalty_view(state, state.find("Guard-A"))["taken_out"]
    assert [m.box for m in fate_of(state).marks["cyrus"]] == ["clipped", "clipped"]
    assert verify(fights.store.read(name)).ok
    assert fate_steps(fights, name) == snapshot(name="fate-cyrus-and-finn-state-after-each-event")


def test_FT_EX_the_demo_plays_under_fudge_demo(tmp_path: Path) -> None:
    """FT-EX: `fudge demo fate` plays the fight, ends the scene (injuries stay) and verifies ok."""
    chosen = DEMOS["fate"]
    fights = make_fights()
    label, options = resolve(chosen.rules, chosen.house)
    fights.new("demo-fate", label, json_form(options))
    for _, command, faces in chosen.steps:
        fights.execute("demo-fate", command, dice(*faces))
    state = fights.state("demo-fate")
    assert [m.box for m in fate_of(state).marks["guard-a"]] == ["injured"]
    try:
        out = Fudge(tmp_path)("demo", "fate").stdout
    finally:
        structlog.reset_defaults()
    assert "-- verify demo-fate: ok" in out
    assert "Guard-A is out of the fight: Taken Out, by Finn" in out
    assert isinstance(chosen.steps[-1][1], cmd.EndScene)
