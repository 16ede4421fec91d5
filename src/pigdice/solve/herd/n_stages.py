"""The stage games of 3-player Swine Herd: enumerating a stage's equilibria and the rule that selects one.

A stage game is the moment after a roll when two or three standing players choose at once to sit or
to stay; U[profile, player] is each player's payoff of a pure profile (bit j set: player j sits).
``solve_stage`` enumerates its equilibria: the pure profiles (an action is a best response if its
gain is within TIE of the best), then the mixed ones of every support (two mixers: the 2x2
indifference formulas; three mixers: the indifference conditions reduce to a quadratic in one
probability). Players with equal scores have identical roles, and only equilibria where they play
alike are kept (a symmetric game has one, Nash 1951), so the solution keeps the symmetry exactly.

The selection rule: a pure equilibrium before a mixed one; among pure ones the one with the most
sitters, then the one where the higher scores sit (players are in ascending score order, so the
largest profile index); among mixed ones the largest total sit probability. A stage game where
none is found (a degenerate one) takes the pure role-symmetric profile with the smallest regret
and is counted (``unresolved``; none occurs on the d6 or the test dice). ``forced_stage`` solves
the game left when some players' sit chances are fixed (the fixed-point repair, ``n_fixed_points``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

TIE = 1e-13  # an action within TIE of the best counts as a best response
SIT_MARGIN = 1e-12  # a stage is mixed if a sit probability lies this far inside (0, 1)
MIX_CHECK = 1e-9  # a mixed candidate must make each mixer indifferent within this
NONE_KEPT = -1.0  # the kept total sit chance before any mixed candidate is kept

# what ``solve_stage`` found
PURE, MIXED, UNRESOLVED = 0, 1, 2


@njit(cache=True, inline="always")
def others_weight(prof, n, i, q):  # pragma: no cover - numba
    """Return the chance that the players other than i sit exactly as in ``prof`` (bit j: j sits) given chances q."""
    w = 1.0
    for j in range(n):
        if j != i:
            w *= q[j] if prof & (1 << j) else 1.0 - q[j]
    return w


@njit(cache=True)
def gain(U, n, i, q):  # pragma: no cover - numba
    """Return player i's payoff from sitting minus staying when the others sit with chances q.

    U[profile, player]: payoffs of an n-player 2-action game, bit j of profile set if player j sits.
    """
    g = 0.0
    for prof in range(1 << n):
        if prof & (1 << i):
            continue
        g += others_weight(prof, n, i, q) * (U[prof | (1 << i), i] - U[prof, i])
    return g


@njit(cache=True)
def profile_weight(sig, n, prof):  # pragma: no cover - numba
    """Return the chance of the pure profile ``prof`` when each player j sits with chance sig[j]."""
    w = 1.0
    for j in range(n):
        w *= sig[j] if prof & (1 << j) else 1.0 - sig[j]
    return w


@njit(cache=True)
def respects(q, n, tied):  # pragma: no cover - numba
    """Return True if players with equal scores (tied[j]: player j ties player j + 1) play alike."""
    for j in range(n - 1):  # noqa: SIM110 - a plain loop for numba
        if tied[j] and abs(q[j] - q[j + 1]) > 1e-9:
            return False
    return True


@njit(cache=True)
def is_equilibrium(U, n, q, mixers):  # pragma: no cover - numba
    """Return True if q is an equilibrium: pure players best respond, mixers (bit set) are indifferent."""
    for i in range(n):
        g = gain(U, n, i, q)
        if mixers & (1 << i):
            if abs(g) > MIX_CHECK:
                return False
        elif q[i] == 1.0:
            if g < -TIE:
                return False
        elif g > TIE:
            return False
    return True


@njit(cache=True)
def _consider(q, n, tied, best, kept):  # pragma: no cover - numba
    """Keep q in ``best`` if it respects the roles and sits more than the kept candidate; return the kept total.

    ``kept`` is the kept candidate's total sit chance (NONE_KEPT before the first).
    """
    if not respects(q, n, tied):
        return kept
    for j in range(n - 1):  # exact symmetry for tied players
        if tied[j]:
            m = 0.5 * (q[j] + q[j + 1])
            q[j] = m
            q[j + 1] = m
    total = 0.0
    for j in range(n):
        total += q[j]
    if total > kept:
        for j in range(n):
            best[j] = q[j]
        return total
    return kept


@njit(cache=True)
def _best_pure(U, n, tied, q, out):  # pragma: no cover - numba
    """Write to out the selected pure role-symmetric equilibrium (most sitters, then higher scores); False if none."""
    best_prof = -1
    best_count = -1
    for prof in range(1 << n):
        count = 0
        for j in range(n):
            q[j] = 1.0 if prof & (1 << j) else 0.0
            count += prof >> j & 1
        if not respects(q, n, tied) or not is_equilibrium(U, n, q, 0):
            continue
        if count > best_count or (count == best_count and prof > best_prof):
            best_prof, best_count = prof, count
    if best_prof < 0:
        return False
    for j in range(n):
        out[j] = 1.0 if best_prof & (1 << j) else 0.0
    return True


@njit(cache=True)
def _two_mixers(U, n, tied, q, best, kept):  # pragma: no cover - numba
    """Consider the equilibria where two players i < j mix and the others (at most one, k) play pure."""
    for i in range(n):
        for j in range(i + 1, n):
            k = 3 - i - j if n == 3 else -1
            for ak in range(2 if k >= 0 else 1):
                if k >= 0:
                    q[k] = float(ak)
                # i's gain is linear in q[j] and j's in q[i]
                q[i] = 0.0
                q[j] = 0.0
                gi0 = gain(U, n, i, q)
                gj0 = gain(U, n, j, q)
                q[j] = 1.0
                gi1 = gain(U, n, i, q)
                q[j] = 0.0
                q[i] = 1.0
                gj1 = gain(U, n, j, q)
                if gi0 == gi1 or gj0 == gj1:
                    continue
                qj = gi0 / (gi0 - gi1)
                qi = gj0 / (gj0 - gj1)
                if not (0.0 < qi < 1.0 and 0.0 < qj < 1.0):
                    continue
                q[i] = qi
                q[j] = qj
                if is_equilibrium(U, n, q, (1 << i) | (1 << j)):
                    kept = _consider(q.copy(), n, tied, best, kept)
    return kept


@njit(cache=True)
def _three_mixers(U, tied, q, best, kept):  # pragma: no cover - numba
    """Consider the equilibria where all three players mix.

    g_i = A + B q_j + C q_k + D q_j q_k (j < k the others); solve g_0 for q1 and g_1 for q0 as
    functions of r = q2, then g_2(q0, q1) = 0 is a quadratic in r.
    """
    co = np.zeros((3, 4))  # (A, B, C, D) of each player's gain
    for i in range(3):
        j = 1 if i == 0 else 0
        k = 1 if i == 2 else 2
        for bj in range(2):
            for bk in range(2):
                q[i] = 0.0
                q[j] = float(bj)
                q[k] = float(bk)
                g = gain(U, 3, i, q)
                if bj == 0 and bk == 0:
                    co[i, 0] += g
                    co[i, 1] -= g
                    co[i, 2] -= g
                    co[i, 3] += g
                elif bj == 1 and bk == 0:
                    co[i, 1] += g
                    co[i, 3] -= g
                elif bj == 0:
                    co[i, 2] += g
                    co[i, 3] -= g
                else:
                    co[i, 3] += g
    # q1 = N1 / M1: N1 = -(A0 + C0 r), M1 = B0 + D0 r; q0 = N0 / M0: N0 = -(A1 + C1 r), M0 = B1 + D1 r
    n1 = (-co[0, 0], -co[0, 2])
    m1 = (co[0, 1], co[0, 3])
    n0 = (-co[1, 0], -co[1, 2])
    m0 = (co[1, 1], co[1, 3])
    a2, b2, c2, d2 = co[2, 0], co[2, 1], co[2, 2], co[2, 3]
    poly = np.zeros(3)
    for (x0, x1), (y0, y1), w in (
        ((m0[0], m0[1]), (m1[0], m1[1]), a2),
        ((n0[0], n0[1]), (m1[0], m1[1]), b2),
        ((m0[0], m0[1]), (n1[0], n1[1]), c2),
        ((n0[0], n0[1]), (n1[0], n1[1]), d2),
    ):
        poly[0] += w * x0 * y0
        poly[1] += w * (x0 * y1 + x1 * y0)
        poly[2] += w * x1 * y1
    roots = np.full(2, -1.0)
    scale = max(abs(poly[0]), max(abs(poly[1]), abs(poly[2])))
    if scale > 0.0:
        if abs(poly[2]) > 1e-12 * scale:
            disc = poly[1] * poly[1] - 4.0 * poly[2] * poly[0]
            if disc >= 0.0:
                sq = np.sqrt(disc)
                # the stable pair of quadratic roots
                t = -0.5 * (poly[1] + (sq if poly[1] >= 0.0 else -sq))
                if t != 0.0:
                    roots[0] = t / poly[2]
                    roots[1] = poly[0] / t
                else:
                    roots[0] = 0.0
        elif abs(poly[1]) > 0.0:
            roots[0] = -poly[0] / poly[1]
    for r in roots:
        if not 0.0 < r < 1.0:
            continue
        den1 = m1[0] + m1[1] * r
        den0 = m0[0] + m0[1] * r
        if den1 == 0.0 or den0 == 0.0:
            continue
        q[0] = (n0[0] + n0[1] * r) / den0
        q[1] = (n1[0] + n1[1] * r) / den1
        q[2] = r
        if 0.0 < q[0] < 1.0 and 0.0 < q[1] < 1.0 and is_equilibrium(U, 3, q, 7):
            kept = _consider(q.copy(), 3, tied, best, kept)
    return kept


@njit(cache=True)
def _quadratic_roots(g0, gh, g1, roots):  # pragma: no cover - numba
    """Write to roots the roots in (0, 1) of the quadratic through (0, g0), (1/2, gh), (1, g1); return their count."""
    a = 2.0 * g1 - 4.0 * gh + 2.0 * g0
    b = 4.0 * gh - 3.0 * g0 - g1
    c = g0
    count = 0
    scale = max(abs(a), max(abs(b), abs(c)))
    if scale == 0.0:
        return 0
    if abs(a) <= 1e-12 * scale:
        if b != 0.0:
            roots[0] = -c / b
            count = 1
    else:
        disc = b * b - 4.0 * a * c
        if disc < 0.0:
            return 0
        sq = np.sqrt(disc)
        t = -0.5 * (b + (sq if b >= 0.0 else -sq))
        roots[0] = t / a
        roots[1] = c / t if t != 0.0 else t / a
        count = 2
    kept = 0
    for k in range(count):
        if 0.0 < roots[k] < 1.0:
            roots[kept] = roots[k]
            kept += 1
    return kept


@njit(cache=True)
def _symmetric_mixes(U, tied, q, best, kept):  # pragma: no cover - numba
    """Consider the role-symmetric mixed equilibria of a 3-player stage with tied players; return the kept total.

    A tied pair (j, j + 1) mixing alike with p and the third player k mixing with r: k's indifference
    is a quadratic in p, then j's is linear in r; all three tied: one quadratic in p.
    """
    roots = np.zeros(2)
    if tied[0] and tied[1]:
        for v, x in ((0, 0.0), (1, 0.5), (2, 1.0)):
            q[0] = x
            q[1] = x
            q[2] = x
            g = gain(U, 3, 2, q)
            if v == 0:
                g0 = g
            elif v == 1:
                gh = g
            else:
                g1 = g
        for k in range(_quadratic_roots(g0, gh, g1, roots)):
            q[0] = roots[k]
            q[1] = roots[k]
            q[2] = roots[k]
            if is_equilibrium(U, 3, q, 7):
                kept = _consider(q.copy(), 3, tied, best, kept)
        return kept
    j = 0 if tied[0] else 1
    k = 2 if tied[0] else 0
    for v, x in ((0, 0.0), (1, 0.5), (2, 1.0)):
        q[j] = x
        q[j + 1] = x
        q[k] = 0.0
        g = gain(U, 3, k, q)
        if v == 0:
            g0 = g
        elif v == 1:
            gh = g
        else:
            g1 = g
    for m in range(_quadratic_roots(g0, gh, g1, roots)):
        p = roots[m]
        q[j] = p
        q[j + 1] = p
        q[k] = 0.0
        h0 = gain(U, 3, j, q)
        q[k] = 1.0
        h1 = gain(U, 3, j, q)
        if h0 == h1:
            continue
        r = h0 / (h0 - h1)
        if not 0.0 < r < 1.0:
            continue
        q[k] = r
        if is_equilibrium(U, 3, q, 7):
            kept = _consider(q.copy(), 3, tied, best, kept)
    return kept


@njit(cache=True)
def _least_regret(U, n, tied, q, out):  # pragma: no cover - numba
    """Write to out the role-symmetric pure profile with the least regret (a degenerate stage's choice)."""
    worst_best = np.inf
    for prof in range(1 << n):
        for j in range(n):
            q[j] = 1.0 if prof & (1 << j) else 0.0
        if not respects(q, n, tied):
            continue
        regret = 0.0
        for j in range(n):
            g = gain(U, n, j, q)
            regret = max(regret, -g if q[j] == 1.0 else g)
        if regret < worst_best:
            worst_best = regret
            for j in range(n):
                out[j] = q[j]


@njit(cache=True)
def solve_stage(U, n, tied, out):  # pragma: no cover - numba
    """Write to out the selected equilibrium's sit chances of the n-player (n = 2, 3) stage game U.

    Return PURE, MIXED, or UNRESOLVED if no equilibrium was found (the least-regret pure
    role-symmetric profile is taken). See the module docstring for the selection.
    """
    q = np.zeros(3)
    if _best_pure(U, n, tied, q, out):
        return PURE
    best = np.zeros(3)
    kept = _two_mixers(U, n, tied, q, best, NONE_KEPT)
    if n == 3:
        kept = _three_mixers(U, tied, q, best, kept)
    if n == 3 and kept == NONE_KEPT and (tied[0] or tied[1]):
        kept = _symmetric_mixes(U, tied, q, best, kept)
    if kept != NONE_KEPT:
        for j in range(n):
            out[j] = best[j]
        return MIXED
    _least_regret(U, n, tied, q, out)
    return UNRESOLVED


@njit(cache=True)
def forced_stage(U, s, mask, pv, out):  # pragma: no cover - numba
    """Write to out the sit chances at a 3-player stage where each player j in ``mask`` sits with chance pv[j].

    The others play the selected equilibrium of the game left to them (the forced players' draws
    averaged in); a single one left sits when sitting is at least as good. Return its kind (as
    ``solve_stage``, never PURE: the forced players mix).
    """
    free = np.zeros(3, dtype=np.int64)
    nf = 0
    for j in range(3):
        if mask & (1 << j):
            out[j] = pv[j]
        else:
            free[nf] = j
            nf += 1
    if nf == 0:
        return MIXED
    Ur = np.zeros((1 << nf, nf))
    for prof in range(8):
        w = 1.0
        sub = 0
        for j in range(3):
            if mask & (1 << j):
                w *= pv[j] if prof & (1 << j) else 1.0 - pv[j]
        for k in range(nf):
            if prof & (1 << free[k]):
                sub |= 1 << k
        for k in range(nf):
            Ur[sub, k] += w * U[prof, free[k]]
    if nf == 1:
        out[free[0]] = 1.0 if Ur[1, 0] - Ur[0, 0] >= -TIE else 0.0
        return MIXED
    tied = np.array([s[free[0]] == s[free[1]], False])
    sig = np.zeros(3)
    kind = solve_stage(Ur, 2, tied, sig)
    out[free[0]] = sig[0]
    out[free[1]] = sig[1]
    return UNRESOLVED if kind == UNRESOLVED else MIXED
