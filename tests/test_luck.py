"""Luck and fairness (projections.luck, projections.report): exact percentiles of rolls and Pearson's
chi-square of Fudge dice faces (C-DICE-1: -, blank, + a third each), checked against values computed by
hand, and the report's counts checked against a log played with typed dice."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, strategies as st

from fudge_combat.projections.luck import (chi_square, face_counts, fudge_distribution, luck_index, p_value_2dof, percentile,
                              roll_luck)
from tests.fuzzing import fuzz


def test_4df_distribution_is_the_known_one() -> None:
    """4dF: 1, 4, 10, 16, 19, 16, 10, 4, 1 ways out of 81 for -4..+4 (C-DICE-1)."""
    dist = fudge_distribution(4)
    assert [dist[total] * 81 for total in range(-4, 5)] == [1, 4, 10, 16, 19, 16, 10, 4, 1]


def test_percentiles_of_4df_by_hand() -> None:
    """P(X < x) + P(X = x) / 2, by hand from the 81 ways."""
    dist = fudge_distribution(4)
    assert percentile(0, dist) == Fraction(1, 2)  # (1+4+10+16) / 81 + 19/162 = 62/162 + 19/162 = 81/162
    assert percentile(1, dist) == Fraction(58, 81)  # 50/81 + 8/81
    assert percentile(4, dist) == Fraction(161, 162)  # 80/81 + 1/162
    assert percentile(-4, dist) == Fraction(1, 162)
    assert roll_luck((1, 1, 0, -1)) == Fraction(58, 81)


def test_percentile_of_other_dice() -> None:
    """3dF (classic initiative, 27 ways) and one d6 (a min-mid-max damage die)."""
    assert roll_luck((1, 1, 1)) == Fraction(53, 54)  # 26/27 below, 1/27 the same
    assert roll_luck((0, 0, 0)) == Fraction(1, 2)
    assert roll_luck((3,), sides=6) == Fraction(5, 12)  # 2/6 below + (1/6)/2
    assert roll_luck((2, 5), sides=6) is None  # several d6: no distribution kept


def test_luck_index_is_the_mean_percentile() -> None:
    assert luck_index([Fraction(1, 2), Fraction(58, 81)]) == (0.5 + 58 / 81) / 2
    assert luck_index([]) is None


def test_chi_square_by_hand() -> None:
    """12 faces, 4 expected each: (2-4)²/4 + (4-4)²/4 + (6-4)²/4 = 2; p = exp(-1)."""
    counts = face_counts([-1, -1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    assert counts == (2, 4, 6)
    assert chi_square(counts) == 2.0
    assert p_value_2dof(2.0) == math.exp(-1)
    assert chi_square((10, 10, 10)) == 0.0 and p_value_2dof(0.0) == 1.0
    assert chi_square((30, 0, 0)) == 60.0  # (30-10)²/10 + 10 + 10


def test_p_value_matches_the_known_critical_value() -> None:
    """Chi-square with 2 degrees of freedom: 5.991 is its 5% critical value (any table)."""
    assert abs(p_value_2dof(5.991) - 0.05) < 1e-4


@fuzz(60)
@given(st.integers(min_value=1, max_value=8), st.data())
def test_percentiles_are_symmetric_and_increasing(dice: int, data: st.DataObject) -> None:
    """Fudge dice are symmetric: a total's luck and its opposite's add to 1; a higher total is luckier."""
    dist = fudge_distribution(dice)
    assert sum(dist.values()) == 1
    total = data.draw(st.integers(min_value=-dice, max_value=dice - 1))
    assert percentile(total, dist) + percentile(-total, dist) == 1
    assert percentile(total, dist) < percentile(total + 1, dist)
