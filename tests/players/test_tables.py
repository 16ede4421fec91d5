"""Action tables through the TableStrategy protocol: the right variant, the right shape, refusals."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.fixed import DiceEachTurn, HoldAt
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table, has_table
from pigdice.rules import find_variant
from pigdice.solve import solve

PIG = find_variant("pig", goal=20)
TWO_DICE = find_variant("two-dice-pig", goal=20)


def test_the_optimal_table_is_for_the_variant_asked_not_the_one_parsed_with():
    # at goal 20 Pig's and Two-Dice Pig's optimal tables coincide; at 50 they differ in 841 states
    pig, two_dice = PIG.with_goal(50), TWO_DICE.with_goal(50)
    robot = parse_strategy("optimal", pig)
    table = action_table(robot, two_dice)
    assert np.array_equal(table, solve(two_dice).action_table())
    assert not np.array_equal(table, action_table(robot, pig))


def test_hold_at_table_holds_from_the_threshold():
    table = action_table(HoldAt(7), PIG)
    assert table.shape == (20, 20, 20)
    assert (table[:, :, :7] == 1).all() and (table[:, :, 7:] == 0).all()


def test_dice_each_turn_table_names_the_choice():
    hog = find_variant("hog", goal=20)
    table = action_table(DiceEachTurn(5), hog)
    assert (table == hog.choices.index(5) + 1).all()


def test_endings_are_written_out_for_first_to_goal():
    freys = find_variant("freys-pig", goal=20)
    assert np.array_equal(action_table(HoldAt(9), freys), action_table(HoldAt(9), freys.first_to_goal()))


@pytest.mark.parametrize("spec", ["rolls:3", "random", "you"])
def test_strategies_that_are_not_state_functions_have_no_table(spec):
    strategy = parse_strategy(spec, PIG)
    assert not has_table(strategy)
    with pytest.raises(BadStrategyError):
        action_table(strategy, PIG)


def test_simultaneous_games_have_no_tables():
    with pytest.raises(BadParameterError, match="everyone at once"):
        action_table(HoldAt(20), find_variant("swine-herd", goal=20))
