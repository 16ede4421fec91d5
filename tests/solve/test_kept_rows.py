"""A solve keeps its level rows for the next solve of the same game (fast sweeps, small goals), never sharing them.

Every fast sweep writes a row's totals below the goal before it reads them and never writes the
wins padded past it, so rows kept from one solve serve the next one unchanged (``solver._taken_rows``).
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.solve import solve_uncached, solver
from pigdice.solve.tables import effect_table
from pigdice.solve.two import rollhold
from pigdice.solve.two.bundles import game_of

GOAL = 30


@pytest.fixture(autouse=True)
def _no_kept_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver, "_kept_rows", {})


@pytest.mark.parametrize("name", ["pig", "two-dice-pig", "hog-reroll"])
def test_a_fast_sweeps_rows_serve_the_next_solve_with_the_same_values(name: str) -> None:
    variant = find_variant(name, goal=GOAL).with_endgame("first-to-goal")
    first = solve_uncached(variant).values
    game = game_of(GOAL, effect_table(variant))
    kept = solver._taken_rows(game)  # taken out: the next solve makes its own
    fresh = rollhold.level_rows(game)
    for i in range(GOAL):  # the wins padded from the goal on stay
        assert np.array_equal(kept.c[i, GOAL - i :], fresh.c[i, GOAL - i :]), i
        assert np.array_equal(kept.d[i, GOAL - i :], fresh.d[i, GOAL - i :]), i
    assert kept.c[0, : GOAL // 2].min() > 0.0  # ... and the totals below it hold the last solve's turns
    assert solver._taken_rows(game) is not kept
    solver._keep_rows(game, kept)
    assert np.array_equal(solve_uncached(variant).values, first)
    assert solver._taken_rows(game) is kept  # the second solve kept them again


def test_other_games_and_large_goals_keep_none(monkeypatch: pytest.MonkeyPatch) -> None:
    solve_uncached(find_variant("pig-dice", goal=GOAL))  # the general sweep starts from the rows it finds
    monkeypatch.setattr(solver, "KEEP_ROWS_GOAL", GOAL - 1)
    solve_uncached(find_variant("pig", goal=GOAL))
    assert solver._kept_rows == {}


def test_at_most_a_few_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver, "KEPT_ROWS", 2)
    for goal in (20, 21, 22):
        solve_uncached(find_variant("pig", goal=goal))
    assert [goal for goal, _ in solver._kept_rows] == [22]  # full: cleared before the third
