"""Review benchmark: the full review of a 100-move game (decisions, marks, exact luck and skill, ratings).

Run: python bench/bench_review.py [--runs N] [--variant pig]

Plays one seeded game of about 100 moves (hold:25 against keep-pace, the seed found by a search) and
times ``review_game`` on it once the values are at hand: the perfect player's turn-start values
loaded (from the shipped values: nothing compiled, nothing solved), first with no turn row derived
yet ("cold": every row the review reads is worked out from the values), then again with the rows
kept ("warm"). Each is the best of N runs, printed with its ratio to replaying the game with the
engine alone in the same process. The target (issue 27) is under 50 ms cold.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from pigdice.engine.game import Move, apply, dice_rng, new_game, replay, robot_rng
from pigdice.players.optimal import Optimal
from pigdice.players.specs import parse_strategy
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.shipped import shipped_policy
from pigdice.study.review import review_game

TARGET_SECONDS = 0.050
MOVES = 100


def game_of(variant: Variant, moves: int) -> tuple[int, list[Move]]:
    """Return the seed and moves of a game between hold:25 and keep-pace with about ``moves`` moves."""
    players = [parse_strategy("hold:25", variant), parse_strategy("keep-pace", variant)]
    best: tuple[int, list[Move]] = (0, [])
    for seed in range(500):
        state, dice, robots, actions = new_game(variant, 2), dice_rng(seed), robot_rng(seed), []
        while not state.is_terminal():
            actions.append(players[state.current].choose(state, robots))
            state, _ = apply(state, actions[-1], dice)
        if abs(len(actions) - moves) < abs(len(best[1]) - moves):
            best = (seed, actions)
        if len(actions) == moves:
            break
    return best


def best_of(runs: int, run: Callable[[], object]) -> float:
    """Return the fastest wall time of ``runs`` calls."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        run()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    """Time the review of a 100-move game and print it against the engine's replay."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--variant", default="pig")
    args = parser.parse_args()
    variant = find_variant(args.variant)
    seed, actions = game_of(variant, MOVES)
    names, humans = ["A", "B"], [True, True]
    policy = shipped_policy(variant)
    if policy is None:
        raise SystemExit(f"{variant.name} has no shipped values: this benchmark times a review from them")

    def cold() -> None:
        policy._rows.clear()  # the values stay; every turn row is derived again
        review_game(variant, names, humans, seed, actions, perfect)

    perfect = Optimal(variant)
    perfect.exact(2)  # the values at hand
    baseline = best_of(args.runs, lambda: replay(variant, 2, seed, actions))
    cold_time = best_of(args.runs, cold)
    review = review_game(variant, names, humans, seed, actions, perfect)
    warm_time = best_of(args.runs, lambda: review_game(variant, names, humans, seed, actions, perfect))
    print(f"{variant.name}: a game of {len(actions)} moves (seed {seed}), {len(review.decisions)} decisions")
    print(f"replay with the engine alone: {1000 * baseline:.2f} ms")
    print(f"review, turn rows derived:    {1000 * cold_time:.2f} ms ({cold_time / baseline:.0f}x the replay)")
    print(f"review, turn rows kept:       {1000 * warm_time:.2f} ms ({warm_time / baseline:.0f}x the replay)")
    verdict = "met" if cold_time < TARGET_SECONDS else "NOT met"
    print(f"target: under {1000 * TARGET_SECONDS:.0f} ms with the rows derived: {verdict}")


if __name__ == "__main__":
    main()
