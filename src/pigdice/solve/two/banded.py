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

Under a final round (``endgame``: banking T >= goal hands the other player a last turn, worth
1 - L[T - j] to the mover) the turn goes on past the goal, up to the total where holding is provably
optimal (``rollhold._turn_sweep``'s stop, from x; every total from it on holds). Every total above the
highest one that rolls, H, then holds, so the elimination runs from the highest total a roll at H
reads, F - 1, down: F, the elimination and its multipliers depend on the actions alone, and a turn
whose actions are those last chosen at its score re-solves only c again, though its stop moves with
the opponent's score.

Only games that finish first to the goal or with a final round, with one roll choice of adds, subtracts,
doubles, one set, busts and resets, take this path (``fits``, ``tables.is_banded``); ``rollhold`` solves
every other game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.layout import SWEEP_GENERAL
from pigdice.solve.positions import TRUNCATION_ERROR
from pigdice.solve.step import WITHOUT_REFCOUNTS
from pigdice.solve.tables import BAND_WIDTH, Band, band_of, is_banded
from pigdice.solve.two import lastturn
from pigdice.solve.two.bundles import NO_LAST, Ends, Evaluation, Game
from pigdice.solve.two.rollhold import (
    MAX_PAIR_ROUNDS,
    LevelSweep,
    TurnBounds,
    _better,
    _guess,
    _pair_settled,
    _pair_solution,
    _widen,
    stop_margin,
)

# Each score keeps its own elimination while all of them fit in this many bytes (Pig Dice: goal 100
# 1.6 MB, goal 200 10 MB); past it one slot is shared and every turn is eliminated afresh.
CACHE_BYTES = 128 << 20
WIDTH = BAND_WIDTH  # (1) runs over this many totals below (a die's faces): subtracts up to it fit
MAX_POLICY_ROUNDS = 100  # actions improved this many times at most (ties to rounding could swap forever)
# A final round's slot keeps room for the multipliers of rolls up to this many totals past the goal; a turn
# that rolls further is eliminated in a spare region and not kept (Pig Dice to 100 rolls up to 20-40 past it)
ROOM_PAST_GOAL = 64


class BandedRows(NamedTuple):
    """A solve's in-turn eliminations: actions per score, and per slot (a score, or one shared) its factors."""

    act: np.ndarray  # int8 (goal, span): the actions last chosen at score i (0 hold, 1 roll), per total
    rolled: np.ndarray  # int64 per score: no total at or above it rolls (final round; first to the goal unused)
    owner: np.ndarray  # int64 per slot: the score whose actions its factors hold, -1 none
    last: np.ndarray  # int64 per slot: 1 + the opponent's score whose c it holds (0: none)
    top: np.ndarray  # int64 per slot: the totals its elimination covers (goal - i first to the goal, else F)
    c: np.ndarray  # (slots, span): P_k = c_k + d_k x of the last turn solved
    d: np.ndarray
    beta: np.ndarray  # (slots, span, WIDTH + 1): (1)'s coefficients, beta[., k, s] (0 past the band)
    gamma: np.ndarray  # (slots, span): above the pinned total A, (1) has a term gamma_k P_A too
    gain: np.ndarray  # (slots, span): 1 / (1 - what row k keeps of itself)
    win: np.ndarray  # (slots, span): the chance a roll at k reaches the goal (first to the goal)
    mult: np.ndarray  # flat: each slot's multipliers from base[slot] on, rows from the top down
    base: np.ndarray  # int64 per slot and one spare region last: where its multipliers start
    room: np.ndarray  # int64 per slot and the spare: how many multipliers fit there
    alpha: np.ndarray  # scratch (span): (1)'s alpha, c part
    alpha_d: np.ndarray  # scratch (span): the d part
    w: np.ndarray  # scratch (2 span + reach + 2): a row's coefficients while it is eliminated
    band: Band
    final: np.ndarray  # L, the last-turn table of a final round (``endgame``); empty: first to the goal
    bust_chance: float  # the margin of the stop past the goal (``rollhold._turn_sweep``)
    short: int  # a table L shorter than this is lengthened by the caller once a stop or read runs off it
    gave_up: np.ndarray  # int64 (1,): 1 once a pass met such a pair and gave up (``_levels``)


def first_to_goal(ends: Ends) -> bool:
    """Return True if ``ends`` are first to the goal: no last-turn tables, no cap."""
    return ends.mover_last.shape[0] == 0 and ends.other_last.shape[0] == 0 and ends.cap == 0


def final_round(ends: Ends) -> bool:
    """Return True if ``ends`` give both players the same last turn (a final round), uncapped."""
    mover, other = ends.mover_last, ends.other_last
    same = mover is other or (mover.shape == other.shape and bool(np.array_equal(mover, other)))
    return mover.shape[0] > 0 and same and ends.cap == 0


def fits(game: Game) -> bool:
    """Return True if ``game``'s turns take the banded solve: first to the goal or a final round, ``is_banded``."""
    ends = game.ends
    ending = first_to_goal(ends) or final_round(ends)
    return game.sweep == SWEEP_GENERAL and ending and is_banded(game.table)


def multipliers(top: int, band: Band) -> int:
    """Return how many multipliers a turn of ``top`` totals rolling at every total keeps (rows' highest reads)."""
    k = np.arange(top)
    high = np.maximum(k + band.reach, np.where(band.double_chance > 0.0, 2 * k, 0))
    high = np.minimum(np.maximum(high, band.pinned), top - 1)
    return int(np.maximum(high - k, 0).sum())


def multipliers_by_score(goal: int, band: Band) -> np.ndarray:
    """Return ``multipliers(goal - i, band)`` for every score i at once (int64)."""
    k = np.arange(goal)
    high = np.maximum(k + band.reach, np.where(band.double_chance > 0.0, 2 * k, 0))
    high = np.maximum(high, band.pinned)[None, :]
    top = (goal - k)[:, None]
    inside = k[None, :] < top
    return np.where(inside, np.maximum(np.minimum(high, top - 1) - k[None, :], 0), 0).sum(axis=1).astype(np.int64)


def span_of(goal: int, final: np.ndarray, band: Band) -> int:
    """Return the totals a turn's rows hold: the goal's, or past it the highest read of a roll below the last stop."""
    if final.shape[0] == 0:
        return goal
    highest = goal + final.shape[0]  # a stop lies below goal - 1 + len(L) - 1
    return max(2 * highest, highest + band.reach, band.pinned + 1) + 2


def banded_rows(goal: int, band: Band, final: np.ndarray = NO_LAST, bust_chance: float = 0.0) -> BandedRows:
    """Return fresh rows for a solve or one side of an evaluation to ``goal`` (a slot per score if they fit).

    ``final``: a final round's last-turn table (``endgame``), ``bust_chance`` its stop's margin.
    """
    span = span_of(goal, final, band)
    if final.shape[0] == 0:
        sizes = multipliers_by_score(goal, band)
        spare = 0
    else:  # room for rolls up to ROOM_PAST_GOAL past the goal; the spare takes any turn
        sizes = np.array([multipliers(min(goal - i + ROOM_PAST_GOAL, span), band) for i in range(goal)], dtype=np.int64)
        spare = multipliers(span, band)
    per_slot = 8 * span * (WIDTH + 6)
    slots = goal if per_slot * goal + 8 * int(sizes.sum()) + span * goal <= CACHE_BYTES else 1
    if slots == 1:
        sizes = sizes[:1]  # score 0's turn is the longest
    room = np.append(sizes, spare).astype(np.int64)
    base = np.zeros(slots + 1, dtype=np.int64)
    base[1:] = np.cumsum(room)[:-1]
    act = np.zeros((goal, span), dtype=np.int8)
    act[:, :goal] = 1
    return BandedRows(
        act,
        np.full(goal, goal, dtype=np.int64),
        np.full(slots, -1, dtype=np.int64),
        np.zeros(slots, dtype=np.int64),
        np.zeros(slots, dtype=np.int64),
        np.zeros((slots, span)),
        np.zeros((slots, span)),
        np.zeros((slots, span, WIDTH + 1)),
        np.zeros((slots, span)),
        np.zeros((slots, span)),
        np.zeros((slots, span)),
        np.zeros(max(int(room.sum()), 1)),
        base,
        room,
        np.zeros(span),
        np.zeros(span),
        np.zeros(2 * span + band.reach + 2),
        band,
        final,
        float(bust_chance),
        lastturn.MAX_LENGTH,
        np.zeros(1, dtype=np.int64),
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
def _read_limit(k, band):  # pragma: no cover - numba
    """Return the highest total a roll at k reads (its largest add, its doubling, the pinned total)."""
    high = k + band.reach
    if band.double_chance > 0.0 and 2 * k > high:
        high = 2 * k
    if band.set_chance > 0.0 and band.pinned > high:
        high = band.pinned
    return high


@njit(cache=True, inline="always")
def _hold(i, j, k, V, goal, final):  # pragma: no cover - numba
    """Return holding's value (c, d) at total k: 1 - V[j, i + k]; at k = 0 passing, 1 - x; past the goal 1 - L."""
    if k == 0:
        return 1.0, -1.0
    if i + k < goal:
        return 1.0 - V[j, i + k], 0.0
    return 1.0 - final[min(i + k - j, final.shape[0] - 1)], 0.0  # past the table's end its last entry


@njit(cache=True, inline="always")
def _beyond(i, j, m, V, goal, final):  # pragma: no cover - numba
    """Return what a roll reaching total m at or past the elimination's top is worth: a win, or (final round) a hold."""
    if final.shape[0] == 0:
        return 1.0
    return _hold(i, j, m, V, goal, final)[0]


@njit(cache=True)
def _elimination_top(act, rolled, band):  # pragma: no cover - numba
    """Return F, a final round's elimination top: past the highest read of its highest roll below ``rolled``."""
    for k in range(rolled - 1, -1, -1):
        if act[k] != 0:
            return _read_limit(k, band) + 1
    return 1  # nothing rolls: the turn passes at 0


@njit(cache=True)
def _room_needed(top, act, band):  # pragma: no cover - numba
    """Return how many multipliers the elimination of a turn of ``top`` totals under ``act`` keeps."""
    n = 0
    for k in range(top):
        if act[k] != 0:
            n += _highest(k, top, band) - k
    return n


@njit(cache=True)
def _factor(i, j, V, top, act, rows, slot, lose_c, lose_d, goal, pos):  # pragma: no cover - numba
    """Eliminate the turn at (i, j) under the actions ``act`` from the top total down; leave c, d in the slot.

    The multipliers go to ``rows.mult`` from ``pos`` on (the slot's region, or the spare one).

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
    final = rows.final
    for k in range(top - 1, -1, -1):
        if act[k] == 0:
            alpha[k], alpha_d[k] = _hold(i, j, k, V, goal, final)
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
def _resolve(i, j, V, top, act, rows, slot, lose_c, goal):  # pragma: no cover - numba
    """Solve c of the turn at (i, j) by the slot's elimination (made under the same actions by ``_factor``)."""
    band = rows.band
    gain, win, mult, alpha, final = rows.gain[slot], rows.win[slot], rows.mult, rows.alpha, rows.final
    pos = rows.base[slot]
    for k in range(top - 1, -1, -1):
        if act[k] == 0:
            alpha[k] = _hold(i, j, k, V, goal, final)[0]
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
def _roll_value(k, top, c, d, band, lose_c, lose_d, i, j, V, goal, final):  # pragma: no cover - numba
    """Return (c, d) of rolling at total k given the turn's values c, d below top (``_beyond`` from top on)."""
    rc = lose_c
    rd = lose_d
    for e in range(band.add_amounts.shape[0]):
        m = k + band.add_amounts[e]
        if m >= top:
            rc += band.add_chances[e] * _beyond(i, j, m, V, goal, final)
        else:
            rc += band.add_chances[e] * c[m]
            rd += band.add_chances[e] * d[m]
    if band.double_chance > 0.0:
        if 2 * k >= top:
            rc += band.double_chance * _beyond(i, j, 2 * k, V, goal, final)
        else:
            rc += band.double_chance * c[2 * k]
            rd += band.double_chance * d[2 * k]
    for e in range(band.subtract_amounts.shape[0]):
        m = max(k - band.subtract_amounts[e], 0)
        if m >= top:  # a final round's hold at k past F: it falls to another hold
            rc += band.subtract_chances[e] * _beyond(i, j, m, V, goal, final)
        else:
            rc += band.subtract_chances[e] * c[m]
            rd += band.subtract_chances[e] * d[m]
    if band.set_chance > 0.0:
        if band.pinned >= top:
            rc += band.set_chance * _beyond(i, j, band.pinned, V, goal, final)
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
    A final round's turn chooses its actions below the stop past the goal (``rollhold._turn_sweep``'s,
    from x) and holds from it on; its bounds carry the stop's value and the table's clamping as the
    sweep's do.
    """
    band = rows.band
    final = rows.final
    n_last = final.shape[0]
    slot = i if rows.owner.shape[0] > 1 else 0
    act = rows.act[i]
    lose_c, lose_d = _lose(i, j, V, band)
    c, d = rows.c[slot], rows.d[slot]
    stop_value = 0.0
    clamped = 0.0
    at_end = False
    check = goal - i  # the totals whose actions are chosen
    moved = False
    if n_last > 0:
        threshold = max(rows.bust_chance * x, TRUNCATION_ERROR)
        need = stop_margin(final, goal - j, threshold)
        check = j + need - i
        stop_value = final[need]
        at_end = need == n_last - 1
        if i + _read_limit(check - 1, band) - j >= n_last:  # a roll below the stop reads past the table
            clamped = final[n_last - 1]
        for k in range(check, rows.rolled[i]):  # from the stop on every total holds
            if act[k] != 0:
                act[k] = 0
                moved = True
        rows.rolled[i] = min(rows.rolled[i], check)
        if moved and rows.owner[slot] == i:
            rows.owner[slot] = -1
    solved = again and not moved and rows.owner[slot] == i and rows.last[slot] == j + 1
    for _ in range(MAX_POLICY_ROUNDS):
        if not solved:
            if rows.owner[slot] == i:
                _resolve(i, j, V, rows.top[slot], act, rows, slot, lose_c, goal)
            else:
                top = check
                pos = rows.base[slot]
                keep = True
                if n_last > 0:
                    top = _elimination_top(act, rows.rolled[i], band)
                    if _room_needed(top, act, band) > rows.room[slot]:  # too long to keep: the spare region
                        pos = rows.base[rows.base.shape[0] - 1]
                        keep = False
                rows.top[slot] = top
                _factor(i, j, V, top, act, rows, slot, lose_c, lose_d, goal, pos)
                rows.owner[slot] = i if keep else -1
            rows.last[slot] = j + 1
            solved = True
        top = rows.top[slot]
        lo = -1e300
        hi = 1e300
        changed = False
        for k in range(check):
            hc, hd = _hold(i, j, k, V, goal, final)
            if act[k] != 0:  # the roll's value is the solved value
                rc, rd = c[k], d[k]
            else:
                rc, rd = _roll_value(k, top, c, d, band, lose_c, lose_d, i, j, V, goal, final)
            rolled = _better(rc + rd * x, hc + hd * x, 0, k)
            if rolled:
                lo, hi = _widen(lo, hi, rc, rd, hc, hd)
            else:
                lo, hi = _widen(lo, hi, hc, hd, rc, rd)
            if rolled != (act[k] != 0):
                act[k] = 1 if rolled else 0
                changed = True
                if rolled and k >= rows.rolled[i]:
                    rows.rolled[i] = k + 1
        if not changed:
            break
        rows.owner[slot] = -1  # the actions moved: eliminate again
        solved = False
    return TurnBounds(lo, hi, stop_value, check, clamped, at_end)


@njit(cache=True)
def fixed_turn(i, j, V, goal, fixed, rows):  # pragma: no cover - numba
    """Solve the turn at (i, j) under the given actions (nonzero: roll); leave c, d in the slot, as ``banded_turn``.

    First to the goal only (the exact head-to-head's game).
    """
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
        _resolve(i, j, V, top, act, rows, slot, lose_c, goal)
    else:
        rows.top[slot] = top
        _factor(i, j, V, top, act, rows, slot, lose_c, lose_d, goal, rows.base[slot])
        rows.owner[slot] = i
    rows.last[slot] = j + 1


def solve_levels(
    VA: np.ndarray, VB: np.ndarray, s_high: int, s_low: int, game: Game, rows: BandedRows, fresh: bool, same: bool
) -> LevelSweep:
    """``rollhold.solve_levels`` for the games that ``fits``: the pairs with sums in [s_low, s_high], high first.

    The truncation is the most a final round's stop past the goal may move a value, as the sweeps report it.
    Once a pair's truncation passes TRUNCATION_ERROR and L is shorter than ``lastturn.MAX_LENGTH``, the pass
    gives up (this call and the next return at once): the endgame solver lengthens L and solves again
    whatever the other pairs give, so their values are left unsolved.
    """
    return _levels(VA, VB, s_high, s_low, game.goal, rows, fresh, same)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _levels(VA, VB, s_high, s_low, goal, rows, fresh, same):  # pragma: no cover - numba
    """Solve each pair (VA[i, j], VB[j, i]) by policy iteration on its 2x2 system, as ``rollhold._levels``."""
    change = 0.0
    residual = 0.0
    truncation = 0.0
    single = rows.owner.shape[0] == 1
    if rows.gave_up[0] != 0:
        return LevelSweep(change, residual, truncation)
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
            pair_truncation = 0.0
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
                stable, pair_truncation = _pair_settled(mine, theirs, x, z, new_x, new_z, rows.bust_chance)
                x = new_x
                z = new_z
                if stable:
                    break
            VA[i, j] = x
            VB[j, i] = z
            residual = max(residual, pair_residual)
            truncation = max(truncation, pair_truncation)
            change = max(change, abs(x - old_x), abs(z - old_z))
            if truncation > TRUNCATION_ERROR and rows.final.shape[0] < rows.short:
                rows.gave_up[0] = 1
                return LevelSweep(change, residual, truncation)
    return LevelSweep(change, residual, truncation)


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
    return banded_rows(game.goal, band_of(game.table), game.ends.mover_last, game.ends.bust_chance)
