"""The last turns of a 3-player game, after one player banks a total at or past the goal.

Once a player X banks T >= goal, the players still owed a last turn play it in turn order: under
the final round both others (Y, then Z), under equal turns only the seats after X's (both, one or
none). Nobody's choice after that depends on anything but the best total so far M, how many
players t share it (a shared tie splits the win among everyone on M), and the scores of the
players still to play. The last player to play (Z, score c) faces the 2-player last-turn problem
of ``pigdice.solve.two.lastturn`` with a tie worth 1/(t + 1) when ties are shared: L_t[M - c]. The
player before them (Y, score b) chooses how far past M to go, knowing Z comes after: holding at
u = b + k is worth to Y

    u > M: 1 - L_1[u - c] (Y leads alone);  u = M, shared: (1 - L_{t+1}[M - c]) / (t + 1);  else 0,

and Y's turn is swept like any turn (``row``), from the first total where holding is provably
best (L_1[u - c] <= the smallest bust chance: rolling wins at most 1 - pbust) down to 0.
Each option's outcome is a vector of three shares: each player of the old lead (h), Y and Z.

``banked_table`` fills FT[class, T - goal, rest, r]: the win vector (X first, in turn order) of
X banking T with the others' scores ``rest`` (flat index b * goal + c), one class for the final
round, one per X's seat under equal turns. The n-player kernels read it in ``banked_share``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.rules.variant import Endgame, TieRule, Variant
from pigdice.solve.positions import INDIFFERENCE, TRUNCATION_ERROR
from pigdice.solve.tables import (
    KIND_ADD,
    KIND_BANK,
    KIND_BUST,
    KIND_DOUBLE,
    KIND_RESET,
    KIND_SET,
    KIND_SUBTRACT,
    EffectTable,
)
from pigdice.solve.two import lastturn
from pigdice.solve.two.lastturn import prefer

MAX_SWEEPS = 10_000
SWEEP_TOLERANCE = 1e-16
LAST_SLACK = 512  # the last player's tables reach this far past the banked table's largest total


@njit(cache=True, inline="always")
def _last(L, t, d):  # pragma: no cover - numba
    """Return the last player's share L_t[d] (t players on the lead); past the table its last entry."""
    if d < 0:
        d = 0
    if d >= L.shape[1]:
        d = L.shape[1] - 1
    return L[t - 1, d]


@njit(cache=True, inline="always")
def finish(u, M, t, c, after, shared, L, out):  # pragma: no cover - numba
    """Write the shares (each old leader, Y, Z) of Y ending their last turn on ``u`` into ``out``.

    ``after``: Z (score c) still plays a last turn; else Y is the last to play and Z plays no part.
    """
    if u > M:
        z = _last(L, 1, u - c) if after else 0.0
        out[0] = 0.0
        out[1] = 1.0 - z
        out[2] = z
    elif u == M and shared:
        z = _last(L, t + 1, M - c) if after else 0.0
        s = (1.0 - z) / (t + 1)
        out[0] = s
        out[1] = s
        out[2] = z
    else:
        z = _last(L, t, M - c) if after else 0.0
        out[0] = (1.0 - z) / t
        out[1] = 0.0
        out[2] = z


@njit(cache=True)
def row(  # pragma: no cover - numba
    M, t, b, c, after, shared, single, L, pbust, cap, min_top,
    kinds, amounts, keeps, probs, offsets, monotone, win, act, hold, rolls,
):  # fmt: skip
    """Solve Y's last turn (score b) against the lead M held by t players; return the totals swept.

    Fills win[k] (the three shares under optimal play), act[k] (0 hold, c + 1 roll with choice c),
    hold[k] and rolls[c, k] (Y's share if holding / rolling) for k < the returned top; at k >= top Y
    holds. ``single``: the last turn is one banked throw (a final roll, or Hog): k = 0 only, no hold.
    The arrays must have room for the top (M - b + the stop past M, see ``stop``). ``cap`` > 0: with Z
    still to play, Y holds at totals >= cap (the tests' capped game). The sweep covers at least
    ``min_top`` totals (action values past the stop, for hints).
    """
    n_choices = offsets.shape[0] - 1
    out = np.empty(3)
    opt = np.empty((n_choices + 1, 3))
    options = np.empty(n_choices + 1)
    if single:
        best = 0
        for ch in range(n_choices):
            opt[ch, 0] = 0.0
            opt[ch, 1] = 0.0
            opt[ch, 2] = 0.0
            for e in range(offsets[ch], offsets[ch + 1]):
                kind = kinds[e]
                if kind in (KIND_ADD, KIND_SET, KIND_BANK):
                    finish(b + amounts[e], M, t, c, after, shared, L, out)
                elif kind == KIND_RESET:
                    finish(0, M, t, c, after, shared, L, out)
                else:  # a bust, or doubling / subtracting nothing: the throw banks 0
                    finish(b, M, t, c, after, shared, L, out)
                for q in range(3):
                    opt[ch, q] += probs[e] * out[q]
            rolls[ch, 0] = opt[ch, 1]
            if ch > 0 and opt[ch, 1] > opt[best, 1] + INDIFFERENCE:
                best = ch
        for q in range(3):
            win[0, q] = opt[best, q]
        act[0] = best + 1
        hold[0] = np.nan
        return 1
    top = stop(M, b, c, after, L, pbust)
    if after and cap > 0 and cap - b < top:
        top = cap - b
    if min_top > top:
        top = min(min_top, win.shape[0])
    for k in range(top):
        for q in range(3):
            win[k, q] = 0.0
    sweeps = 0
    settled = False
    while True:
        sweeps += 1
        change = 0.0
        for k in range(top - 1, -1, -1):
            finish(b + k, M, t, c, after, shared, L, out)
            for q in range(3):
                opt[0, q] = out[q]
            hold[k] = out[1]
            options[0] = out[1]
            for ch in range(n_choices):
                for q in range(3):
                    opt[ch + 1, q] = 0.0
                for e in range(offsets[ch], offsets[ch + 1]):
                    kind = kinds[e]
                    p = probs[e]
                    k2 = -1
                    if kind == KIND_ADD:
                        k2 = k + amounts[e]
                    elif kind == KIND_DOUBLE:
                        k2 = 2 * k
                    elif kind == KIND_SUBTRACT:
                        k2 = max(k - amounts[e], 0)
                    elif kind == KIND_SET:
                        k2 = amounts[e]
                    elif kind == KIND_BANK:
                        finish(b + amounts[e] + (k if keeps[e] else 0), M, t, c, after, shared, L, out)
                    elif kind == KIND_BUST:
                        finish(b, M, t, c, after, shared, L, out)
                    else:  # RESET: the score goes, and the game with it
                        finish(0, M, t, c, after, shared, L, out)
                    if k2 >= top:
                        finish(b + k2, M, t, c, after, shared, L, out)
                    if k2 >= 0 and k2 < top:
                        for q in range(3):
                            opt[ch + 1, q] += p * win[k2, q]
                    else:
                        for q in range(3):
                            opt[ch + 1, q] += p * out[q]
                rolls[ch, k] = opt[ch + 1, 1]
                options[ch + 1] = opt[ch + 1, 1]
            best = prefer(options, n_choices + 1, k == 0)
            change = max(change, abs(options[best] - win[k, 1]))
            for q in range(3):
                win[k, q] = opt[best, q]
            act[k] = best
        if monotone or sweeps >= MAX_SWEEPS or (settled and change < SWEEP_TOLERANCE):
            return top
        settled = change < SWEEP_TOLERANCE


@njit(cache=True)
def stop(M, b, c, after, L, pbust):  # pragma: no cover - numba
    """Return the turn total from which Y holds: the first past M where holding is provably best.

    Alone (no Z after), any total past M wins. With Z after, holding u wins 1 - L_1[u - c] and rolling
    at most 1 - pbust, so holding is best once L_1[u - c] <= pbust (or, with no bust chance at all,
    once it is below TRUNCATION_ERROR; past the table's end L stays at its last entry).
    """
    u = M + 1
    if after:
        margin = max(pbust, TRUNCATION_ERROR)
        while u - c < L.shape[1] - 1 and L[0, u - c] > margin:
            u += 1
    return u - b


@njit(cache=True)
def banked_table(  # pragma: no cover - numba
    goal, equal_turns, shared, single, L, pbust, cap, kinds, amounts, keeps, probs, offsets, monotone, shifts, FT,
):  # fmt: skip
    """Fill FT[class, e, b * goal + c, r]: the win vector (X, Y, Z) of X banking goal + e, Y on b, Z on c.

    Final round: one class, Y and Z both play. Equal turns: class = X's seat; Y and Z play after
    seat 0, only Y after seat 1, nobody after seat 2 (X wins).

    ``shifts``: Y's turn depends only on M - b and M - c (no reset sends a score to 0, no cap), so
    each pair is swept once and written to every (M, b, c) that has it: (goal + width)^2 turns
    instead of width * goal^2.
    """
    n_choices = offsets.shape[0] - 1
    width = FT.shape[1]
    size = goal + width + L.shape[1] + 2
    win = np.empty((size, 3))
    act = np.empty(size, dtype=np.int64)
    hold = np.empty(size)
    rolls = np.empty((n_choices, size))
    if shifts:
        for db in range(1, goal + width):
            for dc in range(1, goal + width):
                # every M in [goal, goal + width) with b = M - db and c = M - dc in [0, goal)
                low = max(goal, db, dc)
                high = min(goal + width, goal + db, goal + dc)
                if low >= high:
                    continue
                row(low, 1, low - db, low - dc, True, shared, single, L, pbust, cap, 0,
                    kinds, amounts, keeps, probs, offsets, monotone, win, act, hold, rolls)  # fmt: skip
                for M in range(low, high):
                    rest = (M - db) * goal + M - dc
                    for r in range(3):
                        FT[0, M - goal, rest, r] = win[0, r]
            if equal_turns:  # Y alone after X: c plays no part
                low = max(goal, db)
                high = min(goal + width, goal + db)
                if low >= high:
                    continue
                row(low, 1, low - db, 0, False, shared, single, L, pbust, cap, 0,
                    kinds, amounts, keeps, probs, offsets, monotone, win, act, hold, rolls)  # fmt: skip
                for M in range(low, high):
                    for c in range(goal):
                        rest = (M - db) * goal + c
                        FT[1, M - goal, rest, 0] = win[0, 0]
                        FT[1, M - goal, rest, 1] = win[0, 1]
                        FT[1, M - goal, rest, 2] = 0.0
                        FT[2, M - goal, rest, 0] = 1.0
                        FT[2, M - goal, rest, 1] = 0.0
                        FT[2, M - goal, rest, 2] = 0.0
        return
    for e in range(width):
        M = goal + e
        for b in range(goal):
            for c in range(goal):
                rest = b * goal + c
                row(M, 1, b, c, True, shared, single, L, pbust, cap, 0,
                    kinds, amounts, keeps, probs, offsets, monotone, win, act, hold, rolls)  # fmt: skip
                FT[0, e, rest, 0] = win[0, 0]
                FT[0, e, rest, 1] = win[0, 1]
                FT[0, e, rest, 2] = win[0, 2]
                if equal_turns:
                    row(M, 1, b, c, False, shared, single, L, pbust, cap, 0,
                        kinds, amounts, keeps, probs, offsets, monotone, win, act, hold, rolls)  # fmt: skip
                    FT[1, e, rest, 0] = win[0, 0]
                    FT[1, e, rest, 1] = win[0, 1]
                    FT[1, e, rest, 2] = 0.0
                    FT[2, e, rest, 0] = 1.0
                    FT[2, e, rest, 1] = 0.0
                    FT[2, e, rest, 2] = 0.0


def last_tables(variant: Variant, table: EffectTable, players: int, length: int) -> np.ndarray:
    """Return L[t - 1, d], d < ``length``: the last player's share at deficit d with t = 1 .. players - 1
    players sharing the lead (a tie is worth 1/(t + 1) to them when ties are shared, else nothing)."""
    from pigdice.solve.two.endgame import single_last_throw

    shared = variant.ties is TieRule.SHARED
    out = np.empty((players - 1, length))
    for t in range(1, players):
        tie = 1.0 / (t + 1) if shared else 0.0
        lastturn.last_turn_starts(length, tie, single_last_throw(variant), table, out[t - 1])
    return out


def banked_tables(variant: Variant, table: EffectTable, width: int, cap: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return (FT, L) for 3 players: the banked table over totals goal .. goal + width - 1 and the last
    player's tables (long enough for every deficit the table's totals and Y's stops reach); ``cap`` as
    in ``row``."""
    from pigdice.solve.two.endgame import bust_chance, single_last_throw

    goal = variant.goal
    equal_turns = variant.endgame is Endgame.EQUAL_TURNS
    # Y's throws from totals below their stop (M + at most LAST_SLACK) stay inside L; a doubling throw
    # goes twice as far
    stretch = 2 if bool(np.any(table.kinds == KIND_DOUBLE)) else 1
    L = last_tables(variant, table, 3, stretch * (goal + width + LAST_SLACK) + int(table.amounts.max()) + 1)
    FT = np.empty((3 if equal_turns else 1, width, goal * goal, 3))
    args = (table.kinds, table.amounts, table.keeps, table.probabilities, table.offsets, table.monotone)
    shared = variant.ties is TieRule.SHARED
    shifts = cap == 0 and not table.has_reset
    banked_table(goal, equal_turns, shared, single_last_throw(variant), L, bust_chance(table), cap, *args, shifts, FT)
    return FT, L


def banked_bytes(goal: int, width: int, equal_turns: bool) -> int:
    """Return the bytes of FT (``banked_tables``) for 3 players."""
    return (3 if equal_turns else 1) * width * goal * goal * 3 * 8
