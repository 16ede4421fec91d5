"""Calibrate the Performance Rating's bands on Pig: what hold:20, keep-pace, the perfect player and each level rate.

Run: python bench/rating_calibration.py [--games N] [--variant pig] [--seed S]

Each robot plays N seeded games against the perfect player (first in half of them); every game is
reviewed against the perfect player's exact values and the robot's decisions are rated
(``pigdice.study.rating``: 10,000 x the chance given away per decision that mattered, over all its
games). It prints each robot's rating with a 95% interval from the games' spread (a bootstrap over
games), the band the rating falls in, and the bands themselves; docs/study/analysis.md quotes the
figures. The bands are right when hold:20, keep-pace and the perfect player fall where the docs say
and every level:N falls in the band it is named after.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pigdice.engine.game import apply, dice_rng, new_game, robot_rng
from pigdice.players.defaults import describe_robot
from pigdice.players.optimal import Optimal
from pigdice.players.specs import parse_strategy
from pigdice.rules.registry import find_variant
from pigdice.study.rating import Rating, bands_table, rate
from pigdice.study.review import review_game

ROBOTS = ("hold:20", "keep-pace", "optimal", *(f"level:{n}" for n in range(1, 9)))


def robot_games(variant_name: str, spec: str, games: int, seed: int) -> list[Rating]:
    """Return the robot's rating in each of ``games`` games against the perfect player."""
    variant = find_variant(variant_name)
    perfect = Optimal(variant)
    robot = parse_strategy(spec, variant)
    ratings = []
    for number in range(games):
        game_seed = seed + number
        seats = [robot, perfect] if number % 2 == 0 else [perfect, robot]
        mine = 0 if number % 2 == 0 else 1
        state, dice, robots, actions = new_game(variant, 2), dice_rng(game_seed), robot_rng(game_seed), []
        while not state.is_terminal():
            actions.append(seats[state.current].choose(state, robots))
            state, _ = apply(state, actions[-1], dice)
        review = review_game(variant, ["A", "B"], [False, False], game_seed, actions, perfect)
        ratings.append(rate((d.values, d.loss) for d in review.decisions if d.seat == mine))
    return ratings


def interval(ratings: list[Rating], rng: np.random.Generator, draws: int = 2000) -> tuple[float, float]:
    """Return a 95% bootstrap interval of the rating over games."""
    decisions = np.array([r.decisions for r in ratings], dtype=float)
    lost = np.array([r.given_away for r in ratings])
    picks = rng.integers(0, len(ratings), size=(draws, len(ratings)))
    values = 10_000 * lost[picks].sum(axis=1) / np.maximum(decisions[picks].sum(axis=1), 1)
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def main() -> None:
    """Rate every robot on Pig and print the calibration table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--variant", default="pig")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{args.variant}: {args.games} games per robot against the perfect player")
    print(f"{'robot':10s} {'rating':>7s} {'95% interval':>15s}  band   (who it is)")
    for spec in ROBOTS:
        began = time.perf_counter()
        ratings = robot_games(args.variant, spec, args.games, args.seed)
        total = sum(ratings, Rating(0, 0.0))
        low, high = interval(ratings, rng)
        value = total.value or 0.0
        seconds = time.perf_counter() - began
        print(
            f"{spec:10s} {value:7.2f} {low:7.2f}..{high:<7.2f}  {total.band}   "
            f"({describe_robot(spec)}; {total.decisions / len(ratings):.0f} decisions a game, {seconds:.0f} s)"
        )
    print("bands:", "; ".join(f"{name} {span}" for name, span in bands_table()))


if __name__ == "__main__":
    main()
