"""Seed 003's n-player approximation, measured exactly: the evaluation timed against the solve, same process.

Run: python bench/approximation.py [--variant pig] [--players 3] [--goal G] [--games-per-pass B]
Solves the exact n-player first-to-goal policy (not cached), then pushes the game chain forward with
each seat in turn playing the 2-player policy against the highest opponent score (B games per pass,
default all that fit in 4 GiB), and prints each seat's exact loss, the check that the all-exact game
reproduces the solver, the times (solve, evaluation and their ratio) and the peak memory.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from pigdice.rules import find_variant
from pigdice.solve.n.nplayer import solve_players
from pigdice.study.analysis.approximation import (
    Game,
    approximate_turns,
    approximation_bytes,
    choose_goal,
    evaluate_games,
    evaluation_bytes,
)
from pigdice.study.question_limits import APPROXIMATION_BYTES


def peak_rss() -> str:
    """Return the process's peak resident memory, e.g. '3.1 GiB'."""
    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB"


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="pig")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--goal", type=int, default=None)
    parser.add_argument("--games-per-pass", type=int, default=0)
    args = parser.parse_args()
    n = args.players
    base = find_variant(args.variant)
    goal, note = choose_goal(base.first_to_goal(), n, args.goal)
    variant = base.with_goal(goal).first_to_goal()
    print(f"{variant.name}, {n} players, {note}")

    started = time.perf_counter()
    small = solve_players(variant.with_goal(8), n)
    evaluate_games(small, [Game(0, True)], approximate_turns(small.variant))
    print(f"first calls (numba compile or cache load): {time.perf_counter() - started:.2f} s")

    started = time.perf_counter()
    policy = solve_players(variant, n)
    solve_seconds = time.perf_counter() - started
    print(f"solve: {solve_seconds:.1f} s, regret {policy.regret:.1e}, peak memory {peak_rss()}")

    started = time.perf_counter()
    turns = approximate_turns(variant)
    games = [Game(seat, True) for seat in range(n)] + [Game(0, False)]
    room = (APPROXIMATION_BYTES - approximation_bytes(goal, n, policy.table.has_reset, 0)) // evaluation_bytes(
        goal, n, 1
    )
    batch = args.games_per_pass or max(1, min(len(games), int(room)))
    if batch < len(games):
        games = games[:n]  # the all-exact check would cost a pass of its own
    wins: list[np.ndarray] = []
    for first in range(0, len(games), batch):
        wins.extend(evaluate_games(policy, games[first : first + batch], turns).wins)
    evaluation_seconds = time.perf_counter() - started
    optimal = policy.win_probability_by_seat()
    for seat in range(n):
        loss = optimal[seat] - wins[seat][seat]
        print(
            f"  seat {seat + 1}: exact {optimal[seat]:.6f}, approximation {wins[seat][seat]:.6f}, "
            f"loss {loss:.6f} ({100 * loss / optimal[seat]:.2f}%)"
        )
    if len(wins) > n:
        print(f"  all exact, evaluated: largest difference from the solver {np.abs(wins[n] - optimal).max():.1e}")
    passes = -(-len(games) // batch)
    print(
        f"evaluation: {evaluation_seconds:.1f} s for {len(games)} games in {passes} pass(es) of {batch}: "
        f"{evaluation_seconds / solve_seconds:.2f} x the solve; peak memory {peak_rss()}"
    )


if __name__ == "__main__":
    main()
