"""Helpers for Atari Isev fights: example sheets joined on an in-memory store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from tests.conftest import dice, start

SHEETS = Path(__file__).resolve().parent.parent / "examples" / "sheets"


def join(fights: Fights, who: str, fight: str = "fight", **changes: Any) -> None:
    path = SHEETS / f"{who}.toml"
    sheet = json_form(parse_sheet(path.read_text(), path.name))
    sheet.update(changes)
    fights.execute(fight, cmd.Join(sheet=sheet, source=path.name))


def atari(fights: Fights, *who: str, **options: Any) -> str:
    name = start(fights, "fight", "atari-isev", **options)
    for person in who:
        join(fights, person)
    return name


def events(outcome: Any, kind: type) -> list[Any]:
    return [r.event for r in outcome.records if isinstance(r.event, kind)]


def resolved(outcome: Any) -> ev.ExchangeResolved:
    return events(outcome, ev.ExchangeResolved)[-1]


def refused(fights: Fights, command: Any, given: DiceInput | None = None, match: str | None = None) -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before


def round_(fights: Fights, *faces: str, **kw: Any) -> Any:
    return fights.execute("fight", cmd.StartRound(**kw), dice(*faces))


def next_(fights: Fights) -> ev.TurnTaken:
    return events(fights.execute("fight", cmd.NextTurn()), ev.TurnTaken)[0]


def attack(fights: Fights, attacker: str, target: str, *faces: str, **kw: Any) -> Any:
    return fights.execute("fight", cmd.Attack(attacker=attacker, target=target, **kw), dice(*faces))


def declare(fights: Fights, who: str, **fields: Any) -> Any:
    return fights.execute("fight", cmd.Declare(combatant=who, declaration=ev.Declaration(**fields)))
