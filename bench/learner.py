"""A learner baseline: tabular Q-learning by self-play, its greedy table evaluated exactly against optimal play.

Run: python bench/learner.py [--variant pig] [--goal 100] [--steps 1e10] [--points 16] [--seed 13] [--out DIR]
(Pig to 100, 10^10 steps: about 8 minutes on one core shared with other work, 20 million steps/s.)
Trains one Q-learner (pigdice.study.learner: epsilon 0.1, alpha = 1/visits^0.8, initial values 0.5)
through log-spaced step counts; at each, writes its greedy action table and computes exactly
(head_to_head) its win probability against the optimal player, each side starting half the games.
Prints the curve, the final gap to the optimal player (0.5 - p) and the training speed; writes
DIR/learner-<variant>-<goal>.png (the curve) and .json (the numbers).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.solver import solve
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.learner import CurvePoint, LearningCurve, QLearner, checkpoints, learning_curve

HEADER = (
    f"{'steps':>15} {'games':>12} {'train s':>8} {'learner 1st':>11} {'optimal 1st':>11} {'average':>8} {'agree':>6}"
)


def row(point: CurvePoint) -> str:
    """Return one line of the curve's table."""
    return (
        f"{point.steps:>15,} {point.games:>12,} {point.seconds:>8.1f} {point.learner_first:>11.4f} "
        f"{point.optimal_first:>11.4f} {point.average:>8.4f} {point.agreement:>6.3f}"
    )


REFERENCE = "hold:20"  # a simple rule of thumb, for scale


def reference(variant: Variant) -> float:
    """Return the exact win probability of ``REFERENCE`` against the optimal player, each starting half the games."""
    table = action_table(parse_strategy(REFERENCE, variant), variant)
    return head_to_head(variant, table, solve(variant).action_table()).average


def plot(curve: LearningCurve, rule: float, path: Path) -> None:
    """Draw the exact win probability against the optimal player by training steps (log scale) as a PNG."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    steps = [p.steps for p in curve.points]
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    ax.axhline(0.5, color="grey", linestyle="--", label="as good as the optimal player (0.5)")
    ax.axhline(rule, color="C3", linestyle="-.", linewidth=1, label=f"the rule '{REFERENCE}' against it ({rule:.3f})")
    ax.plot(steps, [p.average for p in curve.points], "o-", color="C0", label="each side starting half the games")
    ax.plot(steps, [p.learner_first for p in curve.points], ".:", color="C1", label="learner moving first")
    ax.plot(steps, [p.optimal_first for p in curve.points], ".:", color="C2", label="optimal player moving first")
    ax.set_xscale("log")
    ax.set_ylim(0, 0.6)
    ax.set_xlabel("training steps (decisions of self-play)")
    ax.set_ylabel("exact probability of beating the optimal player")
    variant = curve.variant
    ax.set_title(
        f"Q-learning by self-play, {variant.title} to {variant.goal}: its greedy strategy against optimal play\n"
        f"epsilon {curve.epsilon}, learning rate 1/visits^{curve.omega}, initial values {curve.initial}; "
        f"final gap {curve.final.gap:.4f}",
        fontsize=10,
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    """Run the learner, print and save the curve."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="pig")
    parser.add_argument("--goal", type=int, default=100)
    parser.add_argument("--steps", type=float, default=1e10, help="total training steps (decisions), e.g. 1e10")
    parser.add_argument("--points", type=int, default=16, help="evaluations, log-spaced from 10^4 steps")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=Path("learner-out"), help="directory for the PNG and the JSON")
    args = parser.parse_args()
    variant = find_variant(args.variant, goal=args.goal, files=True)  # designed:FILE too
    total = int(args.steps)

    started = time.perf_counter()
    QLearner(variant.with_goal(10), np.random.default_rng(0)).train(1000)
    print(f"first call (numba compile or cache load): {time.perf_counter() - started:.2f} s")

    print(f"{variant.name} to {variant.goal}, {total:,} steps, seed {args.seed}")
    print(HEADER)
    started = time.perf_counter()
    curve = learning_curve(
        variant,
        checkpoints(total, args.points),
        np.random.default_rng(args.seed),
        progress=lambda point: print(row(point), flush=True),
    )
    wall = time.perf_counter() - started
    final = curve.final
    print(
        f"final: the learner wins {final.average:.4f} against the optimal player (first {final.learner_first:.4f}, "
        f"second {final.optimal_first:.4f}); gap 0.5 - p = {final.gap:.4f}; agrees with it on "
        f"{100 * final.agreement:.1f}% of the states"
    )
    print(
        f"training: {curve.steps_per_second / 1e6:.1f} million steps/s ({final.seconds:.1f} s); "
        f"wall time with the exact evaluations {wall:.1f} s"
    )
    rule = reference(curve.variant)
    print(f"for scale: the rule '{REFERENCE}' wins {rule:.4f} against the optimal player")
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"learner-{variant.name}-{variant.goal}"
    data = curve.to_json() | {"seed": args.seed, "wall_seconds": wall, REFERENCE: rule}
    stem.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    plot(curve, rule, stem.with_suffix(".png"))
    print(f"wrote {stem}.png and {stem}.json")


if __name__ == "__main__":
    main()
