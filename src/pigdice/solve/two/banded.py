"""An exact in-turn solve for roll/hold games whose rolls can lower the turn total (Pig Dice, Knizia's Big Pig).

``rollhold._turn_sweep`` solves such a turn by sweeping its totals from high to low until nothing
moves: a roll that subtracts or sets the total reads totals below, not yet swept, so every turn took
several sweeps (Pig Dice's solve 72x Pig's at goal 100, Knizia's 27x). Here the turn is solved exactly.

Under fixed actions a turn at (i, j) is the linear system P_k = b_k + sum_m p(k -> m) P_m over its
totals k < top = goal - i (a hold: P_k = b_k, what holding banks). A roll reaches higher totals by
adding or doubling, and lower ones only by subtracting at most ``WIDTH`` (Pig Dice: 2-6, clamped at
0) or by setting the total to one pinned total A (Knizia: 25). Eliminating the totals from the top
down (Gaussian elimination without pivoting, stable here as the system is diagonally dominant:
Golub & Van Loan, Matrix Computations, 4th ed., section 4.3.5) writes every total in terms of the
``WIDTH`` totals below it (and P_A, for k > A),

    P_k = alpha_k + sum_{s=1..WIDTH} beta_{k,s} P_{k-s} + gamma_k P_A,                    (1)

each row's coefficients on higher totals folded in through their own (1), highest first (the
"multipliers"); then (1) from k = 0 up gives every value. beta and the multipliers depend only on
the score i and the actions, not on the opponent's score j or the partner value x, and the d part
of P_k = c_k + d_k x on neither: a turn whose actions are those of the last turn solved with the
same score (the usual case) re-solves only c, about one plain sweep's work. The actions are then
improved where holding and rolling swap (policy iteration: Howard 1960; usually none), and the
range of partner values over which they stay optimal goes to the pair solve as the sweeps' does.

Only games that finish first to the goal, with one roll choice of adds, subtracts, doubles, one set,
busts and resets, take this path (``fits``, ``tables.is_banded``); ``rollhold`` solves every other game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.layout import SWEEP_GENERAL
from pigdice.solve.step import WITHOUT_REFCOUNTS
from pigdice.solve.tables import BAND_WIDTH, Band, band_of, is_banded
from pigdice.solve.two.bundles import Evaluation, Game
from pigdice.solve.two.rollhold import (
    MAX_PAIR_ROUNDS,
    LevelSweep,
    TurnBounds,
    _better,
    _guess,
    _pair_settled,
    _pair_solution,
    _widen,
)

# Each score keeps its own elimination while all of them fit in this many bytes (Pig Dice: goal 100
# 1.6 MB, goal 200 10 MB); past it one slot is shared and every turn is eliminated afresh.
CACHE_BYTES = 128 << 20
WIDTH = BAND_WIDTH  # (1) runs over this many totals below (a die's faces): subtracts up to it fit
MAX_POLICY_ROUNDS = 100  # actions improved this many times at most (ties to rounding could swap forever)


class BandedRows(NamedTuple):
    """A solve's in-turn eliminations: actions per score, and per slot (a score, or one shared) its factors."""

    act: np.ndarray  # int8 (goal, goal): the actions last chosen at score i (0 hold, 1 roll), per total
    owner: np.ndarray  # int64 per slot: the score whose actions its factors hold, -1 none
    last: np.ndarray  # int64 per slot: 1 + the opponent's score whose c it holds (0: none)
    c: np.ndarray  # (slots, goal): P_k = c_k + d_k x of the last turn solved
    d: np.ndarray
    beta: np.ndarray  # (slots, goal, WIDTH + 1): (1)'s coefficients, beta[., k, s] (0 past the band)
    gamma: np.ndarray  # (slots, goal): above the pinned total A, (1) has a term gamma_k P_A too
    gain: np.ndarray  # (slots, goal): 1 / (1 - what row k keeps of itself)
    win: np.ndarray  # (slots, goal): the chance a roll at k reaches the goal
    mult: np.ndarray  # flat: each slot's multipliers from mult_base[slot] on, rows from the top down
    mult_base: np.ndarray  # int64 per slot
    alpha: np.ndarray  # scratch (goal): (1)'s alpha, c part
    alpha_d: np.ndarray  # scratch (goal): the d part
    w: np.ndarray  # scratch (2 goal + reach + 2): a row's coefficients while it is eliminated
    band: Band


def fits(game: Game) -> bool:
    """Return True if ``game``'s turns take the banded solve: first to the goal, with a table ``is_banded``."""
    ends = game.ends
    first_to_goal = ends.mover_last.shape[0] == 0 and ends.other_last.shape[0] == 0 and ends.cap == 0
    return game.sweep == SWEEP_GENERAL and first_to_goal and is_banded(game.table)


def multipliers(top: int, band: Band) -> int:
    """Return how many multipliers a turn of ``top`` totals rolling at every total keeps (rows' highest reads)."""
    k = np.arange(top)
    high = np.maximum(k + band.reach, np.where(band.double_chance > 0.0, 2 * k, 0))
    high = np.minimum(np.maximum(high, band.pinned), top - 1)
    return int(np.maximum(high - k, 0).sum())


def banded_rows(goal: int, band: Band) -> BandedRows:
    """Return fresh rows for a solve or one side of an evaluation to ``goal`` (a slot per score if they fit)."""
    sizes = np.array([multipliers(goal - i, band) for i in range(goal)], dtype=np.int64)
    per_slot = 8 * goal * (WIDTH + 5)
    slots = goal if per_slot * goal + 8 * int(sizes.sum()) <= CACHE_BYTES else 1
    if slots == 1:
        sizes = sizes[:1]  # score 0's turn is the longest
    base = np.zeros(slots, dtype=np.int64)
    base[1:] = np.cumsum(sizes)[:-1]
    return BandedRows(
        np.ones((goal, goal), dtype=np.int8),
        np.full(slots, -1, dtype=np.int64),
        np.zeros(slots, dtype=np.int64),
        np.zeros((slots, goal)),
        np.zeros((slots, goal)),
        np.zeros((slots, goal, WIDTH + 1)),
        np.zeros((slots, goal)),
        np.zeros((slots, goal)),
        np.zeros((slots, goal)),
        np.zeros(max(int(sizes.sum()), 1)),
        base,
        np.zeros(goal),
        np.zeros(goal),
        np.zeros(2 * goal + band.reach + 2),
        band,
    )


@njit(cache=True, inline="always")
def _highest(k, top, band):  # pragma: no cover - numba
    """Return the highest total below ``top`` a roll at k reads (k itself if none): where its elimination starts."""
    high = k + band.reach
    if band.double_chance > 0.0 and 2 * k > high:
        high = 2 * k
    if band.pinned > high:
        high = band.pinned
    return min(high, top - 1)


@njit(cache=True, inline="always")
def _hold(i, j, k, V):  # pragma: no cover - numba
    """Return holding's value (c, d) at total k: 1 - V[j, i + k], or at k = 0 passing, 1 - x."""
    if k == 0:
        return 1.0, -1.0
    return 1.0 - V[j, i + k], 0.0


@njit(cache=True)
def _factor(i, j, V, top, act, rows, slot, lose_c, lose_d):  # pragma: no cover - numba
    """Eliminate the turn at (i, j) under the actions ``act`` from the top total down; leave c, d in the slot.

    Keeps beta, the gains, the win chances and the multipliers (each row's coefficient on every
    higher total it reads, as the elimination met it, lowest total first) for ``_resolve``, and
    solves d and c. A row's coefficients on the ``WIDTH`` totals below the one being folded in
    ride in registers (q0 .. q5), not in memory: a store and a load per fold made this 3x slower.
    """
    band = rows.band
    adds, add_chances = band.add_amounts, band.add_chances
    subs, sub_chances = band.subtract_amounts, band.subtract_chances
    double = band.double_chance
    beta, gain, win, mult, w = rows.beta[slot], rows.gain[slot], rows.win[slot], rows.mult, rows.w
    gamma, pinned = rows.gamma[slot], band.pinned
    alpha, alpha_d = rows.alpha, rows.alpha_d
    pos = rows.mult_base[slot]
    for k in range(top - 1, -1, -1):
        if act[k] == 0:
            alpha[k], alpha_d[k] = _hold(i, j, k, V)
            continue
        won = 0.0
        for e in range(adds.shape[0]):
            m = k + adds[e]
            if m >= top:
                won += add_chances[e]
            else:
                w[m] += add_chances[e]
        if double > 0.0:
            if 2 * k >= top:
                won += double
            else:
                w[2 * k] += double
        for e in range(subs.shape[0]):
            w[max(k - subs[e], 0)] += sub_chances[e]
        pin = 0.0  # the row's coefficient on P_A, A = pinned below k
        if band.set_chance > 0.0:
            if pinned >= top:
                won += band.set_chance
            elif pinned >= k:
                w[pinned] += band.set_chance
            else:
                pin += band.set_chance
        ac = lose_c + won
        ad = lose_d
        high = _highest(k, top, band)
        q0 = q1 = q2 = q3 = q4 = q5 = 0.0  # what the rows folded so far add to totals m .. m - 5
        for m in range(high, k, -1):
            wm = w[m] + q0
            w[m] = 0.0
            mult[pos + m - k - 1] = wm
            ac += wm * alpha[m]
            ad += wm * alpha_d[m]
            if act[m] != 0:  # fold row m's (1) in; a hold reads nothing below it
                if m > pinned >= 0:  # its term on P_A: above k a coefficient like any other, below it the row's pin
                    if pinned >= k:
                        w[pinned] += wm * gamma[m]
                    else:
                        pin += wm * gamma[m]
                q0 = q1 + wm * beta[m, 1]
                q1 = q2 + wm * beta[m, 2]
                q2 = q3 + wm * beta[m, 3]
                q3 = q4 + wm * beta[m, 4]
                q4 = q5 + wm * beta[m, 5]
                q5 = wm * beta[m, 6]
            else:
                q0, q1, q2, q3, q4, q5 = q1, q2, q3, q4, q5, 0.0
        pos += high - k
        g = 1.0 / (1.0 - (w[k] + q0))
        w[k] = 0.0
        gain[k] = g
        win[k] = won
        gamma[k] = pin * g
        alpha[k] = ac * g
        alpha_d[k] = ad * g
        beta[k, 1] = (w[k - 1] + q1) * g if k >= 1 else 0.0
        beta[k, 2] = (w[k - 2] + q2) * g if k >= 2 else 0.0
        beta[k, 3] = (w[k - 3] + q3) * g if k >= 3 else 0.0
        beta[k, 4] = (w[k - 4] + q4) * g if k >= 4 else 0.0
        beta[k, 5] = (w[k - 5] + q5) * g if k >= 5 else 0.0
        beta[k, 6] = w[k - 6] * g if k >= 6 else 0.0
        for s in range(1, min(WIDTH, k) + 1):
            w[k - s] = 0.0
    _back(top, act, beta, gamma, pinned, alpha, rows.c[slot])
    _back(top, act, beta, gamma, pinned, alpha_d, rows.d[slot])


@njit(cache=True, inline="always")
def _back(top, act, beta, gamma, pinned, alpha, out):  # pragma: no cover - numba
    """Write (1) from k = 0 up: out[k] = alpha[k] + sum_s beta[k, s] out[k - s] (+ gamma[k] out[A]) where it rolls."""
    for k in range(top):
        if 0 <= pinned < k < top and act[k] != 0:
            alpha[k] += gamma[k] * out[pinned]  # P_A is solved by now
        if act[k] != 0 and k >= WIDTH:
            # the totals two and more below first, the one just solved last: a short chain from row to row
            even = alpha[k] + beta[k, 2] * out[k - 2] + beta[k, 4] * out[k - 4] + beta[k, 6] * out[k - 6]
            odd = beta[k, 3] * out[k - 3] + beta[k, 5] * out[k - 5]
            out[k] = (even + odd) + beta[k, 1] * out[k - 1]
        elif act[k] != 0:
            value = alpha[k]
            for s in range(1, k + 1):
                value += beta[k, s] * out[k - s]
            out[k] = value
        else:
            out[k] = alpha[k]


@njit(cache=True)
def _resolve(i, j, V, top, act, rows, slot, lose_c):  # pragma: no cover - numba
    """Solve c of the turn at (i, j) by the slot's elimination (made under the same actions by ``_factor``)."""
    band = rows.band
    gain, win, mult, alpha = rows.gain[slot], rows.win[slot], rows.mult, rows.alpha
    pos = rows.mult_base[slot]
    for k in range(top - 1, -1, -1):
        if act[k] == 0:
            alpha[k] = 1.0 if k == 0 else 1.0 - V[j, i + k]
            continue
        # four running sums over the totals above, lowest first: a dot product without a long chain
        n = _highest(k, top, band) - k
        s0 = lose_c + win[k]
        s1 = s2 = s3 = 0.0
        u = 0
        while u + 4 <= n:
            s0 += mult[pos + u] * alpha[k + 1 + u]
            s1 += mult[pos + u + 1] * alpha[k + 2 + u]
            s2 += mult[pos + u + 2] * alpha[k + 3 + u]
            s3 += mult[pos + u + 3] * alpha[k + 4 + u]
            u += 4
        while u < n:
            s0 += mult[pos + u] * alpha[k + 1 + u]
            u += 1
        pos += n
        alpha[k] = ((s0 + s1) + (s2 + s3)) * gain[k]
    _back(top, act, rows.beta[slot], rows.gamma[slot], band.pinned, alpha, rows.c[slot])


@njit(cache=True, inline="always")
def _lose(i, j, V, band):  # pragma: no cover - numba
    """Return (c, d) of what a roll loses: a bust hands x over, a reset V[j, 0] (at score 0 a bust)."""
    if i == 0:
        return band.lose + band.reset, -band.lose - band.reset
    return band.lose + band.reset * (1.0 - V[j, 0]), -band.lose


@njit(cache=True)
def _roll_value(k, top, c, d, band, lose_c, lose_d):  # pragma: no cover - numba
    """Return (c, d) of rolling at total k given the turn's values c, d below top (a win from top on)."""
    rc = lose_c
    rd = lose_d
    for e in range(band.add_amounts.shape[0]):
        m = k + band.add_amounts[e]
        if m >= top:
            rc += band.add_chances[e]
        else:
            rc += band.add_chances[e] * c[m]
            rd += band.add_chances[e] * d[m]
    if band.double_chance > 0.0:
        if 2 * k >= top:
            rc += band.double_chance
        else:
            rc += band.double_chance * c[2 * k]
            rd += band.double_chance * d[2 * k]
    for e in range(band.subtract_amounts.shape[0]):
        m = max(k - band.subtract_amounts[e], 0)
        rc += band.subtract_chances[e] * c[m]
        rd += band.subtract_chances[e] * d[m]
    if band.set_chance > 0.0:
        if band.pinned >= top:
            rc += band.set_chance
        else:
            rc += band.set_chance * c[band.pinned]
            rd += band.set_chance * d[band.pinned]
    return rc, rd


@njit(cache=True)
def banded_turn(i, j, V, x, goal, rows, again):  # pragma: no cover - numba
    """Solve the turn at (i, j) optimally given the partner value x = V[j, i]; return its ``TurnBounds``.

    V holds the next mover's values. The turn's c and d are left in ``rows.c[slot]``, ``rows.d[slot]``
    (slot: ``slot_of``). Starts from the actions last chosen at score i; ``again``: the same turn
    as the last call (a later round of its pair, only x moved), so only the actions are checked.
    """
    band = rows.band
    top = goal - i
    slot = i if rows.owner.shape[0] > 1 else 0
    act = rows.act[i]
    lose_c, lose_d = _lose(i, j, V, band)
    solved = again and rows.owner[slot] == i and rows.last[slot] == j + 1
    c, d = rows.c[slot], rows.d[slot]
    for _ in range(MAX_POLICY_ROUNDS):
        if not solved:
            if rows.owner[slot] == i:
                _resolve(i, j, V, top, act, rows, slot, lose_c)
            else:
                _factor(i, j, V, top, act, rows, slot, lose_c, lose_d)
                rows.owner[slot] = i
            rows.last[slot] = j + 1
            solved = True
        lo = -1e300
        hi = 1e300
        changed = False
        for k in range(top):
            hc, hd = _hold(i, j, k, V)
            if act[k] != 0:  # the roll's value is the solved value
                rc, rd = c[k], d[k]
            else:
                rc, rd = _roll_value(k, top, c, d, band, lose_c, lose_d)
            rolled = _better(rc + rd * x, hc + hd * x, 0, k)
            if rolled:
                lo, hi = _widen(lo, hi, rc, rd, hc, hd)
            else:
                lo, hi = _widen(lo, hi, hc, hd, rc, rd)
            if rolled != (act[k] != 0):
                act[k] = 1 if rolled else 0
                changed = True
        if not changed:
            break
        rows.owner[slot] = -1  # the actions moved: eliminate again
        solved = False
    return TurnBounds(lo, hi, 0.0, top, 0.0, False)


@njit(cache=True)
def fixed_turn(i, j, V, goal, fixed, rows):  # pragma: no cover - numba
    """Solve the turn at (i, j) under the given actions (nonzero: roll); leave c, d in the slot, as ``banded_turn``."""
    top = goal - i
    slot = i if rows.owner.shape[0] > 1 else 0
    act = rows.act[i]
    same = rows.owner[slot] == i
    for k in range(top):
        a = 1 if fixed[k] != 0 else 0
        if act[k] != a:
            act[k] = a
            same = False
    lose_c, lose_d = _lose(i, j, V, rows.band)
    if same:
        _resolve(i, j, V, top, act, rows, slot, lose_c)
    else:
        _factor(i, j, V, top, act, rows, slot, lose_c, lose_d)
        rows.owner[slot] = i
    rows.last[slot] = j + 1


def solve_levels(
    VA: np.ndarray, VB: np.ndarray, s_high: int, s_low: int, game: Game, rows: BandedRows, fresh: bool, same: bool
) -> LevelSweep:
    """``rollhold.solve_levels`` for the games that ``fits``: the pairs with sums in [s_low, s_high], high first."""
    return _levels(VA, VB, s_high, s_low, game.goal, rows, fresh, same)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _levels(VA, VB, s_high, s_low, goal, rows, fresh, same):  # pragma: no cover - numba
    """Solve each pair (VA[i, j], VB[j, i]) by policy iteration on its 2x2 system, as ``rollhold._levels``."""
    change = 0.0
    residual = 0.0
    single = rows.owner.shape[0] == 1
    for s in range(s_high, s_low - 1, -1):
        i_low = max(s - goal + 1, 0)
        i_high = s // 2 if same else s - i_low
        for i in range(i_low, i_high + 1):
            j = s - i
            diagonal = same and i == j
            old_x = VA[i, j]
            old_z = VB[j, i]
            if fresh:
                VA[i, j] = _guess(VA, i, j, goal)
                VB[j, i] = _guess(VB, j, i, goal)
            x = VA[i, j]
            z = VB[j, i]
            pair_residual = 0.0
            for rounds in range(MAX_PAIR_ROUNDS):
                # a later round re-solves nothing unless the actions move (one array: at i == j with the
                # seat mattering both turns would share a slot; one slot shared: every turn afresh)
                again = rounds > 0 and same and not single
                mine = banded_turn(i, j, VB, z, goal, rows, again)
                slot = 0 if single else i
                c1, d1 = rows.c[slot, 0], rows.d[slot, 0]
                theirs = mine
                c2, d2 = c1, d1
                if not diagonal:
                    theirs = banded_turn(j, i, VA, x, goal, rows, again)
                    slot = 0 if single else j
                    c2, d2 = rows.c[slot, 0], rows.d[slot, 0]
                new_x, new_z = _pair_solution(c1, d1, c2, d2, z, diagonal)
                pair_residual = max(abs(c1 + d1 * new_z - new_x), abs(c2 + d2 * new_x - new_z))
                stable, _ = _pair_settled(mine, theirs, x, z, new_x, new_z, 0.0)
                x = new_x
                z = new_z
                if stable:
                    break
            VA[i, j] = x
            VB[j, i] = z
            residual = max(residual, pair_residual)
            change = max(change, abs(x - old_x), abs(z - old_z))
    return LevelSweep(change, residual, 0.0)


def evaluation_rows(game: Game) -> tuple[BandedRows, BandedRows]:
    """Return fresh rows for ``evaluate_levels``: one set per side (each keeps its own actions' eliminations)."""
    band = band_of(game.table)
    return banded_rows(game.goal, band), banded_rows(game.goal, band)


def evaluate_levels(
    VA: np.ndarray,
    VB: np.ndarray,
    TA: np.ndarray,
    TB: np.ndarray,
    game: Game,
    rows: tuple[BandedRows, BandedRows],
    loop: float,
) -> Evaluation:
    """``rollhold.evaluate_levels`` for the games that ``fits``: two fixed strategies' exact win chances."""
    return _evaluate(VA, VB, TA, TB, game.goal, rows[0], rows[1], loop)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _evaluate(VA, VB, TA, TB, goal, rows_a, rows_b, loop):  # pragma: no cover - numba
    """Evaluate every pair (VA[i, j], VB[j, i]) from high score sums to low, as ``rollhold._evaluate``."""
    change = 0.0
    endless = 0
    endless_score = 0
    endless_other = 0
    slot_a = 0
    slot_b = 0
    single = rows_a.owner.shape[0] == 1
    for s in range(2 * goal - 2, -1, -1):
        i_low = max(s - goal + 1, 0)
        for i in range(i_low, s + 1 - i_low):
            j = s - i
            old_a = VA[i, j]
            old_b = VB[j, i]
            fixed_turn(i, j, VB, goal, TA[i, j], rows_a)
            fixed_turn(j, i, VA, goal, TB[j, i], rows_b)
            if not single:
                slot_a = i
                slot_b = j
            c1 = rows_a.c[slot_a, 0]
            d1 = rows_a.d[slot_a, 0]
            c2 = rows_b.c[slot_b, 0]
            d2 = rows_b.d[slot_b, 0]
            det = 1.0 - d1 * d2
            if abs(det) > 1e-15:
                a = (c1 + d1 * c2) / det
            else:  # neither turn ever leaves this pair of states: the game never ends here
                a = loop
                endless += 1
                endless_score = i
                endless_other = j
            b = c2 + d2 * a
            VA[i, j] = a
            VB[j, i] = b
            change = max(change, abs(a - old_a), abs(b - old_b))
    return Evaluation(change, endless, endless_score, endless_other)


def level_rows(game: Game) -> BandedRows:
    """Return the rows ``solve_levels`` keeps its eliminations in (allocated once per solve)."""
    return banded_rows(game.goal, band_of(game.table))
