"""The exact head-to-head of a reset game by spreads: one recording pass, then cheap passes over the spreads.

Two fixed strategies have fixed turns, so where each turn ends (its spread, ``holdspread``) does
not change from one pass to the next: after one evaluation pass that records both sides' spreads,
passes over the spreads (``holdspread.spread_pass_pair``) are exact passes of the evaluation, at
a fraction of their cost, and they settle the reset values V[j, 0] that make the passes repeat.
A last full pass (``rollhold.evaluate_levels``) judges the result, as every solve's last pass does.
Plain sweeps only (``holdspread.spreadable``): one roll of adds, busts and resets, first to the goal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.solver import SETTLED_SHARE, Anderson
from pigdice.solve.step import WITHOUT_REFCOUNTS
from pigdice.solve.two.bundles import Evaluation, Game
from pigdice.solve.two.holdspread import Spread, spread_pass_pair, spread_turn, usable

# Imported by name: the recording pass calls the evaluation's own plain sweep.
from pigdice.solve.two.rollhold import A_C, A_D, B_C, B_D, EvaluationRows, _plain_sweep

# Spread passes settle the reset values within this many passes (each shrinks their error 20-50 fold).
MAX_SETTLING = 60


def record_pass(
    VA: np.ndarray,
    VB: np.ndarray,
    TA: np.ndarray,
    TB: np.ndarray,
    game: Game,
    rows: EvaluationRows,
    spreads: tuple[Spread, Spread],
) -> Evaluation:
    """Run one evaluation pass of ``rollhold.evaluate_levels`` (a plain game) and record both sides' spreads.

    ``spreads``: A's turns' (indexed by A's score first) and B's (B's score first), from
    ``holdspread.new_spread``. A pair whose turns both surely hand the other the same scores
    (never ending) keeps its old values and is counted: the caller then evaluates by full passes.
    """
    return _record(VA, VB, TA, TB, game, rows, spreads[0], spreads[1])


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _record(VA, VB, TA, TB, game, rows, spread_a, spread_b):  # pragma: no cover - numba
    """``record_pass``: ``rollhold._evaluate``'s pass with the plain sweep, each turn's spread recorded after it."""
    goal = game.goal
    turns = rows.turns
    no_rolls, no_act = rows.none
    change = 0.0
    endless = 0
    endless_score = 0
    endless_other = 0
    for s in range(2 * goal - 2, -1, -1):
        i_low = max(s - goal + 1, 0)
        for i in range(i_low, s + 1 - i_low):
            j = s - i
            old_a = VA[i, j]
            old_b = VB[j, i]
            ca = turns[A_C, i]
            da = turns[A_D, i]
            cb = turns[B_C, j]
            db = turns[B_D, j]
            _plain_sweep(i, j, VB, old_b, game, ca, da, TA[i, j], no_rolls, no_act, rows.triangle)
            _plain_sweep(j, i, VA, old_a, game, cb, db, TB[j, i], no_rolls, no_act, rows.triangle)
            det = 1.0 - da[0] * db[0]
            if abs(det) > 1e-15:
                a = (ca[0] + da[0] * cb[0]) / det
            else:
                a = old_a
                endless += 1
                endless_score = i
                endless_other = j
            b = cb[0] + db[0] * a
            VA[i, j] = a
            VB[j, i] = b
            change = max(change, abs(a - old_a), abs(b - old_b))
            spread_turn(i, j, VB, goal, game.table, ca, da, spread_a)
            spread_turn(j, i, VA, goal, game.table, cb, db, spread_b)
    return Evaluation(change, endless, endless_score, endless_other)


def settle_pair(VA: np.ndarray, VB: np.ndarray, spreads: tuple[Spread, Spread], tolerance: float) -> bool:
    """Settle the reset values VA[:, 0], VB[:, 0] by spread passes; False (moving nothing) if a spread is unusable.

    Anderson acceleration mixes the reset values between passes, as between a solve's passes,
    until a pass moves them by at most ``SETTLED_SHARE`` of ``tolerance`` (or ``MAX_SETTLING``
    passes): the fixed strategies' values, which the full pass after it judges.
    """
    if not (usable(spreads[0]) and usable(spreads[1])):
        return False
    accelerator = Anderson(memory=4)
    for _ in range(MAX_SETTLING):
        before = np.concatenate([VA[:, 0], VB[:, 0]])
        spread_pass_pair(VA, VB, spreads[0], spreads[1])
        after = np.concatenate([VA[:, 0], VB[:, 0]])
        if float(np.max(np.abs(after - before))) <= SETTLED_SHARE * tolerance:
            break
        mixed = accelerator.next(after)
        goal = VA.shape[0]
        VA[:, 0] = mixed[:goal]
        VB[:, 0] = mixed[goal:]
    return True
