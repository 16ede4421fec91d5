"""The exact outcome of one turn from every turn-start state under a strategy's action table.

For each (mover i, other j), one forward pass over the turn total k (``kernels.turn_rows``)
turns the action table into the distribution of the turn's outcome: the mover's new score
(after holding, busting, resetting or banking) or reaching the goal, plus the expected points
banked, the chances of a bust or a reset, and the expected visits to every turn total. Effects
that lower or pin the turn total (Pig Dice's tail, Knizia's 1-1) make the pass repeat until no
mass is left in the turn.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.memory import (
    ENTRIES_PER_STATE,
    ENTRY_BYTES,
    available_bytes,
    check_memory,
    refuse,
    turn_outcomes_bytes,
)
from pigdice.solve.solver import solvable
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.study.analysis.kernels import EffectLabels, SeatTurns, TurnTallies, turn_rows

VISITS_MAX_GOAL = 200  # in-turn state visits (goal^3 numbers) are kept up to this goal


@dataclass(frozen=True)
class TurnOutcomes:
    """What one turn does from every turn-start state (mover i, other j) under one strategy."""

    indptr: np.ndarray  # CSR over rows i * goal + j: the mover's possible new scores below the goal
    scores: np.ndarray  # int64
    probabilities: np.ndarray  # float64
    win: np.ndarray  # (goal, goal): P(the turn reaches the goal)
    scoring: np.ndarray  # P(the turn banks points)
    banked: np.ndarray  # expected points banked by the turn (seed 003, Figure 10)
    bust: np.ndarray  # P(the turn total is lost)
    reset: np.ndarray  # P(the whole score is lost)
    rolls: np.ndarray  # expected rolls in the turn
    stay: np.ndarray  # P(the turn ends with the mover's score unchanged)
    visits: np.ndarray | None  # (goal, goal, goal): expected visits to turn total k in the turn
    leftover: float  # probability that never left a turn (0 unless a strategy can loop forever)

    def seat_turns(self) -> SeatTurns:
        """Return what the chain kernel reads of these outcomes (``kernels.SeatTurns``)."""
        return SeatTurns(self.indptr, self.scores, self.probabilities, self.win, self.scoring, self.banked,
                         self.bust, self.reset, self.rolls)  # fmt: skip


def effect_labels(table: EffectTable) -> EffectLabels:
    """Return which effects of ``table`` the turn statistics count as busts and as resets."""
    return EffectLabels(table.kinds == int(EffectKind.BUST), table.kinds == int(EffectKind.RESET_SCORE))


def analysable(variant: Variant) -> Variant:
    """Return the 2-player first-to-goal form of ``variant`` that the analyses follow (turn-based only)."""
    return solvable(variant.require_turns("exact analysis"))


def turn_outcomes(
    variant: Variant,
    actions: np.ndarray,
    visits: bool = True,
    progress: Callable[[float], None] | None = None,
) -> TurnOutcomes:
    """Return the exact outcome distribution of one turn from every (i, j) under an action table.

    Raises ResourceLimitError before allocating, or as its outcome lists outgrow the memory budget.
    """
    variant = analysable(variant)
    goal = variant.goal
    table = effect_table(variant)
    acts = np.ascontiguousarray(actions, dtype=np.int8)
    if acts.shape != (goal, goal, goal):
        raise BadParameterError(f"an action table for goal {goal} has shape {(goal, goal, goal)}, not {acts.shape}")
    one_throw = variant.decision is Decision.DICE_PER_TURN
    record = visits and goal <= VISITS_MAX_GOAL

    def need(g: int, entries: float = ENTRIES_PER_STATE) -> int:
        return turn_outcomes_bytes(g, visits and g <= VISITS_MAX_GOAL, entries)

    # the outcome lists grow row by row: they may use what they were counted for and what the budget left
    list_bytes = check_memory("exact turn outcomes", goal, need) + need(goal) - need(goal, 0)
    win, banked, bust, reset, rolls = (np.zeros((goal, goal)) for _ in range(5))
    seen = np.zeros((goal, goal, goal)) if record else None
    dist = np.zeros((goal, goal))
    empty = np.zeros((0, 0))
    pieces_ind = [np.zeros(1, dtype=np.int64)]
    pieces_to: list[np.ndarray] = []
    pieces_pr: list[np.ndarray] = []
    stay = np.zeros((goal, goal))
    scoring = np.zeros((goal, goal))
    leftover = 0.0
    count = 0
    labels = effect_labels(table)
    for i in range(goal):
        dist[:] = 0.0
        visited = seen[i] if seen is not None else empty
        tallies = TurnTallies(dist, win[i], banked[i], bust[i], reset[i], rolls[i], visited)
        leftover += turn_rows(i, goal, acts[i], table, labels, one_throw, tallies)
        rows, cols = np.nonzero(dist)
        pieces_to.append(cols.astype(np.int64))
        pieces_pr.append(dist[rows, cols])
        counts = np.bincount(rows, minlength=goal)
        pieces_ind.append(count + np.cumsum(counts))
        count += len(cols)
        if count * ENTRY_BYTES > list_bytes:
            grown = functools.partial(need, entries=count / ((i + 1) * goal))  # the density seen so far
            raise refuse("exact turn outcomes", goal, grown, grown(goal), available_bytes())
        stay[i] = dist[:, i]
        scoring[i] = dist[:, i + 1 :].sum(axis=1) + win[i]
        if progress is not None:
            progress((i + 1) / goal)
    return TurnOutcomes(
        indptr=np.concatenate(pieces_ind),
        scores=np.concatenate(pieces_to) if pieces_to else np.zeros(0, dtype=np.int64),
        probabilities=np.concatenate(pieces_pr) if pieces_pr else np.zeros(0),
        win=win,
        scoring=scoring,
        banked=banked,
        bust=bust,
        reset=reset,
        rolls=rolls,
        stay=stay,
        visits=seen,
        leftover=leftover,
    )
