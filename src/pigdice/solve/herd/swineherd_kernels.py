"""The numba kernels of the 2-player Swine Herd solver (``swineherd``): stage games, turns, turn starts.

Solving one turn start: evaluate the stage games backwards in t for a guess x (each a 2x2 game
solved in closed form: a saddle point, else the mixed formula), read (c, e), and move x to c / e
(Newton's step for F(x) = x: by the envelope theorem F' = 1 - e; c and e are sums of positive
terms, so c / e stays accurate when e is tiny). The steps are safeguarded by a bracket and stop
when x is within ROOT_TOLERANCE of c / e or the bracket is narrower than BRACKET_TOLERANCE;
e == 0 at x = ``endless`` (no exit on the equilibrium path) means the turn is endless there and
V = ``endless`` (``is_endless``). V is ``is_boundary`` when the turn is endless just beyond V,
away from ``endless``: V ends an interval of solutions and another rule could move it.
``SwineHerdPolicy.residual`` re-evaluates every turn from the stored values and strategies.

Strategies: the stage equilibria at x = V, except that where V != ``endless`` the player who
wants the turn to end (A if V > endless) must not take a tie with staying (staying for ever is
worth ``endless`` to it, not V): its strategy is read at x = V -/+ STRICT_OFFSET, towards
``endless``, where every exit worth V is strictly better than the repeat, and keeps it within
STRICT_OFFSET of V (Everett's epsilon-optimal stationary strategies). Ties in a stage game go to
sitting.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

ROOT_TOLERANCE = 1e-15  # a turn start is solved when the Newton target c / e is this close to x
BRACKET_TOLERANCE = 1e-14  # ... or when the bracket of its fixed point is this narrow
STRICT_OFFSET = 1e-10  # boundary states: the exiting player's strategy is read this far inside
MAX_ROOT_STEPS = 200
MAX_STAGE_STEPS = 200

# kinds of turn start
UNIQUE = 0  # F(x) = x has one solution: the turn ends with positive chance
ENDLESS = 1  # V = endless: on the equilibrium path nobody ever sits (the play never ends)
BOUNDARY = 2  # V ends an interval of solutions (the turn is endless just beyond V, away from endless)


class Game(NamedTuple):
    """The die and the rules every 2-player kernel reads."""

    goal: int
    cut: int  # > 0: both still standing at this total must sit (the truncated model); < 0: the house rule; 0: neither
    amounts: np.ndarray  # int64: what each adding face adds
    probs: np.ndarray  # float64: each adding face's chance
    pbust: float  # the chance of a bust
    endless: float  # A's payoff of a game that never ends (w)
    stop: float  # the chance per roll that the game ends at once, scored as endless (eps)


class Values(NamedTuple):
    """The values a turn reads: the turn starts and the lone roller's (A's payoff throughout)."""

    V: np.ndarray  # (goal, goal) turn-start values
    LA: np.ndarray  # [s, o, u]: A rolls on alone (score s, total u) against B banked at o < goal
    LB: np.ndarray  # [s, o, u]: B rolls on alone against A banked at o < goal
    RA: np.ndarray  # (2 goal + 1,): A rolls alone against a banked score past the goal, by deficit
    RB: np.ndarray  # (2 goal + 1,): B rolls alone ...


class TurnRows(NamedTuple):
    """The rows of one turn's sweep, by turn total t: S = C + (1 - E) x at each stage with both standing."""

    S: np.ndarray  # stage values
    P: np.ndarray  # A's sit chances
    Q: np.ndarray  # B's sit chances
    C: np.ndarray  # exit payoffs
    E: np.ndarray  # exit chances


class StageTables(NamedTuple):
    """The stage games stored per turn start: [a, b, t] for t = 1..goal - min(a, b)."""

    values: np.ndarray
    sit_a: np.ndarray
    sit_b: np.ndarray


# which rows ``_store`` copies
STORE_VALUES, STORE_SIT_A, STORE_SIT_B = 1, 2, 4


@njit(cache=True, inline="always")
def _solve2(m00, m01, m10, m11):  # pragma: no cover - numba
    """Return (value, A's sit chance, B's sit chance) of a zero-sum 2x2 game that A maximises.

    Rows: A sits, stays; columns: B sits, stays. Saddle points first (ties go to sitting: the
    turn then ends), else the unique mixed equilibrium.
    """
    if m10 <= m00 <= m01:
        return m00, 1.0, 1.0
    if m11 <= m01 <= m00:
        return m01, 1.0, 0.0
    if m00 <= m10 <= m11:
        return m10, 0.0, 1.0
    if m01 <= m11 <= m10:
        return m11, 0.0, 0.0
    den = m00 - m01 - m10 + m11  # no saddle point: both differences have one sign, so den != 0
    p = (m11 - m10) / den
    q = (m11 - m01) / den
    return m10 + p * (m00 - m10), p, q


@njit(cache=True, inline="always")
def _ending(x, y, goal, V):  # pragma: no cover - numba
    """Return A's payoff after a turn that ends at (x, y): the game's result, or the next turn start."""
    if x >= goal or y >= goal:
        if x > y:
            return 1.0
        if x == y:
            return 0.5
        return 0.0
    return V[x, y]


@njit(cache=True)
def _terminal_lone(game, values):  # pragma: no cover - numba
    """Fill values.RA, RB: a lone roller's rolling value against a seated score at or past the goal.

    Index goal + D, D = seated score - roller's score - turn total (the deficit; D < 0: ahead).
    RA: A rolls (A's payoff); RB: B rolls (A's payoff). A bust leaves the roller behind (lost).
    """
    goal, amounts, probs, pbust, w, eps = game.goal, game.amounts, game.probs, game.pbust, game.endless, game.stop
    RA, RB = values.RA, values.RB
    nf = amounts.shape[0]
    for d in range(-goal, goal + 1):
        va = eps * w
        vb = eps * w + (1.0 - eps) * pbust
        for k in range(nf):
            d2 = d - amounts[k]
            if d2 < 0:
                ba, bb = 1.0, 0.0
            elif d2 == 0:
                ba = max(0.5, RA[goal])
                bb = min(0.5, RB[goal])
            else:
                ba, bb = RA[goal + d2], RB[goal + d2]
            va += (1.0 - eps) * probs[k] * ba
            vb += (1.0 - eps) * probs[k] * bb
        RA[goal + d] = va
        RB[goal + d] = vb


@njit(cache=True)
def _lone_tables(s, o, game, values):  # pragma: no cover - numba
    """Fill LA[s, o, u], LB[s, o, u] for 1 <= u < goal - s: the lone roller's value of rolling on.

    LA: A rolls with score s and turn total u against B's banked o < goal; LB: B rolls with score
    s against A's banked o. Both are A's payoff. Reads V at sums s + o (the bust) and above.
    """
    goal, amounts, probs, pbust, w, eps = game.goal, game.amounts, game.probs, game.pbust, game.endless, game.stop
    V, LA, LB = values.V, values.LA, values.LB
    nf = amounts.shape[0]
    for u in range(goal - s - 1, 0, -1):
        va = eps * w + (1.0 - eps) * pbust * V[s, o]
        vb = eps * w + (1.0 - eps) * pbust * V[o, s]
        for k in range(nf):
            u2 = u + amounts[k]
            if s + u2 >= goal:  # past the goal against o < goal: hold and win
                ba, bb = 1.0, 0.0
            else:
                ba = max(V[s + u2, o], LA[s, o, u2])
                bb = min(V[o, s + u2], LB[s, o, u2])
            va += (1.0 - eps) * probs[k] * ba
            vb += (1.0 - eps) * probs[k] * bb
        LA[s, o, u] = va
        LB[s, o, u] = vb


@njit(cache=True, inline="always")
def _entries(a, b, t, game, values):  # pragma: no cover - numba
    """Return A's payoffs (sit-sit, A sits and B stays, A stays and B sits) at the stage (a, b, t)."""
    goal, pbust, w, eps = game.goal, game.pbust, game.endless, game.stop
    V = values.V
    x1 = a + t
    y1 = b + t
    ss = _ending(x1, y1, goal, V)
    if x1 >= goal:
        sy = values.RB[goal + a - b]
    elif y1 >= goal:  # B rolls once more, then holds past the goal unless it busts
        sy = eps * w + (1.0 - eps) * pbust * V[x1, b]
    else:
        sy = values.LB[b, x1, t]
    if y1 >= goal:
        ys = values.RA[goal + b - a]
    elif x1 >= goal:
        ys = eps * w + (1.0 - eps) * (pbust * V[a, y1] + 1.0 - pbust)
    else:
        ys = values.LA[a, y1, t]
    return ss, sy, ys


@njit(cache=True, inline="always")
def _play(m00, m01, m10, m11, p, q):  # pragma: no cover - numba
    """Return A's expected payoff when A sits with chance p and B with chance q."""
    return p * (q * m00 + (1.0 - q) * m01) + (1.0 - p) * (q * m10 + (1.0 - q) * m11)


@njit(cache=True)
def _stationary_stage(a, b, x, game, values, rows, fixed):  # pragma: no cover - numba
    """Fill the rows at top = goal - min(a, b), the stationary stage without a cut (every t >= top is the same).

    S = val(ss, sy, ys, k0 + k1 S) is a contraction (k1 < 1): solved by safeguarded Newton steps on
    S with the stage's profile kept, or evaluated for the profile in P and Q with ``fixed``.
    """
    pbust, eps = game.pbust, game.stop
    S, P, Q, C, E = rows
    stop = eps * game.endless
    go = 1.0 - eps
    top = game.goal - min(a, b)
    ss, sy, ys = _entries(a, b, top, game, values)
    k0 = stop + go * pbust * x
    k1 = go * (1.0 - pbust)
    if fixed:
        p, q = P[top], Q[top]
    else:
        lo, hi = 0.0, 1.0
        s = x
        for _ in range(MAX_STAGE_STEPS):
            v, p, q = _solve2(ss, sy, ys, k0 + k1 * s)
            if v == s:
                break
            if v > s:
                lo = s
            else:
                hi = s
            r = (1.0 - p) * (1.0 - q)  # Newton: the profile (p, q) kept, S solved exactly
            target = (_play(ss, sy, ys, 0.0, p, q) + r * k0) / (1.0 - r * k1)
            if not lo < target < hi:
                target = 0.5 * (lo + hi)
            if target == s or hi - lo <= 1e-17:
                s = target
                break
            s = target
        _, p, q = _solve2(ss, sy, ys, k0 + k1 * s)
    r = (1.0 - p) * (1.0 - q)
    den = 1.0 - r * k1
    S[top] = (_play(ss, sy, ys, 0.0, p, q) + r * k0) / den
    P[top], Q[top] = p, q
    C[top] = (_play(ss, sy, ys, 0.0, p, q) + r * stop) / den
    E[top] = (p + (1.0 - p) * q + r * eps) / den


@njit(cache=True)
def _turn(a, b, x, game, values, rows, fixed):  # pragma: no cover - numba
    """Solve the stage games of the turn at (a, b) for the turn-start value x; return (F(x), c, e).

    Fills the rows S (stage values), P and Q (A's and B's sit chances), C and E (exit payoff and exit
    chance; S = C + (1 - E) x) for t = 1..top, top = goal - min(a, b) the stationary stage (every
    t >= top is the same), or with ``game.cut`` > 0: top = cut, where both must sit. With ``fixed``
    the sit chances are read from P and Q instead (a strategy profile evaluated, not solved).
    ``game.cut`` < 0 is the house rule (``sit_at_goal``): top = goal - min(a, b), where both must sit.
    """
    goal, cut, amounts, probs, pbust, eps = game.goal, game.cut, game.amounts, game.probs, game.pbust, game.stop
    S, P, Q, C, E = rows
    nf = amounts.shape[0]
    stop = eps * game.endless
    go = 1.0 - eps
    if cut != 0:
        top = cut if cut > 0 else goal - min(a, b)
        cap = cut + amounts.max() if cut > 0 else top  # past a cut each sits at its own total
        for t in range(top, cap + 1):
            ss, _, _ = _entries(a, b, t, game, values)
            S[t], P[t], Q[t], C[t], E[t] = ss, 1.0, 1.0, ss, 1.0
    else:
        top = goal - min(a, b)
        cap = top
        _stationary_stage(a, b, x, game, values, rows, fixed)
    for t in range(top - 1, 0, -1):
        ss, sy, ys = _entries(a, b, t, game, values)
        yy = pbust * x
        cy = 0.0
        ey = 0.0
        for k in range(nf):
            t2 = min(t + amounts[k], cap)
            yy += probs[k] * S[t2]
            cy += probs[k] * C[t2]
            ey += probs[k] * E[t2]
        yy = stop + go * yy
        if fixed:
            p, q = P[t], Q[t]
            v = _play(ss, sy, ys, yy, p, q)
        else:
            v, p, q = _solve2(ss, sy, ys, yy)
        r = (1.0 - p) * (1.0 - q)
        S[t], P[t], Q[t] = v, p, q
        C[t] = _play(ss, sy, ys, 0.0, p, q) + r * (stop + go * cy)
        E[t] = p + (1.0 - p) * q + r * (eps + go * ey)
    f = pbust * x
    c = 0.0
    e = 0.0
    for k in range(nf):
        t2 = min(amounts[k], cap)
        f += probs[k] * S[t2]
        c += probs[k] * C[t2]
        e += probs[k] * E[t2]
    return stop + go * f, stop + go * c, eps + go * e


@njit(cache=True)
def _turn_start(a, b, game, values, rows):  # pragma: no cover - numba
    """Return (V(a, b), evaluations): the fixed point of F nearest to ``game.endless`` (see the module doc)."""
    w = game.endless
    _, c, e = _turn(a, b, w, game, values, rows, False)
    evaluations = 1
    if e <= 0.0:  # nobody ever sits on the equilibrium path: the turn is endless at w
        return w, evaluations
    target = c / e
    if abs(target - w) <= ROOT_TOLERANCE:
        return target, evaluations
    up = target > w  # the fixed point lies above w (A wants the turn to end) or below it
    lo, hi = (w, 1.0) if up else (0.0, w)
    flat = False
    for _ in range(MAX_ROOT_STEPS):
        if not (lo < target <= hi if up else lo <= target < hi):
            target = 0.5 * (lo + hi)
        x = target
        _, c, e = _turn(a, b, x, game, values, rows, False)
        evaluations += 1
        if e > 0.0:
            target = c / e
            if abs(target - x) <= ROOT_TOLERANCE:
                return target, evaluations
        if e <= 0.0:  # an endless stretch: x is past the end of the interval nearest w
            flat = True
            if up:
                hi = x
            else:
                lo = x
            # probe just short of x: a Newton step from the exit side lands on the end exactly
            probe = x - BRACKET_TOLERANCE if up else x + BRACKET_TOLERANCE
            if lo < probe < hi:
                _, c, e = _turn(a, b, probe, game, values, rows, False)
                evaluations += 1
                if e > 0.0 and (c / e > probe) == up:
                    return x, evaluations
            target = 0.5 * (lo + hi)
        elif (target > x) == up:
            if up:
                lo = x
            else:
                hi = x
        else:
            if up:
                hi = x
            else:
                lo = x
        if hi - lo <= BRACKET_TOLERANCE:
            break
    if flat:
        return hi if up else lo, evaluations
    return 0.5 * (lo + hi), evaluations


@njit(cache=True)
def _store(a, b, top, rows, stages, which):  # pragma: no cover - numba
    """Copy the turn's stage values, A's and B's sit chances (as ``which`` marks them) into the stored stages."""
    for t in range(1, top + 1):
        if which & STORE_VALUES:
            stages.values[a, b, t] = rows.S[t]
        if which & STORE_SIT_A:
            stages.sit_a[a, b, t] = rows.P[t]
        if which & STORE_SIT_B:
            stages.sit_b[a, b, t] = rows.Q[t]


@njit(cache=True)
def _new_rows(size):  # pragma: no cover - numba
    """Return zeroed rows for a turn's sweep."""
    return TurnRows(np.zeros(size), np.zeros(size), np.zeros(size), np.zeros(size), np.zeros(size))


@njit(cache=True)
def solve_turn_starts(game, values, kinds, stages):  # pragma: no cover - numba
    """Solve every turn start from the highest score sum down; return the number of turn evaluations.

    Writes values.V, ``kinds`` and, without a cut, the stored stages (stage values and sit chances at
    t = 1..goal - min(a, b)); the lone tables LA, LB are filled level by level.
    """
    goal, cut, w = game.goal, game.cut, game.endless
    _terminal_lone(game, values)
    rows = _new_rows(max(goal, cut) + game.amounts.max() + 1)
    V = values.V
    evaluations = 0
    for n in range(2 * goal - 2, -1, -1):
        for a in range(max(0, n - goal + 1), min(n, goal - 1) + 1):
            b = n - a
            x, count = _turn_start(a, b, game, values, rows)
            evaluations += count
            V[a, b] = x
            if cut > 0:
                continue
            top = goal - min(a, b)
            _, _, e = _turn(a, b, x, game, values, rows, False)
            _store(a, b, top, rows, stages, STORE_VALUES | STORE_SIT_A | STORE_SIT_B)
            evaluations += 1
            if e <= 0.0 and x == w:
                kinds[a, b] = ENDLESS
                continue
            kinds[a, b] = UNIQUE
            if x == w:
                continue
            # V ends an interval of solutions if the turn is endless just beyond it (away from w)
            away = x + STRICT_OFFSET if x > w else x - STRICT_OFFSET
            _, _, e = _turn(a, b, away, game, values, rows, False)
            if e <= 0.0:
                kinds[a, b] = BOUNDARY
            # the player who wants the turn to end (A if V > w) must not take a tie with staying:
            # its strategy is read just inside, towards w, where every exit worth V is strictly better
            _turn(a, b, x - STRICT_OFFSET if x > w else x + STRICT_OFFSET, game, values, rows, False)
            _store(a, b, top, rows, stages, STORE_SIT_A if x > w else STORE_SIT_B)
            evaluations += 2
        for s in range(max(0, n - goal + 1), min(n, goal - 1) + 1):
            _lone_tables(s, n - s, game, values)
    return evaluations


@njit(cache=True)
def residuals(game, values, stages):  # pragma: no cover - numba
    """Return the largest errors: |F(V) - V| over the turn starts, |stored - recomputed| over the stage
    values, and |value of the stored strategies - V| (one turn played by them, V afterwards)."""
    goal, V = game.goal, values.V
    rows = _new_rows(goal + 1)
    worst_turn = 0.0
    worst_stage = 0.0
    worst_play = 0.0
    for a in range(goal):
        for b in range(goal):
            x = V[a, b]
            f, _, _ = _turn(a, b, x, game, values, rows, False)
            worst_turn = max(worst_turn, abs(f - x))
            top = goal - min(a, b)
            for t in range(1, top + 1):
                worst_stage = max(worst_stage, abs(rows.S[t] - stages.values[a, b, t]))
                rows.P[t] = stages.sit_a[a, b, t]
                rows.Q[t] = stages.sit_b[a, b, t]
            _, c, e = _turn(a, b, x, game, values, rows, True)
            played = c / e if e > 0.0 else game.endless
            worst_play = max(worst_play, abs(played - x))
    return worst_turn, worst_stage, worst_play
