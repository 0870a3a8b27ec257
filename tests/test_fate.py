"""FT: Fate (Fudge version), chapter 8 — paces, outcomes, the box track, arms, modifiers, points and aspects.

Fights are driven with entered dice (`dice("ann=+0-0")`). Sheets: skills on
the fate11 ladder (Average 0, Fair +1, Good +2, ...).
"""

from __future__ import annotations

from typing import Any

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.engine.rulesets.fate.rules import next_actor
from fudge_combat.engine.rulesets.fate.tables import ARMOR_TYPES, SIMPLE_ARMOR, SIMPLE_WEAPONS, outcome_for
from fudge_combat.engine.kernel.ladder import FATE11
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.service.fights import Fights
from tests.conftest import dice, sheet, start
from fudge_combat.engine.rulesets.fate.state import fate_of


def fighter(name: str, skill: Any = "Good", side: str | None = None, **extra: Any) -> dict[str, Any]:
    skills = {"Swords": skill, "Alertness": extra.pop("alertness", "Average"), **extra.pop("skills", {})}
    return sheet(name, skills=skills, attack="Swords", side=side or name, **extra)


def fate(fights: Fights, *sheets: dict[str, Any], **options: Any) -> str:
    name = start(fights, "fate-fight", "fate", **options)
    for data in sheets:
        fights.execute(name, cmd.Join(sheet=data, source="test"))
    return name


def act(name: str, target: str | None = None, **extra: Any) -> cmd.FateAction:
    return cmd.FateAction(combatant=name, target=target, **extra)


def duel(fights: Fights, name: str, first: str, second: str, faces: tuple[str, str], **extra: Any) -> Any:
    """A mutual exchange: both act against each other."""
    mods = extra.pop("mods", ())
    first_extra = extra.pop("first", {})
    second_extra = extra.pop("second", {})
    return fights.execute(name, cmd.FateExchange(actions=(act(first, second, **first_extra),
                                                          act(second, first, **second_extra)), mods=mods, **extra),
                          dice(f"{first.lower()}={faces[0]}", f"{second.lower()}={faces[1]}"))


def resolved(outcome: Any) -> ev.FateResolved:
    return next(r.event for r in outcome.records if isinstance(r.event, ev.FateResolved))


def boxes(outcome: Any) -> list[tuple[str, str, str]]:
    return [(r.event.combatant, r.event.outcome, r.event.box) for r in outcome.records
            if isinstance(r.event, ev.FateBoxMarked)]


def marks(fights: Fights, name: str, who: str) -> list[str]:
    state = fights.state(name)
    return [m.box for m in fate_of(state).marks.get(who.lower(), ())]


def refused(fights: Fights, name: str, command: Any, *faces: str, match: str) -> None:
    """A refused command raises with a clear message and writes nothing."""
    before = fights.state(name).last_seq
    with pytest.raises((RuleError, InputError), match=match):
        fights.execute(name, command, dice(*faces))
    assert fights.state(name).last_seq == before
    assert len(fights.log(name)) == before


# --- FT-LAD, FT-PACE -------------------------------------------------------------------

def test_FT_LAD_the_fate_preset_reads_and_shows_the_fate11_ladder(fights: Fights) -> None:
    """FT-LAD: Average 0 ... Legendary +6, Awful -4; beyond the ends with the excess."""
    _, options = resolve("fate")
    assert options.ladder == "fate11" and options.ruleset == "fate" and options.pace == "exchange"
    assert [FATE11.name(v) for v in range(-4, 7)] == ["Awful", "Terrible", "Poor", "Mediocre", "Average", "Fair",
                                                      "Good", "Great", "Superb", "Epic", "Legendary"]
    assert FATE11.name(7) == "Legendary+1" and FATE11.name(-6) == "Awful-2"
    name = fate(fights, fighter("Ann", "Epic"), fighter("Bob", "Average"))
    state = fights.state(name)
    assert state.find("Ann").fighter.skills["Swords"] == 5
    out = duel(fights, name, "Ann", "Bob", ("+ 0 0 0", "0 0 0 0"))
    assert resolved(out).contests[0].attacker_result == 6  # Epic + 1 = Legendary
    with pytest.raises(InputError):
        resolve("fate", 'extends = "fate"\nladder = "fudge7"\n')


@pytest.mark.parametrize("house, reason", [
    ('extends = "fudge"\npace = "exchange"\n', "need ruleset"),
    ('extends = "fate"\npace = "simultaneous"\n', "scene, exchange or turn"),
    ('extends = "fate"\npace = "turn"\n', "needs an order"),
    ('extends = "fate"\ninitiative = "alertness"\n', 'needs pace = "turn"'),
    ('extends = "fate"\npace = "scene"\ninitiative = "ranked"\n', "simultaneous"),
])
def test_FT_PACE_fate_paces_go_with_the_fate_ruleset_only(house: str, reason: str) -> None:
    """FT-PACE: scene, exchange and turn are Fate's paces; other combinations are refused at setup."""
    with pytest.raises(InputError, match=reason):
        resolve("fate", house)
    assert resolve("fate", 'extends = "fate"\npace = "turn"\ninitiative = "alertness"\n')[1].pace == "turn"
    assert resolve("fate", 'extends = "fate"\npace = "scene"\n')[1].pace == "scene"


def test_FT_PACE_exchange_each_rolls_once_and_is_compared_with_whom_he_opposes(fights: Fights) -> None:
    """FT-PACE exchange: one roll each; Ann's roll counts against Bob, Cid's against Dan, separately."""
    name = fate(fights, fighter("Ann"), fighter("Bob"), fighter("Cid"), fighter("Dan"))
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob"), act("Bob", "Ann"), act("Cid", "Dan"),
                                                          act("Dan", "Cid"))),
                         dice("ann=+ + 0 0", "bob=0 0 0 0", "cid=- 0 0 0", "dan=+ + + 0"))
    assert [r.event.faces for r in out.records if isinstance(r.event, ev.DiceRolled)] == [
        (1, 1, 0, 0), (0, 0, 0, 0), (-1, 0, 0, 0), (1, 1, 1, 0)]
    assert [(c.attacker, c.defender, c.margin, c.outcome) for c in resolved(out).contests] == [
        ("Ann", "Bob", 2, "hurt"), ("Dan", "Cid", 4, "hurt")]
    assert boxes(out) == [("Bob", "hurt", "hurt"), ("Cid", "hurt", "hurt")]


def test_FT_PACE_fudge_commands_are_refused_in_a_fate_fight_and_fate_commands_in_a_fudge_one(fights: Fights) -> None:
    """FT-PACE: a Fate fight runs the Fate commands; nothing is written when refused."""
    name = fate(fights, fighter("Ann"), fighter("Bob"))
    refused(fights, name, cmd.Exchange(first="Ann", second="Bob"), "ann=0000", "bob=0000", match="Fate commands")
    refused(fights, name, cmd.FateScene(actions=(act("Ann", "Bob"), act("Bob", "Ann"))), "ann=0000", "bob=0000",
            match='pace = "scene"')
    refused(fights, name, cmd.FateRound(), match='pace = "turn"')
    other = start(fights, "fudge-fight", "fudge")
    fights.execute(other, cmd.Join(sheet=sheet("Ann", skills={"Swords": "Good"}, attack="Swords"), source="test"))
    refused(fights, other, cmd.EndScene(), match="fudge end")
    refused(fights, other, cmd.FateExchange(actions=(act("Ann"),)), "ann=0000", match="Fate command")


# --- FT-OUT, FT-TRACK ------------------------------------------------------------------

@pytest.mark.parametrize("margin, outcome", [(0, "scratched"), (1, "clipped"), (2, "hurt"), (4, "hurt"),
                                             (5, "injured"), (6, "injured"), (7, "taken_out"), (12, "taken_out")])
def test_FT_OUT_the_outcome_table_by_margin_of_success(fights: Fights, margin: int, outcome: str) -> None:
    """FT-OUT: 0 Scratched; 1 Clipped; 2-4 Hurt; 5-6 Injured; 7+ Taken Out (read in a real exchange too)."""
    assert outcome_for(margin) == outcome
    name = fate(fights, fighter("Ann", margin - 4), fighter("Bob", "Average"))
    out = duel(fights, name, "Ann", "Bob", ("+ + + +", "0 0 0 0"))
    contest = resolved(out).contests[0]
    assert (contest.margin, contest.outcome) == (margin, outcome)
    assert boxes(out) == ([] if outcome == "scratched" else [("Bob", outcome, outcome)])


def test_FT_TRACK_1_two_boxes_each_and_a_house_track(fights: Fights) -> None:
    """FT-TRACK-1: Clipped, Hurt, Injured two boxes each, Taken Out one; `fate_boxes` changes them."""
    assert resolve("fate")[1].fate_boxes == (2, 2, 2)
    name = fate(fights, fighter("Ann", "Fair"), fighter("Bob", "Average"), fate_boxes=[1, 3, 1])
    for _ in range(3):  # three Hurts (margins 2, 3, 3) fit in three Hurt boxes
        duel(fights, name, "Ann", "Bob", ("0 0 0 0", "0 0 0 -"))
    assert marks(fights, name, "Bob") == ["hurt", "hurt", "hurt"]
    assert fights.state(name).options.fate_boxes == (1, 3, 1)


def test_FT_TRACK_2_an_outcome_with_no_open_box_marks_the_next_more_severe(fights: Fights) -> None:
    """FT-TRACK-2: a third clip spills into Hurt; a third Hurt into Injured (Bob's penalties counted in the margins)."""
    from fudge_combat.engine.rulesets.fate.rules import place
    from fudge_combat.engine.rulesets.fate.state import FateMark
    assert place([FateMark(1, "injured"), FateMark(2, "injured")], "clipped", (2, 2, 2)) == "clipped"
    assert place([FateMark(1, "hurt"), FateMark(2, "hurt"), FateMark(3, "injured")], "hurt", (2, 2, 2)) == "injured"
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average"))
    # Ann's modifier sets each margin: Bob's clip (-1, once) and hurt (-1, all scene) count on his roll.
    for mod, box in ((1, "clipped"), (0, "clipped"), (0, "hurt"), (1, "hurt"), (1, "injured")):
        out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=mod), act("Bob"))),
                             dice("ann=0 0 0 0", "bob=0 0 0 0"))
        assert [b[2] for b in boxes(out)] == [box]
    assert [b[1] for b in boxes(out)] == ["hurt"]  # the outcome was Hurt; its box is Injured
    assert marks(fights, name, "Bob") == ["clipped", "clipped", "hurt", "hurt", "injured"]


def test_FT_TRACK_2_injured_full_goes_to_taken_out(fights: Fights) -> None:
    """FT-TRACK-2: both Injured boxes full: the next injury takes him out."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average"))
    for _ in range(3):
        fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=5), act("Bob"))),
                       dice("ann=0 0 0 0", "bob=0 0 0 0"))  # margin 5: Injured (Bob's penalties only help Ann)
    assert marks(fights, name, "Bob") == ["injured", "injured", "taken_out"]
    refused(fights, name, cmd.FateExchange(actions=(act("Bob", "Ann"), act("Ann"))), "bob=0000", "ann=0000",
            match="Taken Out")


def test_FT_TRACK_3_clipped_is_minus_one_to_the_next_action_only_and_never_more(fights: Fights) -> None:
    """FT-TRACK-3: two clips before acting still make -1, paid by the next roll only."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average"), fighter("Cid", "Average"))
    fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob"), act("Cid", "Bob"), act("Bob"))),
                   dice("ann=+ 0 0 0", "cid=+ 0 0 0", "bob=0 0 0 0"))
    assert marks(fights, name, "Bob") == ["clipped", "clipped"]
    first = fights.execute(name, cmd.FateExchange(actions=(act("Bob", "Ann"), act("Ann"))), dice("bob=0000", "ann=0000"))
    bob = resolved(first).sides[0]
    assert [(m.name, m.value) for m in bob.modifiers] == [("clipped (next action)", -1)] and bob.clip_used
    second = fights.execute(name, cmd.FateExchange(actions=(act("Bob", "Ann"), act("Ann"))), dice("bob=0000", "ann=0000"))
    assert resolved(second).sides[0].modifiers == ()


def test_FT_TRACK_3_hurt_is_minus_one_for_the_scene_injured_minus_one_each_beyond_it(fights: Fights) -> None:
    """FT-TRACK-3: any number of Hurt boxes is -1 until the scene ends; each Injured box -1 and it stays."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average"))
    for mod in (2, 2, 5):
        fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=mod), act("Bob"))),
                       dice("ann=0 0 0 0", "bob=+ 0 0 -"))
    assert marks(fights, name, "Bob") == ["hurt", "hurt", "injured"]
    out = fights.execute(name, cmd.FateExchange(actions=(act("Bob", "Ann"), act("Ann"))), dice("bob=0000", "ann=0000"))
    assert [(m.name, m.value) for m in resolved(out).sides[0].modifiers] == [("hurt (this scene)", -1),
                                                                           ("injured x1", -1)]
    fights.execute(name, cmd.EndScene())
    assert marks(fights, name, "Bob") == ["injured"]
    out = fights.execute(name, cmd.FateExchange(actions=(act("Bob", "Ann"), act("Ann"))), dice("bob=0000", "ann=0000"))
    assert [(m.name, m.value) for m in resolved(out).sides[0].modifiers] == [("injured x1", -1)]


def test_FT_TRACK_3_in_turn_pace_a_clip_counts_on_the_next_attack_roll_not_on_defence(fights: Fights) -> None:
    """FT-TRACK-3 (turn pace): clipped by Cid, Bob defends against Ann at full skill, then pays -1 on his attack."""
    name = fate(fights, fighter("Cid", "Average", alertness="Great"), fighter("Ann", "Average", alertness="Good"),
                fighter("Bob", "Average"), pace="turn", initiative="alertness")
    fights.execute(name, cmd.FateRound(), dice("cid=0000", "ann=0000", "bob=0000"))
    fights.execute(name, cmd.FateAttack(attack=act("Cid", "Bob"), defense=act("Bob")), dice("cid=+000", "bob=0000"))
    assert marks(fights, name, "Bob") == ["clipped"]
    out = fights.execute(name, cmd.FateAttack(attack=act("Ann", "Bob"), defense=act("Bob")),
                         dice("ann=0000", "bob=0000"))
    assert resolved(out).sides[1].modifiers == () and "bob" in fate_of(out.state).clip
    out = fights.execute(name, cmd.FateAttack(attack=act("Bob", "Ann"), defense=act("Ann")),
                         dice("bob=0000", "ann=0000"))
    assert [(m.name, m.value) for m in resolved(out).sides[0].modifiers] == [("clipped (next action)", -1)]
    assert "bob" not in fate_of(out.state).clip


def test_FT_TRACK_3_taken_out_cannot_act_and_clears_when_the_scene_ends(fights: Fights) -> None:
    """FT-TRACK-3: Taken Out is out of the fight (not dead); the end of the scene ends the fight."""
    name = fate(fights, fighter("Ann", "Legendary"), fighter("Bob", "Average"))
    duel(fights, name, "Ann", "Bob", ("+ 0 0 0", "0 0 0 0"))
    assert marks(fights, name, "Bob") == ["taken_out"]
    refused(fights, name, cmd.FateExchange(actions=(act("Bob", "Ann"), act("Ann"))), "bob=0000", "ann=0000",
            match="Taken Out")
    fights.execute(name, cmd.EndScene())
    assert marks(fights, name, "Bob") == []


def test_FT_TRACK_4_one_injured_and_one_hurt_box_make_minus_two(fights: Fights) -> None:
    """FT-TRACK-4: Guard A with one Injured and one Hurt box rolls at -2."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Guard-A", "Fair"))
    for mod in (3, 5):  # margin 2: Hurt; then 5 against Guard-A's Fair -1: Injured
        fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Guard-A", mod=mod), act("Guard-A"))),
                       dice("ann=0000", "guard-a=0000"))
    out = fights.execute(name, cmd.FateExchange(actions=(act("Guard-A", "Ann"), act("Ann"))),
                         dice("guard-a=0000", "ann=0000"))
    side = resolved(out).sides[0]
    assert sum(m.value for m in side.modifiers) == -2
    from fudge_combat.engine.rulesets.fate.rules import penalty_view
    state = fights.state(name)
    assert penalty_view(state, state.find("Guard-A"))["total_next_action"] == -2


# --- FT-SCENE, scene pace --------------------------------------------------------------

def test_FT_SCENE_clipped_and_hurt_are_narrative_injuries_count_one_roll_each(fights: Fights) -> None:
    """FT-SCENE, FT-PACE scene: one roll per participant; clipped/hurt give no automatic penalty."""
    name = fate(fights, fighter("Ann", "Good"), fighter("Bob", "Average"), fighter("Cid", "Average"),
                fighter("Dan", "Average"), pace="scene")
    out = fights.execute(name, cmd.FateScene(actions=(act("Ann", "Bob"), act("Bob", "Ann"),
                                                      act("Cid", "Dan"), act("Dan", "Cid", mod=5))),
                         dice("ann=0000", "bob=0000", "cid=0000", "dan=0000"))
    assert boxes(out) == [("Bob", "hurt", "hurt"), ("Cid", "injured", "injured")]
    refused(fights, name, cmd.FateScene(actions=(act("Ann", "Bob"), act("Bob", "Ann"))), "ann=0000", "bob=0000",
            match="one roll each")
    from fudge_combat.engine.rulesets.fate.rules import penalties, penalty_view
    state = fights.state(name)
    assert penalties(state, state.find("Bob"))[0] == []  # hurt: a -1 the GM applies when it matters
    assert penalty_view(state, state.find("Bob"))["hurt_narrative"]
    assert [m.value for m in penalties(state, state.find("Cid"))[0]] == [-1]
    fights.execute(name, cmd.EndScene())
    fights.execute(name, cmd.FateScene(actions=(act("Ann", "Bob"), act("Bob", "Ann"))), dice("ann=0000", "bob=0000"))


def test_FT_PACE_scene_total_difference_marks_every_loser(fights: Fights) -> None:
    """FT-PACE scene (total): the sides' totals differ by 3: every member of the losing side is Hurt."""
    name = fate(fights, fighter("Ann", "Good", side="heroes"), fighter("Bea", "Fair", side="heroes"),
                fighter("Bob", "Average", side="thugs"), fighter("Cid", "Average", side="thugs"), pace="scene")
    out = fights.execute(name, cmd.FateScene(actions=(act("Ann"), act("Bea"), act("Bob"), act("Cid")), mode="total"),
                         dice("ann=0000", "bea=0000", "bob=0000", "cid=0000"))
    assert [(c.attacker, c.defender, c.margin, c.outcome) for c in resolved(out).contests] == [
        ("heroes", "Bob", 3, "hurt"), ("heroes", "Cid", 3, "hurt")]
    assert boxes(out) == [("Bob", "hurt", "hurt"), ("Cid", "hurt", "hurt")]


# --- FT-ARMS, FT-SIMPLE, FT-ADV ------------------------------------------------------

def test_FT_ARMS_dramatic_superior_weapon_and_armor_are_plus_one(fights: Fights) -> None:
    """FT-ARMS dramatic: superior weapon +1 to the attacker, superior armor +1 to the defender (GM input)."""
    assert resolve("fate")[1].arms == "dramatic"
    name = fate(fights, fighter("Ann", "Fair"), fighter("Bob", "Fair"))
    out = duel(fights, name, "Ann", "Bob", ("0000", "0000"),
               mods=(cmd.FateMod(combatant="Ann", kind="superior weapon", against="Bob"),
                     cmd.FateMod(combatant="Bob", kind="superior armor", against="Ann"),
                     cmd.FateMod(combatant="Ann", kind="superior weapon", against="Bob")))
    assert [(c.attacker_result, c.defender_result, c.outcome) for c in resolved(out).contests] == [(3, 2, "clipped")]


def test_FT_ARMS_superior_arms_bonus_is_refused_under_rated_arms(fights: Fights) -> None:
    """FT-ARMS: under simple or advanced arms the sheets' ratings count; the dramatic +1 is refused."""
    name = fate(fights, fighter("Ann"), fighter("Bob"), arms="simple")
    refused(fights, name, cmd.FateExchange(actions=(act("Ann", "Bob"), act("Bob", "Ann")),
                                           mods=(cmd.FateMod(combatant="Ann", kind="superior weapon"),)),
            "ann=0000", "bob=0000", match="dramatic arms")


def test_FT_SIMPLE_margin_plus_weapon_minus_armor(fights: Fights) -> None:
    """FT-SIMPLE: MoS 1 with a sword (2) against leather (1) reads 2: Hurt; a tie (a Scratch) reads 1: Clipped."""
    assert SIMPLE_WEAPONS["sword"] == 2 and SIMPLE_WEAPONS["knife"] == 1 and SIMPLE_WEAPONS["rifle"] == 3
    assert SIMPLE_ARMOR["leather"] == 1 and SIMPLE_ARMOR["chainmail"] == 2 and SIMPLE_ARMOR["wood stove"] == 4
    name = fate(fights, fighter("Ann", "Fair", fate_weapon={"name": "sword"}),
                fighter("Bob", "Fair", fate_armor={"name": "leather"}), arms="simple")
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob"), act("Bob"))), dice("ann=+000", "bob=0000"))
    contest = resolved(out).contests[0]
    assert (contest.margin, contest.read, contest.outcome) == (1, 2, "hurt")
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob"), act("Bob"))), dice("ann=0000", "bob=+000"))
    contest = resolved(out).contests[0]
    assert (contest.margin, contest.read, contest.outcome) == (0, 1, "clipped")


def test_FT_SIMPLE_ratings_outside_0_to_4_are_refused_without_a_house_rule(fights: Fights) -> None:
    """FT-SIMPLE: a rating of 5 is refused at join (nothing written); a house rule raising the limit allows it."""
    name = fate(fights, fighter("Ann"), arms="simple")
    refused(fights, name, cmd.Join(sheet=fighter("Ogre", fate_weapon={"name": "tree trunk", "rating": 5}),
                                   source="test"), match="outside 0..4")
    refused(fights, name, cmd.Join(sheet=fighter("Elf", fate_weapon={"name": "wand"}), source="test"),
            match="not in the simple weapon table")
    other = start(fights, "deadly", "fate", arms="simple", arms_rating_limit=8)
    fights.execute(other, cmd.Join(sheet=fighter("Ogre", fate_weapon={"name": "tree trunk", "rating": 5}),
                                   source="test"))


def test_FT_ADV_1_armor_types_move_the_thresholds(fights: Fights) -> None:
    """FT-ADV-1: the armor type table (0-8); a margin of 5 is Injured on AT0 but Hurt on AT3 and AT4."""
    assert [outcome_for(5, at) for at in range(9)] == [
        "injured", "injured", "hurt", "hurt", "hurt", "hurt", "clipped", "clipped", "clipped"]
    assert [outcome_for(margin, 8) for margin in (2, 3, 7, 10, 11)] == [
        "scratched", "clipped", "hurt", "injured", "taken_out"]
    assert sorted(ARMOR_TYPES) == list(range(9))
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average", fate_armor={"name": "plate", "type": 3}),
                arms="advanced")
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=5), act("Bob"))),
                         dice("ann=0000", "bob=0000"))
    assert (resolved(out).contests[0].armor_type, resolved(out).contests[0].outcome) == (3, "hurt")
    refused(fights, name, cmd.Join(sheet=fighter("Tank", fate_armor={"name": "hull", "type": 9}), source="test"),
            match="types 0..8")


def test_FT_ADV_1_armor_does_not_change_a_maneuvers_difficulty(fights: Fights) -> None:
    """FT-ADV-1: a disarm against plate (AT3) reads AT0: margin 2 is enough for a Hurt-level maneuver."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average", fate_armor={"name": "plate", "type": 3}),
                arms="advanced")
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", maneuver="disarms him", maneuver_needs="hurt",
                                                             maneuver_kind="disarm"), act("Bob"))),
                         dice("ann=++00", "bob=0000"))
    contest = resolved(out).contests[0]
    assert contest.outcome == "clipped" and contest.maneuver == "disarms him"  # as harm, AT3 reads 2 as only Clipped
    assert boxes(out) == []


def test_FT_ADV_2_armor_piercing_and_vicious(fights: Fights) -> None:
    """FT-ADV-2: AP lowers armor 2 types and is -1 to use; Vicious is +1 damage but armor > 0 counts 2 higher."""
    name = fate(fights, fighter("Ann", "Average", fate_weapon={"name": "pick", "rating": 2, "attributes": ["AP"]}),
                fighter("Vic", "Average", fate_weapon={"name": "saw", "rating": 2, "attributes": ["Vicious"]}),
                fighter("Bob", "Average", fate_armor={"name": "plate", "type": 3}),
                fighter("Cal", "Average"), arms="advanced")
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=6), act("Bob"), act("Vic", "Cal", mod=4),
                                                         act("Cal"))),
                         dice("ann=0000", "bob=0000", "vic=0000", "cal=0000"))
    ann, vic = resolved(out).contests
    assert [(m.name, m.value) for m in resolved(out).sides[0].modifiers] == [("AP weapon", -1), ("GM modifier", 6)]
    assert (ann.margin, ann.armor_type, ann.outcome) == (5, 1, "injured")  # AT3 - 2 = AT1: 5 is Injured
    assert (vic.margin, vic.read, vic.armor_type, vic.outcome) == (4, 5, 0, "injured")  # no armor: AT stays 0
    out = fights.execute(name, cmd.FateExchange(actions=(act("Vic", "Bob", mod=4), act("Bob"))),
                         dice("vic=0000", "bob=0000"))
    contest = resolved(out).contests[0]
    # margin 5 (Bob's injury -1 counts) +1 Vicious = 6, on AT3 + 2 = AT5: Hurt (on AT0 it would be Injured)
    assert (contest.margin, contest.read, contest.armor_type, contest.outcome) == (5, 6, 5, "hurt")


def test_FT_ADV_2_flex_and_locking(fights: Fights) -> None:
    """FT-ADV-2: Flex +1 to a disarm and -1 when both are mobile; a Locking weapon cannot be disarmed, -1 to finesse."""
    name = fate(fights, fighter("Ann", "Average", fate_weapon={"name": "whip", "rating": 1, "attributes": ["Flex"]}),
                fighter("Bob", "Average", fate_weapon={"name": "gauntlet blade", "rating": 2,
                                                       "attributes": ["Locking"]}),
                fighter("Cal", "Average"), arms="advanced")
    refused(fights, name, cmd.FateExchange(actions=(act("Ann", "Bob", maneuver="takes his blade", maneuver_kind="disarm"),
                                                    act("Bob"))), "ann=+000", "bob=0000", match="cannot be disarmed")
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob"), act("Bob", "Ann", maneuver="a feint",
                                                                                 maneuver_kind="finesse")),
                                                mobile=True), dice("ann=0000", "bob=0000"))
    ann, bob = resolved(out).sides
    assert [(m.name, m.value) for m in ann.modifiers] == [("Flex: both mobile", -1)]
    assert [(m.name, m.value) for m in bob.modifiers] == [("Locking: finesse maneuver", -1)]
    fights.execute(name, cmd.EndScene())
    out = fights.execute(name, cmd.FateExchange(actions=(act("Cal"), act("Ann", "Cal", maneuver="a trip",
                                                                         maneuver_kind="disarm"))),
                         dice("cal=0000", "ann=0000"))
    assert ("Flex: maneuver", 1) in [(m.name, m.value) for m in resolved(out).sides[1].modifiers]


# --- FT-MOD, FT-DROP, FT-MULTI, FT-DEF ------------------------------------------------

def test_FT_MOD_position_outnumbering_flanking_surrounding_stack_against_one_foe(fights: Fights) -> None:
    """FT-MOD: outnumbering, flanking and surrounding stack to +3 against Bob only; superior position +1."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average"), fighter("Cid", "Average"))
    mods = tuple(cmd.FateMod(combatant="Ann", kind=k, against="Bob") for k in ("outnumbering", "flanking", "surrounding"))
    out = fights.execute(name, cmd.FateExchange(
        actions=(act("Ann", "Bob"), act("Bob"), act("Cid", "Ann")),
        mods=mods + (cmd.FateMod(combatant="Cid", kind="superior position"),)),
        dice("ann=0000", "bob=0000", "cid=0000"))
    by_pair = {(c.attacker, c.defender): (c.attacker_result, c.defender_result) for c in resolved(out).contests}
    assert by_pair[("Ann", "Bob")] == (3, 0)  # +3 against Bob
    assert by_pair[("Cid", "Ann")] == (1, 0)  # the +3 does not count against Cid; Cid's position +1 does


def test_FT_DROP_an_unexpecting_defender_uses_mediocre_or_alertness(fights: Fights) -> None:
    """FT-DROP: not expecting the attack, Bob (Swords Great, Alertness Poor) defends at Mediocre; Cid at Fair Alertness."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Great", alertness="Poor"),
                fighter("Cid", "Great", alertness="Fair"))
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob"), act("Bob", unaware=True))),
                         dice("ann=0000", "bob=0000"))
    assert resolved(out).sides[1].level == -1 and resolved(out).contests[0].outcome == "clipped"
    out = fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Cid"), act("Cid", unaware=True))),
                         dice("ann=0000", "cid=0000"))
    assert resolved(out).sides[1].level == 1


def test_FT_MULTI_one_roll_against_a_group(fights: Fights) -> None:
    """FT-MULTI: every attacker who beats Cyrus harms him; beating them all, he affects one (the worst by default)."""
    name = fate(fights, fighter("Cyrus", "Good"), fighter("A", "Fair"), fighter("B", "Fair"))
    out = fights.execute(name, cmd.FateExchange(actions=(act("Cyrus", "A"), act("A", "Cyrus"), act("B", "Cyrus"))),
                         dice("cyrus=0000", "a=-000", "b=++00"))
    assert sum(1 for r in out.records if isinstance(r.event, ev.DiceRolled) and r.event.roller == "Cyrus") == 1
    assert boxes(out) == [("Cyrus", "clipped", "clipped")]  # B beat him by 1; he beat A, but not everyone
    assert [c.note for c in resolved(out).contests if c.attacker == "Cyrus"] == [
        "did not beat every attacker (FT-MULTI)"]
    out = fights.execute(name, cmd.FateExchange(actions=(act("Cyrus"), act("A", "Cyrus"), act("B", "Cyrus"))),
                         dice("cyrus=++00", "a=0000", "b=-000"))
    assert boxes(out) == [("B", "hurt", "hurt")]  # he beat both; B rolled worst: Good +2 -1 clipped = 3 vs 0
    contest = [c for c in resolved(out).contests if c.attacker == "Cyrus"][0]
    assert contest.note.startswith("picks the worst roll")


def test_FT_DEF_1_a_non_combat_defence_wins_only_a_scratch(fights: Fights) -> None:
    """FT-DEF-1: Finn's Tumbling beats the guard by 5: still only a Scratch."""
    name = fate(fights, fighter("Finn", "Average", skills={"Tumbling": "Superb"}), fighter("Guard", "Fair"))
    out = fights.execute(name, cmd.FateExchange(actions=(act("Finn", "Guard", skill="Tumbling", non_combat=True),
                                                         act("Guard", "Finn"))), dice("finn=+000", "guard=0000"))
    contest = resolved(out).contests[0]
    assert (contest.margin, contest.outcome) == (4, "scratched") and boxes(out) == []


def test_FT_DEF_2_fighting_defensively_is_plus_one_and_inflicts_nothing(fights: Fights) -> None:
    """FT-DEF-2: +1 to the skill; a win harms no one but allows a maneuver that does not affect the foe."""
    name = fate(fights, fighter("Cyrus", "Good"), fighter("Guard", "Fair"))
    out = fights.execute(name, cmd.FateExchange(actions=(act("Cyrus", "Guard", defensive=True, maneuver="backs to the door"),
                                                         act("Guard", "Cyrus"))), dice("cyrus=+000", "guard=-000"))
    contest = resolved(out).contests[0]
    assert (contest.attacker_result, contest.margin, contest.outcome) == (4, 4, "none")
    assert contest.maneuver == "backs to the door" and boxes(out) == []
    assert ("fighting defensively (FT-DEF-2)", 1) in [(m.name, m.value) for m in resolved(out).sides[0].modifiers]


def test_FT_MANEUVER_a_maneuver_instead_of_the_harm_when_the_outcome_reaches_it(fights: Fights) -> None:
    """FT-MANEUVER: a knock-back needing Hurt replaces the Hurt; a mere clip lands as a clip."""
    name = fate(fights, fighter("Finn", "Good"), fighter("Guard", "Fair"))
    knock = dict(maneuver="knocks him across the room", maneuver_needs="hurt")
    out = fights.execute(name, cmd.FateExchange(actions=(act("Finn", "Guard", **knock), act("Guard", "Finn"))),
                         dice("finn=0000", "guard=0000"))
    assert boxes(out) == [("Guard", "clipped", "clipped")]
    out = fights.execute(name, cmd.FateExchange(actions=(act("Finn", "Guard", **knock), act("Guard", "Finn"))),
                         dice("finn=+000", "guard=-000"))
    assert resolved(out).contests[0].maneuver == "knocks him across the room" and boxes(out) == []


# --- FT-PTS ---------------------------------------------------------------------------

def test_FT_PTS_a_fate_point_is_plus_one_and_re_resolves_the_exchange(fights: Fights) -> None:
    """FT-PTS, C-FP-4: the fudge-point pool under its Fate name (`fate_points`); +1; none left is refused."""
    name = fate(fights, fighter("Ann", "Fair", fate_points=1), fighter("Bob", "Fair"))
    assert fights.state(name).find("Ann").fudge_points == 1
    out = duel(fights, name, "Ann", "Bob", ("+000", "0000"))
    assert boxes(out) == [("Bob", "clipped", "clipped")]
    out = fights.execute(name, cmd.SpendPoint(combatant="Ann", use="skill", shift=1))
    assert isinstance(out.records[0].event, ev.FudgePointSpent)
    assert isinstance(out.records[1].event, ev.EventsVoided)
    assert boxes(out) == [("Bob", "hurt", "hurt")] and marks(fights, name, "Bob") == ["hurt"]
    assert out.state.find("Ann").fudge_points == 0
    refused(fights, name, cmd.SpendPoint(combatant="Ann", use="skill", shift=1), match="no fate points left")
    refused(fights, name, cmd.SpendPoint(combatant="Ann", use="luck"), match="no fate points left|\\+1 to a roll")


def test_FT_PTS_an_aspect_box_buys_a_reroll_and_both_rolls_stay(fights: Fights) -> None:
    """FT-PTS: checking Brawler rerolls Cyrus's roll; a checked box is refused; all checked is refused."""
    name = fate(fights, fighter("Cyrus", "Good", aspects={"Brawler": 2}), fighter("Guard", "Fair"))
    duel(fights, name, "Cyrus", "Guard", ("-000", "0000"))
    first_roll = max(s for s, e in fights.state(name).events.items() if isinstance(e, ev.DiceRolled)
                     and e.roller == "Cyrus")
    out = fights.execute(name, cmd.CheckAspect(combatant="Cyrus", aspect="brawler"), dice("cyrus=++00"))
    assert isinstance(out.records[0].event, ev.AspectChecked) and out.records[0].event.box == 1
    assert first_roll in out.records[1].event.seqs
    assert boxes(out) == [("Guard", "hurt", "hurt")]
    log = [r.event for r in fights.log(name) if isinstance(r.event, ev.DiceRolled) and r.event.roller == "Cyrus"]
    assert [e.faces for e in log] == [(-1, 0, 0, 0), (1, 1, 0, 0)]
    refused(fights, name, cmd.CheckAspect(combatant="Cyrus", aspect="Brawler", box=1), "cyrus=0000",
            match="already checked")
    fights.execute(name, cmd.CheckAspect(combatant="Cyrus", aspect="Brawler"), dice("cyrus=0000"))
    refused(fights, name, cmd.CheckAspect(combatant="Cyrus", aspect="Brawler"), "cyrus=0000", match="every box")
    refused(fights, name, cmd.CheckAspect(combatant="Cyrus", aspect="Lucky"), "cyrus=0000", match="no aspect")


def test_FT_PTS_only_the_latest_exchange_can_be_changed(fights: Fights) -> None:
    """FT-PTS: a point or reroll on an earlier exchange's roll is refused (nothing written)."""
    name = fate(fights, fighter("Ann", "Fair", fate_points=3), fighter("Bob", "Fair"))
    duel(fights, name, "Ann", "Bob", ("+000", "0000"))
    early = max(s for s, e in fights.state(name).events.items() if isinstance(e, ev.DiceRolled) and e.roller == "Ann")
    duel(fights, name, "Ann", "Bob", ("0000", "0000"))
    refused(fights, name, cmd.SpendPoint(combatant="Ann", use="skill", shift=1, target=early), match="latest one")


# --- FT-INIT --------------------------------------------------------------------------

def test_FT_INIT_turn_order_by_rolled_alertness_then_tactics_then_combat_skill(fights: Fights) -> None:
    """FT-INIT: "initiative is determined by rolling alertness, with ties broken by tactics skill, then the
    combat skill": Bob, Cid and Dan tie on rolled Alertness: Tactics; Cid and Dan tie on both: the combat skill.
    Ann's Average Alertness rolls +2: Good, the same total as theirs, but with no Tactics she comes last."""
    name = fate(fights, fighter("Ann", "Fair", alertness="Average"),
                fighter("Bob", "Fair", alertness="Good", skills={"Tactics": "Good"}),
                fighter("Cid", "Fair", alertness="Good", skills={"Tactics": "Fair"}),
                fighter("Dan", "Great", alertness="Good", skills={"Tactics": "Fair"}),
                pace="turn", initiative="alertness")
    out = fights.execute(name, cmd.FateRound(), dice("ann=++00", "bob=0000", "cid=0000", "dan=0000"))
    rolls = [r.event for r in out.records if isinstance(r.event, ev.DiceRolled)]
    assert [(r.roller, r.purpose, sum(r.faces)) for r in rolls] == [
        ("Ann", "initiative (Alertness)", 2), ("Bob", "initiative (Alertness)", 0),
        ("Cid", "initiative (Alertness)", 0), ("Dan", "initiative (Alertness)", 0)]
    order = out.records[-1].event
    assert order.order == ("Bob", "Dan", "Cid", "Ann")
    assert order.keys[0][0] == order.keys[-1][0] == 2  # Good: Bob's +2 level, Ann's 0 + her roll
    refused(fights, name, cmd.FateAttack(attack=act("Ann", "Bob"), defense=act("Bob")), "ann=0000", "bob=0000",
            match="Bob's turn")
    for attacker in ("Bob", "Dan", "Cid", "Ann"):
        target = "Ann" if attacker != "Ann" else "Bob"
        fights.execute(name, cmd.FateAttack(attack=act(attacker, target), defense=act(target)),
                       dice(f"{attacker.lower()}=0000", f"{target.lower()}=0000"))
    refused(fights, name, cmd.FateAttack(attack=act("Bob", "Ann"), defense=act("Ann")), "bob=0000", "ann=0000",
            match="round 1 is over")


def test_FT_INIT_phases_classic_instead(fights: Fights) -> None:
    """FT-INIT option: phase initiative (002) orders the turns; an attack out of turn is refused."""
    name = fate(fights, fighter("Ann", "Fair", alertness="Fair"), fighter("Bob", "Fair", alertness="Good"),
                pace="turn", initiative="phases-classic", initiative_trait="Alertness")
    refused(fights, name, cmd.FateRound(), match="`fudge round`")
    fights.execute(name, cmd.StartRound(), dice("ann=+ 0 -", "bob=+ 0 0 -"))
    fights.execute(name, cmd.NextTurn())
    actor = fights.state(name).turn.combatant
    other = "Ann" if actor == "bob" else "Bob"
    refused(fights, name, cmd.FateAttack(attack=act(other, actor), defense=act(actor)),
            f"{other.lower()}=0000", f"{actor}=0000", match="not .* turn")
    fights.execute(name, cmd.FateAttack(attack=act(actor, other), defense=act(other)),
                   dice(f"{actor}=0000", f"{other.lower()}=0000"))


def test_FT_INIT_a_pass_uses_the_turn_a_hold_waits_for_the_next_and_the_dead_have_no_turn(fights: Fights) -> None:
    """FT-INIT (the reading in engine.rulesets.fate.rules): a pass is the turn used with no roll; a hold puts the actor after
    the next who still has a turn; only the actor gives his turn up; the last has nobody to wait for; a
    fighter ruled dead is passed over as one Taken Out is. Under phase initiative the phase commands do it."""
    name = fate(fights, fighter("Ann", alertness="Great"), fighter("Bob", alertness="Good"),
                fighter("Cid", alertness="Fair", side="them"), pace="turn", initiative="alertness")
    refused(fights, name, cmd.FatePass(), match="no order yet: `fudge fate round`")
    fights.execute(name, cmd.FateRound(), dice("ann=0000", "bob=0000", "cid=0000"))
    refused(fights, name, cmd.FatePass(combatant="Bob"), match="it is Ann's turn .*not Bob's")
    held = fights.execute(name, cmd.FatePass(combatant="Ann", hold=True))
    assert [r.event for r in held.records] == [ev.FateTurnPassed(round=1, combatant="Ann", behind="Bob")]
    assert fate_of(held.state).order == ("bob", "ann", "cid")
    passed = fights.execute(name, cmd.FatePass())
    assert [r.event for r in passed.records] == [ev.FateTurnPassed(round=1, combatant="Bob")]
    assert not any(isinstance(r.event, ev.DiceRolled) for r in held.records + passed.records)
    fights.execute(name, cmd.Kill(combatant="Ann", reason="the GM's ruling"))
    state = fights.state(name)
    assert next_actor(state).name == "Cid"  # Ann, dead, is passed over
    refused(fights, name, cmd.FatePass(hold=True), match="nobody acts after Cid in round 1: he acts .* or passes")
    fights.execute(name, cmd.FatePass())
    refused(fights, name, cmd.FatePass(), match="round 1 is over: `fudge fate round` starts the next")
    phased = start(fights, "phased", "fate", pace="turn", initiative="phases-classic", initiative_trait="Alertness")
    refused(fights, phased, cmd.FatePass(), match="by phase initiative: .*`fudge next` gives the turn")
    exchanges = start(fights, "exchanges", "fate")
    refused(fights, exchanges, cmd.FatePass(hold=True),
            match='`fudge fate hold` is for pace = "turn"; .*: `fudge fate exchange` rolls each exchange')


# --- FT-HEAL-1 --------------------------------------------------------------------------
# --- FT-HEAL-1 --------------------------------------------------------------------------

def test_FT_HEAL_1_an_injury_takes_a_week_less_a_day_per_mos_of_medicine(fights: Fights) -> None:
    """FT-HEAL-1: Great medicine vs Fair (MoS 2): 5 days; without a roll, 7; the box clears."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average"),
                fighter("Doc", "Average", skills={"Medicine": "Good"}))
    for _ in range(2):
        fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=5), act("Bob"))),
                       dice("ann=0000", "bob=0000"))
    out = fights.execute(name, cmd.RecoverInjury(combatant="Bob", healer="Doc"), dice("doc=+000"))
    healed = out.records[-1].event
    assert (healed.result, healed.difficulty, healed.days) == (3, 1, 5)
    out = fights.execute(name, cmd.RecoverInjury(combatant="Bob"))
    assert out.records[-1].event.days == 7
    assert marks(fights, name, "Bob") == []
    refused(fights, name, cmd.RecoverInjury(combatant="Bob"), match="no Injured box")


def test_FT_HEAL_1_long_recovery_and_non_lethal_injuries(fights: Fights) -> None:
    """FT-HEAL-1: option: 2 weeks rest or 3 weeks light, a day less per MoS above Average; non-lethal heals at scene end."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average"), fate_recovery="long")
    fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=5), act("Bob"))), dice("ann=0000", "bob=0000"))
    fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=5, non_lethal=True), act("Bob"))),
                   dice("ann=0000", "bob=0000"))
    assert marks(fights, name, "Bob") == ["injured", "injured"]
    fights.execute(name, cmd.EndScene())
    assert marks(fights, name, "Bob") == ["injured"]  # the fists' injury healed with the scene
    out = fights.execute(name, cmd.RecoverInjury(combatant="Bob", skill_level=2, activity="light"), dice("healer=+000"))
    assert (out.records[-1].event.days, out.records[-1].event.activity) == (21 - 3, "light")


# --- history ---------------------------------------------------------------------------

def test_FT_PTS_fate_fights_undo_replay_and_verify(fights: Fights) -> None:
    """FT-PTS with A-UNDO-1, A-VERIFY-1: undo of a point restores the old result; verify re-runs Fate commands."""
    name = fate(fights, fighter("Ann", "Fair", fate_points=1, aspects={"Lucky": 1}), fighter("Bob", "Fair"))
    duel(fights, name, "Ann", "Bob", ("+000", "0000"))
    fights.execute(name, cmd.CheckAspect(combatant="Ann", aspect="Lucky"), dice("ann=+ + 0 0"))
    fights.execute(name, cmd.SpendPoint(combatant="Ann", use="skill", shift=1))
    assert marks(fights, name, "Bob") == ["hurt"]  # Fair +2 +1 = Superb vs Fair: MoS 3
    fights.execute(name, cmd.Undo())
    assert marks(fights, name, "Bob") == ["hurt"] and fights.state(name).find("Ann").fudge_points == 1
    fights.execute(name, cmd.Undo())
    assert marks(fights, name, "Bob") == ["clipped"]
    fights.execute(name, cmd.Redo())
    assert marks(fights, name, "Bob") == ["hurt"]
    fights.execute(name, cmd.EndScene())
    assert verify(fights.store.read(name)).ok


def test_FT_TRACK_3_other_rolls_carry_hurt_and_injured_and_take_a_fate_point(fights: Fights) -> None:
    """FT-TRACK-3, FT-PTS: a hurt and injured Bob rolls Alertness at -2; a fate point gives +1; a taken-out one cannot roll."""
    name = fate(fights, fighter("Ann", "Average"), fighter("Bob", "Average", fate_points=1))
    for mod in (2, 4):  # margin 2: Hurt; then 4 against Bob's -1: 5, Injured
        fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=mod), act("Bob"))),
                       dice("ann=0000", "bob=0000"))
    assert marks(fights, name, "Bob") == ["hurt", "injured"]
    out = fights.execute(name, cmd.RollTrait(combatant="Bob", trait="Alertness", difficulty=0), dice("bob=+000"))
    rolled = out.records[-1].event
    assert (rolled.result, rolled.success) == (-1, False)
    out = fights.execute(name, cmd.SpendPoint(combatant="Bob", use="skill"))
    assert (out.records[-1].event.result, out.records[-1].event.success) == (0, True)
    refused(fights, name, cmd.SpendPoint(combatant="Bob", use="luck"), match=r"\+1 to a roll")
    fights.execute(name, cmd.FateExchange(actions=(act("Ann", "Bob", mod=9), act("Bob"))), dice("ann=0000", "bob=0000"))
    refused(fights, name, cmd.RollTrait(combatant="Bob", trait="Alertness"), "bob=0000", match="Taken Out")
    fights.execute(name, cmd.EndScene())
    fights.execute(name, cmd.Kill(combatant="Bob", reason="left in the gutter"))  # FT-TRACK-3: decided after the fight
    refused(fights, name, cmd.RollTrait(combatant="Bob", trait="Alertness"), "bob=0000", match="dead")
    assert verify(fights.store.read(name)).ok
