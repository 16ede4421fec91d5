"""Where a fixed turn policy banks, and cheap passes that evaluate it: the reset games' inner loop.

Resets (Two-Dice Pig's snake eyes, Piggy Six's 6-6) make every turn-start value depend on the
reset values w_j = V[j, 0] at lower score sums, so the solve repeats whole passes until w settles
(each pass shrinks w's error about 20-36 fold). Once a pass has chosen the roll/hold policy, a
turn of that policy is a fixed distribution over its endings: it banks turn total k with chance
m_k (worth 1 - V[j, i + k]), reaches the goal (a win), busts or passes (worth 1 - V[j, i]: the
partner state) or resets (worth 1 - w_j). A pass over those few numbers per state (``spread_pass``)
is exactly a solve pass with the policy held fixed, for a fraction of its cost: its loop runs over
the handful of totals a turn banks at, not over every turn total and every add. The solver
settles w by such passes, then passes again until one changes nothing. Those passes are checked
(``check_pair``): each turn's spread keeps its gap (how far rolling and holding lie apart at the
totals it reaches), and a pair whose inputs moved too little to close its gaps takes its values
from its spread; only the others are swept (at goal 100 a few dozen of 5,000 pairs, then none).

Only the plain sweep's tables (one roll of adds, busts and resets, first to the goal) are spread,
and only if every roll can bust: a rolling turn's d (its partner coefficient) is then below zero,
so a total's action is read off its row without recording it (holding leaves d = 0).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.layout import SWEEP_PLAIN
from pigdice.solve.step import WITHOUT_REFCOUNTS
from pigdice.solve.tables import EffectTable
from pigdice.solve.two.bundles import Game

# A turn is checked by its gap (``check_pair``) only if the gap exceeds the most it can have moved by
# this much (0: a turn whose options tie, or tie to rounding, is always swept).
GAP_SLACK = 0.0
# A turn banks at this many totals at most (Two-Dice Pig to 100 needs 18, Big Pig with resets 31);
# one that banks at more marks the spread unusable and the solve keeps its full passes.
SPREAD_WIDTH = 40
# The spread's arrays (10 bytes per state and entry) are kept only up to this goal (4 MB at 100,
# 25 MB at 250; 400 MB at 1000 would cost more memory than the passes they save are worth).
MAX_SPREAD_GOAL = 250


class Ladder(NamedTuple):
    """Where a turn ends that rolls below a total h and holds from h on, for every h (``new_ladder``).

    Most turns of a solved policy are such thresholds, and their endings depend on h alone (and
    on where the goal cuts them off), not on the scores: ``spread_turn`` reads them off here
    instead of running each turn's chances forward.
    """

    reached: np.ndarray  # (goal + 1,): r[k], the chance of reaching total k rolling from every total below it
    banked: np.ndarray  # (goal + 1, reach): the chance the turn with threshold h first stops at total h + u
    lost: np.ndarray  # (goal + 1,): the chance it busts before h (a reset apart), summed as ``spread_turn`` sums it
    lost_at_zero: np.ndarray  # the same at score 0, where a reset is a bust
    reset: np.ndarray  # (goal + 1,): the chance it resets before h


class Spread(NamedTuple):
    """Each state's turn under the policy of the last full pass, as chances of its endings (``new_spread``)."""

    totals: np.ndarray  # (goal, goal, SPREAD_WIDTH) int16: the turn totals k >= 1 the turn at (i, j) banks at
    mass: np.ndarray  # (goal, goal, SPREAD_WIDTH): the chance it banks each of them
    used: np.ndarray  # (goal, goal) int64: the totals used (> SPREAD_WIDTH: the spread is unusable)
    win: np.ndarray  # (goal, goal): the chance the turn reaches the goal
    loop: np.ndarray  # (goal, goal): the chance it hands the partner state over (a bust, or a pass at k = 0)
    reset: np.ndarray  # (goal, goal): the chance a reset hands over (j, 0) (at score 0 a reset is a bust)
    # (goal, goal): the smallest gap between rolling and holding at a total the turn reaches (``spread_turn``);
    # below 0: the turn is not to be checked by its gap (``check_pair``)
    gap: np.ndarray
    reach: np.ndarray  # scratch: each turn total's chance of being reached and rolled from (``spread_turn``)
    # (goal, goal) int64: h > 0, a threshold turn (it banks where ``ladder.banked[h]`` says: no totals, mass
    # or used of its own); 0, the turn's totals, mass and used say where it banks
    threshold: np.ndarray
    ladder: Ladder  # the endings of every threshold turn


class Checks(NamedTuple):
    """What a checked pass (``check_pair``) compares with: the values the spread's turns were chosen at.

    A turn at (i, j) reads only row j of the values: the partner V[j, i], the hold values
    V[j, i + k] and the reset value V[j, 0]. If they moved too little to close the gap between
    rolling and holding at any total the turn reaches (``_gap_move``), no choice of it can
    flip, so its spread still gives its value: the pass need not sweep it.
    """

    values: np.ndarray  # (goal, goal): the values after the last pass that recorded or checked the spread
    resets: np.ndarray  # (goal,): the reset values V[:, 0] that pass read (its starting ones)
    moved: np.ndarray  # (goal, goal + 1): moved[j, m] = the most V[j, m'] moved from ``values``, m' >= m


def spreadable(game: Game) -> bool:
    """Return True if the solve ``game`` settles its reset values by spread passes.

    A spread counts banking at the goal as a win: only a first-to-the-goal solve (whose sweep is its
    table's own) qualifies, never one whose banking at the goal leads to last turns.
    """
    table = game.table
    return (
        table.has_reset
        and game.sweep == table.sweep == SWEEP_PLAIN
        and game.goal <= MAX_SPREAD_GOAL
        and float(table.bust_probabilities[0]) > 0.0
    )


def new_spread(goal: int, table: EffectTable) -> Spread:
    """Return empty spread arrays for a solve to ``goal`` with the plain table ``table``, and its ladder."""
    reach_width = goal + int(np.max(table.add_amounts, initial=0)) + 1
    return Spread(
        np.zeros((goal, goal, SPREAD_WIDTH), dtype=np.int16),
        np.zeros((goal, goal, SPREAD_WIDTH)),
        np.zeros((goal, goal), dtype=np.int64),
        np.zeros((goal, goal)),
        np.zeros((goal, goal)),
        np.zeros((goal, goal)),
        np.full((goal, goal), -1.0),
        np.zeros(reach_width),
        np.zeros((goal, goal), dtype=np.int64),
        new_ladder(goal, table),
    )


def new_ladder(goal: int, table: EffectTable) -> Ladder:
    """Return the endings of every threshold turn (roll below h, hold from h on) of the plain table ``table``."""
    reach = int(np.max(table.add_amounts, initial=0))
    ladder = Ladder(
        np.zeros(goal + 1), np.zeros((goal + 1, reach)), np.zeros(goal + 1), np.zeros(goal + 1), np.zeros(goal + 1)
    )
    start, end = table.add_offsets[0], table.add_offsets[1]
    _fill_ladder(
        table.add_amounts[start:end],
        table.add_probabilities[start:end],
        float(table.bust_probabilities[0]),
        float(table.reset_probabilities[0]),
        ladder,
    )
    return ladder


@njit(cache=True)
def _fill_ladder(amounts, chances, bust, reset, ladder):  # pragma: no cover - numba
    """Fill ``ladder`` for a roll of adds ``amounts`` (ascending) with ``chances``, busting with ``bust``.

    Each chance is summed in the order ``_spread_any`` sums it (adds ascending, totals ascending),
    so a threshold turn's chances, and the values a spread pass gives it, are the same bit for bit
    whichever of the two records it.
    """
    reached, banked = ladder.reached, ladder.banked
    n_adds = amounts.shape[0]
    lose_at_zero = bust + reset  # a reset at score 0 is a bust
    for k in range(reached.shape[0]):
        m = 1.0 if k == 0 else 0.0
        for e in range(n_adds):
            below = k - amounts[e]
            if below < 0:
                break
            m += chances[e] * reached[below]
        reached[k] = m
    for h in range(1, reached.shape[0]):
        ladder.lost[h] = ladder.lost[h - 1] + reached[h - 1] * bust
        ladder.lost_at_zero[h] = ladder.lost_at_zero[h - 1] + reached[h - 1] * lose_at_zero
        ladder.reset[h] = ladder.reset[h - 1] + reached[h - 1] * reset
        for u in range(banked.shape[1]):
            m = 0.0
            for e in range(n_adds):
                below = h + u - amounts[e]
                if below < 0:
                    break
                if below < h:
                    m += chances[e] * reached[below]
            banked[h, u] = m


def new_checks(values: np.ndarray, resets: np.ndarray) -> Checks:
    """Return the checks of the spread just recorded by a pass that ended at ``values`` and read ``resets``."""
    goal = values.shape[0]
    return Checks(values.copy(), resets.copy(), np.zeros((goal, goal + 1)))


def banked_chances(spread: Spread, i: int, j: int) -> dict[int, float]:
    """Return the chance the turn at (i, j) banks each total below the goal (a threshold turn's from the ladder)."""
    h = int(spread.threshold[i, j])
    if h > 0:
        top = spread.threshold.shape[0] - i
        banked = spread.ladder.banked[h]
        return {h + u: float(banked[u]) for u in range(min(banked.shape[0], top - h)) if banked[u] != 0.0}
    used = int(spread.used[i, j])
    return {int(k): float(m) for k, m in zip(spread.totals[i, j, :used], spread.mass[i, j, :used], strict=True)}


def usable(spread: Spread) -> bool:
    """Return True if every turn of the last full pass banked at no more than ``SPREAD_WIDTH`` totals."""
    return int(spread.used.max()) <= SPREAD_WIDTH


@njit(cache=True, inline="always")
def spread_turn(i, j, V, goal, t, c, d, spread):  # pragma: no cover - numba
    """Record where the turn at (i, j) ends under the policy its solved rows c, d chose (plain sweep rows).

    A threshold turn (it rolls at every total it reaches below some h and holds at every one
    from h on) records only h, and reads its banking chances from the ladder (``_spread_threshold``);
    any other runs its chances forward and records them (``_spread_any``). The two give the same
    chances, bit for bit.
    Inlined: called twice a pair, a call of its own cost the recording pass a third more.
    """
    if not _spread_threshold(i, j, V, goal, t, c, d, spread):
        _spread_any(i, j, V, goal, t, c, d, spread)


@njit(cache=True, inline="always")
def _spread_threshold(i, j, V, goal, t, c, d, spread):  # pragma: no cover - numba
    """Record the turn at (i, j) from the ladder and return True if it is a threshold turn, else return False.

    Its first reached total that holds is h (or the goal's): every reached total below h rolls
    (a gap each, read off its row), and each reached total from h on must hold (a gap each,
    its roll's value summed as ``_spread_any`` sums it); one that rolls leaves it to ``_spread_any``.
    A pass at k = 0 leaves it there too.
    """
    ladder = spread.ladder
    reached = ladder.reached
    x = V[j, i]
    top = goal - i
    if c[0] == 1.0 and d[0] == -1.0:
        return False  # passing at k = 0
    gap = c[0] + d[0] * x - (1.0 - x)
    h = top
    for k in range(1, top):
        if reached[k] == 0.0:
            continue
        hold_v = 1.0 - V[j, i + k]
        if d[k] == 0.0 and c[k] == hold_v:
            h = k
            break
        gap = min(gap, c[k] + d[k] * x - hold_v)
    lose, reset = t.bust_probabilities[0], t.reset_probabilities[0]
    if i == 0:  # a reset at score 0 is a bust
        lose += reset
        reset = 0.0
    amounts = t.add_amounts[t.add_offsets[0] : t.add_offsets[1]]
    chances = t.add_probabilities[t.add_offsets[0] : t.add_offsets[1]]
    n_adds = amounts.shape[0]
    banked = ladder.banked[h]
    win = 0.0
    for u in range(banked.shape[0]):
        m = banked[u]
        if m == 0.0:
            continue
        k = h + u
        if k >= top:  # past the last total before the goal: a win
            win += m
            continue
        hold_v = 1.0 - V[j, i + k]
        if not (d[k] == 0.0 and c[k] == hold_v):
            return False  # a total above h rolls
        roll_v = lose * (1.0 - x) + reset * (1.0 - V[j, 0])
        for e in range(n_adds):
            roll_v += chances[e] * (c[k + amounts[e]] + d[k + amounts[e]] * x)
        gap = min(gap, hold_v - roll_v)
    spread.threshold[i, j] = h
    spread.used[i, j] = 0
    spread.win[i, j] = win
    spread.loop[i, j] = ladder.lost_at_zero[h] if i == 0 else ladder.lost[h]
    spread.reset[i, j] = 0.0 if i == 0 else ladder.reset[h]
    spread.gap[i, j] = gap
    return True


@njit(cache=True)
def _spread_any(i, j, V, goal, t, c, d, spread):  # pragma: no cover - numba
    """Record where the turn at (i, j) ends under any policy its rows c, d chose, running its chances forward.

    A total holds where its row is holding's value (1 - V[j, i + k], 0), or (1, -1) at k = 0;
    every other total rolls (its d is below zero: every roll can bust). The chance of reaching
    each total runs forward from k = 0, each total's drawn from the rolling totals below it
    (``reach`` keeps each total's rolling mass, 0 where it holds); what runs past the last
    total before the goal wins. Drawn, not pushed up: pushing each rolling total's mass into
    the totals above it chained every add through memory, and recording cost twice as much.
    """
    lose, reset = t.bust_probabilities[0], t.reset_probabilities[0]
    if i == 0:  # a reset at score 0 is a bust
        lose += reset
        reset = 0.0
    amounts = t.add_amounts[t.add_offsets[0] : t.add_offsets[1]]
    chances = t.add_probabilities[t.add_offsets[0] : t.add_offsets[1]]
    n_adds = amounts.shape[0]
    reach_most = amounts[n_adds - 1] if n_adds > 0 else 0  # amounts ascend
    x = V[j, i]
    gap = 1e300
    rolling = spread.reach
    totals = spread.totals[i, j]
    mass = spread.mass[i, j]
    top = goal - i
    hand_over = 0.0
    resets = 0.0
    win = 0.0
    n = 0
    last_roll = 0
    for k in range(top + reach_most):
        if k - last_roll > reach_most:
            break  # no rolling total below reaches this far
        m = 1.0 if k == 0 else 0.0
        for e in range(n_adds):
            below = k - amounts[e]
            if below < 0:
                break
            m += chances[e] * rolling[below]
        if k >= top:  # past the last total before the goal: a win
            win += m
            rolling[k] = 0.0
            continue
        rolling[k] = 0.0
        if m == 0.0:
            continue
        if k == 0:
            holds = c[0] == 1.0 and d[0] == -1.0
        else:
            holds = d[k] == 0.0 and c[k] == 1.0 - V[j, i + k]
        hold_v = 1.0 - x if k == 0 else 1.0 - V[j, i + k]
        if holds:
            roll_v = lose * (1.0 - x) + reset * (1.0 - V[j, 0])
            for e in range(n_adds):
                roll_v += chances[e] * (c[k + amounts[e]] + d[k + amounts[e]] * x)
            gap = min(gap, hold_v - roll_v)
            if k == 0:
                hand_over += m
            else:
                if n < SPREAD_WIDTH:
                    totals[n] = k
                    mass[n] = m
                n += 1
            continue
        gap = min(gap, c[k] + d[k] * x - hold_v)
        hand_over += m * lose
        resets += m * reset
        rolling[k] = m
        last_roll = k
    spread.threshold[i, j] = 0
    spread.used[i, j] = n
    spread.win[i, j] = win
    spread.loop[i, j] = hand_over
    spread.reset[i, j] = resets
    spread.gap[i, j] = gap


@njit(cache=True, inline="always")
def _gap_move(V, checks, t, i, j, x):  # pragma: no cover - numba
    """Return the most the gap between rolling and holding at any total of the turn at (i, j) can have moved.

    What the turn reads moved by at most ds (the hold values V[j, m], m > i), dx (the partner,
    now x) and dw (the reset value). A hold value moves by at most h = max(ds, dx) (at k = 0
    holding passes: 1 - x). A roll's value is bust (1 - x) + reset (1 - w) + sum of add chance
    times P[k + add], so it moves by at most r = bust dx + reset dw + adds e, where e, the most
    any P[k] = max(hold, roll) moves, is at most max(h, (bust dx + reset dw) / (bust + reset))
    (from e <= max(h, bust dx + reset dw + adds e), adds = 1 - bust - reset). The gap moves by
    at most h + r: a reset value that moved far counts only with its chance.
    """
    ds = checks.moved[j, i + 1]
    dx = abs(x - checks.values[j, i])
    dw = abs(V[j, 0] - checks.resets[j])
    bust, reset = t.bust_probabilities[0], t.reset_probabilities[0]
    if i == 0:  # a reset at score 0 is a bust
        bust += reset
        reset = 0.0
    hold = max(ds, dx)
    lose = bust * dx + reset * dw
    e = max(hold, lose / (bust + reset))
    return hold + lose + (1.0 - bust - reset) * e


@njit(cache=True, inline="always")
def check_pair(V, spread, checks, t, i, j, x, z):  # pragma: no cover - numba
    """Return (x, z, True): the pair (i, j), (j, i) solved by its spread if no choice can flip, else (x, z, False).

    The pair's 2x2 system with each turn's spread (its recorded policy); both turns' gaps must
    exceed the most they can have moved since (``_gap_move``), plus a margin for rounding. A
    pair so solved keeps its gaps less those moves: what is surely left of them at the values
    this pass ends at, which the next pass checks against.
    """
    if spread.gap[i, j] < 0.0 or spread.gap[j, i] < 0.0:
        return x, z, False
    if spread.used[i, j] > SPREAD_WIDTH or spread.used[j, i] > SPREAD_WIDTH:
        return x, z, False
    c1, d1 = _spread_value(V, spread, i, j)
    if i == j:
        new_x = c1 / (1.0 - d1) if d1 < 1.0 else c1
        new_z = new_x
    else:
        c2, d2 = _spread_value(V, spread, j, i)
        det = 1.0 - d1 * d2
        new_x = (c1 + d1 * c2) / det if abs(det) > 1e-12 else c1 + d1 * z
        new_z = c2 + d2 * new_x
    mine = _gap_move(V, checks, t, i, j, new_z)
    theirs = _gap_move(V, checks, t, j, i, new_x)
    if spread.gap[i, j] <= mine + GAP_SLACK or spread.gap[j, i] <= theirs + GAP_SLACK:
        return x, z, False
    # the gaps at the values this pass ends at (the next checks'): at least this much is left of them
    spread.gap[i, j] -= mine
    spread.gap[j, i] -= theirs
    return new_x, new_z, True


@njit(cache=True, inline="always")
def note_moved(V, checks, i, j):  # pragma: no cover - numba
    """Record in ``checks.moved`` how far V[i, j] and V[j, i] moved, once this pass has solved them."""
    moved = checks.moved  # moved[:, goal] stays 0: nothing lies past the goal
    moved[i, j] = max(abs(V[i, j] - checks.values[i, j]), moved[i, j + 1])
    moved[j, i] = max(abs(V[j, i] - checks.values[j, i]), moved[j, i + 1])


@njit(cache=True, inline="always")
def _spread_value(V, spread, i, j):  # pragma: no cover - numba
    """Return the turn-start value at (i, j) as c + d x in the partner's value x = V[j, i]."""
    value = spread.win[i, j] + spread.reset[i, j] * (1.0 - V[j, 0])
    h = spread.threshold[i, j]
    if h > 0:  # its chances in the ladder, zeros included (they add nothing), up to the goal
        banked = spread.ladder.banked[h]
        for u in range(min(banked.shape[0], V.shape[0] - i - h)):
            value += banked[u] * (1.0 - V[j, i + h + u])
    else:
        totals = spread.totals[i, j]
        mass = spread.mass[i, j]
        for n in range(spread.used[i, j]):
            value += mass[n] * (1.0 - V[j, i + totals[n]])
    loop = spread.loop[i, j]
    return value + loop, -loop


@njit(cache=True, **WITHOUT_REFCOUNTS)
def spread_pass(V, spread):  # pragma: no cover - numba
    """Evaluate the spread's policy once over every score sum, high sums first, each pair exactly (one array V)."""
    goal = V.shape[0]
    for s in range(2 * goal - 2, -1, -1):
        for i in range(max(s - goal + 1, 0), s // 2 + 1):
            j = s - i
            c1, d1 = _spread_value(V, spread, i, j)
            if i == j:
                V[i, i] = c1 / (1.0 - d1) if d1 < 1.0 else c1
                continue
            c2, d2 = _spread_value(V, spread, j, i)
            det = 1.0 - d1 * d2
            x = (c1 + d1 * c2) / det if abs(det) > 1e-12 else c1 + d1 * V[j, i]
            V[i, j] = x
            V[j, i] = c2 + d2 * x


@njit(cache=True, **WITHOUT_REFCOUNTS)
def spread_pass_pair(VA, VB, spread_a, spread_b):  # pragma: no cover - numba
    """Evaluate two fixed strategies' spreads once over every score sum, high sums first, each pair exactly.

    The head-to-head's pairs (``rollhold.evaluate_levels``): A's turn at (i, j) reads B's values VB
    (``spread_a``, A's score first), B's at (j, i) reads VA (``spread_b``). A pair that never
    ends (a singular system) keeps its values: the recording pass refused such games.
    """
    goal = VA.shape[0]
    for s in range(2 * goal - 2, -1, -1):
        i_low = max(s - goal + 1, 0)
        for i in range(i_low, s + 1 - i_low):
            j = s - i
            c1, d1 = _spread_value(VB, spread_a, i, j)
            c2, d2 = _spread_value(VA, spread_b, j, i)
            det = 1.0 - d1 * d2
            if abs(det) > 1e-15:
                a = (c1 + d1 * c2) / det
                VA[i, j] = a
                VB[j, i] = c2 + d2 * a
