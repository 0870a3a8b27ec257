"""The batch kernel for a Fate duel at exchange pace, as `engine.rulesets.fudge.batch` is for a Fudge duel.

Speed code (`projections.speed`): `fudge sim --batch` runs it (`sim.vector`). It plays exactly the duels
the fast path takes (`engine.rulesets.fate.fast.plan`) and restates `engine.rulesets.fate.fast.play`
exchange for exchange with arrays, one element a fight, asking its dice source for each fight's two
4dF rolls in the engine's order (the fighter who joined first, then the other). Fed the same dice,
it gives every fight the fast path's winner, exchanges and worst boxes (tests/test_sim_batch.py).
Rules restated here, as in `fast`: FT-PACE, FT-OUT, FT-SIMPLE, FT-TRACK-2, FT-TRACK-3.

Importing this module needs numpy (the `batch` extra).
"""

from __future__ import annotations

import numpy as np

from fudge_combat.engine.rulesets.fate.fast import CLIPPED, HURT, INJURED, LEVELS, TAKEN_OUT, FateDuel, plan
from fudge_combat.engine.rulesets.fudge.batch import Ints, Outcomes, Rolls

__all__ = ["LEVELS", "plan", "play_many"]

_BOX = np.arange(1, TAKEN_OUT + 1)  # the boxes by severity: Clipped (1) to Taken Out (4)


def play_many(duel: FateDuel, fights: int, dice: Rolls) -> Outcomes:
    """Fights 0..fights-1 of this duel, each with its dice from `dice`: `engine.rulesets.fate.fast.play` for
    each, all at once; the fights still on are kept together. Levels are indexes into `LEVELS`."""
    a, b = duel.first, duel.second
    capacity = np.array(duel.capacity)
    winner = np.full(fights, -1, np.int8)
    rounds = np.full(fights, duel.max_rounds, np.int64)
    final = np.zeros((fights, 2), np.int8)
    ids: Ints = np.arange(fights, dtype=np.int64)
    marks = np.zeros((fights, 2, TAKEN_OUT + 1), np.int64)  # marks per box, by severity (index 0 unused)
    clipped = np.zeros((fights, 2), np.int64)  # FT-TRACK-3: a Clipped box waits for the next roll
    for exchange in range(1, duel.max_rounds + 1):
        if not len(ids):
            break
        results = []
        for index, side in enumerate((a, b)):
            own = marks[:, index]
            results.append(side.level + dice.roll(ids, 4) - (own[:, HURT] > 0) - own[:, INJURED] - clipped[:, index])
        clipped[:] = 0  # paid by this roll
        margin = results[0] - results[1]
        # FT-OUT: the winner's margin (a tie: a Scratch both ways), plus his harm under simple arms (FT-SIMPLE)
        for loser, takes, read in ((1, margin >= 0, np.maximum(margin, 0) + a.harm),
                                   (0, margin <= 0, np.maximum(-margin, 0) + b.harm)):
            track = marks[:, loser]
            severity = np.zeros(len(ids), np.int64)
            for box, least in enumerate(duel.steps, start=1):  # `engine.rulesets.fate.tables.outcome_for`
                severity = np.where(read >= least, box, severity)
            hit = np.flatnonzero(takes & (track[:, TAKEN_OUT] == 0) & (severity > 0))
            if not len(hit):
                continue
            room = (_BOX == TAKEN_OUT) | (track[hit, 1:] < capacity)  # FT-TRACK-2: the next box with room
            box = (room & (_BOX >= severity[hit, None])).argmax(axis=1) + 1
            marks[hit, loser, box] += 1
            clipped[hit, loser] = box == CLIPPED
        out = marks[:, :, TAKEN_OUT] > 0
        over = out[:, 0] | out[:, 1]
        if over.any():
            done = ids[over]
            rounds[done] = exchange
            final[done] = _worst(marks[over])
            winner[done] = np.where(out[over, 0] == out[over, 1], -1, np.where(out[over, 0], 1, 0))
            keep = ~over
            ids, marks, clipped = ids[keep], marks[keep], clipped[keep]
    final[ids] = _worst(marks)  # the exchange cap: nobody taken out, a draw
    return Outcomes(winner, rounds, final[:, 0].copy(), final[:, 1].copy())


def _worst(marks: Ints) -> Ints:
    """Each fighter's most severe marked box (0: none), one fight a line."""
    return np.max(np.where(marks[:, :, 1:] > 0, _BOX, 0), axis=2)
