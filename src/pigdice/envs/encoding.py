"""One encoding of actions and observations for every research interface (Gymnasium, PettingZoo, OpenSpiel).

Actions are the environment integers of the action codec (``pigdice.engine.codec``,
``Convention.ROLLS_FIRST``): ``a < len(variant.choices)`` rolls ``variant.choices[a]`` dice (Pig: 0
is roll), and ``len(variant.choices)`` holds (Pig: 1 is hold), as OpenSpiel's own ``pig`` (0 roll,
1 stop). Games with one throw a turn (Hog) have no hold action. In an action table hold is code 0
and roll choice c is code c + 1 (``Convention.HOLD_FIRST``); ``table_code`` converts.

An observation, seen from seat ``seat``, is a vector of whole numbers:
``[goal, turn total, rolls this turn, final round under way]`` followed, for each player in turn
order starting with ``seat`` itself, by ``[score, to move, owed a last turn, standing]`` (standing:
Swine Herd's players still up this turn; 1 for everyone else's game). Values are clipped to
``OBSERVATION_HIGH`` (2^31 - 1), far above any score a game reaches.

The "exact" observation (``observe_exact``) keeps only what exact evaluation reads, so a policy
trained on it can be written out as an action table and evaluated exactly (``pigdice.evaluate``):
``[turn total, final round under way]`` followed, for each player from ``seat`` on, by
``[score, owed a last turn, standing]`` (no goal, no "rolls this turn", no "to move").
"""

from __future__ import annotations

import numpy as np

from pigdice.engine.codec import HOLD_FIRST, ROLLS_FIRST, action_count, convert, hold_integer, to_action, to_integer
from pigdice.engine.game import GameState, legal_actions
from pigdice.engine.simultaneous import choosing_seats, seat_view
from pigdice.rules.variant import Variant

__all__ = [  # the codec's integer doorway is re-exported: the envs' callers import it from here
    "EXACT_HEADER",
    "EXACT_PER_PLAYER",
    "HEADER",
    "OBSERVATIONS",
    "OBSERVATION_HIGH",
    "PER_PLAYER",
    "action_count",
    "action_mask",
    "exact_observation_size",
    "hold_action",
    "observation_size",
    "observation_size_of",
    "observe",
    "observe_as",
    "observe_exact",
    "table_code",
    "to_action",
    "to_integer",
]

OBSERVATION_HIGH = 2**31 - 1
HEADER = ("goal", "turn_total", "rolls_this_turn", "final_round")
PER_PLAYER = ("score", "to_move", "owed_last_turn", "standing")
EXACT_HEADER = ("turn_total", "final_round")
EXACT_PER_PLAYER = ("score", "owed_last_turn", "standing")
OBSERVATIONS = ("full", "exact")  # the observation kinds every environment offers


def hold_action(variant: Variant) -> int | None:
    """Return the environment integer of the hold action (None in games with one throw a turn, Hog)."""
    return hold_integer(variant, ROLLS_FIRST)


def table_code(variant: Variant, action: int) -> int:
    """Return the action-table code of environment integer ``action`` (hold 0, roll choice c is c + 1)."""
    return convert(variant, action, ROLLS_FIRST, HOLD_FIRST)


def action_mask(state: GameState, seat: int | None = None) -> np.ndarray:
    """Return the int8 mask of the legal actions of ``seat`` (default: the player to move); all 0 when it has none."""
    variant = state.variant
    mask = np.zeros(action_count(variant), dtype=np.int8)
    if state.is_terminal():
        return mask
    if seat is not None and seat != state.current:
        if seat not in choosing_seats(state):
            return mask
        state = seat_view(state, seat)
    for action in legal_actions(state):
        mask[to_integer(variant, action)] = 1
    return mask


def observation_size(players: int) -> int:
    """Return the length of an observation vector for ``players`` players."""
    return len(HEADER) + len(PER_PLAYER) * players


def observe(state: GameState, seat: int) -> np.ndarray:
    """Return the int64 observation vector of ``state`` seen from ``seat`` (see the module docstring)."""
    players = state.players
    out = np.zeros(observation_size(players), dtype=np.int64)
    final = state.final_round
    out[:4] = (state.variant.goal, state.turn_total, state.rolls_this_turn, final is not None)
    for offset in range(players):
        player = (seat + offset) % players
        standing = state.standing[player] if state.standing else True
        to_move = not state.is_terminal() and (
            player == state.current if not state.variant.is_simultaneous else standing
        )
        base = len(HEADER) + len(PER_PLAYER) * offset
        out[base : base + 4] = (
            state.scores[player],
            to_move,
            final is not None and player in final,
            standing,
        )
    return np.minimum(out, OBSERVATION_HIGH)


def exact_observation_size(players: int) -> int:
    """Return the length of an "exact" observation vector for ``players`` players."""
    return len(EXACT_HEADER) + len(EXACT_PER_PLAYER) * players


def observe_exact(state: GameState, seat: int) -> np.ndarray:
    """Return the int64 "exact" observation of ``state`` seen from ``seat`` (see the module docstring)."""
    players = state.players
    out = np.zeros(exact_observation_size(players), dtype=np.int64)
    final = state.final_round
    out[:2] = (state.turn_total, final is not None)
    for offset in range(players):
        player = (seat + offset) % players
        base = len(EXACT_HEADER) + len(EXACT_PER_PLAYER) * offset
        standing = state.standing[player] if state.standing else True
        out[base : base + 3] = (state.scores[player], final is not None and player in final, standing)
    return np.minimum(out, OBSERVATION_HIGH)


def observation_size_of(kind: str, players: int) -> int:
    """Return the length of a ``kind`` ("full" or "exact") observation for ``players`` players."""
    return exact_observation_size(players) if kind == "exact" else observation_size(players)


def observe_as(kind: str, state: GameState, seat: int) -> np.ndarray:
    """Return the ``kind`` ("full" or "exact") observation of ``state`` seen from ``seat``."""
    return observe_exact(state, seat) if kind == "exact" else observe(state, seat)
