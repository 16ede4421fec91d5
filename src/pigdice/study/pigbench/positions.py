"""What Pig-Bench's environment shows a learner and how its integers map to action-table codes (no Gymnasium needed)."""

from __future__ import annotations

import numpy as np

from pigdice.engine.game import Action, Hold, Roll
from pigdice.rules.variant import Variant

OBSERVATION_SIZE = 12  # the research environments' observation of a 2-player game
MAX_DECISIONS = 2_000  # a game still running after this many of the learner's decisions is cut off
ROLLS_THIS_TURN = "0 at turn total 0, 1 after"  # the value the observation's "rolls this turn" is fixed at


def action_count(variant: Variant) -> int:
    """Return the number of actions: one roll per dice choice, then hold where the player may hold."""
    return len(variant.choices) + int(variant.can_hold)


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
    if code == 0:
        return Hold()
    return Roll(variant.choices[code - 1]) if variant.chooses_dice else Roll()


def code_of(variant: Variant, action: int) -> int:
    """Return the action-table code of the environment's integer ``action`` (rolls first, hold last)."""
    return 0 if variant.can_hold and action == len(variant.choices) else int(action) + 1
