"""Policy objects: cache, save/load, derived actions, hints and the optimal robot."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.engine.game import Hold, Roll, new_game
from pigdice.errors import BadParameterError
from pigdice.players.fixed import HoldAt
from pigdice.players.optimal import Optimal, approximation_note, hint_for_state
from pigdice.players.specs import parse_strategy
from pigdice.rules import find_variant
from pigdice.solve import Policy, cache_path, solve, solve_uncached
from pigdice.study.simulate import simulate


def test_solve_caches_to_disk_and_reloads(fresh_policies):
    variant = find_variant("pig", goal=30)
    first = solve(variant)
    path = cache_path(variant)
    assert path.exists() and path.parent == fresh_policies
    from pigdice.solve import solver

    solver._MEMORY.clear()
    again = solve(variant)
    assert again.from_cache and not first.from_cache
    assert np.array_equal(first.values, again.values)


def test_cache_name_changes_with_parameters():
    assert cache_path(find_variant("pig", goal=30)) != cache_path(find_variant("pig", goal=31))
    assert cache_path(find_variant("hog", max_dice=10)) != cache_path(find_variant("hog", max_dice=11))
    plain = find_variant("pass-the-pigs")
    assert cache_path(plain) != cache_path(find_variant("pass-the-pigs", oinker="1/100"))


def test_damaged_cache_file_is_rebuilt(fresh_policies):
    variant = find_variant("pig", goal=20)
    path = cache_path(variant)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a policy")
    policy = solve(variant)
    assert not policy.from_cache and policy.values.shape == (20, 20)
    assert Policy.load(path, variant).from_cache


def test_load_refuses_a_policy_of_other_parameters(tmp_path):
    policy = solve_uncached(find_variant("pig", goal=20))
    path = tmp_path / "p.npz"
    policy.save(path)
    with pytest.raises(BadParameterError, match="other parameters"):
        Policy.load(path, find_variant("two-dice-pig", goal=20))


def test_actions_values_and_thresholds_agree():
    policy = solve(find_variant("pig", goal=50))
    for i, j, k in [(0, 0, 0), (10, 30, 12), (45, 0, 3), (20, 49, 25)]:
        values = policy.action_values(i, j, k)
        best = max(values, key=values.get)
        assert values[best] == pytest.approx(policy.win_probability(i, j, k), abs=1e-15)
        assert (policy.best_choice(i, j, k) == 0) == (best == "hold")
    assert policy.win_probability(40, 10, 10) == 1.0  # 40 + 10 reaches the goal


def test_bad_states_are_clear_errors():
    policy = solve(find_variant("pig", goal=30))
    with pytest.raises(BadParameterError, match="score"):
        policy.turn(30, 0)
    with pytest.raises(BadParameterError, match="opponent"):
        policy.win_probability(0, 35, 0)
    with pytest.raises(BadParameterError, match="turn total"):
        policy.win_probability(0, 0, -1)


def test_hint_names_the_best_action_and_marks_approximations():
    variant = find_variant("pig", goal=40)
    hint = hint_for_state(new_game(variant, 2))
    assert hint.best == "roll" and hint.approximate is None
    assert set(hint.values) == {"roll", "hold"}
    three = hint_for_state(new_game(variant, 3))  # 3 players first to the goal: exact
    assert three.approximate is None and sum(three.values.values()) > 0
    final = hint_for_state(new_game(variant.with_endgame("final-round"), 5))  # no exact solver for 5 with an ending
    assert "highest opponent score" in (final.approximate or "")
    assert approximation_note(find_variant("piggy-six"), 2) is None  # 2-player equal turns: exact
    assert approximation_note(find_variant("piggy-six"), 3) is None  # 3 players: exact too
    assert approximation_note(find_variant("piggy-six"), 4) is None  # 4 players: exact as well
    assert approximation_note(find_variant("piggy-six"), 5) is not None
    assert approximation_note(find_variant("swine-herd"), 2) is None  # the exact 2-player equilibrium
    assert approximation_note(find_variant("swine-herd"), 3) is not None
    hog = hint_for_state(new_game(find_variant("hog", goal=40, max_dice=10), 2))
    assert hog.best.startswith("roll:") and len(hog.values) == 10


def test_optimal_robot_holds_at_the_threshold_and_when_it_can_win():
    variant = find_variant("pig", goal=100)
    robot = Optimal(variant)
    rng = np.random.default_rng(0)
    state = new_game(variant, 2)
    threshold = robot.policy.hold_threshold(0, 0)
    import dataclasses

    assert robot.choose(dataclasses.replace(state, turn_total=threshold), rng) == Hold()
    assert robot.choose(dataclasses.replace(state, turn_total=threshold - 1), rng) == Roll()
    near = dataclasses.replace(state, scores=(95, 0), turn_total=5)
    assert robot.choose(near, rng) == Hold()


@pytest.mark.slow
def test_optimal_beats_hold_at_20_over_many_games():
    variant = find_variant("pig", goal=50)
    result = simulate(variant, [parse_strategy("optimal", variant), HoldAt(20)], 4000, seed=11)
    swapped = simulate(variant, [HoldAt(20), parse_strategy("optimal", variant)], 4000, seed=12)
    optimal_share = (result.wins[0] + swapped.wins[1]) / 8000
    assert optimal_share > 0.5


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "goal"),
    [
        ("swine-herd", 30),
        ("piggy-six", 30),
        # 3-player Pig Dice solves its final round's last turns over 512 totals past the goal whatever the goal
        # (turn totals double): the solve costs 138 s at goal 30 on a busy two-core machine, 44 s at goal 6,
        # which still has in-turn choices, a final round in every game and its end
        ("pig-dice", 6),
        ("hog-reroll", 30),
        ("piggy-six-3dice", 30),
    ],
)
def test_optimal_robot_finishes_games_in_every_kind_of_variant(name, goal):
    variant = find_variant(name, goal=goal)
    players = [parse_strategy("optimal", variant), parse_strategy("optimal", variant), HoldAt(10)]
    result = simulate(variant, players, 50, seed=3)
    assert sum(result.wins) == pytest.approx(50)
