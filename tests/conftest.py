"""Shared test helpers: play a game from scripted throws and a line of actions."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pigdice.engine.events import Event
from pigdice.engine.game import GameState, parse_action, replay
from pigdice.rules import ScriptedDice, Variant

Play = Callable[..., tuple[GameState, list[Event]]]


def play_script(
    variant: Variant, players: int, actions: str, throws: list[tuple[int, ...] | None]
) -> tuple[GameState, list[Event]]:
    """Replay whitespace-separated actions ('r', 'h', 'roll:3') against scripted throws.

    Every scripted throw must be used, so a table row cannot silently leave dice unread.
    """
    dice = ScriptedDice(throws)
    state, events = replay(variant, players, None, [parse_action(a) for a in actions.split()], dice=dice)
    assert dice.remaining == 0, f"{dice.remaining} scripted throws were never used"
    return state, events


@pytest.fixture(autouse=True, scope="session")
def _policy_cache_outside_the_user_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep solved policies and saved games of the test run in temporary folders, never in the user's folders."""
    import os

    os.environ.setdefault("PIGDICE_CACHE_DIR", str(tmp_path_factory.mktemp("policies")))
    os.environ.setdefault("PIGDICE_GAMES_DIR", str(tmp_path_factory.mktemp("games")))


@pytest.fixture
def play() -> Play:
    """Return the scripted-game helper ``play(variant, players, actions, throws)``."""
    return play_script
