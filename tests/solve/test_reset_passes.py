"""Reset games settle their reset values by spread passes between full passes (``holdspread``).

A spread records where each turn of a full pass's policy ends; a spread pass evaluates that
policy exactly. The solve must give the same values with them as with full passes alone, in
fewer full passes, and a spread the solve cannot use (too wide) must leave it to full passes.
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.solve import solver
from pigdice.solve.solver import solve_uncached, solve_values
from pigdice.solve.tables import effect_table
from pigdice.solve.two import holdspread, rollhold
from pigdice.solve.two.bundles import FIRST_TO_GOAL_ENDS, Ends, Game, game_of

RESETS = ["two-dice-pig", "big-pig-reset", "piggy-six"]
GOAL = 50  # from here on every reset game takes fewer full passes with spreads (at 40 Big Pig takes 3 either way)


def _solved_spread(name: str) -> tuple[np.ndarray, holdspread.Spread]:
    """Return the solved values of ``name`` to ``GOAL`` and the spread of one full pass over them."""
    variant = find_variant(name, goal=GOAL).with_endgame("first-to-goal")
    table = effect_table(variant)
    values = solve_uncached(variant, tolerance=1e-14).values  # at the solve's 1e-12 a pass may still move it 1e-13
    game = rollhold.game_of(GOAL, table)
    spread = holdspread.new_spread(GOAL, table)
    again = values.copy()
    rollhold.solve_levels(again, again, 2 * GOAL - 2, 0, game, rollhold.level_rows(game), False, True, spread)
    return values, spread


@pytest.mark.parametrize("name", RESETS)
def test_every_turn_of_a_spread_ends_somewhere_with_certainty(name: str) -> None:
    _, spread = _solved_spread(name)
    assert holdspread.usable(spread)
    banked = np.array(
        [[sum(holdspread.banked_chances(spread, i, j).values()) for j in range(GOAL)] for i in range(GOAL)]
    )
    assert np.any(spread.threshold > 0) and np.any(spread.threshold == 0), "threshold turns and others"
    total = spread.win + spread.loop + spread.reset + banked
    assert np.abs(total - 1.0).max() < 1e-14
    assert np.all(spread.reset[0] == 0.0), "a reset at score 0 is a bust"
    assert np.all(spread.loop > 0.0), "every turn can bust"


@pytest.mark.parametrize("name", RESETS)
def test_a_spread_pass_from_the_solution_moves_nothing_and_from_elsewhere_returns_to_it(name: str) -> None:
    values, spread = _solved_spread(name)
    again = values.copy()
    holdspread.spread_pass(again, spread)
    assert np.abs(again - values).max() < 1e-14
    moved = values.copy()
    moved[:, 0] = np.random.default_rng(7).uniform(0.0, 1.0, GOAL)
    assert solver.settle_resets(moved, spread, solver.TOLERANCE)
    assert np.abs(moved - values).max() < 1e-13


@pytest.mark.parametrize("name", RESETS)
def test_spread_passes_give_the_values_of_full_passes_alone_in_fewer_full_passes(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    variant = find_variant(name, goal=GOAL).with_endgame("first-to-goal")
    table = effect_table(variant)
    spread = np.full((GOAL, GOAL), 0.5)
    with_spreads = solve_values(variant, table, [spread], rollhold.FIRST_TO_GOAL_ENDS)
    monkeypatch.setattr(solver, "SPREAD_BELOW", 0.0)  # no pass records a spread
    monkeypatch.setattr(solver, "RECORD_FIRST_PASS", False)
    full = np.full((GOAL, GOAL), 0.5)
    full_only = solve_values(variant, table, [full], rollhold.FIRST_TO_GOAL_ENDS)
    assert np.abs(spread - full).max() < 1e-13
    assert with_spreads.residual < solver.TOLERANCE
    assert with_spreads.passes < full_only.passes


def test_a_spread_wider_than_its_rows_is_not_used() -> None:
    variant = find_variant("two-dice-pig", goal=GOAL)
    spread = holdspread.new_spread(GOAL, effect_table(variant))
    spread.used[3, 5] = holdspread.SPREAD_WIDTH + 1
    values = np.full((GOAL, GOAL), 0.5)
    assert not solver.settle_resets(values, spread, solver.TOLERANCE)
    assert np.all(values == 0.5), "an unusable spread moves nothing"


def test_only_plain_reset_tables_within_the_goal_limit_are_spread() -> None:
    def game(name: str, goal: int, ends: Ends = FIRST_TO_GOAL_ENDS) -> Game:
        return game_of(goal, effect_table(find_variant(name, goal=goal)), ends)

    assert holdspread.spreadable(game("two-dice-pig", 100))
    assert not holdspread.spreadable(game("pig", 100)), "no reset: one pass"
    assert not holdspread.spreadable(game("two-dice-pig", holdspread.MAX_SPREAD_GOAL + 1))
    last_turns = Ends(np.zeros(5), np.zeros(5), 1 / 36, 0)
    assert not holdspread.spreadable(game("two-dice-pig", 100, last_turns)), "banking at the goal leads to last turns"


@pytest.mark.parametrize("name", RESETS)
def test_recording_from_the_first_pass_gives_the_values_of_recording_later_in_no_more_passes(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first pass records its spread (``RECORD_FIRST_PASS``); before, only a pass after one that moved
    # the reset values by less than ``SPREAD_BELOW`` did. Both settle to the same values.
    for goal in (25, 60, 100):
        variant = find_variant(name, goal=goal).with_endgame("first-to-goal")
        table = effect_table(variant)
        first = np.full((goal, goal), 0.5)
        first[:, 0] = solver.first_reset_values(goal)
        later = first.copy()
        from_first = solve_values(variant, table, [first], FIRST_TO_GOAL_ENDS)
        monkeypatch.setattr(solver, "RECORD_FIRST_PASS", False)
        from_later = solve_values(variant, table, [later], FIRST_TO_GOAL_ENDS)
        monkeypatch.undo()
        assert np.abs(first - later).max() < 1e-12, f"goal {goal}"
        assert from_first.residual < solver.TOLERANCE
        assert from_first.passes < from_later.passes, f"goal {goal}"
