"""Swine Herd's moments of choice, taken together: every standing player's choice, then one reveal.

The engine applies Swine Herd's choices one seat at a time (that is how a log replays), so a
front end that asked the seats in order would show each choice before the next seat decides.
``apply_choices`` takes all the choices of one moment at once, made on the same state, and
applies them in seat order: nobody's choice depends on another's of the same moment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from pigdice.engine.events import Event
from pigdice.engine.game import Action, GameState, Pass, Roll, apply, legal_actions
from pigdice.errors import IllegalActionError
from pigdice.rules.outcomes import ScriptedDice


class AppliedChoice(NamedTuple):
    """One seat's choice of a moment as the engine applied it: the seat, the choice, the state after, its events."""

    seat: int
    choice: Action | Pass
    state: GameState
    events: list[Event]


def choosing_seats(state: GameState) -> list[int]:
    """Return the seats that choose at this moment: every standing player (Swine Herd), else the mover.

    A Swine Herd state part-way through a moment (a log applied one seat at a time) leaves out the
    standing seats before the mover: they have chosen already.
    """
    if state.is_terminal():
        return []
    if not state.variant.is_simultaneous:
        return [state.current]
    return [seat for seat, up in enumerate(state.standing) if up and seat >= state.current]


def rules_stand(state: GameState) -> bool:
    """Return True if the rules leave nobody a choice now: everyone stands for a Swine Herd turn's first roll."""
    return state.variant.is_simultaneous and not state.is_terminal() and legal_actions(state) == [Roll()]


def seat_view(state: GameState, seat: int) -> GameState:
    """Return ``state`` as seat ``seat`` sees it when choosing (it is their move; nobody else's choice shown)."""
    if seat not in choosing_seats(state):
        raise IllegalActionError(f"seat {seat} has no choice to make now")
    if seat == state.current:  # a turn-based game's mover (or Swine Herd's seat that is current) sees it as it is
        return state
    return GameState(**{**state.__dict__, "current": seat})


def apply_choices(
    state: GameState, choices: Mapping[int, Action | Pass], rng: np.random.Generator | ScriptedDice
) -> tuple[GameState, list[Event]]:
    """Apply the choices of every seat that chooses now (made on the same state); return the new state and events.

    A ``Pass`` is a seat whose time ran out (in Swine Herd: it sits down with nothing banked).

    Raises IllegalActionError if a choosing seat is missing, a seat that has no choice is
    given one, or a choice is not allowed.
    """
    applied = apply_each_choice(state, choices, rng)
    after = applied[-1].state if applied else state  # a finished game: nobody chooses, nothing happens
    return after, [event for step in applied for event in step.events]


def apply_each_choice(
    state: GameState, choices: Mapping[int, Action | Pass], rng: np.random.Generator | ScriptedDice
) -> list[AppliedChoice]:
    """Apply the choices of every seat that chooses now, as ``apply_choices``; return each seat's step in seat order.

    Raises IllegalActionError as ``apply_choices`` does (naming the seat where several choose).
    """
    seats = choosing_seats(state)
    if sorted(choices) != seats:
        raise IllegalActionError(f"choices are needed from seats {seats}, got {sorted(choices)}")
    applied: list[AppliedChoice] = []
    for seat in seats:  # the engine asks the standing seats in seat order and rolls after the last
        try:
            state, events = apply(state, choices[seat], rng)
        except IllegalActionError as error:  # nothing is lost: states never change in place
            if len(seats) == 1:
                raise
            raise IllegalActionError(f"seat {seat}: {error}") from None
        applied.append(AppliedChoice(seat, choices[seat], state, events))
    return applied
