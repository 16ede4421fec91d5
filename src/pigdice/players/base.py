"""What a player is: the Strategy protocol, the TableStrategy protocol, people, and shared predicates.

A strategy is anything with ``name`` and ``choose(state, rng) -> Action``. A strategy that is a
function of (my score, the highest opponent score, turn total) also writes itself out as an
action table (``action_table(variant)``: see ``pigdice.solve.actions`` for the codes), which the
exact evaluator, the analyses and the fast simulator read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from pigdice.engine.game import HOLD, Action, GameState, Roll, legal_actions
from pigdice.errors import BadStrategyError
from pigdice.rules.variant import Variant

if TYPE_CHECKING:  # the solver (numba) loads only where a policy is used
    from pigdice.solve.policy import Policy


@runtime_checkable
class Strategy(Protocol):
    """Chooses an action for the current player of a state."""

    @property
    def name(self) -> str:
        """Return the strategy's spec string or display name."""

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Return the action to take in ``state``."""


Progress = Callable[[float], None]  # hears the fraction of a long job done


@runtime_checkable
class TableStrategy(Strategy, Protocol):
    """A strategy that is a function of (score, highest opponent score, turn total), written out."""

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the (goal, goal, goal) int8 action table T[i, j, k] of 2-player, first-to-goal ``variant``."""


@runtime_checkable
class SolvedStrategy(TableStrategy, Protocol):
    """A table strategy read off a solved policy (the perfect player)."""

    @property
    def policy(self) -> Policy:
        """Return the solved policy the strategy plays (solving on first use)."""


def perspective(state: GameState) -> tuple[int, int, int]:
    """Return (my score, the highest opponent score, my turn total) for the current player."""
    me = state.current
    return state.scores[me], max(s for p, s in enumerate(state.scores) if p != me), state.turn_total


def can_win_by_holding(state: GameState) -> bool:
    """Return True if holding now wins (or, in a final round, beats every other score)."""
    player = state.current
    total = state.scores[player] + state.turn_total
    if state.final_round is not None:
        return total > max(s for p, s in enumerate(state.scores) if p != player)
    return total >= state.variant.goal


def must_keep_rolling(state: GameState) -> bool:
    """Return True in a final round while holding would still leave the player behind."""
    return state.final_round is not None and not can_win_by_holding(state)


def chases_in_last_turn(strategy: Strategy) -> bool:
    """Return True if ``strategy``, in a last turn after someone reached the goal, rolls until strictly ahead.

    The robots built on ``may_hold`` and ``can_win_by_holding`` do (hold:N, keep-pace, max-score);
    they say so with a class attribute ``chases_in_last_turn = True``, which lets the fast
    simulator play their final rounds and equal turns. Plug-ins and the perfect player do not.
    """
    return bool(getattr(strategy, "chases_in_last_turn", False))


def may_hold(state: GameState) -> bool:
    """Return True if holding is legal and the final round does not force another roll."""
    return HOLD in legal_actions(state) and not must_keep_rolling(state)


def roll_with(variant: Variant, dice: int | None) -> Roll:
    """Return a roll of ``dice`` dice, clamped to the variant's choices (None: the smallest)."""
    if not variant.chooses_dice:
        return Roll()
    wanted = dice if dice is not None else variant.choices[0]
    return Roll(min(max(wanted, variant.choices[0]), variant.choices[-1]))


def roll_choice(variant: Variant, code: int) -> Roll:
    """Return the roll for action-table code ``code`` (c + 1 rolls with choice c)."""
    return Roll(variant.choices[code - 1]) if variant.chooses_dice else Roll()


@dataclass(frozen=True)
class Human:
    """A person at the keyboard (or browser); front ends ask them instead of calling ``choose``."""

    label: str = "you"

    @property
    def name(self) -> str:
        """Return the display name."""
        return self.label

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Humans are asked by the front end, never through this method."""
        raise BadStrategyError("a human player's moves come from the front end")


def is_human(strategy: object) -> bool:
    """Return True if ``strategy`` stands for a person."""
    return isinstance(strategy, Human)
