"""Exact head-to-head evaluation of fixed strategies."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.solve import solve
from pigdice.solve.two.headtohead import head_to_head


@pytest.mark.parametrize("name", ["pig", "two-dice-pig", "pig-dice", "hog", "piggy-six-3dice", "big-pig-knizia"])
def test_optimal_against_itself_is_the_solver_value(name):
    variant = find_variant(name, goal=40 if name != "big-pig-knizia" else 60)
    optimal = action_table(parse_strategy("optimal", variant), variant)
    result = head_to_head(variant, optimal, optimal)
    assert result.a_first == pytest.approx(solve(variant).values[0, 0], abs=1e-12)
    assert result.a_first + (1 - result.b_first) == pytest.approx(2 * result.a_first, abs=1e-12)


def test_goal_two_pig_by_hand():
    # Goal 2, hold at 1 (= hold after any scoring roll): the mover wins on her first roll
    # with 5/6 (any 2..6 reaches the goal), else the turn passes. So P(first wins) = p / (1 - q^2)
    # with p = 5/6, q = 1/6, summed over rounds: 5/6 * 1 / (1 - 1/36) = 6/7.
    variant = find_variant("pig", goal=2)
    table = action_table(parse_strategy("hold:1", variant), variant)
    result = head_to_head(variant, table, table)
    assert result.a_first == pytest.approx(float(Fraction(6, 7)), abs=1e-14)


def test_tables_refuse_strategies_that_are_not_state_functions():
    variant = find_variant("pig", goal=20)
    with pytest.raises(BadStrategyError, match="simulation"):
        action_table(parse_strategy("rolls:3", variant), variant)
    with pytest.raises(BadParameterError, match="shape"):
        head_to_head(variant, np.zeros((3, 3, 3), dtype=np.int8), np.zeros((3, 3, 3), dtype=np.int8))


# --- games that never end -----------------------------------------------------------------------


def pass_everywhere(goal: int) -> np.ndarray:
    """A table that holds at every turn total, so at 0 it passes: it never scores."""
    return np.zeros((goal, goal, goal), dtype=np.int8)


def hold_at(goal: int, threshold: int) -> np.ndarray:
    table = np.ones((goal, goal, goal), dtype=np.int8)
    table[:, :, threshold:] = 0
    return table


@pytest.mark.parametrize("name", ["pig", "two-dice-pig", "pig-dice", "big-pig-knizia"])
def test_two_strategies_that_never_score_are_refused(name):
    # it used to report 0.5: the pair systems are singular and fell back to the starting guess
    variant = find_variant(name, goal=20)
    with pytest.raises(BadStrategyError, match="this game never ends: neither strategy scores") as caught:
        head_to_head(variant, pass_everywhere(20), pass_everywhere(20))
    assert "with probability 1 when A starts, 1 when B starts" in str(caught.value)


def test_a_reachable_pair_that_never_ends_is_refused():
    # both hold from 5 on, but pass at (5, 5): a game reaches 5-5 with some probability and stays
    table = hold_at(20, 5)
    table[5, 5, 0] = 0
    with pytest.raises(BadStrategyError, match=r"e\.g\. A at 5, B at 5.*with probability 0\.0\d+ when A starts"):
        head_to_head(find_variant("pig", goal=20), table, table)


def test_an_unreachable_pair_that_never_ends_does_not_matter():
    # after a turn a score is 0 or at least 5, so a pass at (3, 4) and (4, 3) is never played
    table = hold_at(20, 5)
    table[3, 4, 0] = table[4, 3, 0] = 0
    plain = head_to_head(find_variant("pig", goal=20), hold_at(20, 5), hold_at(20, 5))
    result = head_to_head(find_variant("pig", goal=20), table, table)
    assert result.a_first == pytest.approx(plain.a_first, abs=1e-14)


def test_one_strategy_that_passes_still_loses_to_one_that_scores():
    variant = find_variant("pig", goal=20)
    result = head_to_head(variant, pass_everywhere(20), hold_at(20, 10))
    assert result.a_first == pytest.approx(0.0, abs=1e-14) and result.b_first == pytest.approx(0.0, abs=1e-14)
