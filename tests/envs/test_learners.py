"""Stable-Baselines3 and sb3-contrib train on the Gymnasium environment unchanged (a few hundred steps each)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch", reason="the learner tests need torch (pip install 'pigdice[learn]')")
pytest.importorskip("stable_baselines3", reason="the learner tests need Stable-Baselines3 (pigdice[learn])")
pytest.importorskip("sb3_contrib", reason="the MaskablePPO tests need sb3-contrib (pip install 'pigdice[learn]')")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3 import DQN, PPO
from stable_baselines3.common.env_checker import check_env

from pigdice.envs.gym import PigdiceEnv

VARIANTS = ["pig", "two-dice-pig", "hog", "pig-dice"]
# Training: the fast tier keeps one game of each action space (Pig: hold or roll; Hog: how many dice, 26 actions);
# Two-Dice Pig and Pig Dice, whose actions and observations are Pig's, train in the slow tier
TRAINED = [v if v in ("pig", "hog") else pytest.param(v, marks=pytest.mark.slow) for v in VARIANTS]
GOAL = 30  # short games: a few hundred steps see a few dozen of them
STEPS = 256


def robot(variant: str) -> str:
    """Return a quick robot the variant accepts (Hog, one throw a turn, has no holding robots)."""
    return "dice:3" if variant == "hog" else "keep-pace"


def play_greedy(model: Any, env: PigdiceEnv, seed: int, masked: bool = False) -> float:
    """Play one game with the model's greedy actions straight into ``env.step``; return the reward."""
    observation, _ = env.reset(seed=seed)
    for _ in range(2_000):
        if masked:
            action, _ = model.predict(observation, action_masks=get_action_masks(env), deterministic=True)
            assert env.action_masks()[int(action)], "a masked model chose a refused action"
        else:
            action, _ = model.predict(observation, deterministic=True)
        observation, reward, terminated, truncated, _ = env.step(action)  # a 0-d array, as predict returns it
        if terminated or truncated:
            return float(reward)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("variant", VARIANTS)
def test_stable_baselines3_check_env_passes(variant: str) -> None:
    check_env(PigdiceEnv(variant, robot(variant), goal=GOAL), warn=True)
    check_env(PigdiceEnv(variant, {"random": 1, robot(variant): 2}, seat="random", goal=GOAL, observation="exact"))


@pytest.mark.parametrize("variant", TRAINED)
def test_ppo_trains_in_a_random_seat_against_a_pool(variant: str) -> None:
    env = PigdiceEnv(variant, {"random": 1, robot(variant): 1}, seat="random", goal=GOAL)
    model = PPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0)
    model.learn(STEPS)
    assert model.num_timesteps >= STEPS
    assert play_greedy(model, env, seed=1) in (0.0, 0.5, 1.0)


@pytest.mark.parametrize("variant", TRAINED)
def test_dqn_trains_on_the_exact_observation(variant: str) -> None:
    env = PigdiceEnv(variant, robot(variant), goal=GOAL, observation="exact")
    model = DQN("MlpPolicy", env, buffer_size=1_000, learning_starts=64, train_freq=4, seed=0)
    model.learn(STEPS)
    assert model.num_timesteps >= STEPS
    assert model.observation_space.shape == (8,)
    assert play_greedy(model, env, seed=2) in (0.0, 0.5, 1.0)


@pytest.mark.parametrize("variant", TRAINED)
def test_maskable_ppo_trains_with_the_environments_masks_and_with_action_masker(variant: str) -> None:
    env = PigdiceEnv(variant, "random", goal=GOAL)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0)
    model.learn(STEPS)
    assert play_greedy(model, env, seed=3, masked=True) in (0.0, 0.5, 1.0)
    wrapped = ActionMasker(PigdiceEnv(variant, robot(variant), goal=GOAL), lambda env: env.unwrapped.action_masks())
    wrapped_model = MaskablePPO("MlpPolicy", wrapped, n_steps=128, batch_size=64, n_epochs=1, seed=0)
    wrapped_model.learn(STEPS // 2)
    assert wrapped_model.num_timesteps >= STEPS // 2


def test_self_play_against_the_model_being_trained() -> None:
    env = PigdiceEnv("pig", "self", seat="random", goal=GOAL, max_decisions=200)  # two holders at 0 never end
    model = PPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0)
    env.set_opponent(model)  # every "self" seat plays the model's greedy choice from now on
    model.learn(STEPS)
    seats = {env.reset(seed=seed)[1]["seat"] for seed in range(20)}
    assert seats == {0, 1}
    assert env.robots[0].name == "self"
    rewards = [play_greedy(model, env, seed=seed) for seed in range(4)]
    assert all(reward in (0.0, 0.5, 1.0) for reward in rewards)
    assert np.isfinite(rewards).all()
