"""Initiative systems, paces and rulesets combined through house rules (F-INIT-4).

Every combination either runs a round and verifies, or is refused at setup
with its reason; Atari Isev in phase order is played out.
"""

from __future__ import annotations

import itertools

import pytest

from fudge_combat.events.records import json_form
from fudge_combat.cli.demos import join
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events import structs as ev
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from tests.conftest import dice, make_fights

ATARI_PHASES = 'extends = "atari-isev"\ninitiative = "phases-crunch"\nbartering = "crunch"\n'


def atari_in_phases(fights: Fights) -> None:
    label, options = resolve("atari-isev", ATARI_PHASES)
    fights.new("fight", label, json_form(options))
    fights.execute("fight", join("max"))
    fights.execute("fight", join("cutthroat"))


def refused(fights: Fights, command: object, match: str) -> None:
    before = fights.store.last_seq("fight")
    with pytest.raises(RuleError, match=match):
        fights.execute("fight", command)
    assert fights.store.last_seq("fight") == before


def test_F_INIT_4_AI_ATK_1_atari_isev_blows_in_crunch_time_phase_order(fights: Fights) -> None:
    """F-INIT-4, AI-ATK-1, AI-MULTI-AVD, CT-BARTER-1: Atari Isev attack and avoidance, in phase order.

    Max declares two avoidances for the round (surrendering his attack); both
    roll Crunch Time dice (Fair Agility: 4dF); the Cutthroat barters for `++`
    and attacks first; Max dodges; Max's own turn cannot attack.
    """
    atari_in_phases(fights)
    fights.execute("fight", cmd.Declare(combatant="Max", declaration=ev.Declaration(two_avoidances="dodge-dodge")))
    fights.execute("fight", cmd.StartRound(), dice("max=+ 0 - -", "cutthroat=+ + 0 -"))
    fights.execute("fight", cmd.Barter(combatant="Cutthroat", trade=0, alter=1, direction=1))
    assert fights.execute("fight", cmd.NextTurn()).state.turn.combatant == "cutthroat"  # ++
    refused(fights, cmd.Attack(attacker="Max", target="Cutthroat"), "it is Cutthroat's turn")
    blow = fights.execute("fight", cmd.Attack(attacker="Cutthroat", target="Max"),
                          dice("cutthroat=0 0 0 0", "max=+ + 0 0"))
    resolved = [r.event for r in blow.records if isinstance(r.event, ev.ExchangeResolved)][0]
    assert (resolved.avoidance, resolved.hits) == ("dodge", ())
    refused(fights, cmd.Attack(attacker="Cutthroat", target="Max"), "already acted in phase \\+\\+")
    fights.execute("fight", cmd.NextTurn())  # +: Max
    refused(fights, cmd.Attack(attacker="Max", target="Cutthroat"), "surrendered the attack")
    assert verify(fights.store.read("fight")).ok
    assert replay(fights.log("fight")).combatants == fights.state("fight").combatants


def test_F_INIT_4_AI_WAIT_AI_MULTI_ATK_what_changes_a_rolled_total_is_refused_in_phases(fights: Fights) -> None:
    """AI-WAIT, AI-MULTI-ATK, F-INIT-3: waiting, hasty attacks and a delayed second attack need rolled initiative."""
    atari_in_phases(fights)
    for declaration in (ev.Declaration(wait=1), ev.Declaration(two_attacks=True)):
        refused(fights, cmd.Declare(combatant="Max", declaration=declaration), "need initiative = \"ranked\"")


PACES = ("story", "simultaneous", "alternating")
INITIATIVES = ("none", "opposed", "ranked", "phases-classic", "phases-crunch")
BARTERING = {"phases-classic": "classic", "phases-crunch": "crunch"}
SHEETS = {"fudge": ("leroy", "theodora"), "atari-isev": ("max", "cutthroat")}


def smoke_round(fights: Fights, pace: str, initiative: str, first: str, second: str) -> None:
    """One round of blows under the pace and initiative: what a GM would type."""
    if pace == "story":
        fights.execute("fight", cmd.StoryRoll(combatant=first, trait="Agility", mod=1, median=True,
                                              element="the bridge gives way"))
    elif pace == "simultaneous":
        fights.execute("fight", cmd.Exchange(first=first, second=second))
    elif initiative == "none":
        fights.execute("fight", cmd.Attack(attacker=first, target=second))
        fights.execute("fight", cmd.Attack(attacker=second, target=first))
    else:
        fights.execute("fight", cmd.StartRound())
        state = fights.execute("fight", cmd.NextTurn()).state
        actor = state.combatants[state.turn.combatant].name
        fights.execute("fight", cmd.Attack(attacker=actor, target=second if actor.lower() == first else first))


@pytest.mark.parametrize("preset, pace, initiative", list(itertools.product(SHEETS, PACES, INITIATIVES)))
def test_F_INIT_4_every_combination_runs_or_is_refused_with_a_reason(preset: str, pace: str, initiative: str) -> None:
    """F-INIT-1, F-INIT-4, F-PACE-1, F-PACE-2, F-PACE-3, AI-ATK-1: any initiative with any pace and ruleset where the rules make sense."""
    lines = [f'extends = "{preset}"', f'pace = "{pace}"', f'initiative = "{initiative}"',
             f'bartering = "{BARTERING.get(initiative, "none")}"']
    try:
        label, options = resolve(preset, "\n".join(lines))
    except InputError as exc:
        assert (preset, pace, initiative) in expected_refusals(), str(exc)
        assert "(" in str(exc), "a refusal names the rule behind it"
        return
    assert (preset, pace, initiative) not in expected_refusals()
    fights = make_fights()
    fights.new("fight", label, json_form(options))
    first, second = SHEETS[preset]
    fights.execute("fight", join(first))
    fights.execute("fight", join(second))
    smoke_round(fights, pace, initiative, first, second)
    assert verify(fights.store.read("fight")).ok
    assert replay(fights.log("fight")).combatants == fights.state("fight").combatants


def expected_refusals() -> set[tuple[str, str, str]]:
    """The combinations that make no sense, and why.

    Simultaneous rounds and story elements have no turn order (F-INIT-1,
    F-PACE-1); Atari Isev blows are attacks in turn (AI-ATK-1).
    """
    out = set()
    for preset, pace, initiative in itertools.product(SHEETS, PACES, INITIATIVES):
        if pace in ("simultaneous", "story") and (initiative != "none" or preset == "atari-isev"):
            out.add((preset, pace, initiative))
    return out
