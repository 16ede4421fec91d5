"""From the game designer to a learner: design a jeopardy dice game, play it in Gymnasium, learn it, score it exactly.

1. The designer (``pigdice design``) measures every game of a small rule space exactly and writes
   the best as playable rule files; the first proposal is taken.
2. The proposal becomes a Gymnasium environment (``variant="designed:FILE"``), where a random
   player takes a few games against the perfect player.
3. pigdice's tabular Q-learner (``pigdice.study.learner``: self-play, one table for both seats)
   learns the new game from its exact outcome table.
4. ``pigdice.evaluate`` scores the learner's greedy table exactly against the perfect player,
   in both seats, beside a random player's simulated result and the perfect player's own 0.5.

Run (needs the ``design`` extra for the rule space's results, and ``rl`` for Gymnasium)::

    python examples/designer_to_learner.py                              # goal 20, 2 million steps: a minute
    python examples/designer_to_learner.py --goal 50 --steps 200000000  # about 15 minutes on one core
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

SIZE_ENV = "PIGDICE_EXAMPLE_SIZE"  # "small" (the tests): a shorter game and fewer learning steps


def main(argv: list[str] | None = None) -> float:
    """Design, play, learn and evaluate; print the figures and return the learner's exact win chance."""
    small = os.environ.get(SIZE_ENV) == "small"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", type=int, default=15 if small else 20, help="points to win (big: 50)")
    parser.add_argument("--steps", type=int, default=200_000 if small else 2_000_000, help="learning steps")
    parser.add_argument("--games", type=int, default=5 if small else 20, help="random games in the environment")
    parser.add_argument("--seed", type=int, default=0, help="seed of the numpy Generator behind every draw")
    parser.add_argument("--out", type=Path, default=Path("designer-example"), help="folder for the designer's run")
    args = parser.parse_args(argv)

    import gymnasium as gym

    import pigdice
    import pigdice.envs.gym  # registers pigdice/Pigdice-v0
    from pigdice.rules import find_variant
    from pigdice.study.design.designer import design
    from pigdice.study.design.space import Space
    from pigdice.study.learner import QLearner

    rng = np.random.default_rng(args.seed)
    space = Space(
        {
            "dice": (1, 2),
            "sides": (4, 6),
            "single_bad": ("bust", "reset"),
            "bust_sum": (0, "commonest"),
            "goal": (args.goal,),
        }
    )
    args.out.mkdir(parents=True, exist_ok=True)
    run = design(space, budget=None, out=args.out, in_process=True, size=3, reference=())
    proposal = run.written["proposals"][0]
    variant = find_variant(f"designed:{proposal}", files=True)
    print(f"designed {run.summary['designed']} games; proposal 1: {variant.summary}")

    env = gym.make("pigdice/Pigdice-v0", variant=f"designed:{proposal}", opponents="optimal")
    won = 0.0
    for _ in range(args.games):
        _, info = env.reset(seed=int(rng.integers(2**31)))
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            done = terminated or truncated
        won += float(reward)
    env.close()

    learner = QLearner(variant, rng)
    learner.train(args.steps)
    result = pigdice.evaluate(learner.action_table(), variant=variant)
    print(f"a random player in the environment: won {won:.0f} of {args.games} games against the perfect player")
    print(
        f"the Q-learner after {learner.steps:,} steps ({learner.games:,} games, {learner.seconds:.1f} s): "
        f"exact win chance {result.average:.4f} (seats {', '.join(f'{p:.4f}' for p in result.seats)})"
    )
    print(f"the perfect player in its place: {result.perfect_average:.4f}; gap {result.gap:.4f}")
    if result.same_choice_share is not None:
        print(f"choices as good as the perfect player's: {result.same_choice_share:.1%}")
    return result.average


if __name__ == "__main__":
    main()
