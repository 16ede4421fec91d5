"""The Q-learning baseline: it learns the exact values and optimal play of small games, seeded and resumable."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.solve.solver import solve
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.learner import (
    QLearner,
    agreement,
    check_variant,
    checkpoints,
    greedy_table,
    learning_curve,
)

GOAL = 20


def learner(name: str = "pig", seed: int = 5) -> QLearner:
    """Return an untrained learner of ``name`` at goal ``GOAL`` with the default settings."""
    return QLearner(find_variant(name, goal=GOAL), np.random.default_rng(seed))


def test_learns_optimal_play_at_goal_20_from_far_below() -> None:
    pig = find_variant("pig", goal=GOAL)
    optimal = solve(pig).action_table()
    q = learner()
    untrained = head_to_head(pig, q.action_table(), optimal).average
    q.train(2_000_000)
    learned = head_to_head(pig, q.action_table(), optimal)
    # the untrained table rolls once and holds (ties: roll at k = 0, hold elsewhere), a random
    # table is no better: both lose most games, so reaching 0.5 is learning, not a loose bound
    random_table = np.random.default_rng(0).integers(0, 2, size=optimal.shape).astype(np.int8)
    assert untrained < 0.1
    assert head_to_head(pig, random_table, optimal).average < 0.3
    assert learned.average > 0.499
    assert learned.a_first > 0.6 and learned.b_first > 0.38  # each seat: about V[0, 0] = 0.6156 and its complement
    assert agreement(optimal, optimal) == 1.0
    assert 0.5 < agreement(q.action_table(), optimal) < 1.0  # off the path of play it has not learned everything


@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("pig", "add, bust"),
        ("two-dice-pig", "reset"),
        ("big-pig-knizia", "set"),
        ("big-pig-score-25", "bank"),
        ("pig-dice", "double, subtract"),
    ],
)
def test_learned_start_value_is_the_exact_first_player_win_probability(name: str, kinds: str) -> None:
    q = learner(name)
    exact = solve(q.variant).values[0, 0]  # 0.60-0.68 at goal 20; the table starts at 0.5
    q.train(5_000_000)
    assert q.q[0, 0, 0].max() == pytest.approx(exact, abs=0.005), kinds


def test_same_seed_same_table_in_one_run_or_in_pieces() -> None:
    one, two, other = learner(seed=3), learner(seed=3), learner(seed=4)
    one.train(300_000)
    for piece in (1, 99_999, 200_000):
        two.train(piece)
    other.train(300_000)
    assert np.array_equal(one.q, two.q)
    assert np.array_equal(one.visits, two.visits)
    assert one.games == two.games > 0
    assert one.steps == two.steps == 300_000
    assert not np.array_equal(one.q, other.q)
    assert one.visits.sum() == 300_000  # one update per step


def test_written_table_is_an_action_table_of_holds_and_rolls() -> None:
    q = learner()
    untrained = q.action_table()
    assert untrained.shape == (GOAL, GOAL, GOAL) and untrained.dtype == np.int8
    assert np.all(untrained[:, :, 0] == 1) and np.all(untrained[:, :, 1:] == 0)  # the tie rule
    q.train(500_000)
    table = q.action_table()
    assert table.shape == (GOAL, GOAL, GOAL) and table.dtype == np.int8
    assert set(np.unique(table)) <= {0, 1}
    i, k = np.ogrid[:GOAL, :GOAL]
    assert np.all(table[np.broadcast_to((i + k >= GOAL)[:, None, :], table.shape)] == 0)  # never read
    assert np.array_equal(table, greedy_table(q.q))


def test_curve_is_one_run_evaluated_at_each_mark() -> None:
    pig = find_variant("pig", goal=GOAL)
    marks = checkpoints(200_000, 4, first=1000)
    assert marks == sorted(set(marks)) and marks[0] == 1000 and marks[-1] == 200_000 and len(marks) == 4
    curve = learning_curve(pig, marks, np.random.default_rng(9))
    assert [p.steps for p in curve.points] == marks
    direct = QLearner(pig, np.random.default_rng(9))
    direct.train(200_000)
    final = head_to_head(pig, direct.action_table(), solve(pig).action_table())
    assert curve.final.learner_first == final.a_first and curve.final.optimal_first == final.b_first
    assert curve.final.gap == pytest.approx(0.5 - final.average)
    assert curve.steps_per_second > 0
    assert curve.final.to_json()["steps"] == 200_000 and curve.to_json()["goal"] == GOAL


@pytest.mark.parametrize("name", ["hog", "hog-reroll", "swine-herd"])
def test_games_without_a_roll_hold_choice_are_refused(name: str) -> None:
    with pytest.raises(BadParameterError, match=r"roll/hold|at once"):
        check_variant(find_variant(name, goal=GOAL))


def test_other_endings_are_learned_first_to_goal() -> None:
    assert check_variant(find_variant("freys-pig", goal=GOAL)).endgame == "first-to-goal"


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"epsilon": 1.5}, "epsilon"), ({"omega": 0.3}, "omega"), ({"initial": -1}, "initial")],
)
def test_bad_settings_are_refused(settings: dict[str, float], message: str) -> None:
    with pytest.raises(BadParameterError, match=message):
        QLearner(find_variant("pig", goal=GOAL), np.random.default_rng(0), **settings)


def test_randomness_must_be_a_generator_and_steps_whole() -> None:
    with pytest.raises(BadParameterError, match="Generator"):
        QLearner(find_variant("pig", goal=GOAL), 7)  # type: ignore[arg-type]
    with pytest.raises(BadParameterError, match="steps"):
        learner().train(-1)
    with pytest.raises(BadParameterError, match="marks"):
        learning_curve(find_variant("pig", goal=GOAL), [10, 5], np.random.default_rng(0))
