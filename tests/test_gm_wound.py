"""The GM's wound ruling (`fudge wound`): a wound from outside the blows, recorded (A-LOG-1) and marked
as a blow's wound is (F-WND-3, F-WND-6, F-WND-7, F-DEATH-1)."""

from __future__ import annotations

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.wounds import HURT, NEAR_DEATH, SCRATCH, VERY_HURT
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from tests.conftest import sheet, start
from tests.test_cli import Fudge, fudge  # noqa: F401  (the fixture)


def ann(fights: Fights, **options: object) -> None:
    start(fights, **options)
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Climb": "Fair"}), source="ann.toml"))


def test_A_LOG_1_F_WND_3_a_fall_is_a_wound_with_its_reason_and_it_overflows_like_any(fights: Fights) -> None:
    """A-LOG-1, F-WND-3: the ruling is an event with the GM's reason; a second Hurt overflows to Very Hurt."""
    ann(fights)
    out = fights.execute("fight", cmd.GmWound(combatant="Ann", level=HURT, reason="fell from the wall"))
    mark = out.records[-1].event
    assert isinstance(mark, ev.WoundMarked) and mark.level == HURT
    assert mark.notes == ("the GM's ruling: fell from the wall",)
    fights.execute("fight", cmd.GmWound(combatant="Ann", level=HURT))
    ann_now = fights.state("fight").combatants["ann"]
    assert ann_now.track.level == VERY_HURT and ann_now.track.boxes[2] == (HURT,)
    assert fights.state("fight") == replay(fights.log("fight"))
    assert verify(fights.store.read("fight")).ok


def test_F_WND_6_a_ruling_past_near_death_kills_and_undo_takes_it_back(fights: Fights) -> None:
    """F-WND-6 `overflow`: with no open box at or above its level the wound kills; undo voids the ruling."""
    ann(fights)
    fights.execute("fight", cmd.GmWound(combatant="Ann", level=NEAR_DEATH, reason="the pit"))
    fights.execute("fight", cmd.GmWound(combatant="Ann", level=NEAR_DEATH, reason="the spikes"))
    assert fights.state("fight").combatants["ann"].track.dead
    fights.execute("fight", cmd.Undo())
    assert fights.state("fight").combatants["ann"].track.level == NEAR_DEATH
    with pytest.raises(RuleError, match="from Scratch to Near Death"):
        fights.execute("fight", cmd.GmWound(combatant="Ann", level=0))


def test_F_DEATH_1_F_WND_7_the_rulings_go_through_the_same_caps_and_tracks(fights: Fights) -> None:
    """F-DEATH-1: no more than three levels in one blow, from the current level; F-WND-7: a Scratch is
    nothing to a pawn, a Hurt makes it Hurt, as from a blow."""
    ann(fights, death_three_levels=True)
    out = fights.execute("fight", cmd.GmWound(combatant="Ann", level=NEAR_DEATH, reason="avalanche"))
    mark = out.records[-1].event
    assert mark.level == VERY_HURT and mark.dealt == NEAR_DEATH and "the GM's ruling: avalanche" in mark.notes
    fights.execute("fight", cmd.Join(sheet=sheet("Mook", kind="npc", track="pawn"), source="mook.toml"))
    fights.execute("fight", cmd.GmWound(combatant="Mook", level=SCRATCH, reason="smoke"))
    assert fights.state("fight").combatants["mook"].track.level == 0
    fights.execute("fight", cmd.GmWound(combatant="Mook", level=HURT, reason="falling beam"))
    assert fights.state("fight").combatants["mook"].track.level == HURT
    assert verify(fights.store.read("fight")).ok


def test_the_gm_wound_at_the_command_line(fudge: Fudge) -> None:
    fudge("new", "climb")
    sheet_file = fudge.tmp / "ann.toml"
    sheet_file.write_text('name = "Ann"\n')
    fudge("join", sheet_file)
    out = fudge("wound", "ann", "Very Hurt", "--reason", "burning oil").stdout
    assert "Ann is wounded: Very Hurt (the GM's ruling: burning oil)" in out
    assert fudge.who("Ann")["wound_level"] == "Very Hurt"
    assert "unknown wound level 'Bruised'" in fudge.fails("wound", "ann", "Bruised")
    assert fudge("verify").stdout.startswith("climb: ")


def test_a_fate_fight_marks_boxes_not_levels(fights: Fights) -> None:
    """FT-TRACK: Fate's boxes come from exchanges; the Fudge ruling is refused there, writing nothing."""
    start(fights, rules="fate")
    fights.execute("fight", cmd.Join(sheet=sheet("Cyrus"), source="cyrus.toml"))
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match="Fate fight marks boxes"):
        fights.execute("fight", cmd.GmWound(combatant="Cyrus", level=HURT))
    assert fights.store.last_seq("fight") == before
