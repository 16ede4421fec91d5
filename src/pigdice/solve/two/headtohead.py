"""Exact head-to-head evaluation of two fixed 2-player strategies given as action tables.

An action table T[i, j, k] (my score, opponent's, turn total) holds 0 to hold or c + 1 to roll
with choice c; for Hog (one throw per turn) only k = 0 is read. The win probabilities solve a
linear system over the joint states, computed with the solver's level order and pair solve
(``rollhold.evaluate_levels``), so an evaluation costs about as much as one solve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.memory import action_table_bytes, check_memory, head_to_head_bytes
from pigdice.solve.solver import TOLERANCE, fixed_point, one_pass_is_exact, solvable
from pigdice.solve.tables import effect_table
from pigdice.solve.two import banded, dicechoice, evalspread, holdspread, rollhold
from pigdice.solve.two.bundles import Evaluation, game_of


@dataclass(frozen=True)
class HeadToHead:
    """Exact win probabilities of A against B, with each side starting."""

    a_first: float  # P(A wins | A moves first)
    b_first: float  # P(A wins | B moves first)
    passes: int
    residual: float

    @property
    def average(self) -> float:
        """Return A's win probability when each side starts half the games."""
        return (self.a_first + self.b_first) / 2


def check_table(variant: Variant, table: np.ndarray) -> np.ndarray:
    """Return ``table`` as a C-contiguous int8 array after checking its shape and values."""
    goal = variant.goal
    if table.shape != (goal, goal, goal):
        raise BadParameterError(f"an action table for goal {goal} has shape {(goal, goal, goal)}, not {table.shape}")
    if table.dtype != np.int8 or not table.flags.c_contiguous:
        check_memory("a copy of an action table", goal, action_table_bytes)
        table = np.ascontiguousarray(table, dtype=np.int8)
    if table.min() < 0 or table.max() > len(variant.choices):
        raise BadParameterError(f"action table values must be 0..{len(variant.choices)}")
    if not variant.can_hold and np.any(table[:, :, 0] == 0):
        raise BadParameterError(f"{variant.name} has no hold: every entry must name a dice choice")
    return table


def head_to_head(
    variant: Variant, table_a: np.ndarray, table_b: np.ndarray, tolerance: float = TOLERANCE
) -> HeadToHead:
    """Return the exact probability that A beats B, with A starting and with B starting.

    Raises BadStrategyError if the game never ends with a probability above ``tolerance`` (both
    strategies only pass, or never score, from states the game reaches): a win probability means
    nothing there. Raises ResourceLimitError before allocating if the arrays do not fit in memory.
    """
    variant = solvable(variant)
    goal = variant.goal
    check_memory("exact head-to-head evaluation", goal, head_to_head_bytes)
    ta = check_table(variant, table_a)
    tb = check_table(variant, table_b)
    table = effect_table(variant)
    game = game_of(goal, table)
    va = np.empty((goal, goal))
    vb = np.empty((goal, goal))
    one_throw = variant.decision is Decision.DICE_PER_TURN
    if one_throw:
        ta, tb = ta[:, :, 0].copy(), tb[:, :, 0].copy()
    last_pass = Evaluation(0.0, 0, 0, 0)  # its never-ending pairs are reported
    # without resets every dependency is final before it is used, so one pass is exact
    exact = one_pass_is_exact(variant, table)

    # a reset game with plain sweeps: the first pass records where each turn ends, and passes over
    # those spreads settle the reset values (``evalspread``); the passes after it judge them
    spreads = None
    banded_turns = not one_throw and banded.fits(game)  # turns that can lower their total (Pig Dice): elimination
    if not one_throw and not banded_turns and holdspread.spreadable(game):
        spreads = (holdspread.new_spread(goal, table), holdspread.new_spread(goal, table))
    recorded = False

    def evaluate(loop: float) -> tuple[int, float]:
        """Evaluate with A winning ``loop`` of a game that never ends; return (passes, change)."""
        nonlocal recorded
        va.fill(0.5)
        vb.fill(0.5)
        band_rows = banded.evaluation_rows(game) if banded_turns else None
        rows = rollhold.evaluation_rows(game) if band_rows is None else None
        recorded = False

        def one_pass(passes: int) -> float:
            nonlocal last_pass, recorded
            if one_throw:
                last_pass = dicechoice.evaluate_levels(va, vb, ta, tb, game, loop)
            elif band_rows is not None:  # turns that can lower their total, solved by elimination (Pig Dice)
                last_pass = banded.evaluate_levels(va, vb, ta, tb, game, band_rows, loop)
            elif spreads is not None and rows is not None and passes == 1:
                last_pass = evalspread.record_pass(va, vb, ta, tb, game, rows, spreads)
                recorded = last_pass.endless == 0  # a game that never ends somewhere: full passes
            elif rows is not None:
                last_pass = rollhold.evaluate_levels(va, vb, ta, tb, game, rows, loop)
            if exact:
                return 0.0
            return last_pass.change if passes >= 2 else float("inf")

        def settle() -> bool:
            return recorded and spreads is not None and evalspread.settle_pair(va, vb, spreads, tolerance)

        return fixed_point(
            one_pass,
            exact,
            [va[:, 0], vb[:, 0]] if table.has_reset else [],  # the solver's acceleration
            tolerance,
            "evaluation did not converge (change {residual:.3g} after {passes} passes)",
            settle,
        )

    passes, change = evaluate(0.5)
    result = HeadToHead(float(va[0, 0]), 1.0 - float(vb[0, 0]), passes, change)
    if last_pass.endless > 0:
        # The values are affine in what a never-ending game is worth to A, so giving A all of
        # it, then none of it, measures how likely a game is never to end.
        pair = (last_pass.endless_score, last_pass.endless_other)
        evaluate(1.0)
        a_all, b_none = float(va[0, 0]), float(vb[0, 0])
        evaluate(0.0)
        never_a_first = a_all - float(va[0, 0])
        never_b_first = float(vb[0, 0]) - b_none
        if max(never_a_first, never_b_first) > tolerance:
            raise BadStrategyError(
                "this game never ends: neither strategy scores from some states (e.g. A at "
                f"{pair[0]}, B at {pair[1]}: both only pass or never score), and the game gets there "
                f"with probability {never_a_first:.3g} when A starts, {never_b_first:.3g} when B starts"
            )
    return result
