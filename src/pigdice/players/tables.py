"""Action tables: a 2-player strategy written out for every state (my score, opponent's, turn total).

``T[i, j, k]`` is 0 to hold or ``c + 1`` to roll with roll choice ``c`` (Hog reads only
``k = 0``). Tables feed the exact evaluator and the exact analyses; a strategy that is not a
function of those three numbers (``rolls:N`` counts rolls, ``random`` draws) has no table and
is studied by simulation instead.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pigdice.engine.game import GameState, Hold, Roll, new_game
from pigdice.errors import BadStrategyError
from pigdice.players.base import DiceEachTurn, HoldAt, RandomPlayer, RollTimes, Strategy, is_human
from pigdice.rules.variant import Decision, Endgame, Variant

Progress = Callable[[float], None]


def _choice_index(variant: Variant, dice: int | None) -> int:
    if not variant.chooses_dice or dice is None:
        return 1
    return variant.choices.index(dice) + 1


def _hold_at_table(variant: Variant, strategy: HoldAt) -> np.ndarray:
    goal = variant.goal
    k = np.arange(goal)[None, None, :]
    roll = _choice_index(
        variant, min(max(strategy.dice or variant.choices[0], variant.choices[0]), variant.choices[-1])
    )
    table = np.where(k >= strategy.threshold, 0, roll).astype(np.int8)
    return np.broadcast_to(table, (goal, goal, goal)).copy()


def _optimal_table(variant: Variant, strategy: Strategy) -> np.ndarray:
    return strategy.policy.action_table()  # type: ignore[attr-defined,no-any-return]


def action_table(strategy: Strategy, variant: Variant, progress: Progress | None = None) -> np.ndarray:
    """Return the (goal, goal, goal) int8 action table of ``strategy`` in 2-player ``variant``."""
    if variant.decision is Decision.SIMULTANEOUS:
        raise BadStrategyError(f"{variant.name} is played by everyone at once; exact tables are for turn-based games")
    if is_human(strategy):
        raise BadStrategyError("a human has no action table")
    if isinstance(strategy, (RollTimes, RandomPlayer)):
        raise BadStrategyError(
            f"{strategy.name} is not a function of (score, opponent, turn total); compare it by simulation (--games N)"
        )
    if variant.endgame is not Endgame.FIRST_TO_GOAL:
        variant = variant.with_endgame(Endgame.FIRST_TO_GOAL)
    goal = variant.goal
    if isinstance(strategy, HoldAt) and variant.decision is not Decision.DICE_PER_TURN:
        return _hold_at_table(variant, strategy)
    if isinstance(strategy, DiceEachTurn):
        return np.full((goal, goal, goal), _choice_index(variant, strategy.dice), dtype=np.int8)
    if getattr(strategy, "name", "") == "optimal" and hasattr(strategy, "policy"):
        return _optimal_table(variant, strategy)
    custom = getattr(strategy, "action_table", None)
    if callable(custom):
        return np.ascontiguousarray(custom(variant), dtype=np.int8)
    return _tabulate(strategy, variant, progress)


def _tabulate(strategy: Strategy, variant: Variant, progress: Progress | None) -> np.ndarray:
    """Ask the strategy in every state (slow, but works for any state function)."""
    goal = variant.goal
    table = np.zeros((goal, goal, goal), dtype=np.int8)
    rng = np.random.default_rng(0)
    base = new_game(variant, 2)
    last_k = 1 if variant.decision is Decision.DICE_PER_TURN else goal
    for i in range(goal):
        for j in range(goal):
            for k in range(min(last_k, goal - i)):
                state = GameState(
                    variant=variant,
                    scores=(i, j),
                    current=0,
                    turn_total=k,
                    rolls_this_turn=1 if k else 0,
                    turns_played=base.turns_played,
                    reached=base.reached,
                )
                action = strategy.choose(state, rng)
                if isinstance(action, Hold):
                    table[i, j, k] = 0
                elif isinstance(action, Roll):
                    table[i, j, k] = _choice_index(variant, action.dice)
            if variant.decision is Decision.DICE_PER_TURN:
                table[i, j, :] = table[i, j, 0]
        if progress is not None:
            progress((i + 1) / goal)
    return table
