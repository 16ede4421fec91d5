"""Mixed equilibria of the cycles that have no consistent deterministic choices (3+ players).

A cycle (``pigdice.solve.n.nkernels``) is L turn starts linked by busts. With member m's choices
fixed (a "plan"), its turn is worth P_m = C_m + d_m R w_{m+1}, and which plan is best for the
mover depends only on x_m = w_{m+1}[n - 1], their own chance at the next member's turn start. As
x_m grows, the best plans form a sequence pi_0, pi_1, ..., pi_i best for x_m in [lo_i, hi_i], and
at the breakpoint e_i = hi_i = lo_{i+1} the mover is indifferent between pi_i and pi_{i+1}.

In a few cycles every deterministic profile leaves some mover better off with another plan
(policy iteration flips for ever). There the equilibrium mixes: a member at a breakpoint plays
pi_{i+1} with probability q and pi_i otherwise, which costs it nothing (both are best replies at
e_i), and q is what makes the others' choices put x_m exactly at e_i. The mixture's turn start is
((1 - q) C_i + q C_{i+1}, (1 - q) d_i + q d_{i+1}): the mover draws once, at the start of the turn,
which plan to follow. Where the two plans differ at one turn total of a turn whose total only
grows, that is the same as taking pi_{i+1}'s option there with probability q (the chance to reach
that total and everything after it are the same in both), so those are the neighbours mixed in
such games; where the turn total can fall (Pig Dice), any neighbours are, and the draw is kept for
the whole turn.

``find_mixed`` searches the profiles built from each member's plans (one plan, or a mix of two
neighbours) for one where every member's choice is a best reply, profiles with fewer mixing
members first: none mixing (a check), one (x_m(q) = e is one equation in one unknown, solved by
bisection: x_m is continuous in q), two (bisection on one q, the other solved inside; as a rule each
mixes so that the other is indifferent), three or more (Newton's method from several starts).
Such an equilibrium exists when every member's plans cover the x it can reach (the mixed best
replies form a convex-valued, closed correspondence: Kakutani's theorem); the search only has the
plans met near where policy iteration oscillated, and reports failure if none of them works.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.step import WITHOUT_REFCOUNTS

MAX_PLANS = 8  # plans kept per member
# ... and where no equilibrium is found among those, the plans of a wider search (the x a member visits may
# hold more breakpoints than MAX_PLANS: 4-player Pig to 100 at 7-61-7-61), fewer the more members mix
WIDE_PLANS = (32, 32, 32, 16, 10)  # by the cycle's members (the last for 4 or more)
MAX_MIXING = 4  # members that may mix in one profile
SLACK = 1e-14  # a plan counts as best this far outside its interval (see nkernels.BOUNDS_SLACK)
BISECTIONS = 64  # halvings of [0, 1]: below the spacing of doubles near the root
SCAN = 16  # the outer unknown of two mixing members is scanned at this many steps for a sign change
NEWTON_STARTS = (0.2, 0.5, 0.8)  # three or more mixing members: Newton from every combination of these
NEWTON_STEPS = 60
NEWTON_H = 1e-7  # the step of the Jacobian's differences
# profiles of three or more mixing members tried per search (each a Newton solve from 27 or more starts):
# bounds the time a cycle of 4+ players with many plans can take; the search then reports failure
MAX_NEWTON_PROFILES = 256


class Plans(NamedTuple):
    """Each cycle member's plans, plan i of member m at [m, i]: a best turn for some interval of its x.

    A plan's choices are those of its first and last sweep (next to its lower and upper breakpoints):
    plans i and i + 1 are mixed as the sweeps at x_last of i and x_first of i + 1, which differ at one
    turn total where ``mixable`` says so.
    """

    C: np.ndarray  # (members, plans, n): the turn start's C
    d: np.ndarray  # (members, plans): the turn start's d
    lo: np.ndarray  # (members, plans): the interval of x where the plan is best
    hi: np.ndarray
    x_first: np.ndarray  # (members, plans): the x of the plan's first and last sweep
    x_last: np.ndarray
    mixable: np.ndarray  # (members, plans) bool: plan i may be mixed with plan i + 1
    kept: np.ndarray  # (members,) int64: how many plans each member has


class Profile(NamedTuple):
    """One profile of the cycle's members and what solving it gives: each member's part and chance, the
    members' turn starts (C, D) and the cycle's vectors ``ws``; ``acc`` is scratch of n entries."""

    seg: np.ndarray  # (members,) int64: 2i plays plan i; 2i + 1 plays plan i + 1 with chance q, else plan i
    q: np.ndarray  # (members,)
    C: np.ndarray  # (members, n)
    D: np.ndarray  # (members,)
    ws: np.ndarray  # (members, n)
    acc: np.ndarray  # (n,)
    # the scratch of Newton's method (``_newton``), for up to ``members`` mixing members
    mixing: np.ndarray  # (members,) int64: which members mix
    gaps: np.ndarray  # (members,): x_m - e of each, and after a step in one q
    gaps_stepped: np.ndarray
    jacobian: np.ndarray  # (members, members)
    step: np.ndarray  # (members,)


def plans_for(members: int, n: int, plans: int) -> Plans:
    """Return room for ``plans`` plans of each of ``members`` members of an n-player cycle."""
    shape = (members, plans)
    d, lo, hi, x_first, x_last = (np.zeros(shape) for _ in range(5))
    return Plans(np.zeros((*shape, n)), d, lo, hi, x_first, x_last, np.zeros(shape, dtype=np.bool_),
                 np.zeros(members, dtype=np.int64))  # fmt: skip


@njit(cache=True, **WITHOUT_REFCOUNTS)
def cycle_vectors(C, D, L, n, ws, acc):  # pragma: no cover - numba
    """Solve the cycle's equations w_m = C_m + D_m R w_{m+1} (members mod L) in closed form into ws[:L].

    (R w)[r] = w[(r - 1) mod n]: one turn later every place moves one on. ``acc`` is scratch (n).
    """
    # w_0 = sum_t (d_0 ... d_{t-1}) R^t C_t + (d_0 ... d_{n-1}) R^n w_0, and R^n = 1
    coef = 1.0
    for r in range(n):
        acc[r] = 0.0
    m = 0
    for t in range(n):
        for r in range(n):
            acc[r] += coef * C[m, r - t + n if r < t else r - t]
        coef *= D[m]
        m = m + 1 if m + 1 < L else 0
    den = 1.0 - coef
    for r in range(n):
        ws[0, r] = acc[r] / den if den > 1e-300 else acc[r] + coef * ws[0, r]
    last = n - 1
    for m in range(L - 1, 0, -1):
        nxt = m + 1 if m + 1 < L else 0
        ws[m, 0] = C[m, 0] + D[m] * ws[nxt, last]
        for r in range(1, n):
            ws[m, r] = C[m, r] + D[m] * ws[nxt, r - 1]


@njit(cache=True)
def _profile(plans, pro, L, n):  # pragma: no cover - numba
    """Write the turn starts (C, D) of the profile ``pro.seg`` (2i: plan i, 2i + 1: plan i + 1 with chance q)."""
    for m in range(L):
        i = pro.seg[m] // 2
        if pro.seg[m] % 2 == 0:
            for r in range(n):
                pro.C[m, r] = plans.C[m, i, r]
            pro.D[m] = plans.d[m, i]
        else:
            w = pro.q[m]
            for r in range(n):
                pro.C[m, r] = (1.0 - w) * plans.C[m, i, r] + w * plans.C[m, i + 1, r]
            pro.D[m] = (1.0 - w) * plans.d[m, i] + w * plans.d[m, i + 1]


@njit(cache=True)
def _gap(plans, pro, L, n, m):  # pragma: no cover - numba
    """Return x_m - e (e: the breakpoint member m mixes at) under the profile ``pro.seg`` with chances ``pro.q``."""
    _profile(plans, pro, L, n)
    cycle_vectors(pro.C, pro.D, L, n, pro.ws, pro.acc)
    return pro.ws[m + 1 if m + 1 < L else 0, n - 1] - plans.hi[m, pro.seg[m] // 2]


@njit(cache=True)
def _bisect(plans, pro, L, n, m, v):  # pragma: no cover - numba
    """Set q[v] in [0, 1] so that member m's x meets its breakpoint (the other q fixed); False if x_m - e
    keeps one sign over [0, 1]."""
    q = pro.q
    q[v] = 0.0
    g0 = _gap(plans, pro, L, n, m)
    if g0 == 0.0:
        return True
    q[v] = 1.0
    g1 = _gap(plans, pro, L, n, m)
    if g1 == 0.0:
        return True
    if (g0 > 0.0) == (g1 > 0.0):
        return False
    lo, hi = 0.0, 1.0
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        q[v] = mid
        g = _gap(plans, pro, L, n, m)
        if g == 0.0:
            return True
        if (g > 0.0) == (g0 > 0.0):
            lo = mid
        else:
            hi = mid
    q[v] = 0.5 * (lo + hi)
    return True


@njit(cache=True)
def _outer_gap(plans, pro, L, n, a, b, inner, outer, qa):  # pragma: no cover - numba
    """With q[a] = qa, solve member ``inner``'s equation for q[b]; return member ``outer``'s x - e (nan if the
    inner equation has no solution)."""
    pro.q[a] = qa
    if not _bisect(plans, pro, L, n, inner, b):
        return np.nan
    return _gap(plans, pro, L, n, outer)


@njit(cache=True)
def _two_mixing(plans, pro, L, n, a, b, inner, outer):  # pragma: no cover - numba
    """Find pro.q[a], pro.q[b] that put members a and b at their breakpoints: for each q[a] (scanned, then bisected
    where member ``outer``'s gap changes sign) q[b] solves member ``inner``'s equation; False if none is found."""
    lo = 0.0
    glo = _outer_gap(plans, pro, L, n, a, b, inner, outer, lo)
    for step in range(1, SCAN + 1):
        if glo == 0.0:
            break
        hi = step / SCAN
        ghi = _outer_gap(plans, pro, L, n, a, b, inner, outer, hi)
        if not np.isnan(glo) and not np.isnan(ghi) and (ghi == 0.0 or (glo > 0.0) != (ghi > 0.0)):
            for _ in range(BISECTIONS):
                mid = 0.5 * (lo + hi)
                if mid <= lo or mid >= hi:
                    break
                gm = _outer_gap(plans, pro, L, n, a, b, inner, outer, mid)
                if np.isnan(gm):
                    return False
                if gm == 0.0:
                    lo = hi = mid
                    break
                if (gm > 0.0) == (glo > 0.0):
                    lo, glo = mid, gm
                else:
                    hi = mid
            return not np.isnan(_outer_gap(plans, pro, L, n, a, b, inner, outer, 0.5 * (lo + hi)))
        lo, glo = hi, ghi
    return glo == 0.0 and not np.isnan(_outer_gap(plans, pro, L, n, a, b, inner, outer, lo))


@njit(cache=True)
def _gaps(plans, pro, L, n, members, out):  # pragma: no cover - numba
    """Write x_m - e of each mixing member m (``members``) into ``out``; return the largest |x_m - e|."""
    _profile(plans, pro, L, n)
    cycle_vectors(pro.C, pro.D, L, n, pro.ws, pro.acc)
    worst = 0.0
    for j in range(members.shape[0]):
        m = members[j]
        out[j] = pro.ws[m + 1 if m + 1 < L else 0, n - 1] - plans.hi[m, pro.seg[m] // 2]
        worst = max(worst, abs(out[j]))
    return worst


@njit(cache=True)
def _solve_small(J, f, out, k):  # pragma: no cover - numba
    """Solve J out = f (k x k, Gaussian elimination with partial pivoting; J and f are overwritten);
    return False if J is singular."""
    for c in range(k):
        p = c
        for r in range(c + 1, k):
            if abs(J[r, c]) > abs(J[p, c]):
                p = r
        if abs(J[p, c]) < 1e-300:
            return False
        if p != c:
            for cc in range(k):
                J[c, cc], J[p, cc] = J[p, cc], J[c, cc]
            f[c], f[p] = f[p], f[c]
        for r in range(c + 1, k):
            factor = J[r, c] / J[c, c]
            for cc in range(c, k):
                J[r, cc] -= factor * J[c, cc]
            f[r] -= factor * f[c]
    for c in range(k - 1, -1, -1):
        total = f[c]
        for cc in range(c + 1, k):
            total -= J[c, cc] * out[cc]
        out[c] = total / J[c, c]
    return True


@njit(cache=True)
def _newton(plans, pro, L, n, mixing):  # pragma: no cover - numba
    """Solve x_m(q) = e_m for every mixing member by Newton's method (differenced Jacobian, q kept in [0, 1]),
    from every combination of NEWTON_STARTS; return True once the gaps are below rounding."""
    seg, q = pro.seg, pro.q
    k = mixing
    members = pro.mixing[:k]
    j = 0
    for m in range(L):
        if seg[m] % 2 == 1:
            members[j] = m
            j += 1
    f, f2, J, step = pro.gaps[:k], pro.gaps_stepped[:k], pro.jacobian, pro.step
    starts = len(NEWTON_STARTS)
    for code in range(starts**k):
        rest = code
        for j in range(k):
            q[members[j]] = NEWTON_STARTS[rest % starts]
            rest //= starts
        for _ in range(NEWTON_STEPS):
            if _gaps(plans, pro, L, n, members, f) < 1e-15:
                return True
            for c in range(k):
                m = members[c]
                keep = q[m]
                h = -NEWTON_H if keep + NEWTON_H > 1.0 else NEWTON_H
                q[m] = keep + h
                _gaps(plans, pro, L, n, members, f2)
                for r in range(k):
                    J[r, c] = (f2[r] - f[r]) / h
                q[m] = keep
            if not _solve_small(J, f, step, k):
                break
            for c in range(k):
                m = members[c]
                q[m] = min(1.0, max(0.0, q[m] - step[c]))
        if _gaps(plans, pro, L, n, members, f) <= 1e-13:
            return True
    return False


@njit(cache=True)
def _solve_profile(plans, pro, L, n, mixing):  # pragma: no cover - numba
    """Find the chances q of the profile ``pro.seg``'s mixing members (``mixing`` of them) that put each at its
    breakpoint; return True if found and every member's choice is a best reply at its x (ws holds the
    cycle's vectors then)."""
    seg, ws = pro.seg, pro.ws
    a = -1
    b = -1
    for m in range(L):
        if seg[m] % 2 == 1:
            if a < 0:
                a = m
            else:
                b = m
    if mixing == 1:
        if not _bisect(plans, pro, L, n, a, a):
            return False
    elif mixing == 2:
        # as a rule each mixes so that the other is indifferent: first q[b] solves a's equation
        if not _two_mixing(plans, pro, L, n, a, b, a, b):
            if not _two_mixing(plans, pro, L, n, a, b, b, a):
                return False
    elif mixing > 2 and not _newton(plans, pro, L, n, mixing):
        return False
    _profile(plans, pro, L, n)
    cycle_vectors(pro.C, pro.D, L, n, ws, pro.acc)
    for m in range(L):
        x = ws[m + 1 if m + 1 < L else 0, n - 1]
        i = seg[m] // 2
        if seg[m] % 2 == 1:  # at the breakpoint (to rounding)
            if abs(x - plans.hi[m, i]) > 1e-12:
                return False
        elif not (plans.lo[m, i] - SLACK <= x <= plans.hi[m, i] + SLACK):
            return False
    return True


@njit(cache=True)
def find_mixed(plans, pro, L, n):  # pragma: no cover - numba
    """Search the profiles of member m's ``plans.kept[m]`` plans for an equilibrium; return the number of
    mixing members (-1 if none is found).

    pro.seg[m] receives member m's part (2i: plan i; 2i + 1: plan i + 1 with chance pro.q[m], plan i
    otherwise); pro.C (L, n) and pro.D (L) the profile's turn starts; pro.ws (L, n) the cycle's vectors.
    Plans i and i + 1 are mixed only where ``plans.mixable[m, i]`` says they differ at one decision.
    """
    seg, q, count = pro.seg, pro.q, plans.kept
    total = 1
    for m in range(L):
        total *= 2 * count[m] - 1
    newton_left = MAX_NEWTON_PROFILES
    for mixing in range(min(MAX_MIXING, L) + 1):
        for code in range(total):
            rest = code
            mixed = 0
            ok = True
            for m in range(L):
                parts = 2 * count[m] - 1
                seg[m] = rest % parts
                rest //= parts
                if seg[m] % 2 == 1:
                    mixed += 1
                    if not plans.mixable[m, seg[m] // 2]:
                        ok = False
                q[m] = 0.0
            if not ok or mixed != mixing:
                continue
            if mixing > 2:
                if newton_left == 0:
                    return -1
                newton_left -= 1
            if _solve_profile(plans, pro, L, n, mixing):
                return mixing
    return -1
