"""Bounds on simulated work: how many games one call may play, checked before any is played."""

from __future__ import annotations

import numbers
from typing import Any

from pigdice.errors import BadParameterError
from pigdice.rules.parameters import shown

# The most games one simulation, comparison or tournament match plays. The fast simulator plays
# about a million 2-player Pig games a second per core (README, performance targets), so 10^9
# games are a quarter of an hour; the engine loop is thousands of times slower still.
MAX_GAMES = 10**9


def check_games(games: Any, minimum: int = 1, name: str = "games", why: str = "") -> int:
    """Return ``games`` if it is a whole number from ``minimum`` to ``MAX_GAMES``, else raise BadParameterError.

    ``why`` explains the minimum, e.g. " (each side starts half)".
    """
    if isinstance(games, bool) or not isinstance(games, numbers.Integral):
        raise BadParameterError(f"{name} must be a whole number, got {shown(games)}")
    if games < minimum:
        raise BadParameterError(f"{name} must be at least {minimum}{why}, got {games}")
    if games > MAX_GAMES:
        raise BadParameterError(f"{name} must be at most {MAX_GAMES:_} (10^9) games, got {shown(games)}")
    return int(games)
