"""Where a reset game's solve spends its time: each full pass and each settling, and the first pass's recording.

Run: python bench/reset_passes.py [--goals 50,100,200] [--runs 6]
For Two-Dice Pig, Big Pig with 1-1 resetting the score and Piggy Six (first to the goal), prints
the CPU time of each pass (full or checked, ``holdspread.check_pair``) and each settling of the
reset values by spread passes, in order; then the whole warm solve with the first pass recording
its spread (``solver.RECORD_FIRST_PASS``, the default) against recording only once a pass moved the
reset values by less than ``solver.SPREAD_BELOW`` (as before), runs alternating in this process,
each as a ratio to Pig's solve, with the passes and how far apart the two solves' values lie.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve import solve_uncached, solver
from pigdice.solve.two import diesweep

RESETS = ("two-dice-pig", "big-pig-reset", "piggy-six")


def timed(log: list[tuple[str, float]], name: str, work: Callable[..., Any]) -> Callable[..., Any]:
    """Return ``work`` wrapped to append (name, its CPU seconds) to ``log`` at each call."""

    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        result = work(*args, **kwargs)
        log.append((name, time.process_time() - started))
        return result

    return run


def steps(variant: Variant) -> str:
    """Return each pass ("pass") and settling ("settle") of one solve of ``variant`` with its CPU time, in order."""
    log: list[tuple[str, float]] = []
    levels, settle = diesweep.die_levels, solver.settle_resets
    solver.diesweep.die_levels = timed(log, "pass", levels)  # type: ignore[attr-defined]
    solver.settle_resets = timed(log, "settle", settle)
    try:
        solve_uncached(variant)
    finally:
        solver.diesweep.die_levels = levels  # type: ignore[attr-defined]
        solver.settle_resets = settle
    return ", ".join(f"{name} {seconds * 1e3:.2f}" for name, seconds in log)


def cpu(work: Callable[[], object]) -> float:
    """Return the CPU seconds ``work()`` took."""
    started = time.process_time()
    work()
    return time.process_time() - started


def compare(goal: int, runs: int) -> None:
    """Print each reset game's solve to ``goal`` recording from the first pass and later, as ratios to Pig's."""
    pig = find_variant("pig", goal=goal).with_endgame("first-to-goal")
    games = {name: find_variant(name, goal=goal).with_endgame("first-to-goal") for name in RESETS}
    for variant in (pig, *games.values()):
        solve_uncached(variant.with_goal(20))  # compile
    print(f"goal {goal}: each pass and settling, CPU ms, in order (first pass recording):")
    for name, variant in games.items():
        print(f"  {name}: {steps(variant)}")
    times: dict[tuple[bool, str], list[float]] = {}
    passes: dict[tuple[bool, str], int] = {}
    values: dict[tuple[bool, str], np.ndarray] = {}
    for _ in range(runs):
        for first in (False, True):
            solver.RECORD_FIRST_PASS = first
            times.setdefault((first, "pig"), []).append(cpu(partial(solve_uncached, pig)))
            for name, variant in games.items():
                policy = solve_uncached(variant)
                passes[first, name], values[first, name] = policy.iterations, policy.values
                times.setdefault((first, name), []).append(cpu(partial(solve_uncached, variant)))
    solver.RECORD_FIRST_PASS = True
    print(f"goal {goal}: warm solves, fastest of {runs}, runs alternating, recording later -> from the first pass:")
    for name in ("pig", *RESETS):
        row = []
        for first in (False, True):
            best = min(times[first, name])
            row.append(f"{best * 1e3:.2f} ms = {best / min(times[first, 'pig']):.2f}x")
        extra = ""
        if name != "pig":
            apart = float(np.abs(values[False, name] - values[True, name]).max())
            extra = f"; passes {passes[False, name]} -> {passes[True, name]}; values apart {apart:.1e}"
        print(f"  {name}: {row[0]} -> {row[1]}{extra}")


def main() -> None:
    """Parse the goals and print the figures for each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", default="100", help="goals separated by commas, e.g. 50,100,200")
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args()
    try:
        goals = [int(goal) for goal in args.goals.split(",")]
    except ValueError:
        parser.error(f"--goals takes whole numbers separated by commas, e.g. 50,100,200, not {args.goals!r}")
    if any(not 20 <= goal <= 250 for goal in goals) or args.runs < 1:
        parser.error("--goals must each be from 20 to 250, --runs at least 1")
    for goal in goals:
        compare(goal, args.runs)


if __name__ == "__main__":
    main()
