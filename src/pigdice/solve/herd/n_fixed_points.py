"""A turn start of 3-player Swine Herd: its fixed point x = c(x) / e(x), and the mixing that settles it where it cycles.

Given x, ``turn`` sweeps the three-standing stages and returns F(x) = c + (1 - e) x; for the stage
profiles fixed, x = c / e exactly. The iteration x <- c(x) / e(x) starts from equal shares (1/3
each); when the selected profiles stop changing it ends at once on an exact fixed point; where a
mixed stage moves with x, it is a Newton-like step (after MAX_ROOT_STEPS plain steps it is damped).
Most turn starts settle so, on the selected equilibria.

Where the selected profiles cycle. The selection is not continuous in x: as a player's own restart
value crosses a threshold, the selected equilibrium of some stage changes, the turn's value jumps
back across the threshold, and the iteration cycles (goal 20: 61 of 1540 turn starts, e.g.
(0, 10, 16), whose x alternates between (0.027, 0.159, 0.814) and (0.001, 0.313, 0.685)). Two
repairs, each ending on a genuine stationary equilibrium (every stage profile an equilibrium of
its stage game given x, and x = c / e):
  1. Sticky profiles: every stage keeps the profile it played in the last sweep while that is still
     a (pure, role-symmetric) equilibrium of its stage game, and is re-selected only when it stops
     being one. Jumps that the selection made between two equilibria that both exist are gone; many
     cycles settle.
  2. Forced mixes: the decisions (stage t, player with its tied players) whose kind of play (stay,
     sit, mix) changes over RECORD sweeps of the cycling iteration are forced to sit with chances
     p_r (the other players of that stage play the selected equilibrium of the game left to them,
     ``n_stages.forced_stage``; the other stages keep their sticky profiles). For given p the turn's
     fixed point x(p) is solved, and with it each forced player's gain g_r from sitting. An
     equilibrium needs every p_r to be a best reply: p_r = 1 if g_r > 0, 0 if g_r < 0, anything if
     g_r = 0, a complementarity problem, written as the Fischer-Burmeister equations
     fb(p_r, -fb(1 - p_r, GAIN_SCALE g_r)) = 0 (fb(a, b) = a + b - sqrt(a^2 + b^2)) and solved by a
     semismooth Newton method (forward-difference Jacobian, least squares, backtracking) from the
     chances last played, then from all 1/2 and all 0. Solved to RESIDUAL_TOLERANCE, the forced
     players' gains are within about 1e-14 of indifference where they mix. A fixed point that
     cycles inside the search means a decision outside the forced ones flips: it joins them and the
     search starts again (RESTARTS rounds). This is the turn-start analogue of the 2-player
     solver's Newton step on x and of ``pigdice.solve.n.mixing`` (a mover mixing at a breakpoint so
     that the others put its x exactly there): here every player mixes at the stage where its
     choice flips, with the chance that makes it indifferent once the turn's fixed point is solved.
A turn start where neither repair settles takes the damped iteration of the selected profiles and
is counted as ``unsettled`` (keeping instead the forced profile with the smallest residual was
tried: no better at goal 50); the solve then traces its logit equilibria (``n_tracing``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.herd.n_bundles import (
    FORCED,
    STICKY,
    assign_plays,
    clear_plays,
    copy_plays,
    has_decision,
    new_decisions,
)
from pigdice.solve.herd.n_stages import SIT_MARGIN
from pigdice.solve.herd.n_turns import turn

ROOT_TOLERANCE = 1e-14  # a turn start is settled when a step moves x by at most this
MAX_ROOT_STEPS = 60  # plain steps of the turn-start iteration, then as many damped ones
DAMPING = 0.5
MAX_DAMPED_STEPS = 2000
MAX_FORCED = 24  # decisions the forced search may hold
RECORD = 8  # sweeps of a cycling iteration compared to find the stages whose choices flip
GAIN_SCALE = 100.0  # gains are scaled by this in the residuals of the forced mixes
RESIDUAL_TOLERANCE = 1e-12  # ... which are solved to this (gains within about 1e-14)
NEWTON_STEPS = 60
NEWTON_H = 1e-7
LINE_SEARCH = 30
STARTS = 6  # Newton starts: the chances last played, then all 1/2, 0, 1, 1/4, 3/4
RESTARTS = 5  # rounds of adding the decisions that still flip to the forced ones

# how a turn start settled (``turn_start``)
UNSETTLED, ON_SELECTED, ON_STICKY, ON_FORCED, ON_TRACED = -1, 0, 1, 2, 3  # ON_TRACED: ``n_tracing``
# how the forced-mix search ended (``_mix_search``)
SOLVED, NOT_SOLVED, FLIPPED = 0, 1, 2
# a sit chance's kind of play (``_kind``)
STAYS, SITS, MIXES = 0, 1, 2


@njit(cache=True)
def fixed_point(s, x, sweep, limit):  # pragma: no cover - numba
    """Iterate x <- c(x) / e(x) from x (updated in place) under the stage plays of ``sweep``; return (steps, settled).

    After every sweep the sticky stages take the profile it played. On return with settled, the
    rows' S and the gains ``plays.gain`` are those of the last sweep, whose x moved by at most
    ROOT_TOLERANCE. ``limit`` plain steps, then as many damped ones (one step if ``limit`` is 1).
    """
    game, rows, plays = sweep
    S, C, E = rows.S, rows.C, rows.E
    top = game.goal - s[0]
    for step in range(2 * limit if limit > 1 else 1):
        turn(s, x, game, rows, plays)
        for t in range(1, top):
            if plays.mode[t] == STICKY:
                for j in range(3):
                    plays.sit[t, j] = S[t, j]
        moved = 0.0
        damp = 1.0 if step < limit else DAMPING
        for q in range(3):
            nxt = C[0, q] / E[0]
            moved = max(moved, abs(nxt - x[q]))
            x[q] += damp * (nxt - x[q])
        if moved <= ROOT_TOLERANCE:
            return step + 1, True
    return 2 * limit if limit > 1 else 1, False


@njit(cache=True)
def _class_mask(s, i):  # pragma: no cover - numba
    """Return the bit mask of player i and the players tied with it (s sorted)."""
    mask = 0
    for j in range(3):
        if s[j] == s[i]:
            mask |= 1 << j
    return mask


@njit(cache=True)
def _first(mask):  # pragma: no cover - numba
    """Return the lowest player in ``mask``."""
    j = 0
    while not mask & (1 << j):
        j += 1
    return j


@njit(cache=True)
def _force(plays, forced, k, p):  # pragma: no cover - numba
    """Force the first k decisions of ``forced`` to sit with the chances p (in ``plays``)."""
    for r in range(k):
        t = forced.stage[r]
        plays.mode[t] = FORCED
        plays.mask[t] = 0
    for r in range(k):
        t = forced.stage[r]
        mask = forced.mask[r]
        plays.mask[t] |= mask
        for j in range(3):
            if mask & (1 << j):
                plays.sit[t, j] = p[r]


@njit(cache=True)
def _fb(a, b):  # pragma: no cover - numba
    """Return the Fischer-Burmeister function a + b - sqrt(a^2 + b^2): zero exactly when a, b >= 0 and a b = 0."""
    return a + b - np.sqrt(a * a + b * b)


@njit(cache=True)
def _residual(s, x0, sweep, base, forced, k, p, xs, res):  # pragma: no cover - numba
    """Solve the turn's fixed point (x0 to xs) with the first k decisions of ``forced`` at p; write their residuals.

    res[r] = fb(p_r, -fb(1 - p_r, GAIN_SCALE g_r)) (fb: Fischer-Burmeister), g_r the gain from sitting of
    the decision's first player: zero exactly when p_r is a best reply (1 if g > 0, 0 if g < 0, any if
    g = 0). The other stages start from the plays ``base`` (a sticky stage keeps its profile while it
    stays an equilibrium), so the residuals are a function of p. Return (steps, settled).
    """
    plays = sweep.plays
    assign_plays(plays, base)
    _force(plays, forced, k, p)
    for q in range(3):
        xs[q] = x0[q]
    steps, settled = fixed_point(s, xs, sweep, MAX_ROOT_STEPS)
    for r in range(k):
        g = plays.gain[forced.stage[r], _first(forced.mask[r])]
        inner = _fb(1.0 - p[r], GAIN_SCALE * g)
        res[r] = _fb(p[r], -inner)
    return steps, settled


@njit(cache=True)
def _mix_search(s, x, sweep, forced, k, p, pf):  # pragma: no cover - numba
    """Solve for the chances p of the first k decisions of ``forced`` that make each of them a best reply.

    A semismooth Newton method on the residuals of ``_residual`` from p (updated), with a
    forward-difference Jacobian (least squares) and a backtracking line search. Return (status,
    steps): SOLVED (x: the fixed point), NOT_SOLVED (pf: the full Newton step that failed, where a
    decision outside the forced ones may flip), FLIPPED: a fixed point did not settle (a decision
    outside the forced ones flips; x: where it was tried).
    """
    steps = 0
    xs = x.copy()
    xt = x.copy()
    res = np.zeros(k)
    trial = np.zeros(k)
    J = np.zeros((k, k))
    col = np.zeros(k)
    pt = p.copy()
    base = copy_plays(sweep.plays)
    taken, settled = _residual(s, x, sweep, base, forced, k, p, xs, res)
    steps += taken
    if not settled:
        for q in range(3):
            x[q] = xs[q]
        return FLIPPED, steps
    norm = np.abs(res).max()
    for _ in range(NEWTON_STEPS):
        if norm <= RESIDUAL_TOLERANCE:
            break
        for j in range(k):
            for r in range(k):
                pt[r] = p[r]
            h = NEWTON_H if p[j] + NEWTON_H <= 1.0 else -NEWTON_H
            pt[j] = p[j] + h
            taken, settled = _residual(s, xs, sweep, base, forced, k, pt, xt, col)
            steps += taken
            if not settled:
                for q in range(3):
                    x[q] = xt[q]
                return FLIPPED, steps
            for r in range(k):
                J[r, j] = (col[r] - res[r]) / h
        delta = np.linalg.lstsq(J, -res)[0]
        for r in range(k):
            pf[r] = min(1.0, max(0.0, p[r] + delta[r]))
        alpha = 1.0
        improved = False
        for _ in range(LINE_SEARCH):
            for r in range(k):
                pt[r] = min(1.0, max(0.0, p[r] + alpha * delta[r]))
            taken, settled = _residual(s, xs, sweep, base, forced, k, pt, xt, trial)
            steps += taken
            if settled:
                tn = np.abs(trial).max()
                if tn < (1.0 - 1e-4 * alpha) * norm:
                    improved = True
                    norm = tn
                    for r in range(k):
                        res[r] = trial[r]
                        p[r] = pt[r]
                    for q in range(3):
                        xs[q] = xt[q]
                    break
            alpha *= 0.5
        if not improved:
            break
    # leave the plays and the rows at p's fixed point
    taken, settled = _residual(s, xs, sweep, base, forced, k, p, xt, res)
    steps += taken
    if settled and np.abs(res).max() <= RESIDUAL_TOLERANCE:
        for q in range(3):
            x[q] = xt[q]
        return SOLVED, steps
    return NOT_SOLVED, steps


@njit(cache=True)
def _kind(v):  # pragma: no cover - numba
    """Return a sit chance's kind of play: STAYS, SITS or MIXES."""
    return STAYS if v <= SIT_MARGIN else (SITS if v >= 1.0 - SIT_MARGIN else MIXES)


@njit(cache=True)
def _candidates(s, x, sweep, cands, loose):  # pragma: no cover - numba
    """Write to ``cands`` the decisions whose kind of play changes over RECORD sweeps; return (count, steps).

    The kinds: stays, sits, mixes (a mix whose chances only move with x is no change). Decisions
    already forced are left out; with ``loose`` any change of the chances counts. x is moved on by
    the sweeps.
    """
    S = sweep.rows.S
    plays = sweep.plays
    top = sweep.game.goal - s[0]
    seen = np.zeros((RECORD, top + 1, 3))
    for r in range(RECORD):
        fixed_point(s, x, sweep, 1)
        for t in range(1, top):
            for q in range(3):
                seen[r, t, q] = S[t, q]
    count = 0
    for t in range(top - 1, 0, -1):
        for i in range(3):
            if plays.mode[t] == FORCED and plays.mask[t] & (1 << i):
                continue
            kinds = 0  # the kinds of play seen: bit 0 stays, bit 1 sits, bit 2 mixes
            lo = 1.0
            hi = 0.0
            for r in range(RECORD):
                v = seen[r, t, i]
                kinds |= 1 if v <= SIT_MARGIN else (2 if v >= 1.0 - SIT_MARGIN else 4)
                lo = min(lo, v)
                hi = max(hi, v)
            if loose:
                if hi - lo <= SIT_MARGIN:
                    continue
            elif kinds == 1 or kinds == 2 or kinds == 4:  # one kind (a mix that only moves with x is no flip)
                continue
            mask = _class_mask(s, i)
            if not has_decision(cands, count, t, mask) and count < cands.stage.shape[0]:
                cands.stage[count] = t
                cands.mask[count] = mask
                count += 1
    return count, RECORD


@njit(cache=True)
def _note_flips(s, sweep, base, kinds, flips, nflips):  # pragma: no cover - numba
    """Add to ``flips`` the unforced decisions whose kind of play differs from ``kinds``; return their count."""
    S = sweep.rows.S
    top = sweep.game.goal - s[0]
    for t in range(top - 1, 0, -1):
        for j in range(3):
            if base.mode[t] == FORCED and base.mask[t] & (1 << j):
                continue
            if _kind(S[t, j]) != kinds[t, j] and nflips < flips.stage.shape[0]:
                mask = _class_mask(s, j)
                if not has_decision(flips, nflips, t, mask):
                    flips.stage[nflips] = t
                    flips.mask[nflips] = mask
                    nflips += 1
    return nflips


@njit(cache=True)
def _damped(s, x, sweep):  # pragma: no cover - numba
    """Run the damped iteration of the selected profiles from x; return (steps, how): ON_SELECTED or UNSETTLED."""
    game, rows, plays = sweep
    clear_plays(plays)
    C, E = rows.C, rows.E
    steps = 0
    for _ in range(MAX_DAMPED_STEPS):
        turn(s, x, game, rows, plays)
        steps += 1
        moved = 0.0
        for q in range(3):
            nxt = C[0, q] / E[0]
            moved = max(moved, abs(nxt - x[q]))
            x[q] += DAMPING * (nxt - x[q])
        if moved <= ROOT_TOLERANCE:
            return steps, ON_SELECTED
    return steps, UNSETTLED


@njit(cache=True)
def turn_start(s, sweep):  # pragma: no cover - numba
    """Solve the equilibrium turn start s (sorted): return (x, steps, how); see the module docstring.

    how: ON_SELECTED the selected profiles settled, ON_STICKY the sticky ones did, ON_FORCED the forced
    search succeeded (both leave the played profile in the rows' S), UNSETTLED nothing settled (the
    damped iteration's x).
    """
    S = sweep.rows.S
    plays = sweep.plays
    goal = sweep.game.goal
    top = goal - s[0]
    clear_plays(plays)
    x = np.full(3, 1.0 / 3.0)
    steps, settled = fixed_point(s, x, sweep, MAX_ROOT_STEPS)
    if settled:
        return x, steps, ON_SELECTED
    for t in range(1, top):
        plays.mode[t] = STICKY
        for j in range(3):
            plays.sit[t, j] = S[t, j]
    taken, settled = fixed_point(s, x, sweep, MAX_ROOT_STEPS)
    steps += taken
    if settled:
        return x, steps, ON_STICKY
    forced = new_decisions(MAX_FORCED)
    k = 0
    x1 = x.copy()
    cands = new_decisions(3 * goal)
    pf = np.zeros(MAX_FORCED)
    kinds = np.zeros((top, 3), dtype=np.int64)
    flips = new_decisions(3 * goal)
    nflips = 0
    for _ in range(RESTARTS):
        ncand, taken = _candidates(s, x1, sweep, cands, False)
        steps += taken
        if ncand == 0:
            ncand, taken = _candidates(s, x1, sweep, cands, True)
            steps += taken
        for c in range(nflips):  # decisions that flipped between a failed Newton step's ends
            if ncand < cands.stage.shape[0]:
                cands.stage[ncand] = flips.stage[c]
                cands.mask[ncand] = flips.mask[c]
                ncand += 1
        nflips = 0
        added = 0
        for c in range(ncand):
            if not has_decision(forced, k, cands.stage[c], cands.mask[c]) and k < MAX_FORCED:
                forced.stage[k] = cands.stage[c]
                forced.mask[k] = cands.mask[c]
                k += 1
                added += 1
        if added == 0:
            break
        last = np.zeros(k)
        for r in range(k):
            last[r] = S[forced.stage[r], _first(forced.mask[r])]
        for start in range(STARTS):
            p = last.copy() if start == 0 else np.full(k, (0.5, 0.0, 1.0, 0.25, 0.75)[start - 1])
            xs = x.copy()
            status, taken = _mix_search(s, xs, sweep, forced, k, p, pf)
            steps += taken
            if status == SOLVED:
                return xs, steps, ON_FORCED
            if status == NOT_SOLVED:  # the decisions whose kind of play differs between p and the failed full step
                for t in range(1, top):
                    for j in range(3):
                        kinds[t, j] = _kind(S[t, j])
                base = copy_plays(plays)
                xt = xs.copy()
                taken, settled = _residual(s, xs, sweep, base, forced, k, pf[:k], xt, np.zeros(k))
                steps += taken
                assign_plays(plays, base)
                nflips = _note_flips(s, sweep, base, kinds, flips, nflips)
            if status == FLIPPED:  # a decision outside the forced ones flips: look again where the search stood
                x1 = xs
                break
    # nothing settled: the damped iteration of the selected profiles, unsettled
    taken, how = _damped(s, x, sweep)
    return x, steps + taken, how
