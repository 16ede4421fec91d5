"""The pair states of 3-player Swine Herd: two players stand, one sat this turn.

W(c, a, b, t): the seated player banked c, the two standing (a <= b) share the total t and choose at
once, a 2-player 2x2 stage game; a bust leads to the turn start (c, a, b), whose score sum is higher
than the turn that seated c, so these states are solved before it. ``pair_sweep`` solves one (c, a, b)
backwards in t; ``pair_level`` runs every sweep of a score sum and stores each row for the
three-standing stage that enters it (the sitter's turn-start score c - t and t).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.herd.n_best_response import pair_best_response
from pigdice.solve.herd.n_lone import ending, lone, pair
from pigdice.solve.herd.n_stages import MIXED, UNRESOLVED, profile_weight, solve_stage


@njit(cache=True)
def pair_sweep(c, a, b, game, rows, scratch):  # pragma: no cover - numba
    """Sweep the pair states (seated c; a <= b stand) backwards in t; return (stages, mixed, unresolved).

    rows.W[t]: shares (c, a, b) with both standing at total t, about to roll; rows.D[t]: at the
    decision after a roll to t; rows.S[t]: the two sit chances there.
    """
    goal, amounts, probs, pbust, PR, V, R = game.goal, game.amounts, game.probs, game.pbust, game.PR, game.V, game.R
    D, W, S = rows.D, rows.W, rows.S
    U, tmp, sig = scratch.U, scratch.tmp, scratch.sig
    top = goal - a  # from here on both stand at the goal: they sit at once
    nf = amounts.shape[0]
    cap = top + amounts.max()
    for t in range(top, cap + 1):
        ending(c, a + t, b + t, goal, V, D[t])
    Ua = np.zeros((4, 2))
    tied = np.array([a == b, False])
    bust = np.zeros(3)
    ending(c, a, b, goal, V, bust)
    stages = 0
    mixed = 0
    unresolved = 0
    for t in range(top - 1, 0, -1):
        for q in range(3):
            acc = pbust * bust[q]
            for f in range(nf):
                acc += probs[f] * D[t + amounts[f], q]
            W[t, q] = acc
        # profiles: bit 0 = a sits, bit 1 = b sits
        for q in range(3):
            U[0, q] = W[t, q]
        lone(c, a + t, b, t, goal, pbust, PR, V, R, U[1])  # a sits, b rolls on alone
        lone(c, b + t, a, t, goal, pbust, PR, V, R, tmp)  # b sits, a rolls on alone
        U[2, 0], U[2, 1], U[2, 2] = tmp[0], tmp[2], tmp[1]
        ending(c, a + t, b + t, goal, V, U[3])
        for p in range(4):
            Ua[p, 0] = U[p, 1]
            Ua[p, 1] = U[p, 2]
        kind = solve_stage(Ua, 2, tied, sig)
        stages += 1
        if kind == MIXED:
            mixed += 1
        elif kind == UNRESOLVED:
            unresolved += 1
        S[t, 0] = sig[0]
        S[t, 1] = sig[1]
        for q in range(3):
            v = 0.0
            for p in range(4):
                v += profile_weight(sig, 2, p) * U[p, q]
            D[t, q] = v
    return stages, mixed, unresolved


@njit(cache=True)
def pair_level(n, game, br, rows, scratch):  # pragma: no cover - numba
    """Run the pair sweeps of every (c, a <= b) with c + a + b = n and store them for their consumers.

    game.W[pair(a, b), s, t] = W(s + t, a, b, t): the sitter left the three-standing stage at its score
    s (s + t = c). With ``br`` the best responses' rows go to game.BW instead. Return (stages, mixed,
    unresolved).
    """
    goal = game.goal
    stages = 0
    mixed = 0
    unresolved = 0
    for c in range(max(1, n - 2 * goal + 2), min(n, 2 * goal - 2) + 1):
        rest = n - c
        for a in range(max(0, rest - goal + 1), rest // 2 + 1):
            b = rest - a
            if b >= goal:
                continue
            lo = max(1, c - goal + 1)
            hi = min(c, goal - a - 1)
            if lo > hi:
                continue
            st, mx, un = pair_sweep(c, a, b, game, rows, scratch)
            stages += st
            mixed += mx
            unresolved += un
            i = pair(a, b)
            if br:
                pair_best_response(c, a, b, game, rows, scratch)
                for t in range(lo, hi + 1):
                    for q in range(3):
                        game.BW[i, c - t, t, q] = rows.BW[t, q]
            else:
                for t in range(lo, hi + 1):
                    for q in range(3):
                        game.W[i, c - t, t, q] = rows.W[t, q]
    return stages, mixed, unresolved
