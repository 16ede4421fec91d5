"""Solver benchmark: the numba solver against a plain-numpy value-iteration baseline, same process.

Run: python bench/bench_solve.py [--big] [--write] [--goals 50,100,200] [--floor 50,100,200]
Prints the compile time (a fresh numba cache), the warm solve of Pig (goal 100, to 1e-12)
against the floor kernel and against plain-numpy value iteration, pigdice's ratio to the floor
at goals 50 to 1000, then every variant's warm solve at goal 100 as a ratio to Pig's, first to the goal and
(``OWN_ENDINGS``) under the variant's own ending (--goals: only
that table, at each goal listed, each variant's fastest of three runs, runs alternating; --floor: only
the floor table, at each goal listed); --big
also solves Pig to goal 1000 (about 5e8 states) and reports time and peak memory. --write saves
the tables to bench/results/solver.md (dated, with the machine and its load), which the docs'
Benchmarks page includes.

The floor kernel (``floor_pig``) is the tightest Pig-only kernel of the solver's algorithm we
could write: score sums high to low, each pair by policy iteration on its 2x2 system with the
actions' bounds, the adds' run (2-6) as a window sum. Pig's die is written in, and a turn's six
latest totals live in registers, so a turn sweep reads one row of V and writes nothing. Its
values agree with pigdice's to 1e-13 (asserted). The ratios: the generic level kernel alone
(``diesweep.die_levels``: Pig's levels by its die sweep, others' by ``rollhold.solve_levels``) and the whole
``solve_uncached`` (the Python around it included). Times are the process's CPU time (the kernels
run on one thread), each the fastest of several runs (more at small goals, where a busy machine's
noise is a larger share), so other work on a shared machine moves them little.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="pigdice-numba-"))  # compile from scratch

import numpy as np
from numba import njit

from pigdice.rules import find_variant
from pigdice.rules.registry import variant_names
from pigdice.solve import solve_uncached
from pigdice.solve.tables import effect_table
from pigdice.solve.two import diesweep, rollhold
from pigdice.solve.two.endgame import solve_endgame
from report import machine_stamp, markdown_table, write_results

TOLERANCE = 1e-12
# Variants timed under their own ending too (a final round: the solve runs past the goal, and its last-turn
# table is part of it); the others' own endings are first to the goal or equal turns (solved by the sweeps)
OWN_ENDINGS = ("pig-dice",)


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
BOUNDS_SLACK = 1e-14  # as rollhold's
FLOOR_GOALS = (50, 100, 200, 500, 1000)
FLOOR_AGREEMENT = 1e-13  # the floor kernel's values and pigdice's agree this closely


@njit(cache=False, inline="always")
def _floor_narrow(lo, hi, gap, slope, chosen_rolls):  # pragma: no cover - numba
    """Return (lo, hi) narrowed to the partner values x at which gap + slope x keeps the chosen option's sign."""
    if chosen_rolls:
        if slope <= -1e-12:
            hi = min(hi, -gap / slope)
        elif slope >= 1e-12:
            lo = max(lo, -gap / slope)
    elif slope >= 1e-12:
        hi = min(hi, -gap / slope)
    elif slope <= -1e-12:
        lo = max(lo, -gap / slope)
    return lo, hi


@njit(cache=False, inline="always")
def _floor_turn(i, j, goal, V, x):  # pragma: no cover - numba
    """One Pig turn at (i, j) against the partner value x, in registers; return (c0, d0, lo, hi).

    The turn totals k + 1 .. k + 6 live in six registers per row (a win, (1, 0), from the top
    on), so the sweep reads only the hold values V[j, i + k] and writes nothing; the newest total
    enters the window's sum last, which keeps the chain from one total to the next short.
    """
    c1 = c2 = c3 = c4 = c5 = c6 = 1.0
    d1 = d2 = d3 = d4 = d5 = d6 = 0.0
    lo = -1e300
    hi = 1e300
    hold_row = V[j]
    for k in range(goal - i - 1, 0, -1):
        roll_c = SIXTH * (((1.0 + c6) + (c5 + c4)) + (c3 + c2))
        roll_d = SIXTH * (((d6 - 1.0) + (d5 + d4)) + (d3 + d2))
        hold_c = 1.0 - hold_row[i + k]
        rolls = roll_c + roll_d * x > hold_c  # ties hold
        lo, hi = _floor_narrow(lo, hi, roll_c - hold_c, roll_d, rolls)
        if rolls:
            c, d = roll_c, roll_d
        else:
            c, d = hold_c, 0.0
        c6, c5, c4, c3, c2, c1 = c5, c4, c3, c2, c1, c
        d6, d5, d4, d3, d2, d1 = d5, d4, d3, d2, d1, d
    roll_c = SIXTH * (((1.0 + c6) + (c5 + c4)) + (c3 + c2))
    roll_d = SIXTH * (((d6 - 1.0) + (d5 + d4)) + (d3 + d2))
    rolls = roll_c + roll_d * x >= 1.0 - x  # k = 0: holding passes (1 - x); ties roll
    lo, hi = _floor_narrow(lo, hi, roll_c - 1.0, roll_d + 1.0, rolls)
    if rolls:
        return roll_c, roll_d, lo, hi
    return 1.0, -1.0, lo, hi


@njit(cache=False, inline="always")
def _floor_guess(V, i, j, goal):  # pragma: no cover - numba
    """Return the solver's first guess of V[i, j], extrapolated from the level above."""
    if j + 2 < goal:
        return min(max(2.0 * V[i, j + 1] - V[i, j + 2], 0.0), 1.0)
    return V[i, j + 1] if j + 1 < goal else 0.5


@njit(cache=False)
def floor_pig(goal):  # pragma: no cover - numba
    """Pig's values by the solver's algorithm, Pig only: the floor its generic kernel is measured against.

    Levels (score sums) high to low; each pair V[i, j], V[j, i] by policy iteration on its 2x2
    affine system, stopping when both partner values lie in the range where the chosen actions
    stay optimal (``_floor_turn``'s bounds); no row arrays, no allocation but V.
    """
    V = np.empty((goal, goal))
    for s in range(2 * goal - 2, -1, -1):
        for i in range(max(0, s - goal + 1), s // 2 + 1):
            j = s - i
            x = _floor_guess(V, i, j, goal)
            z = _floor_guess(V, j, i, goal)
            for _ in range(100):
                c1, d1, lo1, hi1 = _floor_turn(i, j, goal, V, z)
                if i == j:
                    new_x = c1 / (1.0 - d1) if d1 < 1.0 else c1
                    new_z, lo2, hi2 = new_x, lo1, hi1
                else:
                    c2, d2, lo2, hi2 = _floor_turn(j, i, goal, V, x)
                    det = 1.0 - d1 * d2
                    new_x = (c1 + d1 * c2) / det if abs(det) > 1e-12 else c1 + d1 * z
                    new_z = c2 + d2 * new_x
                stable = lo1 - BOUNDS_SLACK <= new_z <= hi1 + BOUNDS_SLACK
                stable = stable and lo2 - BOUNDS_SLACK <= new_x <= hi2 + BOUNDS_SLACK
                stable = stable or (abs(new_x - x) <= 1e-15 and abs(new_z - z) <= 1e-15)
                x, z = new_x, new_z
                if stable:
                    break
            V[i, j] = x
            V[j, i] = z
    return V


def generic_kernel(goal: int) -> float:
    """Return the CPU seconds of one call of the generic level kernel alone on Pig (no Python around it)."""
    game = rollhold.game_of(goal, effect_table(find_variant("pig", goal=goal)))
    rows = rollhold.level_rows(game)
    values = np.full((goal, goal), 0.5)
    started = time.process_time()
    diesweep.die_levels(values, values, 2 * goal - 2, 0, game, rows, True, True)
    return time.process_time() - started


def timed(work: Callable[[], object]) -> float:
    """Return the CPU seconds ``work`` takes."""
    started = time.process_time()
    work()
    return time.process_time() - started


def floor_ratios(goals: Sequence[int]) -> dict[int, tuple[float, float, float]]:
    """Return per goal the fastest floor kernel, generic kernel and whole solve of Pig, runs alternating.

    Asserts first that the floor kernel's values agree with the solver's to ``FLOOR_AGREEMENT``.
    """
    floor_pig(20)  # compile
    figures = {}
    for goal in goals:
        variant = find_variant("pig", goal=goal)
        apart = float(np.abs(floor_pig(goal) - solve_uncached(variant).values).max())
        assert apart <= FLOOR_AGREEMENT, f"the floor kernel is {apart:.1e} off pigdice's values at goal {goal}"
        runs = 15 if goal <= 100 else 7 if goal <= 200 else 3 if goal <= 500 else 2
        floors, kernels, solves = [], [], []
        for _ in range(runs):
            floors.append(timed(partial(floor_pig, goal)))
            kernels.append(generic_kernel(goal))
            solves.append(timed(partial(solve_uncached, variant)))
        figures[goal] = (min(floors), min(kernels), min(solves))
    return figures


def print_floor(figures: dict[int, tuple[float, float, float]]) -> None:
    """Print pigdice's ratios to the floor kernel per goal."""
    print("pigdice against the floor (a Pig-only kernel of the same algorithm), CPU time, runs alternating:")
    print(f"  {'goal':>5s} {'floor':>10s} {'kernel':>10s} {'solve':>10s} {'kernel/floor':>13s} {'solve/floor':>12s}")
    for goal, (floor, kernel, solve) in figures.items():
        print(
            f"  {goal:5d} {floor * 1000:8.2f} ms {kernel * 1000:7.2f} ms {solve * 1000:7.2f} ms "
            f"{kernel / floor:12.2f}x {solve / floor:11.2f}x"
        )
    print("  (target: the solve within 1.5 x of the floor from goal 100 on)")


def best_of(runs: int, name: str, goal: int) -> float:
    """Return the fastest of ``runs`` warm solves of ``name`` to ``goal``."""
    variant = find_variant(name, goal=goal)
    times = []
    for _ in range(runs):
        started = time.process_time()
        solve_uncached(variant)
        times.append(time.process_time() - started)
    return min(times)


def variant_ratios(goal: int) -> None:
    """Print each turn-based variant's warm solve to ``goal`` (first to the goal) as a ratio to Pig's."""
    names = [name for name in variant_names() if not find_variant(name).is_simultaneous]
    variants = {name: find_variant(name, goal=goal).with_endgame("first-to-goal") for name in names}
    for variant in variants.values():
        solve_uncached(variant.with_goal(20))  # compile its kernels
    best = dict.fromkeys(names, float("inf"))
    passes = dict.fromkeys(names, 0)
    for _ in range(3):
        for name, variant in variants.items():
            started = time.process_time()
            passes[name] = solve_uncached(variant).iterations
            best[name] = min(best[name], time.process_time() - started)
    print(f"every variant at goal {goal}, first to the goal, warm, CPU time, as a ratio to Pig (runs alternating):")
    for name in names:
        print(f"  {name:16s} {best[name] * 1000:9.1f} ms {best[name] / best['pig']:6.1f} x  {passes[name]:3d} passes")


def own_ending_times(goal: int, runs: int = 3) -> list[tuple[str, float, int]]:
    """Return (title, the fastest of ``runs`` warm CPU times, passes) of each ``OWN_ENDINGS`` game, its own ending."""
    figures = []
    for name in OWN_ENDINGS:
        variant = find_variant(name, goal=goal)
        solve_endgame(variant.with_goal(20))  # compile its kernels
        times = []
        for _ in range(runs):
            started = time.process_time()
            solved = solve_endgame(variant)
            times.append(time.process_time() - started)
        ending = str(variant.endgame).replace("-", " ")
        figures.append((f"{variant.title}, {ending}", min(times), solved.iterations))
    return figures


def goals_after(option: str) -> list[int]:
    """Return the goals listed after ``option`` on the command line (exits with a one-line error if bad)."""
    index = sys.argv.index(option)
    try:
        goals = [int(goal) for goal in sys.argv[index + 1].split(",")]
    except (IndexError, ValueError):
        sys.exit(f"{option} takes goals separated by commas, e.g. {option} 50,100,200")
    if any(not 20 <= goal <= 1000 for goal in goals):
        sys.exit(f"{option}: each goal from 20 to 1000")
    return goals


def main() -> None:
    """Run the benchmark, print the figures and (``--write``) save them for the docs."""
    if "--goals" in sys.argv:
        for goal in goals_after("--goals"):
            variant_ratios(goal)
        return
    if "--floor" in sys.argv:
        print_floor(floor_ratios(goals_after("--floor")))
        return
    stamp = machine_stamp()
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
    figures = floor_ratios(FLOOR_GOALS)
    floor, kernel, _ = figures[100]
    print(
        f"  the floor kernel (Pig only, the same algorithm): {floor * 1000:.1f} ms; the generic kernel takes "
        f"{kernel * 1000:.1f} ms = {kernel / floor:.2f} x, the whole solve {pig / floor:.2f} x "
        f"(values agree to {FLOOR_AGREEMENT:.0e})"
    )
    print_floor(figures)
    print("every variant at goal 100, first to the goal, warm, as a ratio to Pig (passes: whole sweeps;")
    print("  reset games settle their reset values by cheap fixed-policy passes between them, not counted)")
    variants = []
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
        variants.append((variant.title, min(times), solved.iterations))
    print(
        "  (target: the reset games - Two-Dice Pig, Big Pig with resets, Piggy Six - within 5 x, Pig Dice within 10 x)"
    )
    print("under their own ending at goal 100, warm, as a ratio to Pig (first to the goal):")
    own = own_ending_times(100)
    for title, seconds, passes in own:
        print(f"  {title:40s} {seconds * 1000:8.1f} ms {seconds / pig:6.1f} x  {passes:3d} passes")
    value, sweeps, baseline = numpy_value_iteration(100)
    print(f"plain-numpy value iteration (baseline): {baseline:.2f} s, {sweeps} sweeps, P = {value:.6f}")
    print(f"  speed-up of the numba solver over the baseline: {baseline / pig:.0f} x")
    big = None
    if "--big" in sys.argv:
        started = time.process_time()
        solved_big = solve_uncached(find_variant("pig", goal=1000))
        seconds = time.process_time() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        big = (seconds, peak)
        print(
            f"pig goal 1000: {seconds:.1f} s, {solved_big.states:,} states, P = {solved_big.values[0, 0]:.6f}, "
            f"hold at {solved_big.start_action()} at the start, peak memory {peak:.0f} MiB"
        )
    if "--write" in sys.argv:
        pig_rows = [
            [
                "Pig goal 100, to a residual of 1e-12",
                f"{pig * 1000:.1f} ms; the first player wins {policy.values[0, 0]:.6f}",
            ],
            ["the first solve, compiling on an empty kernel cache", f"{first:.2f} s"],
            [
                "plain-numpy value iteration on Pig (the baseline)",
                f"{baseline:.1f} s, {sweeps} sweeps: {baseline / pig:,.0f} x",
            ],
        ]
        if big is not None:
            pig_rows.append(["Pig goal 1000 (about 5e8 states)", f"{big[0]:.1f} s, peak memory {big[1]:.0f} MiB"])
        floor_rows = [
            [
                str(goal),
                f"{f * 1000:.2f} ms",
                f"{k * 1000:.2f} ms",
                f"{s_ * 1000:.2f} ms",
                f"{k / f:.2f} x",
                f"{s_ / f:.2f} x",
            ]
            for goal, (f, k, s_) in figures.items()
        ]
        variant_rows = [[title, f"{t * 1000:.1f} ms", f"{t / pig:.1f} x", str(passes)] for title, t, passes in variants]
        path = write_results(
            "solver",
            "python bench/bench_solve.py --write" + (" --big" if big is not None else ""),
            stamp,
            [
                ("", markdown_table(["what", "figure"], pig_rows)),
                (
                    "Against the floor: a Pig-only kernel of the same algorithm, CPU time, runs alternating",
                    markdown_table(
                        ["goal", "floor", "generic kernel", "whole solve", "kernel / floor", "solve / floor"],
                        floor_rows,
                    ),
                ),
                (
                    "Every variant at goal 100, first to the goal, warm, as a ratio to Pig",
                    markdown_table(["variant", "solve", "ratio to Pig", "passes"], variant_rows),
                ),
                (
                    "Under its own ending at goal 100 (its last-turn table included), warm, as a ratio to Pig",
                    markdown_table(
                        ["variant, ending", "solve", "ratio to Pig", "passes"],
                        [[title, f"{t * 1000:.1f} ms", f"{t / pig:.1f} x", str(n)] for title, t, n in own],
                    ),
                ),
            ],
        )
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
