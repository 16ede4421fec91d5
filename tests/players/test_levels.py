"""Robots of every strength: the level rule, its names, and its place among the spec strings."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.engine.game import Hold, Roll, apply, dice_rng, new_game, robot_rng
from pigdice.errors import BadStrategyError
from pigdice.players.defaults import LEVEL_TITLES, describe_robot
from pigdice.players.levels import ALLOWANCES, LEVELS, TOP, LevelPlayer, describe_level, level_choice
from pigdice.players.optimal import Optimal
from pigdice.players.specs import known_specs, parse_strategy
from pigdice.rules import find_variant


def test_eight_levels_from_a_beginner_to_the_perfect_player() -> None:
    assert [level.number for level in LEVELS] == list(range(1, 9)) and TOP == 8
    assert list(ALLOWANCES) == sorted(ALLOWANCES, reverse=True) and ALLOWANCES[-1] == 0.0
    assert LEVEL_TITLES[0] == "a beginner" and LEVEL_TITLES[-1] == "the perfect player"
    assert describe_level(3) == "a club player (level 3 of 8)" == describe_robot("level:3")
    assert "level:N" in known_specs()


def test_the_rule_takes_the_most_cautious_option_within_the_allowance() -> None:
    values = {"hold": 0.50, "roll": 0.53}
    assert level_choice(values, 10, 0.02) == "roll"  # holding gives away 3 points: more than allowed
    assert level_choice(values, 10, 0.04) == "hold"  # within the allowance: the cautious option
    assert level_choice({"hold": 0.2, "roll": 0.53}, 0, 1.0) == "roll"  # never a needless pass at turn total 0
    assert level_choice({"hold": 0.6, "roll": 0.53}, 0, 0.0) == "hold"  # ... unless passing is the best
    dice = {"roll:1": 0.40, "roll:3": 0.47, "roll:5": 0.50}
    assert [level_choice(dice, 0, a) for a in (0.0, 0.04, 0.2)] == ["roll:5", "roll:3", "roll:1"]
    assert level_choice({"sit": 0.45, "stand": 0.5}, 4, 0.06) == "sit"


def test_a_level_never_gives_away_more_than_its_allowance_at_any_decision() -> None:
    variant = find_variant("pig")
    perfect = Optimal(variant)
    for number in (1, 3, 6):
        robot = parse_strategy(f"level:{number}", variant)
        assert isinstance(robot, LevelPlayer) and robot.name == f"level:{number}"
        state, dice, rng = new_game(variant, 2), dice_rng(number), robot_rng(number)
        while not state.is_terminal():
            action = robot.choose(state, rng)
            values = perfect.hint(state).values
            taken = "hold" if isinstance(action, Hold) else "roll"
            assert values[taken] >= max(values.values()) - robot.allowance - 1e-12
            state, _ = apply(state, action, dice)


def test_level_eight_plays_as_the_perfect_player() -> None:
    variant = find_variant("hog")
    top, perfect = parse_strategy("level:8", variant), Optimal(variant)
    state, dice = new_game(variant, 2), dice_rng(4)
    for _ in range(12):
        if state.is_terminal():
            break
        rng = np.random.default_rng(0)
        assert top.choose(state, rng) == perfect.choose(state, np.random.default_rng(0))
        state, _ = apply(state, top.choose(state, rng), dice)


def test_a_level_plays_swine_herd_on_the_moment_it_sees() -> None:
    variant = find_variant("swine-herd")
    robot = parse_strategy("level:1", variant)
    state, dice = new_game(variant, 2), dice_rng(2)
    assert robot.choose(state, robot_rng(2)) == Roll()  # before the first roll everyone stands
    state, _ = apply(apply(state, Roll(), dice)[0], Roll(), dice)
    assert robot.choose(state, robot_rng(2)) in (Roll(), Hold())


@pytest.mark.parametrize("spec", ["level:0", "level:9", "level:x", "level:", "level:1:2"])
def test_bad_levels_are_refused_with_the_range(spec: str) -> None:
    with pytest.raises(BadStrategyError, match="level"):
        parse_strategy(spec, find_variant("pig"))
