"""Two dice's sums (a triangle of chances) summed as one die's window over another's in the plain sweep.

``layout.triangle_width`` recognises adds s .. s + 2w - 2 with chances p (1, 2 .. w .. 2, 1);
``rollhold._plain_sweep`` then sums them by three running sums instead of one by one. The values
must be those of the sum one by one (the same table with the triangle switched off).
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.solve.layout import triangle_width
from pigdice.solve.solver import solve_values
from pigdice.solve.tables import effect_table
from pigdice.solve.two import rollhold


@pytest.mark.parametrize(("name", "width"), [("two-dice-pig", 5), ("piggy-six", 5), ("pig", 0), ("big-pig", 0)])
def test_two_dices_sums_are_a_triangle_and_others_are_not(name: str, width: int) -> None:
    # Two-Dice Pig: 2-6 twice (4 .. 12); Piggy Six: 1-5 twice (2 .. 10); Big Pig doubles its doubles
    assert effect_table(find_variant(name)).triangle_width == width


def test_a_triangle_needs_odd_consecutive_amounts_and_its_exact_shape() -> None:
    assert triangle_width([2, 3, 4], [0.25, 0.5, 0.25]) == 2  # two coins' sums
    assert triangle_width([2, 3, 4], [0.25, 0.5, 0.24]) == 0
    assert triangle_width([2, 3, 5], [0.25, 0.5, 0.25]) == 0
    assert triangle_width([2, 3, 4, 5], [0.1, 0.2, 0.2, 0.1]) == 0
    assert triangle_width([4], [0.5]) == 0


@pytest.mark.parametrize("name", ["two-dice-pig", "piggy-six"])
def test_the_triangles_running_sums_give_the_values_of_the_sum_one_by_one(name: str) -> None:
    variant = find_variant(name, goal=40).with_endgame("first-to-goal")
    table = effect_table(variant)
    by_triangle = np.full((40, 40), 0.5)
    one_by_one = np.full((40, 40), 0.5)
    solve_values(variant, table, [by_triangle], rollhold.FIRST_TO_GOAL_ENDS)
    solve_values(variant, table._replace(triangle_width=0), [one_by_one], rollhold.FIRST_TO_GOAL_ENDS)
    assert np.abs(by_triangle - one_by_one).max() < 1e-14
