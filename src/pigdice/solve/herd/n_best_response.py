"""Exact best responses in 3-player Swine Herd: what each player gets by deviating from the others' equilibrium play.

For each player, the best response against the others' fixed stationary strategies is a one-player
MDP over the same states, solved exactly in the same order as the equilibrium (score sums from the
top down): the stage strategies of the others are the equilibrium's (``turn`` and the pair sweep
recompute them from the equilibrium tables into the rows' S) and the deviator maximises, reading the
best-response tables BV, BR, BW (component i: player i deviates). Its turn start, where its own value
returns after a bust, is a scalar fixed point solved by policy iteration (x <- c / e of the greedy
policy: monotone, finite). The gains B - V are the exploitability (``swineherd_n.exploitability``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.herd.n_lone import ending, lone
from pigdice.solve.herd.n_stages import others_weight, profile_weight
from pigdice.solve.herd.n_turns import payoffs3, turn

ROOT_TOLERANCE = 1e-14  # a deviator's turn-start value is settled when a step moves it at most this
MAX_POLICY_STEPS = 2060  # policy-iteration steps per turn start


@njit(cache=True)
def best_reply(BU, n, sig, players, best, alone, sits):  # pragma: no cover - numba
    """Write each deviator's best-response value (component players[i]) against the others' sig.

    BU[profile, component]: best-response payoffs. sits[i] is 1.0 if deviator i sits (ties sit), and
    alone[i] the chance that every other player stays (the loop weight when i stays).
    """
    q = np.zeros(3)
    for i in range(n):
        for j in range(n):
            q[j] = sig[j]
        c = players[i]
        vs = 0.0
        vy = 0.0
        everyone_stays = 1.0
        for prof in range(1 << n):
            if prof & (1 << i):
                continue
            w = others_weight(prof, n, i, q)
            vs += w * BU[prof | (1 << i), c]
            vy += w * BU[prof, c]
            if prof == 0:
                everyone_stays = w
        alone[i] = everyone_stays
        if vs >= vy:
            best[c] = vs
            sits[i] = 1.0
        else:
            best[c] = vy
            sits[i] = 0.0


@njit(cache=True)
def turn_best_response(s, bx, game, rows, scratch):  # pragma: no cover - numba
    """Sweep the deviators' best responses in the turn at s (sorted), their turn-start values bx, backwards in t.

    The others play the stage profiles ``turn`` left in ``rows.S``. Fills BD, BC, BE at t = 1.. and
    row 0 with each deviator's whole turn (BC[0] = c, BE[0] = e per deviator).
    """
    goal, amounts, probs, pbust = game.goal, game.amounts, game.probs, game.pbust
    BD, BC, BE, S = rows.BD, rows.BC, rows.BE, rows.S
    BU, Y, best, alone, sits = scratch.BU, scratch.Y, scratch.best, scratch.alone, scratch.sits
    top = goal - s[0]
    nf = amounts.shape[0]
    cap = top + amounts.max()
    for t in range(top, cap + 1):
        ending(s[0] + t, s[1] + t, s[2] + t, goal, game.BV, BD[t])
        for q in range(3):
            BC[t, q] = BD[t, q]
            BE[t, q] = 1.0
    players = np.array([0, 1, 2])
    for t in range(top - 1, 0, -1):
        bcy = np.zeros(3)
        bey = np.zeros(3)
        for q in range(3):
            acc = pbust * bx[q]
            for f in range(nf):
                acc += probs[f] * BD[t + amounts[f], q]
                bcy[q] += probs[f] * BC[t + amounts[f], q]
                bey[q] += probs[f] * BE[t + amounts[f], q]
            Y[q] = acc
        payoffs3(s, t, goal, pbust, game.PR, game.BV, game.BR, game.BW, Y, BU)
        best_reply(BU, 3, S[t], players, best, alone, sits)
        for i in range(3):
            BD[t, i] = best[i]
            if sits[i] == 1.0:
                BC[t, i] = best[i]
                BE[t, i] = 1.0
            else:  # i stays: the turn loops only if the others stay too
                BC[t, i] = best[i] - alone[i] * Y[i] + alone[i] * bcy[i]
                BE[t, i] = 1.0 - alone[i] + alone[i] * bey[i]
    for q in range(3):
        d0 = pbust * bx[q]
        c0 = 0.0
        e0 = 0.0
        for f in range(nf):
            d0 += probs[f] * BD[amounts[f], q]
            c0 += probs[f] * BC[amounts[f], q]
            e0 += probs[f] * BE[amounts[f], q]
        BD[0, q] = d0
        BC[0, q] = c0
        BE[0, q] = e0


@njit(cache=True)
def turn_start_best_response(s, sweep, scratch):  # pragma: no cover - numba
    """Return (bx, steps, settled, mixed, unresolved): each deviator's best-response share at the turn start s.

    ``sweep.plays`` holds the turn's equilibrium profile; the others' play is swept once at x = V(s),
    then policy iteration runs on the deviators' values from V(s).
    """
    game, rows, plays = sweep
    x = np.zeros(3)
    for q in range(3):
        x[q] = game.V[s[0], s[1], s[2], q]
    bx = x.copy()
    mixed, unresolved = turn(s, x, game, rows, plays)
    BC, BE = rows.BC, rows.BE
    for step in range(MAX_POLICY_STEPS):
        turn_best_response(s, bx, game, rows, scratch)
        moved = 0.0
        for q in range(3):
            nxt = BC[0, q] / BE[0, q]
            moved = max(moved, abs(nxt - bx[q]))
            bx[q] = nxt
        if moved <= ROOT_TOLERANCE:
            return bx, step + 1, True, mixed, unresolved
    return bx, MAX_POLICY_STEPS, False, mixed, unresolved


@njit(cache=True)
def pair_best_response(c, a, b, game, rows, scratch):  # pragma: no cover - numba
    """Sweep the best responses in the pair states (seated c; a <= b stand) against the sit chances in ``rows.S``.

    Fills BW and BD (component i: player i deviates; the seated player's follows the others' play).
    """
    goal, amounts, probs, pbust = game.goal, game.amounts, game.probs, game.pbust
    PR, BV, BR = game.PR, game.BV, game.BR
    BD, BW, S = rows.BD, rows.BW, rows.S
    BU, tmp, best, alone, sits = scratch.BU, scratch.tmp, scratch.best, scratch.alone, scratch.sits
    top = goal - a  # from here on both stand at the goal: they sit at once
    nf = amounts.shape[0]
    cap = top + amounts.max()
    for t in range(top, cap + 1):
        ending(c, a + t, b + t, goal, BV, BD[t])
    bust = np.zeros(3)
    ending(c, a, b, goal, BV, bust)
    players = np.array([1, 2, 0])  # deviators a, b: components 1, 2 (profile bits 0, 1)
    for t in range(top - 1, 0, -1):
        for q in range(3):
            acc = pbust * bust[q]
            for f in range(nf):
                acc += probs[f] * BD[t + amounts[f], q]
            BW[t, q] = acc
        for q in range(3):
            BU[0, q] = BW[t, q]
        lone(c, a + t, b, t, goal, pbust, PR, BV, BR, BU[1])
        lone(c, b + t, a, t, goal, pbust, PR, BV, BR, tmp)
        BU[2, 0], BU[2, 1], BU[2, 2] = tmp[0], tmp[2], tmp[1]
        ending(c, a + t, b + t, goal, BV, BU[3])
        best_reply(BU, 2, S[t], players, best, alone, sits)
        BD[t, 1] = best[1]
        BD[t, 2] = best[2]
        v = 0.0
        for p in range(4):
            v += profile_weight(S[t], 2, p) * BU[p, 0]
        BD[t, 0] = v
