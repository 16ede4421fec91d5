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
from pigdice.solve.headtohead import head_to_head


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))


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
