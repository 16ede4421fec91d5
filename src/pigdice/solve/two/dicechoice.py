"""Numba kernels for Hog-like games: one throw per turn, the action is the number of dice.

V[i, j] = max_d sum_k pi(d, k) (1 - V[j, i + k])  (seed 003, Hog's optimality equation), with
pi read from the variant's outcome table. Scoring nothing returns the turn to the partner
state V[j, i] at the same score sum, so pairs are solved exactly as 2x2 affine systems, high
score sums first, exactly as in ``rollhold``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.step import thrown_score
from pigdice.solve.two.bundles import NO_LAST, Evaluation


@njit(cache=True, inline="always")
def _banked_target(i, j, goal, V, score, last):  # pragma: no cover - numba
    """Return (const, coef) of a throw from score i that banks ``score`` (coef multiplies V[j, i]).

    Past the goal the throw wins (``last`` empty) or is worth 1 - last[s - j]: the opponent's
    last throw (``pigdice.solve.two.lastturn``).
    """
    if score >= goal:
        if last.shape[0] > 0:
            return 1.0 - last[min(score - j, last.shape[0] - 1)], 0.0
        return 1.0, 0.0
    if score == i:
        return 1.0, -1.0
    return 1.0 - V[j, score], 0.0


@njit(cache=True, inline="always")  # as a plain call, Hog's solve took 1.25x longer
def _choice_value(V, i, j, goal, choice, t, last):  # pragma: no cover - numba
    """Return (const, coef) of throwing with ``choice`` at (i, j) against next-mover values V."""
    vc = 0.0
    vd = 0.0
    for e in range(t.offsets[choice], t.offsets[choice + 1]):
        score = thrown_score(t.kinds[e], t.amounts[e], t.keeps[e], i)
        tc, td = _banked_target(i, j, goal, V, score, last)
        vc += t.probabilities[e] * tc
        vd += t.probabilities[e] * td
    return vc, vd


@njit(cache=True, inline="always")
def _plain_values(V, i, j, goal, t, const, coef):  # pragma: no cover - numba
    """``_throw_values``' coefficients for throws of adds (each at least 1), busts and resets, first to the goal.

    The same values without the effect step (``tables.EffectTable``'s layout).
    """
    room = goal - i
    for ch in range(t.offsets.shape[0] - 1):
        vc = 0.0
        for e in range(t.add_offsets[ch], t.add_offsets[ch + 1]):
            if t.add_amounts[e] < room:
                vc += t.add_probabilities[e] * (1.0 - V[j, i + t.add_amounts[e]])
            else:  # past the goal: a win
                vc += t.add_probabilities[e]
        lose = t.bust_probabilities[ch]
        reset = t.reset_probabilities[ch]
        if i == 0:  # a reset at score 0 scores nothing, as a bust
            lose += reset
            reset = 0.0
        const[ch] = vc + lose + reset * (1.0 - V[j, 0])
        coef[ch] = -lose


@njit(cache=True)
def _plain_throws(t, last_a, last_b):  # pragma: no cover - numba
    """Return True if ``_plain_values`` serves ``t``: adds of at least 1, busts and resets only; no last turn."""
    no_others = t.other_offsets[-1] == 0
    adds_move = t.add_amounts.shape[0] == 0 or np.min(t.add_amounts) >= 1
    return no_others and adds_move and last_a.shape[0] == 0 and last_b.shape[0] == 0


@njit(cache=True)
def _throw_values(V, i, j, goal, x, t, const, coef, last):  # pragma: no cover - numba
    """Fill const/coef with each choice's affine value in the partner value x; return the best choice."""
    for ch in range(t.offsets.shape[0] - 1):
        const[ch], coef[ch] = _choice_value(V, i, j, goal, ch, t, last)
    return _best(const, coef, x)


@njit(cache=True)
def throw_values(V, i, j, goal, x, t, const, coef, last):  # pragma: no cover - numba
    """Fill const/coef with each choice's affine value in the partner value x; return the best choice.

    ``t`` is the ``EffectTable``; ``last`` the mover's last-turn table (empty: first to the goal).
    """
    if _plain_throws(t, last, last):
        _plain_values(V, i, j, goal, t, const, coef)
        return _best(const, coef, x)
    return _throw_values(V, i, j, goal, x, t, const, coef, last)


@njit(cache=True)
def solve_levels(VA, VB, s_high, s_low, game, same):  # pragma: no cover - numba
    """Solve every pair whose score sum lies in [s_low, s_high], high sums first; return the pair residual.

    VA[i, j] and VB[j, i] are solved together (one array if ``same``: the seat does not matter);
    the game's ends give the last-turn table read when the player at (i, j) (at (j, i)) throws
    past the goal. Each pair iterates its best throws and their exact 2x2 solve until they agree;
    the largest last step over all pairs is returned: 0 (to rounding) means every pair is solved
    exactly.
    """
    goal, t = game.goal, game.table
    last_a, last_b = game.ends.mover_last, game.ends.other_last
    n_choices = t.offsets.shape[0] - 1
    # each choice's value is affine in the partner value, and its coefficients do not depend
    # on it: computed once per pair, then the pair iterates only its choices and 2x2 solve
    const_a = np.empty(n_choices)
    coef_a = np.empty(n_choices)
    const_b = np.empty(n_choices)
    coef_b = np.empty(n_choices)
    plain = _plain_throws(t, last_a, last_b)
    residual = 0.0
    for s in range(s_high, s_low - 1, -1):
        i_low = s - goal + 1
        if i_low < 0:
            i_low = 0
        i_high = s // 2 if same else s - i_low
        for i in range(i_low, i_high + 1):
            j = s - i
            x = VA[i, j]
            z = VB[j, i]
            step = 0.0
            one = same and i == j
            if plain:
                _plain_values(VB, i, j, goal, t, const_a, coef_a)
                if not one:
                    _plain_values(VA, j, i, goal, t, const_b, coef_b)
            else:
                _throw_values(VB, i, j, goal, z, t, const_a, coef_a, last_a)
                if not one:
                    _throw_values(VA, j, i, goal, x, t, const_b, coef_b, last_b)
            for _ in range(100):
                b1 = _best(const_a, coef_a, z)
                c1 = const_a[b1]
                d1 = coef_a[b1]
                if one:
                    xn = c1 / (1.0 - d1)
                    zn = xn
                else:
                    b2 = _best(const_b, coef_b, x)
                    c2 = const_b[b2]
                    d2 = coef_b[b2]
                    xn = (c1 + d1 * c2) / (1.0 - d1 * d2)
                    zn = c2 + d2 * xn
                step = max(abs(xn - x), abs(zn - z))
                x = xn
                z = zn
                if step <= 1e-16:
                    break
            VA[i, j] = x
            VB[j, i] = z
            if step > residual:
                residual = step
    return residual


@njit(cache=True, inline="always")
def _best(const, coef, x):  # pragma: no cover - numba
    """Return the first choice with the largest value const + coef * x."""
    best = 0
    best_v = -1e300
    for ch in range(const.shape[0]):
        value = const[ch] + coef[ch] * x
        if value > best_v:
            best_v = value
            best = ch
    return best


@njit(cache=True)
def evaluate_levels(VA, VB, TA, TB, game, loop):  # pragma: no cover - numba
    """Evaluate two fixed dice-count tables (TA[i, j] = choice + 1); return an ``Evaluation``.

    A pair whose throws both (to rounding) never score never ends: A is given ``loop`` there, and
    the evaluation counts such pairs and names the one with the lowest score sum (as
    ``rollhold.evaluate_levels``).
    """
    goal, t = game.goal, game.table
    change = 0.0
    endless = 0
    endless_score = 0
    endless_other = 0
    for s in range(2 * goal - 2, -1, -1):
        i_low = max(0, s - goal + 1)
        for i in range(i_low, s + 1 - i_low):
            j = s - i
            old_a = VA[i, j]
            old_b = VB[j, i]
            c1, d1 = _choice_value(VB, i, j, goal, TA[i, j] - 1, t, NO_LAST)
            c2, d2 = _choice_value(VA, j, i, goal, TB[j, i] - 1, t, NO_LAST)
            det = 1.0 - d1 * d2
            if abs(det) > 1e-15:
                a = (c1 + d1 * c2) / det
            else:
                a = loop
                endless += 1
                endless_score = i
                endless_other = j
            VA[i, j] = a
            VB[j, i] = c2 + d2 * a
            change = max(change, abs(a - old_a), abs(VB[j, i] - old_b))
    return Evaluation(change, endless, endless_score, endless_other)


@njit(cache=True)
def best_throws(V, i0, i1, goal, t, table):  # pragma: no cover - numba
    """Write the best dice choice (c + 1) of every state with i0 <= i < i1 into ``table``, all turn totals alike."""
    n_choices = t.offsets.shape[0] - 1
    const = np.empty(n_choices)
    coef = np.empty(n_choices)
    for i in range(i0, i1):
        for j in range(goal):
            best = throw_values(V, i, j, goal, V[j, i], t, const, coef, NO_LAST)
            table[i, j, :] = best + 1
