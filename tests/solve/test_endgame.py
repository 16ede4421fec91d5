"""The exact 2-player endgame solver against the dict-based reference, and its known properties."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.engine.game import Hold, Roll, apply, new_game
from pigdice.errors import BadParameterError
from pigdice.players.optimal import Optimal, position_of
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.exact import exact_policy
from pigdice.solve.positions import Position
from pigdice.solve.solver import solve_uncached
from pigdice.solve.two.endgame import solve_endgame

from .reference_games import reference_game

ENDINGS = [
    ("final-round", "shared", "turn"),
    ("final-round", "first-to-reach", "turn"),
    ("final-round", "first-to-reach", "roll"),
    ("equal-turns", "shared", "turn"),
    ("equal-turns", "first-to-reach", "turn"),
]
SMALL = [  # (name, goal, cap, params): every effect kind and decision the solver handles
    ("pig", 6, 16, {}),
    ("two-dice-pig", 5, 14, {}),  # resets
    ("pig-dice", 5, 14, {}),  # double and subtract: the turn total can fall
    ("big-pig-knizia", 5, 30, {}),  # set
    ("freys-pig", 5, 30, {}),  # bank
    ("hog", 6, 0, {"max_dice": 3}),  # one throw per turn
    ("piggy-six-3dice", 5, 16, {}),  # dice per roll
]


def small_variant(name: str, goal: int, params: dict[str, int], ending: tuple[str, str, str]) -> Variant:
    endgame, ties, final_turn = ending
    return find_variant(name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)


SLOW_REFERENCES = ("pig-dice", "big-pig-knizia", "freys-pig", "piggy-six-3dice")  # 2-6 s per ending


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda e: "-".join(e))
@pytest.mark.parametrize(
    ("name", "goal", "cap", "params"),
    [pytest.param(*s, id=s[0], marks=[pytest.mark.slow] if s[0] in SLOW_REFERENCES else []) for s in SMALL],
)
def test_endgame_solver_equals_the_reference_at_every_position(
    name: str, goal: int, cap: int, params: dict[str, int], ending: tuple[str, str, str]
) -> None:
    variant = small_variant(name, goal, params, ending)
    policy = solve_endgame(variant, cap=cap)
    reference = reference_game(variant, 2, cap=cap or None, cap_last_turn=False)
    checked = 0
    for position in reference.positions():
        mine = policy.action_values(position)
        theirs = reference.action_values(position)
        assert mine.keys() == theirs.keys(), position
        for option, value in theirs.items():
            assert mine[option] == pytest.approx(value, abs=1e-12), (position, option)
        assert policy.win_vector(position) == pytest.approx(reference.values(position), abs=1e-12), position
        checked += 1
    assert checked > 50


def test_the_stop_past_the_goal_loses_nothing() -> None:
    # without a cap the solver stops where holding is provably optimal: a far cap changes nothing
    variant = find_variant("pig", goal=12, endgame="final-round")
    free = solve_endgame(variant)
    capped = solve_endgame(variant, cap=400)
    assert free.truncation <= 1e-12
    np.testing.assert_allclose(free.values, capped.values, atol=1e-12, rtol=0)


def test_pig_dice_power_law_tail_is_solved_to_the_stated_bound() -> None:
    # doubling lets the last player pass any lead with a chance falling only as a power: the
    # last-turn table grows until the stop fits inside it
    policy = solve_endgame(find_variant("pig-dice", goal=30))
    assert policy.truncation <= 1e-12
    assert 0.5 < policy.win_probability_by_seat()[0] < 0.6


@pytest.mark.parametrize("endgame", ["final-round", "equal-turns"])
def test_seat_probabilities_sum_to_one_and_values_are_probabilities(endgame: str) -> None:
    policy = solve_endgame(find_variant("pig", goal=40, endgame=endgame))
    assert sum(policy.win_probability_by_seat()) == pytest.approx(1.0, abs=1e-15)
    assert policy.values.min() >= 0.0 and policy.values.max() <= 1.0


def test_equal_turns_second_seat_reaching_the_goal_wins_at_once() -> None:
    variant = find_variant("pig", goal=30, endgame="equal-turns")
    policy = solve_endgame(variant)
    # the second seat at 25 with 5 in the turn holds and wins; the first seat there gives a last turn
    assert policy.action_values(Position((25, 20), 5, seat=1)) == {"hold": 1.0}
    first = policy.action_values(Position((25, 20), 5, seat=0))
    assert first["hold"] < 1.0
    state = new_game(variant, 2)
    state, _ = apply(state, Hold(), np.random.default_rng(0))  # seat 0 passes
    state = state.__class__(**{**state.__dict__, "scores": (10, 25), "turn_total": 5})
    state, _ = apply(state, Hold(), np.random.default_rng(0))
    assert state.is_terminal() and state.winners == (1,)


def test_the_last_player_rolls_until_passing_or_busting() -> None:
    variant = find_variant("pig", goal=30, endgame="final-round", ties="first-to-reach")
    policy = solve_endgame(variant)
    for score in (0, 10, 29):
        leader = 33
        for k in range(0, leader - score + 1):
            best = policy.best(Position((score, leader), k, final=()))
            assert best == "roll", (score, k)
        assert policy.best(Position((score, leader), leader - score + 1, final=())) == "hold"


def test_first_to_goal_form_is_unchanged_and_endings_differ() -> None:
    # 2-player first-to-goal through the dispatch is today's solver
    pig = find_variant("pig", goal=50)
    assert exact_policy(pig, 2, use_cache=False).win_probability_by_seat()[0] == pytest.approx(
        float(solve_uncached(pig).values[0, 0]), abs=1e-15
    )
    final = solve_endgame(pig.with_endgame("final-round")).win_probability_by_seat()[0]
    equal = solve_endgame(pig.with_endgame("equal-turns")).win_probability_by_seat()[0]
    assert final != pytest.approx(equal, abs=1e-3)


def test_endgame_solver_refuses_first_to_goal_and_low_caps() -> None:
    with pytest.raises(BadParameterError, match="first-to-goal"):
        solve_endgame(find_variant("pig", goal=10))
    with pytest.raises(BadParameterError, match="cap"):
        solve_endgame(find_variant("pig", goal=10, endgame="final-round"), cap=8)


@pytest.mark.slow
def test_perfect_robot_plays_the_exact_endgame_and_monte_carlo_agrees() -> None:
    # the exact robots through the engine: the first seat's wins within a 99.9% Wilson interval
    variant = find_variant("pig", goal=20, endgame="equal-turns", ties="shared")
    exact = exact_policy(variant, 2).win_probability_by_seat()[0]
    robots = [Optimal(variant), Optimal(variant)]
    rng = np.random.default_rng(11)
    games, first = 3000, 0.0
    for _ in range(games):
        state = new_game(variant, 2)
        while not state.is_terminal():
            action = robots[state.current].choose(state, rng)
            assert isinstance(action, Hold | Roll)
            state, _ = apply(state, action, rng)
        first += 1.0 / len(state.winners) if 0 in state.winners else 0.0  # type: ignore[arg-type]
    p, z = first / games, 3.29
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * np.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    assert centre - half <= exact <= centre + half
    assert position_of(state).players == 2


def test_a_total_past_what_the_solve_follows_is_refused_with_the_bound() -> None:
    policy = solve_endgame(find_variant("pig", goal=20, endgame="final-round"))
    with pytest.raises(BadParameterError, match=r"past the \d+ this solve follows"):
        policy.action_values(Position((10, 0), 10**6))
    assert policy.best(Position((10, 0), 60)) == "hold"
