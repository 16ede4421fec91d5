"""Two dice's sums (a triangle of chances) summed as one die's window over another's in the plain sweep.

``layout.triangle_layout`` recognises adds s .. s + 2w - 2 with chances p (1, 2 .. w .. 2, 1),
plus a few corrections (Big Pig's doubles);
``rollhold._plain_sweep`` then sums them by three running sums instead of one by one. The values
must be those of the sum one by one (the same table with the triangle switched off).
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.solve.layout import triangle_layout
from pigdice.solve.solver import solve_values
from pigdice.solve.tables import effect_table
from pigdice.solve.two import rollhold


@pytest.mark.parametrize(("name", "width"), [("two-dice-pig", 5), ("piggy-six", 5), ("pig", 0), ("pass-the-pigs", 0)])
def test_two_dices_sums_are_a_triangle_and_others_are_not(name: str, width: int) -> None:
    # Two-Dice Pig: 2-6 twice (4 .. 12); Piggy Six: 1-5 twice (2 .. 10); no corrections
    table = effect_table(find_variant(name))
    assert table.triangle_width == width
    assert table.corrections.shape == (0,)


def test_big_pigs_adds_are_two_dice_pigs_triangle_with_its_doubles_corrected() -> None:
    # doubles count twice: 2-2, 3-3, 5-5 leave 4, 6, 10 for 8, 12, 20 (the sums 8 and 12 cancel),
    # 4-4 and 6-6 give 16 and 24: the 4-12 triangle less 4, 6, 10, plus 16, 20, 24, at 1/36 each
    table = effect_table(find_variant("big-pig-reset"))
    assert (table.triangle_width, table.triangle_start) == (5, 4)
    assert table.triangle_chance == pytest.approx(1 / 36)
    assert list(table.corrections) == [4, 6, 10, 16, 20, 24]
    assert list(table.correction_chances * 36) == pytest.approx([-1, -1, -1, 1, 1, 1])


def test_a_triangle_is_taken_only_where_it_saves_adds() -> None:
    assert triangle_layout([4, 5, 6], [0.25, 0.5, 0.25])[0] == 0  # three adds: a triangle saves nothing
    width, start, chance, corrections, _ = triangle_layout([3, 4, 5, 6, 7, 9], [0.1, 0.2, 0.3, 0.2, 0.1, 0.1])
    assert (width, start, chance, corrections) == (3, 3, 0.1, [9])


def test_a_pure_triangle_needs_no_corrections_and_a_lopsided_one_is_no_triangle() -> None:
    ninth = 1 / 9
    assert triangle_layout([2, 3, 4, 5, 6], [ninth, 2 * ninth, 3 * ninth, 2 * ninth, ninth]) == (3, 2, ninth, [], [])
    assert triangle_layout([2, 3, 4, 5, 6], [0.1, 0.2, 0.3, 0.25, 0.15])[0] == 0


@pytest.mark.parametrize("name", ["two-dice-pig", "piggy-six", "big-pig-reset", "piggy-sevens"])
def test_the_triangles_running_sums_give_the_values_of_the_sum_one_by_one(name: str) -> None:
    variant = find_variant(name, goal=40).with_endgame("first-to-goal")
    table = effect_table(variant)
    by_triangle = np.full((40, 40), 0.5)
    one_by_one = np.full((40, 40), 0.5)
    solve_values(variant, table, [by_triangle], rollhold.FIRST_TO_GOAL_ENDS)
    solve_values(variant, table._replace(triangle_width=0), [one_by_one], rollhold.FIRST_TO_GOAL_ENDS)
    assert np.abs(by_triangle - one_by_one).max() < 1e-13
