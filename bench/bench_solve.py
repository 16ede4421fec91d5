"""Solver benchmark: the numba solver against a plain-numpy value-iteration baseline, same process.

Run: python bench/bench_solve.py [--big]
Prints the compile time (a fresh numba cache), warm solve times for Pig and Two-Dice Pig
(goal 100, to 1e-12), the plain-numpy baseline on Pig and the ratio; --big also solves Pig to
goal 1000 (about 5e8 states) and reports time and peak memory.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="pigdice-numba-"))  # compile from scratch

import numpy as np

from pigdice.rules import find_variant
from pigdice.solve import solve_uncached

TOLERANCE = 1e-12


def numpy_value_iteration(goal: int) -> tuple[float, int, float]:
    """Plain-numpy Jacobi value iteration on Pig's full (i, j, k) array; return P(0,0,0), sweeps, seconds."""
    started = time.perf_counter()
    i, j, k = np.meshgrid(np.arange(goal), np.arange(goal), np.arange(goal), indexing="ij")
    valid = i + k < goal
    target = np.minimum(i + k, goal - 1)
    P = np.where(valid, 0.5, 1.0)
    sweeps = 0
    while True:
        sweeps += 1
        start = P[:, :, 0]  # start[a, b] = P(a, b, 0)
        hold = np.where(valid, 1.0 - start[j, target], 1.0)
        padded = np.concatenate([P, np.ones((goal, goal, 6))], axis=2)
        roll = (1.0 - start.T[:, :, None]) / 6.0  # rolling a 1: the opponent starts at (j, i)
        for face in range(2, 7):
            roll = roll + padded[:, :, face : face + goal] / 6.0
        new = np.where(valid, np.maximum(hold, roll), 1.0)
        change = float(np.abs(new - P).max())
        P = new
        if change < TOLERANCE:
            return float(P[0, 0, 0]), sweeps, time.perf_counter() - started


def best_of(runs: int, name: str, goal: int) -> float:
    """Return the fastest of ``runs`` warm solves of ``name`` to ``goal``."""
    variant = find_variant(name, goal=goal)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        solve_uncached(variant)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    """Run the benchmark and print the figures."""
    started = time.perf_counter()
    policy = solve_uncached(find_variant("pig"))
    first = time.perf_counter() - started
    pig = best_of(5, "pig", 100)
    print(
        f"pig goal 100: P(first wins) = {policy.values[0, 0]:.6f}, {policy.states:,} states, "
        f"residual {policy.residual:.1e}"
    )
    print(f"  first call (numba compile, fresh cache): {first:.2f} s")
    print(f"  warm solve: {pig * 1000:.1f} ms")
    solve_uncached(find_variant("two-dice-pig", goal=20))  # compile the reset path
    two = best_of(3, "two-dice-pig", 100)
    print(f"two-dice-pig goal 100 warm: {two * 1000:.1f} ms = {two / pig:.1f} x pig")
    value, sweeps, baseline = numpy_value_iteration(100)
    print(f"plain-numpy value iteration (baseline): {baseline:.2f} s, {sweeps} sweeps, P = {value:.6f}")
    print(f"  speed-up of the numba solver over the baseline: {baseline / pig:.0f} x")
    if "--big" in sys.argv:
        started = time.perf_counter()
        big = solve_uncached(find_variant("pig", goal=1000))
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"pig goal 1000: {seconds:.1f} s, {big.states:,} states, P = {big.values[0, 0]:.6f}, "
            f"hold at {big.start_action()} at the start, peak memory {peak:.0f} MiB"
        )


if __name__ == "__main__":
    main()
