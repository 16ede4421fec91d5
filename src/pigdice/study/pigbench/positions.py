"""What Pig-Bench's environment shows a learner and how its integers map to action-table codes (no Gymnasium needed)."""

from __future__ import annotations

import numpy as np

from pigdice.engine.codec import HOLD_FIRST, ROLLS_FIRST, action_count, convert, to_action
from pigdice.engine.game import Action
from pigdice.rules.variant import Variant

__all__ = [  # action_count is the codec's, re-exported for Pig-Bench's callers
    "MAX_DECISIONS",
    "OBSERVATION_SIZE",
    "ROLLS_THIS_TURN",
    "action_count",
    "code_of",
    "observations",
    "table_action",
]

OBSERVATION_SIZE = 12  # the research environments' observation of a 2-player game
MAX_DECISIONS = 2_000  # a game still running after this many of the learner's decisions is cut off
ROLLS_THIS_TURN = "0 at turn total 0, 1 after"  # the value the observation's "rolls this turn" is fixed at


def observations(goal: int, scores: np.ndarray, others: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Return the float32 observations of 2-player positions (mover's score, other's score, turn total)."""
    out = np.zeros((len(scores), OBSERVATION_SIZE), dtype=np.float32)
    out[:, 0] = 1.0  # the goal, divided by the goal
    out[:, 1] = np.asarray(totals) / goal
    out[:, 2] = np.asarray(totals) > 0  # rolls this turn, fixed (see ROLLS_THIS_TURN)
    out[:, 4] = np.asarray(scores) / goal  # the mover: score, to move, owed a last turn (never), standing
    out[:, 5] = 1.0
    out[:, 7] = 1.0
    out[:, 8] = np.asarray(others) / goal  # the other player
    out[:, 11] = 1.0
    return out


def table_action(variant: Variant, code: int) -> Action:
    """Return the engine action of an action-table code (hold 0, roll choice c is c + 1)."""
    return to_action(variant, code, HOLD_FIRST)


def code_of(variant: Variant, action: int) -> int:
    """Return the action-table code of the environment's integer ``action`` (rolls first, hold last)."""
    return convert(variant, action, ROLLS_FIRST, HOLD_FIRST)
