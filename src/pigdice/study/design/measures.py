"""Measures of a good jeopardy dice game, computed exactly from the solver and the exact analyses.

Every measure of ``measure`` is exact (no simulation) for 2-player roll/hold games:

- ``fpa``: the first player's advantage, P(first player wins) - 1/2, under both players' optimal
  play *and the game's own ending* (``solve.exact.exact_policy``: first to the goal, a final
  round or equal turns). The measures below follow the first-to-goal form, like the solver and
  the exact analyses (Neller & Presser 2004/2005 "for symmetry in analysis").
- ``mean_turns`` / ``sd_turns``: the mean and spread of the game's length in turns (both players'),
  optimal against optimal (``study.analysis`` game chain, to a tail below 1e-12).
- ``winner_scoring_turns``: the scoring turns the winner needed (seed 003: games needing four or
  five are "much more popular than those that take two").
- ``edge_max_score`` / ``edge_keep_pace`` / ``skill_edge``: the optimal player's win rate minus 1/2
  against the robot that rolls while a roll gains points on average (``max-score``; Pig: hold at
  20) and against Neller & Presser's keep-pace robot, each side starting half the games (exact
  head-to-head); the skill edge is the smaller: what perfect play gains over the better robot.
- ``close_decisions``: decision difficulty, the share of roll/hold decisions made in a game (turn
  total above 0, weighted by how often optimal play visits them) where rolling and holding are
  within ``CLOSE`` (one percentage point) of win probability.
- ``lead_changes``: the expected number of turns per game that take the mover from behind to
  ahead (or, through a reset, from ahead to behind), reaching the goal included.
- ``comeback``: the chance that a player who starts a turn behind by at least a quarter of the
  goal still wins, averaged over the turns started that far behind.
- ``complexity``: the number of distinct effects a player must know (``complexity``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.exact import exact_policy
from pigdice.solve.solver import solvable, solve_uncached
from pigdice.solve.two import rollhold
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.analysis.chain import play_chain
from pigdice.study.analysis.turns import VISITS_MAX_GOAL, turn_outcomes

CLOSE = 0.01  # rolling and holding this close in win probability is a hard decision
BEHIND = 0.25  # a comeback starts this far behind, as a share of the goal
ROBOTS = ("max-score", "keep-pace")
MAX_DESIGN_GOAL = VISITS_MAX_GOAL  # decision difficulty needs the in-turn visits, kept up to this goal

# the measures in the order of a result row, with their meaning (the report's column notes)
MEASURES: dict[str, str] = {
    "fpa": "first player's advantage under the game's ending (optimal play)",
    "mean_turns": "mean game length in turns (both players')",
    "sd_turns": "standard deviation of the game length in turns",
    "winner_scoring_turns": "scoring turns the winner needed",
    "edge_max_score": "optimal's edge over the max-score robot",
    "edge_keep_pace": "optimal's edge over the keep-pace robot",
    "skill_edge": "optimal's edge over the better robot",
    "close_decisions": "share of decisions within 1 point of win probability",
    "lead_changes": "expected lead changes per game",
    "comeback": "P(win) after starting a turn a quarter of the goal behind",
    "complexity": "distinct effects a player must know",
}


@dataclass(frozen=True)
class Measured:
    """The measures of one game (``MEASURES``), and how long they took."""

    values: dict[str, float]
    seconds: float

    def row(self) -> dict[str, Any]:
        """Return the measures as one result row (the seconds included)."""
        return {**self.values, "seconds": self.seconds}


def complexity(variant: Variant) -> int:
    """Return the number of distinct effects a player must know, counted from the exact outcome table.

    Adding the dice's total counts once, adding anything else (doubles twice, a bonus) once more,
    and every other kind (lose the turn total, lose the score, set, double or subtract the turn
    total, bank) once each; an ending other than "first to the goal wins" counts one more.
    """
    kinds: set[str] = set()
    for spec in variant.rolls:
        for row in spec.outcomes():
            effect = row.effect
            if effect.kind is EffectKind.ADD:
                plain = row.faces is not None and effect.amount == sum(row.faces)
                kinds.add("add the total" if plain or row.faces is None else "add something else")
            else:
                kinds.add(effect.kind.name)
    return len(kinds) + (variant.endgame is not Endgame.FIRST_TO_GOAL)


def measurable(variant: Variant) -> Variant:
    """Return ``variant`` if the designer can measure it (a 2-player roll/hold game), else raise."""
    if variant.decision is not Decision.ROLL_HOLD:
        raise BadParameterError(f"{variant.name}: the designer measures roll/hold games, not {variant.decision.label}")
    if variant.goal > MAX_DESIGN_GOAL:
        raise BadParameterError(f"{variant.name}: the designer measures goals up to {MAX_DESIGN_GOAL}")
    return variant


def measure(variant: Variant) -> Measured:
    """Return every measure of ``variant`` (see the module notes), exactly."""
    started = time.perf_counter()
    measurable(variant)
    form = solvable(variant)  # 2 players, first to the goal
    goal = form.goal
    policy = solve_uncached(form)
    ending = exact_policy(variant, 2, use_cache=False) if variant.endgame is not Endgame.FIRST_TO_GOAL else None
    p_first = ending.win_probability_by_seat()[0] if ending is not None else float(policy.values[0, 0])
    optimal = policy.action_table()
    outcomes = turn_outcomes(form, optimal, visits=True)
    seating = play_chain(form, outcomes, outcomes)
    starts = seating.turn_starts.sum(axis=0)  # expected turns started at (mover i, other j), either seat
    edges = {}
    for robot in ROBOTS:
        table = action_table(parse_strategy(robot, form), form)
        edges[robot] = head_to_head(form, optimal, table).average - 0.5
    values = {
        "fpa": p_first - 0.5,
        "mean_turns": seating.mean_length,
        "sd_turns": seating.sd_length,
        "winner_scoring_turns": seating.winner_scoring_turns,
        "edge_max_score": edges["max-score"],
        "edge_keep_pace": edges["keep-pace"],
        "skill_edge": min(edges.values()),
        "close_decisions": _close_decisions(policy.values, form, starts, outcomes.visits),
        "lead_changes": _lead_changes(goal, starts, outcomes),
        "comeback": _comeback(goal, starts, policy.values),
        "complexity": float(complexity(variant)),
    }
    return Measured({k: float(v) for k, v in values.items()}, time.perf_counter() - started)


def _close_decisions(values: np.ndarray, form: Variant, starts: np.ndarray, visits: np.ndarray | None) -> float:
    """Return the visit-weighted share of decisions (turn total > 0) where roll and hold are within CLOSE."""
    if visits is None:
        return math.nan
    goal = form.goal
    from pigdice.solve.tables import effect_table

    table = effect_table(form)
    close = 0.0
    total = 0.0
    for i in range(goal):
        for j in range(goal):
            weight = starts[i, j]
            if weight <= 0.0:
                continue
            _, _, hold, rolls = rollhold.turn_row(
                values, i, j, goal, table, rollhold.NO_FIXED, rollhold.FIRST_TO_GOAL_ENDS, 0
            )
            seen = visits[i, j, 1 : goal - i] * weight
            gap = np.abs(rolls[0, 1 : goal - i] - hold[1 : goal - i])
            close += float(seen[gap < CLOSE].sum())
            total += float(seen.sum())
    return close / total if total > 0 else 0.0


def _lead_changes(goal: int, starts: np.ndarray, outcomes: Any) -> float:
    """Return the expected turns per game that swap who is strictly ahead (the winning turn included)."""
    expected = 0.0
    indptr, scores, probabilities = outcomes.indptr, outcomes.scores, outcomes.probabilities
    for i in range(goal):
        for j in range(goal):
            weight = starts[i, j]
            if weight <= 0.0 or i == j:
                continue
            row = i * goal + j
            new = scores[indptr[row] : indptr[row + 1]]
            p = probabilities[indptr[row] : indptr[row + 1]]
            if i < j:
                swap = float(p[new > j].sum()) + float(outcomes.win[i, j])
            else:
                swap = float(p[new < j].sum())
            expected += weight * swap
    return expected


def _comeback(goal: int, starts: np.ndarray, values: np.ndarray) -> float:
    """Return P(the mover wins) averaged over the turns started at least a quarter of the goal behind."""
    i, j = np.indices((goal, goal))
    behind = (j - i) >= max(1, math.ceil(BEHIND * goal))
    weight = float(starts[behind].sum())
    return float((starts[behind] * values[behind]).sum() / weight) if weight > 0 else math.nan
