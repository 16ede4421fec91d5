"""Numba kernels of the exact n-player solver (first to the goal wins), for any number of players.

A turn-start state is the players' banked scores in turn order, the mover first, (a_0, ..., a_{n-1}),
every score below the goal, stored at the flat index sum_r a_r goal^(n-1-r) (mixed radix, so one
kernel serves any n). Its value is a vector: W[seat, index, r] is the win probability of the player
r places after the mover. The seat axis has size 1 here (first-to-goal values do not depend on the
mover's seat); it is threaded through so that an "equal turns" solver can give it size n.

Every move but one leads to a higher score sum (or, through a reset, to a lower one, handled by
repeated passes as in ``rollhold``). The exception is a turn that ends with nothing banked (a bust,
a pass at turn total 0, a reset at score 0, a BANK of nothing): the next player moves with the SAME
scores, the rotation (a_1, ..., a_{n-1}, a_0). The distinct rotations of a score tuple (n of them, or
its period p if it repeats) form a cycle solved together. With the mover's choices fixed, the value of
a turn at turn total k is affine in the vector w' of the rotation it falls back to,

    P_k = C_k + d_k R w',    (R w')[r] = w'[(r - 1) mod n],

with one scalar d_k (the chance that the turn ends in the cycle), and the mover's choices depend only
on their own entry x = w'[n - 1]: exactly the 2-player turn sweep (``rollhold._turn_sweep``), with
vectors. A cycle is solved by policy iteration: guess x for each member, sweep each member's turn
(recording the interval of x over which its choices stand), solve the cycle's linear system
w_m = C_m + d_m R w_{m+1} in closed form, and re-sweep only the members whose x left its interval.
With 3+ players this need not settle (several, or no, consistent choices: see ``_solve_cycle`` and
``pigdice.solve.n.nplayer``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.n.mixing import (
    D_COL,
    HI_COL,
    LO_COL,
    MAX_PLANS,
    PLAN_EXTRA,
    SINGLE_COL,
    WIDE_PLANS,
    X_FIRST_COL,
    X_LAST_COL,
    cycle_vectors,
    find_mixed,
)  # fmt: skip
from pigdice.solve.n.ntuples import cycle_period, first_tuple, next_tuple
from pigdice.solve.positions import INDIFFERENCE, TRUNCATION_ERROR
from pigdice.solve.tables import KIND_ADD, KIND_BUST, KIND_DOUBLE, KIND_RESET, KIND_SET, KIND_SUBTRACT

INNER_TOLERANCE = 1e-15  # a turn whose effects can lower the turn total is swept until it moves less
MAX_INNER_SWEEPS = 10_000
MAX_CYCLE_ROUNDS = 60
# Rounds in which every member whose x left its interval re-chooses at once; after them one member
# re-chooses per round (round robin), which settles cycles with several consistent choices (e.g. two
# players on equal scores: either one holds early and the other rolls on), where re-choosing at
# once flips between them forever.
SIMULTANEOUS_ROUNDS = 4
# A chosen option counts as still chosen this far outside its exact interval of x: choosing either
# of two options that tie to within it moves no value by more than about as much.
BOUNDS_SLACK = 1e-14
STILL = 1e-15  # a cycle whose values move less than this between rounds is solved (options tied)
# With resets, passes repeat, and a cycle whose mover sits at a breakpoint may flip between two pure
# equilibria from one pass to the next as the reset values move by 1e-8 (3-player Piggy Six to 100:
# the other players' chances then jump by 4e-4 and the passes never settle). So a later pass first
# sweeps each member at an anchor inside the interval of the choices it settled on last pass, and once
# the cycle has left them FLIPS_TO_KEEP times for a gain between INDIFFERENCE (ties flip harmlessly)
# and KEEP_GAIN, keeps them while no mover of the cycle gains more than KEEP_GAIN by re-choosing. The
# gain is measured exactly, reported, and the kept choices are written as overrides: an equilibrium
# to within that gain.
KEEP_GAIN = 1e-9
FLIPS_TO_KEEP = 2
# ... counting flips only once the passes move the reset values less than this (before, choices change
# because the values are still far from settled, not because a mover sits at a breakpoint)
KEEP_AFTER = 1e-5
NO_ANCHORS = np.zeros((0, 0, 0))  # solves without resets (one pass) keep no anchors
# plans for a mixed equilibrium are built for x this far around the range policy iteration visited,
# and if none is found there, this much further
MIX_PADS = (1e-9, 0.02)
OVERRIDE_COLUMNS = 4  # (seat * goal^n + flat index, x of the plan, x of the plan mixed in, its chance)


FIRST_TO_GOAL = np.zeros((0, 1, 1, 1))  # the banked table of first to the goal: banking the goal wins


@njit(cache=True, inline="always")
def banked_share(FT, goal, total, rest, seat, r):  # pragma: no cover - numba
    """Return the win probability of the player r places after a mover who banks ``total`` >= goal.

    ``rest`` is the flat index of the others' scores (a_1, ..., a_{n-1}) in turn order and ``seat``
    the mover's seat. First to the goal (FT empty): the mover wins. Otherwise the others play their
    last turns: FT[class, total - goal, rest, r] (``pigdice.solve.n.finalturns``; one class, or one per
    seat under equal turns); totals past the table read its last column (``solve_players`` makes the
    table long enough for that to move nothing by more than its stated truncation).
    """
    if FT.shape[0] == 0:
        return 1.0 if r == 0 else 0.0
    cls = seat if FT.shape[0] > 1 else 0
    e = total - goal
    if e >= FT.shape[1]:
        e = FT.shape[1] - 1
    return FT[cls, e, rest, r]


@njit(cache=True)
def banked_vector(FT, goal, total, rest, seat, n):  # pragma: no cover - numba
    """Return the win vector (mover first) of a mover who banks ``total`` >= goal (``banked_share``)."""
    out = np.empty(n)
    for r in range(n):
        out[r] = banked_share(FT, goal, total, rest, seat, r)
    return out


@njit(cache=True)
def over_goal_top(FT, goal, rest, seat, a0, x, pbust, cap, bounds):  # pragma: no cover - numba
    """Return the mover's sweep length: goal - a0, plus the totals past the goal they may roll on at.

    Banking T >= goal is worth 1 - loss(T) to the mover (the others' last turns); rolling on is worth at
    most 1 - pbust + pbust x (a bust falls back to x). So holding is provably best from the first T
    with loss(T) <= pbust (1 - x), or, where that is below TRUNCATION_ERROR, holding there is off by at
    most loss(T). bounds[2] receives that error where the stop is not proved (0 where it is), bounds[3]
    1 if the stop lies at the table's last column (a longer table may move it), and bounds[1] is
    lowered to the largest x for which the stop stays proved. ``cap`` > 0 makes the mover hold at
    totals >= cap (the tests' capped game: exact for it, so no truncation is counted).
    """
    bounds[2] = 0.0
    bounds[3] = 0.0
    if FT.shape[0] == 0:
        return goal - a0
    cls = seat if FT.shape[0] > 1 else 0
    threshold = max(pbust * (1.0 - x), TRUNCATION_ERROR)
    e = 0
    width = FT.shape[1]
    while e < width - 1 and 1.0 - FT[cls, e, rest, 0] > threshold:
        e += 1
    if cap > 0 and goal + e >= cap:
        return cap - a0
    loss = 1.0 - FT[cls, e, rest, 0]
    if loss > pbust * (1.0 - x):
        bounds[2] = loss
    elif pbust > 0.0:
        bounds[1] = min(bounds[1], 1.0 - loss / pbust)
    if e == width - 1 and loss > threshold:
        bounds[3] = 1.0
    return goal - a0 + e


@njit(cache=True, inline="always")
def _reach(kinds, amounts, total):  # pragma: no cover - numba
    """Return the largest total one throw can take a mover standing on ``total`` to."""
    far = total
    for e in range(kinds.shape[0]):
        if kinds[e] == KIND_DOUBLE:
            far = max(far, 2 * total)
        else:
            far = max(far, total + amounts[e])
    return far


@njit(cache=True)
def _sweep(  # pragma: no cover - numba
    W, seat, seat_next, base, rest, a0, goal, n, x, xv,
    kinds, amounts, keeps, probs, offsets, monotone, one_throw,
    C, d, act, rolls, bounds, opt_c, opt_d, acc, FT, pbust, cap, min_top,
):  # fmt: skip
    """Solve one turn of the mover (score a0, seat) given x, their own entry of the cycle's next state.

    Fills C[k, r], d[k] (P_k = C_k + d_k R w'; C[k, 0] + d[k] x is the mover's value) and act[k]
    (0 hold, c + 1 roll with choice c) for every turn total k < goal - a0 (Hog: k = 0 only); every
    state the turn can reach lies in W[seat_next, base + s2] (base = rest * goal). The mover picks by
    the tie-break of ``positions``: at k = 0 (and in Hog) rolling with the fewest dice, else holding,
    unless another option is better by more than INDIFFERENCE, options taken in order. ``bounds``
    receives the interval of x over which every one of these comparisons comes out the same. With a
    final round (FT not empty) the turn goes on past the goal up to the stop of ``over_goal_top``
    (holding there banks FT's vector), and bounds[2], bounds[3] say how that stop was found; the sweep
    covers at least ``min_top`` totals (action values past the stop, for hints). If
    ``rolls`` has a row per choice, the mover's value of every roll choice is recorded there, at xv
    (the true x where the choices are made at another one, see ``turn_rows``).
    Returns the number of turn totals swept (top; the mover holds at every total from there).

    The effect switch is written out twice (the mover's entry of every option, then the chosen
    option's other entries) rather than called: numba runs it several times slower as a function.
    Where an effect leads: the turn goes on at k2 (C, d); the turn ends with nothing banked (the
    cycle: d); the mover lands on a new score s2 < goal (W at base + s2, whose entry r - 1 is this
    turn's entry r); or banks a total >= goal (``banked_share``).
    """
    bounds[1] = np.inf
    bounds[2] = 0.0
    bounds[3] = 0.0
    top = 1 if one_throw else over_goal_top(FT, goal, rest, seat, a0, x, pbust, cap, bounds)
    if FT.shape[0] > 0 and _reach(kinds, amounts, a0 + top - 1) >= goal + FT.shape[1]:
        bounds[3] = 1.0  # a throw from the turn could land past the banked table: a longer one is needed
    if min_top > top:
        top = min(min_top, C.shape[0])
    stop_hi = bounds[1]
    n_choices = offsets.shape[0] - 1
    n_scan = n_choices if one_throw else n_choices + 1  # options: 0 holds (passes at k = 0); Hog has none
    record = rolls.shape[0] == n_choices
    last = n - 1
    single = monotone or one_throw
    sweeps = 0
    while True:
        sweeps += 1
        change = 0.0
        lo = -np.inf
        hi = stop_hi
        for k in range(top - 1, -1, -1):
            # the mover's value of every option: opt_c[o] + opt_d[o] * x
            if k == 0:
                opt_c[0] = 0.0
                opt_d[0] = 1.0
            elif a0 + k >= goal:  # banking past the goal: the others' last turns
                opt_c[0] = banked_share(FT, goal, a0 + k, rest, seat, 0)
                opt_d[0] = 0.0
            else:
                opt_c[0] = W[seat_next, base + a0 + k, last]
                opt_d[0] = 0.0
            for ch in range(n_choices):
                rc = 0.0
                rd = 0.0
                for e in range(offsets[ch], offsets[ch + 1]):
                    kind = kinds[e]
                    p = probs[e]
                    k2 = -1  # the new turn total, if the turn total moves
                    if kind == KIND_ADD:
                        k2 = k + amounts[e]
                    elif kind == KIND_BUST:
                        rd += p
                    elif kind == KIND_DOUBLE:
                        k2 = 2 * k
                    elif kind == KIND_SUBTRACT:
                        k2 = max(k - amounts[e], 0)
                    elif kind == KIND_SET:
                        k2 = amounts[e]
                    elif kind == KIND_RESET:
                        if a0 == 0:
                            rd += p
                        else:
                            rc += p * W[seat_next, base, last]
                    else:  # BANK
                        s2 = a0 + amounts[e]
                        if keeps[e]:
                            s2 += k
                        if s2 >= goal:
                            rc += p * banked_share(FT, goal, s2, rest, seat, 0)
                        elif s2 == a0:
                            rd += p
                        else:
                            rc += p * W[seat_next, base + s2, last]
                    if k2 < 0:
                        pass
                    elif one_throw:  # the throw is banked
                        if a0 + k2 >= goal:
                            rc += p * banked_share(FT, goal, a0 + k2, rest, seat, 0)
                        elif k2 == 0:
                            rd += p
                        else:
                            rc += p * W[seat_next, base + a0 + k2, last]
                    elif k2 < top:
                        rc += p * C[k2, 0]
                        rd += p * d[k2]
                    else:  # the turn total reaches the goal: the mover holds
                        rc += p * banked_share(FT, goal, a0 + k2, rest, seat, 0)
                opt_c[ch + 1] = rc
                opt_d[ch + 1] = rd
                if record:
                    rolls[ch, k] = rc + rd * xv
            # the tie-break: the preferred option stands unless another beats it by INDIFFERENCE;
            # each comparison a + s x > 0 keeps its outcome on one side of x = -a / s
            roll_first = one_throw or k == 0
            b = 1 if roll_first else 0
            for j in range(1, n_scan):
                o = j
                if roll_first:
                    o = j + 1 if j < n_choices else 0
                a = opt_c[o] - opt_c[b] - INDIFFERENCE
                s = opt_d[o] - opt_d[b]
                better = a + s * x > 0.0
                if s != 0.0:
                    edge = -a / s
                    if better == (s > 0.0):
                        lo = max(lo, edge)
                    else:
                        hi = min(hi, edge)
                if better:
                    b = o
            # the chosen option's other entries
            bc = opt_c[b]
            bd = opt_d[b]
            for r in range(1, n):
                acc[r] = 0.0
            if b == 0:
                if a0 + k >= goal:
                    for r in range(1, n):
                        acc[r] = banked_share(FT, goal, a0 + k, rest, seat, r)
                elif k > 0:
                    for r in range(1, n):
                        acc[r] = W[seat_next, base + a0 + k, r - 1]
            else:
                for e in range(offsets[b - 1], offsets[b]):
                    kind = kinds[e]
                    p = probs[e]
                    k2 = -1
                    if kind == KIND_ADD:
                        k2 = k + amounts[e]
                    elif kind == KIND_BUST:
                        pass
                    elif kind == KIND_DOUBLE:
                        k2 = 2 * k
                    elif kind == KIND_SUBTRACT:
                        k2 = max(k - amounts[e], 0)
                    elif kind == KIND_SET:
                        k2 = amounts[e]
                    elif kind == KIND_RESET:
                        if a0 > 0:
                            for r in range(1, n):
                                acc[r] += p * W[seat_next, base, r - 1]
                    else:  # BANK
                        s2 = a0 + amounts[e]
                        if keeps[e]:
                            s2 += k
                        if s2 >= goal:
                            for r in range(1, n):
                                acc[r] += p * banked_share(FT, goal, s2, rest, seat, r)
                        elif s2 != a0:
                            for r in range(1, n):
                                acc[r] += p * W[seat_next, base + s2, r - 1]
                    if k2 < 0:
                        pass
                    elif one_throw:
                        if a0 + k2 >= goal:
                            for r in range(1, n):
                                acc[r] += p * banked_share(FT, goal, a0 + k2, rest, seat, r)
                        elif k2 > 0:
                            for r in range(1, n):
                                acc[r] += p * W[seat_next, base + a0 + k2, r - 1]
                    elif k2 < top:
                        for r in range(1, n):
                            acc[r] += p * C[k2, r]
                    else:
                        for r in range(1, n):
                            acc[r] += p * banked_share(FT, goal, a0 + k2, rest, seat, r)
            if not single:
                delta = max(abs(bd - d[k]), abs(bc - C[k, 0]))
                for r in range(1, n):
                    delta = max(delta, abs(acc[r] - C[k, r]))
                change = max(change, delta)
            C[k, 0] = bc
            for r in range(1, n):
                C[k, r] = acc[r]
            d[k] = bd
            act[k] = b
        if single or change < INNER_TOLERANCE or sweeps >= MAX_INNER_SWEEPS:
            if record and not single and sweeps < MAX_INNER_SWEEPS and change > 0.0:
                continue  # one more sweep so the recorded roll values use the converged C, d
            bounds[0] = lo
            bounds[1] = hi
            return top


@njit(cache=True)
def _guess(W, seat, target, digits, m, n, goal, powers):  # pragma: no cover - numba
    """Return a first guess of W[seat, target, n - 1] (target: member m + 1 of the cycle of ``digits``)
    from solved states one and two points higher in one score (the last player's, where it fits)."""
    for q in range(n - 1, -1, -1):
        j = m + 1 + q
        if digits[j - n if j >= n else j] + 2 < goal:
            step = powers[n - 1 - q]
            g = 2.0 * W[seat, target + step, n - 1] - W[seat, target + 2 * step, n - 1]
            return min(max(g, 0.0), 1.0)
    for q in range(n - 1, -1, -1):
        j = m + 1 + q
        if digits[j - n if j >= n else j] + 1 < goal:
            return W[seat, target + powers[n - 1 - q], n - 1]
    return 1.0 / n


@njit(cache=True)
def member_plans(  # pragma: no cover - numba
    W, a, m, s0, n, goal, bases, kinds, amounts, keeps, probs, offsets, monotone, one_throw,
    CW, DW, act, rolls, bounds, opt_c, opt_d, acc, x_low, x_high, PL, max_plans, prev, FT, pbust, cap,
):  # fmt: skip
    """Write member m's plans for x in [x_low, x_high] into PL[m] (columns: ``pigdice.solve.n.mixing``);
    return how many.

    The plans are the member's turn sweeps from x_low up, each swept just past the breakpoint of the
    one before (up to ``max_plans``; a plan whose choices are the same as the one before, only its stop
    past the goal moved, extends it). ``prev`` is scratch (as long as ``act``).
    """
    seats = W.shape[0]
    x = x_low
    c = 0
    prev_top = 0
    while c < max_plans:
        top = _sweep(W, (s0 + m) % seats, (s0 + m + 1) % seats, bases[m], bases[m] // goal, a[m], goal, n,
                     x, x, kinds, amounts, keeps, probs, offsets, monotone, one_throw,
                     CW[a[m]], DW[a[m]], act, rolls, bounds, opt_c, opt_d, acc, FT, pbust, cap, 0)  # fmt: skip
        differ = 0
        for k in range(max(top, prev_top)):
            if (act[k] if k < top else 0) != (prev[k] if k < prev_top else 0):
                differ += 1
        same = c > 0 and DW[a[m], 0] == PL[m, c - 1, n + D_COL]
        for r in range(n):
            same = same and CW[a[m], 0, r] == PL[m, c - 1, r]
        if c > 0 and (differ == 0 or same):  # the same plan (its stop moved, or a total it never reaches)
            PL[m, c - 1, n + HI_COL] = bounds[1]
            PL[m, c - 1, n + X_LAST_COL] = x
        else:
            for r in range(n):
                PL[m, c, r] = CW[a[m], 0, r]
            PL[m, c, n + D_COL] = DW[a[m], 0]
            PL[m, c, n + LO_COL] = bounds[0]
            PL[m, c, n + HI_COL] = bounds[1]
            PL[m, c, n + X_FIRST_COL] = x
            PL[m, c, n + X_LAST_COL] = x
            PL[m, c, n + SINGLE_COL] = 0.0
            if c > 0 and (differ == 1 or not (monotone or one_throw)):
                PL[m, c - 1, n + SINGLE_COL] = 1.0
            c += 1
        for k in range(top):
            prev[k] = act[k]
        prev_top = top
        edge = bounds[1]
        if not edge < x_high:
            break
        x = edge + max(1e-13, 1e-12 * abs(edge))
    return c


@njit(cache=True)
def _mix_cycle(  # pragma: no cover - numba
    W, a, L, s0, n, goal, bases, kinds, amounts, keeps, probs, offsets, monotone, one_throw,
    CW, DW, act, rolls, bounds, opt_c, opt_d, acc, xmin, xmax, pad, PL, count, seg, q, C, D, ws, FT, pbust, cap,
    max_plans,
):  # fmt: skip
    """Search the cycle for a mixed equilibrium (``pigdice.solve.n.mixing``); return its number of mixing
    members, -1 if none is found.

    Member m's plans are its turn sweeps for x in [xmin[m] - pad, xmax[m] + pad] (``member_plans``).
    Neighbours that differ at one turn total may be mixed (any neighbours where the turn total can
    fall: the mixture is then drawn once per turn, see ``pigdice.solve.n.mixing``); PL, count, seg, q,
    C, D, ws receive what ``find_mixed`` writes.
    """
    prev = np.zeros(act.shape[0], dtype=np.int64)
    for m in range(L):
        count[m] = member_plans(W, a, m, s0, n, goal, bases, kinds, amounts, keeps, probs, offsets, monotone,
                                one_throw, CW, DW, act, rolls, bounds, opt_c, opt_d, acc, xmin[m] - pad,
                                xmax[m] + pad, PL, max_plans, prev, FT, pbust, cap)  # fmt: skip
    return find_mixed(PL, count, L, n, seg, q, C, D, ws, acc)


@njit(cache=True)
def _pure_overrides(overrides, row, ws, L, n, lo, hi, xat, s0, seats, powers, idxs):  # pragma: no cover - numba
    """Write from ``row`` on an override for each member whose x (from the cycle's vectors ``ws``) lies outside
    the interval [lo, hi] of the pure choices it plays, made at ``xat``; return how many (beyond the array's
    rows they are counted, not written)."""
    written = 0
    for m in range(L):
        x = ws[m + 1 if m + 1 < L else 0, n - 1]
        if not (lo[m] - BOUNDS_SLACK <= x <= hi[m] + BOUNDS_SLACK):
            if row + written < overrides.shape[0]:
                overrides[row + written, 0] = ((s0 + m) % seats) * powers[n] + idxs[m]
                overrides[row + written, 1] = xat[m]
                overrides[row + written, 2] = xat[m]
                overrides[row + written, 3] = 0.0
            written += 1
    return written


@njit(cache=True)
def _solve_cycle(  # pragma: no cover - numba
    W, a, period, s0, n, goal, powers, fresh,
    kinds, amounts, keeps, probs, offsets, monotone, one_throw,
    CW, DW, act, rolls, bounds, opt_c, opt_d, acc,
    idxs, bases, need, M, F, PL, count, seg, overrides, out, FT, pbust, cap, anchors, keep,
):  # fmt: skip
    """Solve the cycle of the score tuple ``a`` (its ``period`` distinct rotations) by policy iteration.

    Member m is the rotation (a_m, ..., a_{m-1}) at flat index idxs[m]; its turn falls back to member
    m + 1 (mod period). With a seat axis (equal turns, W.shape[0] = n) member m moves from seat
    s0 + m (mod n) and the cycle has n members (the seat comes back after n turns, the scores
    after ``period``). CW[s], DW[s] keep the last turn swept with mover score s (a warm start for
    turns that sweep more than once). M (6, n, n), F (15, n), PL, count and seg (``_mix_cycle``)
    are scratch.

    Rounds: every member whose x left the interval of its choices re-chooses (sweeps its turn at
    the new x); then the cycle's equations are solved with everyone's choices. After
    SIMULTANEOUS_ROUNDS rounds only one member re-chooses per round (round robin). If no round
    settles (with 3+ players some cycles have no consistent deterministic choices at all), a mixed
    equilibrium is searched for (``_mix_cycle``); if none is found, the evaluated profile of choices
    with the smallest regret (the most a mover could gain at the start of their turn by re-choosing)
    is kept. Every member whose play is not the sweep at its own x is written to ``overrides`` as
    (seat * goal^n + flat index, x_a, x_b, q): the mover plays the sweep at x_b with chance q, else
    the sweep at x_a.

    ``anchors`` (2, seats, goal^n), empty without resets: [0] where a member's last pass settled on pure
    choices, an x inside their interval (else nan); [1] how often the member left them for a gain below
    KEEP_GAIN (counted where ``keep``: the passes have nearly settled). A pass that is not ``fresh`` sweeps
    such a member there first, and if the cycle's x then
    leaves some member's interval, but a member has left them FLIPS_TO_KEEP times before and re-choosing
    gains no mover more than KEEP_GAIN, the choices are kept (an override at the anchor).

    Writes the members' vectors into W; out[0] the largest change of a value, out[1] the largest
    residual of the cycle's equations, out[2] the regret (0 if settled), out[3] the overrides
    written, out[4] the largest truncation of a stop past the goal (``over_goal_top``), out[5] 1 if a
    stop, or a throw from below it, reached the banked table's end, out[6] 1 if the equilibrium
    mixes, out[7] the most a mover could gain by another plan where the equilibrium mixes (the
    tie-break's INDIFFERENCE, to rounding) or choices were kept (at most KEEP_GAIN); returns the number
    of turn sweeps it took.
    """
    seats = W.shape[0]
    last = n - 1
    top_power = powers[n - 1]
    L = n if seats > 1 else period
    memC, ws, old, bestC, bestW, newC = M[0], M[1], M[2], M[3], M[4], M[5]
    memD, lo, hi, xs, xsw, bestD, bestX, bestlo, besthi, newD, newlo, newhi, xmin, xmax, chances, first = (
        F[0], F[1], F[2], F[3], F[4], F[5], F[6], F[7], F[8], F[9], F[10], F[11], F[12], F[13], F[14], F[15]
    )  # fmt: skip
    anchored = anchors.shape[0] > 0 and not fresh
    keep_limit = -1.0  # re-choose as usual, unless the cycle has flipped (below)
    for m in range(L):
        idx = 0
        for q in range(n):
            j = m + q
            idx = idx * goal + a[j - n if j >= n else j]
        idxs[m] = idx
        bases[m] = (idx - a[m] * top_power) * goal
    for m in range(L):
        target = bases[m] + a[m]
        nseat = (s0 + m + 1) % seats
        if fresh:
            xs[m] = _guess(W, nseat, target, a, m, n, goal, powers)
        else:
            xs[m] = W[nseat, target, last]
        xmin[m] = xs[m]
        xmax[m] = xs[m]
        first[m] = xs[m]
        if anchored and not np.isnan(anchors[0, (s0 + m) % seats, idxs[m]]):
            first[m] = anchors[0, (s0 + m) % seats, idxs[m]]
            if keep and anchors[1, (s0 + m) % seats, idxs[m]] >= FLIPS_TO_KEEP:
                keep_limit = KEEP_GAIN
        need[m] = True
        for r in range(n):
            old[m, r] = W[(s0 + m) % seats, idxs[m], r]
    truncation = 0.0
    at_end = 0.0
    swept = 0
    turn = 0  # in sequential rounds, the member whose turn it is to re-choose first
    best_regret = np.inf
    settled = False
    kept = False
    for rounds in range(MAX_CYCLE_ROUNDS + 1):
        sequential = rounds >= SIMULTANEOUS_ROUNDS
        chosen = -1
        if sequential:  # one member re-chooses: the first out of its interval from ``turn`` on
            for step in range(L):
                m = turn + step
                if m >= L:
                    m -= L
                if need[m]:
                    chosen = m
                    break
            turn = chosen + 1 if chosen + 1 < L else 0
        # sweep every member out of its interval: their new choices, and what re-choosing gains them
        regret = 0.0
        for m in range(L):
            if not need[m]:
                continue
            swept += 1
            at = first[m] if rounds == 0 else xs[m]
            _sweep(W, (s0 + m) % seats, (s0 + m + 1) % seats, bases[m], bases[m] // goal, a[m], goal, n,
                   at, at, kinds, amounts, keeps, probs, offsets, monotone, one_throw,
                   CW[a[m]], DW[a[m]], act, rolls, bounds, opt_c, opt_d, acc, FT, pbust, cap, 0)  # fmt: skip
            truncation = max(truncation, bounds[2])
            at_end = max(at_end, bounds[3])
            for r in range(n):
                newC[m, r] = CW[a[m], 0, r]
            newD[m] = DW[a[m], 0]
            newlo[m] = bounds[0]
            newhi[m] = bounds[1]
            if rounds > 0:
                gain = newC[m, 0] + newD[m] * xs[m] - (memC[m, 0] + memD[m] * xs[m])
                regret = max(regret, gain)
        if rounds > 0 and regret < best_regret:  # the profile solved last round is the best so far
            best_regret = regret
            for m in range(L):
                for r in range(n):
                    bestC[m, r] = memC[m, r]
                    bestW[m, r] = ws[m, r]
                bestD[m] = memD[m]
                bestX[m] = xsw[m]
                bestlo[m] = lo[m]
                besthi[m] = hi[m]
        if anchored and rounds == 1:  # are last pass's choices still (nearly) best?
            if regret <= keep_limit:
                settled = True
                kept = True
                break
            # left for a small gain (above the tie-break's): a flip, if it comes back next pass
            if keep and INDIFFERENCE < regret <= KEEP_GAIN:
                for m in range(L):
                    if need[m]:
                        anchors[1, (s0 + m) % seats, idxs[m]] += 1.0
        if rounds == MAX_CYCLE_ROUNDS:
            break
        for m in range(L):
            if need[m] and (not sequential or m == chosen):
                for r in range(n):
                    memC[m, r] = newC[m, r]
                memD[m] = newD[m]
                lo[m] = newlo[m]
                hi[m] = newhi[m]
                xsw[m] = first[m] if rounds == 0 else xs[m]
        cycle_vectors(memC, memD, L, n, ws, acc)
        stable = True
        moved = 0.0
        for m in range(L):
            xn = ws[m + 1 if m + 1 < L else 0, last]
            need[m] = not (lo[m] - BOUNDS_SLACK <= xn <= hi[m] + BOUNDS_SLACK)
            if need[m]:
                stable = False
            moved = max(moved, abs(xn - xs[m]))
            xs[m] = xn
            xmin[m] = min(xmin[m], xn)
            xmax[m] = max(xmax[m], xn)
        if stable or moved <= STILL:
            settled = True
            break
    written = 0
    mixing = -1
    mix_regret = 0.0
    if not settled:
        for pad in MIX_PADS:
            mixing = _mix_cycle(W, a, L, s0, n, goal, bases, kinds, amounts, keeps, probs, offsets, monotone,
                                one_throw, CW, DW, act, rolls, bounds, opt_c, opt_d, acc, xmin, xmax, pad,
                                PL, count, seg, chances, memC, memD, ws, FT, pbust, cap, MAX_PLANS)  # fmt: skip
            if mixing >= 0:
                break
        if mixing < 0:
            mixing = _mix_cycle(W, a, L, s0, n, goal, bases, kinds, amounts, keeps, probs, offsets, monotone,
                                one_throw, CW, DW, act, rolls, bounds, opt_c, opt_d, acc, xmin, xmax, MIX_PADS[0],
                                PL, count, seg, chances, memC, memD, ws, FT, pbust, cap,
                                WIDE_PLANS[min(L, len(WIDE_PLANS) - 1)])  # fmt: skip
    if mixing >= 0:  # memC, memD and ws hold the mixed profile
        settled = True
        for m in range(L):
            x = ws[m + 1 if m + 1 < L else 0, last]
            i = seg[m] // 2
            mixes = seg[m] % 2 == 1
            if mixes or not (PL[m, i, n + LO_COL] < x < PL[m, i, n + HI_COL]):
                count_rows = int(out[3]) + written
                if count_rows < overrides.shape[0]:
                    overrides[count_rows, 0] = ((s0 + m) % seats) * powers[n] + idxs[m]
                    overrides[count_rows, 1] = PL[m, i, n + X_LAST_COL]
                    overrides[count_rows, 2] = PL[m, i + 1, n + X_FIRST_COL] if mixes else PL[m, i, n + X_LAST_COL]
                    overrides[count_rows, 3] = chances[m] if mixes else 0.0
                written += 1
            # what another plan would gain the mover (the sweep at their x is a best one)
            swept += 1
            _sweep(W, (s0 + m) % seats, (s0 + m + 1) % seats, bases[m], bases[m] // goal, a[m], goal, n,
                   x, x, kinds, amounts, keeps, probs, offsets, monotone, one_throw,
                   CW[a[m]], DW[a[m]], act, rolls, bounds, opt_c, opt_d, acc, FT, pbust, cap, 0)  # fmt: skip
            truncation = max(truncation, bounds[2])
            at_end = max(at_end, bounds[3])
            gain = CW[a[m], 0, 0] + DW[a[m], 0] * x - (memC[m, 0] + memD[m] * x)
            mix_regret = max(mix_regret, gain)
    elif not settled:  # keep the profile with the smallest regret; play follows its choices
        for m in range(L):
            for r in range(n):
                memC[m, r] = bestC[m, r]
                ws[m, r] = bestW[m, r]
            memD[m] = bestD[m]
        written += _pure_overrides(overrides, int(out[3]) + written, ws, L, n, bestlo, besthi, bestX, s0, seats,
                                   powers, idxs)  # fmt: skip
    if kept:  # last pass's choices stand; a member whose x left their interval plays them by override
        mix_regret = max(regret, 0.0)
        written += _pure_overrides(overrides, int(out[3]) + written, ws, L, n, lo, hi, xsw, s0, seats, powers, idxs)
    if anchors.shape[0] > 0:  # where next pass sweeps first: inside the interval of pure choices
        for m in range(L):
            anchor = np.nan
            if settled and mixing < 0:
                low = max(lo[m], 0.0)
                high = min(hi[m], 1.0)
                anchor = 0.5 * (low + high) if low <= high else xsw[m]
            anchors[0, (s0 + m) % seats, idxs[m]] = anchor
    change = 0.0
    residual = 0.0
    for m in range(L):
        nxt = m + 1 if m + 1 < L else 0
        for r in range(n):
            v = ws[m, r]
            residual = max(residual, abs(memC[m, r] + memD[m] * ws[nxt, r - 1 if r > 0 else last] - v))
            change = max(change, abs(v - old[m, r]))
            W[(s0 + m) % seats, idxs[m], r] = v
    out[0] = change
    out[1] = residual
    out[2] = 0.0 if settled else best_regret
    out[3] += written
    out[4] = truncation
    out[5] = at_end
    out[6] = 1.0 if mixing >= 0 else 0.0
    out[7] = mix_regret
    out[8] = 1.0 if kept else 0.0
    return swept


@njit(cache=True)
def solve_levels(  # pragma: no cover - numba
    W, goal, n, s_high, s_low, kinds, amounts, keeps, probs, offsets, monotone, one_throw, fresh, CW, DW,
    overrides, out, FT, pbust, cap, anchors, keep,
):  # fmt: skip
    """Solve every cycle whose score sum lies in [s_low, s_high], high sums first.

    W has shape (seats, goal^n, n); CW (goal, goal + width, n) and DW (goal, goal + width) are the warm
    turn rows kept between calls (width: the totals past the goal a sweep may cover, 0 first to the
    goal). ``fresh``: W holds no earlier estimate at these sums, so each cycle's first
    guess is extrapolated from the sums above. Writes the largest change of any value to out[0], the
    largest cycle residual to out[1], the number of cycles to out[2], of turn sweeps to out[3], the
    largest regret of a cycle left unsettled to out[4] and the number of unsettled cycles to out[5].
    Overrides (see ``_solve_cycle``) are appended to ``overrides`` from row out[6] on, and out[6]
    counts them (beyond the array's rows they are counted, not written). out[7] receives the largest
    truncation of a stop past the goal, out[8] 1 if a stop, or a throw from below it, reached the end of
    the banked table FT,
    out[9] the number of cycles whose equilibrium mixes, out[10] the most a mover of one, or of a cycle
    whose choices were kept from the pass before (``anchors``, see ``_solve_cycle``), could gain by another
    plan, and out[11] the number of cycles whose choices were kept.
    """
    powers = np.empty(n + 1, dtype=np.int64)
    powers[0] = 1
    for q in range(1, n + 1):
        powers[q] = powers[q - 1] * goal
    n_choices = offsets.shape[0] - 1
    a = np.empty(n, dtype=np.int64)
    act = np.empty(CW.shape[1], dtype=np.int64)
    rolls = np.empty((0, 0))
    bounds = np.empty(4)
    opt_c = np.empty(n_choices + 1)
    opt_d = np.empty(n_choices + 1)
    acc = np.empty(n)
    idxs = np.empty(n, dtype=np.int64)
    bases = np.empty(n, dtype=np.int64)
    need = np.empty(n, dtype=np.bool_)
    M = np.zeros((6, n, n))
    F = np.zeros((16, n))
    PL = np.zeros((n, max(WIDE_PLANS), n + PLAN_EXTRA))
    count = np.zeros(n, dtype=np.int64)
    seg = np.zeros(n, dtype=np.int64)
    res = np.zeros(9)
    res[3] = out[6]
    seats = W.shape[0]
    truncation = 0.0
    at_end = 0.0
    top_power = powers[n - 1]
    change = 0.0
    residual = 0.0
    regret = 0.0
    unsettled = 0
    mixed = 0
    mix_regret = 0.0
    kept = 0
    cycles = 0
    swept = 0
    for s in range(s_high, s_low - 1, -1):
        if s > n * (goal - 1):
            continue
        first_tuple(a, s, n, goal, 0)
        while True:
            # a is solved with its cycle if its flat index is the smallest of its rotations
            period = cycle_period(a, n, goal, top_power)
            canonical = period > 0
            # with a seat axis the rotations of a with seats s0, s0 + period, ... form one cycle
            for s0 in range(period if seats > 1 else 1):
                if not canonical:
                    break
                cycles += 1
                swept += _solve_cycle(W, a, period, s0, n, goal, powers, fresh,
                                      kinds, amounts, keeps, probs, offsets, monotone, one_throw,
                                      CW, DW, act, rolls, bounds, opt_c, opt_d, acc, idxs, bases, need,
                                      M, F, PL, count, seg, overrides, res, FT, pbust, cap, anchors,
                                      keep)  # fmt: skip
                change = max(change, res[0])
                residual = max(residual, res[1])
                truncation = max(truncation, res[4])
                at_end = max(at_end, res[5])
                if res[2] > 0.0:
                    unsettled += 1
                    regret = max(regret, res[2])
                if res[6] > 0.0:
                    mixed += 1
                kept += int(res[8])
                mix_regret = max(mix_regret, res[7])
            if not next_tuple(a, n, goal):
                break
    out[0] = change
    out[1] = residual
    out[2] = cycles
    out[3] = swept
    out[4] = regret
    out[5] = unsettled
    out[6] = res[3]
    out[7] = truncation
    out[8] = at_end
    out[9] = mixed
    out[10] = mix_regret
    out[11] = kept


@njit(cache=True)
def turn_rows(  # pragma: no cover - numba
    W,
    seat,
    idx,
    a0,
    goal,
    n,
    decide,
    kinds,
    amounts,
    keeps,
    probs,
    offsets,
    monotone,
    one_throw,
    FT,
    pbust,
    cap,
    min_top,
):
    """Return the mover's turn at the state ``idx`` (mover score a0), every turn total before the mover
    holds for sure: k < goal - a0 first to the goal, up to the stop past the goal with a final round.

    ``decide``: the x the mover's choices are made at (nan: their own entry of the state their turn
    falls back to, as everywhere but the solver's overrides). Returns (win[k, r] the win vector at k,
    act[k], hold[k] and rolls[c, k] the mover's value of holding and of each roll choice); Hog has
    k = 0 only and no hold (its hold row is nan).
    """
    n_choices = offsets.shape[0] - 1
    top_power = 1
    for _ in range(n - 1):
        top_power *= goal
    rest = idx - a0 * top_power
    base = rest * goal
    seat_next = (seat + 1) % W.shape[0]
    x = W[seat_next, base + a0, n - 1]
    if np.isnan(decide):
        decide = x
    size = max(goal + FT.shape[1] + 1 if FT.shape[0] > 0 else goal, min_top)
    C = np.zeros((size, n))
    d = np.zeros(size)
    act = np.zeros(size, dtype=np.int64)
    rolls = np.empty((n_choices, size))
    bounds = np.empty(4)
    opt_c = np.empty(n_choices + 1)
    opt_d = np.empty(n_choices + 1)
    acc = np.empty(n)
    top = _sweep(W, seat, seat_next, base, rest, a0, goal, n, decide, x,
                 kinds, amounts, keeps, probs, offsets, monotone, one_throw,
                 C, d, act, rolls, bounds, opt_c, opt_d, acc, FT, pbust, cap, min_top)  # fmt: skip
    win = np.empty((top, n))
    hold = np.empty(top)
    for k in range(top):
        for r in range(n):
            win[k, r] = C[k, r] + d[k] * W[seat_next, base + a0, r - 1 if r > 0 else n - 1]
        if one_throw:
            hold[k] = np.nan
        elif k == 0:
            hold[k] = x
        elif a0 + k >= goal:
            hold[k] = banked_share(FT, goal, a0 + k, rest, seat, 0)
        else:
            hold[k] = W[seat_next, base + a0 + k, n - 1]
    return win, act[:top].copy(), hold, rolls[:, :top].copy()
