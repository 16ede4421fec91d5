"""Passes after a spread is recorded sweep only the pairs whose choices may flip (``holdspread.check_pair``).

A turn's gap is the smallest difference between rolling and holding at a total it reaches; a
checked pass takes a pair's values from its spread when what the pair reads moved too little
to close its gaps. Its values must be a full pass's from the same starting values, whatever
the reset values moved by, and each gap must be the one read off the turn's own row.
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.solve.solver import solve_uncached
from pigdice.solve.tables import effect_table
from pigdice.solve.two import holdspread, rollhold

RESETS = ["two-dice-pig", "big-pig-reset", "piggy-six"]
GOAL = 40


def _recorded(name: str) -> tuple[np.ndarray, rollhold.Game, holdspread.Spread, holdspread.Checks]:
    """Return the solved values of ``name`` to ``GOAL``, its game, and a spread and checks recorded at them."""
    variant = find_variant(name, goal=GOAL).with_endgame("first-to-goal")
    table = effect_table(variant)
    values = solve_uncached(variant).values
    game = rollhold.game_of(GOAL, table)
    spread = holdspread.new_spread(GOAL, table)
    recorded = values.copy()
    rollhold.solve_levels(recorded, recorded, 2 * GOAL - 2, 0, game, rollhold.level_rows(game), False, True, spread)
    return recorded, game, spread, holdspread.new_checks(recorded, values[:, 0])


@pytest.mark.parametrize("name", RESETS)
def test_each_gap_is_the_smallest_gap_between_rolling_and_holding_where_the_turn_goes(name: str) -> None:
    values, game, spread, _ = _recorded(name)
    for i, j in [(0, 0), (0, 17), (5, 30), (22, 9), (39, 39), (12, 12)]:
        _, act, hold, roll = rollhold.turn_row(values, i, j, GOAL, game.table, rollhold.NO_FIXED, game.ends, 0)
        reached = np.zeros(GOAL - i + 30, dtype=bool)
        reached[0] = True
        amounts = game.table.add_amounts
        for k in range(GOAL - i):
            if reached[k] and act[k] == 1:
                reached[k + amounts] = True
        totals = np.flatnonzero(reached[: GOAL - i])
        gaps = np.where(act[totals] == 1, roll[0, totals] - hold[totals], hold[totals] - roll[0, totals])
        assert spread.gap[i, j] == pytest.approx(gaps.min(), abs=1e-14)


@pytest.mark.parametrize("name", RESETS)
@pytest.mark.parametrize("shift", [0.0, 1e-6, 1e-3, 0.05])
def test_a_checked_pass_gives_a_full_passs_values(name: str, shift: float) -> None:
    # the reset values moved (as settling them moves them), and a little noise everywhere: some
    # choices flip; the pairs the check passes must be exactly those whose choices stay
    values, game, spread, checks = _recorded(name)
    rng = np.random.default_rng(3)
    start = np.clip(values + rng.uniform(-shift / 10, shift / 10, values.shape), 0.0, 1.0)
    start[:, 0] = np.clip(values[:, 0] + rng.uniform(-shift, shift, GOAL), 0.0, 1.0)
    full = start.copy()
    rollhold.solve_levels(full, full, 2 * GOAL - 2, 0, game, rollhold.level_rows(game), False, True)
    checked = start.copy()
    rows = rollhold.level_rows(game)
    rollhold.solve_levels(checked, checked, 2 * GOAL - 2, 0, game, rows, False, True, spread, checks)
    assert np.abs(checked - full).max() < 1e-14
