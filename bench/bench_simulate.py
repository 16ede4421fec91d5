"""Simulation benchmark: the numba simulator against the plain engine loop, same process.

Run: python bench/bench_simulate.py [--games N] [--engine-games N] [--exact-only]
Prints games per second of ``pigdice.study.simulate.simulate`` (the engine loop) and of
``pigdice.study.fastsim`` (one thread, then all threads) for Pig, hold at 20 against itself, goal 100,
and their ratio; then a few other pairs and variants, and the time of one exact head-to-head
evaluation next to a 1e5-game simulation; then, for every turn-based variant (first to 100), the
exact head-to-head of a simple robot against the optimal player next to 1e5 simulated games of the
same pair, in CPU time, each the fastest of three alternating runs (--exact-only: that table alone).
"per core" rates use this process's CPU time, so they hold on a busy machine too. Takes about a minute.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numba

from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.rules.registry import variant_names
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.fastsim import head_to_head_sim, simulate_tables
from pigdice.study.simulate import simulate


def timed(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """Return (result, wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return result, time.perf_counter() - wall, time.process_time() - cpu


# The simple robot each variant's exact head-to-head pits against the optimal player (hold:20 elsewhere)
ROBOTS = {"pig-dice": "max-score", "hog": "dice:5"}
EXACT_GAMES = 100_000


def exact_against_simulated() -> None:
    """Print every turn-based variant's exact head-to-head next to 1e5 simulated games, CPU time, runs alternating."""
    print(f"Exact head-to-head against {EXACT_GAMES:,} simulated games (first to 100, CPU time, fastest of 3):")
    for name in variant_names():
        if find_variant(name).is_simultaneous:
            continue  # Swine Herd: no head-to-head of action tables
        variant = find_variant(name).with_endgame("first-to-goal")
        robot = ROBOTS.get(name, "hold:20")
        ta = action_table(parse_strategy(robot, variant), variant)
        tb = action_table(parse_strategy("optimal", variant), variant)
        head_to_head(variant, ta, tb)  # load (or compile) both first: time the work alone
        head_to_head_sim(variant, ta, tb, 1_000, seed=3)
        exact_cpu, sim_cpu = float("inf"), float("inf")
        for _ in range(3):
            exact, _, cpu = timed(lambda v=variant, x=ta, y=tb: head_to_head(v, x, y))
            exact_cpu = min(exact_cpu, cpu)
            sim, _, cpu = timed(lambda v=variant, x=ta, y=tb: head_to_head_sim(v, x, y, EXACT_GAMES, seed=3))
            sim_cpu = min(sim_cpu, cpu)
        print(
            f"  {name:16s} {robot:>9s} vs optimal: exact {exact_cpu * 1000:7.1f} ms, simulated {sim_cpu * 1000:7.1f} ms"
            f" ({exact_cpu / sim_cpu:4.2f} x); P({robot} wins) exact {exact.average:.5f},"
            f" simulated {sim.wins / sim.games:.5f}"
        )
    print("  (target: the exact head-to-head faster than the simulation, below 1 x, for every variant)")


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4_000_000, help="games for the fast simulator")
    parser.add_argument("--engine-games", type=int, default=1_000, help="games for the engine loop")
    parser.add_argument("--exact-only", action="store_true", help="only the exact head-to-head against simulation")
    args = parser.parse_args()
    if args.exact_only:
        exact_against_simulated()
        return

    pig = find_variant("pig")
    hold20 = parse_strategy("hold:20", pig)
    table = action_table(hold20, pig)
    print(f"machine: {os.cpu_count()} CPUs, numba {numba.__version__}, {numba.get_num_threads()} threads")

    _, compile_wall, _ = timed(lambda: simulate_tables(pig, [table, table], 1000, seed=0))
    print(f"fast simulator first call (compile or load the numba cache): {compile_wall:.2f} s")
    simulate_tables(pig, [table, table], 1000, seed=0, parallel=True)

    engine, _, engine_cpu = timed(lambda: simulate(pig, [hold20, hold20], args.engine_games, seed=1))
    fast, fast_wall, fast_cpu = timed(lambda: simulate_tables(pig, [table, table], args.games, seed=1))
    par, par_wall, _ = timed(lambda: simulate_tables(pig, [table, table], args.games, seed=1, parallel=True))
    assert par.wins == fast.wins, "the parallel run must give the serial result"
    engine_rate = args.engine_games / engine_cpu
    fast_rate = args.games / fast_cpu
    print()
    print("Pig, hold:20 vs hold:20, goal 100")
    print(f"  engine loop    {args.engine_games:>10,} games  {engine_rate:>12,.0f} games/s per core")
    print(f"  fast simulator {args.games:>10,} games  {fast_rate:>12,.0f} games/s per core", end="")
    print(f"  ({args.games / fast_wall:,.0f} wall)")
    print(f"  fast, parallel {args.games:>10,} games  {args.games / par_wall:>12,.0f} games/s wall")
    print(f"  ratio fast / engine (per core): {fast_rate / engine_rate:,.0f}x")
    print(
        f"  first player wins: engine {engine.wins[0] / args.engine_games:.4f}, fast {fast.wins[0] / args.games:.4f};"
        f" mean turns: engine {engine.mean_turns:.2f}, fast {fast.mean_turns:.2f}"
    )

    print()
    print("Other pairs (fast simulator, one thread, per core)")
    for name, a, b in [
        ("pig", "keep-pace", "optimal"),
        ("two-dice-pig", "hold:20", "optimal"),
        ("pig-dice", "max-score", "optimal"),
        ("hog", "dice:5", "optimal"),
        ("piggy-six", "hold:20", "optimal"),
        ("big-pig", "hold:20", "optimal"),
        ("big-pig-reset", "hold:20", "optimal"),
    ]:
        variant = find_variant(name).with_endgame("first-to-goal")
        ta = action_table(parse_strategy(a, variant), variant)
        tb = action_table(parse_strategy(b, variant), variant)
        games = 1_000_000
        sim, _, cpu = timed(lambda v=variant, x=ta, y=tb, n=games: head_to_head_sim(v, x, y, n, seed=2))
        head_to_head(variant, ta, tb)  # load (or compile) the evaluation kernels first: time the evaluation alone
        exact, exact_wall, _ = timed(lambda v=variant, x=ta, y=tb: head_to_head(v, x, y))
        _, small_wall, _ = timed(lambda v=variant, x=ta, y=tb: head_to_head_sim(v, x, y, 100_000, seed=3))
        print(
            f"  {name:13s} {a:>9s} vs {b:<8s} {games / cpu:>11,.0f} games/s;"
            f" P({a} wins) exact {exact.average:.5f}, simulated {sim.wins / sim.games:.5f};"
            f" exact evaluation {exact_wall:.3f} s vs 1e5 games {small_wall:.3f} s ({exact_wall / small_wall:.2f} x)"
        )
    print()
    exact_against_simulated()


if __name__ == "__main__":
    main()
