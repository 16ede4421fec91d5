"""The Gymnasium and PettingZoo environments: the libraries' own checkers, seeding, rewards, bad input."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from pigdice.engine.game import GameState, Hold, Roll
from pigdice.envs import PigdiceEnv, aec_env, parallel_env
from pigdice.errors import (
    BadParameterError,
    BadStrategyError,
    IllegalActionError,
    MissingExtraError,
    UnknownVariantError,
)
from pigdice.players.fixed import HoldAt
from pigdice.rules import find_variant
from pigdice.rules.registry import all_variants
from pigdice.solve.two.headtohead import head_to_head

# PettingZoo's api_test prefers Box observations; a dict of observation and action mask is what its own
# board games use, so the two notes it prints about that are expected here
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]

TURN_BASED = [v.name for v in all_variants() if not v.is_simultaneous]
GOAL = 20  # small goals keep a game a few dozen moves long


def robot_for(variant_name: str) -> str:
    """Return a robot spec every variant accepts."""
    return "random"


@pytest.mark.parametrize("name", [*TURN_BASED, "swine-herd"])
def test_gymnasium_check_env_passes_for_every_variant(name: str) -> None:
    env = PigdiceEnv(name, robot_for(name), goal=GOAL)
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("seat", [0, 2])
def test_gymnasium_check_env_passes_in_later_seats_and_with_the_perfect_player(seat: int) -> None:
    env = PigdiceEnv("pig", "optimal,hold:10", seat=seat, goal=GOAL)
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("name", TURN_BASED)
@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_aec_api_and_seed_tests_pass(name: str, players: int) -> None:
    api_test(aec_env(variant=name, players=players, goal=GOAL), num_cycles=100)
    seed_test(lambda: aec_env(variant=name, players=players, goal=GOAL), num_cycles=100)


def test_pettingzoo_aec_with_ten_players_and_every_ending() -> None:
    api_test(aec_env(variant="pig", players=10, goal=GOAL), num_cycles=300)
    for endgame in ("final-round", "equal-turns"):
        api_test(aec_env(variant="pig", players=3, goal=GOAL, endgame=endgame, ties="shared"), num_cycles=100)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_parallel_api_and_seed_tests_pass_for_swine_herd(players: int) -> None:
    parallel_api_test(parallel_env(players=players, goal=GOAL), num_cycles=200)
    parallel_seed_test(lambda: parallel_env(players=players, goal=GOAL), num_cycles=200)


def trajectory(env: PigdiceEnv, seed: int, policy: np.random.Generator) -> list[tuple[int, ...]]:
    """Play one game with masked random actions; return every observation seen."""
    observation, _ = env.reset(seed=seed)
    seen = [tuple(observation)]
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        observation, _, terminated, truncated, _ = env.step(int(policy.choice(legal)))
        seen.append(tuple(observation))
        done = terminated or truncated
    return seen


def test_the_same_seed_gives_the_same_game_and_another_seed_another() -> None:
    env = PigdiceEnv("pig-dice", "hold:15,keep-pace", goal=40)
    first = trajectory(env, 7, np.random.default_rng(1))
    assert trajectory(env, 7, np.random.default_rng(1)) == first
    assert trajectory(PigdiceEnv("pig-dice", "hold:15,keep-pace", goal=40), 7, np.random.default_rng(1)) == first
    assert trajectory(env, 8, np.random.default_rng(1)) != first


@pytest.mark.slow
def test_the_reward_is_the_win_share_so_its_mean_is_the_exact_win_probability() -> None:
    variant = find_variant("pig", goal=GOAL)
    learner, robot = HoldAt(8), HoldAt(5)
    env = PigdiceEnv(variant, "hold:5", seat=0)
    rng = np.random.default_rng(3)
    games, total = 3000, 0.0
    for game in range(games):
        env.reset(seed=game)
        reward, done = 0.0, False
        while not done:
            move = learner.choose(env.state, rng)
            _, reward, terminated, truncated, _ = env.step(0 if move == Roll() else 1)
            done = terminated or truncated
        total += reward
    exact = head_to_head(variant, learner.action_table(variant), robot.action_table(variant)).a_first
    spread = 4 * np.sqrt(exact * (1 - exact) / games)  # 4 standard errors: a wrong reward fails, chance does not
    assert abs(total / games - exact) < spread


def test_swine_herd_robots_choose_on_the_same_state_as_the_learner() -> None:
    seen: list[GameState] = []

    class Watcher:
        name = "watcher"

        def choose(self, state: GameState, rng: np.random.Generator) -> Roll | Hold:
            seen.append(state)
            return Roll()

    env = PigdiceEnv("swine-herd", [Watcher()], seat=0, goal=GOAL)
    env.reset(seed=5)
    before = env.state
    env.step(1)  # the learner sits down
    assert seen, "the robot was asked"
    assert seen[0].standing == before.standing == (True, True)
    assert seen[0].current == 1 and seen[0].turn_total == before.turn_total


def test_a_seated_swine_herd_player_is_ignored_and_offered_only_hold() -> None:
    env = parallel_env(players=2, goal=GOAL)
    observations, _ = env.reset(seed=1)
    hold = 1
    assert list(observations["player_0"]["action_mask"]) == [1, 1]
    observations, *_ = env.step({"player_0": hold, "player_1": 0})
    if not env.state.is_terminal() and env.state.standing == (False, True):
        assert list(observations["player_0"]["action_mask"]) == [0, 1]
        env.step({"player_0": 0, "player_1": 0})  # a seated player's roll changes nothing


def test_aec_rewards_go_to_the_winner_and_turns_follow_the_game() -> None:
    env = aec_env(variant="pig", players=2, goal=1)
    env.reset(seed=2)
    while not env.state.is_terminal():
        env.step(0)  # roll until someone banks... a 1-point goal ends on the first good roll
        if env.state.turn_total:
            env.step(1)
    winner = env.state.winners[0]  # type: ignore[index]
    assert env.rewards[f"player_{winner}"] == 1.0
    assert all(reward == 0.0 for agent, reward in env.rewards.items() if agent != f"player_{winner}")
    assert all(env.terminations.values())


def test_a_game_that_never_ends_is_truncated() -> None:
    env = aec_env(variant="pig", players=2, goal=GOAL, max_decisions=5)
    env.reset(seed=0)
    for _ in range(5):
        env.step(1)  # hold at 0, forever
    assert all(env.truncations.values()) and not any(env.terminations.values())
    gym_env = PigdiceEnv("pig", "hold:20", goal=1000, max_decisions=3)  # nobody reaches 1000 in 3 turns
    gym_env.reset(seed=0)
    results = [gym_env.step(1) for _ in range(3)]
    assert results[-1][3] and not results[0][3]


def test_illegal_and_bad_actions_are_clear_errors() -> None:
    env = aec_env(variant="hog", players=2, goal=GOAL)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(26)  # Hog has no hold: 26 actions, one per number of dice
    with pytest.raises(IllegalActionError, match="whole number"):
        env.step(True)
    gym_env = PigdiceEnv("pig", "hold:20", goal=GOAL)
    gym_env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="whole number"):
        gym_env.step(0.5)


@pytest.mark.parametrize("action", [np.array(0), np.array([0]), np.int64(0), np.array(1, dtype=np.int32)])
def test_numpy_actions_as_stable_baselines3_returns_them_are_accepted(action: object) -> None:
    # SB3's model.predict returns a 0-d int array for one observation; Discrete.contains accepts it
    env = PigdiceEnv("pig", "hold:20", goal=GOAL)
    env.reset(seed=3)
    assert env.action_space.contains(np.asarray(action).reshape(()))
    before = env.state
    env.step(action)
    assert env.state != before


@pytest.mark.parametrize("action", [np.array([0, 1]), np.array(0.0), np.array([[True]])])
def test_numpy_actions_that_are_not_one_whole_number_are_refused(action: object) -> None:
    env = PigdiceEnv("pig", "hold:20", goal=GOAL)
    env.reset(seed=3)
    with pytest.raises(IllegalActionError, match="whole number"):
        env.step(action)


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (lambda: PigdiceEnv("no-such-game"), UnknownVariantError, "no-such-game"),
        (lambda: PigdiceEnv("pig", "you"), BadStrategyError, "robots"),
        (lambda: PigdiceEnv("pig", "hold:20", seat=2), BadParameterError, "seat"),
        (lambda: PigdiceEnv("pig", ",".join(["random"] * 10)), BadParameterError, "2 to 10 players"),
        (lambda: PigdiceEnv("pig", render_mode="rgb_array"), BadParameterError, "render_mode"),
        (lambda: PigdiceEnv("pig", goal=0), BadParameterError, "goal"),
        (lambda: aec_env(variant="swine-herd"), BadParameterError, "parallel_env"),
        (lambda: aec_env(variant="pig", players=1), BadParameterError, "2 to 10 players"),
        (lambda: aec_env(variant="pig", max_decisions=0), BadParameterError, "max_decisions"),
        (lambda: parallel_env(variant="pig"), BadParameterError, "aec_env"),
    ],
)
def test_bad_parameters_are_clear_errors(make: object, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        make()  # type: ignore[operator]


def test_a_missing_extra_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import pigdice.envs

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pettingzoo" else real(name, *a))
    with pytest.raises(MissingExtraError, match=r"pettingzoo: install the extra with pip install 'pigdice\[rl\]'"):
        pigdice.envs.aec_env  # noqa: B018
    with pytest.raises(AttributeError, match="no_such_env"):
        pigdice.envs.no_such_env  # noqa: B018
