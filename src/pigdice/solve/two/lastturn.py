"""The last turn of a 2-player game: after the goal is reached, the other player tries to pass the leader.

Under the final-round and equal-turns endings, once one player banks a total T at or past the
goal, the other (score j) gets one last turn (or one last roll). Nothing they do afterwards
matters, so their problem is a one-player stopping problem in the deficit d = T - j and their
turn total k: holding at k wins if k > d, ties if k = d (worth ``tie``: 1/2 when ties are
shared, 0 when the first to reach the score wins), loses if k < d. Rolling follows the
variant's effect table. ``L[d]`` = their chance (expected share) at the start of the last turn,
under optimal play; the player who reached the goal then wins 1 - L[T - j]. L does not grow
with d: whatever passes T + 1 passes T. These are the values the endgame solver reads when
a player banks past the goal (``pigdice.solve.two.endgame``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.positions import INDIFFERENCE
from pigdice.solve.step import last_turn_step, thrown_score

MAX_SWEEPS = 10_000
MAX_LENGTH = 1 << 15  # a final round's table L grows to this length at most (``endgame``): past it its error stands
SWEEP_TOLERANCE = 1e-16


@njit(cache=True, inline="always")
def prefer(options, n_options, roll_first):  # pragma: no cover - numba
    """Return the option the tie-break picks: options[0] holds, options[c + 1] rolls with choice c.

    The preferred option (rolling with the fewest dice when ``roll_first``, i.e. at turn total 0;
    else holding) stands unless another is better by more than INDIFFERENCE, taken in order.
    """
    if roll_first and n_options > 1:
        best = 1
        for o in range(2, n_options):
            if options[o] > options[best] + INDIFFERENCE:
                best = o
        if options[0] > options[best] + INDIFFERENCE:
            best = 0
        return best
    best = 0
    for o in range(1, n_options):
        if options[o] > options[best] + INDIFFERENCE:
            best = o
    return best


@njit(cache=True, inline="always")
def _payoff(gain, need, tie):  # pragma: no cover - numba
    """Return the last player's share when their turn banks ``gain`` against a deficit ``need``."""
    if gain > need:
        return 1.0
    if gain == need:
        return tie
    return 0.0


@njit(cache=True)
def single_throw(need, tie, t, values):  # pragma: no cover - numba
    """Fill values[c] with the share of one banked throw with choice c (a final roll, or Hog); return the best c.

    The throw starts from turn total 0 and is banked at once, as the engine does
    (``pigdice.solve.step.thrown_score``): a reset loses the whole score (and the game).
    """
    best = 0
    for ch in range(t.offsets.shape[0] - 1):
        v = 0.0
        for e in range(t.offsets[ch], t.offsets[ch + 1]):
            # from a score of 1 standing for the player's own: a reset banks -1, a bust 0
            gain = thrown_score(t.kinds[e], t.amounts[e], t.keeps[e], 1) - 1
            v += t.probabilities[e] * _payoff(gain, need, tie)
        values[ch] = v
        if ch > 0 and v > values[best] + INDIFFERENCE:
            best = ch
    return best  # no hold: fewer dice unless more are better by more than INDIFFERENCE


class LastTurnRows(NamedTuple):
    """One last turn's rows over turn totals k = 0..need (``last_turn_row``)."""

    win: np.ndarray  # the share under optimal play
    act: np.ndarray  # int64: 0 hold, c + 1 roll with choice c
    hold: np.ndarray  # the share if holding
    rolls: np.ndarray  # (choices, totals): the share if rolling with choice c


@njit(cache=True)
def last_turn_rows(t, width):  # pragma: no cover - numba
    """Return empty rows (``LastTurnRows``) for last turns up to ``width`` turn totals with ``t``'s roll choices."""
    n_choices = t.offsets.shape[0] - 1
    return LastTurnRows(np.empty(width), np.empty(width, dtype=np.int64), np.empty(width), np.empty((n_choices, width)))


@njit(cache=True)
def last_turn_row(need, tie, t, rows):  # pragma: no cover - numba
    """Solve the last turn at deficit ``need`` for turn totals k = 0..need; fill ``rows``; return sweeps.

    Above ``need`` the player holds and wins. Tie-break (``positions.py``): at k = 0 roll,
    elsewhere hold, fewer dice among rolls, unless another option is better by more than
    INDIFFERENCE. A turn that ends banks what ``pigdice.solve.step.last_turn_step`` says: a bust
    or a reset falls short of the leader.
    """
    return _solve_row(need, tie, t, rows, False)


@njit(cache=True)
def _solve_row(need, tie, t, rows, warm):  # pragma: no cover - numba
    """``last_turn_row``; ``warm``: the sweeps start from the rows' values (deficit need - 1's), not from 0.

    Deficit d's values lie just below d - 1's (what passes d passes d - 1), so the sweeps to a
    fixed point start nearer it; they stop by the same test, so the values agree to rounding.
    """
    win, act, hold, rolls = rows.win, rows.act, rows.hold, rows.rolls
    n_choices = t.offsets.shape[0] - 1
    options = np.empty(n_choices + 1)
    for k in range(0 if not warm else need, need + 1):
        win[k] = 0.0
    sweeps = 0
    settled = False
    while True:
        sweeps += 1
        change = 0.0
        for k in range(need, -1, -1):
            hold[k] = _payoff(k, need, tie)
            options[0] = hold[k]
            for ch in range(n_choices):
                v = 0.0
                for e in range(t.offsets[ch], t.offsets[ch + 1]):
                    gain, k2, ends = last_turn_step(t.kinds[e], t.amounts[e], t.keeps[e], k)
                    if ends:
                        v += t.probabilities[e] * _payoff(gain, need, tie)
                    else:
                        v += t.probabilities[e] * (1.0 if k2 > need else win[k2])
                rolls[ch, k] = v
                options[ch + 1] = v
            best = prefer(options, n_choices + 1, k == 0)
            delta = abs(options[best] - win[k])
            if delta > change:
                change = delta
            win[k] = options[best]
            act[k] = best
        if t.monotone or sweeps >= MAX_SWEEPS or (settled and change < SWEEP_TOLERANCE):
            return sweeps
        # once the values settle, one more sweep so the recorded roll values use them too
        settled = change < SWEEP_TOLERANCE


@njit(cache=True)
def last_turn_starts(top, tie, single, t, out):  # pragma: no cover - numba
    """Fill out[d] for d = 0..top - 1: the last player's share at the start of their last turn."""
    n_choices = t.offsets.shape[0] - 1
    values = np.empty(n_choices)
    rows = last_turn_rows(t, top)
    for d in range(top):
        if single:
            best = single_throw(d, tie, t, values)
            out[d] = values[best]
        else:
            last_turn_row(d, tie, t, rows)
            out[d] = rows.win[0]


@njit(cache=True)
def extend_starts(start, top, tie, single, t, out):  # pragma: no cover - numba
    """Fill out[d] for d = start..top - 1 as ``last_turn_starts`` does, each deficit's sweeps warm from the last's.

    A table that doubles keeps its first ``start`` entries (L[d] does not depend on the length).
    """
    n_choices = t.offsets.shape[0] - 1
    values = np.empty(n_choices)
    rows = last_turn_rows(t, top)
    if not single and start > 0:
        _solve_row(start - 1, tie, t, rows, False)  # the warm start's first rows
    for d in range(start, top):
        if single:
            best = single_throw(d, tie, t, values)
            out[d] = values[best]
        else:
            _solve_row(d, tie, t, rows, d > 0)
            out[d] = rows.win[0]
