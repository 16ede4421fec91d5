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
changes nothing by more than the tolerance (between passes, ``holdspread`` settles them cheaply
under the last pass's policy).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.actions import ROLL_TIE
from pigdice.solve.layout import SWEEP_CHAIN, SWEEP_GENERAL, SWEEP_PLAIN
from pigdice.solve.positions import TRUNCATION_ERROR
from pigdice.solve.step import WITHOUT_REFCOUNTS, effect_step
from pigdice.solve.tables import EffectTable
from pigdice.solve.two.bundles import FIRST_TO_GOAL_ENDS, NO_LAST, Ends, Evaluation, Game, game_of
from pigdice.solve.two.holdspread import Checks, Spread, check_pair, note_moved, spread_turn

__all__ = ["FIRST_TO_GOAL_ENDS", "NO_LAST", "Ends", "game_of"]  # their home is bundles; callers find them here too

INNER_TOLERANCE = 1e-15
MAX_INNER_SWEEPS = 10_000
MAX_PAIR_ROUNDS = 100
NO_FIXED = np.zeros(0, dtype=np.int8)
# NO_FIXED as numba types it in a kernel (a global array is read-only there): a hint's plain sweep
# passes this one, so it is the solve's compiled sweep, not a second signature
READONLY_NO_FIXED = np.zeros(0, dtype=np.int8)
READONLY_NO_FIXED.flags.writeable = False
# A chosen action counts as still optimal this far outside its exact range of partner values:
# choosing between options that tie to within it changes no value by more than twice as much.
BOUNDS_SLACK = 1e-14
# The rows of ``EvaluationRows.turns``: A's c and d, B's c and d. One array, not four: with four the
# evaluation's sweeps ran 10-15% slower (bench: the exact head-to-head of Pig and Two-Dice Pig).
A_C, A_D, B_C, B_D = 0, 1, 2, 3


class SweepRows(NamedTuple):
    """A turn sweep's rows and scratch (``sweep_rows``): allocated once per solve, reused by every turn."""

    act: np.ndarray  # int64 per turn total: 0 hold, c + 1 roll with choice c
    rolls: np.ndarray  # (choices, totals): each choice's roll value, recorded by ``turn_row`` only ((0, 0) else)
    option_c: np.ndarray  # per option o (0 holds, c + 1 rolls with choice c): its value option_c + option_d x
    option_d: np.ndarray
    lose_c: np.ndarray  # per choice: what losing the turn total or the score adds to its roll, at every total
    lose_d: np.ndarray
    window_c: np.ndarray  # the chain sweep, per roll: the running window sum over the previous roll's adds
    window_d: np.ndarray
    adds_c: np.ndarray  # the chain sweep, (rolls, totals): each roll's adds' value at each total
    adds_d: np.ndarray


class TurnBounds(NamedTuple):
    """What a turn sweep tells the pair solve besides its rows (``_turn_sweep``)."""

    low: float  # the range of partner values x over which the chosen actions stay optimal
    high: float
    stop: float  # last[T - j] at the stop past the goal (0 first to the goal)
    top: int  # the turn totals swept
    clamped: float  # the most a read past the end of the last-turn table may be off (its last entry)
    at_end: bool  # the stop lies at the end of the last-turn table (a longer table would move it)


class NoRecords(NamedTuple):
    """Empty rows for ``_plain_sweep`` in the solves: no roll values or actions recorded (``no_records``)."""

    rolls: np.ndarray  # (0, 0)
    act: np.ndarray  # int64


class Triangle(NamedTuple):
    """Two dice's sums the plain sweep adds as three running sums (the table's ``triangle_*``, ``layout``)."""

    width: int
    start: int
    chance: float


class LevelRows(NamedTuple):
    """The rows ``solve_levels`` keeps its turns in (``level_rows``), kept from one call to the next."""

    c: np.ndarray  # (goal, width): c[i], d[i] hold the last turn solved with score i
    d: np.ndarray
    sweep: SweepRows
    none: NoRecords
    triangle: Triangle | None  # ``triangle_of``: None compiles the plain sweep without the triangle


class EvaluationRows(NamedTuple):
    """The rows ``evaluate_levels`` keeps each side's turns in (``evaluation_rows``), per score."""

    turns: np.ndarray  # (4, goal, width): turns[A_C, i], turns[A_D, i] hold A's last turn with score i; B_C, B_D B's
    sweep: SweepRows
    none: NoRecords
    triangle: Triangle | None


class LevelSweep(NamedTuple):
    """What one call of ``solve_levels`` did: the largest change of a value, pair residual and truncation."""

    change: float
    residual: float
    truncation: float  # the most the stop past the goal may have moved a value (at most TRUNCATION_ERROR)


def new_sweep_rows(t: EffectTable, width: int, record: bool, chain: bool) -> SweepRows:
    """Return a sweep's rows over ``width`` turn totals (with the roll values if ``record``, a chain's if ``chain``).

    Plain Python for the solves, which allocate once (compiling it cost a fresh Pig solve 1.7 s of
    CPU); ``sweep_rows`` is the same function compiled, for the kernels that allocate their own.
    """
    n_choices = t.offsets.shape[0] - 1
    rolls = np.empty((n_choices, width)) if record else np.empty((0, 0))
    chains = n_choices if chain else 0
    # the rows are views of a few blocks, not arrays of their own: the sweeps ran faster so
    options = np.empty((4, n_choices + 1))
    windows = np.zeros((2, chains))
    adds = np.zeros((2, chains, width + t.window_end + 2 if chain else 0))
    return SweepRows(
        np.zeros(width, dtype=np.int64),
        rolls,
        options[0],
        options[1],
        options[2],
        options[3],
        windows[0],
        windows[1],
        adds[0],
        adds[1],
    )


sweep_rows = njit(cache=True)(new_sweep_rows)


@njit(cache=True, inline="always")
def _better(value, best, best_action, k):  # pragma: no cover - numba
    """Return True if a roll worth ``value`` beats the best option so far (``best_action`` 0: hold).

    Ties: at k = 0 prefer rolling (a pass that ties never helps), elsewhere holding; between roll
    choices that tie to rounding (e.g. 1 die twice = 2 dice once while the turn would go on
    anyway) prefer fewer dice.
    """
    margin = ROLL_TIE if best_action > 0 else 0.0
    return value > best + margin or (k == 0 and best_action == 0 and value >= best)


@njit(cache=True, inline="always")
def _past_goal(last, index, clamped):  # pragma: no cover - numba
    """Return (1 - last[index], clamped): a total banked past the goal; past the table's end its last entry, noted."""
    n_last = last.shape[0]
    if index >= n_last:
        return 1.0 - last[n_last - 1], last[n_last - 1]
    return 1.0 - last[index], clamped


@njit(cache=True, inline="always")
def stop_margin(last, need, threshold):  # pragma: no cover - numba
    """Return the deficit, from ``need`` on, at which a turn past the goal stops: the first whose last-turn value
    ``last`` is at most ``threshold`` (the end of the table at most: the caller reports that as ``at_end``)."""
    while need < last.shape[0] - 1 and last[need] > threshold:
        need += 1
    return need


@njit(cache=True, inline="always")
def _turn_layout(t):  # pragma: no cover - numba
    """Return the table's adds (amounts, chances, offsets per choice) and each choice's bust and reset chances.

    ``_turn_sweep`` takes the arrays it reads as locals: numba counts the references of a bundle
    kept whole through its loops, which cost the general sweep a tenth.
    """
    return t.add_amounts, t.add_probabilities, t.add_offsets, t.bust_probabilities, t.reset_probabilities


@njit(cache=True, inline="always")
def _turn_effects(t):  # pragma: no cover - numba
    """Return the table's effects (kinds, amounts, keeps, chances) and the rows of its other effects per choice."""
    return t.kinds, t.amounts, t.keeps, t.probabilities, t.other_rows, t.other_offsets


@njit(cache=True)
def _turn_sweep(i, j, V, x, game, last, c, d, rows, fixed, min_top):  # pragma: no cover - numba
    """Solve one turn at (i, j) given the partner guess x = V[j, i]; fill c, d and rows.act; return its bounds.

    V holds the values of the player who moves next (the opponent's turn-start values). If
    ``fixed`` is non-empty it gives the action for every turn total (0 hold, c + 1 roll with
    choice c) and the turn is evaluated, not optimised: the exact head-to-head evaluator uses
    this with each side's own value array.

    P_k = c[k] + d[k] * x. act[k] is 0 for hold and 1 + choice index for a roll. If
    ``rows.rolls`` has a row per choice, the last sweep writes each choice's roll value there.
    The bounds (``TurnBounds``) give the interval of partner values x for which the chosen
    actions stay optimal, so the pair solver can stop without another round.

    Endings with a last turn (``last`` non-empty, ``pigdice.solve.two.endgame``): banking a total
    T >= goal is worth 1 - last[T - j] (the opponent's last turn, ``pigdice.solve.two.lastturn``),
    and the turn goes on past the goal. Holding is provably optimal at every total from the
    first T with last[T - j] <= pbust * x (rolling wins at most 1 - pbust + pbust (1 - x);
    pbust: the smallest bust chance of any roll choice), so the sweep stops there, or where
    last[T - j] <= TRUNCATION_ERROR; the bounds' ``stop`` is last[T - j] there, so the caller can
    check the stop against the solved x. The ends' ``cap`` > 0 forces a hold at totals >= cap
    (tests), and the sweep covers at least ``min_top`` turn totals (hints past the stop).

    Adds, busts and resets are read from the table's layout without a switch; every other effect
    takes the one effect step (``pigdice.solve.step``).
    """
    goal, bust_chance, cap = game.goal, game.ends.bust_chance, game.ends.cap
    monotone, n_choices = game.table.monotone, game.table.offsets.shape[0] - 1
    add_amounts, add_chances, add_offsets, busts, resets = _turn_layout(game.table)
    kinds, amounts, keeps, chances, other_rows, other_offsets = _turn_effects(game.table)
    act, rolls, option_c, option_d = rows.act, rows.rolls, rows.option_c, rows.option_d
    lose_c, lose_d = rows.lose_c, rows.lose_d
    n_last = last.shape[0]
    stop_value = 0.0
    clamped = 0.0  # a value read past the end of ``last`` is off by at most last[-1]
    at_end = False
    if n_last == 0:
        top = goal - i
    else:
        threshold = max(bust_chance * x, TRUNCATION_ERROR)
        need = stop_margin(last, goal - j, threshold)
        top = j + need - i
        stop_value = last[need]
        at_end = need == n_last - 1
        if cap > 0 and cap - i < top:
            top = cap - i
            stop_value = 0.0  # a forced hold: exact for the capped game
        if min_top > top:
            top = min(min_top, c.shape[0])
    record = rolls.shape[0] == n_choices
    reset_c = 1.0 if i == 0 else 1.0 - V[j, 0]  # a reset at score 0 is a bust
    reset_d = -1.0 if i == 0 else 0.0
    for ch in range(n_choices):
        lose_c[ch] = busts[ch] + resets[ch] * reset_c
        lose_d[ch] = -busts[ch] + resets[ch] * reset_d
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
                best_c, clamped = _past_goal(last, i + k - j, clamped)
                best_d = 0.0
            best_v = best_c + best_d * x
            best_a = 0
            option_c[0] = best_c
            option_d[0] = best_d
            for ch in range(n_choices):
                rc = lose_c[ch]
                rd = lose_d[ch]
                for e in range(add_offsets[ch], add_offsets[ch + 1]):
                    k2 = k + add_amounts[e]
                    if k2 < top:
                        rc += add_chances[e] * c[k2]
                        rd += add_chances[e] * d[k2]
                    elif n_last == 0:  # first to the goal: reaching it wins
                        rc += add_chances[e]
                    else:  # past the stop: holding is optimal (or forced)
                        value, clamped = _past_goal(last, i + k2 - j, clamped)
                        rc += add_chances[e] * value
                for o in range(other_offsets[ch], other_offsets[ch + 1]):
                    e = other_rows[o]
                    s2, k2, ends = effect_step(kinds[e], amounts[e], keeps[e], i, k)
                    tc = 1.0  # a win, unless one of the cases below
                    td = 0.0
                    if ends:
                        if s2 >= goal:
                            if n_last > 0:
                                tc, clamped = _past_goal(last, s2 - j, clamped)
                        elif s2 == i:  # nothing banked: the partner state
                            td = -1.0
                        else:
                            tc = 1.0 - V[j, s2]
                    elif k2 < top:
                        tc = c[k2]
                        td = d[k2]
                    elif n_last > 0:  # past the stop: holding is optimal (or forced)
                        tc, clamped = _past_goal(last, i + k2 - j, clamped)
                    rc += chances[e] * tc
                    rd += chances[e] * td
                rv = rc + rd * x
                if record:
                    rolls[ch, k] = rv
                option_c[ch + 1] = rc
                option_d[ch + 1] = rd
                if _better(rv, best_v, best_a, k):
                    best_v = rv
                    best_c = rc
                    best_d = rd
                    best_a = ch + 1
            if use_fixed:
                best_a = fixed[k]
                best_c = option_c[best_a]
                best_d = option_d[best_a]
            else:  # the range of x over which the chosen option still beats every other one
                for o in range(n_choices + 1):
                    if o != best_a:
                        lo, hi = _widen(lo, hi, best_c, best_d, option_c[o], option_d[o])
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
            return TurnBounds(lo, hi, stop_value, top, clamped, at_end)


@njit(cache=True, inline="always")
def _widen(lo, hi, best_c, best_d, other_c, other_d):  # pragma: no cover - numba
    """Return the range (lo, hi) of partner values x narrowed so the best option still beats the other one."""
    slope = best_d - other_d
    if slope >= 1e-12:
        lo = max(lo, (other_c - best_c) / slope)
    elif slope <= -1e-12:
        hi = min(hi, (other_c - best_c) / slope)
    return lo, hi


@njit(cache=True)
def _plain_sweep(i, j, V, x, game, c, d, fixed, rolls, act, triangle):  # pragma: no cover - numba
    """``_turn_sweep`` for one roll of adds, busts and resets (``SWEEP_PLAIN``), first to the goal.

    The same sweep, values and ties, without what the common case never needs: the effect step,
    several roll choices, sweeps to a fixed point, fixed actions, the opponent's last turn. The
    roll's adds are the table's window and singles (``layout``). ``c`` and ``d`` must hold a win
    (1, 0) at every total from the goal on that an add can reach (``level_rows`` pads them), so
    the adds need no test. ``fixed`` as in ``_turn_sweep`` (then the bounds mean nothing).
    A plain call, not inlined: inlined at its four call sites it cost a fresh Pig solve 1 s of
    compiling, and the solve ran no faster. ``rolls`` and ``act``: empty (``NoRecords``:
    the solves), or a row of roll values and one of actions (``plain_turn_row``) that receive the
    roll's value and the choice (0 hold, 1 roll) at every total, as ``_turn_sweep`` records them.
    Empty arrays, not None: the solve and a hint then share one compiled sweep (a second one, with
    the recording, cost a fresh ``solve pig`` 0.9 s of CPU); measured against None (alternating
    runs, bench_solve's floor kernel as the yardstick), Pig's solve ran as fast and the games with
    single adds (Piggy, Pass the Pigs, Big Pig) 2-3% slower. The empty rows are made in Python
    (``no_records``): as module constants numba types them read-only, which a hint's rows are not,
    and made in the kernels ``np.empty`` cost 0.25 s more to compile. ``fixed`` stays the read-only
    global ``NO_FIXED`` in the solve (a writable empty one made Pass the Pigs 5% slower), so the
    hint passes ``READONLY_NO_FIXED``.
    """
    t = game.table
    start, end, chance = t.window_start, t.window_end, t.window_chance
    singles, single_chances = t.singles, t.single_chances
    lose, reset = t.bust_probabilities[0], t.reset_probabilities[0]
    top = game.goal - i
    lose_c = lose + reset * (1.0 if i == 0 else 1.0 - V[j, 0])  # a reset at score 0 is a bust
    lose_d = -lose - (reset if i == 0 else 0.0)
    n_singles = singles.shape[0]
    use_fixed = fixed.shape[0] > 0
    record = act.shape[0] > 0
    windowed = chance > 0.0
    # Two dice's sums (``layout.triangle_layout``): at k, p * sum over u < w of A(k + s + u), A(m) the
    # window c[m] + .. + c[m + w - 1]. Three running sums: A at k + s, A again w totals up (``lagged``:
    # the same recurrence w steps behind, so bit for bit the A added w steps ago) and their window.
    # ``triangle``: None (numba then compiles the sweep without it) or the table's (``triangle_of``)
    wide, first, share = 0, 0, 0.0
    if triangle is not None:  # the triangle and its corrections, not the singles
        wide, first, share = triangle
        singles, single_chances = t.corrections, t.correction_chances
        n_singles = singles.shape[0]
    lead_c = lagged_c = wide + 0.0  # at k = top: all wins
    sum_c = wide * wide + 0.0
    lead_d = lagged_d = sum_d = 0.0
    # The window's sum at k is ``older`` (its totals k + start + 1 .. k + end, a running sum) plus the
    # newest, k + start, added last; one or two totals up it is in registers (near1, near2: the values
    # at k + 1 and k + 2), not read back from c and d. That keeps the chain from one total to the next
    # as short as the floor kernel's in bench/bench_solve.py (the running sum of the whole window ran 2x it).
    older_c = end - start + 0.0  # at k = top: all wins
    older_d = 0.0
    near1_c = near2_c = 1.0
    near1_d = near2_d = 0.0
    lo = -1e300
    hi = 1e300
    for k in range(top - 1, -1, -1):
        # Holding's value c + d x, written out: through an inline helper returning the pair, the
        # generic kernel ran Pig 1.75x the floor kernel's time, written out 1.40x (bench_solve).
        if k > 0:
            hold_c, hold_d = 1.0 - V[j, i + k], 0.0
        else:  # passing hands the partner state V[j, i] = x over
            hold_c, hold_d = 1.0, -1.0
        roll_c = lose_c
        roll_d = lose_d
        if windowed:
            if start == 1:
                newest_c, newest_d, next_c, next_d = near1_c, near1_d, near2_c, near2_d
            elif start == 2:
                newest_c, newest_d, next_c, next_d = near2_c, near2_d, c[k + 3], d[k + 3]
            else:
                newest_c, newest_d = c[k + start], d[k + start]
                next_c, next_d = c[k + start + 1], d[k + start + 1]
            older_c += next_c - c[k + end + 1]  # the window moved down by one
            older_d += next_d - d[k + end + 1]
            roll_c += chance * (older_c + newest_c)
            roll_d += chance * (older_d + newest_d)
        if triangle is not None:
            m = k + first
            lead_c = (lead_c + c[m]) - c[m + wide]
            lead_d = (lead_d + d[m]) - d[m + wide]
            lagged_c = (lagged_c + c[m + wide]) - c[m + 2 * wide]
            lagged_d = (lagged_d + d[m + wide]) - d[m + 2 * wide]
            sum_c += lead_c - lagged_c
            sum_d += lead_d - lagged_d
            roll_c += share * sum_c
            roll_d += share * sum_d
        for e in range(n_singles):
            roll_c += single_chances[e] * c[k + singles[e]]
            roll_d += single_chances[e] * d[k + singles[e]]
        hold_v = hold_c + hold_d * x
        roll_v = roll_c + roll_d * x
        if use_fixed:
            if fixed[k] == 0:
                best_c, best_d = hold_c, hold_d
            else:
                best_c, best_d = roll_c, roll_d
        else:
            rolled = _better(roll_v, hold_v, 0, k)
            if rolled:
                best_c, best_d, other_c, other_d = roll_c, roll_d, hold_c, hold_d
            else:
                best_c, best_d, other_c, other_d = hold_c, hold_d, roll_c, roll_d
            if record:
                rolls[0, k] = roll_v
                act[k] = 1 if rolled else 0
            lo, hi = _widen(lo, hi, best_c, best_d, other_c, other_d)  # where the choice stays the better one
        c[k] = best_c
        d[k] = best_d
        near2_c, near2_d, near1_c, near1_d = near1_c, near1_d, best_c, best_d
    return TurnBounds(lo, hi, 0.0, top, 0.0, False)


@njit(cache=True)
def _chain_sweep(i, j, V, x, game, c, d, rows, fixed):  # pragma: no cover - numba
    """``_turn_sweep`` for chains of rolls (``SWEEP_CHAIN``), first to the goal, with nothing recorded.

    Roll n's adds are roll n - 1's with one more die, so their value at turn total k is the
    die's window over roll n - 1's adds values at k + start .. k + end (the first roll's window
    runs over c): a running sum per roll, whatever the number of dice. Values, ties (fewer dice
    on a tie) and bounds as in ``_turn_sweep``; ``c``, ``d`` padded with wins as for
    ``_plain_sweep``; ``fixed`` as there; ``rows`` from ``sweep_rows`` with ``chain``.
    """
    t = game.table
    start, end, chance, totals = t.window_start, t.window_end, t.window_chance, t.add_totals
    window_c, window_d, adds_c, adds_d = rows.window_c, rows.window_d, rows.adds_c, rows.adds_d
    option_c, option_d = rows.option_c, rows.option_d
    busts, resets = t.bust_probabilities, t.reset_probabilities
    n_choices = totals.shape[0]
    top = game.goal - i
    reset_c = 1.0 if i == 0 else 1.0 - V[j, 0]  # a reset at score 0 is a bust
    reset_d = -1.0 if i == 0 else 0.0
    use_fixed = fixed.shape[0] > 0
    for ch in range(n_choices):  # from top on every total wins: each roll's adds are worth their chance
        for k in range(top, top + end + 2):
            adds_c[ch, k] = totals[ch]
            adds_d[ch, k] = 0.0
        window_c[ch] = (end - start + 1.0) * (1.0 if ch == 0 else totals[ch - 1])
        window_d[ch] = 0.0
    lo = -1e300
    hi = 1e300
    for k in range(top - 1, -1, -1):
        if k > 0:  # holding's value c + d x, written out as in ``_plain_sweep``
            best_c, best_d = 1.0 - V[j, i + k], 0.0
        else:  # passing hands the partner state V[j, i] = x over
            best_c, best_d = 1.0, -1.0
        best_v = best_c + best_d * x
        best_a = 0
        option_c[0] = best_c
        option_d[0] = best_d
        for ch in range(n_choices):
            if ch == 0:
                sum_c = window_c[0] + c[k + start] - c[k + end + 1]
                sum_d = window_d[0] + d[k + start] - d[k + end + 1]
            else:
                sum_c = window_c[ch] + adds_c[ch - 1, k + start] - adds_c[ch - 1, k + end + 1]
                sum_d = window_d[ch] + adds_d[ch - 1, k + start] - adds_d[ch - 1, k + end + 1]
            window_c[ch] = sum_c
            window_d[ch] = sum_d
            adds_c[ch, k] = chance * sum_c
            adds_d[ch, k] = chance * sum_d
            lose = busts[ch]
            reset = resets[ch]
            roll_c = chance * sum_c + lose + reset * reset_c
            roll_d = chance * sum_d - lose + reset * reset_d
            option_c[ch + 1] = roll_c
            option_d[ch + 1] = roll_d
            roll_v = roll_c + roll_d * x
            if _better(roll_v, best_v, best_a, k):
                best_v = roll_v
                best_c = roll_c
                best_d = roll_d
                best_a = ch + 1
        if use_fixed:
            c[k] = option_c[fixed[k]]
            d[k] = option_d[fixed[k]]
            continue
        for o in range(n_choices + 1):  # the range of x over which the choice stays the best one
            if o != best_a:
                lo, hi = _widen(lo, hi, best_c, best_d, option_c[o], option_d[o])
        c[k] = best_c
        d[k] = best_d
    return TurnBounds(lo, hi, 0.0, top, 0.0, False)


def level_rows(game: Game) -> LevelRows:
    """Return the rows ``solve_levels`` keeps its turns in (allocated once per solve).

    c[i], d[i] hold the last turn solved with score i, so the next one with the same score (a
    neighbour) starts its sweeps close to the answer when effects can lower the turn total. For
    the fast sweeps every total from the goal on is padded with a win (1, 0).
    """
    rows = _rows(2, game.goal, game.goal + game.ends.mover_last.shape[0], game)
    sweep = new_sweep_rows(game.table, rows.shape[2], False, game.sweep == SWEEP_CHAIN)
    return LevelRows(rows[0], rows[1], sweep, no_records(), triangle_of(game.table))


def evaluation_rows(game: Game) -> EvaluationRows:
    """Return fresh rows for ``evaluate_levels``: A's and B's turn rows per score, and the sweep's."""
    rows = _rows(4, game.goal, game.goal, game)
    sweep = new_sweep_rows(game.table, rows.shape[2], False, game.sweep == SWEEP_CHAIN)
    return EvaluationRows(rows, sweep, no_records(), triangle_of(game.table))


def triangle_of(t: EffectTable) -> Triangle | None:
    """Return the table's triangle of two dice's sums, or None (numba then compiles the plain sweep without it).

    A type, not a flag: checked at every total, the triangle's code made Pig's level kernel 1.41 -> 1.54x
    the floor kernel's time (bench_solve), though Pig never takes it.
    """
    return Triangle(t.triangle_width, t.triangle_start, t.triangle_chance) if t.triangle_width > 0 else None


def no_records() -> NoRecords:
    """Return the empty rows the solves hand ``_plain_sweep``: writable, so the hint's sweep is the same signature."""
    return NoRecords(np.zeros((0, 0)), np.zeros(0, dtype=np.int64))


def _rows(n: int, goal: int, width: int, game: Game) -> np.ndarray:
    """Return n / 2 pairs of turn rows (c, d) in one array: the general sweep's start at c = 0.5, d = 0; the fast
    sweeps' padded with a win (1, 0) at every total from the goal on, and 0 below it, where they write before reading.
    """
    t: EffectTable = game.table
    if game.sweep == SWEEP_GENERAL:
        rows = np.zeros((n, goal, width))
        rows[0::2] = 0.5
        return rows
    if t.add_amounts.shape[0] > 0:  # a window reads one total past its last add
        width = goal + int(t.add_amounts.max()) + 2
    rows = np.zeros((n, goal, width))
    rows[0::2] = np.tri(goal, width)[::-1] == 0.0  # row i: 1 from total goal - i on
    return rows


@njit(cache=True, inline="always")
def _pair_solution(c1, d1, c2, d2, z, diagonal):  # pragma: no cover - numba
    """Return (x, z) solving x = c1 + d1 z and z = c2 + d2 x, the pair's 2x2 system (one state if ``diagonal``).

    A singular system (both turns surely hand the other the same scores) keeps the old partner value z.
    """
    if diagonal:
        x = c1 / (1.0 - d1) if d1 < 1.0 else c1
        return x, x
    det = 1.0 - d1 * d2
    x = (c1 + d1 * c2) / det if abs(det) > 1e-12 else c1 + d1 * z
    return x, c2 + d2 * x


@njit(cache=True, inline="always")
def _pair_settled(mine, theirs, x, z, new_x, new_z, pbust):  # pragma: no cover - numba
    """Return (whether the pair's chosen actions stay optimal at its new values, the most the stop past the goal cost).

    ``mine`` and ``theirs`` are the two turns' ``TurnBounds``; x, z the values the round started
    from. Options that tie to rounding can swap forever without moving the values: the pair then
    stops too. The stop past the goal must still be where holding is provably optimal (or
    negligible), unless it lies at the end of the last-turn table: then the caller lengthens the table.
    """
    stable = mine.low - BOUNDS_SLACK <= new_z <= mine.high + BOUNDS_SLACK
    stable = stable and theirs.low - BOUNDS_SLACK <= new_x <= theirs.high + BOUNDS_SLACK
    stable = stable or (abs(new_x - x) <= 1e-15 and abs(new_z - z) <= 1e-15)
    miss_mine = mine.stop - pbust * new_z
    miss_theirs = theirs.stop - pbust * new_x
    if (miss_mine > TRUNCATION_ERROR + BOUNDS_SLACK and not mine.at_end) or (
        miss_theirs > TRUNCATION_ERROR + BOUNDS_SLACK and not theirs.at_end
    ):
        stable = False
    return stable, max(miss_mine, miss_theirs, mine.clamped, theirs.clamped, 0.0)


@njit(cache=True, inline="always")
def _guess(V, i, j, goal):  # pragma: no cover - numba
    """Return a first guess of V[i, j] from the solved values V[i, j + 1] and V[i, j + 2]."""
    if j + 2 < goal:
        g = 2.0 * V[i, j + 1] - V[i, j + 2]
        return min(max(g, 0.0), 1.0)
    if j + 1 < goal:
        return V[i, j + 1]
    return 0.5


def solve_levels(
    VA: np.ndarray,
    VB: np.ndarray,
    s_high: int,
    s_low: int,
    game: Game,
    rows: LevelRows,
    fresh: bool,
    same: bool,
    spread: Spread | None = None,
    checks: Checks | None = None,
) -> LevelSweep:
    """Solve every pair whose score sum lies in [s_low, s_high], high sums first; return a ``LevelSweep`` (``_levels``).

    The plain sweep's games pass no sweep rows (None), so numba compiles only the plain sweep for
    them (a fresh Pig solve compiled the chain and general sweeps too: 4.6 s of CPU more).
    ``spread`` (``holdspread``; plain sweep, one array only): receives where each solved turn banks.
    ``checks`` (with ``spread``, recorded by an earlier pass): a pair none of whose choices can flip
    (``holdspread.check_pair``) takes its spread's values without a sweep; the others are swept and
    their spreads and gaps recorded again.
    """
    sweep = None if game.sweep == SWEEP_PLAIN else rows.sweep
    return _levels(VA, VB, s_high, s_low, game, rows, sweep, fresh, same, spread, checks)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _levels(VA, VB, s_high, s_low, game, rows, sweep, fresh, same, spread, checks):  # pragma: no cover - numba
    """Solve every pair whose score sum lies in [s_low, s_high], high sums first; return a ``LevelSweep``.

    VA[i, j] and VB[j, i] are solved together by policy iteration on their 2x2 affine system: VA
    holds the turn-start values of the player who moves at (i, j), VB the other's; they are one
    array (``same``) unless the seat matters (equal turns), and the game's ends give each side's
    last-turn table. ``fresh``: the arrays hold no earlier estimate, so guess from the level
    above. ``rows``: from ``level_rows``, kept from one call to the next. The residual is the
    largest Bellman residual of a pair (rounding only, once the policies are stable).
    Compiled without reference counts (``step.WITHOUT_REFCOUNTS``; it allocates nothing): the
    checked pass reads several bundles' arrays per pair, which counted cost it 1.4 ms of its 2.5.
    """
    goal, kind, pbust = game.goal, game.sweep, game.ends.bust_chance
    mover_last, other_last = game.ends.mover_last, game.ends.other_last
    C, D = rows.c, rows.d
    no_rolls, no_act = rows.none
    change = 0.0
    residual = 0.0
    truncation = 0.0
    for s in range(s_high, s_low - 1, -1):
        i_low = max(s - goal + 1, 0)
        i_high = s // 2 if same else s - i_low
        for i in range(i_low, i_high + 1):
            j = s - i
            diagonal = same and i == j
            old_x = VA[i, j]
            old_z = VB[j, i]
            if fresh:  # first guesses extrapolated from the two levels above, where they exist
                VA[i, j] = _guess(VA, i, j, goal)
                VB[j, i] = _guess(VB, j, i, goal)
            x = VA[i, j]
            z = VB[j, i]
            pair_residual = 0.0
            pair_truncation = 0.0
            checked = False
            if checks is not None:  # implies spread, one array
                x, z, checked = check_pair(VA, spread, checks, game.table, i, j, x, z)
            for _ in range(0 if checked else MAX_PAIR_ROUNDS):
                # The sweeps are chosen here, not in a helper: numba counts the references of every
                # array in a bundle an inline helper hands on, which cost Pig's solve a quarter.
                if sweep is None:
                    mine = _plain_sweep(i, j, VB, z, game, C[i], D[i], NO_FIXED, no_rolls, no_act, rows.triangle)
                elif kind == SWEEP_CHAIN:
                    mine = _chain_sweep(i, j, VB, z, game, C[i], D[i], sweep, NO_FIXED)
                else:
                    mine = _turn_sweep(i, j, VB, z, game, mover_last, C[i], D[i], sweep, NO_FIXED, 0)
                # read before B's sweep: at i == j with the seat mattering, both turns share one row
                c1, d1 = C[i, 0], D[i, 0]
                theirs = mine
                if not diagonal:
                    if sweep is None:
                        theirs = _plain_sweep(j, i, VA, x, game, C[j], D[j], NO_FIXED, no_rolls, no_act, rows.triangle)
                    elif kind == SWEEP_CHAIN:
                        theirs = _chain_sweep(j, i, VA, x, game, C[j], D[j], sweep, NO_FIXED)
                    else:
                        theirs = _turn_sweep(j, i, VA, x, game, other_last, C[j], D[j], sweep, NO_FIXED, 0)
                c2, d2 = C[j, 0], D[j, 0]
                new_x, new_z = _pair_solution(c1, d1, c2, d2, z, diagonal)
                pair_residual = max(abs(c1 + d1 * new_z - new_x), abs(c2 + d2 * new_x - new_z))
                stable, pair_truncation = _pair_settled(mine, theirs, x, z, new_x, new_z, pbust)
                x = new_x
                z = new_z
                if stable:
                    break
            VA[i, j] = x
            VB[j, i] = z
            if spread is not None and not checked:  # the rows still hold both turns of the policy just chosen
                spread_turn(i, j, VB, goal, game.table, C[i], D[i], spread)
                if not diagonal:
                    spread_turn(j, i, VA, goal, game.table, C[j], D[j], spread)
            if checks is not None:
                note_moved(VA, checks, i, j)
            residual = max(residual, pair_residual)
            truncation = max(truncation, pair_truncation)
            change = max(change, abs(x - old_x), abs(z - old_z))
    return LevelSweep(change, residual, truncation)


def turn_row(
    V: np.ndarray, i: int, j: int, goal: int, t: EffectTable, fixed: np.ndarray, ends: Ends, min_top: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the turn at (i, j) given the next mover's values V: win, action, hold and roll values.

    Optimal play if ``fixed`` is empty, else the given actions (see ``_turn_sweep``). ``ends``
    (``Ends``) is read for the mover's side (its first table); the row covers turn totals up to
    where holding is provably optimal past the goal, and at least ``min_top``. A plain game's
    optimal turn to the goal takes the solve's own plain sweep (``plain_turn_row``), so a hint
    after a fresh Pig solve compiles nothing more (the general sweep cost it ~7 s of CPU).
    """
    ends = Ends(*ends)
    first_to_goal = ends.mover_last.shape[0] == 0 and ends.cap == 0
    if t.sweep == SWEEP_PLAIN and first_to_goal and fixed.shape[0] == 0 and min_top <= goal - i:
        return plain_turn_row(V, i, j, goal, t)
    return _general_turn_row(V, i, j, goal, t, fixed, ends, min_top)


def plain_turn_row(
    V: np.ndarray, i: int, j: int, goal: int, t: EffectTable
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``turn_row``'s optimal turn at (i, j) of a plain game (``SWEEP_PLAIN``), first to the goal."""
    top = goal - i
    reach = int(np.max(t.add_amounts)) if t.add_amounts.shape[0] > 0 else 0
    width = top + reach + 2
    c = np.where(np.arange(width) >= top, 1.0, 0.5)  # from the goal on every total is a win (1, 0)
    d = np.zeros(width)
    record = new_sweep_rows(t, top, True, False)
    x = float(V[j, i])
    _plain_sweep(
        i,
        j,
        V,
        x,
        Game(goal, t, FIRST_TO_GOAL_ENDS, SWEEP_PLAIN),
        c,
        d,
        READONLY_NO_FIXED,
        record.rolls,
        record.act,
        triangle_of(t),
    )
    hold = np.empty(top)
    hold[0] = 1.0 - x
    hold[1:] = 1.0 - V[j, i + 1 : goal]
    return c[:top] + d[:top] * x, record.act, hold, record.rolls


@njit(cache=True)
def _general_turn_row(V, i, j, goal, t, fixed, ends, min_top):  # pragma: no cover - numba
    """``turn_row`` by the general sweep: any effects, roll choices, fixed actions and the opponent's last turn."""
    last = ends.mover_last
    width = max(goal + last.shape[0], min_top)
    c = np.full(width, 0.5)
    d = np.zeros(width)
    rows = sweep_rows(t, width, True, False)
    x = V[j, i]
    bounds = _turn_sweep(i, j, V, x, Game(goal, t, ends, SWEEP_GENERAL), last, c, d, rows, fixed, min_top)
    top = goal - i
    if last.shape[0] > 0:
        top = bounds.top
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
    return win, rows.act[:top].copy(), hold, rows.rolls[:, :top].copy()


@njit(cache=True)
def optimal_actions(V, i0, i1, game, table):  # pragma: no cover - numba
    """Write the optimal action of every turn with score i0 <= i < i1, first to the goal, into table[i, j, k].

    Each turn's sweep starts from the one before it with the same score (warm rows): where rolls
    can lower the turn total (Pig Dice) the sweeps to a fixed point then take a few rounds, not many.
    """
    goal = game.goal
    c = np.empty(goal)
    d = np.empty(goal)
    rows = sweep_rows(game.table, goal, False, False)
    act = rows.act
    for i in range(i0, i1):
        c[:] = 0.5
        d[:] = 0.0
        for j in range(goal):
            _turn_sweep(i, j, V, V[j, i], game, NO_LAST, c, d, rows, NO_FIXED, 0)
            for k in range(goal - i):
                table[i, j, k] = act[k]


def evaluate_levels(
    VA: np.ndarray, VB: np.ndarray, TA: np.ndarray, TB: np.ndarray, game: Game, rows: EvaluationRows, loop: float
) -> Evaluation:
    """Evaluate two fixed strategies, every score sum from high to low; return an ``Evaluation``.

    VA[i, j] (VB) is the win probability of A (B) at the start of A's (B's) turn with the mover's
    score first. TA/TB[i, j, k] are their actions. The same level order and 2x2 pair solve as the
    solver, without the max: the pairs are (VA[i, j], VB[j, i]) and (VA[j, i], VB[i, j]), coupled
    by busting or passing. ``rows`` (``evaluation_rows``): each side's last in-turn solution per
    score, so turns whose rolls can lower the turn total start their sweeps close to the answer.

    A pair whose turns both surely hand the other the same scores (both pass at turn total 0)
    never ends: its 2x2 system is singular. A is given ``loop`` there (B 1 - loop), and the
    evaluation counts such pairs and names the one with the lowest score sum.
    """
    # None leaves the other sweeps out of Pig's loop (a sixth faster) and out of its compile; chosen
    # in Python, so numba compiles only the one ``_evaluate`` a game uses
    sweep = None if game.sweep == SWEEP_PLAIN else rows.sweep
    return _evaluate(VA, VB, TA, TB, game, rows, sweep, loop)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def _evaluate(VA, VB, TA, TB, game, rows, sweep, loop):  # pragma: no cover - numba
    """``evaluate_levels`` with the sweep's rows, or None for the plain sweep (numba then compiles no other).

    Compiled without reference counts (``step.WITHOUT_REFCOUNTS``; it allocates nothing): counted,
    each sweep's call counted every array of the game's table up and down, and two more of them
    (the triangle's corrections) made Pig's evaluation 2.4x slower; without, Two-Dice Pig's exact
    head-to-head at goal 100 took 142 -> 60 ms, below 1e5 simulated games (65 ms).
    """
    goal, kind = game.goal, game.sweep
    turns = rows.turns
    no_rolls, no_act = rows.none
    change = 0.0
    endless = 0
    endless_score = 0
    endless_other = 0
    for s in range(2 * goal - 2, -1, -1):
        i_low = max(s - goal + 1, 0)
        for i in range(i_low, s + 1 - i_low):
            j = s - i
            # A moves at (i, j) against B's turn-start values; B moves at (j, i) against A's
            old_a = VA[i, j]
            old_b = VB[j, i]
            ca = turns[A_C, i]
            da = turns[A_D, i]
            cb = turns[B_C, j]
            db = turns[B_D, j]
            if sweep is None:  # chosen here, not in a helper: see ``solve_levels``
                _plain_sweep(i, j, VB, old_b, game, ca, da, TA[i, j], no_rolls, no_act, rows.triangle)
                _plain_sweep(j, i, VA, old_a, game, cb, db, TB[j, i], no_rolls, no_act, rows.triangle)
            elif kind == SWEEP_CHAIN:
                _chain_sweep(i, j, VB, old_b, game, ca, da, sweep, TA[i, j])
                _chain_sweep(j, i, VA, old_a, game, cb, db, sweep, TB[j, i])
            else:
                _turn_sweep(i, j, VB, old_b, game, NO_LAST, ca, da, sweep, TA[i, j], 0)
                _turn_sweep(j, i, VA, old_a, game, NO_LAST, cb, db, sweep, TB[j, i], 0)
            c1 = ca[0]
            d1 = da[0]
            c2 = cb[0]
            d2 = db[0]
            det = 1.0 - d1 * d2
            if abs(det) > 1e-15:
                a = (c1 + d1 * c2) / det
            else:  # neither turn ever leaves this pair of states: the game never ends here
                a = loop
                endless += 1
                endless_score = i
                endless_other = j
            b = c2 + d2 * a
            VA[i, j] = a
            VB[j, i] = b
            change = max(change, abs(a - old_a), abs(b - old_b))
    return Evaluation(change, endless, endless_score, endless_other)
