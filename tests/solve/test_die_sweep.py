"""The die sweep (``diesweep._die_sweep``): one die whose adds run from 2 up takes it, with the plain sweep's values.

It is the plain sweep (``rollhold._plain_sweep``) without the checks of the options such a roll
never has, in the same order of operations, so its values, rows and bounds are the plain sweep's
bit for bit; which tables take it is ``die_run_of``'s to say.
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.rules.designed import RuleSet
from pigdice.rules.variant import Variant
from pigdice.solve.solver import solve_values
from pigdice.solve.tables import effect_table
from pigdice.solve.two import rollhold
from pigdice.solve.two.bundles import FIRST_TO_GOAL_ENDS, game_of
from pigdice.solve.two.diesweep import DieRun, _die_sweep, die_levels, die_run_of

GOAL = 30
# one die, its 1 bad: Pig; an eight-sided die; a six-sided one whose 1 loses the whole score (passes repeat)
DIE_GAMES = {
    "pig": find_variant("pig", goal=GOAL),
    "d8": RuleSet(dice=1, sides=8, goal=GOAL).to_variant(),
    "reset": RuleSet(dice=1, single_bad="reset", goal=GOAL).to_variant(),
}


def test_one_die_whose_1_is_bad_takes_the_die_sweep() -> None:
    assert die_run_of(effect_table(DIE_GAMES["pig"])) == DieRun(6, pytest.approx(1 / 6), pytest.approx(1 / 6), 0.0)
    assert die_run_of(effect_table(DIE_GAMES["d8"])) == DieRun(8, pytest.approx(1 / 8), pytest.approx(1 / 8), 0.0)
    assert die_run_of(effect_table(DIE_GAMES["reset"])) == DieRun(6, pytest.approx(1 / 6), 0.0, pytest.approx(1 / 6))


@pytest.mark.parametrize(
    "variant",
    [
        RuleSet(dice=1, bad_face=6, goal=GOAL).to_variant(),  # adds 1-5: the window starts at 1
        RuleSet(dice=1, bad_face=3, goal=GOAL).to_variant(),  # adds 1, 2 and 4-6: singles beside the window
        find_variant("two-dice-pig", goal=GOAL),  # a triangle
        find_variant("pass-the-pigs", goal=GOAL),  # singles
        find_variant("pig-dice", goal=GOAL),  # the general sweep
        find_variant("hog-reroll", goal=GOAL),  # the chain sweep
    ],
    ids=["bad-6", "bad-3", "two-dice-pig", "pass-the-pigs", "pig-dice", "hog-reroll"],
)
def test_other_rolls_do_not(variant: Variant) -> None:
    assert die_run_of(effect_table(variant.with_endgame("first-to-goal"))) is None


def test_other_endings_take_the_general_sweeps_levels() -> None:
    equal = find_variant("pig", goal=GOAL).with_endgame("equal-turns")
    ends = rollhold.Ends(np.full(8, 0.5), np.full(8, 0.5), 1 / 6, 0)  # a last turn: the general sweep
    game = game_of(GOAL, effect_table(equal), ends)
    mine, plain = np.full((GOAL, GOAL), 0.5), np.full((GOAL, GOAL), 0.5)
    die_levels(mine, mine, 2 * GOAL - 2, 0, game, rollhold.level_rows(game), True, True)
    rollhold.solve_levels(plain, plain, 2 * GOAL - 2, 0, game, rollhold.level_rows(game), True, True)
    assert np.array_equal(mine, plain)


@pytest.mark.parametrize("name", DIE_GAMES)
def test_the_die_sweep_gives_the_plain_sweeps_turn_bit_for_bit(name: str) -> None:
    table = effect_table(DIE_GAMES[name])
    game = game_of(GOAL, table)
    die = die_run_of(table)
    rows = rollhold.level_rows(game)
    V = np.random.default_rng(7).random((GOAL, GOAL))
    none = rollhold.no_records()
    for i, j, x in ((0, 0, 0.5), (0, 12, 0.31), (7, 3, 0.77), (GOAL - 1, 4, 0.2), (15, GOAL - 1, 0.9)):
        plain_c, plain_d = rows.c[i].copy(), rows.d[i].copy()
        die_c, die_d = rows.c[i].copy(), rows.d[i].copy()
        plain = rollhold._plain_sweep(i, j, V, x, game, plain_c, plain_d, rollhold.READONLY_NO_FIXED, *none, None)
        mine = _die_sweep(i, j, V, x, GOAL, die, die_c, die_d)
        assert mine == plain, (i, j)
        assert np.array_equal(die_c, plain_c) and np.array_equal(die_d, plain_d), (i, j)


@pytest.mark.parametrize("name", DIE_GAMES)
def test_a_solve_by_the_die_sweep_has_the_plain_sweeps_values_bit_for_bit(name: str) -> None:
    variant = DIE_GAMES[name]
    table = effect_table(variant)
    game = game_of(GOAL, table)
    plain = np.full((GOAL, GOAL), 0.5)
    die = np.full((GOAL, GOAL), 0.5)
    passes = 0
    while True:  # full passes, as the solver's first ones (its resets' settling aside)
        passes += 1
        before = die.copy()
        rows = rollhold.level_rows(game)
        rollhold.solve_levels(plain, plain, 2 * GOAL - 2, 0, game, rows, passes == 1, True)
        die_levels(die, die, 2 * GOAL - 2, 0, game, rows, passes == 1, True)
        assert np.array_equal(die, plain), passes
        if not table.has_reset or np.abs(die - before).max() < 1e-13:
            break
    assert passes == 1 if not table.has_reset else 1 < passes < 200
    solved = np.full((GOAL, GOAL), 0.5)
    solve_values(variant, table, [solved], FIRST_TO_GOAL_ENDS)  # the solver itself agrees to its tolerance
    assert np.abs(solved - die).max() < 1e-12
