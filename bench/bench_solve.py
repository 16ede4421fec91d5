"""Solver benchmark: the numba solver against a plain-numpy value-iteration baseline, same process.

Run: python bench/bench_solve.py [--big]
Prints the compile time (a fresh numba cache), the warm solve of Pig (goal 100, to 1e-12)
against a Pig-only kernel running the same algorithm and against plain-numpy value iteration,
then every variant's warm solve at goal 100 as a ratio to Pig's; --big also solves Pig to goal
1000 (about 5e8 states) and reports time and peak memory. Times are the process's CPU time
(the kernels run on one thread), so other work on a shared machine moves them little.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="pigdice-numba-"))  # compile from scratch

import numpy as np
from numba import njit

from pigdice.rules import find_variant
from pigdice.rules.registry import variant_names
from pigdice.solve import solve_uncached
from pigdice.solve.tables import effect_table
from pigdice.solve.two import rollhold

TOLERANCE = 1e-12


def numpy_value_iteration(goal: int) -> tuple[float, int, float]:
    """Plain-numpy Jacobi value iteration on Pig's full (i, j, k) array; return P(0,0,0), sweeps, seconds."""
    started = time.process_time()
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
            return float(P[0, 0, 0]), sweeps, time.process_time() - started


SIXTH = 1.0 / 6.0


@njit(cache=False)
def _pig_sweep(i, j, goal, V, x, c, d, bounds):  # pragma: no cover - numba
    """One Pig turn at (i, j) given the partner value x: the solver's sweep with Pig's die written in."""
    top = goal - i
    lo = -1e300
    hi = 1e300
    for k in range(top - 1, -1, -1):
        if k == 0:
            hold_c, hold_d = 1.0, -1.0
        else:
            hold_c, hold_d = 1.0 - V[j, i + k], 0.0
        roll_c, roll_d = SIXTH, -SIXTH
        for face in range(2, 7):
            if k + face < top:
                roll_c += SIXTH * c[k + face]
                roll_d += SIXTH * d[k + face]
            else:
                roll_c += SIXTH
        if roll_c + roll_d * x > hold_c + hold_d * x or (k == 0 and roll_c + roll_d * x >= hold_c + hold_d * x):
            best_c, best_d, other_c, other_d = roll_c, roll_d, hold_c, hold_d
        else:
            best_c, best_d, other_c, other_d = hold_c, hold_d, roll_c, roll_d
        slope = best_d - other_d
        if slope >= 1e-12:
            lo = max(lo, (other_c - best_c) / slope)
        elif slope <= -1e-12:
            hi = min(hi, (other_c - best_c) / slope)
        c[k] = best_c
        d[k] = best_d
    bounds[0] = lo
    bounds[1] = hi


@njit(cache=False)
def _guess(V, i, j, goal):  # pragma: no cover - numba
    """The solver's first guess of V[i, j] from the level above."""
    if j + 2 < goal:
        return min(max(2.0 * V[i, j + 1] - V[i, j + 2], 0.0), 1.0)
    return V[i, j + 1] if j + 1 < goal else 0.5


@njit(cache=False)
def specialised_pig(goal):  # pragma: no cover - numba
    """Pig's values by the solver's algorithm (levels high to low, each pair by policy iteration on
    its 2x2 system, stopping when the partner values stay in the choices' range), Pig only."""
    V = np.full((goal, goal), 0.5)
    C = np.zeros((goal, goal + 1))
    D = np.zeros((goal, goal + 1))
    bounds = np.zeros(2)
    for s in range(2 * goal - 2, -1, -1):
        for i in range(max(0, s - goal + 1), s // 2 + 1):
            j = s - i
            x = _guess(V, i, j, goal)
            z = _guess(V, j, i, goal)
            for _ in range(100):
                _pig_sweep(i, j, goal, V, z, C[i], D[i], bounds)
                c1, d1, lo1, hi1 = C[i, 0], D[i, 0], bounds[0], bounds[1]
                if i == j:
                    xn = c1 / (1.0 - d1) if d1 < 1.0 else c1
                    zn, lo2, hi2 = xn, lo1, hi1
                else:
                    _pig_sweep(j, i, goal, V, x, C[j], D[j], bounds)
                    c2, d2, lo2, hi2 = C[j, 0], D[j, 0], bounds[0], bounds[1]
                    det = 1.0 - d1 * d2
                    xn = (c1 + d1 * c2) / det if abs(det) > 1e-12 else c1 + d1 * z
                    zn = c2 + d2 * xn
                stable = lo1 - 1e-14 <= zn <= hi1 + 1e-14 and lo2 - 1e-14 <= xn <= hi2 + 1e-14
                stable = stable or (abs(xn - x) <= 1e-15 and abs(zn - z) <= 1e-15)
                x, z = xn, zn
                if stable:
                    break
            V[i, j] = x
            V[j, i] = z
    return V


def generic_kernel_time(goal: int, runs: int = 5) -> float:
    """Return the fastest of ``runs`` calls of the generic level kernel alone on Pig (no Python around it)."""
    game = rollhold.game_of(goal, effect_table(find_variant("pig", goal=goal)))
    rows = rollhold.level_rows(game)
    times = []
    for _ in range(runs):
        values = np.full((goal, goal), 0.5)
        started = time.process_time()
        rollhold.solve_levels(values, values, 2 * goal - 2, 0, game, rows, True, True)
        times.append(time.process_time() - started)
    return min(times)


def best_of(runs: int, name: str, goal: int) -> float:
    """Return the fastest of ``runs`` warm solves of ``name`` to ``goal``."""
    variant = find_variant(name, goal=goal)
    times = []
    for _ in range(runs):
        started = time.process_time()
        solve_uncached(variant)
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    """Run the benchmark and print the figures."""
    started = time.process_time()
    policy = solve_uncached(find_variant("pig"))
    first = time.process_time() - started
    pig = best_of(5, "pig", 100)
    print(
        f"pig goal 100: P(first wins) = {policy.values[0, 0]:.6f}, {policy.states:,} states, "
        f"residual {policy.residual:.1e}"
    )
    print(f"  first call (numba compile, fresh cache): {first:.2f} s")
    print(f"  warm solve: {pig * 1000:.1f} ms")
    special = specialised_pig(100)
    times = []
    for _ in range(5):
        started = time.process_time()
        specialised_pig(100)
        times.append(time.process_time() - started)
    kernel = generic_kernel_time(100)
    print(
        f"  a Pig-only kernel, the same algorithm: {min(times) * 1000:.1f} ms; the generic kernel takes "
        f"{kernel * 1000:.1f} ms = {kernel / min(times):.2f} x (target 1.5 x), "
        f"the whole solve {pig / min(times):.2f} x; "
        f"values apart by at most {np.abs(special - policy.values).max():.1e}"
    )
    print("every variant at goal 100, first to the goal, warm, as a ratio to Pig (passes: whole sweeps)")
    for name in variant_names():
        variant = find_variant(name, goal=100)
        if variant.is_simultaneous:
            continue  # Swine Herd: bench/swine_herd.py
        variant = variant.with_endgame("first-to-goal")
        solve_uncached(variant.with_goal(20))  # compile its kernels
        times = []
        for _ in range(3):
            started = time.process_time()
            solved = solve_uncached(variant)
            times.append(time.process_time() - started)
        print(f"  {name:16s} {min(times) * 1000:8.1f} ms {min(times) / pig:6.1f} x  {solved.iterations:3d} passes")
    value, sweeps, baseline = numpy_value_iteration(100)
    print(f"plain-numpy value iteration (baseline): {baseline:.2f} s, {sweeps} sweeps, P = {value:.6f}")
    print(f"  speed-up of the numba solver over the baseline: {baseline / pig:.0f} x")
    if "--big" in sys.argv:
        started = time.process_time()
        big = solve_uncached(find_variant("pig", goal=1000))
        seconds = time.process_time() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"pig goal 1000: {seconds:.1f} s, {big.states:,} states, P = {big.values[0, 0]:.6f}, "
            f"hold at {big.start_action()} at the start, peak memory {peak:.0f} MiB"
        )


if __name__ == "__main__":
    main()
