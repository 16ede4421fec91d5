"""How far the web's win chance for a table of three is from the exact one, where no exact solver is at hand.

With 3+ players and no exact solve, the game page shows each player's chance to be the winner estimated
from the 2-player game (``pigdice.players.tablechance``): the product of a player's 2-player chances against
every other player, scaled so the table's chances add up to one. This compares that estimate with the exact
3-player solution at every turn start (every second score in Pig, every score in Swine Herd) and prints the
mean and the largest error of the worst-placed seat, in points of chance: the figures the hint's note and
docs/play/rooms.md quote.

    python bench/web_table_chances.py            # 3-player Pig to 30 (seconds)
    python bench/web_table_chances.py --herd     # and 3-player Swine Herd to 20 (minutes: its exact solve)
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import replace

import numpy as np

from pigdice.engine.game import new_game
from pigdice.players.optimal import Optimal, position_of, seat_chances
from pigdice.players.tablechance import table_chances
from pigdice.rules.registry import find_variant


def pig_errors(goal: int) -> list[float]:
    """Return the estimate's largest seat error at every turn start of 3-player Pig (scores in steps of 2)."""
    variant = find_variant("pig", goal=goal)
    advisor = Optimal(variant)
    exact = advisor.exact(3)
    assert exact is not None
    start = new_game(variant, 3)
    errors = []
    for scores in itertools.product(range(0, goal, 2), repeat=3):
        state = replace(start, scores=scores)
        estimate = table_chances(state, advisor)
        assert estimate is not None
        truth = seat_chances(state, exact.win_vector(position_of(state)))
        errors.append(max(abs(a - b) for a, b in zip(estimate, truth, strict=True)))
    return errors


def herd_errors(goal: int) -> list[float]:
    """Return the estimate's largest seat error at every turn start of 3-player Swine Herd."""
    from pigdice.solve.herd.swineherd_n import solve_swine_herd_n

    variant = find_variant("swine-herd", goal=goal)
    exact = solve_swine_herd_n(variant, 3)
    advisor = Optimal(variant)
    start = new_game(variant, 3)
    errors = []
    for scores in itertools.product(range(goal), repeat=3):
        estimate = table_chances(replace(start, scores=scores), advisor)
        assert estimate is not None
        errors.append(max(abs(a - b) for a, b in zip(estimate, exact.value(scores), strict=True)))
    return errors


def report(name: str, errors: list[float], seconds: float) -> None:
    """Print the mean and largest error in points of chance."""
    points = 100 * np.asarray(errors)
    print(f"{name}: {len(points)} turn starts, off by {points.mean():.1f} points on average, at most "
          f"{points.max():.1f} ({seconds:.0f} s)")  # fmt: skip


def main() -> None:
    """Measure the table estimate against the exact 3-player solutions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--herd", action="store_true", help="also Swine Herd to 20 (solves it exactly: minutes)")
    args = parser.parse_args()
    started = time.perf_counter()
    report("3-player Pig to 30", pig_errors(30), time.perf_counter() - started)
    if args.herd:
        started = time.perf_counter()
        report("3-player Swine Herd to 20", herd_errors(20), time.perf_counter() - started)


if __name__ == "__main__":
    main()
