"""Batched environment benchmark: the numba VectorEnv against the single Gymnasium env, same process.

Run: python bench/vector_env.py [--games N] [--steps N] [--single-steps N] [--variant NAME] [--opponents SPEC]
Prints the learner steps per second of ``pigdice.envs.gym.PigdiceEnv`` (one game, Python) and of
``pigdice.envs.vector.PigdiceVectorEnv`` (``--games`` games at once, one thread), and their ratio;
then the moves per second of ``pigdice.envs.aec.PigdiceAECEnv`` and of the every-seat batch
``pigdice.envs.vector_seats.PigdiceSeatsBatch`` (``--players`` players, every seat the learner).
Both play the same learner: roll while the turn total is below 20, else hold (any legal action
where holding is not allowed), reading the observation and the mask as an agent would, so the
figures include the work of choosing the batch's actions in numpy. Rates use this process's CPU
time, so they hold on a busy machine too. Takes about a minute (the first run compiles the kernels).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from pigdice.envs.aec import PigdiceAECEnv
from pigdice.envs.gym import PigdiceEnv
from pigdice.envs.vector import PigdiceVectorEnv
from pigdice.envs.vector_seats import PigdiceSeatsBatch

HOLD_AT = 20  # the benchmark learner holds at this turn total


def timed(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """Return (result, wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def learner_action(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Return the benchmark learner's actions for a batch: hold (the last action) at 20, else the first legal one."""
    hold = mask.shape[-1] - 1
    wants_hold = (observation[..., 1] >= HOLD_AT) & (mask[..., hold] == 1)
    first_legal = np.argmax(mask, axis=-1)
    return np.where(wants_hold, hold, first_legal)


def run_single(env: PigdiceEnv, steps: int) -> int:
    """Play ``steps`` learner steps in the single environment; return the games finished."""
    observation, info = env.reset(seed=0)
    games = 0
    for _ in range(steps):
        action = int(learner_action(observation, info["action_mask"]))
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            games += 1
            observation, info = env.reset()
    return games


def run_vector(env: PigdiceVectorEnv, steps: int) -> int:
    """Play ``steps`` batched steps (each one step of every game); return the games finished."""
    observation, info = env.reset(seed=0)
    games = 0
    for _ in range(steps):
        action = learner_action(observation, info["action_mask"])
        observation, _, terminated, truncated, info = env.step(action)
        games += int(np.count_nonzero(terminated | truncated))
    return games


def run_aec(env: PigdiceAECEnv, steps: int) -> int:
    """Play ``steps`` moves of the AEC environment, every seat the benchmark learner; return the games finished."""
    env.reset(seed=0)
    games = 0
    for _ in range(steps):
        seen = env.observe(env.agent_selection)
        env.step(int(learner_action(seen["observation"], seen["action_mask"])))
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            games += 1
            env.reset()
    return games


def run_seats(batch: PigdiceSeatsBatch, steps: int) -> int:
    """Play ``steps`` batched moves (one move of every game); return the games finished."""
    observations, info = batch.reset(seed=0)
    rows = np.arange(batch.num_envs)
    games = 0
    for _ in range(steps):
        action = learner_action(observations[rows, info["mover"]], info["action_mask"])
        observations, _, terminated, truncated, info = batch.step(action)
        games += int(np.count_nonzero(terminated | truncated))
    return games


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4096, help="games stepped at once by the vector env")
    parser.add_argument("--steps", type=int, default=500, help="batched steps of the vector env")
    parser.add_argument("--single-steps", type=int, default=20_000, help="steps of the single env")
    parser.add_argument("--variant", default="pig")
    parser.add_argument("--opponents", default="optimal")
    parser.add_argument("--players", type=int, default=3, help="players of the every-seat batch")
    args = parser.parse_args()
    numba.set_num_threads(1)
    print(f"machine: {os.cpu_count()} CPUs, numba {numba.__version__}, one thread")
    print(f"{args.variant}, the learner (hold at {HOLD_AT}) against {args.opponents}")

    single = PigdiceEnv(args.variant, args.opponents)
    vector = PigdiceVectorEnv(args.games, args.variant, args.opponents)
    _, warm_wall, _ = timed(lambda: run_vector(vector, 2))
    print(f"vector env first steps (compile or load the numba cache): {warm_wall:.2f} s")
    run_single(single, 100)

    single_games, single_wall, single_cpu = timed(lambda: run_single(single, args.single_steps))
    vector_games, vector_wall, vector_cpu = timed(lambda: run_vector(vector, args.steps))
    single_rate = args.single_steps / single_cpu
    vector_steps = args.steps * args.games
    vector_rate = vector_steps / vector_cpu
    print(f"  single env  {args.single_steps:>12,} steps  {single_rate:>14,.0f} steps/s per core", end="")
    print(f"  ({single_games:,} games, {args.single_steps / single_wall:,.0f} wall)")
    print(f"  vector env  {vector_steps:>12,} steps  {vector_rate:>14,.0f} steps/s per core", end="")
    print(f"  ({vector_games:,} games, {args.games:,} at once, {vector_steps / vector_wall:,.0f} wall)")
    print(f"  ratio vector / single (per core): {vector_rate / single_rate:,.0f}x")

    print(f"{args.variant}, {args.players} players, every seat the learner (PettingZoo-style)")
    aec = PigdiceAECEnv(args.variant, args.players)
    seats = PigdiceSeatsBatch(args.games, args.variant, args.players)
    run_seats(seats, 2)
    aec_games, _, aec_cpu = timed(lambda: run_aec(aec, args.single_steps))
    seats_games, seats_wall, seats_cpu = timed(lambda: run_seats(seats, args.steps))
    aec_rate = args.single_steps / aec_cpu
    seats_rate = vector_steps / seats_cpu
    print(f"  AEC env     {args.single_steps:>12,} moves  {aec_rate:>14,.0f} moves/s per core  ({aec_games:,} games)")
    print(f"  seats batch {vector_steps:>12,} moves  {seats_rate:>14,.0f} moves/s per core", end="")
    print(f"  ({seats_games:,} games, {vector_steps / seats_wall:,.0f} wall)")
    print(f"  ratio seats batch / AEC (per core): {seats_rate / aec_rate:,.0f}x")


if __name__ == "__main__":
    main()
