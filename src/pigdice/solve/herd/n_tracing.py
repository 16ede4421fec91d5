"""A turn start of 3-player Swine Herd that the repairs leave unsettled, settled by tracing its logit equilibria.

Where the selected, sticky and forced-mix searches of ``n_fixed_points`` all cycle, the turn start's
value x and its three-standing stages are solved together. Only these stages interact with x: every
other state a stage reads (someone sat, the turn's end) lies at a higher score sum and is solved, so
each stage's payoffs of the profiles with a sitter are fixed numbers (``TurnModel``) and only the
all-stay payoff moves, Y = bust x + sum_f p_f D[t + f].

The logit quantal-response equilibria of the turn: with precision lam, each standing player j sits
at stage t with chance sigmoid(y[t, j]), y[t, j] = lam g[t, j], g its gain from sitting given the
others' chances and the turn's values below (computed from high t down). Together with x = F(x)
(the turn's value with a bust back to x) this is a smooth system H(x, y; lam) = 0. At small lam it
has one solution (y near 0); it is followed in lam (u = log lam) by pseudo-arclength continuation
(a finite-difference Jacobian, tangent predictor, chord corrector whose matrix is factored once per
step, by its block structure in O(n^2) (``n_bordered``) or densely where that is inaccurate, step
control: the step doubles after a corrector of at most GROW_AFTER iterations) up to MAX_LAM. At
POLISH_EVERY decades of lam from POLISH_FROM on, the traced point gives a support (each decision
sits, stays or mixes, by |y|), and the exact equations of that support are solved by Newton:
x = F(x) and every mixer indifferent (g = 0), to POLISH_TOLERANCE (a polish whose residual stops
halving for POLISH_PATIENCE steps has a wrong support and gives up). The result is kept when the
mixed chances lie in [0, 1] and every pure decision is a best reply (within BEST_REPLY_TOLERANCE): a
stationary equilibrium of the turn, as the other repairs give, played as a stored profile.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.herd.n_bordered import accurate, border, prepare, solve
from pigdice.solve.herd.n_lone import ending
from pigdice.solve.herd.n_stages import gain, profile_weight
from pigdice.solve.herd.n_turns import payoffs3

START_LAM = 1e-3  # the precision the tracing starts from (one solution there)
MAX_LAM = 1e9  # ... and the largest it follows
POLISH_FROM = 1e2  # the smallest precision whose support is polished
POLISH_EVERY = 0.5  # decades of lam between polish attempts
MAX_STEPS = 20000  # continuation steps per turn start
MIN_STEP = 1e-9  # the smallest arclength step before the tracing gives up
MAX_DU = 0.5  # the largest step in log lam
CORRECTOR_STEPS = 8
GROW_AFTER = 5  # a step whose corrector converged in at most this many chord iterations doubles the next
PURE_Y = 25.0  # a traced decision with |y| above this reads as pure (chance within 1.4e-11 of 0 or 1)
GROWING_Y = 3.0  # ... or above this and grown by GROWTH since the last polish attempt (POLISH_EVERY decades)
GROWTH = 2.0
POLISH_STEPS = 40
STALL_FACTOR = 0.5  # a polish step counts as progress when it at least halves the best residual so far
POLISH_PATIENCE = 3  # ... and the polish gives up after this many steps without progress
POLISH_TOLERANCE = 1e-14  # residuals of the polished equations (x = F(x), mixers' gains)
CLIP = 1e-12  # a polished chance this far outside [0, 1] is moved onto it
BEST_REPLY_TOLERANCE = 1e-12  # a pure decision's gain may have the wrong sign by at most this
FD_STEP = 1e-7

# how a tracing ended (``trace_turn_start``)
TRACED, LOST, NOT_POLISHED = 0, 1, 2


class TurnModel(NamedTuple):
    """One turn start's three-standing turn with its fixed parts: the stage payoffs with a sitter and the ends."""

    top: int  # from this total on all three stand at the goal (they sit at once)
    amounts: np.ndarray
    probs: np.ndarray
    pbust: float
    U: np.ndarray  # (cap + 1, 8, 3): U[t, profile] for profiles 1..7 (someone sits); profile 0 is Y
    D: np.ndarray  # (cap + 1, 3): rows t >= top hold the turn's end; the sweep fills the rest
    gains: np.ndarray  # (cap + 1, 3): each stage's gains from sitting, filled by the sweep
    sig: np.ndarray  # (cap + 1, 3): each stage's sit chances


@njit(cache=True)
def new_model(s, game):  # pragma: no cover - numba
    """Return the model of the sorted turn start s over the solved tables of ``game`` (higher sums solved)."""
    goal = game.goal
    top = goal - s[0]
    cap = top + game.amounts.max()
    U = np.zeros((cap + 1, 8, 3))
    D = np.zeros((cap + 1, 3))
    Y = np.zeros(3)
    Ut = np.zeros((8, 3))
    for t in range(1, top):
        payoffs3(s, t, goal, game.pbust, game.PR, game.V, game.R, game.W, Y, Ut)
        U[t] = Ut
    for t in range(top, cap + 1):
        ending(s[0] + t, s[1] + t, s[2] + t, goal, game.V, D[t])
    return TurnModel(top, game.amounts, game.probs, game.pbust, U, D, np.zeros((cap + 1, 3)), np.zeros((cap + 1, 3)))


@njit(cache=True)
def sweep_turn(model, x, first):  # pragma: no cover - numba
    """Sweep the turn for x at the chances model.sig from stage ``first`` down, filling D and gains; D[0] = F(x).

    Rows above ``first`` are read as they stand (a full sweep starts at model.top - 1).
    """
    U = np.zeros((8, 3))
    D, amounts, probs = model.D, model.amounts, model.probs
    for t in range(first, 0, -1):
        U[1:] = model.U[t, 1:]
        for q in range(3):
            acc = model.pbust * x[q]
            for f in range(amounts.shape[0]):
                acc += probs[f] * D[t + amounts[f], q]
            U[0, q] = acc
        sig = model.sig[t]
        for j in range(3):
            model.gains[t, j] = gain(U, 3, j, sig)
        for q in range(3):
            v = 0.0
            for p in range(8):
                v += profile_weight(sig, 3, p) * U[p, q]
            D[t, q] = v
    for q in range(3):
        acc = model.pbust * x[q]
        for f in range(amounts.shape[0]):
            acc += probs[f] * D[amounts[f], q]
        D[0, q] = acc


@njit(cache=True, inline="always")
def _sigmoid(y):  # pragma: no cover - numba
    """Return 1 / (1 + exp(-y)) without overflow."""
    if y >= 0.0:
        return 1.0 / (1.0 + np.exp(-y))
    e = np.exp(y)
    return e / (1.0 + e)


@njit(cache=True)
def _residual(model, w, lam, out):  # pragma: no cover - numba
    """Write H(w; lam): x - F(x), then y[t, j] - lam g[t, j] for the stages t = 1..top - 1 (w = (x, y))."""
    for t in range(1, model.top):
        for j in range(3):
            model.sig[t, j] = _sigmoid(w[3 * t + j])
    sweep_turn(model, w[:3], model.top - 1)
    for q in range(3):
        out[q] = w[q] - model.D[0, q]
    for t in range(1, model.top):
        for j in range(3):
            out[3 * t + j] = w[3 * t + j] - lam * model.gains[t, j]


@njit(cache=True)
def _jacobian(model, w, lam, h0, J):  # pragma: no cover - numba
    """Write to J (n x n + 1) the Jacobian of H in w (forward differences) and u = log lam (exact: -lam g).

    ``h0`` is H(w; lam). A logit y[t, j] moves only stage t's chances, so its column re-sweeps the turn
    from stage t down (the rows above, and their residuals, stand: their differences are exactly 0) and
    the rows it changed are put back after it: the same numbers as full sweeps at half the cost.
    """
    n = w.shape[0]
    col = np.zeros(n)
    wt = w.copy()
    for k in range(3):  # x is read at every stage: full sweeps
        h = FD_STEP * max(1.0, abs(w[k]))
        wt[k] = w[k] + h
        _residual(model, wt, lam, col)
        wt[k] = w[k]
        for r in range(n):
            J[r, k] = (col[r] - h0[r]) / h
    _residual(model, w, lam, col)  # the sweep at w, kept to put back
    D0 = model.D.copy()
    gains0 = model.gains.copy()
    x = w[:3]
    for t in range(model.top - 1, 0, -1):
        for j in range(3):
            k = 3 * t + j
            h = FD_STEP * max(1.0, abs(w[k]))
            model.sig[t, j] = _sigmoid(w[k] + h)
            sweep_turn(model, x, t)
            for q in range(3):
                J[q, k] = (w[q] - model.D[0, q] - h0[q]) / h
            for r in range(3, 3 * (t + 1)):
                yr = w[r] + h if r == k else w[r]
                J[r, k] = (yr - lam * model.gains[r // 3, r % 3] - h0[r]) / h
            for r in range(3 * (t + 1), n):
                J[r, k] = 0.0
            model.sig[t, j] = _sigmoid(w[k])
            model.D[: t + 1] = D0[: t + 1]
            model.gains[: t + 1] = gains0[: t + 1]
    for r in range(3):
        J[r, n] = 0.0
    for t in range(1, model.top):
        for j in range(3):
            J[3 * t + j, n] = -lam * model.gains[t, j]


@njit(cache=True)
def _converged(H, lam, top):  # pragma: no cover - numba
    """Return True if the residuals H are small enough for the tracing (y's relative to lam)."""
    for q in range(3):
        if abs(H[q]) > 1e-12:
            return False
    if top <= 1:
        return True
    tol = 1e-9 * (1.0 + 1e-5 * lam)
    return np.abs(H[3 : 3 * top]).max() <= tol


@njit(cache=True)
def _start(model, lam, w):  # pragma: no cover - numba
    """Solve H(w; lam) = 0 at a small lam by Newton from y = 0, x = 1/3; return True if it converged."""
    n = w.shape[0]
    w[:] = 0.0
    w[:3] = 1.0 / 3.0
    H = np.zeros(n)
    J = np.zeros((n, n + 1))
    for _ in range(50):
        _residual(model, w, lam, H)
        if _converged(H, lam, model.top):
            return True
        _jacobian(model, w, lam, H, J)
        if not (np.isfinite(J).all() and np.isfinite(H).all()):
            return False
        w -= np.linalg.solve(J[:, :n], H)
    _residual(model, w, lam, H)
    return _converged(H, lam, model.top)


@njit(cache=True)
def _is_pure(y, before, growing):  # pragma: no cover - numba
    """Return True if a traced logit y reads as a pure choice (``growing``: or it grows with lam since ``before``)."""
    if abs(y) > PURE_Y:
        return True
    return growing and abs(y) >= GROWING_Y and y * before > 0.0 and abs(y) >= GROWTH * abs(before)


@njit(cache=True)
def polish(model, w, before, growing, p, x):  # pragma: no cover - numba
    """Solve the exact equations of the support read off the traced w into the chances p and x; True if an equilibrium.

    Decisions with |y| > PURE_Y are pure, and with ``growing`` also those whose |y| grew by GROWTH since
    the traced point ``before`` (a pure choice's y grows as lam, a mixer's settles); the others mix.
    Unknowns x and the mixers' chances; equations x = F(x) and each mixer's gain 0 (Newton, forward
    differences, least squares).
    """
    top = model.top
    mixers = np.zeros(3 * top, dtype=np.int64)
    m = 0
    for t in range(1, top):
        for j in range(3):
            y = w[3 * t + j]
            if _is_pure(y, before[3 * t + j], growing):
                p[t, j] = 1.0 if y > 0.0 else 0.0
            else:
                p[t, j] = _sigmoid(y)
                mixers[m] = 3 * t + j
                m += 1
    for q in range(3):
        x[q] = w[q]
    n = 3 + m
    z = np.zeros(n)
    res = np.zeros(n)
    col = np.zeros(n)
    J = np.zeros((n, n))

    z[:3] = x
    for k in range(m):
        z[3 + k] = p[mixers[k] // 3, mixers[k] % 3]
    best = np.inf
    stalled = 0
    for _ in range(POLISH_STEPS):
        _polish_residual(model, z, m, mixers, p, x, res)
        norm = np.abs(res).max()
        if norm <= POLISH_TOLERANCE:
            break
        if norm < STALL_FACTOR * best:
            best = norm
            stalled = 0
        else:  # Newton on the right support shrinks the residual fast; on a wrong one it wanders
            stalled += 1
            if stalled >= POLISH_PATIENCE:
                break
        for k in range(n):
            zt = z.copy()
            zt[k] += FD_STEP
            _polish_residual(model, zt, m, mixers, p, x, col)
            for r in range(n):
                J[r, k] = (col[r] - res[r]) / FD_STEP
        _polish_residual(model, z, m, mixers, p, x, res)
        if not (np.isfinite(J).all() and np.isfinite(res).all()):
            return False  # the Newton steps diverged: a wrong support
        z -= np.linalg.lstsq(J, res)[0]
    for k in range(m):  # a mixer's chance may end a rounding error outside [0, 1]
        if not -CLIP <= z[3 + k] <= 1.0 + CLIP:
            return False
        z[3 + k] = min(1.0, max(0.0, z[3 + k]))
    _polish_residual(model, z, m, mixers, p, x, res)
    if not np.abs(res).max() <= POLISH_TOLERANCE:  # NaN fails too
        return False
    for t in range(1, top):
        for j in range(3):
            g = model.gains[t, j]
            if p[t, j] == 1.0 and g < -BEST_REPLY_TOLERANCE:
                return False
            if p[t, j] == 0.0 and g > BEST_REPLY_TOLERANCE:
                return False
    return True


@njit(cache=True)
def _polish_residual(model, z, m, mixers, p, x, res):  # pragma: no cover - numba
    """Write the polish residuals at z = (x, the mixers' chances): x - F(x), then each mixer's gain."""
    for q in range(3):
        x[q] = z[q]
    for k in range(m):
        r = mixers[k]
        p[r // 3, r % 3] = z[3 + k]
    for t in range(1, model.top):
        for j in range(3):
            model.sig[t, j] = p[t, j]
    sweep_turn(model, x, model.top - 1)
    for q in range(3):
        res[q] = x[q] - model.D[0, q]
    for k in range(m):
        r = mixers[k]
        res[3 + k] = model.gains[r // 3, r % 3]


@njit(cache=True)
def trace_turn_start(s, game, S, x):  # pragma: no cover - numba
    """Trace the logit equilibria of the sorted turn start s and polish one; return (status, lam reached, steps).

    On TRACED, x holds the turn start's value and S[t] (t = 1..top - 1) the stages' sit chances.
    LOST: the continuation could not go on (lam reached says where); NOT_POLISHED: lam reached MAX_LAM
    and no support read off the path polished to an equilibrium.
    """
    model = new_model(s, game)
    top = model.top
    n = 3 * top  # x and y[t, j] for t = 1..top - 1 (w[3 t + j])
    w = np.zeros(n)
    u = np.log(START_LAM)
    if not _start(model, START_LAM, w):
        return LOST, START_LAM, 0
    p = np.zeros((top, 3))
    J = np.zeros((n, n + 1))
    A = np.zeros((n + 1, n + 1))
    H = np.zeros(n)
    rhs = np.zeros(n + 1)
    tangent = np.zeros(n + 1)
    tangent[n] = 1.0
    v = np.zeros(n + 1)
    d = np.zeros(n + 1)
    chord = np.zeros((n + 1, n + 1))
    weight = np.ones(n + 1)  # the arclength metric: a logit y counts relative to its size
    h = 0.5
    top_u = np.log(MAX_LAM)
    next_polish = np.log(POLISH_FROM)
    before = w.copy()  # the traced point at the last polish attempt
    steps = 0
    while steps < MAX_STEPS:
        steps += 1
        lam = np.exp(u)
        for k in range(3, n):
            weight[k] = 1.0 / max(1.0, abs(w[k]))
        _residual(model, w, lam, H)
        _jacobian(model, w, lam, H, J)
        if not np.isfinite(J).all():
            return LOST, lam, steps
        A[:n] = J
        A[n] = tangent * weight * weight
        rhs[:] = 0.0
        rhs[n] = 1.0
        blocks, work = prepare(A, top)  # the block structure (``n_bordered``), else dense solves
        blocks = blocks and border(A, top, work)
        if blocks:
            solve(A, top, work, rhs, v)
            blocks = accurate(A, v, rhs)
        if not blocks:
            v[:] = np.linalg.solve(A, rhs)
        v /= np.sqrt(((v * weight) ** 2).sum())
        if (v * tangent * weight * weight).sum() < 0.0:
            v *= -1.0
        if v[n] > 0.0:
            h = min(h, MAX_DU / v[n])
        accepted = False
        A[n] = v * weight * weight
        blocks = blocks and border(A, top, work)
        if not blocks:
            chord[:] = np.linalg.inv(A)  # the corrector's matrix, the same for every iteration and every retried h
        while h >= MIN_STEP:
            wp = w + h * v[:n]
            up = min(u + h * v[n], top_u + 1.0)
            wc = wp.copy()
            uc = up
            ok = False
            iterations = 0
            for _ in range(CORRECTOR_STEPS):
                lc = np.exp(uc)
                _residual(model, wc, lc, H)
                if not np.isfinite(H).all():
                    break
                if _converged(H, lc, top):
                    ok = True
                    break
                rhs[:n] = -H
                rhs[n] = -(((wc - wp) * v[:n]) * weight[:n] * weight[:n]).sum() - (uc - up) * v[n]
                if blocks:
                    solve(A, top, work, rhs, d)
                else:
                    d[:] = chord @ rhs
                wc += d[:n]
                uc += d[n]
                iterations += 1
            if ok:
                accepted = True
                w = wc
                u = uc
                tangent[:] = v
                if iterations <= GROW_AFTER:
                    h *= 2.0
                break
            h *= 0.5
        if not accepted:
            return LOST, np.exp(u), steps
        if u >= next_polish or u >= np.log(MAX_LAM):
            next_polish = u + POLISH_EVERY * np.log(10.0)
            for growing in (False, True):
                if polish(model, w, before, growing, p, x):
                    for t in range(1, top):
                        for j in range(3):
                            S[t, j] = p[t, j]
                    return TRACED, np.exp(u), steps
            before[:] = w
            if u >= np.log(MAX_LAM):
                return NOT_POLISHED, np.exp(u), steps
    return LOST, np.exp(u), steps
