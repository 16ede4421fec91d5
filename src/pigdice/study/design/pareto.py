"""The Pareto front of the measured games and the ranked shortlist drawn from it.

Five objectives, each a measure of ``measures`` made "smaller is better":

- fairness: |first player's advantage| under the game's own ending;
- skill: minus the skill edge (perfect play's edge over the better simple robot);
- pace: |scoring turns the winner needed - 4.5| (seed 003: games needing four or five scoring
  turns "are much more popular than those that take two");
- tension: minus the comeback probability (0 when no turn starts that far behind);
- simplicity: the rule complexity.

A game is on the front when no other game is at least as good in all five and better in one.
The shortlist ranks the front by ``design_score``, the mean of the five objectives scaled to
0..1 (``SCALES``: 0 at or past the scale, 1 at the ideal), ties broken by id, and keeps one game
of each set of dice rules (games that differ only in their ending share every measure but one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

IDEAL_SCORING_TURNS = 4.5
# objective -> (how it is read from a row, the distance from the ideal that scores 0)
SCALES: dict[str, float] = {
    "fairness": 0.10,  # |fpa| of 10 points scores 0
    "skill": 0.10,  # a skill edge of 10 points scores 1, none scores 0
    "pace": 3.0,  # 1.5 or 7.5 scoring turns score 0
    "tension": 0.40,  # a comeback probability of 40% scores 1
    "simplicity": 5.0,  # 2 effects score 1, 7 score 0
}
OBJECTIVES = tuple(SCALES)
# the rules of the dice: games that share them and differ only in the ending share a shortlist place
DICE_RULES = ("dice", "sides", "bad_face", "single_bad", "double_bad", "bonus", "doubles", "bust_sum", "goal")
SIMPLEST = 2  # the fewest effects a jeopardy game has: add the dice, lose the turn total


def objectives(row: dict[str, Any]) -> tuple[float, ...]:
    """Return the row's five objectives, each smaller-is-better (NaN where a measure is missing)."""
    return (
        abs(row["fpa"]),
        -row["skill_edge"],
        abs(row["winner_scoring_turns"] - IDEAL_SCORING_TURNS),
        -(0.0 if math.isnan(row["comeback"]) else row["comeback"]),  # nobody ever that far behind: no comebacks
        row["complexity"],
    )


def pareto_front(points: Sequence[Sequence[float]]) -> list[bool]:
    """Return, for each point (smaller is better in every coordinate), whether no other point dominates it.

    A point with a NaN coordinate is never on the front; equal points are all on it.
    """
    values = np.asarray(points, dtype=float).reshape(len(points), -1)
    valid = ~np.isnan(values).any(axis=1)
    front = valid.copy()
    for index in np.flatnonzero(valid):
        others = values[valid]
        dominated = np.all(others <= values[index], axis=1) & np.any(others < values[index], axis=1)
        front[index] = not dominated.any()
    return [bool(x) for x in front]


def design_score(row: dict[str, Any]) -> float:
    """Return the mean of the five objectives scaled to 0..1 (1 is ideal); NaN where a measure is missing."""
    fairness, skill, pace, tension, simplicity = objectives(row)
    parts = (
        1 - fairness / SCALES["fairness"],
        -skill / SCALES["skill"],
        1 - pace / SCALES["pace"],
        -tension / SCALES["tension"],
        1 - (simplicity - SIMPLEST) / SCALES["simplicity"],
    )
    if any(math.isnan(p) for p in parts):
        return math.nan
    return float(np.mean([min(1.0, max(0.0, p)) for p in parts]))


def shortlist(rows: list[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    """Return the ``size`` best games of the Pareto front by design score, each with 'score' and 'rank' added."""
    front = pareto_front([objectives(r) for r in rows])
    ranked = [r for r, on in zip(rows, front, strict=True) if on and not math.isnan(design_score(r))]
    ranked.sort(key=lambda r: (-design_score(r), r["id"]))
    chosen: list[dict[str, Any]] = []
    dice_rules: set[tuple[Any, ...]] = set()
    for r in ranked:
        same_dice = tuple(r.get(name) for name in DICE_RULES)
        if same_dice in dice_rules:
            continue  # the same dice with another ending: one proposal is enough
        dice_rules.add(same_dice)
        chosen.append({**r, "score": design_score(r), "rank": len(chosen) + 1})
        if len(chosen) == size:
            break
    return chosen
