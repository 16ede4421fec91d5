"""n-player solver benchmark: the numba cycle solver against plain-numpy value iteration, same process.

Run: python bench/nplayer.py [--players 3] [--variant pig] [--endgame E] [--goal 100] [--games N] [--seed S]
[--threads T]
Without --goal: 3-player Pig at goals 25, 50 and 100 (warm, best of a few; the process's CPU time, every
thread, and wall time), then a plain-numpy Jacobi value iteration of the same game at a small goal and the
ratio to the solver there. With --endgame (final-round, equal-turns): the same goals under that
ending, each with the ratio to the first-to-goal solve of the same game in this run. With --goal:
one solve of that size (e.g. --players 4 --goal 100, the long run), reporting time, turn sweeps
per state, the peak memory of the process and the start vector. --threads: threads per solve
(default: every core; 1 for the one-thread figure). --games N
also plays N games of the solved policy through the engine and prints each seat's wins with a 99.9%
Wilson interval around the exact probability (the cross-check of the values pinned in the tests).
"""

from __future__ import annotations

import argparse
import math
import resource
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from pigdice.engine.game import Action, apply, new_game, parse_action
from pigdice.players.optimal import position_of
from pigdice.rules import find_variant
from pigdice.solve.n.nplayer import PlayersPolicy, solve_players
from pigdice.solve.positions import INDIFFERENCE
from pigdice.solve.threads import solver_threads

TOLERANCE = 1e-12
BASELINE_GOAL = 20
Z_999 = 3.2905  # two-sided 99.9% normal quantile


def numpy_value_iteration(goal: int, players: int) -> tuple[np.ndarray, int, float]:
    """Plain-numpy Jacobi value iteration of n-player Pig on the full (scores, k) array, vectors mover first.

    Returns the turn-start vectors (goal,) * players + (players,), the sweeps and the seconds.
    The tie-break is the solvers' (roll at k = 0, hold at k > 0, unless the other is better by
    more than INDIFFERENCE).
    """
    started = time.perf_counter()
    n = players
    states = goal**n
    scores = np.indices((goal,) * n).reshape(n, states)  # scores[r, s]: player r's score in state s
    a0 = scores[0][:, None]
    k = np.arange(goal)[None, :]
    valid = a0 + k < goal
    rest = (np.ravel_multi_index(tuple(scores[1:]), (goal,) * (n - 1)) * goal)[:, None]
    unit = np.zeros(n)
    unit[0] = 1.0
    bust = (rest + a0)[:, 0]  # the rotation (a_1, ..., a_{n-1}, a_0)
    hold_to = rest + np.minimum(a0 + k, goal - 1)
    hold_won = a0 + k >= goal
    P = np.where(valid[..., None], 1.0 / n, unit)
    sweeps = 0
    while True:
        sweeps += 1
        start = P[:, 0, :]
        # the next mover's vector seen from the old mover: entry r is the next state's entry r - 1
        hold = np.where(hold_won[..., None], unit, np.roll(start[hold_to], 1, axis=-1))
        roll = np.broadcast_to(np.roll(start[bust], 1, axis=-1)[:, None, :] / 6.0, P.shape).copy()
        for face in range(2, 7):
            nk = k + face
            inside = (a0 + nk < goal)[..., None]
            ahead = P[:, np.minimum(nk[0], goal - 1), :]
            roll += np.where(inside, ahead, unit) / 6.0
        pick_roll = np.where(
            k == 0, hold[..., 0] <= roll[..., 0] + INDIFFERENCE, roll[..., 0] > hold[..., 0] + INDIFFERENCE
        )
        new = np.where(valid[..., None], np.where(pick_roll[..., None], roll, hold), unit)
        change = float(np.abs(new - P).max())
        P = new
        if change < TOLERANCE:
            return P[:, 0, :].reshape((goal,) * n + (n,)), sweeps, time.perf_counter() - started


def timed(run: Callable[[], PlayersPolicy], repeats: int) -> tuple[PlayersPolicy, float, float]:
    """Return the policy and the best wall and CPU seconds (the process's, every thread) of ``repeats`` runs."""
    best_wall = best_cpu = math.inf
    policy = None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        policy = run()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    assert policy is not None
    return policy, best_wall, best_cpu


def peak_rss() -> str:
    """Return the peak resident memory of this process so far."""
    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB"


def describe(policy: PlayersPolicy) -> str:
    """Return the cycles, turn sweeps per score tuple and the cycles left without consistent choices."""
    stats = policy.stats
    if stats is None:
        return "loaded, no solve statistics"
    tuples = policy.values.size // policy.values.shape[-1]  # compact values keep players - 1 entries a tuple
    return (
        f"{stats.cycles:,} cycles, {stats.sweeps / tuples:.3f} turn sweeps per score tuple, "
        f"{stats.mixed} cycles with a mixed equilibrium (largest gain of another plan {stats.mix_gain:.1e}), "
        f"{stats.unsettled} without one (largest regret {stats.regret:.1e})"
    )


def wilson(wins: int, games: int) -> tuple[float, float]:
    """Return the 99.9% Wilson score interval of a win rate."""
    p = wins / games
    z2 = Z_999 * Z_999
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = Z_999 * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    return centre - half, centre + half


def play(policy: PlayersPolicy, games: int, seed: int) -> list[int]:
    """Play ``games`` games of the policy against itself through the engine; return the wins per seat."""
    rng = np.random.default_rng(seed)
    n = policy.players
    wins = [0] * n
    actions: dict[str, Action] = {}
    draw = [-1, 0.0]  # the turn it was made for, the draw (a mixed equilibrium draws its plan once per turn)

    def turn_draw() -> float:
        if draw[0] != state.turn:
            draw[0], draw[1] = state.turn, float(rng.random())
        return float(draw[1])

    for _ in range(games):
        state = new_game(policy.variant, n)
        draw[0] = -1
        while state.winners is None:
            choice = policy.play(position_of(state), turn_draw)
            action = actions.get(choice)
            if action is None:
                action = actions[choice] = parse_action(choice)
            state, _ = apply(state, action, rng)
        for winner in state.winners:
            wins[winner] += 1
    return wins


def cross_check(policy: PlayersPolicy, games: int, seed: int) -> None:
    """Print each seat's Monte Carlo wins with a 99.9% Wilson interval around the exact value."""
    started = time.perf_counter()
    wins = play(policy, games, seed)
    exact = policy.win_probability_by_seat()
    print(f"  Monte Carlo through the engine: {games:,} games (seed {seed}), {time.perf_counter() - started:.0f} s")
    for seat, (won, value) in enumerate(zip(wins, exact, strict=True)):
        low, high = wilson(won, games)
        verdict = "inside" if low <= value <= high else "OUTSIDE"
        print(f"  seat {seat}: exact {value:.6f}, simulated {won / games:.4f} [{low:.4f}, {high:.4f}] {verdict}")


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--goal", type=int, default=None)
    parser.add_argument("--variant", default="pig")
    parser.add_argument("--endgame", default=None, help="final-round or equal-turns (default: the variant's)")
    parser.add_argument("--games", type=int, default=0)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--threads", type=int, default=None, help="threads per solve (default: every core)")
    args = parser.parse_args()
    n = args.players
    threads = solver_threads(args.threads)
    print(f"{threads} thread(s) per solve")

    ending = {"endgame": args.endgame} if args.endgame else {}
    started = time.perf_counter()
    solve_players(find_variant(args.variant, goal=8, **ending), n)
    print(f"first call (numba compile or cache load): {time.perf_counter() - started:.2f} s")

    if args.goal is not None:
        variant = find_variant(args.variant, goal=args.goal, **ending)
        last = [0.0]

        def progress(fraction: float, label: str) -> None:
            if fraction - last[0] >= 0.1 or fraction >= 1.0:
                last[0] = fraction
                print(f"  {label}: {fraction:.0%} after {time.perf_counter() - begun:.0f} s", flush=True)

        begun = time.perf_counter()
        policy, wall, cpu = timed(lambda: solve_players(variant, n, progress=progress, threads=threads), 1)
        print(
            f"{args.variant} {n} players goal {args.goal}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
            f"{policy.values.size // policy.values.shape[-1]:,} score tuples, {policy.states:,} decision points, "
            f"residual {policy.residual:.1e}, peak memory {peak_rss()}"
        )
        print(f"  seats: {', '.join(f'{p:.6f}' for p in policy.win_probability_by_seat())}")
        print(f"  start vector: {', '.join(repr(p) for p in policy.win_probability_by_seat())}")
        print(f"  {describe(policy)}")
        if args.games:
            cross_check(policy, args.games, args.seed)
        return

    if args.endgame:
        for goal in (25, 50, 100):
            plain = find_variant(args.variant, goal=goal, endgame="first-to-goal")
            _, _, base = timed(partial(solve_players, plain, n), 1)
            policy, wall, cpu = timed(partial(solve_players, find_variant(args.variant, goal=goal, **ending), n), 1)
            seats = ", ".join(f"{p:.6f}" for p in policy.win_probability_by_seat())
            print(
                f"{args.variant} {n} players goal {goal} {args.endgame}: {cpu:.2f} s CPU ({wall:.2f} s wall), "
                f"{cpu / base:.1f} x first to the goal ({base:.2f} s), peak memory {peak_rss()}, seats {seats}"
            )
            print(f"  {describe(policy)}")
        return

    timings = {}
    for goal in (25, 50, 100):
        variant = find_variant(args.variant, goal=goal)
        policy, wall, cpu = timed(partial(solve_players, variant, n, threads=threads), 3 if goal < 100 else 2)
        timings[goal] = cpu
        seats = ", ".join(f"{p:.6f}" for p in policy.win_probability_by_seat())
        print(f"{args.variant} {n} players goal {goal}: {cpu:.3f} s CPU ({wall:.3f} s wall), seats {seats}")
        print(f"  {describe(policy)}")
    if args.variant == "pig" and n <= 3:
        small = find_variant("pig", goal=BASELINE_GOAL)
        policy, _, solver_cpu = timed(lambda: solve_players(small, n), 5)
        cpu = time.thread_time()
        values, sweeps, _ = numpy_value_iteration(BASELINE_GOAL, n)
        baseline = time.thread_time() - cpu
        difference = float(np.abs(values - policy.values).max())
        print(
            f"plain-numpy value iteration, goal {BASELINE_GOAL} (baseline): {baseline:.2f} s CPU, {sweeps} sweeps, "
            f"largest difference from the solver {difference:.1e}"
        )
        print(f"  the solver at goal {BASELINE_GOAL}: {solver_cpu * 1000:.1f} ms: {baseline / solver_cpu:.0f} x faster")
        print(f"  goal 100 takes {timings[100] / solver_cpu:.0f} x the solver's goal {BASELINE_GOAL} time")
    print(f"peak memory {peak_rss()}")


if __name__ == "__main__":
    main()
