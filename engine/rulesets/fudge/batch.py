"""The batch kernel: many Fudge duels played at once with numpy, one array element a fight.

Speed code (`projections.speed`): `fudge sim --batch` runs it (`sim.vector`); without the option the
simulator plays each fight with the engine's dice (`engine.rulesets.fudge.fast`, or the engine).

Why: the fast path plays a duel in plain Python, a few microseconds a round, most of it in the
HMAC of each roll. A large run (10^6 fights and more) asks only for the distribution of outcomes;
played as arrays, every fight of a batch goes through one round at once, and the dice come from a
keyed generator made for the batch (`sim.vector.KeyedDice`), not from one HMAC a roll.

It plays exactly the duels the fast path takes (`engine.rulesets.fudge.fast.plan` makes the `Duel`:
the same options, sheets and policies, each fighter's numbers worked out by the engine's own
functions), and restates `engine.rulesets.fudge.fast.play` round for round with arrays, asking its
dice source for each fight's draws in the order the engine rolls them: the attacker who joined first,
then the second, then each blow's damage roll, first fighter's blow first. Fed the same dice, it gives
every fight the fast path's winner, rounds and final wounds (tests/test_sim_batch.py feeds it the
engine's own dice, fight for fight). Rules restated here, as in `fast`: F-PACE-2, F-MEL-1, F-MEL-2,
F-HIT-1, F-MOD-1, F-MOD-3, F-MOD-4, F-MOD-6, F-TAC-1, F-TAC-4, F-NPC-1, F-FANCY-2, F-DMG-3, F-DMG-4,
F-GRAZE-1, F-GRAZE-2, F-GRAZE-3, F-DROLL, F-WND-1, F-WND-3, F-WND-5, F-WND-6.

Importing this module needs numpy (the `batch` extra): the engine never imports it otherwise.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from msgspec import Struct
from numpy.typing import NDArray

from fudge_combat.engine.kernel.wounds import DEAD, INCAPACITATED, LEVELS, NEAR_DEATH, SCRATCH, VERY_HURT
from fudge_combat.engine.rulesets.fudge import fast
from fudge_combat.engine.rulesets.fudge.fast import Duel, Side

__all__ = ["LEVELS", "Outcomes", "Rolls", "plan", "play_many"]

Ints = NDArray[np.int64]


def plan(setup: Any, opening: Any) -> Duel | None:
    """The simultaneous duel the fast path would play, or None: a fight in phase order has a fast path of
    its own (`fast_phases`), not a batch kernel."""
    duel = fast.plan(setup, opening)
    return duel if isinstance(duel, Duel) else None


class Rolls(Protocol):
    """A batch's dice: for the fights `fights` (their numbers in the batch, ascending), each fight's next
    draw of `count` Fudge dice, summed. Each fight's draws are asked for in the engine's order."""

    def roll(self, fights: Ints, count: int) -> Ints: ...


class Outcomes(Struct, frozen=True):
    """Each fight's winner (0, 1, or -1 for a draw), rounds fought, and each fighter's final track level
    (`engine.kernel.wounds.LEVELS`: 0 Undamaged .. 6 Dead)."""

    winner: NDArray[np.int8]
    rounds: Ints
    first: NDArray[np.int8]
    second: NDArray[np.int8]


_ROW = np.arange(1, NEAR_DEATH + 1)  # the track's rows, Scratch (1) to Near Death (5)


def play_many(duel: Duel, fights: int, dice: Rolls) -> Outcomes:
    """Fights 0..fights-1 of this duel, each with its dice from `dice`: `engine.rulesets.fudge.fast.play`
    for each, all at once. The fights still on are kept together; a fight that ends leaves the arrays."""
    a, b = duel.first, duel.second
    winner = np.full(fights, -1, np.int8)
    rounds = np.full(fights, duel.max_rounds, np.int64)
    final = np.zeros((fights, 2), np.int8)
    ids: Ints = np.arange(fights, dtype=np.int64)  # the fights still on, as numbers in the batch
    levels = np.zeros((fights, 2), np.int64)  # each track's level: the highest marked row, DEAD once dead
    filled = np.zeros((fights, 2, NEAR_DEATH), np.int64)  # boxes marked per row
    penalties = (np.array(a.penalties), np.array(b.penalties))
    rows = (np.array(a.rows), np.array(b.rows))
    for round_ in range(1, duel.max_rounds + 1):
        if not len(ids):
            break
        even = round_ >= 2 and round_ % 2 == 0  # F-FANCY-2
        roll_a = np.zeros(len(ids), np.int64) if a.static else dice.roll(ids, 4)
        roll_b = np.zeros(len(ids), np.int64) if b.static else dice.roll(ids, 4)
        result_a = a.level + roll_a + penalties[0][levels[:, 0]] + int(a.plus and even)
        result_b = b.level + roll_b + penalties[1][levels[:, 1]] + int(b.plus and even)
        blows = _blows(duel, result_a, result_b)
        for attacker, defender, hit, rd, bonus in blows:
            own, foe = (roll_a, roll_b) if defender == 1 else (roll_b, roll_a)
            where = np.flatnonzero(hit)
            if not len(where):
                continue
            level = _strike(duel, attacker, rd[where], bonus[where], own[where], foe[where], dice, ids[where])
            wounds = (level > 0) & (levels[where, defender] != DEAD)
            marked = where[wounds]
            if len(marked):
                track = filled[marked, defender]  # a copy (fancy indexing): marked, then written back
                levels[marked, defender] = _place(duel, rows[defender], track, level[wounds])
                filled[marked, defender] = track
        down = levels >= INCAPACITATED
        over = down[:, 0] | down[:, 1]
        if over.any():
            done = ids[over]
            rounds[done] = round_
            final[done] = levels[over]
            winner[done] = np.where(down[over, 0] == down[over, 1], -1, np.where(down[over, 0], 1, 0))
            keep = ~over
            ids, levels, filled = ids[keep], levels[keep], filled[keep]
    final[ids] = levels  # the round cap: both still able, a draw
    return Outcomes(winner, rounds, final[:, 0].copy(), final[:, 1].copy())


def _blows(duel: Duel, result_a: Ints, result_b: Ints) -> list[tuple[Side, int, NDArray[np.bool_], Ints, Ints]]:
    """This round's blows, first fighter's first: (attacker, defender index, which fights it lands in,
    relative degree, damage bonus), as `fast.play` finds them."""
    a, b = duel.first, duel.second
    zero = np.zeros(len(result_a), np.int64)
    if duel.postures:  # F-TAC-4: each side's offense against the other's defense
        rd_a = result_a + a.posture - (result_b - b.posture)
        rd_b = result_b + b.posture - (result_a - a.posture)
        return [(a, 1, (rd_a >= 1) & (result_a + a.posture >= a.min_hit), rd_a, zero),
                (b, 0, (rd_b >= 1) & (result_b + b.posture >= b.min_hit), rd_b, zero)]
    rd = result_a - result_b  # F-MEL-2, F-MOD-6
    hit_a = (rd > 0) & (result_a >= a.min_hit)
    hit_b = (rd < 0) & (result_b >= b.min_hit)
    bonus_a = np.full(len(rd), (duel.offense_damage if a.offense else 0) + (duel.loser_bonus if b.offense else 0))
    bonus_b = np.full(len(rd), (duel.offense_damage if b.offense else 0) + (duel.loser_bonus if a.offense else 0))
    rd_a, rd_b = rd, -rd
    if a.offense != b.offense:  # one all-out attacker ties: he loses, the other hits with the loser's bonus
        tie = rd == 0
        if a.offense:
            tie_hit = tie & (result_b >= b.min_hit)
            hit_b = hit_b | tie_hit
            bonus_b = np.where(tie, duel.loser_bonus, bonus_b)
        else:
            tie_hit = tie & (result_a >= a.min_hit)
            hit_a = hit_a | tie_hit
            bonus_a = np.where(tie, duel.loser_bonus, bonus_a)
    return [(a, 1, hit_a, rd_a, bonus_a), (b, 0, hit_b, rd_b, bonus_b)]


def _strike(duel: Duel, attacker: Side, rd: Ints, bonus: Ints, attack_roll: Ints, defense_roll: Ints,
            dice: Rolls, ids: Ints) -> Ints:
    """`fast._strike` for the blows of many fights: each blow's wound level (the damage rolls drawn)."""
    factor = attacker.factor
    graze = rd == 1
    mode = duel.damage_roll
    rolls = mode != "none" and mode != "parity"
    needs = ~graze if not duel.graze_damage_roll else np.ones(len(rd), np.bool_)
    needs = needs if mode != "none" else np.zeros(len(rd), np.bool_)
    roll = np.zeros(len(rd), np.int64)
    parity = np.zeros(len(rd), np.int64)
    if rolls:
        drawn = np.flatnonzero(needs)
        if len(drawn):
            roll[drawn] = dice.roll(ids[drawn], 1 if mode.startswith("1dF") else 4)
    elif mode == "parity":
        parity = np.where(needs, (attack_roll % 2 == 0).astype(np.int64) - (defense_roll % 2 == 0), 0)
    rolled = needs & rolls  # a roll was drawn for this blow
    # F-GRAZE-1, F-GRAZE-2, F-GRAZE-3
    scratch_at, hurt_at = duel.graze_table
    grazed = np.full(len(rd), 0 if factor < scratch_at else 1 if factor < hurt_at else 2, np.int64) + (bonus > 0)
    moved = np.where(rolled, roll, parity)
    grazed = np.clip(grazed + np.sign(moved), 0, duel.graze_cap)
    # F-DMG-3, F-DROLL, F-DMG-4
    calculated = rd * duel.weight + factor + bonus + parity
    if mode == "4dF_limited":
        damage = np.where(calculated > 0, np.maximum(1, calculated + np.minimum(roll, calculated)),
                          np.maximum(0, np.minimum(calculated + roll, 1)))
        damage = np.where(rolled, damage, np.maximum(0, calculated))
    elif mode in ("4dF_free", "1dF_damage"):
        damage = np.maximum(0, calculated + np.where(rolled, roll, 0))
    else:
        damage = np.maximum(0, calculated)
    level = np.zeros(len(rd), np.int64)
    for index, lowest in enumerate(duel.thresholds, start=1):  # the last threshold reached, as `level_for_damage`
        level = np.where(damage >= lowest, index, level)
    if mode == "1dF_level":
        level = np.where(rolled & (level > 0), np.clip(level + roll, 0, NEAR_DEATH), level)
    return np.where(graze, grazed, level)


def _place(duel: Duel, rows: Ints, track: Ints, level: Ints) -> Ints:
    """`fast._place` for many fights' tracks (`track`: boxes marked per row, one fight a line, changed in
    place): a box marked at `level` or the first open row above it (up to Very Hurt for a capped Scratch,
    F-WND-3, F-WND-5); each track's level after the mark, DEAD when no box was open (F-WND-6, unless the
    GM rules on death)."""
    top = NEAR_DEATH
    ceiling = np.where((level == SCRATCH) & duel.scratch_cap, VERY_HURT, top)
    open_ = (track < rows) & (_ROW >= level[:, None]) & (_ROW <= ceiling[:, None])
    found = open_.any(axis=1)
    track[np.flatnonzero(found), open_.argmax(axis=1)[found]] += 1
    highest = np.max(np.where(track > 0, _ROW, 0), axis=1)
    dies = ~found & ~((ceiling < top) | duel.gm_death)
    return np.where(dies, DEAD, highest)
