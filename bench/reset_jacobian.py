"""Why variants with resets take several passes: the Jacobian of one pass in the reset values.

Run: python bench/reset_jacobian.py [variant] [--goal N]   (default two-dice-pig, goal 100)
A pass maps the reset values w_j = V[j, 0] to the next w' = F(w) (every other value solved
exactly given w). At the solution F is affine to rounding, so its Jacobian J, taken here by
finite differences (one pass per reset value), says how fast passes converge (its spectral
radius), whether Krylov/Anderson mixing could help (how its eigenvalues cluster), and what a
Newton step would cost (J is dense: one pass per column). Prints those figures, and what a
spread pass (``holdspread``: the same pass with the policy held fixed) costs against a full one.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pigdice.errors import PigdiceError
from pigdice.rules import find_variant
from pigdice.rules.variant import Decision
from pigdice.solve import solve_uncached
from pigdice.solve.tables import effect_table
from pigdice.solve.two import holdspread, rollhold

STEP = 1e-6
MAX_GOAL = 300  # one pass per reset value: goal passes of goal^2 pairs


def main() -> None:
    """Measure J and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", nargs="?", default="two-dice-pig")
    parser.add_argument("--goal", type=int, default=100)
    args = parser.parse_args()
    goal = args.goal
    if not 2 <= goal <= MAX_GOAL:
        parser.error(f"--goal must be from 2 to {MAX_GOAL}, got {goal}")
    try:
        variant = find_variant(args.variant, goal=goal)
        if variant.is_simultaneous:
            parser.error(f"{variant.name}: everyone rolls together, no passes to measure (see bench/swine_herd.py)")
        variant = variant.with_endgame("first-to-goal")
        table = effect_table(variant)
    except PigdiceError as error:
        parser.error(str(error))
    if variant.decision is not Decision.ROLL_HOLD and variant.decision is not Decision.DICE_PER_ROLL:
        parser.error(f"{variant.name} chooses its dice once a turn: its solver has no passes to measure")
    if not table.has_reset:
        parser.error(f"{variant.name} has no reset: one pass solves it, there is no Jacobian to measure")
    solved = solve_uncached(variant)
    game = rollhold.game_of(goal, table)
    rows = rollhold.level_rows(game)

    def one_pass(w: np.ndarray) -> np.ndarray:
        values = solved.values.copy()
        values[:, 0] = w
        rollhold.solve_levels(values, values, 2 * goal - 2, 0, game, rows, False, True)
        return values[:, 0].copy()

    w = solved.values[:, 0].copy()
    started = time.perf_counter()
    base = one_pass(w)
    pass_seconds = time.perf_counter() - started
    jacobian = np.empty((goal, goal))
    for m in range(goal):
        moved = w.copy()
        moved[m] += STEP
        jacobian[:, m] = (one_pass(moved) - base) / STEP
    eigen = np.sort(np.abs(np.linalg.eigvals(jacobian)))[::-1]
    nonzero = (np.abs(jacobian[:, 1:]) > 1e-12).sum(axis=1)
    print(f"{variant.name} goal {goal}: {solved.iterations} passes of {pass_seconds * 1000:.1f} ms; fixed point moved "
          f"{np.abs(base - w).max():.1e} by one more pass")  # fmt: skip
    print(f"  spectral radius {eigen[0]:.4f}; next eigenvalues {', '.join(f'{e:.4f}' for e in eigen[1:6])}")
    print(f"  passes to 1e-12 from 0.5 at that rate: {np.log(1e-12 / 0.5) / np.log(eigen[0]):.1f}")
    print(f"  column w_0: mean {jacobian[1:, 0].mean():+.3f}; entries besides it non-zero per row: "
          f"median {int(np.median(nonzero))}, most {int(nonzero.max())} of {goal - 1}")  # fmt: skip
    print(f"  diagonal: {', '.join(f'{x:.4f}' for x in np.diag(jacobian)[1:6])} ... (1/36 = {1 / 36:.4f})")
    print(f"  a Newton step by this Jacobian costs {goal} passes ({goal * pass_seconds:.2f} s) against "
          f"{solved.iterations} passes for the solve")  # fmt: skip
    if holdspread.spreadable(game):
        spread = holdspread.new_spread(goal, table)
        values = solved.values.copy()
        for _ in range(2):  # the second of each, compiled
            started = time.perf_counter()
            rollhold.solve_levels(values, values, 2 * goal - 2, 0, game, rows, False, True, spread)
            recording = time.perf_counter() - started
        for _ in range(2):
            started = time.perf_counter()
            holdspread.spread_pass(values, spread)
            spread_seconds = time.perf_counter() - started
        print(f"  a pass recording the spread {recording * 1000:.1f} ms; a spread pass {spread_seconds * 1000:.2f} ms "
              f"({pass_seconds / spread_seconds:.0f} x cheaper than a full pass), its rate the same")  # fmt: skip


if __name__ == "__main__":
    main()
