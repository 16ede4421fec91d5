"""After someone sits in 3-player Swine Herd: how a turn ends, and the lone roller's stopping problem.

A turn that ends at scores (x, y, z) gives the result when someone has reached the goal (the best
score wins, tied players share) and otherwise the next turn start's shares (``ending``). A player
left standing alone rolls on or holds as in Pig: against seated banks below the goal its rows
R[pair(c1, c2), (s, u)] (``lone_rows``, per score sum, from the turn starts above), against a seated
score at or past the goal the table PR by deficit (``past_table``, ties held unless rolling on is
worth more). The packed indices ``pair`` and ``tri`` keep the tables at a third of a full cube.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def pair(lo, hi):  # pragma: no cover - numba
    """Return the packed index of an unordered pair lo <= hi."""
    return hi * (hi + 1) // 2 + lo


@njit(cache=True, inline="always")
def tri(s, u, goal):  # pragma: no cover - numba
    """Return the packed index of a lone roller's (base score s, turn total u), 1 <= u < goal - s."""
    return s * (2 * goal - s - 1) // 2 + u - 1


@njit(cache=True)
def ending(x, y, z, goal, V, out):  # pragma: no cover - numba
    """Write to out the shares after a turn ending at scores (x, y, z): the result, or the next turn start."""
    m = max(x, max(y, z))
    if m >= goal:
        k = (x == m) + (y == m) + (z == m)
        out[0] = 1.0 / k if x == m else 0.0
        out[1] = 1.0 / k if y == m else 0.0
        out[2] = 1.0 / k if z == m else 0.0
    else:
        out[0] = V[x, y, z, 0]
        out[1] = V[x, y, z, 1]
        out[2] = V[x, y, z, 2]


@njit(cache=True)
def past_table(game):  # pragma: no cover - numba
    """Fill game.PR[k - 1, d + 2 goal] = (win, tie): a lone roller rolling on, d short of k seated at a score >= goal.

    A bust loses (the roller's score is below the goal); past the seated score it holds and wins;
    level with it, it holds (a 1/(k + 1) share) unless rolling on is worth more (ties hold).
    """
    amounts, probs, PR = game.amounts, game.probs, game.PR
    off = 2 * game.goal
    for k in range(1, 3):
        share = 1.0 / (k + 1)
        for d in range(-off, off + 1):
            win = 0.0
            tie = 0.0
            for f in range(amounts.shape[0]):
                d2 = d - amounts[f]
                if d2 < 0:
                    win += probs[f]
                elif d2 == 0:
                    w0, t0 = PR[k - 1, off, 0], PR[k - 1, off, 1]
                    if share >= w0 + share * t0:
                        tie += probs[f]
                    else:
                        win += probs[f] * w0
                        tie += probs[f] * t0
                else:
                    win += probs[f] * PR[k - 1, d2 + off, 0]
                    tie += probs[f] * PR[k - 1, d2 + off, 1]
            PR[k - 1, d + off, 0] = win
            PR[k - 1, d + off, 1] = tie


@njit(cache=True)
def lone(c1, c2, s, u, goal, pbust, PR, V, R, out):  # pragma: no cover - numba
    """Write to out the shares (seated at c1, seated at c2, roller) when the lone roller (base s, total u) rolls on.

    V and R are the equilibrium's tables or the best responses' (the rows a deviator reads).
    """
    m = max(c1, c2)
    if m >= goal:
        k = (c1 == m) + (c2 == m)
        d = m - s - u
        win = PR[k - 1, d + 2 * goal, 0]
        tie = PR[k - 1, d + 2 * goal, 1]
        top = tie / (k + 1) + (1.0 - win - tie) / k
        out[0] = top if c1 == m else 0.0
        out[1] = top if c2 == m else 0.0
        out[2] = win + tie / (k + 1)
    elif s + u >= goal:  # past the goal ahead of everyone: the next roll wins unless it busts
        out[0] = pbust * V[c1, c2, s, 0]
        out[1] = pbust * V[c1, c2, s, 1]
        out[2] = pbust * V[c1, c2, s, 2] + 1.0 - pbust
    else:
        i = pair(min(c1, c2), max(c1, c2))
        j = tri(s, u, goal)
        if c1 <= c2:
            out[0], out[1] = R[i, j, 0], R[i, j, 1]
        else:
            out[0], out[1] = R[i, j, 1], R[i, j, 0]
        out[2] = R[i, j, 2]


@njit(cache=True)
def lone_rows(c1, c2, s, game, br):  # pragma: no cover - numba
    """Fill the lone roller's rows R[pair(c1, c2), (s, u)] for every u (c1 <= c2 < goal, s < goal).

    The roller holds when holding is worth at least rolling on to it. With ``br`` the rows of the
    best-response tables BR are filled instead (component i: player i deviates), the roller's
    equilibrium choice read from R and V.
    """
    goal, amounts, probs, pbust = game.goal, game.amounts, game.probs, game.pbust
    V, R, BV, BR = game.V, game.R, game.BV, game.BR
    i = pair(c1, c2)
    for u in range(goal - s - 1, 0, -1):
        acc = np.zeros(3)
        bacc = np.zeros(3)
        for q in range(3):
            acc[q] = pbust * V[c1, c2, s, q]
            if br:
                bacc[q] = pbust * BV[c1, c2, s, q]
        for f in range(amounts.shape[0]):
            u2 = u + amounts[f]
            p = probs[f]
            if s + u2 >= goal:
                acc[2] += p
                bacc[2] += p
                continue
            j2 = tri(s, u2, goal)
            hold = V[c1, c2, s + u2, 2] >= R[i, j2, 2]
            if not br:
                for q in range(3):
                    acc[q] += p * (V[c1, c2, s + u2, q] if hold else R[i, j2, q])
            else:
                for q in range(2):
                    bacc[q] += p * (BV[c1, c2, s + u2, q] if hold else BR[i, j2, q])
                bacc[2] += p * max(BV[c1, c2, s + u2, 2], BR[i, j2, 2])
        j = tri(s, u, goal)
        for q in range(3):
            if br:
                BR[i, j, q] = bacc[q]
            else:
                R[i, j, q] = acc[q]
