"""Numba kernels of the exact analyses: one turn's outcome distribution, and the game chain.

``turn_rows`` pushes the probability mass of one turn forward over the turn total k under an
action table; ``chain_block`` moves the mass of every turn-start state turn by turn. Both switch
on the effect kinds inline, with the codes of ``pigdice.solve.tables``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.tables import (
    KIND_ADD,
    KIND_BANK,
    KIND_BUST,
    KIND_DOUBLE,
    KIND_RESET,
    KIND_SET,
    KIND_SUBTRACT,
)

MAX_SWEEPS = 100_000  # passes over the turn totals of one turn (effects that lower the total repeat them)


@njit(cache=True)
def turn_rows(i, goal, acts_i, t, one_throw, dist, win, banked, bust, reset, rolls, visits):  # pragma: no cover
    """Fill the outcome of one turn started at (i, j) for every j; return the mass left unresolved.

    ``acts_i[j, k]`` is the action at turn total k (0 hold, c + 1 roll with choice c).
    ``dist[j, s]``: probability the turn ends with the mover's score s < goal; ``win[j]``: that
    it reaches the goal; ``banked[j]``: expected points banked; ``bust``/``reset``: chances of
    losing the turn total / the whole score; ``rolls``: expected rolls; ``visits[j, k]`` (when it
    has rows): expected visits to turn total k. ``t`` is the variant's ``EffectTable``.
    """
    kinds, amounts, keeps, probs, offsets = t.kinds, t.amounts, t.keeps, t.probabilities, t.offsets
    target = np.empty(kinds.shape[0], dtype=np.int64)  # the turn total after each effect, -1 if the turn ends
    top = goal - i
    resid = np.zeros(top)
    seen = np.zeros(top)
    record = visits.shape[0] > 0
    leftover = 0.0
    for j in range(goal):
        acts = acts_i[j]
        same = j > 0
        if same:
            for k in range(1 if one_throw else top):
                if acts[k] != acts_i[j - 1, k]:
                    same = False
                    break
        if same:  # the same actions as at j - 1 (common: thresholds change slowly): the same turn
            dist[j] = dist[j - 1]
            win[j] = win[j - 1]
            banked[j] = banked[j - 1]
            bust[j] = bust[j - 1]
            reset[j] = reset[j - 1]
            rolls[j] = rolls[j - 1]
            if record:
                visits[j] = visits[j - 1]
            continue
        if one_throw:  # Hog: one throw with the chosen number of dice, then the turn ends
            c = acts[0] - 1
            for e in range(offsets[c], offsets[c + 1]):
                kind = kinds[e]
                p = probs[e]
                if kind in (KIND_ADD, KIND_SET, KIND_BANK):
                    s2 = i + amounts[e]
                elif kind == KIND_RESET:
                    s2 = 0
                    reset[j] += p
                else:  # a bust, or doubling / subtracting a zero turn total, scores nothing
                    s2 = i
                    if kind == KIND_BUST:
                        bust[j] += p
                if s2 >= goal:
                    win[j] += p
                    banked[j] += p * (s2 - i)
                else:
                    dist[j, s2] += p
                    if s2 > i:
                        banked[j] += p * (s2 - i)
            rolls[j] = 1.0
            if record:
                visits[j, 0] = 1.0
            continue
        resid[:] = 0.0
        seen[:] = 0.0
        resid[0] = 1.0
        for _ in range(MAX_SWEEPS):
            for k in range(top):
                m = resid[k]
                if m == 0.0:
                    continue
                resid[k] = 0.0
                a = acts[k]
                if a == 0:  # hold (at k = 0: pass)
                    seen[k] += m
                    dist[j, i + k] += m
                    banked[j] += m * k
                    continue
                c = a - 1
                p_self = 0.0  # rolls that leave the turn total where it is: count them geometrically
                for e in range(offsets[c], offsets[c + 1]):
                    kind = kinds[e]
                    k2 = -1
                    if kind == KIND_ADD:
                        k2 = k + amounts[e]
                    elif kind == KIND_DOUBLE:
                        k2 = 2 * k
                    elif kind == KIND_SUBTRACT:
                        k2 = max(k - amounts[e], 0)
                    elif kind == KIND_SET:
                        k2 = amounts[e]
                    target[e] = k2
                    if k2 == k:
                        p_self += probs[e]
                if p_self > 1.0 - 1e-12:
                    leftover += m  # a roll that can never change anything: the turn never ends
                    continue
                m = m / (1.0 - p_self)
                seen[k] += m
                rolls[j] += m
                for e in range(offsets[c], offsets[c + 1]):
                    kind = kinds[e]
                    p = probs[e] * m
                    k2 = target[e]
                    if k2 >= 0:
                        if k2 == k:
                            continue  # counted geometrically above
                        if k2 >= top:  # the turn total reaches the goal: hold and win
                            win[j] += p
                            banked[j] += p * k2
                        else:
                            resid[k2] += p
                    elif kind == KIND_BUST:
                        dist[j, i] += p
                        bust[j] += p
                    elif kind == KIND_RESET:
                        dist[j, 0] += p
                        reset[j] += p
                    else:  # BANK
                        s2 = i + amounts[e]
                        if keeps[e]:
                            s2 += k
                        if s2 >= goal:
                            win[j] += p
                        else:
                            dist[j, s2] += p
                        banked[j] += p * (s2 - i)
            if resid.sum() <= 1e-17:
                break
        leftover += resid.sum()
        if record:
            visits[j, :top] = seen
    return leftover


@njit(cache=True)
def chain_block(  # pragma: no cover - numba
    goal, t0, t1, tail, M, X, Y, ind_a, to_a, pr_a, stats_a, ind_b, to_b, pr_b, stats_b, pmf, acc, winner, W
):
    """Play turns t0 .. t1 - 1 of the chain; return (turns done, mass still playing, M, X, Y).

    M[i, j]: probability that a turn starts with the mover at i and the other at j. X (Y): the
    mover's (other's) scoring turns so far, weighted by that probability. ``stats_*[q, i, j]``:
    per-turn win, scoring, banked, bust, reset, rolls (q = 0..5). ``pmf[t]``: P(the game ends on
    turn t + 1); ``acc[seat, stat]`` the per-seat totals; ``winner[0]``/``winner[1]``: the
    expected scoring turns of the winner / loser; ``W[seat]``: expected turn starts per state.
    """
    t = t0
    remaining = M.sum()
    while t < t1:
        seat = t % 2
        if seat == 0:
            ind, to, pr, st = ind_a, to_a, pr_a, stats_a
        else:
            ind, to, pr, st = ind_b, to_b, pr_b, stats_b
        nM = np.zeros_like(M)
        nX = np.zeros_like(M)
        nY = np.zeros_like(M)
        absorbed = 0.0
        for i in range(goal):
            for j in range(goal):
                m = M[i, j]
                if m == 0.0:
                    continue
                x = X[i, j]
                y = Y[i, j]
                W[seat, i, j] += m
                pw = st[0, i, j]
                absorbed += m * pw
                winner[0] += (x + m) * pw  # the winning turn scores too
                winner[1] += y * pw
                acc[seat, 0] += m
                acc[seat, 1] += m * st[1, i, j]
                acc[seat, 2] += m * st[2, i, j]
                acc[seat, 3] += m * st[3, i, j]
                acc[seat, 4] += m * st[4, i, j]
                acc[seat, 5] += m * st[5, i, j]
                acc[seat, 6] += m * st[4, i, j] * i
                row = i * goal + j
                for q in range(ind[row], ind[row + 1]):
                    s2 = to[q]
                    p = pr[q]
                    nM[j, s2] += m * p
                    nX[j, s2] += y * p
                    if s2 > i:
                        nY[j, s2] += (x + m) * p
                    else:
                        nY[j, s2] += x * p
        pmf[t] = absorbed
        M = nM
        X = nX
        Y = nY
        t += 1
        remaining = M.sum()
        if remaining < tail:
            break
    return t, remaining, M, X, Y
