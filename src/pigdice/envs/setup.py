"""What every environment shares: the variant, the checks of the shared parameters, the "at the goal you hold" rule.

``hold_at_goal`` (default True in every environment: Gymnasium, PettingZoo, OpenSpiel): in a game
won by the first to reach the goal, a player whose score plus turn total reaches it may only hold,
as in OpenSpiel's ``pig`` (rolling on could only lose a won game) and as exact evaluation assumes.
False offers every action the rules allow. It never applies to other endings (a final round, equal
turns, Swine Herd), where rolling past the goal can still matter.
"""

from __future__ import annotations

import numpy as np

from pigdice.engine.events import Event
from pigdice.engine.game import GameState, Roll
from pigdice.engine.simultaneous import apply_choices
from pigdice.envs.encoding import OBSERVATIONS, action_mask, hold_action
from pigdice.errors import BadParameterError
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Endgame, Variant

MAX_DECISIONS = 10_000  # a game still running after this many decisions is cut off (truncated)
MAX_DECISIONS_LIMIT = 10_000_000


def make_variant(
    variant: str | Variant, goal: int | None = None, endgame: str | None = None, ties: str | None = None
) -> Variant:
    """Return the variant an environment plays: a name or a Variant, with an optional goal, endgame and tie rule."""
    chosen = find_variant(variant, files=True) if isinstance(variant, str) else variant
    if not isinstance(chosen, Variant):
        raise BadParameterError(f"variant must be a name such as 'pig' or a Variant, got {type(variant).__name__}")
    if goal is not None:
        chosen = chosen.with_goal(goal)
    if endgame is not None or ties is not None:
        chosen = chosen.with_endgame(endgame or chosen.endgame, ties)
    return chosen


def check_decisions(max_decisions: int) -> int:
    """Return ``max_decisions`` after checking it is a whole number in 1..10,000,000."""
    if isinstance(max_decisions, bool) or not isinstance(max_decisions, int):
        raise BadParameterError(f"max_decisions must be a whole number, got {max_decisions!r}")
    if not 1 <= max_decisions <= MAX_DECISIONS_LIMIT:
        raise BadParameterError(f"max_decisions must be between 1 and {MAX_DECISIONS_LIMIT:,}, got {max_decisions}")
    return max_decisions


def check_player_count(variant: Variant, players: int) -> int:
    """Return ``players`` after checking it is a whole number the variant allows."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise BadParameterError(f"players must be a whole number, got {players!r}")
    variant.check_players(players)
    return players


RENDER_MODES = ("ansi", "human")  # ansi: render() returns the line of text; human: it prints it


def check_render_mode(render_mode: str | None) -> str | None:
    """Return ``render_mode`` after checking it is None, 'ansi' (return a line of text) or 'human' (print it)."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise BadParameterError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
    return render_mode


def render_text(state: GameState, render_mode: str | None) -> str | None:
    """Return the game's line of text in 'ansi' mode; print it in 'human' mode (Gymnasium's text convention)."""
    if render_mode == "ansi":
        return describe(state)
    if render_mode == "human":
        print(describe(state))  # the human mode prints, as Gymnasium's text environments do
    return None


def check_observation(observation: str) -> str:
    """Return ``observation`` after checking it is 'full' or 'exact' (see ``pigdice.envs.encoding``)."""
    if not isinstance(observation, str) or observation not in OBSERVATIONS:
        raise BadParameterError(f"observation must be 'full' or 'exact', got {observation!r}")
    return observation


def check_hold_at_goal(hold_at_goal: bool) -> bool:
    """Return ``hold_at_goal`` after checking it is True or False."""
    if not isinstance(hold_at_goal, bool):
        raise BadParameterError(f"hold_at_goal must be True or False, got {hold_at_goal!r}")
    return hold_at_goal


def must_hold(state: GameState) -> bool:
    """Return True if the player to move has reached the goal in a first-to-goal, turn-based game and may hold."""
    variant = state.variant
    return (
        variant.endgame is Endgame.FIRST_TO_GOAL
        and variant.can_hold
        and not variant.is_simultaneous
        and not state.is_terminal()
        and state.scores[state.current] + state.turn_total >= variant.goal
    )


def legal_mask(state: GameState, seat: int | None, hold_at_goal: bool) -> np.ndarray:
    """Return the int8 mask of ``seat``'s legal actions; with ``hold_at_goal``, only hold once the goal is reached."""
    mask = action_mask(state, seat)
    if hold_at_goal and (seat is None or seat == state.current) and must_hold(state):
        hold = hold_action(state.variant)
        if hold is not None and mask[hold]:
            mask[:] = 0
            mask[hold] = 1
    return mask


def skip_empty_moments(state: GameState, rng: np.random.Generator) -> tuple[GameState, list[Event]]:
    """Swine Herd: roll on while the shared turn total is 0 (nothing to bank, so everyone stands: no choice)."""
    events: list[Event] = []
    while state.variant.is_simultaneous and not state.is_terminal() and state.turn_total == 0:
        standing = [seat for seat, up in enumerate(state.standing) if up]
        state, new_events = apply_choices(state, dict.fromkeys(standing, Roll()), rng)
        events.extend(new_events)
    return state, events


def describe(state: GameState) -> str:
    """Return a one-line text picture of the game (what the environments' ansi render shows)."""
    scores = ", ".join(f"player {p}: {s}" for p, s in enumerate(state.scores))
    if state.is_terminal():
        winners = " and ".join(f"player {p}" for p in state.winners or ())
        return f"{scores}. Game over: {winners} won."
    if state.variant.is_simultaneous:
        up = ", ".join(str(p) for p, standing in enumerate(state.standing) if standing)
        return f"{scores}. Shared turn total {state.turn_total}; standing: {up}."
    return f"{scores}. Player {state.current} to move with turn total {state.turn_total}."
