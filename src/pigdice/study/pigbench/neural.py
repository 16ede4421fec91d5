"""Pig-Bench's neural baselines: sb3-contrib's MaskablePPO and Stable-Baselines3's DQN, tabulated for exact evaluation.

Each trains with the library's default settings (a 64x64 MLP) on ``BenchEnv`` against the
perfect player's table, on one CPU thread. A trained network is evaluated by asking it once, greedily,
at every position exact evaluation reads (``model_table``), with the observation the environment
showed it; the resulting action table is then played exactly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pigdice.engine.codec import HOLD_FIRST, ROLLS_FIRST, convert_array
from pigdice.errors import require_modules
from pigdice.rules.variant import Decision, Variant
from pigdice.study.pigbench.env import BenchEnv
from pigdice.study.pigbench.positions import action_count, observations

BATCH = 65_536  # positions asked at once
PPO_ROLLOUT = 2048  # the library's default steps between updates
# Called with (steps so far, training seconds so far, the network's action table) at each curve mark.
Checkpoint = Callable[[int, float, np.ndarray], None]


def decision_positions(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the (score, other score, turn total) of every position exact evaluation reads."""
    goal = variant.goal
    i, _, k = np.ogrid[:goal, :goal, :goal]
    inside = (k == 0) if variant.decision is Decision.DICE_PER_TURN else (i + k < goal)
    scores, others, totals = np.nonzero(np.broadcast_to(inside, (goal, goal, goal)))
    return scores, others, totals


def model_table(model: Any, variant: Variant, masked: bool) -> np.ndarray:
    """Return the network's greedy action table: asked once at every position (masks where it takes them)."""
    goal = variant.goal
    scores, others, totals = decision_positions(variant)
    codes = np.empty(len(scores), dtype=np.int8)
    count = action_count(variant)
    for start in range(0, len(scores), BATCH):
        stop = min(start + BATCH, len(scores))
        batch = observations(goal, scores[start:stop], others[start:stop], totals[start:stop])
        if masked:
            masks = np.ones((stop - start, count), dtype=bool)
            actions, _ = model.predict(batch, action_masks=masks, deterministic=True)
        else:
            actions, _ = model.predict(batch, deterministic=True)
        actions = np.asarray(actions).reshape(-1)
        codes[start:stop] = convert_array(variant, actions, ROLLS_FIRST, HOLD_FIRST)  # ``code_of`` for a batch
    table = np.ones((goal, goal, goal), dtype=np.int8)
    table[scores, others, totals] = codes
    if variant.decision is Decision.DICE_PER_TURN:
        table[:, :, :] = table[:, :, :1]
    return table


def make_model(kind: str, env: BenchEnv, seed: int, total: int) -> Any:
    """Return an untrained MaskablePPO ('ppo') or DQN ('dqn') on ``env`` with the library's defaults.

    PPO updates every 2,048 steps; a shorter run (a test) updates once, after all of its steps.
    """
    require_modules(("torch", "stable_baselines3", "sb3_contrib"), "learn", "Pig-Bench's neural baselines need")
    import torch
    from stable_baselines3.common.logger import Logger

    torch.set_num_threads(1)
    model: Any
    if kind == "ppo":
        from sb3_contrib import MaskablePPO

        rollout = min(PPO_ROLLOUT, max(total, 2))
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=rollout, batch_size=min(64, rollout), seed=seed, device="cpu", verbose=0
        )
    else:
        from stable_baselines3 import DQN

        model = DQN("MlpPolicy", env, seed=seed, device="cpu", verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # its default makes a folder in /tmp per model
    return model


def train_network(
    kind: str,
    variant: Variant,
    opponent: np.ndarray,
    marks: list[int],
    seed: int,
    checkpoint: Checkpoint,
    progress: Callable[[float], None],
) -> Any:
    """Train a network through the increasing step counts ``marks``, calling ``checkpoint`` at each; return it."""
    from stable_baselines3.common.callbacks import BaseCallback

    env = BenchEnv(variant, opponent)
    env.reset(seed=seed)
    model = make_model(kind, env, seed, marks[-1])
    total = marks[-1]
    masked = kind == "ppo"

    class Marks(BaseCallback):
        """Tabulate the network at each mark (the time spent is not counted as training)."""

        def __init__(self) -> None:
            super().__init__()
            self.next = 0
            self.started = time.perf_counter()
            self.outside = 0.0  # seconds spent evaluating

        def _on_step(self) -> bool:
            steps = self.num_timesteps
            if steps % 256 == 0:
                progress(steps / total)
            while self.next < len(marks) and steps >= marks[self.next]:
                paused = time.perf_counter()
                trained = paused - self.started - self.outside
                checkpoint(marks[self.next], trained, model_table(self.model, env.variant, masked))
                self.outside += time.perf_counter() - paused
                self.next += 1
            return True

    model.learn(total_timesteps=total, callback=Marks())
    return model
