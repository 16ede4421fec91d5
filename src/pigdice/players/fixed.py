"""Fixed robots: hold at N, roll N times, a fixed number of dice, and random moves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll, legal_actions
from pigdice.errors import BadStrategyError
from pigdice.players.base import Progress, can_win_by_holding, may_hold, roll_with
from pigdice.rules.variant import Decision, Variant


def choice_code(variant: Variant, dice: int | None) -> int:
    """Return the action-table code of rolling ``dice`` dice (clamped to the choices; 1 if not chosen)."""
    if not variant.chooses_dice or dice is None:
        return 1
    return variant.choices.index(min(max(dice, variant.choices[0]), variant.choices[-1])) + 1


@dataclass(frozen=True)
class HoldAt:
    """Roll until the turn total reaches ``threshold`` or holding wins (``dice`` per roll if chosen)."""

    threshold: int
    dice: int | None = None
    chases_in_last_turn: ClassVar[bool] = True  # a last turn: roll until ahead (may_hold)

    @property
    def name(self) -> str:
        """Return the spec string."""
        return f"hold:{self.threshold}" + (f"+dice:{self.dice}" if self.dice else "")

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold at the threshold (or when holding wins), otherwise roll."""
        if may_hold(state):
            if state.turn_total >= self.threshold or (state.turn_total > 0 and can_win_by_holding(state)):
                return Hold()
        return roll_with(state.variant, self.dice)

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the action table: roll below the threshold, hold from it on."""
        if variant.decision is Decision.DICE_PER_TURN:
            raise BadStrategyError(f"{self.name}: {variant.name} has one throw per turn; use dice:N")
        goal = variant.goal
        k = np.arange(goal)[None, None, :]
        table = np.where(k >= self.threshold, 0, choice_code(variant, self.dice)).astype(np.int8)
        return np.broadcast_to(table, (goal, goal, goal)).copy()


@dataclass(frozen=True)
class RollTimes:
    """Roll ``times`` times each turn, then hold (earlier if holding wins)."""

    times: int
    dice: int | None = None

    @property
    def name(self) -> str:
        """Return the spec string."""
        return f"rolls:{self.times}" + (f"+dice:{self.dice}" if self.dice else "")

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold after the given number of rolls (or when holding wins), otherwise roll."""
        if may_hold(state):
            if state.rolls_this_turn >= self.times or (state.turn_total > 0 and can_win_by_holding(state)):
                return Hold()
        return roll_with(state.variant, self.dice)


@dataclass(frozen=True)
class RandomPlayer:
    """Holds with probability one half (when it may), else rolls a random legal number of dice."""

    name: str = "random"

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Pick a random legal action."""
        legal = legal_actions(state)
        rolls = [a for a in legal if isinstance(a, Roll)]
        if Hold() in legal and rng.random() < 0.5:
            return Hold()
        return rolls[int(rng.integers(len(rolls)))]


@dataclass(frozen=True)
class DiceEachTurn:
    """Hog: throw the same number of dice every turn."""

    dice: int

    @property
    def name(self) -> str:
        """Return the spec string."""
        return f"dice:{self.dice}"

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Throw ``dice`` dice."""
        return Roll(self.dice)

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the action table: the same dice everywhere."""
        goal = variant.goal
        return np.full((goal, goal, goal), choice_code(variant, self.dice), dtype=np.int8)
