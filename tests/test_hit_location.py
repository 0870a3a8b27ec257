"""Hit location: F-LOC-1 called shots and F-LOC-2 wounded parts (001 4.3.5), with F-HIT-2 aimed blows.

Ann (Sword Great) and Bob (Sword Good), Fair Strength, +2 weapons, no armor:
a hit's damage factor is +2, so RD 2 is 4 points (Hurt).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fudge_combat.cli import render
from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import dice, sheet, start


def duel(fights: Fights, **options: Any) -> None:
    start(fights, **options)
    for name, skill in (("Ann", "Great"), ("Bob", "Good")):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": skill, "Running": "Fair"}, attack="Sword",
                                                     weapon=2, fudge_points=1), source=f"{name.lower()}.toml"))


def aimed(kw: dict[str, Any]) -> dict[str, Any]:
    """A blow's keywords, its targeting's gathered into `targeting`."""
    parts = {key: kw[key] for key in kw if key in cmd.Targeting.__struct_fields__}
    return {**{key: value for key, value in kw.items() if key not in parts}, "targeting": cmd.Targeting(**parts)}


def exchange(fights: Fights, ann: str, bob: str, **kw: Any) -> Any:
    return fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", **aimed(kw)), dice(f"ann={ann}", f"bob={bob}"))


def events(outcome: Any, kind: type) -> list[Any]:
    return [r.event for r in outcome.records if isinstance(r.event, kind)]


def refused(fights: Fights, command: Any, match: str) -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, DiceInput())
    assert fights.store.last_seq("fight") == before


def test_F_LOC_1_F_LOC_2_a_called_shot_won_by_the_required_rd_wounds_that_part(fights: Fights) -> None:
    """F-LOC-1, F-LOC-2: Ann calls Bob's sword arm (RD 2 needed) and wins by 2: the arm is Hurt, not the body;
    a Hurt sword arm is -1 to Bob's combat from then on."""
    duel(fights)
    outcome = exchange(fights, "+000", "0000", called="sword arm", called_rd=2, affects="combat")
    done = events(outcome, ev.ExchangeResolved)[0]
    assert (done.called, done.called_rd) == ("sword arm", 2)
    assert [(h.aimed_at, h.location) for h in done.hits] == [("sword arm", "sword arm")]
    assert events(outcome, ev.WoundMarked) == []
    [part] = events(outcome, ev.LocationWounded)
    assert (part.combatant, part.location, part.level, part.affects) == ("Bob", "sword arm", 2, "combat")
    state = fights.state("fight")
    bob = state.find("Bob")
    assert bob is not None and bob.track.level == 0 and dict(bob.locations) == {"sword arm": (2, "combat")}
    assert render.status_json(state)["combatants"][1]["locations"] == {"sword arm": {"level": "Hurt", "affects": "combat"}}
    assert "locations" not in render.status_json(state)["combatants"][0]
    assert "parts: sword arm Hurt (-1 combat)" in render.status_text(state)
    later = events(exchange(fights, "0000", "0000"), ev.ExchangeResolved)[0]
    assert ("hurt sword arm", -1) in [(m.name, m.value) for m in later.sides[1].modifiers]


def test_F_LOC_1_won_by_less_the_defender_names_where_or_it_is_the_body(fights: Fights) -> None:
    """F-LOC-1: Ann wins by 1 only (RD 3 needed): a hit, but where Bob says (his shield arm); named nowhere,
    an ordinary body wound."""
    duel(fights)
    outcome = exchange(fights, "0000", "0000", called="eye", called_rd=3, otherwise="shield arm")
    [hit] = events(outcome, ev.ExchangeResolved)[0].hits
    assert (hit.relative_degree, hit.aimed_at, hit.location) == (1, "eye", "shield arm")
    assert [(p.location, p.level) for p in events(outcome, ev.LocationWounded)] == [("shield arm", 1)]
    outcome = exchange(fights, "+000", "0000", called="eye", called_rd=3)
    [hit] = events(outcome, ev.ExchangeResolved)[0].hits
    assert hit.location is None and [w.level for w in events(outcome, ev.WoundMarked)] == [2]
    assert events(outcome, ev.LocationWounded) == []


def test_F_LOC_2_a_hurt_leg_hinders_running_and_a_second_hurt_incapacitates(fights: Fights) -> None:
    """F-LOC-2: a Hurt leg with --affects Running gives -1 to Running rolls, not to combat; Hurt again, it is
    Incapacitated; the other fighter's legs are untouched."""
    duel(fights)
    exchange(fights, "+000", "0000", called="left leg", affects="Running")
    roll = fights.execute("fight", cmd.RollTrait(combatant="Bob", trait="Running"), dice("bob=0000"))
    resolved = events(roll, ev.ActionResolved)[0]
    assert [(m.name, m.value) for m in resolved.modifiers] == [("hurt left leg", -1)]
    fight = events(exchange(fights, "0000", "0000"), ev.ExchangeResolved)[0]
    assert not any("leg" in m.name for m in fight.sides[1].modifiers)
    exchange(fights, "+000", "0000", called="left leg", affects="Running")
    bob = fights.state("fight").find("Bob")
    assert bob is not None and bob.locations["left leg"] == (3, "Running")


def test_F_LOC_1_F_HIT_2_undo_and_a_fudge_point_keep_the_location_rules(fights: Fights) -> None:
    """F-LOC-1, F-LOC-2: undo removes the part's wound; a luck reroll re-places the blow by the same call."""
    duel(fights)
    exchange(fights, "+000", "0000", called="sword arm", affects="combat")
    fights.execute("fight", cmd.Undo())
    bob = fights.state("fight").find("Bob")
    assert bob is not None and dict(bob.locations) == {}
    exchange(fights, "0000", "0000", called="sword arm", affects="combat")  # RD 1: body Scratch
    spent = fights.execute("fight", cmd.SpendPoint(combatant="Ann", use="luck"), dice("ann=+000"))
    new = events(spent, ev.ExchangeResolved)[0]
    assert new.called == "sword arm" and new.hits[0].location == "sword arm"  # RD 2 now
    bob = fights.state("fight").find("Bob")
    assert bob is not None and bob.track.level == 0 and bob.locations["sword arm"][0] == 2
    from fudge_combat.engine.audit import verify
    assert verify(fights.store.read("fight")).ok  # every located blow re-decides the same


def test_F_LOC_1_refusals(fights: Fights) -> None:
    """F-LOC-1: --need-rd or --otherwise without --called, a call with an aim, an RD below 1 are refused."""
    duel(fights)
    refused(fights, cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(called_rd=3)), "--called")
    refused(fights, cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(otherwise="arm")), "--called")
    refused(fights, cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(called="eye", aim=2, aim_at="eye")), "not both")
    refused(fights, cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(called="eye", called_rd=0)), "1 or more")
    refused(fights, cmd.Attack(attacker="Ann", target="Bob", targeting=cmd.Targeting(affects="combat")), "--called")


def test_F_LOC_1_at_the_command_line(tmp_path: Path) -> None:
    """F-LOC-1, F-LOC-2: `fudge exchange --called --need-rd --affects`, then `fudge status` shows the part."""
    runner = CliRunner()
    db = str(tmp_path / "fudge.db")

    def fudge(*args: str) -> Any:
        return runner.invoke(app, ["--store", db, *args], env={"FUDGE_STORE": None})

    assert fudge("new", "duel").exit_code == 0
    for name, skill in (("Ann", "Great"), ("Bob", "Good")):
        path = tmp_path / f"{name}.toml"
        path.write_text(f'name = "{name}"\n[skills]\nSword = "{skill}"\n[combat]\nattack = "Sword"\n[weapon]\ndamage = 2\n')
        assert fudge("join", str(path)).exit_code == 0
    result = fudge("exchange", "Ann", "Bob", "--called", "sword arm", "--need-rd", "2", "--affects", "combat",
                   "--dice", "ann=+000", "--dice", "bob=0000")
    assert result.exit_code == 0, result.stderr
    assert "Bob's sword arm is Hurt (a Hurt blow, -1 to combat)" in result.stdout
    status = fudge("status", "--long")
    assert "parts: sword arm Hurt (-1 combat)" in status.stdout
    bad = fudge("exchange", "Ann", "Bob", "--need-rd", "2")
    assert bad.exit_code != 0 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1
