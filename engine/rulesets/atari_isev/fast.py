"""The fast path for an Atari Isev duel (AI-INIT-2, AI-ATK-1), as `engine.rulesets.fudge.fast` is for a Fudge duel.

Speed code (`projections.speed`): `fudge sim --engine`, or FUDGE_PLAIN=1, plays the engine instead.

Each round both fighters, in join order, roll 4dF plus their initiative trait (AI-INIT-1:
`engine.rulesets.fudge.ranked.derived_initiative`) and act in order of the total, the first to join
first on a tie (AI-INIT-2). On his turn a fighter attacks the other (AI-ATK-1): his roll against
the other's free avoidance (dodge or parry, as `engine.rulesets.atari_isev.blows.default_avoidance`
picks it), both with their wound penalty and posture; a result above the avoidance that reaches
the least that hits (Poor and the Scales, F-HIT-1) wounds: Strength + weapon + Scale less armor
and Scale, plus the margin and a 4dF luck roll, an RD +1 graze capped (AI-DMG-1, AI-GRAZE), read
on the defender's Health chart (AI-WND-1: `engine.rulesets.fudge.campaign.health_chart`) and
marked on his track (`engine.rulesets.fudge.fast_common.place`). Fighters who act at the same total
act at once (AI-INIT-2): a wound dealt within the slot weighs on nobody, and stops nobody, until the
slot ends; the fight ends with the slot in which a fighter can no longer act, or after `max_rounds`
rounds. Same dice, same order as the engine: `engine.rulesets.fudge.fast_common.Dice`.

Taken (`plan`): the `atari-isev` preset's options, with the options in READ and AT_OPENING at any
value and those in UNREAD (never read by an Atari Isev duel) at any value; every other option at the
preset's value. Two fighters on two sides, each on a plain box track; the policies `plain`,
`reckless` (the all-out offence posture every round, AI-POST) and `sensible` for a fighter without
fudge points (he spends none; alone he never defends). Anything else is played by the engine;
tests/test_sim_fast_atari.py plays thousands of fights both ways.

Rules restated here, each named in `RESTATES` with the digest of the engine code it restates
(tests/test_sim_fast_atari.py fails when that code changes, until this module is read again):
AI-INIT-2 (the order of turns, the simultaneous slot: `ranked.turn_order`, `ranked.next_index`,
`ranked.slot_track`), AI-ATK-1 and AI-ATK-2 (`blows.one_blow`, `blows.attacker_side`,
`blows.avoidance_side`), AI-DMG-1, AI-GRAZE, AI-WND-1 (`rules.settle`, calling the engine's own
`basic_damage`, `protection`, `health_chart` and `level_for_damage` once per duel), F-MOD-1 as
Atari Isev reads it (`sides.acting_wound`).
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.state import Combatant
from fudge_combat.engine.kernel.wounds import INCAPACITATED, LEVELS, VERY_HURT, level_for_damage
from fudge_combat.engine.rulesets.atari_isev.blows import default_avoidance, skill_like
from fudge_combat.engine.rulesets.atari_isev.rules import basic_damage, protection, weapon_of
from fudge_combat.engine.rulesets.fudge.campaign import health_chart
from fudge_combat.engine.rulesets.fudge.fast_common import Dice, fighter_eligible, place, stream_of
from fudge_combat.engine.rulesets.fudge.ranked import NO_DECLARATION, derived_initiative
from fudge_combat.engine.rulesets.fudge.settle import min_hit_for

PRESET = resolve("atari-isev")[1]  # every option not named below must have its value here
READ = frozenset({"min_hit", "wound_penalties", "graze_max_damage", "wound_boxes", "scratch_cap", "death_rule"})
AT_OPENING = frozenset({  # read by the engine when the fighters join and when the plan is made, any value
    "ladder", "ladder_levels", "attributes", "missing_attribute", "unlisted_skill", "default_fudge_points",
    "npc_fudge_points", "dc_in_defense",
})
UNREAD = frozenset({  # Fudge's damage, declarations and turns, which an Atari Isev duel never reads
    "wound_thresholds", "damage_roll", "graze_table", "graze_cap", "graze_damage_roll", "relative_degree_weight",
    "all_out_offense_skill", "all_out_offense_damage", "all_out_loser_bonus", "all_out_defense_skill",
    "shield_values", "weapon_size", "npc_static", "default_difficulty", "unaware_difficulty",
    "hasty_penalty", "hasty_initiative", "off_hand_penalty", "sweep_penalty", "heroic_difficulty",
    "heroic_penalty", "max_foes", "blunt_heavy_halves_armor", "tech_scale",
})
POLICIES = frozenset({"plain", "reckless", "sensible"})  # sensible: only for a fighter without points
DEAD = 6  # `engine.kernel.wounds.DEAD`: the level `place` gives a track with no open box


def options_eligible(options: RuleOptions) -> bool:
    """The options are ones the fast path was proven on (see the module's docstring)."""
    for name in options.__struct_fields__:
        if name not in READ and name not in AT_OPENING and name not in UNREAD:
            if getattr(options, name) != getattr(PRESET, name):
                return False
    return True


class Fighter(Struct, frozen=True):
    """One fighter of an Atari Isev duel, everything constant over the fight worked out by the engine's functions."""

    initiative: int  # AI-INIT-1
    attack: int  # the attack trait's level, with the posture (AI-POST)
    avoid: int  # the free avoidance's level (dodge or parry), less the posture
    penalties: tuple[int, ...]  # AI: the wound penalty at each level able to act (`sides.acting_wound`)
    rows: tuple[int, ...]  # boxes per wound level, Scratch first
    min_hit: int  # F-HIT-1: the least result that hits the foe
    factor: int  # AI-DMG-1: basic damage less the foe's protection
    levels: tuple[int, ...]  # AI-WND-1: the foe's wound level for each damage from 0 up (the last for any beyond)


class AtariDuel(Struct, frozen=True):
    """A duel the fast path plays: both fighters and the options it reads."""

    first: Fighter
    second: Fighter
    max_rounds: int
    graze_max: int
    scratch_cap: bool
    gm_death: bool

    def play(self, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
        return play(self, seed)


def plan(setup: Any, opening: Any) -> AtariDuel | None:
    """The duel to play fast, or None when any part of the setup is outside what this path was proven on."""
    state = opening.state
    options = state.options
    if not options_eligible(options) or len(setup.entrants) != 2 or len(state.combatants) != 2:
        return None
    first, second = sorted(state.combatants.values(), key=lambda c: c.joined_seq)
    if (first.side == second.side or state.ranked or state.turn is not None or state.pending
            or state.advantages or state.will_relief):
        return None
    policies = [entrant.policy or setup.policy for entrant in setup.entrants]
    for who, policy in zip((first, second), policies):
        if policy not in POLICIES or (policy == "sensible" and who.fudge_points > 0) or not fighter_eligible(who):
            return None
    postures = [2 if policy == "reckless" else 0 for policy in policies]  # AI-POST: all-out offence
    return AtariDuel(_fighter(state, first, second, postures[0]), _fighter(state, second, first, postures[1]),
                     setup.max_rounds, options.graze_max_damage, options.scratch_cap, options.death_rule == "gm")


def _fighter(state: Any, who: Combatant, foe: Combatant, posture: int) -> Fighter:
    """`blows.attacker_side` and `blows.avoidance_side` for this duel's blows, less the wound (which changes)."""
    options = state.options
    combat = who.fighter.sheet.combat
    _, attack, _ = who.fighter.trait(combat.attack if combat else "Brawling", options)
    if default_avoidance(who, NO_DECLARATION) == "dodge":
        _, avoid = skill_like(who, "dodge", "Dodge", state)
    else:
        _, avoid = skill_like(who, "parry", (combat.defend or combat.attack) if combat else "Brawling", state)
    factor = basic_damage(who.fighter, weapon_of(who.fighter, None), options) - protection(foe.fighter)
    thresholds = health_chart(foe.fighter.trait("Health", options)[1]).thresholds
    top = max(thresholds) + 1
    levels = tuple(level_for_damage(damage, thresholds) if damage > 0 else 0 for damage in range(top + 1))
    penalties = tuple(options.wound_penalties[min(level, VERY_HURT) - 1] if level else 0
                      for level in range(INCAPACITATED))
    return Fighter(derived_initiative(who.fighter, options)[1], attack + posture, avoid - posture, penalties,
                   tuple(who.boxes), min_hit_for(state, who, foe, None), factor, levels)


def play(duel: AtariDuel, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
    """(winner: 0, 1 or None for a draw; rounds; each fighter's final wound) of the fight with this seed."""
    dice = Dice(seed, stream_of(seed))
    fighters = (duel.first, duel.second)
    filled = ([0] * len(duel.first.rows), [0] * len(duel.second.rows))
    levels = [0, 0]  # each track's level: the highest marked row, DEAD once dead
    draw = rounds = 0
    ended = False
    while not ended and rounds < duel.max_rounds:
        rounds += 1
        totals = []
        for fighter in fighters:  # AI-INIT-2: both can act at a round's start (else the fight is over)
            totals.append(fighter.initiative + dice.total(draw, 4))
            draw += 1
        order = (0, 1) if totals[0] >= totals[1] else (1, 0)  # the highest total first; a tie in join order
        slot: int | None = None  # the total of the slot of the last turn taken
        at_start = levels  # the levels at the slot's start: what weighs within it (`ranked.slot_track`)
        for who in order:
            same = slot == totals[who]
            if (at_start if same else levels)[who] >= INCAPACITATED:
                continue  # `ranked.next_index`: no turn for one who cannot act
            if ended and not same:
                break  # the fight ended in an earlier slot
            if not same:
                slot, at_start = totals[who], list(levels)
            attacker, defender = fighters[who], fighters[1 - who]
            result = attacker.attack + dice.total(draw, 4) + attacker.penalties[at_start[who]]
            avoided = defender.avoid + dice.total(draw + 1, 4) + defender.penalties[at_start[1 - who]]
            draw += 2
            rd = result - avoided
            if rd >= 1 and result >= attacker.min_hit:  # AI-ATK-2
                damage = attacker.factor + rd + dice.total(draw, 4)  # AI-DMG-1: the luck roll
                draw += 1
                if rd == 1:  # AI-GRAZE
                    damage = min(damage, duel.graze_max)
                damage = max(0, damage)
                level = attacker.levels[min(damage, len(attacker.levels) - 1)]
                if level > 0 and levels[1 - who] != DEAD:
                    levels[1 - who] = place(duel, defender.rows, filled[1 - who], level)
            if levels[0] >= INCAPACITATED or levels[1] >= INCAPACITATED:
                ended = True  # those in the same slot still strike (AI-INIT-2)
    able = (levels[0] < INCAPACITATED, levels[1] < INCAPACITATED)
    won = None if able[0] == able[1] else (0 if able[0] else 1)
    return won, rounds, (LEVELS[levels[0]], LEVELS[levels[1]])


RESTATES: dict[str, str] = {  # engine code -> `projections.fast.source_digest` of it when last read with this module
    "engine.rulesets.fudge.ranked.start_round": "145dedbe6448",
    "engine.rulesets.fudge.ranked.turn_order": "3ecc0b622e03",
    "engine.rulesets.fudge.ranked.next_index": "6c271f4bbc68",
    "engine.rulesets.fudge.ranked.slot_track": "906ddd5c5a59",
    "engine.rulesets.atari_isev.blows.attack": "b46077aac71c",
    "engine.rulesets.atari_isev.blows.one_blow": "2e5201363b55",
    "engine.rulesets.atari_isev.blows.attacker_side": "8000923db2ae",
    "engine.rulesets.atari_isev.blows.avoidance_side": "8a0aef779c74",
    "engine.rulesets.atari_isev.blows.wound_penalty": "62034d2309e3",
    "engine.rulesets.atari_isev.rules.settle": "6f11498650e1",
    "engine.rulesets.fudge.sides.acting_wound": "8065dd04ea06",
    "engine.kernel.dice.derive_faces": "8fec2ca0203e",
    "sim.policies.reckless_declaration": "b86cf1b5a798",
    "sim.policies.sensible_declaration": "3658e73a0648",
}
