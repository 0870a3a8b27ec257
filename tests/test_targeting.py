"""A blow's targeting (F-HIT-2, F-LOC-1, F-LOC-2, F-FANCY-1) is one part inside Exchange and Attack (the model's
and the struct derived from it), and the command line takes an option's allowed values from the command it builds.

A-LOG-1, A-VERIFY-1: the log keeps each command as issued, flat (`aim`, `called`, ... beside `first`),
as the code before the nested model wrote it; `fudge verify` re-decides a log from those dumps.
"""

from __future__ import annotations

import json
from typing import Any

from fudge_combat.cli.gm_inputs import choices
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.conftest import dice, sheet, start

# What the code before the nested model stored as `issued` for these two commands (key for key).
OLD_EXCHANGE = {"type": "exchange", "first": "Ann", "second": "Bob", "mods": [0, 0], "min_hit": None, "reveals": [],
                "stun": [], "pull": [], "head": [], "magic": [], "aim": None, "aim_at": None, "called": "sword arm",
                "called_rd": 3, "otherwise": "shield arm", "affects": "combat", "speed_contest": False}
OLD_ATTACK = {"type": "attack", "attacker": "Ann", "target": "Bob", "mod": 0, "defense_mod": 0, "min_hit": None,
              "unaware": False, "difficulty": None, "reveals": [], "stun": False, "pull": None, "head": False,
              "magic": [], "aim": 3, "aim_at": "eye", "called": None, "called_rd": None, "otherwise": None,
              "affects": None, "speed_contest": True, "avoid": None, "position": [], "target_back": False,
              "ranged": None, "ranged_mod": None, "weapon": None, "targets": [], "targets_avoid": []}


def test_A_LOG_1_an_old_flat_issued_command_validates_into_the_nested_targeting_and_dumps_back_unchanged() -> None:
    """A-LOG-1: a stored flat command reads into `targeting`, by the struct the engine decides and by its model;
    the dump of each is the stored dict again, key for key."""
    exchange = cmd.read_issued(OLD_EXCHANGE, "fudge")
    assert isinstance(exchange, cmd.Exchange)
    assert exchange.targeting == cmd.Targeting(called="sword arm", called_rd=3, otherwise="shield arm", affects="combat")
    attack = cmd.read_issued(OLD_ATTACK, "fudge")
    assert isinstance(attack, cmd.Attack)
    assert attack.targeting == cmd.Targeting(aim=3, aim_at="eye", speed_contest=True)
    for old, command in ((OLD_EXCHANGE, exchange), (OLD_ATTACK, attack)):
        model = cmd.COMMAND_ADAPTER.validate_python(old)
        assert cmd.issued_dump(command) == model.model_dump(mode="json") == old
        assert json.dumps(cmd.issued_dump(command)) == json.dumps(model.model_dump(mode="json"))  # key order too
        assert cmd.read_issued(cmd.issued_dump(command), "fudge") == command


def test_a_command_given_flat_or_nested_is_the_same_command() -> None:
    """The flat form (old logs, a request) and the nested form read into equal commands; a blow without
    targeting shares the one default."""
    nested = cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(aim=2, aim_at="eye"))
    flat = {"type": "exchange", "first": "Ann", "second": "Bob", "aim": 2, "aim_at": "eye"}
    assert cmd.read_issued(flat, "fudge") == nested
    assert cmd.read_issued({**flat, "targeting": {"aim": 1, "called": "eye"}}, "fudge") == cmd.Exchange(
        first="Ann", second="Bob", targeting=cmd.Targeting(aim=2, aim_at="eye", called="eye"))  # a flat key wins
    model = cmd.command_model("Exchange")
    assert model(first="Ann", second="Bob", aim=2, aim_at="eye") == model(
        first="Ann", second="Bob", targeting={"aim": 2, "aim_at": "eye"})
    assert cmd.Attack(attacker="Ann", target="Bob").targeting is cmd.NO_TARGETING


def duel(fights: Fights) -> None:
    start(fights)
    for name, skill in (("Ann", "Great"), ("Bob", "Good")):
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": skill}, attack="Sword", weapon=2),
                                         source=f"{name.lower()}.toml"))


def issued(fights: Fights) -> list[dict[str, Any]]:
    return [json.loads(row.body)["issued"] for row in fights.store.read("fight") if '"issued"' in row.body]


def test_A_VERIFY_1_F_LOC_1_a_called_shot_and_an_aimed_blow_are_stored_flat_and_verify(fights: Fights) -> None:
    """A-VERIFY-1, F-LOC-1, F-HIT-2: the commands written today are stored in the old flat shape, and verify
    re-decides the called shot and the aimed blow from them."""
    duel(fights)
    fights.execute("fight", cmd.read_issued(OLD_EXCHANGE, "fudge"), dice("ann=+000", "bob=0000"))
    fights.execute("fight", cmd.Exchange(first="Ann", second="Bob", targeting=cmd.Targeting(aim=3, aim_at="eye")),
                   dice("ann=++++", "bob=0000"))
    stored = issued(fights)[-2:]
    assert stored[0] == OLD_EXCHANGE
    assert set(stored[1]) == set(OLD_EXCHANGE) and (stored[1]["aim"], stored[1]["aim_at"]) == (3, "eye")
    resolved = [e for e in fights.state("fight").events.values() if isinstance(e, ev.ExchangeResolved)]
    assert [(r.called, r.aimed_at) for r in resolved] == [("sword arm", None), (None, "eye")]
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems


def test_choices_are_the_values_a_command_field_declares() -> None:
    """The command line lists and checks an option's values from the command's own Literal, in its order:
    Optional, a tuple of them, or plain; a field that is not a Literal has none."""
    assert choices(cmd.Attack, "avoid") == ("dodge", "parry", "dodge-parry", "none")
    assert choices(cmd.Attack, "position") == ("behind", "back", "above", "below", "prone")
    assert choices(cmd.SpendPoint, "use") == ("panache", "skill", "luck", "scratch", "ticking", "spare")
    assert choices(cmd.FateAction, "maneuver_needs") == ("clipped", "hurt", "injured", "taken_out")
    assert choices(cmd.Attack, "mod") == ()
