"""Action tables and what is read off them: one home for the codes and their summaries.

An action table ``T[i, j, k]`` says what a strategy does at its score i, the opponent's score
j and turn total k: ``HOLD`` (0), or ``c + 1`` to roll with roll choice c (the number of dice
``variant.choices[c]``). One-throw-per-turn games (Hog) read only ``k = 0``. The solver writes
the optimal table, the players write theirs, and studies and pictures read them here.
"""

from __future__ import annotations

import numpy as np

HOLD = 0
# roll choices whose values tie to this much (1 die twice = 2 dice once while the turn goes on anyway):
# the fewer dice are chosen (the solver's kernels and the quick rows alike)
ROLL_TIE = 1e-13


def first_hold(row: np.ndarray, limit: int) -> int:
    """Return the smallest turn total k >= 1 at which ``row`` holds, or ``limit`` if it never does below it."""
    holds = np.flatnonzero(row[1:limit] == HOLD)
    return int(holds[0]) + 1 if holds.size else limit


def hold_thresholds(actions: np.ndarray) -> np.ndarray:
    """Return H[i, j]: the smallest turn total k >= 1 at which the table holds (goal - i if never)."""
    goal = actions.shape[0]
    thresholds = np.empty((goal, goal), dtype=np.int64)
    for i in range(goal):  # a row at a time: goal^2 temporaries, not several goal^3 ones
        limit = goal - i
        if limit <= 1:
            thresholds[i] = limit
            continue
        holds = actions[i, :, 1:limit] == HOLD
        thresholds[i] = np.where(holds.any(axis=1), np.argmax(holds, axis=1) + 1, limit)
    return thresholds


def dice_at_start(choices: tuple[int, ...], actions: np.ndarray) -> np.ndarray:
    """Return D[i, j]: the number of dice the table throws at turn total 0 (dice-choosing games)."""
    counts = np.array(choices)
    index = np.clip(actions[:, :, 0].astype(np.int64) - 1, 0, len(counts) - 1)
    return counts[index]
