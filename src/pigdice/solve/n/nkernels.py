"""Numba kernels of the exact n-player solver (first to the goal wins), for any number of players.

A turn-start state is the players' banked scores in turn order, the mover first, (a_0, ..., a_{n-1}),
every score below the goal, stored at the flat index sum_r a_r goal^(n-1-r) (mixed radix, so one
kernel serves any n). Its value is a vector: W[seat, index, r] is the win probability of the player
r places after the mover. The seat axis has size 1 here (first-to-goal values do not depend on the
mover's seat); it is threaded through so that an "equal turns" solver can give it size n.
Compact values keep n - 1 entries a state (``share``: the mover's own is 1 minus the others'), a
quarter less memory at 4 players; every kernel reads and writes W through ``share`` and ``put``.

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

from pigdice.solve.n.mixing import MAX_PLANS, WIDE_PLANS, cycle_vectors, find_mixed
from pigdice.solve.n.ntuples import cycle_period, first_tuple, next_tuple
from pigdice.solve.n.rows import FIRST_TO_GOAL, CycleResult, LevelStats, Mover, Sweep, TurnRows
from pigdice.solve.positions import INDIFFERENCE, TRUNCATION_ERROR
from pigdice.solve.prefetch import LINE, prefetch
from pigdice.solve.step import WITHOUT_REFCOUNTS, effect_step

__all__ = ["FIRST_TO_GOAL"]

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
# plans for a mixed equilibrium are built for x this far around the range policy iteration visited,
# and if none is found there, this much further
MIX_PADS = (1e-9, 0.02)


@njit(cache=True, inline="always")
def banked_cell(game, seat, rest):  # pragma: no cover - numba
    """Return the cell of the banked table FT[0, e, cell, r] of a mover in seat ``seat`` with the others at flat
    index ``rest`` (``game.layout``: ``rows.banked_layout``)."""
    spare = game.layout[seat, 1]
    if spare == 1:
        return game.layout[seat, 0] + rest
    return game.layout[seat, 0] + rest // spare


@njit(cache=True, inline="always")
def banked_share(game, total, rest, seat, r):  # pragma: no cover - numba
    """Return the win probability of the player r places after a mover who banks ``total`` >= goal.

    ``rest`` is the flat index of the others' scores (a_1, ..., a_{n-1}) in turn order and ``seat``
    the mover's seat. First to the goal (no banked table): the mover wins. Otherwise the others play
    their last turns: FT[0, total - goal, cell, r] (FT = game.banked, ``pigdice.solve.n.finalturns``;
    the cell as ``banked_cell`` finds it); totals past the table read its last column
    (``solve_players`` makes the table long enough for that to move nothing by more than its stated
    truncation).
    """
    FT = game.banked
    if FT.shape[0] == 0:
        return 1.0 if r == 0 else 0.0
    e = total - game.goal
    if e >= FT.shape[1]:
        e = FT.shape[1] - 1
    return FT[0, e, banked_cell(game, seat, rest), r]


@njit(cache=True)
def banked_vector(game, total, rest, seat):  # pragma: no cover - numba
    """Return the win vector (mover first) of a mover who banks ``total`` >= goal (``banked_share``)."""
    out = np.empty(game.players)
    for r in range(game.players):
        out[r] = banked_share(game, total, rest, seat, r)
    return out


@njit(cache=True, inline="always")
def share(W, n, seat, idx, r):  # pragma: no cover - numba
    """Return entry r of the win vector W[seat, idx]: stored, or in compact values (n - 1 entries a state,
    ``compact_shares``) entry 0, the mover's, is 1 minus the others' (a vector sums to 1) and entry r
    is stored at r - 1."""
    if W.shape[2] == n:
        return W[seat, idx, r]
    if r > 0:
        return W[seat, idx, r - 1]
    others = 0.0
    for j in range(n - 1):
        others += W[seat, idx, j]
    return 1.0 - others


@njit(cache=True, inline="always")
def put(W, n, seat, idx, r, v):  # pragma: no cover - numba
    """Write entry r of the win vector W[seat, idx] (in compact values entry 0 is not kept: ``share``)."""
    if W.shape[2] == n:
        W[seat, idx, r] = v
    elif r > 0:
        W[seat, idx, r - 1] = v


@njit(cache=True, inline="always")
def _mover(W, goal, seat, rest, a0):  # pragma: no cover - numba
    """Return the ``Mover`` of a turn from seat ``seat`` with score a0, the others' scores at flat index ``rest``."""
    return Mover(seat, (seat + 1) % W.shape[0], rest, rest * goal, a0)


@njit(cache=True, inline="always")
def _landed(game, W, mover, score, r):  # pragma: no cover - numba
    """Return entry r of the win vector of a mover whose turn ends on ``score`` (not their old score):
    banked at or past the goal (``banked_share``), else the next mover's entry r - 1 at the new scores."""
    if score >= game.goal:
        return banked_share(game, score, mover.rest, mover.seat, r)
    n = game.players
    return share(W, n, mover.next_seat, mover.base + score, r - 1 if r > 0 else n - 1)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def over_goal_top(game, mover, x):  # pragma: no cover - numba
    """Return (top, hi, truncation, at_end): the mover's sweep length goal - a0, plus the totals past the goal
    they may roll on at, and how that stop was found.

    Banking T >= goal is worth 1 - loss(T) to the mover (the others' last turns); rolling on is worth at
    most 1 - pbust + pbust x (a bust falls back to x). So holding is provably best from the first T
    with loss(T) <= pbust (1 - x), or, where that is below TRUNCATION_ERROR, holding there is off by at
    most loss(T). ``truncation`` is that error where the stop is not proved (0 where it is), ``at_end``
    says the stop lies at the table's last column (a longer table may move it), and ``hi`` is the
    largest x for which the stop stays proved (inf: any). ``game.cap`` > 0 makes the mover hold at
    totals >= cap (the tests' capped game: exact for it, so no truncation is counted).
    """
    seat, rest, a0 = mover.seat, mover.rest, mover.score
    FT = game.banked
    goal = game.goal
    if FT.shape[0] == 0:
        return goal - a0, np.inf, 0.0, False
    pbust = game.pbust
    cell = banked_cell(game, seat, rest)
    threshold = max(pbust * (1.0 - x), TRUNCATION_ERROR)
    e = 0
    width = FT.shape[1]
    while e < width - 1 and 1.0 - FT[0, e, cell, 0] > threshold:
        e += 1
    if game.cap > 0 and goal + e >= game.cap:
        return game.cap - a0, np.inf, 0.0, False
    loss = 1.0 - FT[0, e, cell, 0]
    truncation = 0.0
    hi = np.inf
    if loss > pbust * (1.0 - x):
        truncation = loss
    elif pbust > 0.0:
        hi = 1.0 - loss / pbust
    return goal - a0 + e, hi, truncation, e == width - 1 and loss > threshold


@njit(cache=True, inline="always")
def _reach(game, total):  # pragma: no cover - numba
    """Return a bound on the largest total one throw can take a mover standing on ``total`` to."""
    far = total + game.largest_amount
    if game.doubles:
        far = max(far, 2 * total)
    return far


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _sweep_adds(game, W, mover, x, rows):  # pragma: no cover - numba
    """``_sweep`` of a cycle member's turn first to the goal with one roll choice whose throws only add to the
    turn total or bust it (Pig): the same rows and interval, bit for bit (the same sums in the same order),
    the two options held in registers rather than tested effect by effect as the general sweep does.

    Each throw's step (``effect_step``: k + its amount, or a bust) is read from game.jumps rather than
    branched on by kind per total, and a rolling total sums each entry of its row in a register (one pass
    over the throws per entry: the same order per sum); 11% less CPU for 4 players to 40, measured."""
    jumps, probs = game.jumps, game.table.probabilities
    C, d, act = rows.C, rows.d, rows.act
    n = game.players
    landing = mover.base + mover.score  # the flat index the mover lands on with turn total 0 (plus k)
    seat = mover.next_seat
    top = game.goal - mover.score
    effects = jumps.shape[0]
    lo = -np.inf
    hi = np.inf
    for k in range(top - 1, -1, -1):
        hc = 0.0 if k == 0 else share(W, n, seat, landing + k, n - 1)
        hd = 1.0 if k == 0 else 0.0
        rc = 0.0
        rd = 0.0
        for e in range(effects):
            p = probs[e]
            jump = jumps[e]
            if jump < 0:  # a bust
                rd += p
            elif k + jump < top:
                rc += p * C[k + jump, 0]
                rd += p * d[k + jump]
            else:  # banks the goal: the mover wins
                rc += p
        # the tie-break, as ``_sweep``: at k = 0 rolling stands unless passing is better, else holding
        if k == 0:
            a = hc - rc - INDIFFERENCE
            s = hd - rd
        else:
            a = rc - hc - INDIFFERENCE
            s = rd - hd
        better = a + s * x > 0.0
        if s != 0.0:
            edge = -a / s
            if better == (s > 0.0):
                lo = max(lo, edge)
            else:
                hi = min(hi, edge)
        if better != (k == 0):  # rolls
            for r in range(1, n):
                acc = 0.0
                for e in range(effects):
                    jump = jumps[e]
                    if jump >= 0 and k + jump < top:  # a win adds 0 to the others
                        acc += probs[e] * C[k + jump, r]
                C[k, r] = acc
            C[k, 0] = rc
            d[k] = rd
            act[k] = 1
        else:
            for r in range(1, n):
                C[k, r] = 0.0 if k == 0 else share(W, n, seat, landing + k, r - 1)
            C[k, 0] = hc
            d[k] = hd
            act[k] = 0
    return Sweep(top, lo, hi, 0.0, False)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _sweep(game, W, mover, x, xv, rows, min_top):  # pragma: no cover - numba
    """Solve one turn of the mover (``_mover``: score a0, seat) given x, their own entry of the cycle's next state.

    Fills rows.C[k, r], rows.d[k] (P_k = C_k + d_k R w'; C[k, 0] + d[k] x is the mover's value) and
    rows.act[k] (0 hold, c + 1 roll with choice c) for every turn total k < goal - a0 (Hog: k = 0 only);
    every state the turn can reach lies in W[next seat, base + s2]. The mover picks by the tie-break of
    ``positions``: at k = 0 (and in Hog) rolling with the fewest dice, else holding, unless another
    option is better by more than INDIFFERENCE, options taken in order. With a final round (a banked
    table) the turn goes on past the goal up to the stop of ``over_goal_top`` (holding there banks the
    table's vector); the sweep covers at least ``min_top`` totals (action values past the stop, for
    hints). If ``rows.rolls`` has a row per choice, the mover's value of every roll choice is recorded
    there, at xv (the true x where the choices are made at another one, see ``turn_rows``). Returns the
    ``Sweep``: the totals swept (the mover holds at every total from there), the interval of x over
    which every comparison comes out the same, and how the stop past the goal was found.

    Each effect is one ``effect_step``; where it leads: the turn goes on at a new total (C, d); the turn
    ends with nothing banked (the cycle: d); or the mover lands on a new score (``_landed``).
    """
    t = game.table
    kinds, amounts, keeps, probs, offsets = t.kinds, t.amounts, t.keeps, t.probabilities, t.offsets
    C, d, act, rolls, opt_c, opt_d, acc = rows.C, rows.d, rows.act, rows.rolls, rows.opt_c, rows.opt_d, rows.acc
    if game.adds_only and min_top == 0 and rolls.shape[0] == 0 and offsets.shape[0] == 2:
        return _sweep_adds(game, W, mover, x, rows)
    seat, rest, a0 = mover.seat, mover.rest, mover.score
    goal, n, one_throw = game.goal, game.players, game.one_throw
    if one_throw:
        top, stop_hi, truncation, at_end = 1, np.inf, 0.0, False
    else:
        top, stop_hi, truncation, at_end = over_goal_top(game, mover, x)
    if game.banked.shape[0] > 0 and _reach(game, a0 + top - 1) >= goal + game.banked.shape[1]:
        at_end = True  # a throw from the turn could land past the banked table: a longer one is needed
    if min_top > top:
        top = min(min_top, C.shape[0])
    n_choices = offsets.shape[0] - 1
    n_scan = n_choices if one_throw else n_choices + 1  # options: 0 holds (passes at k = 0); Hog has none
    record = rolls.shape[0] == n_choices
    single = t.monotone or one_throw
    sweeps = 0
    while True:
        sweeps += 1
        change = 0.0
        lo = -np.inf
        hi = stop_hi
        for k in range(top - 1, -1, -1):
            # the mover's value of every option: opt_c[o] + opt_d[o] * x
            opt_c[0] = 0.0 if k == 0 else _landed(game, W, mover, a0 + k, 0)
            opt_d[0] = 1.0 if k == 0 else 0.0
            for ch in range(n_choices):
                rc = 0.0
                rd = 0.0
                for e in range(offsets[ch], offsets[ch + 1]):
                    p = probs[e]
                    score, total, ends = effect_step(kinds[e], amounts[e], keeps[e], a0, k)
                    if not (ends or one_throw):  # the turn goes on, or reaches the stop: the mover holds
                        if total < top:
                            rc += p * C[total, 0]
                            rd += p * d[total]
                        else:
                            rc += p * banked_share(game, a0 + total, rest, seat, 0)
                    elif score + total == a0:  # nothing banked (a single throw banks its total)
                        rd += p
                    else:
                        rc += p * _landed(game, W, mover, score + total, 0)
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
                if k > 0:
                    for r in range(1, n):
                        acc[r] = _landed(game, W, mover, a0 + k, r)
            else:
                for e in range(offsets[b - 1], offsets[b]):
                    p = probs[e]
                    score, total, ends = effect_step(kinds[e], amounts[e], keeps[e], a0, k)
                    if not (ends or one_throw):
                        if total < top:
                            for r in range(1, n):
                                acc[r] += p * C[total, r]
                        else:
                            for r in range(1, n):
                                acc[r] += p * banked_share(game, a0 + total, rest, seat, r)
                    elif score + total != a0:
                        for r in range(1, n):
                            acc[r] += p * _landed(game, W, mover, score + total, r)
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
            return Sweep(top, lo, hi, truncation, at_end)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _guess(W, seat, target, digits, m, n, goal, powers):  # pragma: no cover - numba
    """Return a first guess of W[seat, target, n - 1] (target: member m + 1 of the cycle of ``digits``)
    from solved states one and two points higher in one score (the last player's, where it fits)."""
    for q in range(n - 1, -1, -1):
        j = m + 1 + q
        if digits[j - n if j >= n else j] + 2 < goal:
            step = powers[n - 1 - q]
            g = 2.0 * share(W, n, seat, target + step, n - 1) - share(W, n, seat, target + 2 * step, n - 1)
            return min(max(g, 0.0), 1.0)
    for q in range(n - 1, -1, -1):
        j = m + 1 + q
        if digits[j - n if j >= n else j] + 1 < goal:
            return share(W, n, seat, target + powers[n - 1 - q], n - 1)
    return 1.0 / n


@njit(cache=True, inline="always")
def _member_turn(game, W, a, m, s0, work):  # pragma: no cover - numba
    """Return the mover of cycle member m (seat s0 + m) and its turn rows: the warm rows of its score."""
    a0 = a[m]
    mover = _mover(W, game.goal, (s0 + m) % W.shape[0], work.bases[m] // game.goal, a0)
    rows = TurnRows(work.warm_C[a0], work.warm_d[a0], work.act, work.rolls, work.opt_c, work.opt_d, work.profile.acc)
    return mover, rows


@njit(cache=True, **WITHOUT_REFCOUNTS)
def member_plans(game, W, a, m, s0, work, x_low, x_high, max_plans):  # pragma: no cover - numba
    """Write member m's plans for x in [x_low, x_high] into work.plans (plan i at [m, i]); return how many.

    work.bases[m] must hold the member's base (``_start_cycle``). The plans are the member's turn sweeps
    from x_low up, each swept just past the breakpoint of the one before (up to ``max_plans``; a plan
    whose choices are the same as the one before, only its stop past the goal moved, extends it).
    """
    n = game.players
    plans = work.plans
    one_step = game.table.monotone or game.one_throw
    act, prev = work.act, work.prev
    x = x_low
    c = 0
    prev_top = 0
    mover, rows = _member_turn(game, W, a, m, s0, work)
    while c < max_plans:
        found = _sweep(game, W, mover, x, x, rows, 0)
        top = found.top
        differ = 0
        for k in range(max(top, prev_top)):
            if (act[k] if k < top else 0) != (prev[k] if k < prev_top else 0):
                differ += 1
        same = c > 0 and rows.d[0] == plans.d[m, c - 1]
        for r in range(n):
            same = same and rows.C[0, r] == plans.C[m, c - 1, r]
        if c > 0 and (differ == 0 or same):  # the same plan (its stop moved, or a total it never reaches)
            plans.hi[m, c - 1] = found.hi
            plans.x_last[m, c - 1] = x
        else:
            for r in range(n):
                plans.C[m, c, r] = rows.C[0, r]
            plans.d[m, c] = rows.d[0]
            plans.lo[m, c] = found.lo
            plans.hi[m, c] = found.hi
            plans.x_first[m, c] = x
            plans.x_last[m, c] = x
            plans.mixable[m, c] = False
            if c > 0 and (differ == 1 or not one_step):
                plans.mixable[m, c - 1] = True
            c += 1
        for k in range(top):
            prev[k] = act[k]
        prev_top = top
        edge = found.hi
        if not edge < x_high:
            break
        x = edge + max(1e-13, 1e-12 * abs(edge))
    return c


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _mix_cycle(game, W, a, L, s0, work, pad, max_plans):  # pragma: no cover - numba
    """Search the cycle for a mixed equilibrium (``pigdice.solve.n.mixing``); return its number of mixing
    members, -1 if none is found.

    Member m's plans are its turn sweeps for x in [xmin[m] - pad, xmax[m] + pad] (``member_plans``).
    Neighbours that differ at one turn total may be mixed (any neighbours where the turn total can
    fall: the mixture is then drawn once per turn, see ``pigdice.solve.n.mixing``); work.plans and
    work.profile receive what ``find_mixed`` writes.
    """
    for m in range(L):
        work.plans.kept[m] = member_plans(game, W, a, m, s0, work, work.xmin[m] - pad, work.xmax[m] + pad, max_plans)
    return find_mixed(work.plans, work.profile, L, game.players)


@njit(cache=True, inline="always")
def _override(overrides, row, state, x, x_mixed, chance):  # pragma: no cover - numba
    """Write one override into row ``row`` if the array has it (beyond its rows they are counted, not written)."""
    if row < overrides.state.shape[0]:
        overrides.state[row] = state
        overrides.x[row] = x
        overrides.x_mixed[row] = x_mixed
        overrides.chance[row] = chance


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _pure_overrides(overrides, row, work, choices, L, s0, seats):  # pragma: no cover - numba
    """Write from ``row`` on an override for each member whose x (from the cycle's vectors) lies outside the
    interval [lo, hi] of the pure ``choices`` it plays, made at choices.x; return how many."""
    n = work.old.shape[1]
    ws = work.profile.ws
    written = 0
    for m in range(L):
        x = ws[m + 1 if m + 1 < L else 0, n - 1]
        if not (choices.lo[m] - BOUNDS_SLACK <= x <= choices.hi[m] + BOUNDS_SLACK):
            state = ((s0 + m) % seats) * work.powers[n] + work.idxs[m]
            _override(overrides, row + written, state, choices.x[m], choices.x[m], 0.0)
            written += 1
    return written


@njit(cache=True, inline="always")
def place_member(a, m, n, goal, work):  # pragma: no cover - numba
    """Write member m's flat index (the scores read from seat m round the cycle ``a``) and its base row."""
    idx = 0
    for q in range(n):
        j = m + q
        idx = idx * goal + a[j - n if j >= n else j]
    work.idxs[m] = idx
    work.bases[m] = (idx - a[m] * work.powers[n - 1]) * goal


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _start_cycle(game, W, a, L, s0, fresh, work):  # pragma: no cover - numba
    """Write each member's flat index, base, first x (a guess from the sums above where ``fresh``) and old vector."""
    n, goal = game.players, game.goal
    seats = W.shape[0]
    for m in range(L):
        place_member(a, m, n, goal, work)
    for m in range(L):
        target = work.bases[m] + a[m]
        nseat = (s0 + m + 1) % seats
        if fresh:
            work.xs[m] = _guess(W, nseat, target, a, m, n, goal, work.powers)
        else:
            work.xs[m] = share(W, n, nseat, target, n - 1)
        work.xmin[m] = work.xs[m]
        work.xmax[m] = work.xs[m]
        work.first[m] = work.xs[m]
        work.need[m] = True
        for r in range(n):
            work.old[m, r] = share(W, n, (s0 + m) % seats, work.idxs[m], r)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _solve_cycle(game, W, a, period, s0, fresh, work, overrides, written, anchors, keep):  # pragma: no cover - numba
    """Solve the cycle of the score tuple ``a`` (its ``period`` distinct rotations) by policy iteration.

    Member m is the rotation (a_m, ..., a_{m-1}) at flat index work.idxs[m]; its turn falls back to
    member m + 1 (mod period). With a seat axis (equal turns, W.shape[0] = n) member m moves from seat
    s0 + m (mod n) and the cycle has n members (the seat comes back after n turns, the scores
    after ``period``). work.warm_C[s], work.warm_d[s] keep the last turn swept with mover score s (a
    warm start for turns that sweep more than once); the rest of ``work`` is scratch.

    Rounds: every member whose x left the interval of its choices re-chooses (sweeps its turn at
    the new x); then the cycle's equations are solved with everyone's choices. After
    SIMULTANEOUS_ROUNDS rounds only one member re-chooses per round (round robin). If no round
    settles (with 3+ players some cycles have no consistent deterministic choices at all), a mixed
    equilibrium is searched for (``_mix_cycle``); if none is found, the evaluated profile of choices
    with the smallest regret (the most a mover could gain at the start of their turn by re-choosing)
    is kept. Every member whose play is not the sweep at its own x is written to ``overrides`` from row
    ``written`` on: the mover plays the sweep at x_mixed with chance ``chance``, else the sweep at x.

    ``anchors`` (empty without resets): where a member's last pass settled on pure choices, an x
    inside their interval (else nan), and how often the member left them for a gain below KEEP_GAIN
    (counted where ``keep``: the passes have nearly settled). A pass that is not ``fresh`` sweeps such
    a member there first, and if the cycle's x then leaves some member's interval, but a member has
    left them FLIPS_TO_KEEP times before and re-choosing gains no mover more than KEEP_GAIN, the
    choices are kept (an override at the anchor).

    Writes the members' vectors into W and returns the ``CycleResult``.
    """
    n = game.players
    seats = W.shape[0]
    last = n - 1
    L = n if seats > 1 else period
    idxs, need, xs, first, xmin, xmax = work.idxs, work.need, work.xs, work.first, work.xmin, work.xmax
    chosen, new, best = work.chosen, work.swept, work.best
    ws = work.profile.ws
    # the arrays of the bundles, bound once: numba counts a reference at every read of a bundle's field
    new_C, new_D, new_lo, new_hi = new.C, new.D, new.lo, new.hi
    chosen_C, chosen_D, chosen_lo, chosen_hi, chosen_x = chosen.C, chosen.D, chosen.lo, chosen.hi, chosen.x
    best_C, best_D, best_lo, best_hi, best_x, best_ws = best.C, best.D, best.lo, best.hi, best.x, work.best_ws
    _start_cycle(game, W, a, L, s0, fresh, work)
    anchored = anchors.x.shape[0] > 0 and not fresh
    keep_limit = -1.0  # re-choose as usual, unless the cycle has flipped (below)
    if anchored:
        for m in range(L):
            anchor = anchors.x[(s0 + m) % seats, idxs[m]]
            if not np.isnan(anchor):
                first[m] = anchor
                if keep and anchors.flips[(s0 + m) % seats, idxs[m]] >= FLIPS_TO_KEEP:
                    keep_limit = KEEP_GAIN
    truncation = 0.0
    at_end = False
    swept = 0
    turn = 0  # in sequential rounds, the member whose turn it is to re-choose first
    best_regret = np.inf
    settled = False
    kept = False
    regret = 0.0
    for rounds in range(MAX_CYCLE_ROUNDS + 1):
        sequential = rounds >= SIMULTANEOUS_ROUNDS
        chosen_member = -1
        if sequential:  # one member re-chooses: the first out of its interval from ``turn`` on
            for step in range(L):
                m = turn + step
                if m >= L:
                    m -= L
                if need[m]:
                    chosen_member = m
                    break
            turn = chosen_member + 1 if chosen_member + 1 < L else 0
        # sweep every member out of its interval: their new choices, and what re-choosing gains them
        regret = 0.0
        for m in range(L):
            if not need[m]:
                continue
            swept += 1
            at = first[m] if rounds == 0 else xs[m]
            mover, rows = _member_turn(game, W, a, m, s0, work)
            found = _sweep(game, W, mover, at, at, rows, 0)
            truncation = max(truncation, found.truncation)
            at_end = at_end or found.at_end
            for r in range(n):
                new_C[m, r] = rows.C[0, r]
            new_D[m] = rows.d[0]
            new_lo[m] = found.lo
            new_hi[m] = found.hi
            if rounds > 0:
                gain = new_C[m, 0] + new_D[m] * xs[m] - (chosen_C[m, 0] + chosen_D[m] * xs[m])
                regret = max(regret, gain)
        if rounds > 0 and regret < best_regret:  # the profile solved last round is the best so far
            best_regret = regret
            for m in range(L):
                for r in range(n):
                    best_C[m, r] = chosen_C[m, r]
                    best_ws[m, r] = ws[m, r]
                best_D[m] = chosen_D[m]
                best_x[m] = chosen_x[m]
                best_lo[m] = chosen_lo[m]
                best_hi[m] = chosen_hi[m]
        if anchored and rounds == 1:  # are last pass's choices still (nearly) best?
            if regret <= keep_limit:
                settled = True
                kept = True
                break
            # left for a small gain (above the tie-break's): a flip, if it comes back next pass
            if keep and INDIFFERENCE < regret <= KEEP_GAIN:
                for m in range(L):
                    if need[m]:
                        anchors.flips[(s0 + m) % seats, idxs[m]] += 1.0
        if rounds == MAX_CYCLE_ROUNDS:
            break
        for m in range(L):
            if need[m] and (not sequential or m == chosen_member):
                for r in range(n):
                    chosen_C[m, r] = new_C[m, r]
                chosen_D[m] = new_D[m]
                chosen_lo[m] = new_lo[m]
                chosen_hi[m] = new_hi[m]
                chosen_x[m] = first[m] if rounds == 0 else xs[m]
        cycle_vectors(chosen_C, chosen_D, L, n, ws, work.profile.acc)
        stable = True
        moved = 0.0
        for m in range(L):
            xn = ws[m + 1 if m + 1 < L else 0, last]
            need[m] = not (chosen_lo[m] - BOUNDS_SLACK <= xn <= chosen_hi[m] + BOUNDS_SLACK)
            if need[m]:
                stable = False
            moved = max(moved, abs(xn - xs[m]))
            xs[m] = xn
            xmin[m] = min(xmin[m], xn)
            xmax[m] = max(xmax[m], xn)
        if stable or moved <= STILL:
            settled = True
            break
    added = 0
    mixing = -1
    mix_gain = 0.0
    if not settled:
        for pad in MIX_PADS:
            mixing = _mix_cycle(game, W, a, L, s0, work, pad, MAX_PLANS)
            if mixing >= 0:
                break
        if mixing < 0:
            mixing = _mix_cycle(game, W, a, L, s0, work, MIX_PADS[0], WIDE_PLANS[min(L, len(WIDE_PLANS) - 1)])
    if mixing >= 0:  # chosen_C, chosen_D and ws hold the mixed profile
        settled = True
        plans, seg = work.plans, work.profile.seg
        for m in range(L):
            x = ws[m + 1 if m + 1 < L else 0, last]
            i = seg[m] // 2
            mixes = seg[m] % 2 == 1
            if mixes or not (plans.lo[m, i] < x < plans.hi[m, i]):
                state = ((s0 + m) % seats) * work.powers[n] + idxs[m]
                x_mixed = plans.x_first[m, i + 1] if mixes else plans.x_last[m, i]
                chance = work.profile.q[m] if mixes else 0.0
                _override(overrides, written + added, state, plans.x_last[m, i], x_mixed, chance)
                added += 1
            # what another plan would gain the mover (the sweep at their x is a best one)
            swept += 1
            mover, rows = _member_turn(game, W, a, m, s0, work)
            found = _sweep(game, W, mover, x, x, rows, 0)
            truncation = max(truncation, found.truncation)
            at_end = at_end or found.at_end
            gain = rows.C[0, 0] + rows.d[0] * x - (chosen_C[m, 0] + chosen_D[m] * x)
            mix_gain = max(mix_gain, gain)
    elif not settled:  # keep the profile with the smallest regret; play follows its choices
        for m in range(L):
            for r in range(n):
                chosen_C[m, r] = best_C[m, r]
                ws[m, r] = best_ws[m, r]
            chosen_D[m] = best_D[m]
        added += _pure_overrides(overrides, written + added, work, best, L, s0, seats)
    if kept:  # last pass's choices stand; a member whose x left their interval plays them by override
        mix_gain = max(regret, 0.0)
        added += _pure_overrides(overrides, written + added, work, chosen, L, s0, seats)
    if anchors.x.shape[0] > 0:  # where next pass sweeps first: inside the interval of pure choices
        for m in range(L):
            anchor = np.nan
            if settled and mixing < 0:
                low = max(chosen_lo[m], 0.0)
                high = min(chosen_hi[m], 1.0)
                anchor = 0.5 * (low + high) if low <= high else chosen_x[m]
            anchors.x[(s0 + m) % seats, idxs[m]] = anchor
    change = 0.0
    residual = 0.0
    for m in range(L):
        nxt = m + 1 if m + 1 < L else 0
        for r in range(n):
            v = ws[m, r]
            residual = max(residual, abs(chosen_C[m, r] + chosen_D[m] * ws[nxt, r - 1 if r > 0 else last] - v))
            change = max(change, abs(v - work.old[m, r]))
            put(W, n, (s0 + m) % seats, idxs[m], r, v)
    return CycleResult(swept, change, residual, 0.0 if settled else best_regret, added, truncation, at_end,
                       mixing >= 0, mix_gain, kept)  # fmt: skip


@njit(cache=True, inline="always")
def _standing(a, n, goal, top_power, first_lo, first_hi, after):  # pragma: no cover - numba
    """Advance ``a`` (past itself if ``after``) to the next tuple of its sum that stands for a cycle of the block
    (``solve_block``: its first score in [first_lo, first_hi)); return that cycle's period, 0 if none is left."""
    if after and not next_tuple(a, n, goal):
        return 0
    while a[0] < first_hi:  # tuples come in lexicographic order: none further lies in the block
        # a is solved with its cycle if its flat index is the smallest of its rotations
        period = cycle_period(a, n, goal, top_power) if a[0] >= first_lo else 0
        if period > 0:
            return period
        if not next_tuple(a, n, goal):
            return 0
    return 0


@njit(cache=True, inline="always")
def _prefetch_turns(W, a, n, goal, top_power):  # pragma: no cover - numba
    """Ask for the states the turns of the cycle of ``a`` read (first to the goal, seat 0): each member's
    row of the next mover's states, a line (LINE values) at a time from the top total down."""
    kept = W.shape[2]
    idx = 0
    for q in range(n):
        idx = idx * goal + a[q]
    for m in range(n):
        base = (idx - a[m] * top_power) * goal  # the others' scores after member m, then the mover's
        for entry in range((base + goal) * kept - 1, (base + a[m]) * kept, -LINE):
            prefetch(W, 0, entry)  # type: ignore[call-arg]  # numba's intrinsic takes its typing context itself
        idx = base + a[m]


@njit(cache=True)
def solve_levels(game, W, s_high, s_low, fresh, work, overrides, written, anchors, keep):  # pragma: no cover - numba
    """Solve every cycle whose score sum lies in [s_low, s_high], high sums first; return their ``LevelStats``.

    W has shape (seats, goal^n, n); ``work`` (``rows.cycle_rows``) holds the warm turn rows kept between
    calls. ``fresh``: W holds no earlier estimate at these sums, so each cycle's first guess is
    extrapolated from the sums above. Overrides (see ``_solve_cycle``) are appended to ``overrides``
    from row ``written`` on; the stats' ``written`` counts them all (beyond the array's rows they are
    counted, not written). ``anchors``: see ``_solve_cycle``.
    """
    return solve_block(game, W, s_high, s_low, 0, game.goal, fresh, work, overrides, written, anchors, keep)


@njit(cache=True, nogil=True)
def solve_block(
    game, W, s_high, s_low, first_lo, first_hi, fresh, work, overrides, written, anchors, keep
):  # pragma: no cover - numba
    """Solve the cycles of ``solve_levels`` whose standing tuple's first score lies in [first_lo, first_hi).

    Within one score sum every cycle reads only higher sums and itself, so the blocks of one sum's first
    scores can be solved apart, on threads (``pigdice.solve.n.levels``; the GIL is released) or Dask
    workers (``pigdice.solve.n.distributed``), and give what ``solve_levels`` gives.
    """
    n, goal = game.players, game.goal
    a = np.empty(n, dtype=np.int64)
    b = np.empty(n, dtype=np.int64)
    seats = W.shape[0]
    top_power = work.powers[n - 1]
    change = 0.0
    residual = 0.0
    regret = 0.0
    truncation = 0.0
    mix_gain = 0.0
    at_end = False
    unsettled = 0
    mixed = 0
    kept = 0
    cycles = 0
    swept = 0
    for s in range(s_high, s_low - 1, -1):
        if s > n * (goal - 1):
            continue
        first_tuple(a, s, n, goal, 0)
        period = _standing(a, n, goal, top_power, first_lo, first_hi, False)
        while period > 0:
            # the cycle after this one, its states asked for now: they arrive while this one is solved
            b[:] = a
            after = _standing(b, n, goal, top_power, first_lo, first_hi, True)
            if after > 0:
                _prefetch_turns(W, b, n, goal, top_power)
            # with a seat axis the rotations of a with seats s0, s0 + period, ... form one cycle
            for s0 in range(period if seats > 1 else 1):
                cycles += 1
                found = _solve_cycle(game, W, a, period, s0, fresh, work, overrides, written, anchors, keep)
                swept += found.sweeps
                written += found.written
                change = max(change, found.change)
                residual = max(residual, found.residual)
                truncation = max(truncation, found.truncation)
                at_end = at_end or found.at_end
                if found.regret > 0.0:
                    unsettled += 1
                    regret = max(regret, found.regret)
                if found.mixed:
                    mixed += 1
                kept += 1 if found.kept else 0
                mix_gain = max(mix_gain, found.mix_gain)
            a[:] = b
            period = after
    return LevelStats(change, residual, cycles, swept, regret, unsettled, written, truncation, at_end, mixed,
                      mix_gain, kept)  # fmt: skip


@njit(cache=True)
def turn_rows(game, W, seat, idx, a0, decide, min_top):  # pragma: no cover - numba
    """Return the mover's turn at the state ``idx`` (mover score a0), every turn total before the mover
    holds for sure: k < goal - a0 first to the goal, up to the stop past the goal with a final round.

    ``decide``: the x the mover's choices are made at (nan: their own entry of the state their turn
    falls back to, as everywhere but the solver's overrides). Returns (win[k, r] the win vector at k,
    act[k], hold[k] and rolls[c, k] the mover's value of holding and of each roll choice); Hog has
    k = 0 only and no hold (its hold row is nan).
    """
    n, goal = game.players, game.goal
    n_choices = game.table.offsets.shape[0] - 1
    top_power = 1
    for _ in range(n - 1):
        top_power *= goal
    mover = _mover(W, goal, seat, idx - a0 * top_power, a0)
    next_seat, base = mover.next_seat, mover.base
    x = share(W, n, next_seat, base + a0, n - 1)
    if np.isnan(decide):
        decide = x
    FT = game.banked
    size = max(goal + FT.shape[1] + 1 if FT.shape[0] > 0 else goal, min_top)
    rows = TurnRows(np.zeros((size, n)), np.zeros(size), np.zeros(size, dtype=np.int64), np.empty((n_choices, size)),
                    np.empty(n_choices + 1), np.empty(n_choices + 1), np.empty(n))  # fmt: skip
    top = _sweep(game, W, mover, decide, x, rows, min_top).top
    win = np.empty((top, n))
    hold = np.empty(top)
    for k in range(top):
        for r in range(n):
            win[k, r] = rows.C[k, r] + rows.d[k] * share(W, n, next_seat, base + a0, r - 1 if r > 0 else n - 1)
        if game.one_throw:
            hold[k] = np.nan
        elif k == 0:
            hold[k] = x
        else:
            hold[k] = _landed(game, W, mover, a0 + k, 0)
    return win, rows.act[:top].copy(), hold, rows.rolls[:, :top].copy()
