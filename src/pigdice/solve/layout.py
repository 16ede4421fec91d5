"""Which sweep a table's turns take, and the adds arranged for it (read by ``rollhold``'s fast sweeps).

Worked out once per table in plain Python (no numba to compile): tables of one roll of adds,
busts and resets take the plain sweep, the adds' longest run of consecutive amounts with one
chance (Pig's 2-6) summed as a running window and the rest one by one, unless the rest are the
sums of two dice (Two-Dice Pig's 4-12 at 1, 2 ... 5 ... 1 / 36: a triangle), which the sweep
sums as one die's window over another's; tables whose rolls add
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


class SweepLayout(NamedTuple):
    """The sweep a table's first-to-goal turns take and its adds: the last fields of ``EffectTable``."""

    sweep: int
    window_start: int  # the window's amounts, start..end (plain: the longest run; chain: the first roll)
    window_end: int
    window_chance: float  # 0: no window
    singles: np.ndarray  # int64: the plain roll's other adds
    single_chances: np.ndarray  # float64
    add_totals: np.ndarray  # float64 per roll: the chance its adds have together
    # w > 0: the singles are the sums of two dice of w faces each (a triangle): amounts s .. s + 2w - 2
    # with chances p (1, 2 .. w .. 2, 1), s and p the first single's (``triangle_width``)
    triangle_width: int


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


def triangle_width(amounts: list[int], chances: list[float]) -> int:
    """Return w if the adds are the sums of two dice with w equally likely faces each (a triangle), else 0.

    Such adds run s .. s + 2w - 2 with chances p min(t + 1, 2w - 1 - t) at s + t: the plain sweep
    sums them as a window of w totals over another (``rollhold._plain_sweep``), not one by one.
    """
    n = len(amounts)
    if n < 3 or n % 2 == 0 or amounts != list(range(amounts[0], amounts[0] + n)):
        return 0
    width = (n + 1) // 2
    chance = chances[0]
    shape = [min(t + 1, n - t) for t in range(n)]
    if chance <= 0.0 or any(abs(p - chance * m) > CHAIN_TOLERANCE for p, m in zip(chances, shape, strict=True)):
        return 0
    return width


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
        return SweepLayout(
            SWEEP_PLAIN,
            amounts[first] if runs else 1,
            amounts[last] if runs else 0,
            chances[first] if runs else 0.0,
            np.array(singles, dtype=np.int64),
            np.array(single_chances, dtype=np.float64),
            totals,
            triangle_width(singles, single_chances),
        )
    if plain_effects and _is_chain(rolls):
        amounts, chances = rolls[0]
        return SweepLayout(SWEEP_CHAIN, amounts[0], amounts[-1], chances[0], none, np.zeros(0), totals, 0)
    return SweepLayout(SWEEP_GENERAL, 1, 0, 0.0, none, np.zeros(0), totals, 0)
