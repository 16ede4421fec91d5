"""What every environment shares: the variant from its parameters, the decision cap, and Swine Herd's empty moments."""

from __future__ import annotations

import numpy as np

from pigdice.engine.events import Event
from pigdice.engine.game import GameState, Roll
from pigdice.engine.simultaneous import apply_choices
from pigdice.errors import BadParameterError
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Variant

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


def check_render_mode(render_mode: str | None) -> str | None:
    """Return ``render_mode`` after checking it is None or 'ansi' (a line of text)."""
    if render_mode not in (None, "ansi"):
        raise BadParameterError(f"render_mode must be None or 'ansi', got {render_mode!r}")
    return render_mode


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
