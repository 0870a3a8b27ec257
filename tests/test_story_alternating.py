"""Story elements and alternating turns: F-PACE-1, C-ACT-5, F-PACE-3 with F-MOD-8 (001 4.2.1, 4.2.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, sheet, start

GOOD, GREAT, SUPERB, FAIR = 1, 2, 3, 0


def join(fights: Fights, name: str, **extra: Any) -> None:
    fights.execute("fight", cmd.Join(sheet=sheet(name, **extra), source=f"{name.lower()}.toml"))


def refused(fights: Fights, command: Any, match: str, given: DiceInput | None = None) -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before


def gunner(fights: Fights) -> None:
    start(fights, pace="story")
    join(fights, "Gunner", skills={"Brawling": "Good", "Running": "Great"})


# --- F-PACE-1, C-ACT-5 ---------------------------------------------------------------

def test_F_PACE_1_C_ACT_5_gunner_rolls_three_times_at_plus_two_and_the_median_is_great(fights: Fights) -> None:
    """F-PACE-1, C-ACT-5: 001 4.2.1 Gunner, Brawling Good at +2, three rolls: Good, Superb, Great -> Great."""
    gunner(fights)
    outcome = fights.execute("fight", cmd.StoryRoll(combatant="Gunner", trait="Brawling", mod=2, median=True,
                                                    element="charge the mob"),
                             dice("gunner=--00", "gunner=0000", "gunner=-000"))
    rolls = [r.event for r in outcome.records if isinstance(r.event, ev.DiceRolled)]
    assert len(rolls) == 3  # all three are recorded
    done = outcome.records[-1].event
    assert isinstance(done, ev.StoryRolled)
    assert done.results == (GOOD, SUPERB, GREAT) and done.result == GREAT and done.median
    assert [(m.name, m.value) for m in done.modifiers] == [("story modifier", 2)]
    # no outcome is decided: nobody is wounded, nothing else happens
    assert not any(isinstance(r.event, (ev.WoundMarked, ev.ExchangeResolved)) for r in outcome.records)


def test_F_PACE_1_a_single_roll_gunner_gets_fair(fights: Fights) -> None:
    """F-PACE-1: the single roll for the tackle: Brawling Good, no modifier, a Fair result."""
    gunner(fights)
    outcome = fights.execute("fight", cmd.StoryRoll(combatant="Gunner", trait="Brawling"), dice("gunner=--0+"))
    done = outcome.records[-1].event
    assert (done.rolls, done.results, done.result, done.median) == ((-1,), (FAIR,), FAIR, False)


def test_F_PACE_1_the_modifier_runs_from_minus_3_to_plus_3_and_needs_story_pace(fights: Fights) -> None:
    """F-PACE-1: a modifier of +4 is refused; a story element in a simultaneous fight is refused; nothing written."""
    gunner(fights)
    refused(fights, cmd.StoryRoll(combatant="Gunner", trait="Brawling", mod=4), "-3 to \\+3")
    refused(fights, cmd.SpendPoint(combatant="Gunner", use="luck"), "roll")
    join(fights, "Mobster", kind="npc", side="mob")
    for blow in (cmd.Exchange(first="Gunner", second="Mobster"), cmd.Attack(attacker="Gunner", target="Mobster"),
                 cmd.Melee(lone="Gunner", foes=("Mobster",))):
        refused(fights, blow, "story elements")  # in story pace the GM narrates what the roll achieved
    other = make_fights()
    start(other)
    join(other, "Gunner", skills={"Brawling": "Good"})
    before = other.store.last_seq("fight")
    with pytest.raises(RuleError, match="pace"):
        other.execute("fight", cmd.StoryRoll(combatant="Gunner", trait="Brawling"))
    assert other.store.last_seq("fight") == before


def test_C_ACT_5_fudge_roll_median_records_three_rolls_and_uses_the_middle(fights: Fights) -> None:
    """C-ACT-5: Poor, Great, Great gives Great; the three rolls are recorded; the median is refused when opposed."""
    start(fights)
    join(fights, "Ann", skills={"Climbing": "Fair"})
    join(fights, "Bob")
    outcome = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Climbing", difficulty=GOOD, median=True),
                             dice("ann=--00", "ann=++00", "ann=+0+0"))
    done = outcome.records[-1].event
    assert isinstance(done, ev.ActionResolved)
    assert done.median_of == (-2, 2, 2) and done.roll == 2 and done.result == GREAT and done.success
    assert sum(isinstance(r.event, ev.DiceRolled) for r in outcome.records) == 3
    refused(fights, cmd.RollTrait(combatant="Ann", trait="Climbing", opponent="Bob", median=True), "opposed")
    refused(fights, cmd.SpendPoint(combatant="Ann", use="luck"), "median")


def test_F_PACE_1_C_ACT_5_at_the_command_line_and_verified(tmp_path: Path) -> None:
    """F-PACE-1, C-ACT-5: `fudge story` and `fudge roll --median`; the log verifies; a bad modifier is one line."""
    runner = CliRunner()
    db = tmp_path / "fudge.db"

    def fudge(*args: str) -> Any:
        return runner.invoke(app, ["--store", str(db), *args], env={"FUDGE_STORE": None})

    house = tmp_path / "story.toml"
    house.write_text('extends = "fudge"\npace = "story"\n')
    sheet_file = tmp_path / "gunner.toml"
    sheet_file.write_text('name = "Gunner"\n[skills]\nBrawling = "Good"\n')
    assert fudge("new", "garage", "--house", str(house)).exit_code == 0
    assert fudge("join", str(sheet_file)).exit_code == 0
    result = fudge("story", "Gunner", "Brawling", "--mod", "2", "--median", "--element", "charge",
                   "--dice", "--00", "--dice", "0000", "--dice", "-000")
    assert result.exit_code == 0, result.stderr
    assert "median of Good, Superb, Great: Great" in result.stdout
    result = fudge("roll", "Gunner", "Brawling", "--median", "--vs", "Fair")
    assert result.exit_code == 0 and "median of" in result.stdout
    bad = fudge("story", "Gunner", "Brawling", "--mod", "5")
    assert bad.exit_code != 0 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1
    report = verify(SqliteStore(db).read("garage"))
    assert report.ok, report.problems


# --- F-PACE-3, F-MOD-8 -----------------------------------------------------------------

def alternating(fights: Fights, **options: Any) -> None:
    start(fights, pace="alternating", **options)
    for name, skill in (("Ann", "Great"), ("Bob", "Good")):
        join(fights, name, skills={"Sword": skill, "Parry": "Good"}, attack="Sword", defend="Parry", weapon=2)


def attack(fights: Fights, attacker: str, target: str, att: str, dfd: str) -> ev.ExchangeResolved:
    outcome = fights.execute("fight", cmd.Attack(attacker=attacker, target=target),
                             dice(f"{attacker}={att}", f"{target}={dfd}") if dfd else dice(f"{attacker}={att}"))
    return next(r.event for r in outcome.records if isinstance(r.event, ev.ExchangeResolved))


def test_F_PACE_3_without_initiative_attacks_go_in_the_order_the_gm_gives(fights: Fights) -> None:
    """F-PACE-3: no initiative system: Bob may attack first, then Ann; offense trait vs defense trait."""
    alternating(fights)
    first = attack(fights, "Bob", "Ann", "0000", "0000")
    assert [(s.combatant, s.trait) for s in first.sides] == [("Bob", "Sword"), ("Ann", "Parry")]
    second = attack(fights, "Ann", "Bob", "0000", "0000")
    assert [(s.combatant, s.trait) for s in second.sides] == [("Ann", "Sword"), ("Bob", "Parry")]


def test_F_MOD_8_all_out_defense_forfeits_the_attack_that_round(fights: Fights) -> None:
    """F-MOD-8: Bob declares all-out defense: +2 to his parry, and his own attack this round is refused."""
    alternating(fights)
    fights.execute("fight", cmd.StartRound())
    fights.execute("fight", cmd.Declare(combatant="Bob", declaration=ev.Declaration(all_out="defense")))
    refused(fights, cmd.Attack(attacker="Bob", target="Ann"), r"forfeits the attack \(F-MOD-8\); another fighter attacks")  # before he is attacked
    done = attack(fights, "Ann", "Bob", "0000", "0000")
    assert ("all-out defense", 2) in [(m.name, m.value) for m in done.sides[1].modifiers]
    refused(fights, cmd.Attack(attacker="Bob", target="Ann"), "forfeits")  # and after
    join(fights, "Cid", skills={"Sword": "Fair"}, attack="Sword", weapon=2)
    second = attack(fights, "Cid", "Bob", "0000", "0000")  # a second attacker: the +2 lasts the round
    assert ("all-out defense", 2) in [(m.name, m.value) for m in second.sides[1].modifiers]
    fights.execute("fight", cmd.StartRound())
    assert attack(fights, "Bob", "Ann", "0000", "0000").sides[0].combatant == "Bob"  # a new round: he may attack


def test_F_MOD_8_all_out_offense_leaves_the_attacker_at_minus_2_on_the_foes_next_turn(fights: Fights) -> None:
    """F-MOD-8: Ann attacks all-out (+1); on Bob's next turn her parry is -2; the turn after, it is not."""
    alternating(fights)
    fights.execute("fight", cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")))
    done = attack(fights, "Ann", "Bob", "0000", "0000")
    assert ("all-out offense", 1) in [(m.name, m.value) for m in done.sides[0].modifiers]
    reply = attack(fights, "Bob", "Ann", "0000", "0000")
    assert ("exposed after all-out offense", -2) in [(m.name, m.value) for m in reply.sides[1].modifiers]
    again = attack(fights, "Bob", "Ann", "0000", "0000")
    assert not any(m.name.startswith("exposed") for m in again.sides[1].modifiers)


def test_F_MOD_8_option_no_defense_at_all(fights: Fights) -> None:
    """F-MOD-8 option all_out_exposure = "no_defense": on Bob's next turn Ann does not defend (F-MEL-3, Poor)."""
    alternating(fights, all_out_exposure="no_defense")
    fights.execute("fight", cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")))
    assert attack(fights, "Ann", "Bob", "--00", "0000").hits == ()  # Good vs Good: a stand-off
    reply = attack(fights, "Bob", "Ann", "0000", "")
    assert reply.sides[1].trait.startswith("difficulty") and reply.sides[1].result == -2
    assert [h.relative_degree for h in reply.hits] == [3]  # Bob's Good vs Poor


def test_F_MOD_8_under_opposed_initiative_the_declaration_lasts_the_round(fights: Fights) -> None:
    """F-MOD-8 with F-INIT-2: Bob declares all-out defense before the round: +2 once on each defense (not
    twice), and his own turn's attack is refused."""
    from tests.atari_helpers import next_, round_
    start(fights, pace="alternating", initiative="opposed")
    for name in ("Ann", "Bob", "Cid"):
        join(fights, name, skills={"Sword": "Good"}, attack="Sword", weapon=2, side=name)
    fights.execute("fight", cmd.Declare(combatant="Bob", declaration=ev.Declaration(all_out="defense")))
    round_(fights, "ann=+ + + +", "bob=0 0 0 0", "cid=+ + + 0")
    assert next_(fights).combatant == "Ann"
    first = attack(fights, "Ann", "Bob", "0000", "0000")
    assert [(m.name, m.value) for m in first.sides[1].modifiers] == [("all-out defense", 2)]
    assert next_(fights).combatant == "Cid"
    second = attack(fights, "Cid", "Bob", "0000", "0000")
    assert [(m.name, m.value) for m in second.sides[1].modifiers] == [("all-out defense", 2)]
    assert next_(fights).combatant == "Bob"
    refused(fights, cmd.Attack(attacker="Bob", target="Ann"), "forfeits")


def test_F_MOD_8_F_MOD_6_all_out_offense_adds_nothing_to_the_attackers_own_defense(fights: Fights) -> None:
    """F-MOD-6, F-MOD-8 with F-INIT-2: Ann's all-out offense lasts the round, but its +1 is to her attack
    only: defending (before her turn, or after it, exposed at -2) she gets no +1."""
    from tests.atari_helpers import next_, round_
    start(fights, pace="alternating", initiative="opposed")
    for name in ("Ann", "Bob", "Cid"):
        join(fights, name, skills={"Sword": "Good"}, attack="Sword", weapon=2, side=name)
    fights.execute("fight", cmd.Declare(combatant="Ann", declaration=ev.Declaration(all_out="offense")))
    round_(fights, "cid=+ + + +", "ann=+ + + 0", "bob=0 0 0 0")
    assert next_(fights).combatant == "Cid"
    before = attack(fights, "Cid", "Ann", "0000", "0000")
    assert [(m.name, m.value) for m in before.sides[1].modifiers] == []
    assert next_(fights).combatant == "Ann"
    own = attack(fights, "Ann", "Bob", "0000", "0000")
    assert [(m.name, m.value) for m in own.sides[0].modifiers] == [("all-out offense", 1)]
    assert next_(fights).combatant == "Bob"
    reply = attack(fights, "Bob", "Ann", "0000", "0000")
    assert [(m.name, m.value) for m in reply.sides[1].modifiers] == [("exposed after all-out offense", -2)]
    assert verify(fights.store.read("fight")).ok


def test_F_INIT_2_F_MOD_8_status_shows_a_declaration_made_for_the_coming_round(tmp_path: Path) -> None:
    """F-INIT-2, F-MOD-8: under opposed initiative a declaration is for the next round; `fudge status` (text and
    --json) shows it, with its round, before that round starts."""
    import json
    runner = CliRunner()
    db = tmp_path / "fudge.db"

    def fudge(*args: str) -> Any:
        return runner.invoke(app, ["--store", str(db), *args], env={"FUDGE_STORE": None})

    house = tmp_path / "alt.toml"
    house.write_text('extends = "fudge"\npace = "alternating"\ninitiative = "opposed"\n')
    assert fudge("new", "duel", "--house", str(house)).exit_code == 0
    for name in ("Ann", "Bob"):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\n[skills]\nSword = "Good"\n[combat]\nattack = "Sword"\n')
        assert fudge("join", str(tmp_path / f"{name}.toml")).exit_code == 0
    assert fudge("declare", "Ann", "--all-out-defense").exit_code == 0
    assert "declared for round 1: all-out defense" in fudge("status", "--long").stdout
    ann = json.loads(fudge("status", "--json").stdout)["combatants"][0]
    assert ann["initiative"]["declared_next"] == {"round": 1, "declaration": "all-out defense"}
    assert fudge("round").exit_code == 0
    text = fudge("status", "--long").stdout
    assert "declared: all-out defense" in text and "declared for round" not in text
