"""The turn sweep of one die whose adds run from 2 up (Pig's family): the plain sweep with nothing else to test.

Pig's roll (a 1 busts, 2-6 add) is ``rollhold._plain_sweep``'s window and nothing else: no singles,
no triangle, no fixed actions, nothing recorded. Tested at every total, those options' checks cost
the plain sweep a fifth of Pig's solve (bench_solve: the level kernel 1.43 -> 1.13x the floor
kernel's time at goal 200), and a window that may start anywhere another tenth (the newest add's
value then comes from memory or a select, not a register). ``_die_sweep`` is that sweep for a
window from 2 alone, value for value the same arithmetic, so it gives the plain sweep's values bit
for bit; ``die_run_of`` says which tables take it (one die whose 1, alone, busts or resets), and
``die_levels`` solves their levels by it (the solver calls it for every roll/hold game).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.layout import SWEEP_PLAIN
from pigdice.solve.step import WITHOUT_REFCOUNTS
from pigdice.solve.tables import EffectTable
from pigdice.solve.two.bundles import Game
from pigdice.solve.two.holdspread import Checks, Spread
from pigdice.solve.two.rollhold import (
    MAX_PAIR_ROUNDS,
    LevelRows,
    LevelSweep,
    TurnBounds,
    _guess,
    _pair_settled,
    _pair_solution,
    _widen,
    solve_levels,
)

DIE_START = 2  # the window's first add: the one die's 1 is its only other face


class DieRun(NamedTuple):
    """One die's roll as ``_die_sweep`` reads it (``die_run_of``): adds 2..end at one chance, then busts and resets."""

    end: int  # the largest add (the die's top face)
    chance: float  # each add's chance
    bust: float  # the chance of losing the turn total
    reset: float  # the chance of losing the whole score


def die_run_of(t: EffectTable) -> DieRun | None:
    """Return the die sweep's reading of a plain table whose adds are one window from 2 up, else None."""
    window = t.sweep == SWEEP_PLAIN and t.window_chance > 0.0 and t.window_start == DIE_START
    if not window or t.singles.shape[0] > 0 or t.triangle_width > 0:
        return None
    return DieRun(
        int(t.window_end), float(t.window_chance), float(t.bust_probabilities[0]), float(t.reset_probabilities[0])
    )


@njit(cache=True)
def _die_sweep(i, j, V, x, goal, die, c, d):  # pragma: no cover - numba
    """``rollhold._plain_sweep`` for a ``DieRun``: one turn at (i, j) against the partner value x; fill c, d.

    The same values, ties and bounds (``TurnBounds``: the partner values x over which the chosen
    actions stay optimal), in the same order of operations. ``c`` and ``d`` hold a win (1, 0) at
    every total from the goal on (``rollhold.level_rows`` pads them).
    """
    end, chance, lose, reset = die
    top = goal - i
    lose_c = lose + reset * (1.0 if i == 0 else 1.0 - V[j, 0])  # a reset at score 0 is a bust
    lose_d = -lose - (reset if i == 0 else 0.0)
    hold_row = V[j]
    # The window's sum at k: ``older`` (totals k + 3 .. k + end, a running sum) plus the newest,
    # k + 2, which is in a register (near2: the value two totals up), as in ``_plain_sweep``.
    older_c = end - DIE_START + 0.0  # at k = top: all wins
    older_d = 0.0
    near1_c = near2_c = 1.0
    near1_d = near2_d = 0.0
    lo = -1e300
    hi = 1e300
    # k = 0 (passing) comes after the loop: without its tests in the loop Pig's solve ran 5-7% faster
    for k in range(top - 1, 0, -1):
        hold_c = 1.0 - hold_row[i + k]  # holding's value: its d is 0
        older_c += c[k + 3] - c[k + end + 1]  # the window moved down by one
        older_d += d[k + 3] - d[k + end + 1]
        roll_c = lose_c + chance * (older_c + near2_c)
        roll_d = lose_d + chance * (older_d + near2_d)
        if roll_c + roll_d * x > hold_c:  # ties hold (``rollhold._better``)
            best_c, best_d = roll_c, roll_d
            lo, hi = _widen(lo, hi, roll_c, roll_d, hold_c, 0.0)  # where the choice stays the better one
        else:
            best_c, best_d = hold_c, 0.0
            lo, hi = _widen(lo, hi, hold_c, 0.0, roll_c, roll_d)
        c[k] = best_c
        d[k] = best_d
        near2_c, near2_d, near1_c, near1_d = near1_c, near1_d, best_c, best_d
    older_c += c[3] - c[end + 1]
    older_d += d[3] - d[end + 1]
    roll_c = lose_c + chance * (older_c + near2_c)
    roll_d = lose_d + chance * (older_d + near2_d)
    if roll_c + roll_d * x >= 1.0 - x:  # passing hands the partner state V[j, i] = x over; ties roll
        c[0], d[0] = roll_c, roll_d
        lo, hi = _widen(lo, hi, roll_c, roll_d, 1.0, -1.0)
    else:
        c[0], d[0] = 1.0, -1.0
        lo, hi = _widen(lo, hi, 1.0, -1.0, roll_c, roll_d)
    return TurnBounds(lo, hi, 0.0, top, 0.0, False)


def die_levels(
    VA: np.ndarray,
    VB: np.ndarray,
    s_high: int,
    s_low: int,
    game: Game,
    rows: LevelRows,
    fresh: bool,
    same: bool,
    spread: Spread | None = None,
    checks: Checks | None = None,
) -> LevelSweep:
    """``rollhold.solve_levels``, a one-die game's turns (``die_run_of``) taking the die sweep; the same values.

    Its own level loop (``_die_levels``), not a branch in ``rollhold._levels``: numba then compiles
    for Pig's solve neither the plain sweep nor the level loop's other sweeps. Passes that record
    or check spreads (``holdspread``: resets) take ``rollhold.solve_levels``.
    """
    die = die_run_of(game.table) if game.sweep == SWEEP_PLAIN else None
    if die is None or spread is not None or checks is not None:
        return solve_levels(VA, VB, s_high, s_low, game, rows, fresh, same, spread, checks)
    return _die_levels(VA, VB, s_high, s_low, game.goal, rows.c, rows.d, die, fresh, same)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _die_levels(VA, VB, s_high, s_low, goal, C, D, die, fresh, same):  # pragma: no cover - numba
    """``rollhold._levels`` for a ``DieRun``, first to the goal, no spreads: every pair by the die sweep.

    The same pairs in the same order, the same 2x2 solve and stopping rule (``_pair_settled``;
    first to the goal no stop past it can miss, whatever the bust chance it is given), so the same
    values bit for bit. ``C``, ``D``: the rows of ``rollhold.level_rows``.
    """
    change = 0.0
    residual = 0.0
    truncation = 0.0
    for s in range(s_high, s_low - 1, -1):
        i_low = max(s - goal + 1, 0)
        i_high = s // 2 if same else s - i_low
        for i in range(i_low, i_high + 1):
            j = s - i
            diagonal = same and i == j
            old_x = VA[i, j]
            old_z = VB[j, i]
            if fresh:  # first guesses extrapolated from the two levels above, where they exist
                VA[i, j] = _guess(VA, i, j, goal)
                VB[j, i] = _guess(VB, j, i, goal)
            x = VA[i, j]
            z = VB[j, i]
            pair_residual = 0.0
            pair_truncation = 0.0
            for _ in range(MAX_PAIR_ROUNDS):
                mine = _die_sweep(i, j, VB, z, goal, die, C[i], D[i])
                c1, d1 = C[i, 0], D[i, 0]  # read before B's sweep: at i == j both turns share one row
                theirs = mine
                if not diagonal:
                    theirs = _die_sweep(j, i, VA, x, goal, die, C[j], D[j])
                c2, d2 = C[j, 0], D[j, 0]
                new_x, new_z = _pair_solution(c1, d1, c2, d2, z, diagonal)
                pair_residual = max(abs(c1 + d1 * new_z - new_x), abs(c2 + d2 * new_x - new_z))
                stable, pair_truncation = _pair_settled(mine, theirs, x, z, new_x, new_z, 0.0)
                x = new_x
                z = new_z
                if stable:
                    break
            VA[i, j] = x
            VB[j, i] = z
            residual = max(residual, pair_residual)
            truncation = max(truncation, pair_truncation)
            change = max(change, abs(x - old_x), abs(z - old_z))
    return LevelSweep(change, residual, truncation)
