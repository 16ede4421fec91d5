"""The named bundles the 2-player kernels share: what one solve's turns have in common, and what an evaluation returns.

Numba compiles NamedTuples to plain structs and their field reads to loads, so the kernels take
these whole instead of long argument lists, and a name, not a slot number, says what each part is.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pigdice.solve.layout import SWEEP_GENERAL
from pigdice.solve.tables import EffectTable

NO_LAST = np.zeros(0)  # first to the goal: banking the goal wins


class Ends(NamedTuple):
    """What banking past the goal is worth (``pigdice.solve.two.endgame``); empty tables: first to the goal wins."""

    mover_last: np.ndarray  # L[d], read when the player who moves at (i, j) banks past the goal
    other_last: np.ndarray  # the same for the player who moves at (j, i) (equal turns: the seat matters)
    bust_chance: float  # the smallest bust chance of any roll choice: the margin of the stop past the goal
    cap: int  # > 0: a player at or past this total holds (the tests' reference)


FIRST_TO_GOAL_ENDS = Ends(NO_LAST, NO_LAST, 0.0, 0)


class Game(NamedTuple):
    """What every turn of one 2-player solve or evaluation shares."""

    goal: int
    table: EffectTable
    ends: Ends
    sweep: int  # the sweep roll/hold turns take (``pigdice.solve.layout``): a fast one only first to the goal


def game_of(goal: int, table: EffectTable, ends: Ends = FIRST_TO_GOAL_ENDS) -> Game:
    """Return the bundle of a solve to ``goal`` with ``table`` and ``ends``, choosing its sweep."""
    ends = Ends(*ends)
    first_to_goal = ends.mover_last.shape[0] == 0 and ends.other_last.shape[0] == 0 and ends.cap == 0
    return Game(goal, table, ends, table.sweep if first_to_goal else SWEEP_GENERAL)


class Evaluation(NamedTuple):
    """One evaluation pass of two fixed strategies: the largest change, and the pairs of states that never end."""

    change: float
    endless: int  # pairs whose turns both surely hand the other the same scores (the game never ends there)
    endless_score: int  # the (mover's score, other's score) of the one with the lowest score sum
    endless_other: int
