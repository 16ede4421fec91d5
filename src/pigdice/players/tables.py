"""Action tables: a 2-player strategy written out for every state (my score, opponent's, turn total).

``T[i, j, k]`` is 0 to hold or ``c + 1`` to roll with roll choice ``c`` (Hog reads only
``k = 0``; the codes are ``pigdice.solve.actions``'). Tables feed the exact evaluator, the exact
analyses and the fast simulator. A strategy has one exactly when it implements the
``TableStrategy`` protocol; one that is not a function of those three numbers (``rolls:N``
counts rolls, ``random`` draws, people decide) has none and is studied by simulation instead.
"""

from __future__ import annotations

import numpy as np

from pigdice.errors import BadStrategyError
from pigdice.players.base import Progress, Strategy, TableStrategy, is_human
from pigdice.rules.variant import Variant


def has_table(strategy: Strategy) -> bool:
    """Return True if ``strategy`` can be written out as an action table."""
    return isinstance(strategy, TableStrategy)


def action_table(strategy: Strategy, variant: Variant, progress: Progress | None = None) -> np.ndarray:
    """Return the (goal, goal, goal) int8 action table of ``strategy`` in 2-player, first-to-goal ``variant``."""
    variant.require_turns("an action table")
    if is_human(strategy):
        raise BadStrategyError("a human has no action table")
    if not isinstance(strategy, TableStrategy):
        raise BadStrategyError(
            f"{strategy.name} is not a function of (score, opponent, turn total); compare it by simulation (--games N)"
        )
    variant = variant.first_to_goal()
    table = np.ascontiguousarray(strategy.action_table(variant, progress), dtype=np.int8)
    goal = variant.goal
    if table.shape != (goal, goal, goal):
        raise BadStrategyError(f"{strategy.name} wrote a table of shape {table.shape}, not {(goal, goal, goal)}")
    return table
