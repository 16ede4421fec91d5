"""Numba kernels of the n-player game chain (first to the goal) under fixed choices, pushed forward.

A turn starts at a score tuple in turn order, the mover first, stored at the flat index of
``pigdice.solve.n.nkernels`` (mixed radix, base goal), and at r, the offset of one tracked seat from
the mover: the mover's seat is (tracked - r) mod n. ``M[index, r, b]`` is the probability that a
turn starts there in game b (B games are pushed together; in game b the tracked seat ``tracked[b]``
plays the approximate choices if ``approx[b]``, every other seat the exact n-player policy).

Mass moves to a higher score sum with every turn that banks points, so one pass over the score
sums, low to high, pushes it through the whole game, except for two moves:

- a turn that ends with nothing banked (a bust, a pass, a reset at score 0) hands the turn to the
  next player at the same scores: (a_0, ..., a_{n-1}, r) -> (a_1, ..., a_{n-1}, a_0, r - 1). These
  states form cycles of n (the rotations of a tuple with every r), and the visits around a cycle
  are summed in closed form: v_t = M_t + d_{t-1} v_{t-1}, so
  v_0 = (M_0 + sum_{t>=1} d_t ... d_{n-1} M_t) / (1 - d_0 ... d_{n-1});
- a reset (score to 0) lands at a lower sum, already passed: it waits there for the next pass.

The exact players' choices follow from the turn-start values by the mover's entry of the solver's
turn sweep (``exact_choices``, read at the x the solver decided at, overrides included), so they are
the choices ``PlayersPolicy.best`` gives (the tests check this at every state of small games).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.n.nkernels import INNER_TOLERANCE, cycle_period, first_tuple, next_tuple
from pigdice.solve.positions import INDIFFERENCE
from pigdice.solve.step import effect_step, thrown_score

MAX_INNER_SWEEPS = 10_000  # as the solver's: sweeps of one turn's choices (effects lowering the total)
MAX_TURN_PASSES = 100_000  # passes over one turn's totals (effects that lower the total repeat them)
TURN_LEFT = 1e-17  # a turn's pass stops when less mass than this is still inside it
NEVER_ENDS = 1e-15  # a cycle that keeps all but this much of its mass is played forever (counted apart)


class ChoiceRows(NamedTuple):
    """The rows of one exact turn sweep (``exact_choices``) over the turn total k: each option is worth C + D x."""

    C: np.ndarray  # (goal,)
    D: np.ndarray  # (goal,)
    act: np.ndarray  # (goal,) int64: the choice at k (0 hold, c + 1 roll with choice c)
    opt_c: np.ndarray  # (choices + 1,): each option's C and D at the total being swept
    opt_d: np.ndarray


@njit(cache=True)
def choice_rows(goal, choices):  # pragma: no cover - numba
    """Return the rows of an exact turn sweep of a game to ``goal`` with ``choices`` roll choices."""
    return ChoiceRows(np.zeros(goal), np.zeros(goal), np.zeros(goal, dtype=np.int64), np.zeros(choices + 1),
                      np.zeros(choices + 1))  # fmt: skip


class PushedGames(NamedTuple):
    """The games pushed together (``push_levels``), B of them."""

    M: np.ndarray  # (goal^n, n, B): the chance a turn starts at (flat index, offset r of the tracked seat)
    tracked: np.ndarray  # (B,) int64: the seat followed in each game
    approx: np.ndarray  # (B,) bool: the tracked seat plays the approximate turns
    wins: np.ndarray  # (B, n): each seat's wins so far


class ApproximateTurns(NamedTuple):
    """The approximate choices' turn outcomes as CSR rows (mover's score i) * goal + (highest other score j)."""

    indptr: np.ndarray  # int64
    scores: np.ndarray  # int64: the mover's new scores below the goal
    probabilities: np.ndarray
    win: np.ndarray  # (goal * goal,): the chance the turn reaches the goal (empty when no game plays them)


@njit(cache=True)
def turn_outcome(game, a0, act, dist, resid):  # pragma: no cover - numba
    """Push one turn of the mover (score a0) forward under the actions ``act[k]``; return (win, stay, left).

    ``dist[s2]`` receives the probability of ending the turn with the new score s2 != a0 (below
    the goal), ``win`` that of reaching the goal, ``stay`` that of ending with nothing banked (a
    bust, a pass at 0, a reset at score 0, a bank of nothing), ``left`` the mass that never leaves
    the turn (a roll that can change nothing, forever). ``resid`` is scratch of ``goal`` entries.
    ``game`` is the solver's ``PlayersGame``; the moves are its sweep's (``nkernels._sweep``): past
    the goal the mover holds.
    """
    t = game.table
    kinds, amounts, keeps, probs, offsets = t.kinds, t.amounts, t.keeps, t.probabilities, t.offsets
    goal = game.goal
    win = 0.0
    stay = 0.0
    if game.one_throw:  # one banked throw with the chosen dice
        c = act[0] - 1
        for e in range(offsets[c], offsets[c + 1]):
            p = probs[e]
            s2 = thrown_score(kinds[e], amounts[e], keeps[e], a0)
            if s2 >= goal:
                win += p
            elif s2 == a0:
                stay += p
            else:
                dist[s2] += p
        return win, stay, 0.0
    top = goal - a0
    for k in range(top):
        resid[k] = 0.0
    resid[0] = 1.0
    left = 0.0
    for _ in range(MAX_TURN_PASSES):
        for k in range(top):
            m = resid[k]
            if m == 0.0:
                continue
            resid[k] = 0.0
            a = act[k]
            if a == 0:  # hold (at k = 0: pass)
                if k == 0:
                    stay += m
                else:
                    dist[a0 + k] += m
                continue
            c = a - 1
            p_self = 0.0  # rolls that leave the turn total where it is: counted geometrically
            for e in range(offsets[c], offsets[c + 1]):
                _, total, ends = effect_step(kinds[e], amounts[e], keeps[e], a0, k)
                if not ends and total == k:
                    p_self += probs[e]
            if p_self > 1.0 - 1e-12:
                left += m
                continue
            m = m / (1.0 - p_self)
            for e in range(offsets[c], offsets[c + 1]):
                p = probs[e] * m
                score, total, ends = effect_step(kinds[e], amounts[e], keeps[e], a0, k)
                if not ends:
                    if total == k:
                        continue
                    if total >= top:  # the turn total reaches the goal: hold and win
                        win += p
                    else:
                        resid[total] += p
                elif score == a0:  # a bust, a reset at 0, a bank of nothing
                    stay += p
                elif score >= goal:
                    win += p
                else:
                    dist[score] += p
        # a pass runs k upwards, so only moves to lower totals (Pig Dice's tail) are left for the next
        rest = 0.0
        for k in range(top):
            rest += resid[k]
        if rest <= TURN_LEFT:
            left += rest
            break
    return win, stay, left


@njit(cache=True)
def exact_choices(game, W, base, a0, x, rows):  # pragma: no cover - numba
    """Write into rows.act[k] the exact n-player policy's choice at every turn total k < goal - a0 (Hog: k = 0).

    The mover's own entry of the solver's turn sweep (``pigdice.solve.n.nkernels._sweep``), option
    for option and in the same order: W (tuples, n) are the turn-start win vectors, ``base`` the
    flat index of (the others' scores, 0) (the mover's new score is added to it), x the mover's
    entry of the state their turn falls back to (the solver's override where it has one). Each
    option's value is C + D x; the tie-break is ``pigdice.solve.positions``': at k = 0 (and in Hog)
    rolling with the fewest dice, else holding, unless another option is better by more than
    INDIFFERENCE, options taken in order. First to the goal: banking the goal wins.
    """
    t = game.table
    kinds, amounts, keeps, probs, offsets = t.kinds, t.amounts, t.keeps, t.probabilities, t.offsets
    C, D, act, opt_c, opt_d = rows.C, rows.D, rows.act, rows.opt_c, rows.opt_d
    goal, one_throw = game.goal, game.one_throw
    top = 1 if one_throw else goal - a0
    n_choices = offsets.shape[0] - 1
    n_scan = n_choices if one_throw else n_choices + 1
    last = game.players - 1
    single = t.monotone or one_throw
    if not single:
        for k in range(top):
            C[k] = 0.0
            D[k] = 0.0
    for _ in range(MAX_INNER_SWEEPS):
        change = 0.0
        for k in range(top - 1, -1, -1):
            if k == 0:
                opt_c[0] = 0.0
                opt_d[0] = 1.0
            else:
                opt_c[0] = W[base + a0 + k, last]
                opt_d[0] = 0.0
            for ch in range(n_choices):
                rc = 0.0
                rd = 0.0
                for e in range(offsets[ch], offsets[ch + 1]):
                    p = probs[e]
                    score, total, ends = effect_step(kinds[e], amounts[e], keeps[e], a0, k)
                    if not (ends or one_throw):  # the turn goes on, or reaches the goal
                        if total < top:
                            rc += p * C[total]
                            rd += p * D[total]
                        else:
                            rc += p
                    elif score + total == a0:  # nothing banked (a single throw banks its total)
                        rd += p
                    elif score + total >= goal:
                        rc += p
                    else:
                        rc += p * W[base + score + total, last]
                opt_c[ch + 1] = rc
                opt_d[ch + 1] = rd
            roll_first = one_throw or k == 0
            b = 1 if roll_first else 0
            for j in range(1, n_scan):
                o = j
                if roll_first:
                    o = j + 1 if j < n_choices else 0
                if opt_c[o] - opt_c[b] - INDIFFERENCE + (opt_d[o] - opt_d[b]) * x > 0.0:
                    b = o
            if not single:
                change = max(change, abs(opt_d[b] - D[k]), abs(opt_c[b] - C[k]))
            C[k] = opt_c[b]
            D[k] = opt_d[b]
            act[k] = b
        if single or change < INNER_TOLERANCE:
            return


@njit(cache=True)
def _override_row(dec_idx, idx):  # pragma: no cover - numba
    """Return the row of the solver's override of state ``idx`` in ``dec_idx`` (sorted), or -1."""
    if dec_idx.shape[0] == 0:
        return -1
    q = np.searchsorted(dec_idx, idx)
    if q < dec_idx.shape[0] and dec_idx[q] == idx:
        return q
    return -1


@njit(cache=True)
def push_levels(game, W, s_low, s_high, games, approximate, decisions):  # pragma: no cover - numba
    """Push the mass of every turn start whose score sum lies in [s_low, s_high] (low sums first) of the
    ``PushedGames``; return (the mass sent back to lower sums (resets: the next pass), the mass that
    never ends, the turn sweeps).

    ``game`` is the solver's ``PlayersGame`` (first to the goal), W (goal^n, n) the exact policy's win
    vectors; ``approximate`` the approximate choices' turn outcomes (``ApproximateTurns``);
    ``decisions`` the solver's overrides sorted by state (``pigdice.solve.n.rows.Overrides``): a mixed
    one's turn outcome is the mixture. games.wins[b, seat] accumulates each seat's wins.
    """
    goal, n = game.goal, game.players
    M, tracked, approx, wins = games.M, games.tracked, games.approx, games.wins
    ap_ind, ap_to, ap_pr, ap_win = approximate.indptr, approximate.scores, approximate.probabilities, approximate.win
    B = M.shape[2]
    top_power = 1
    for _ in range(n - 1):
        top_power *= goal
    a = np.empty(n, dtype=np.int64)
    idxs = np.empty(n, dtype=np.int64)
    rests = np.empty(n, dtype=np.int64)
    rows = choice_rows(goal, game.table.offsets.shape[0] - 1)
    act = rows.act
    dist = np.zeros(goal)
    dist_mixed = np.zeros(goal)
    resid = np.zeros(goal)
    ex_to = np.zeros((n, goal), dtype=np.int64)
    ex_pr = np.zeros((n, goal))
    ex_cnt = np.zeros(n, dtype=np.int64)
    ex_win = np.zeros(n)
    ex_stay = np.zeros(n)
    ex_left = np.zeros(n)
    ap_row = np.zeros(n, dtype=np.int64)
    ap_stay = np.zeros(n)
    mass = np.zeros(n)
    stays = np.zeros(n)
    visits = np.zeros(n)
    any_approx = False
    for b in range(B):
        if approx[b]:
            any_approx = True
    pending = 0.0
    stuck = 0.0
    sweeps = 0
    for s in range(s_low, s_high + 1):
        if s > n * (goal - 1):
            break
        first_tuple(a, s, n, goal, 0)
        while True:
            period = cycle_period(a, n, goal, top_power)
            if period > 0:
                p = period
                busy = False
                for m in range(p):
                    im = 0
                    for q in range(n):
                        j = m + q
                        im = im * goal + a[j - n if j >= n else j]
                    idxs[m] = im
                    rests[m] = im - a[m] * top_power
                    for r in range(n):
                        for bb in range(B):
                            if M[im, r, bb] != 0.0:
                                busy = True
                if busy:
                    # every member's turn: the exact choices (and the approximate ones where played)
                    for m in range(p):
                        a0 = a[m]
                        base = rests[m] * goal
                        x = W[base + a0, n - 1]
                        row = _override_row(decisions.state, idxs[m])
                        decide = x if row < 0 else decisions.x[row]
                        exact_choices(game, W, base, a0, decide, rows)
                        sweeps += 1
                        w, st, left = turn_outcome(game, a0, act, dist, resid)
                        if row >= 0 and decisions.chance[row] > 0.0:  # a mixed equilibrium: the plans' mixture
                            q = decisions.chance[row]
                            exact_choices(game, W, base, a0, decisions.x_mixed[row], rows)
                            sweeps += 1
                            w2, st2, left2 = turn_outcome(game, a0, act, dist_mixed, resid)
                            w = (1.0 - q) * w + q * w2
                            st = (1.0 - q) * st + q * st2
                            left = (1.0 - q) * left + q * left2
                            for s2 in range(goal):
                                dist[s2] = (1.0 - q) * dist[s2] + q * dist_mixed[s2]
                                dist_mixed[s2] = 0.0
                        ex_win[m] = w
                        ex_stay[m] = st
                        ex_left[m] = left
                        cnt = 0
                        for s2 in range(goal):
                            if dist[s2] != 0.0:
                                ex_to[m, cnt] = s2
                                ex_pr[m, cnt] = dist[s2]
                                cnt += 1
                                dist[s2] = 0.0
                        ex_cnt[m] = cnt
                        if any_approx:
                            top_other = 0
                            for q in range(n):
                                if q != m and a[q] > top_other:
                                    top_other = a[q]
                            row = a0 * goal + top_other
                            ap_row[m] = row
                            st = 0.0
                            for e in range(ap_ind[row], ap_ind[row + 1]):
                                if ap_to[e] == a0:
                                    st += ap_pr[e]
                            ap_stay[m] = st
                    for bb in range(B):
                        seat_b = tracked[bb]
                        for r0 in range(p):
                            # the cycle through (member t mod p, offset r0 - t): visits in closed form
                            total = 0.0
                            for t in range(n):
                                m = t % p
                                r = (r0 - t + n) % n
                                mass[t] = M[idxs[m], r, bb]
                                total += mass[t]
                                stays[t] = ap_stay[m] if (approx[bb] and r == 0) else ex_stay[m]
                            if total == 0.0:
                                continue
                            prod = 1.0
                            back = 0.0
                            for t in range(n - 1, 0, -1):
                                prod *= stays[t]
                                back += prod * mass[t]
                            loop = prod * stays[0]
                            if 1.0 - loop <= NEVER_ENDS:
                                stuck += total
                                for t in range(n):
                                    M[idxs[t % p], (r0 - t + n) % n, bb] = 0.0
                                continue
                            visits[0] = (mass[0] + back) / (1.0 - loop)
                            for t in range(1, n):
                                visits[t] = mass[t] + stays[t - 1] * visits[t - 1]
                            for t in range(n):
                                m = t % p
                                r = (r0 - t + n) % n
                                M[idxs[m], r, bb] = 0.0
                                v = visits[t]
                                if v == 0.0:
                                    continue
                                a0 = a[m]
                                nr = r - 1 if r > 0 else n - 1
                                winner = (seat_b - r + n) % n
                                dest = rests[m] * goal
                                if approx[bb] and r == 0:
                                    row = ap_row[m]
                                    wins[bb, winner] += v * ap_win[row]
                                    for e in range(ap_ind[row], ap_ind[row + 1]):
                                        s2 = ap_to[e]
                                        if s2 == a0:
                                            continue
                                        f = v * ap_pr[e]
                                        M[dest + s2, nr, bb] += f
                                        if s2 < a0:
                                            pending += f
                                else:
                                    wins[bb, winner] += v * ex_win[m]
                                    stuck += v * ex_left[m]
                                    for e in range(ex_cnt[m]):
                                        s2 = ex_to[m, e]
                                        f = v * ex_pr[m, e]
                                        M[dest + s2, nr, bb] += f
                                        if s2 < a0:
                                            pending += f
            if not next_tuple(a, n, goal):
                break
    return pending, stuck, sweeps
