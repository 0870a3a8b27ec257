"""A fast path for the commonest simulated fight: a Fudge duel at simultaneous pace, restated in plain Python.

Speed code (`projections.speed`): `fudge sim --engine`, or FUDGE_PLAIN=1, plays the engine instead.

Why: a duel played through the engine pays for the generality the engine
needs at the table (frozen pydantic events, a fold per command, every option checked at every
blow). A duel between two sheets under the `fudge` preset needs little of it: two 4dF rolls per
round, a comparison, a damage factor read on the thresholds, a box marked. This module plays that
duel with the engine's own dice (the same HMAC-SHA256 draws of `engine.kernel.dice.derive_faces`, in the
same order, from the same fight seed and stream as `sim.runner.LightSession`), so a fight gives
the same winner, rounds and final wounds whichever path plays it.

It takes only what it was proven on (`plan`): the options it reads, the options the engine reads
once at the opening (each fighter's traits and factors come from the engine itself), and options a
two-fighter exchange never reads; every other option at its default; two combatants on two sides,
each on a plain box track; the policies `plain` and `reckless`, and `sensible` for a fighter with
no point to spend (in a duel it then does what `plain` does). Anything else is played by the
engine. tests/test_sim_fast.py plays thousands of fights both ways, inside and just outside these
bounds. Kept fights (`--keep`) are always played again by the engine, through the service.

Rules restated here, each as the engine states it: F-PACE-2 (one exchange a round), F-MEL-1 and
F-MEL-2 (opposed results, the relative degree), F-HIT-1 (the least result that hits), F-MOD-1
(the worst wound's penalty), F-MOD-3 (the foe's shield), F-MOD-4 (weapon size), F-MOD-6 and
F-TAC-1 (all-out offense, postures), F-NPC-1 (static NPCs), F-FANCY-2 (plus levels), F-DMG-3,
F-DMG-4, F-GRAZE, F-DROLL (damage and its roll), F-WND-3, F-WND-5, F-WND-6 (the track), F-WND-1
(who can act). The dice, the damage and the track are `fast_common`'s, shared with the other fast paths;
a fight in phase order is handed to `fast_phases`.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.registry import FastDuel
from fudge_combat.engine.kernel.state import Combatant
from fudge_combat.engine.kernel.wounds import INCAPACITATED, LEVELS
from fudge_combat.engine.rulesets.fudge.damage import defensive_factor, offensive_factor
from fudge_combat.engine.rulesets.fudge.fast_common import (  # noqa: F401  (Dice, stream_of: what the other fast paths read here)
    AT_OPENING, FIXED, READ, UNREAD, Dice, fighter_eligible, penalties, place, stream_of, strike)
from fudge_combat.engine.rulesets.fudge.melee_mods import weapon_size_modifiers
from fudge_combat.engine.rulesets.fudge.settle import min_hit_for
from fudge_combat.engine.rulesets.fudge.sides import shield_value
from fudge_combat.engine.rulesets.fudge.wounding import tech_difference

# The options it takes are `fast_common`'s FIXED, READ, AT_OPENING and UNREAD.
POLICIES = frozenset({"plain", "reckless", "sensible"})  # sensible: only for a fighter without points


def options_eligible(options: RuleOptions) -> bool:
    """The options are ones the fast path was proven on (see the module's docstring)."""
    default = _DEFAULTS
    for name in options.__struct_fields__:
        value = getattr(options, name)
        if name in FIXED:
            if value != FIXED[name]:
                return False
        elif name not in READ and name not in AT_OPENING and name not in UNREAD:
            if value != getattr(default, name):
                return False
    return True


_DEFAULTS = RuleOptions()


class Side(Struct, frozen=True):
    """One fighter of a duel, everything constant over the fight worked out by the engine's own functions."""

    name: str
    level: int  # attack trait level and the modifiers every blow brings (foe's shield, weapon size, all-out)
    plus: bool  # F-FANCY-2: the attack trait is written with a plus level
    static: bool  # F-NPC-1: no roll
    posture: int  # F-TAC-1: offense = result + posture, defense = result - posture
    offense: bool  # F-MOD-6: all-out offense declared every round
    penalties: tuple[int, ...]  # F-MOD-1: the wound penalty at each track level able to act
    rows: tuple[int, ...]  # boxes per wound level, Scratch first
    min_hit: int  # F-HIT-1: the least result that hits the foe
    factor: int  # F-DMG-3: damage factor against the foe


class Duel(Struct, frozen=True):
    """A duel the fast path plays: both sides and the options it reads."""

    first: Side
    second: Side
    max_rounds: int
    postures: bool
    offense_damage: int
    loser_bonus: int
    thresholds: tuple[int, ...]
    graze_table: tuple[int, int]
    graze_cap: int
    damage_roll: str
    graze_damage_roll: bool
    weight: int
    scratch_cap: bool
    gm_death: bool

    def play(self, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
        return play(self, seed)


def plan(setup: Any, opening: Any) -> Duel | FastDuel | None:
    """The duel to play fast, or None when any part of the setup is outside what this path was proven on.
    A fight in phase order is `fast_phases`'s to plan."""
    state = opening.state
    options = state.options
    if options.pace == "alternating" and options.initiative.startswith("phases"):  # turns in phase order
        from fudge_combat.engine.rulesets.fudge import fast_phases

        return fast_phases.plan(setup, opening)
    if not options_eligible(options) or len(setup.entrants) != 2 or len(state.combatants) != 2:
        return None
    first, second = sorted(state.combatants.values(), key=lambda c: c.joined_seq)
    if first.side == second.side:
        return None
    policies = [entrant.policy or setup.policy for entrant in setup.entrants]
    for who, policy in zip((first, second), policies):
        if not _fighter_eligible(who, policy):
            return None
    reckless = [policy == "reckless" for policy in policies]
    return Duel(_side(state, first, second, reckless[0]), _side(state, second, first, reckless[1]),
                setup.max_rounds, options.tactics == "postures", options.all_out_offense_damage,
                options.all_out_loser_bonus, tuple(options.wound_thresholds), tuple(options.graze_table),
                options.graze_cap, options.damage_roll, options.graze_damage_roll, options.relative_degree_weight,
                options.scratch_cap, options.death_rule == "gm")


def _fighter_eligible(who: Combatant, policy: str) -> bool:
    return policy in POLICIES and (policy != "sensible" or who.fudge_points <= 0) and fighter_eligible(who)


def _side(state: Any, who: Combatant, foe: Combatant, reckless: bool) -> Side:
    """`engine.rulesets.fudge.sides.side_for` for an exchange (both roles `attack`), less what changes from blow to blow."""
    options = state.options
    combat = who.fighter.sheet.combat
    trait, level, _ = who.fighter.trait(combat.attack if combat else "Brawling", options)
    level -= shield_value(foe, options)  # F-MOD-3: the foe's shield (an exchange is an attack both ways)
    level += sum(m.value for m in weapon_size_modifiers(state, who, foe))  # F-MOD-4
    posture, offense = 0, False
    if reckless and options.tactics == "postures":
        posture = 2
    elif reckless:
        offense = True
        level += options.all_out_offense_skill
    tech = tech_difference(who.fighter, foe.fighter, options)
    factor = (offensive_factor(who.fighter, options) - defensive_factor(foe.fighter, who.fighter, options)
              + (tech or 0))
    return Side(who.name, level, trait in who.fighter.plus, options.npc_static and who.fighter.sheet.kind == "npc",
                posture, offense, penalties(options, who.track.pain), tuple(who.boxes),
                min_hit_for(state, who, foe, None), factor)


def play(duel: Duel, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
    """(winner: 0, 1 or None for a draw; rounds; each fighter's final wound) of the fight with this seed."""
    dice = Dice(seed, stream_of(seed))
    a, b = duel.first, duel.second
    filled = ([0] * len(a.rows), [0] * len(b.rows))
    levels = [0, 0]  # each track's level: the highest marked row, DEAD (6) once dead
    draw = rounds = 0
    while rounds < duel.max_rounds:
        rounds += 1  # F-PACE-2: every exchange of a duel starts a round
        even = rounds >= 2 and rounds % 2 == 0
        if a.static:
            roll_a = 0
        else:
            roll_a = dice.total(draw, 4)
            draw += 1
        if b.static:
            roll_b = 0
        else:
            roll_b = dice.total(draw, 4)
            draw += 1
        result_a = a.level + roll_a + a.penalties[levels[0]] + (a.plus and even)
        result_b = b.level + roll_b + b.penalties[levels[1]] + (b.plus and even)
        hits: list[tuple[Side, int, int, int]] = []  # attacker, defender index, relative degree, bonus
        if duel.postures:  # F-TAC-4: each side's offense against the other's defense
            rd = result_a + a.posture - (result_b - b.posture)
            if rd >= 1 and result_a + a.posture >= a.min_hit:
                hits.append((a, 1, rd, 0))
            rd = result_b + b.posture - (result_a - a.posture)
            if rd >= 1 and result_b + b.posture >= b.min_hit:
                hits.append((b, 0, rd, 0))
        else:  # F-MEL-2, F-MOD-6
            rd = result_a - result_b
            if rd == 0:
                if a.offense != b.offense:  # one all-out attacker ties: he loses
                    winner, loser, result = (b, 0, result_b) if a.offense else (a, 1, result_a)
                    if result >= winner.min_hit:
                        hits.append((winner, loser, 0, duel.loser_bonus))
            else:
                winner, loser, result, beaten = (a, 1, result_a, b) if rd > 0 else (b, 0, result_b, a)
                if result >= winner.min_hit:
                    bonus = (duel.offense_damage if winner.offense else 0) + (duel.loser_bonus if beaten.offense else 0)
                    hits.append((winner, loser, abs(rd), bonus))
        for attacker, defender, rd, bonus in hits:
            own, foe = (roll_a, roll_b) if defender == 1 else (roll_b, roll_a)
            level, draw = strike(duel, attacker, rd, bonus, own, foe, dice, draw)
            if level > 0 and levels[defender] != 6:
                rows = (a, b)[defender].rows
                levels[defender] = place(duel, rows, filled[defender], level)
        if levels[0] >= INCAPACITATED or levels[1] >= INCAPACITATED:
            break
    able = (levels[0] < INCAPACITATED, levels[1] < INCAPACITATED)
    won = None if able[0] == able[1] else (0 if able[0] else 1)
    return won, rounds, (LEVELS[levels[0]], LEVELS[levels[1]])
