"""Several combatants in melee: F-MULTI-1, F-MULTI-2, F-MULTI-3, F-MULTI-4, F-MULTI-5, F-MULTI-6, F-MULTI-7 and F-NPC-1 (001 4.3.3, 4.3.4).

The Paco and Tucker examples of 4.3.4 are played with dice that give the
text's results. Every fighter has a +2 weapon, Fair Strength and no armor, so
a hit's damage factor is +2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fudge_combat.cli import render
from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.wounds import HURT, SCRATCH, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import evolve_all
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, sheet, start

GOOD, GREAT, SUPERB, FAIR, MEDIOCRE = 1, 2, 3, 0, -1


def join(fights: Fights, name: str, skill: str, side: str, kind: str = "pc", **extra: Any) -> None:
    extra.setdefault("weapon", 2)
    fights.execute("fight", cmd.Join(sheet=sheet(name, kind=kind, skills={"Sword": skill}, attack="Sword",
                                                 side=side, **extra), source=f"{name.lower()}.toml"))


def paco_and_thugs(fights: Fights, **options: Any) -> None:
    start(fights, **options)
    join(fights, "Paco", "Superb", "heroes")
    for thug in ("Thug1", "Thug2", "Thug3"):
        join(fights, thug, "Fair", "thugs", kind="npc")


def tucker_and_pirates(fights: Fights, **options: Any) -> None:
    start(fights, npc_group_roll=True, **options)
    join(fights, "Tucker", "Superb", "heroes")
    for pirate, skill in (("Molly", "Fair"), ("Annie", "Good"), ("Maggie", "Mediocre")):
        join(fights, pirate, skill, "pirates", kind="npc")


PACO_DICE = ("paco=+0+-", "thug1=++00", "thug2=+000", "thug3=-000")  # Great; Great, Good, Mediocre


def melee(fights: Fights, lone: str, foes: tuple[str, ...], given: DiceInput, **kw: Any) -> Any:
    return fights.execute("fight", cmd.Melee(lone=lone, foes=foes, **kw), given)


def resolved(outcome: Any) -> ev.MeleeResolved:
    return next(r.event for r in outcome.records if isinstance(r.event, ev.MeleeResolved))


def wounds(outcome: Any) -> list[tuple[str, int]]:
    return [(r.event.combatant, r.event.level) for r in outcome.records if isinstance(r.event, ev.WoundMarked)]


def refused(fights: Fights, command: Any, given: DiceInput | None = None, match: str = "") -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command, given)
    assert fights.store.last_seq("fight") == before


def test_F_MULTI_1_F_MULTI_2_F_MULTI_3_paco_ties_the_best_thug_and_hits_the_mediocre_one(fights: Fights) -> None:
    """F-MULTI-1, F-MULTI-2, F-MULTI-3: 001 4.3.4 Paco vs three thugs (Great, Good, Mediocre); Paco rolls Great."""
    paco_and_thugs(fights)
    outcome = melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice(*PACO_DICE))
    done = resolved(outcome)
    assert ("2 foe(s) beyond the first", -2) in [(m.name, m.value) for m in done.lone.modifiers]  # F-MULTI-1
    assert done.lone.result == GREAT
    assert [s.result for s in done.foes] == [GREAT, GOOD, MEDIOCRE]
    rows = {r.foe: r for r in done.comparisons}
    assert [rows[n].relative_degree for n in ("Thug1", "Thug2", "Thug3")] == [0, 1, 3]
    # tying the best thug, he may wound only a foe at least two levels below him
    assert [rows[n].may_wound for n in ("Thug1", "Thug2", "Thug3")] == [False, False, True]
    assert not any(r.foe_hits for r in done.comparisons)  # he tied the best: not hit
    assert done.target == "Thug3"
    assert wounds(outcome) == [("Thug3", VERY_HURT)]  # RD 3 + factor 2 = 5
    kinds = [type(r.event).__name__ for r in outcome.records]
    assert kinds.count("DiceRolled") == 4  # one roll for Paco, compared with each thug's


def test_F_MULTI_3_a_target_he_cannot_wound_is_not_hit(fights: Fights) -> None:
    """F-MULTI-3: tying the best, the Good thug is only one level below: naming him wounds nobody."""
    paco_and_thugs(fights)
    outcome = melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice(*PACO_DICE), target="Thug2")
    assert resolved(outcome).target == "Thug2"
    assert wounds(outcome) == []
    assert "nobody is hit" in resolved(outcome).outcome


@pytest.mark.parametrize(("roll", "result", "hit_by", "may_wound"), [
    ("++00", SUPERB, [], ["Molly", "Annie", "Maggie"]),  # beats all: the pirate of his choice
    ("+000", GREAT, [], ["Maggie"]),                     # ties Annie: only Maggie (Fair, two below)
    ("0000", GOOD, ["Annie"], []),                       # Annie hits him; he hits no one
    ("-000", FAIR, ["Molly", "Annie"], []),              # Molly and Annie both hit him
])
def test_F_MULTI_7_F_MULTI_2_F_MULTI_3_tucker_and_the_three_pirates(fights: Fights, roll: str, result: int,
                                                                     hit_by: list[str], may_wound: list[str]) -> None:
    """F-MULTI-7, F-MULTI-2, F-MULTI-3, F-MULTI-1: 001 4.3.4 Tucker (Superb, -2) vs Molly, Annie, Maggie; the GM's 2dF +1."""
    tucker_and_pirates(fights)
    outcome = melee(fights, "Tucker", ("Molly", "Annie", "Maggie"), dice(f"tucker={roll}", "GM=+0"))
    done = resolved(outcome)
    assert done.group_roll == 1
    assert [s.result for s in done.foes] == [GOOD, GREAT, FAIR]  # Fair, Good, Mediocre + 1
    rolls = [r.event for r in outcome.records if isinstance(r.event, ev.DiceRolled)]
    assert [(r.roller, len(r.faces)) for r in rolls] == [("Tucker", 4), ("GM", 2)]  # one roll for every NPC
    assert done.lone.result == result
    assert [r.foe for r in done.comparisons if r.foe_hits] == hit_by
    assert [r.foe for r in done.comparisons if r.may_wound] == may_wound
    assert sorted(w[0] for w in wounds(outcome) if w[0] == "Tucker") == ["Tucker"] * len(hit_by)
    struck = [w[0] for w in wounds(outcome) if w[0] != "Tucker"]
    assert struck == ([max(may_wound, key=lambda n: {"Molly": 2, "Annie": 1, "Maggie": 3}[n])] if may_wound else [])


def test_F_MULTI_2_every_foe_who_beats_him_marks_a_separate_wound(fights: Fights) -> None:
    """F-MULTI-2: Tucker at Fair: Molly (RD 1, a graze) and Annie (RD 2) each mark their own wound."""
    tucker_and_pirates(fights)
    outcome = melee(fights, "Tucker", ("Molly", "Annie", "Maggie"), dice("tucker=-000", "GM=+0"))
    assert wounds(outcome) == [("Tucker", SCRATCH), ("Tucker", HURT)]
    tucker = fights.state("fight").find("Tucker")
    assert tucker is not None and len(tucker.marks) == 2


def test_F_MULTI_4_sweeping_blow_cuts_through_foes_he_beat_losing_damage_per_foe(fights: Fights) -> None:
    """F-MULTI-4: beating all three, Paco's blow hits Thug3, then Thug2 at -1, then Thug1 at -2."""
    paco_and_thugs(fights, sweeping_blow=True)
    given = dice("paco=++++", "thug1=0000", "thug2=0000", "thug3=0000")  # Paco 3+4-2 = 5 vs three Fair
    outcome = melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), given, target="Thug3", sweep=("Thug2", "Thug1"))
    hits = resolved(outcome).hits
    assert resolved(outcome).sweep == ("Thug2", "Thug1")  # in the order the GM gave
    assert [(h.defender, h.relative_degree, h.bonus, h.calculated) for h in hits] == [
        ("Thug3", 5, 0, 7), ("Thug2", 5, -1, 6), ("Thug1", 5, -2, 5)]
    paco_and_thugs(fights := make_fights(), sweeping_blow=True)
    given = dice("paco=++++", "thug1=0000", "thug2=0000", "thug3=0000")
    two = melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), given, target="Thug3", sweep=("Thug2",), sweep_penalty=2)
    assert [(h.defender, h.bonus) for h in resolved(two).hits] == [("Thug3", 0), ("Thug2", -2)]


def test_F_MULTI_4_sweeping_blow_needs_the_option_and_a_target(fights: Fights) -> None:
    """F-MULTI-4: refused when the option is off, without --target, or with a bad penalty; nothing written."""
    paco_and_thugs(fights)
    foes = ("Thug1", "Thug2", "Thug3")
    refused(fights, cmd.Melee(lone="Paco", foes=foes, target="Thug1", sweep=("Thug2",)), match="sweeping_blow")
    paco_and_thugs(fights := make_fights(), sweeping_blow=True)
    refused(fights, cmd.Melee(lone="Paco", foes=foes, sweep=("Thug2",)), match="--target")
    refused(fights, cmd.Melee(lone="Paco", foes=foes, target="Thug1", sweep=("Thug2",), sweep_penalty=3),
            match="1 or 2")


def test_F_MULTI_5_ignored_foes_hit_an_undefended_fighter_but_he_still_strikes_his_chosen_foe(fights: Fights) -> None:
    """F-MULTI-5: Paco ignores Thug1 (Great) and Thug2: their results beat Poor and hit; he still wounds Thug3."""
    paco_and_thugs(fights)
    outcome = melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice(*PACO_DICE), ignore=("Thug1", "Thug2"))
    done = resolved(outcome)
    rows = {r.foe: r for r in done.comparisons}
    assert rows["Thug1"].ignored and rows["Thug1"].foe_hits and rows["Thug2"].foe_hits
    assert rows["Thug3"].may_wound and not rows["Thug3"].ignored
    hits = [(h.attacker, h.defender, h.relative_degree) for h in done.hits]
    # vs Poor: Thug1 Great is RD +4, Thug2 Good RD +3; Paco vs Thug3 RD +3
    assert hits == [("Paco", "Thug3", 3), ("Thug1", "Paco", 4), ("Thug2", "Paco", 3)]
    paco_and_thugs(fights := make_fights())
    refused(fights, cmd.Melee(lone="Paco", foes=("Thug1", "Thug2"), ignore=("Thug1", "Thug2")), match="ignored")
    refused(fights, cmd.Melee(lone="Paco", foes=("Thug1", "Thug2"), ignore=("Thug1",), target="Thug1"),
            match="ignored")


def test_F_MULTI_6_at_most_six_foes_and_fewer_where_the_gm_says(fights: Fights) -> None:
    """F-MULTI-6: a seventh foe is refused; --max-foes 2 (a doorway) refuses a third; nothing written."""
    start(fights)
    join(fights, "Paco", "Superb", "heroes")
    names = tuple(f"Wolf{i}" for i in range(1, 8))
    for name in names:
        join(fights, name, "Fair", "wolves", kind="npc")
    refused(fights, cmd.Melee(lone="Paco", foes=names), match="at most 6")
    refused(fights, cmd.Melee(lone="Paco", foes=names[:3], max_foes=2), match="at most 2")
    refused(fights, cmd.Melee(lone="Paco", foes=names[:3], max_foes=9), match="1..6")
    six = melee(fights, "Paco", names[:6], DiceInput())  # generated dice: six foes are allowed
    assert len(resolved(six).comparisons) == 6


def test_F_MULTI_refusals_write_nothing(fights: Fights) -> None:
    """F-MULTI-2: a foe on his own side, a foe named twice, himself, or someone not in the melee."""
    paco_and_thugs(fights)
    join(fights, "Ally", "Good", "heroes")
    refused(fights, cmd.Melee(lone="Paco", foes=("Ally", "Thug1")), match="side")
    refused(fights, cmd.Melee(lone="Paco", foes=("Thug1", "Thug1")), match="twice")
    refused(fights, cmd.Melee(lone="Paco", foes=("Paco", "Thug1")), match="own foe")
    refused(fights, cmd.Melee(lone="Paco", foes=("Thug1", "Thug2"), target="Thug3"), match="not one of")
    refused(fights, cmd.Melee(lone="Paco", foes=("Thug1", "Nobody")), match="no combatant")


def test_F_NPC_1_static_npcs_score_their_trait_level_with_no_roll(fights: Fights) -> None:
    """F-NPC-1: with npc_static the thugs roll nothing: each result is Fair; only Paco rolls."""
    paco_and_thugs(fights, npc_static=True)
    outcome = melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice("paco=+000"))  # 3 + 1 - 2 = Great
    done = resolved(outcome)
    assert [r.event.roller for r in outcome.records if isinstance(r.event, ev.DiceRolled)] == ["Paco"]
    assert [(s.roll, s.result) for s in done.foes] == [(0, FAIR)] * 3
    assert [r.relative_degree for r in done.comparisons] == [2, 2, 2]
    assert wounds(outcome) == [("Thug1", HURT)]  # beats all: the first of the equals, RD 2 + 2 = 4


def test_F_MULTI_audit_verify_and_undo(tmp_path: Path) -> None:
    """F-MULTI-2: a melee re-decides the same from its recorded dice (A-VERIFY-1), and undo voids all of it."""
    fights = make_fights(SqliteStore(tmp_path / "fudge.db"))
    paco_and_thugs(fights, npc_group_roll=True)
    melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), DiceInput())
    melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice("paco=0000", "GM=-0"))
    report = verify(fights.store.read("fight"))
    assert report.ok, report.problems
    before = fights.state("fight")
    fights.execute("fight", cmd.Undo())
    after = fights.state("fight")
    assert after.round == before.round - 1
    assert sum(len(c.marks) for c in after.combatants.values()) <= sum(len(c.marks) for c in before.combatants.values())


def test_F_MULTI_at_the_command_line(tmp_path: Path) -> None:
    """F-MULTI-2, F-MOD-5: `fudge melee` with entered dice and a curse; a bad input is one line on stderr."""
    runner = CliRunner()
    db = str(tmp_path / "fudge.db")
    root = Path(__file__).resolve().parents[1]

    def fudge(*args: str) -> Any:
        return runner.invoke(app, ["--store", db, *args], env={"FUDGE_STORE": None})

    assert fudge("new", "brawl", "--rules", "fudge").exit_code == 0
    for who in ("paco", "thug1", "thug2"):
        path = tmp_path / f"{who}.toml"
        side = "heroes" if who == "paco" else "thugs"
        skill = "Superb" if who == "paco" else "Fair"
        path.write_text(f'name = "{who.title()}"\nside = "{side}"\n[skills]\nSword = "{skill}"\n'
                        f'[combat]\nattack = "Sword"\n[weapon]\ndamage = 2\n')
        assert fudge("join", str(path)).exit_code == 0
    result = fudge("melee", "Paco", "Thug1", "Thug2", "--magic", "Thug2=-1",
                   "--dice", "paco=+000", "--dice", "thug1=0000", "--dice", "thug2=0000")
    assert result.exit_code == 0, result.stderr
    assert "Paco beats Thug1 (+3); Paco beats Thug2 (+4)" in result.stdout
    assert "-1 magic curse" in result.stdout
    before = SqliteStore(tmp_path / "fudge.db").last_seq("brawl")
    bad = fudge("melee", "Paco", "Thug1", "--magic", "Thug2=x")
    assert bad.exit_code != 0 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1
    bad = fudge("melee", "Paco", "Thug1", "--max-foes", "0")
    assert bad.exit_code != 0 and "F-MULTI-6" in bad.stderr
    assert SqliteStore(tmp_path / "fudge.db").last_seq("brawl") == before
    assert root.exists()


def test_F_MULTI_A_REPLAY_1_paco_vs_three_thugs_state_after_each_event(fights: Fights, snapshot: Any) -> None:
    """F-MULTI-1, F-MULTI-2, F-MULTI-3 (A-REPLAY-1): the Paco round replayed event by event."""
    paco_and_thugs(fights)
    melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice(*PACO_DICE))
    steps = [{"seq": record.seq, "type": record.event.type,
              "event": render.line(record.event, state),
              "state": render.status_json(state)}
             for record, state in evolve_all(fights.log("fight"))]
    last = {c["name"]: c["wound_level"] for c in steps[-1]["state"]["combatants"]}
    assert last == {"Paco": "Undamaged", "Thug1": "Undamaged", "Thug2": "Undamaged", "Thug3": "Very Hurt"}
    assert steps == snapshot(name="paco-vs-three-thugs")

FACES = st.tuples(*[st.sampled_from((-1, 0, 1))] * 4)


@settings(max_examples=60, deadline=None)
@given(paco=FACES, thugs=st.lists(FACES, min_size=3, max_size=3), skills=st.lists(
    st.sampled_from(("Poor", "Fair", "Great")), min_size=3, max_size=3), ignore_first=st.booleans())
def test_F_MULTI_2_F_MULTI_3_F_MULTI_5_properties_of_any_round(paco: tuple[int, ...], thugs: list[tuple[int, ...]],
                                                                 skills: list[str], ignore_first: bool) -> None:
    """F-MULTI-2, F-MULTI-3, F-MULTI-5: for any dice, every foe who beats him marks one wound; he wounds someone
    only after beating or tying every foe he faces, by RD 2 or more after a tie; the round verifies."""
    fights = make_fights()
    start(fights)
    join(fights, "Paco", "Superb", "heroes")
    for number, skill in enumerate(skills, start=1):
        join(fights, f"Thug{number}", skill, "thugs", kind="npc")
    faces = [f"paco={''.join('+0-'[1 - f] for f in paco)}"] + [
        f"thug{i}={''.join('+0-'[1 - f] for f in roll)}" for i, roll in enumerate(thugs, start=1)]
    outcome = melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice(*faces),
                    ignore=("Thug1",) if ignore_first else ())
    done = resolved(outcome)
    faced = [r for r in done.comparisons if not r.ignored]
    tied = any(r.relative_degree == 0 for r in faced)
    lost = any(r.relative_degree < 0 for r in faced)
    by_paco = [h for h in done.hits if h.attacker == "Paco"]
    assert not (lost and by_paco)
    for hit in by_paco:
        assert hit.relative_degree >= (2 if tied else 1)
    on_paco = [h for h in done.hits if h.defender == "Paco"]
    assert sorted(h.attacker for h in on_paco) == sorted(r.foe for r in done.comparisons if r.foe_hits)
    marked = [e for e in (r.event for r in outcome.records) if isinstance(e, ev.WoundMarked) and e.combatant == "Paco"]
    assert len(marked) == sum(1 for h in on_paco if h.level > 0)
    assert verify(fights.store.read("fight")).ok


def test_C_FP_2_F_MULTI_3_a_fudge_point_re_decides_the_melee(fights: Fights) -> None:
    """C-FP-2, F-MULTI-3: Tucker at Fair is hit by Molly and Annie; luck rerolls him to Superb: both wounds are
    voided and he hits the pirate he beat by most. Paco's skill point (+1) on his tie with the best thug turns it
    into a win over all three."""
    start(fights, npc_group_roll=True)
    fights.execute("fight", cmd.Join(sheet=sheet("Tucker", skills={"Sword": "Superb"}, attack="Sword", weapon=2,
                                                 side="heroes", fudge_points=2), source="tucker.toml"))
    for pirate, skill in (("Molly", "Fair"), ("Annie", "Good"), ("Maggie", "Mediocre")):
        join(fights, pirate, skill, "pirates", kind="npc")
    first = melee(fights, "Tucker", ("Molly", "Annie", "Maggie"), dice("tucker=-000", "GM=+0"))
    assert [w[0] for w in wounds(first)] == ["Tucker", "Tucker"]
    spent = fights.execute("fight", cmd.SpendPoint(combatant="Tucker", use="luck"), dice("tucker=++00"))
    voided = next(r.event for r in spent.records if isinstance(r.event, ev.EventsVoided))
    assert len(voided.seqs) == 4  # the resolution, two wound marks and the rerolled dice
    again = resolved(spent)
    assert again.supersedes is not None and again.lone.result == SUPERB
    assert [(h.attacker, h.defender) for h in again.hits] == [("Tucker", "Maggie")]
    tucker = fights.state("fight").find("Tucker")
    assert tucker is not None and tucker.marks == () and tucker.fudge_points == 1
    assert verify(fights.store.read("fight")).ok

    other = make_fights()
    start(other)
    other.execute("fight", cmd.Join(sheet=sheet("Paco", skills={"Sword": "Superb"}, attack="Sword", weapon=2,
                                                side="heroes", fudge_points=1), source="paco.toml"))
    for thug in ("Thug1", "Thug2", "Thug3"):
        other.execute("fight", cmd.Join(sheet=sheet(thug, kind="npc", skills={"Sword": "Fair"}, attack="Sword",
                                                    weapon=2, side="thugs"), source="thug.toml"))
    tie = melee(other, "Paco", ("Thug1", "Thug2", "Thug3"), dice(*PACO_DICE))
    assert [h.defender for h in resolved(tie).hits] == ["Thug3"]
    shifted = resolved(other.execute("fight", cmd.SpendPoint(combatant="Paco", use="skill", shift=1)))
    assert [r.relative_degree for r in shifted.comparisons] == [1, 2, 4]  # Superb now beats every thug
    assert [r.may_wound for r in shifted.comparisons] == [True, True, True]
    assert [(h.defender, h.relative_degree) for h in shifted.hits] == [("Thug3", 4)]
    assert ("fudge point (skill)", 1) in [(m.name, m.value) for m in shifted.lone.modifiers]
    thug3 = other.state("fight").find("Thug3")
    assert thug3 is not None and len(thug3.marks) == 1  # the old mark was voided, the new one stands
    before = other.store.last_seq("fight")
    with pytest.raises(RuleError, match="no fudge points"):
        other.execute("fight", cmd.SpendPoint(combatant="Paco", use="skill", shift=1))
    assert other.store.last_seq("fight") == before


def test_F_MULTI_2_F_TAC_4_under_postures_his_offense_meets_their_defense_and_theirs_his(fights: Fights) -> None:
    """F-MULTI-2, F-MULTI-3, F-TAC-4: Paco at +1 offense (-1 defense) against three thugs at normal posture:
    his offense Good beats every thug's defense, so he hits the one he beat by most; Thug1's offense Good beats
    his defense Fair, so Thug1 grazes him in the same round."""
    paco_and_thugs(fights, tactics="postures")
    fights.execute("fight", cmd.Declare(combatant="Paco", declaration=ev.Declaration(posture=1)))
    done = resolved(melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"),
                          dice("paco=0000", "thug1=+000", "thug2=0000", "thug3=-000")))
    assert (done.lone.result, done.lone.offense, done.lone.defense) == (1, 2, 0)
    assert [(r.lone_result, r.foe_result, r.relative_degree) for r in done.comparisons] == [(2, 1, 1), (2, 0, 2), (2, -1, 3)]
    assert [(r.foe_hits, r.foe_relative_degree) for r in done.comparisons] == [(True, 1), (False, 0), (False, -1)]
    assert [(h.attacker, h.defender, h.relative_degree) for h in done.hits] == [("Paco", "Thug3", 3), ("Thug1", "Paco", 1)]


def test_F_MULTI_3_an_all_out_defender_wounds_nobody_and_an_all_out_foe_adds_damage(fights: Fights) -> None:
    """F-MULTI-3 with F-MOD-6, F-MOD-7: Paco in all-out defense (+2) beats all three thugs but wounds none; a thug's
    all-out offense (+1) that beats him adds +1 damage."""
    paco_and_thugs(fights)
    fights.execute("fight", cmd.Declare(combatant="Paco", declaration=ev.Declaration(all_out="defense")))
    done = resolved(melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"), dice(*PACO_DICE)))
    assert ("all-out defense", 2) in [(m.name, m.value) for m in done.lone.modifiers]
    assert [r.relative_degree for r in done.comparisons] == [2, 3, 5] and done.hits == ()
    fights.execute("fight", cmd.Declare(combatant="Thug1", declaration=ev.Declaration(all_out="offense")))
    done = resolved(melee(fights, "Paco", ("Thug1", "Thug2", "Thug3"),
                          dice("paco=0000", "thug1=++00", "thug2=0000", "thug3=0000")))
    assert [(h.attacker, h.relative_degree, h.bonus) for h in done.hits] == [("Thug1", 2, 1)]  # Superb vs Good


def test_F_MULTI_2_A_SEAL_1_sealed_declarations_open_at_the_melee(fights: Fights) -> None:
    """F-MULTI-2 with A-SEAL-1: Paco's sealed all-out offense must be revealed by the melee that uses it."""
    paco_and_thugs(fights)
    fights.declare("fight", "Paco", ev.Declaration(all_out="offense"), sealed=True)
    refused(fights, cmd.Melee(lone="Paco", foes=("Thug1", "Thug2")), dice("paco=0000", "thug1=0000", "thug2=0000"),
            match="revealed")
    state = fights.state("fight")
    outcome = fights.execute("fight", cmd.Melee(lone="Paco", foes=("Thug1", "Thug2"),
                                                reveals=fights.reveals(state, ["Paco", "Thug1", "Thug2"])),
                             dice("paco=0000", "thug1=0000", "thug2=0000"))
    assert any(isinstance(r.event, ev.DeclarationRevealed) for r in outcome.records)
    assert ("all-out offense", 1) in [(m.name, m.value) for m in resolved(outcome).lone.modifiers]
