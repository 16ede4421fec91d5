"""Numba kernels for games with a roll/hold decision (any outcome table, resets included).

The unknowns are the turn-start values V[i, j] = P_{i,j,0} (Neller & Presser 2005, seed 003).
Given V, one turn at (i, j) is a one-player stopping problem over the turn total k, solved by a
backward sweep over k (repeated to a fixed point when an effect can lower or pin k: Pig Dice's
subtract and double, Knizia's set-25). Scores only grow except through resets, so every
dependency of V[i, j] lies at a higher score sum i + j, except busting or passing, which leads
to the partner state V[j, i] at the same sum. We therefore solve sums from high to low and each
pair (i, j), (j, i) exactly: within a turn every value is affine in the partner's value x,
P_k = c_k + d_k x, so the pair is a 2x2 linear system, re-solved until the roll/hold choices
stop changing (policy iteration; usually two rounds). Resets (1-1 in Two-Dice Pig, 6-6 in Piggy
Six) point to V[j, 0] at a lower sum; those values are iterated by repeated passes until a pass
changes nothing by more than the tolerance.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.actions import ROLL_TIE
from pigdice.solve.layout import SWEEP_CHAIN, SWEEP_GENERAL, SWEEP_PLAIN
from pigdice.solve.positions import TRUNCATION_ERROR
from pigdice.solve.tables import KIND_DOUBLE, KIND_SET, KIND_SUBTRACT, EffectTable

INNER_TOLERANCE = 1e-15
MAX_INNER_SWEEPS = 10_000
MAX_PAIR_ROUNDS = 100
NO_FIXED = np.zeros(0, dtype=np.int8)
NO_LAST = np.zeros(0)  # first to the goal: banking the goal wins
# (last-turn table of the mover, of the other side, smallest bust chance, cap): see solve_levels
FIRST_TO_GOAL_ENDS = (NO_LAST, NO_LAST, 0.0, 0)
# A chosen action counts as still optimal this far outside its exact range of partner values:
# choosing between options that tie to within it changes no value by more than twice as much.
BOUNDS_SLACK = 1e-14


@njit(cache=True, inline="always")
def _unpack(t):  # pragma: no cover - numba
    """Return the arrays of an ``EffectTable`` and its monotone flag, for the inner kernels."""
    return t.kinds, t.amounts, t.keeps, t.probabilities, t.offsets, t.monotone


@njit(cache=True)
def _work(t):  # pragma: no cover - numba
    """Return the scratch rows ``_turn_sweep`` needs for ``t``'s choices (allocated once per kernel call)."""
    return np.empty((4, t.offsets.shape[0]))


@njit(cache=True, inline="always")
def _better(value, best, best_action, k):  # pragma: no cover - numba
    """Return True if a roll worth ``value`` beats the best option so far (``best_action`` 0: hold).

    Ties: at k = 0 prefer rolling (a pass that ties never helps), elsewhere holding; between roll
    choices that tie to rounding (e.g. 1 die twice = 2 dice once while the turn would go on
    anyway) prefer fewer dice.
    """
    margin = ROLL_TIE if best_action > 0 else 0.0
    return value > best + margin or (k == 0 and best_action == 0 and value >= best)


@njit(cache=True)
def _turn_sweep(  # pragma: no cover - numba
    i,
    j,
    goal,
    V,
    x,
    t,
    c,
    d,
    act,
    rolls,
    bounds,
    fixed,
    last,
    pbust,
    cap,
    min_top,
    work,
):
    """Solve one turn at (i, j) given the partner guess x = V[j, i]; fill c, d, act; return sweeps.

    V holds the values of the player who moves next (the opponent's turn-start values). If
    ``fixed`` is non-empty it gives the action for every turn total (0 hold, c + 1 roll with
    choice c) and the turn is evaluated, not optimised: the exact head-to-head evaluator uses
    this with each side's own value array.

    P_k = c[k] + d[k] * x. act[k] is 0 for hold and 1 + choice index for a roll. If ``rolls``
    has a row per choice, the last sweep writes each choice's roll value there. ``bounds``
    receives the interval of partner values x for which the chosen actions stay optimal, so
    the pair solver can stop without another round.

    Endings with a last turn (``last`` non-empty, ``pigdice.solve.two.endgame``): banking a total
    T >= goal is worth 1 - last[T - j] (the opponent's last turn, ``pigdice.solve.two.lastturn``),
    and the turn goes on past the goal. Holding is provably optimal at every total from the
    first T with last[T - j] <= pbust * x (rolling wins at most 1 - pbust + pbust (1 - x);
    pbust: the smallest bust chance of any roll choice), so the sweep stops there, or where
    last[T - j] <= TRUNCATION_ERROR; bounds[2] receives last[T - j] there, so the caller can check
    the stop against the solved x. ``cap`` > 0 forces a hold at totals >= cap (tests), and the
    sweep covers at least ``min_top`` turn totals (hints past the stop). bounds[3] receives the
    turn totals swept, bounds[4] the most a read past the end of ``last`` may be off (last[-1]),
    bounds[5] 1 if the stop lies at the end of ``last`` (a longer table would move it).

    The effect arrays are the ``EffectTable``'s,
    unpacked by the public kernels (numba passes a NamedTuple to an inner function slowly: whole
    solves took 1.2-1.7x longer). The effect switch is written out inline: numba runs it ~20x
    slower as a called function.
    """
    kinds, amounts, keeps, probs, offsets, monotone = _unpack(t)
    add_amounts, add_probs, add_offsets = t.add_amounts, t.add_probabilities, t.add_offsets
    bust_probs, reset_probs, other_rows, other_offsets = (
        t.bust_probabilities, t.reset_probabilities, t.other_rows, t.other_offsets)  # fmt: skip
    n_last = last.shape[0]
    stop_value = 0.0
    clamped = 0.0  # a value read past the end of ``last`` is off by at most last[-1]
    at_end = 0.0
    if n_last == 0:
        top = goal - i
    else:
        threshold = max(pbust * x, TRUNCATION_ERROR)
        need = goal - j
        while need < n_last - 1 and last[need] > threshold:
            need += 1
        top = j + need - i
        stop_value = last[need]
        if need == n_last - 1:
            at_end = 1.0
        if cap > 0 and cap - i < top:
            top = cap - i
            stop_value = 0.0  # a forced hold: exact for the capped game
        if min_top > top:
            top = min(min_top, c.shape[0])
    n_choices = offsets.shape[0] - 1
    record = rolls.shape[0] == n_choices
    # option o's value is opt_c[o] + opt_d[o] * x: o = 0 holds, o = c + 1 rolls with choice c
    opt_c = work[0]
    opt_d = work[1]
    # what losing the turn total or the score adds to each choice's roll: the same at every k
    lose_c = work[2]
    lose_d = work[3]
    reset_c = 1.0 if i == 0 else 1.0 - V[j, 0]  # a reset at score 0 is a bust
    reset_d = -1.0 if i == 0 else 0.0
    for ch in range(n_choices):
        lose_c[ch] = bust_probs[ch] + reset_probs[ch] * reset_c
        lose_d[ch] = -bust_probs[ch] + reset_probs[ch] * reset_d
    use_fixed = fixed.shape[0] > 0
    sweeps = 0
    while True:
        sweeps += 1
        change = 0.0
        lo = -1e300
        hi = 1e300
        for k in range(top - 1, -1, -1):
            if k == 0:
                best_c = 1.0  # holding (passing) at k = 0 hands the partner state V[j, i] over
                best_d = -1.0
            elif i + k < goal:
                best_c = 1.0 - V[j, i + k]
                best_d = 0.0
            else:  # banking past the goal: the opponent's last turn
                if i + k - j >= n_last:
                    clamped = last[n_last - 1]
                best_c = 1.0 - last[min(i + k - j, n_last - 1)]
                best_d = 0.0
            best_v = best_c + best_d * x
            best_a = 0
            opt_c[0] = best_c
            opt_d[0] = best_d
            for ch in range(n_choices):
                rc = lose_c[ch]
                rd = lose_d[ch]
                # the common case without a switch: adds
                for e in range(add_offsets[ch], add_offsets[ch + 1]):
                    k2 = k + add_amounts[e]
                    if k2 < top:
                        rc += add_probs[e] * c[k2]
                        rd += add_probs[e] * d[k2]
                    elif n_last == 0:  # first to the goal: reaching it wins
                        rc += add_probs[e]
                    else:  # past the stop: holding is optimal (or forced)
                        if i + k2 - j >= n_last:
                            clamped = last[n_last - 1]
                        rc += add_probs[e] * (1.0 - last[min(i + k2 - j, n_last - 1)])
                for o in range(other_offsets[ch], other_offsets[ch + 1]):
                    e = other_rows[o]
                    kind = kinds[e]
                    amount = amounts[e]
                    tc = 1.0
                    td = 0.0
                    k2 = -1
                    if kind == KIND_DOUBLE:
                        k2 = 2 * k
                    elif kind == KIND_SUBTRACT:
                        k2 = max(k - amount, 0)
                    elif kind == KIND_SET:
                        k2 = amount
                    else:  # BANK
                        s2 = i + amount
                        if keeps[e]:
                            s2 += k
                        if s2 >= goal:
                            if n_last > 0:
                                if s2 - j >= n_last:
                                    clamped = last[n_last - 1]
                                tc = 1.0 - last[min(s2 - j, n_last - 1)]
                        elif s2 == i:
                            td = -1.0
                        else:
                            tc = 1.0 - V[j, s2]
                    if k2 >= 0 and k2 < top:
                        tc = c[k2]
                        td = d[k2]
                    elif k2 >= top and n_last > 0:  # past the stop: holding is optimal (or forced)
                        if i + k2 - j >= n_last:
                            clamped = last[n_last - 1]
                        tc = 1.0 - last[min(i + k2 - j, n_last - 1)]
                    rc += probs[e] * tc
                    rd += probs[e] * td
                rv = rc + rd * x
                if record:
                    rolls[ch, k] = rv
                opt_c[ch + 1] = rc
                opt_d[ch + 1] = rd
                if _better(rv, best_v, best_a, k):
                    best_v = rv
                    best_c = rc
                    best_d = rd
                    best_a = ch + 1
            if use_fixed:
                best_a = fixed[k]
                best_c = opt_c[best_a]
                best_d = opt_d[best_a]
            # the range of x over which the chosen option still beats every other one
            for o in range(n_choices + 1):
                if use_fixed:
                    break
                if o == best_a:
                    continue
                oc = opt_c[o]
                od = opt_d[o]
                slope = best_d - od
                if abs(slope) < 1e-12:
                    continue  # the two options differ by a constant over all x in [0, 1]
                if slope > 0.0:
                    edge = (oc - best_c) / slope
                    if edge > lo:
                        lo = edge
                elif slope < 0.0:
                    edge = (oc - best_c) / slope
                    if edge < hi:
                        hi = edge
            if not monotone:
                delta = abs(best_c - c[k]) + abs(best_d - d[k])
                if delta > change:
                    change = delta
            c[k] = best_c
            d[k] = best_d
            act[k] = best_a
        if monotone or change < INNER_TOLERANCE or sweeps >= MAX_INNER_SWEEPS:
            if record and not monotone and sweeps < MAX_INNER_SWEEPS and change > 0.0:
                continue  # one more sweep so the recorded roll values use converged c, d
            bounds[0] = lo
            bounds[1] = hi
            bounds[2] = stop_value
            bounds[3] = top
            bounds[4] = clamped
            bounds[5] = at_end
            return sweeps


@njit(cache=True, inline="always")
def _sweep_kind(t, last, cap):  # pragma: no cover - numba
    """Return the sweep turns of ``t`` take (``layout``): the general one with a last-turn table or a cap."""
    return t.sweep if last.shape[0] == 0 and cap == 0 else SWEEP_GENERAL


@njit(cache=True, inline="always")
def _hold(V, i, j, k):  # pragma: no cover - numba
    """Return holding's value c + d x at turn total k < goal - i (k = 0 passes: the partner state V[j, i] = x)."""
    if k == 0:
        return 1.0, -1.0
    return 1.0 - V[j, i + k], 0.0


@njit(cache=True, inline="always")
def _widen(lo, hi, best_c, best_d, other_c, other_d):  # pragma: no cover - numba
    """Return the range (lo, hi) of partner values x narrowed so the best option still beats the other one."""
    slope = best_d - other_d
    if slope >= 1e-12:
        lo = max(lo, (other_c - best_c) / slope)
    elif slope <= -1e-12:
        hi = min(hi, (other_c - best_c) / slope)
    return lo, hi


@njit(cache=True, inline="always")
def _first_to_goal_bounds(bounds, lo, hi, top):  # pragma: no cover - numba
    """Write a fast sweep's ``bounds`` as ``_turn_sweep`` does: the range of x, no stop past the goal."""
    bounds[0] = lo
    bounds[1] = hi
    bounds[2] = 0.0
    bounds[3] = top
    bounds[4] = 0.0
    bounds[5] = 0.0


@njit(cache=True, inline="always")
def _plain_sweep(i, j, goal, V, x, t, c, d, bounds, fixed):  # pragma: no cover - numba
    """``_turn_sweep`` for one roll of adds, busts and resets (``SWEEP_PLAIN``), first to the goal, nothing recorded.

    The same sweep, values and ties, without what the common case never needs: the switch on
    the effect kind, several roll choices, sweeps to a fixed point, fixed actions, the
    opponent's last turn. The roll's adds are ``t``'s window and singles (``layout``). ``c`` and
    ``d`` must hold a win (1, 0) at every total from the goal on that an add can reach
    (``level_rows`` pads them), so the adds need no test.
    ``fixed`` as in ``_turn_sweep`` (empty: optimise; then ``bounds`` is not needed).
    """
    start, end, chance = t.window_start, t.window_end, t.window_chance
    singles, single_chances = t.singles, t.single_chances
    lose, reset = t.bust_probabilities[0], t.reset_probabilities[0]
    top = goal - i
    lose_c = lose + reset * (1.0 if i == 0 else 1.0 - V[j, 0])  # a reset at score 0 is a bust
    lose_d = -lose - (reset if i == 0 else 0.0)
    n_singles = singles.shape[0]
    use_fixed = fixed.shape[0] > 0
    windowed = chance > 0.0
    sum_c = end - start + 1.0  # the window's sums at k = top: all wins
    sum_d = 0.0
    lo = -1e300
    hi = 1e300
    for k in range(top - 1, -1, -1):
        hold_c, hold_d = _hold(V, i, j, k)
        roll_c = lose_c
        roll_d = lose_d
        if windowed:
            sum_c += c[k + start] - c[k + end + 1]  # the window moved down by one
            sum_d += d[k + start] - d[k + end + 1]
            roll_c += chance * sum_c
            roll_d += chance * sum_d
        for e in range(n_singles):
            roll_c += single_chances[e] * c[k + singles[e]]
            roll_d += single_chances[e] * d[k + singles[e]]
        hold_v = hold_c + hold_d * x
        roll_v = roll_c + roll_d * x
        if use_fixed:
            if fixed[k] == 0:
                c[k] = hold_c
                d[k] = hold_d
            else:
                c[k] = roll_c
                d[k] = roll_d
            continue
        if _better(roll_v, hold_v, 0, k):
            best_c, best_d, other_c, other_d = roll_c, roll_d, hold_c, hold_d
        else:
            best_c, best_d, other_c, other_d = hold_c, hold_d, roll_c, roll_d
        lo, hi = _widen(lo, hi, best_c, best_d, other_c, other_d)  # where the choice stays the better one
        c[k] = best_c
        d[k] = best_d
    _first_to_goal_bounds(bounds, lo, hi, top)


@njit(cache=True)
def _chain_sweep(i, j, goal, V, x, t, scratch, c, d, bounds, fixed):  # pragma: no cover - numba
    """``_turn_sweep`` for chains of rolls (``SWEEP_CHAIN``), first to the goal, with nothing recorded.

    Roll n's adds are roll n - 1's with one more die, so their value at turn total k is the
    die's window over roll n - 1's adds values at k + start .. k + end (the first roll's window
    runs over c): a running sum per roll, whatever the number of dice. Values, ties (fewer dice
    on a tie) and bounds as in ``_turn_sweep``; ``c``, ``d`` padded with wins as for
    ``_plain_sweep``; ``fixed`` as there; ``scratch`` from ``chain_scratch``.
    """
    start, end, chance, totals = t.window_start, t.window_end, t.window_chance, t.add_totals
    sums, adds, options = scratch
    n_choices = totals.shape[0]
    top = goal - i
    reset_c = 1.0 if i == 0 else 1.0 - V[j, 0]  # a reset at score 0 is a bust
    reset_d = -1.0 if i == 0 else 0.0
    use_fixed = fixed.shape[0] > 0
    for ch in range(n_choices):  # from top on every total wins: each roll's adds are worth their chance
        for k in range(top, top + end + 2):
            adds[0, ch, k] = totals[ch]
            adds[1, ch, k] = 0.0
        inner = (end - start + 1.0) * (1.0 if ch == 0 else totals[ch - 1])
        sums[0, ch] = inner
        sums[1, ch] = 0.0
    lo = -1e300
    hi = 1e300
    for k in range(top - 1, -1, -1):
        best_c, best_d = _hold(V, i, j, k)
        best_v = best_c + best_d * x
        best_a = 0
        options[0, 0] = best_c
        options[1, 0] = best_d
        for ch in range(n_choices):
            if ch == 0:
                sum_c = sums[0, 0] + c[k + start] - c[k + end + 1]
                sum_d = sums[1, 0] + d[k + start] - d[k + end + 1]
            else:
                sum_c = sums[0, ch] + adds[0, ch - 1, k + start] - adds[0, ch - 1, k + end + 1]
                sum_d = sums[1, ch] + adds[1, ch - 1, k + start] - adds[1, ch - 1, k + end + 1]
            sums[0, ch] = sum_c
            sums[1, ch] = sum_d
            adds[0, ch, k] = chance * sum_c
            adds[1, ch, k] = chance * sum_d
            lose = t.bust_probabilities[ch]
            reset = t.reset_probabilities[ch]
            roll_c = chance * sum_c + lose + reset * reset_c
            roll_d = chance * sum_d - lose + reset * reset_d
            options[0, ch + 1] = roll_c
            options[1, ch + 1] = roll_d
            roll_v = roll_c + roll_d * x
            if _better(roll_v, best_v, best_a, k):
                best_v = roll_v
                best_c = roll_c
                best_d = roll_d
                best_a = ch + 1
        if use_fixed:
            c[k] = options[0, fixed[k]]
            d[k] = options[1, fixed[k]]
            continue
        for o in range(n_choices + 1):  # the range of x over which the choice stays the best one
            if o != best_a:
                lo, hi = _widen(lo, hi, best_c, best_d, options[0, o], options[1, o])
        c[k] = best_c
        d[k] = best_d
    _first_to_goal_bounds(bounds, lo, hi, top)


def level_rows(
    goal: int, t: EffectTable, ends: tuple[np.ndarray, np.ndarray, float, int]
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...] | None]:
    """Return the rows C, D that ``solve_levels`` keeps its turns in (allocated once per solve) and
    the chain sweep's scratch (None unless the table is a chain: its sweep is then not compiled).

    C[i], D[i] hold the last turn solved with score i, so the next one with the same score (a
    neighbour) starts its sweeps close to the answer when effects can lower the turn total. For
    the fast sweeps every total from the goal on is padded with a win (1, 0).
    """
    last_a, last_b, _, cap = ends
    fast = t.sweep != SWEEP_GENERAL and last_a.shape[0] == 0 and last_b.shape[0] == 0 and cap == 0
    rows = _rows(2, goal, goal + last_a.shape[0], t, fast)
    return rows[0], rows[1], chain_scratch(t, rows.shape[2]) if fast else None


def evaluation_rows(goal: int, t: EffectTable) -> tuple[np.ndarray, tuple[np.ndarray, ...] | None]:
    """Return fresh rows for ``evaluate_levels``' ``warm`` (A's c, d and B's c, d per score) and its scratch."""
    rows = _rows(4, goal, goal, t, t.sweep != SWEEP_GENERAL)
    return rows, chain_scratch(t, rows.shape[2])


def chain_scratch(t: EffectTable, width: int) -> tuple[np.ndarray, ...] | None:
    """Return ``_chain_sweep``'s scratch for rows of ``width`` (window sums per roll, each roll's adds
    value per total, the options' values), or None if ``t`` is no chain."""
    if t.sweep != SWEEP_CHAIN:
        return None
    rolls = t.offsets.shape[0] - 1
    extra = t.window_end + 2
    return np.zeros((2, rolls)), np.zeros((2, rolls, width + extra)), np.zeros((2, rolls + 1))


def _rows(n: int, goal: int, width: int, t: EffectTable, padded: bool) -> np.ndarray:
    """Return n / 2 pairs of turn rows (c = 0.5, d = 0), padded with wins past the goal if ``padded``."""
    if padded and t.add_amounts.shape[0] > 0:
        width = goal + int(np.max(t.add_amounts)) + 1
    rows = np.full((n, goal, width), 0.5)
    rows[1::2] = 0.0
    if padded:
        for i in range(goal):
            rows[0::2, i, goal - i :] = 1.0
    return rows


@njit(cache=True, inline="always")
def _solve_pair(  # pragma: no cover - numba
    i,
    j,
    goal,
    VA,
    VB,
    t,
    C,
    D,
    act,
    rolls,
    bounds,
    last_a,
    last_b,
    pbust,
    cap,
    same,
    work,
    kind,
    scratch,
):
    """Solve VA[i, j] and VB[j, i] together by policy iteration on their 2x2 affine system.

    VA holds the turn-start values of the player who moves at (i, j), VB the other's; they are
    one array (``same``) unless the seat matters (equal turns). ``last_a`` (``last_b``) is the
    last-turn table read when the player at (i, j) (at (j, i)) banks past the goal, ``pbust``
    and ``cap`` as in ``_turn_sweep``. Returns the Bellman
    residual of the pair: how far the solved values are from the right-hand sides of their own
    equations (rounding only, once the policies are stable). bounds[3] receives the most the
    stop past the goal may have cost (see ``_turn_sweep``; at most TRUNCATION_ERROR).
    """
    x = VA[i, j]
    z = VB[j, i]
    residual = 0.0
    truncation = 0.0
    for _ in range(MAX_PAIR_ROUNDS):
        if kind == SWEEP_PLAIN:
            _plain_sweep(i, j, goal, VB, z, t, C[i], D[i], bounds, NO_FIXED)
        elif scratch is not None:  # a chain (None prunes the chain sweep: not compiled for other tables)
            _chain_sweep(i, j, goal, VB, z, t, scratch, C[i], D[i], bounds, NO_FIXED)
        else:
            _turn_sweep(i, j, goal, VB, z, t, C[i], D[i], act, rolls, bounds, NO_FIXED, last_a, pbust, cap, 0, work)
        c1 = C[i, 0]
        d1 = D[i, 0]
        lo1 = bounds[0]
        hi1 = bounds[1]
        stop1 = bounds[2]
        loose1 = bounds[4]
        end1 = bounds[5]
        if same and i == j:
            xn = c1 / (1.0 - d1) if d1 < 1.0 else c1
            zn = xn
            c2 = c1
            d2 = d1
            lo2 = lo1
            hi2 = hi1
            stop2 = stop1
            loose2 = loose1
            end2 = end1
        else:
            if kind == SWEEP_PLAIN:
                _plain_sweep(j, i, goal, VA, x, t, C[j], D[j], bounds, NO_FIXED)
            elif scratch is not None:
                _chain_sweep(j, i, goal, VA, x, t, scratch, C[j], D[j], bounds, NO_FIXED)
            else:
                _turn_sweep(j, i, goal, VA, x, t, C[j], D[j], act, rolls, bounds, NO_FIXED, last_b, pbust, cap, 0, work)
            c2 = C[j, 0]
            d2 = D[j, 0]
            lo2 = bounds[0]
            hi2 = bounds[1]
            stop2 = bounds[2]
            loose2 = bounds[4]
            end2 = bounds[5]
            det = 1.0 - d1 * d2
            if abs(det) > 1e-12:
                xn = (c1 + d1 * c2) / det
            else:
                xn = c1 + d1 * z
            zn = c2 + d2 * xn
        residual = max(abs(c1 + d1 * zn - xn), abs(c2 + d2 * xn - zn))
        stable = lo1 - BOUNDS_SLACK <= zn <= hi1 + BOUNDS_SLACK and lo2 - BOUNDS_SLACK <= xn <= hi2 + BOUNDS_SLACK
        # options that tie to rounding can swap forever without moving the values: stop then too
        stable = stable or (abs(xn - x) <= 1e-15 and abs(zn - z) <= 1e-15)
        # the stop past the goal must still be where holding is provably optimal (or negligible),
        # unless it lies at the end of the last-turn table: then the caller lengthens the table
        miss1 = stop1 - pbust * zn
        miss2 = stop2 - pbust * xn
        if (miss1 > TRUNCATION_ERROR + BOUNDS_SLACK and end1 == 0.0) or (
            miss2 > TRUNCATION_ERROR + BOUNDS_SLACK and end2 == 0.0
        ):
            stable = False
        truncation = max(miss1, miss2, loose1, loose2, 0.0)
        x = xn
        z = zn
        if stable:
            break
    VA[i, j] = x
    VB[j, i] = z
    bounds[3] = truncation
    return residual


@njit(cache=True, inline="always")
def _guess(V, i, j, goal):  # pragma: no cover - numba
    """Return a first guess of V[i, j] from the solved values V[i, j + 1] and V[i, j + 2]."""
    if j + 2 < goal:
        g = 2.0 * V[i, j + 1] - V[i, j + 2]
        return min(max(g, 0.0), 1.0)
    if j + 1 < goal:
        return V[i, j + 1]
    return 0.5


@njit(cache=True)
def solve_levels(VA, VB, goal, s_high, s_low, t, fresh, out, ends, same, C, D, scratch):  # pragma: no cover - numba
    """Solve every pair whose score sum lies in [s_low, s_high], high sums first.

    ``fresh``: the arrays hold no earlier estimate, so guess from the level above. Writes the
    largest change of any value to out[0], the largest pair residual to out[1] and the largest
    truncation past the goal to out[2]. ``same``: VA is VB (the seat does not matter). ``C``,
    ``D``, ``scratch``: from ``level_rows``, kept from one call to the next.
    """
    last_a, last_b, pbust, cap = ends
    work = _work(t)
    kind = _sweep_kind(t, last_a, cap) if last_b.shape[0] == 0 else SWEEP_GENERAL
    act = np.empty(C.shape[1], dtype=np.int64)
    rolls = np.empty((0, 0))
    bounds = np.zeros(6)
    change = 0.0
    residual = 0.0
    truncation = 0.0
    for s in range(s_high, s_low - 1, -1):
        i_low = s - goal + 1
        if i_low < 0:
            i_low = 0
        i_high = s // 2 if same else s - i_low
        for i in range(i_low, i_high + 1):
            j = s - i
            old_x = VA[i, j]
            old_z = VB[j, i]
            if fresh:
                # first guesses extrapolated from the two levels above, where they exist
                VA[i, j] = _guess(VA, i, j, goal)
                VB[j, i] = _guess(VB, j, i, goal)
            r = _solve_pair(i, j, goal, VA, VB, t, C, D, act, rolls, bounds, last_a, last_b, pbust, cap, same,
                            work, kind, scratch)  # fmt: skip
            residual = max(residual, r)
            truncation = max(truncation, bounds[3])
            delta = max(abs(VA[i, j] - old_x), abs(VB[j, i] - old_z))
            if delta > change:
                change = delta
    out[0] = change
    out[1] = residual
    out[2] = truncation


@njit(cache=True)
def turn_row(V, i, j, goal, t, fixed, ends, min_top):  # pragma: no cover - numba
    """Return the turn at (i, j) given the next mover's values V: win, action, hold and roll values.

    Optimal play if ``fixed`` is empty, else the given actions (see ``_turn_sweep``). ``ends``
    as in ``_solve_pair``, read for the mover's side (its first table); the row covers turn
    totals up to where holding is provably optimal past the goal, and at least ``min_top``.
    """
    last, _, pbust, cap = ends
    n_choices = t.offsets.shape[0] - 1
    width = max(goal + last.shape[0], min_top)
    c = np.full(width, 0.5)
    d = np.zeros(width)
    act = np.zeros(width, dtype=np.int64)
    rolls = np.empty((n_choices, width))
    bounds = np.zeros(6)
    x = V[j, i]
    _turn_sweep(i, j, goal, V, x, t, c, d, act, rolls, bounds, fixed, last, pbust, cap, min_top, _work(t))
    top = goal - i
    if last.shape[0] > 0:
        top = int(bounds[3])
    win = np.empty(top)
    hold = np.empty(top)
    for k in range(top):
        win[k] = c[k] + d[k] * x
        if k == 0:
            hold[k] = 1.0 - x
        elif i + k < goal:
            hold[k] = 1.0 - V[j, i + k]
        else:
            hold[k] = 1.0 - last[min(i + k - j, last.shape[0] - 1)]
    return win, act[:top].copy(), hold, rolls[:, :top].copy()


@njit(cache=True)
def turn_actions(V, i, j, goal, t, c, d, act):  # pragma: no cover - numba
    """Write the optimal actions of the turn at (i, j), first to the goal, into ``act``.

    ``c`` and ``d`` (length >= goal - i) are the sweep's rows and its start: passing the last
    turn's rows with the same score i warm-starts sweeps that repeat to a fixed point.
    """
    bounds = np.zeros(6)
    _turn_sweep(i, j, goal, V, V[j, i], t, c, d, act, np.empty((0, 0)), bounds, NO_FIXED, NO_LAST, 0.0, 0, 0, _work(t))


@njit(cache=True)
def evaluate_levels(VA, VB, TA, TB, goal, s_high, s_low, t, warm, scratch, loop, out):  # pragma: no cover - numba
    """Evaluate two fixed strategies: VA[i, j] (VB) is the win probability of A (B) at the start
    of A's (B's) turn with the mover's score first. TA/TB[i, j, k] are their actions.

    The same level order and 2x2 pair solve as the solver, without the max: the pairs are
    (VA[i, j], VB[j, i]) and (VA[j, i], VB[i, j]), coupled by busting or passing. ``warm`` and
    ``scratch`` (``evaluation_rows``): each row's last in-turn solution (A's c, d; B's c, d), so
    turns whose rolls can lower the turn total start their sweeps close to the answer. Writes
    the largest change to out[0].

    A pair whose turns both surely hand the other the same scores (both pass at turn total 0)
    never ends: its 2x2 system is singular. A is given ``loop`` there (B 1 - loop), and out[1]
    counts such pairs, out[2], out[3] the (i, j) of the one with the lowest score sum.
    """
    work = _work(t)
    kind = t.sweep
    act = np.empty(goal, dtype=np.int64)
    rolls = np.empty((0, 0))
    bounds = np.zeros(6)
    change = 0.0
    for s in range(s_high, s_low - 1, -1):
        i_low = max(s - goal + 1, 0)
        for i in range(i_low, s + 1 - i_low):
            j = s - i
            # A moves at (i, j) against B's turn-start values; B moves at (j, i) against A's
            old_a = VA[i, j]
            old_b = VB[j, i]
            ca = warm[0, i]
            da = warm[1, i]
            cb = warm[2, j]
            db = warm[3, j]
            if kind == SWEEP_PLAIN:
                _plain_sweep(i, j, goal, VB, old_b, t, ca, da, bounds, TA[i, j])
                _plain_sweep(j, i, goal, VA, old_a, t, cb, db, bounds, TB[j, i])
            elif scratch is not None:  # a chain
                _chain_sweep(i, j, goal, VB, old_b, t, scratch, ca, da, bounds, TA[i, j])
                _chain_sweep(j, i, goal, VA, old_a, t, scratch, cb, db, bounds, TB[j, i])
            else:
                _turn_sweep(i, j, goal, VB, old_b, t, ca, da, act, rolls, bounds, TA[i, j], NO_LAST, 0.0, 0, 0, work)
                _turn_sweep(j, i, goal, VA, old_a, t, cb, db, act, rolls, bounds, TB[j, i], NO_LAST, 0.0, 0, 0, work)
            c1 = ca[0]
            d1 = da[0]
            c2 = cb[0]
            d2 = db[0]
            det = 1.0 - d1 * d2
            if abs(det) > 1e-15:
                a = (c1 + d1 * c2) / det
            else:  # neither turn ever leaves this pair of states: the game never ends here
                a = loop
                out[1] += 1.0
                out[2] = i
                out[3] = j
            b = c2 + d2 * a
            VA[i, j] = a
            VB[j, i] = b
            change = max(change, abs(a - old_a), abs(b - old_b))
    out[0] = change
