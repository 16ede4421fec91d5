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

import numpy as np
from numba import njit

from pigdice.solve.positions import INDIFFERENCE
from pigdice.solve.tables import KIND_ADD, KIND_BANK, KIND_DOUBLE, KIND_RESET, KIND_SET, KIND_SUBTRACT

MAX_SWEEPS = 10_000
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
def single_throw(need, tie, kinds, amounts, probs, offsets, values):  # pragma: no cover - numba
    """Fill values[c] with the share of one banked throw with choice c (a final roll, or Hog); return the best c.

    The throw starts from turn total 0 and is banked at once, as the engine does: an add or a
    set banks its amount, a doubling or subtraction of nothing banks 0, a bust banks 0, a reset
    loses the whole score (and the game), a bank effect banks its amount.
    """
    best = 0
    for ch in range(offsets.shape[0] - 1):
        v = 0.0
        for e in range(offsets[ch], offsets[ch + 1]):
            kind = kinds[e]
            if kind in (KIND_ADD, KIND_SET, KIND_BANK):
                v += probs[e] * _payoff(amounts[e], need, tie)
            elif kind == KIND_RESET:
                v += 0.0
            else:
                v += probs[e] * _payoff(0, need, tie)
        values[ch] = v
        if ch > 0 and v > values[best] + INDIFFERENCE:
            best = ch
    return best  # no hold: fewer dice unless more are better by more than INDIFFERENCE


@njit(cache=True)
def last_turn_row(
    need, tie, kinds, amounts, keeps, probs, offsets, monotone, win, act, hold, rolls
):  # pragma: no cover
    """Solve the last turn at deficit ``need`` for turn totals k = 0..need; fill the rows; return sweeps.

    win[k]: the share under optimal play; act[k]: 0 hold, c + 1 roll with choice c; hold[k]: the
    share if holding; rolls[c, k]: if rolling with choice c. Above ``need`` the player holds
    and wins. Tie-break (``positions.py``): at k = 0 roll, elsewhere hold, fewer dice among
    rolls, unless another option is better by more than INDIFFERENCE.
    """
    n_choices = offsets.shape[0] - 1
    options = np.empty(n_choices + 1)
    for k in range(need + 1):
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
                for e in range(offsets[ch], offsets[ch + 1]):
                    kind = kinds[e]
                    amount = amounts[e]
                    k2 = -1
                    if kind == KIND_ADD:
                        k2 = k + amount
                    elif kind == KIND_DOUBLE:
                        k2 = 2 * k
                    elif kind == KIND_SUBTRACT:
                        k2 = max(k - amount, 0)
                    elif kind == KIND_SET:
                        k2 = amount
                    elif kind == KIND_BANK:
                        gain = amount + (k if keeps[e] else 0)
                        v += probs[e] * _payoff(gain, need, tie)
                    # BUST and RESET: the last turn ends short of the leader (0)
                    if k2 >= 0:
                        v += probs[e] * (1.0 if k2 > need else win[k2])
                rolls[ch, k] = v
                options[ch + 1] = v
            best = prefer(options, n_choices + 1, k == 0)
            delta = abs(options[best] - win[k])
            if delta > change:
                change = delta
            win[k] = options[best]
            act[k] = best
        if monotone or sweeps >= MAX_SWEEPS or (settled and change < SWEEP_TOLERANCE):
            return sweeps
        # once the values settle, one more sweep so the recorded roll values use them too
        settled = change < SWEEP_TOLERANCE


@njit(cache=True)
def last_turn_starts(top, tie, single, kinds, amounts, keeps, probs, offsets, monotone, out):  # pragma: no cover
    """Fill out[d] for d = 0..top - 1: the last player's share at the start of their last turn."""
    n_choices = offsets.shape[0] - 1
    values = np.empty(n_choices)
    win = np.empty(top)
    act = np.empty(top, dtype=np.int64)
    hold = np.empty(top)
    rolls = np.empty((n_choices, top))
    for d in range(top):
        if single:
            best = single_throw(d, tie, kinds, amounts, probs, offsets, values)
            out[d] = values[best]
        else:
            last_turn_row(d, tie, kinds, amounts, keeps, probs, offsets, monotone, win, act, hold, rolls)
            out[d] = win[0]
