"""One three-standing turn of 3-player Swine Herd: its stages' values given the turn-start value x and what follows.

While all three stand, each roll to the shared total t is a 3-player stage game (``payoffs3``: every
profile's shares; ``n_stages`` solves it). A bust with everyone standing starts the same turn again,
so the all-stay payoff contains the turn start's own value x; every other state it reads (someone
sat: a pair state, the lone roller, the turn's end) lies at a higher score sum and is already solved.
``turn`` sweeps the stages backwards in t for a given x and returns the turn value
F(x) = c + (1 - e) x, with c the payoffs of the exits (someone banks) and e the exit chance (e > 0 by
the ending rule: at t >= top = goal - min(s) all three are at the goal and sit at once).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.herd.n_bundles import FORCED, SELECTED, STICKY
from pigdice.solve.herd.n_lone import ending, lone, pair
from pigdice.solve.herd.n_stages import (
    MIXED,
    PURE,
    SIT_MARGIN,
    UNRESOLVED,
    forced_stage,
    gain,
    is_equilibrium,
    profile_weight,
    respects,
    solve_stage,
)


@njit(cache=True)
def payoffs3(s, t, goal, pbust, PR, V, R, W, Y, U):  # pragma: no cover - numba
    """Fill U[profile] (bit j: player j sits) at the three-standing stage (s sorted, t); Y: the all-stay payoff.

    V, R, W are the equilibrium's tables or the best responses'.
    """
    tmp = np.zeros(3)
    for q in range(3):
        U[0, q] = Y[q]
    ending(s[0] + t, s[1] + t, s[2] + t, goal, V, U[7])
    for i in range(3):
        j = 1 if i == 0 else 0
        k = 1 if i == 2 else 2
        # i stays, j and k sit: i rolls on alone
        lone(s[j] + t, s[k] + t, s[i], t, goal, pbust, PR, V, R, tmp)
        prof = 7 - (1 << i)
        U[prof, j], U[prof, k], U[prof, i] = tmp[0], tmp[1], tmp[2]
        # i sits, j and k stay: a pair state, unless the total takes both stayers to the goal
        prof = 1 << i
        if s[j] + t >= goal:
            for q in range(3):
                U[prof, q] = U[7, q]
        else:
            w = pair(s[j], s[k])
            U[prof, i], U[prof, j], U[prof, k] = W[w, s[i], t, 0], W[w, s[i], t, 1], W[w, s[i], t, 2]


@njit(cache=True)
def turn(s, x, game, rows, plays):  # pragma: no cover - numba
    """Sweep the three-standing stages of the turn at s (sorted) for the turn-start value x, backwards in t.

    Fills ``rows`` D, C, E, S at t = 1.. and row 0 with the whole turn's F(x), c and e (and keeps the stage
    payoffs with a sitter in rows.U for the next sweep of the same turn start: the tables must not change
    between sweeps of one ``rows``, as in a solve, where they only grow below the higher sums); plays each
    stage as ``plays`` says and, except at SELECTED stages, writes each player's gain from sitting to
    ``plays.gain[t]``. Return the (mixed, unresolved) counts of the sweep's stages.
    """
    goal, amounts, probs, pbust = game.goal, game.amounts, game.probs, game.pbust
    PR, V, R, W = game.PR, game.V, game.R, game.W
    D, C, E, S = rows.D, rows.C, rows.E, rows.S
    U = np.zeros((8, 3))
    Y = np.zeros(3)
    sig = np.zeros(3)
    top = goal - s[0]  # from here on all three stand at the goal: they sit at once
    nf = amounts.shape[0]
    cap = top + amounts.max()
    for t in range(top, cap + 1):
        ending(s[0] + t, s[1] + t, s[2] + t, goal, V, D[t])
        E[t] = 1.0
        for q in range(3):
            C[t, q] = D[t, q]
    tied = np.array([s[0] == s[1], s[1] == s[2]])
    # the payoffs with a sitter read only solved states (higher score sums), not x: the turn start's
    # repeated sweeps (its fixed point, the repairs' searches) compute them once
    kept = rows.key[0] == s[0] and rows.key[1] == s[1] and rows.key[2] == s[2]
    mixed = 0
    unresolved = 0
    for t in range(top - 1, 0, -1):
        cy = np.zeros(3)
        ey = 0.0
        for q in range(3):
            acc = pbust * x[q]
            for f in range(nf):
                acc += probs[f] * D[t + amounts[f], q]
                cy[q] += probs[f] * C[t + amounts[f], q]
            Y[q] = acc
        for f in range(nf):
            ey += probs[f] * E[t + amounts[f]]
        if kept:
            for q in range(3):
                U[0, q] = Y[q]
            U[1:] = rows.U[t, 1:]
        else:
            payoffs3(s, t, goal, pbust, PR, V, R, W, Y, U)
            rows.U[t] = U
        mode = plays.mode[t]
        if mode == FORCED:
            kind = forced_stage(U, s, plays.mask[t], plays.sit[t], sig)
        else:
            kind = -1
            if mode == STICKY:  # the profile of the last sweep, while it is still an equilibrium
                mixers = 0
                for j in range(3):
                    sig[j] = plays.sit[t, j]
                    if SIT_MARGIN < sig[j] < 1.0 - SIT_MARGIN:
                        mixers |= 1 << j
                if mixers == 0 and respects(sig, 3, tied) and is_equilibrium(U, 3, sig, 0):
                    kind = PURE
            if kind < 0:
                kind = solve_stage(U, 3, tied, sig)
        if mode != SELECTED:
            for j in range(3):
                plays.gain[t, j] = gain(U, 3, j, sig)
        if kind == MIXED:
            mixed += 1
        elif kind == UNRESOLVED:
            unresolved += 1
        for q in range(3):
            S[t, q] = sig[q]
        stay = profile_weight(sig, 3, 0)
        E[t] = 1.0 - stay + stay * ey
        for q in range(3):
            v = 0.0
            for p in range(1, 8):
                v += profile_weight(sig, 3, p) * U[p, q]
            C[t, q] = v + stay * cy[q]
            D[t, q] = v + stay * Y[q]
    for q in range(3):
        rows.key[q] = s[q]
    for q in range(3):
        f0 = pbust * x[q]
        c0 = 0.0
        for f in range(nf):
            f0 += probs[f] * D[amounts[f], q]
            c0 += probs[f] * C[amounts[f], q]
        D[0, q] = f0
        C[0, q] = c0
    e0 = 0.0
    for f in range(nf):
        e0 += probs[f] * E[amounts[f]]
    E[0] = e0
    return mixed, unresolved
