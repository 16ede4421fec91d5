"""Train sb3-contrib's MaskablePPO on Pig, write its greedy choices out as a table and score them exactly.

The agent plays one seat of Pig against the perfect player (the Gymnasium environment
``pigdice/Pigdice-v0``), learning from the action mask which moves are legal. After training, its
greedy choice at every position (my score, the other score, the turn total) is written out as an
action table (``ppo-table.npy``), and ``pigdice.evaluate`` computes that table's exact win chance
against the perfect player in both seats: no sampled games, no error bars. The model itself is
evaluated the same way, and the two figures agree.

Run (needs the ``learn`` extra: torch, Stable-Baselines3, sb3-contrib)::

    python examples/train_ppo_and_evaluate.py                            # 2,048 steps, goal 40: a few minutes
    python examples/train_ppo_and_evaluate.py --steps 300000 --goal 100  # about 5 minutes on a free core

With ``--steps 300000 --goal 100`` MaskablePPO gets to about 0.46 against the perfect player, as
holding at 20 does (0.460080 exactly); the perfect player would win 0.5 in its place.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

SIZE_ENV = "PIGDICE_EXAMPLE_SIZE"  # "small" (the tests): 256 steps to goal 20, a few seconds of training


def main(argv: list[str] | None = None) -> float:
    """Train, export, evaluate exactly; print the figures and return the exact win chance of the table."""
    small = os.environ.get(SIZE_ENV) == "small"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=256 if small else 2048, help="training steps (big: 300000)")
    parser.add_argument("--goal", type=int, default=20 if small else 40, help="points to win (Pig's own: 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the numpy Generator behind every draw")
    parser.add_argument("--out", type=Path, default=Path("ppo-example"), help="folder for the table and the model")
    args = parser.parse_args(argv)

    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    import pigdice
    import pigdice.envs.gym  # registers pigdice/Pigdice-v0
    from pigdice.rules import find_variant
    from pigdice.study.agent_tables import agent_table

    rng = np.random.default_rng(args.seed)
    torch.set_num_threads(1)  # a small network: one thread is fastest and the run repeats exactly
    variant = find_variant("pig", goal=args.goal)
    env = gym.make("pigdice/Pigdice-v0", variant="pig", goal=args.goal, opponents="optimal")
    env.reset(seed=int(rng.integers(2**31)))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=min(2048, args.steps), batch_size=64, seed=int(rng.integers(2**31)), verbose=0
    )
    started = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    trained = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "maskable-ppo")

    table = agent_table(model, variant).table  # the greedy choice at every position: 1 rolls, 0 holds
    np.save(args.out / "ppo-table.npy", table)
    from_table = pigdice.evaluate(args.out / "ppo-table.npy", variant=variant)
    from_model = pigdice.evaluate(model, variant=variant)
    baseline = pigdice.evaluate("hold:20", variant=variant)

    print(f"MaskablePPO on Pig to {args.goal}: {args.steps:,} steps in {trained:.0f} s")
    print(f"exact win chance against the perfect player: {from_table.average:.4f} (seats {_seats(from_table)})")
    print(f"the same model asked directly:               {from_model.average:.4f}")
    print(f"the perfect player in its place:             {from_table.perfect_average:.4f} (gap {from_table.gap:.4f})")
    print(f"holding at 20, for comparison:               {baseline.average:.4f}")
    if from_table.same_choice_share is not None:
        print(f"choices as good as the perfect player's:     {from_table.same_choice_share:.1%}")
    if from_table.costly:
        print(f"where it gives away most: {from_table.costly[0]}")
    print(f"table: {args.out / 'ppo-table.npy'}; model: {args.out / 'maskable-ppo.zip'}")
    return from_table.average


def _seats(result: object) -> str:
    """Return the win chance in each seat, first mover first."""
    return ", ".join(f"{p:.4f}" for p in getattr(result, "seats", ()))


if __name__ == "__main__":
    main()
