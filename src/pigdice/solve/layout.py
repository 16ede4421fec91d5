"""Which sweep a table's turns take, and the adds arranged for it (read by ``rollhold``'s fast sweeps).

Worked out once per table in plain Python (no numba to compile): tables of one roll of adds,
busts and resets take the plain sweep, the adds' longest run of consecutive amounts with one
chance (Pig's 2-6) summed as a running window and the rest one by one, unless the rest are
the sums of two dice (Two-Dice Pig's 4-12 at 1, 2 ... 5 ... 1 / 36: a triangle), maybe with a few
corrections (Big Pig's doubles), which the sweep sums as one die's window over another's; tables whose rolls add
one die each (1, 2, 3 ... dice: Hog with rerolls, Piggy Six with three dice) take the chain
sweep, each roll a window over the previous one; every other table the general sweep.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

SWEEP_GENERAL = 0  # rollhold._turn_sweep: any table, ending and fixed actions
SWEEP_PLAIN = 1  # rollhold._plain_sweep: one roll of adds, busts and resets, first to the goal
SWEEP_CHAIN = 2  # rollhold._chain_sweep: rolls whose adds each add one die to the previous roll's
MIN_RUN = 3  # adds in a row with one chance are summed as a running window from this many on
CHAIN_TOLERANCE = 1e-14  # how far a roll's chances may be from the previous roll's with one die added
# A triangle's three running sums cost the sweep about as much as this many adds one by one (Two-Dice
# Pig's pass at goal 100: 9 adds 6.0 ms, the triangle 3.4 ms, Pig's window of 5 adds 2.9 ms)
TRIANGLE_COST = 3
# Triangles are looked for among at most this many adds spanning at most twice as many totals (two
# dice of up to 16 faces): the search tries every width, start and chance.
MAX_TRIANGLE_ADDS = 16


class SweepLayout(NamedTuple):
    """The sweep a table's first-to-goal turns take and its adds: the last fields of ``EffectTable``."""

    sweep: int
    window_start: int  # the window's amounts, start..end (plain: the longest run; chain: the first roll)
    window_end: int
    window_chance: float  # 0: no window
    singles: np.ndarray  # int64: the plain roll's other adds
    single_chances: np.ndarray  # float64
    add_totals: np.ndarray  # float64 per roll: the chance its adds have together
    # w > 0: the singles are the sums of two dice of w faces each (a triangle: amounts s .. s + 2w - 2
    # with chances p (1, 2 .. w .. 2, 1)) and the corrections (chances of either sign), which the
    # plain sweep sums instead of the singles (``triangle_layout``)
    triangle_width: int
    triangle_start: int
    triangle_chance: float
    corrections: np.ndarray  # int64
    correction_chances: np.ndarray  # float64


def _runs(amounts: list[int], chances: list[float]) -> list[tuple[int, int]]:
    """Return the (first, last) index of each run of consecutive amounts with one chance."""
    runs: list[tuple[int, int]] = []
    first = 0
    for index in range(1, len(amounts) + 1):
        if index == len(amounts) or amounts[index] != amounts[index - 1] + 1 or chances[index] != chances[first]:
            runs.append((first, index - 1))
            first = index
    return runs


def _is_chain(rolls: list[tuple[list[int], list[float]]]) -> bool:
    """Return True if the first roll's adds are one window and each next roll's are the previous one's with it added."""
    if len(rolls) < 2 or not rolls[0][0]:
        return False
    amounts, chances = rolls[0]
    if _runs(amounts, chances) != [(0, len(amounts) - 1)]:
        return False
    die = np.zeros(amounts[-1] + 1)
    die[amounts] = chances
    previous = die
    for next_amounts, next_chances in rolls[1:]:
        expected = np.convolve(previous, die)
        if not next_amounts or next_amounts[-1] >= len(expected):
            return False
        found = np.zeros(len(expected))
        found[next_amounts] = next_chances
        if np.max(np.abs(found - expected)) > CHAIN_TOLERANCE:
            return False
        previous = found
    return True


def _triangle(start: int, width: int, chance: float) -> dict[int, float]:
    """Return the chance of each amount of a triangle: two dice of ``width`` faces, summing from ``start``."""
    return {start + t: chance * min(t + 1, 2 * width - 1 - t) for t in range(2 * width - 1)}


def triangle_layout(amounts: list[int], chances: list[float]) -> tuple[int, int, float, list[int], list[float]]:
    """Return (w, s, p, corrections, their chances): the adds as a triangle plus a few corrections, or w = 0.

    Big Pig's adds (two dice without a 1, doubles counted twice) are the triangle of Two-Dice
    Pig's sums (4-12) less 4, 6 and 10 plus 16, 20 and 24 (8 and 12 cancel): three running sums
    and six corrections, not eleven adds one by one. Chosen only where the corrections are at
    least ``TRIANGLE_COST`` fewer than the adds; the triangle ends at or below the largest add.
    """
    adds = dict(zip(amounts, chances, strict=True))
    best: tuple[int, int, float, list[int], list[float]] = (0, 0, 0.0, [], [])
    most = len(amounts) - TRIANGLE_COST
    if not amounts or most <= 0 or len(amounts) > MAX_TRIANGLE_ADDS:
        return best
    low, high = min(amounts), max(amounts)
    if high - low > 2 * MAX_TRIANGLE_ADDS:
        return best
    for width in range(2, (high - low) // 2 + 2):
        for start in range(max(low - 2 * width + 2, 1), high - 2 * width + 3):
            for chance in sorted(set(chances)):
                triangle = _triangle(start, width, chance)
                rest = {a: adds.get(a, 0.0) - triangle.get(a, 0.0) for a in sorted(adds.keys() | triangle.keys())}
                kept = [a for a, p in rest.items() if abs(p) > CHAIN_TOLERANCE]
                if len(kept) < most:
                    most = len(kept)
                    best = (width, start, chance, kept, [rest[a] for a in kept])
    return best


def sweep_layout(rolls: list[tuple[list[int], list[float]]], plain_effects: bool) -> SweepLayout:
    """Return the layout for rolls given as (add amounts ascending, their chances) per roll choice.

    ``plain_effects``: every effect is an add of at least 1, a bust or a reset (no effect that
    lowers, pins or banks the turn total).
    """
    totals = np.array([float(sum(chances)) for _, chances in rolls])
    none = np.zeros(0, dtype=np.int64)
    if plain_effects and len(rolls) == 1:
        amounts, chances = rolls[0]
        runs = [(a, b) for a, b in _runs(amounts, chances) if b - a + 1 >= MIN_RUN] if amounts else []
        first, last = max(runs, key=lambda run: run[1] - run[0]) if runs else (0, -1)
        kept = [n for n in range(len(amounts)) if not first <= n <= last]
        singles = [amounts[n] for n in kept]
        single_chances = [chances[n] for n in kept]
        width, start, chance, corrections, correction_chances = triangle_layout(singles, single_chances)
        return SweepLayout(
            SWEEP_PLAIN,
            amounts[first] if runs else 1,
            amounts[last] if runs else 0,
            chances[first] if runs else 0.0,
            np.array(singles, dtype=np.int64),
            np.array(single_chances, dtype=np.float64),
            totals,
            width,
            start,
            chance,
            np.array(corrections, dtype=np.int64),
            np.array(correction_chances, dtype=np.float64),
        )
    if plain_effects and _is_chain(rolls):
        amounts, chances = rolls[0]
        return SweepLayout(
            SWEEP_CHAIN, amounts[0], amounts[-1], chances[0], none, np.zeros(0), totals, 0, 0, 0.0, none, np.zeros(0)
        )
    return SweepLayout(SWEEP_GENERAL, 1, 0, 0.0, none, np.zeros(0), totals, 0, 0, 0.0, none, np.zeros(0))
