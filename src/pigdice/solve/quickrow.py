"""One state's options from solved turn-start values, without the compiled kernels (a hint in a new process).

A hint reads one row of one turn. The kernels compute it in microseconds, but loading them costs
most of a second in a new process (and compiling them, on a fresh install, many seconds); this
module computes the same row from the rules' own ``Effect.resolve`` and the solved V in plain
Python, for 2 players:

- holding at turn total k > 0 hands the opponent its turn at (j, i + k): 1 - V[j, i + k]; at
  k = 0 it passes: 1 - V[j, i];
- a roll's value is the sum over its exact outcomes of: a turn that ends with score s,
  1 - V[j, s] (1 if s reaches the goal); a turn that goes on with total k', the best option
  there (1 once i + k' reaches the goal: holding wins);
- a one-throw-per-turn game (Hog) banks every throw.

Under a final round or equal turns (``Ending``) banking a total T past the goal is worth
1 - L[T - j] instead of 1 (the other player's last turn, ``pigdice.solve.two.lastturn``), and the
turn goes on past the goal up to where holding is provably optimal, as ``rollhold._turn_sweep``
stops: the first T with L[T - j] <= max(p_bust V[j, i], TRUNCATION_ERROR).

Where every outcome that goes on raises the turn total, one sweep from the highest total down is
exact; otherwise (Pig Dice's doubles and tails, Knizia's 1-1) sweeps repeat to a fixed point, as
the kernels' inner loop does. Ties are broken as the kernels break them (``best_code``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from pigdice.rules.effects import Effect, EffectKind
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import HOLD, ROLL_TIE
from pigdice.solve.positions import TRUNCATION_ERROR

INNER_TOLERANCE = 1e-15
MAX_SWEEPS = 10_000

Values = np.ndarray | Sequence[Sequence[float]]  # V[i][j]: a goal x goal array, or its rows as lists


class Ending(NamedTuple):
    """What banking past the goal is worth: the other player's last-turn table L[d], and the stop's margin."""

    last: Sequence[float]  # L[d]: the last player's share at a deficit d (read at its end past it)
    bust: float  # the smallest bust chance of any roll choice (``rollhold._turn_sweep``'s stop)


class Row(NamedTuple):
    """One turn at (i, j): for every turn total k < len(hold), holding's and each roll's value, and the choice."""

    hold: list[float]
    rolls: list[list[float]]
    best: list[int]  # 0 holds, c + 1 rolls with choice c (the kernels' tie-break)

    def win(self, k: int) -> float:
        """Return the mover's chance at turn total k under the row's choice."""
        code = self.best[k]
        return self.hold[k] if code == HOLD else self.rolls[code - 1][k]


@lru_cache(maxsize=64)
def outcomes(variant: Variant) -> tuple[tuple[tuple[Effect, float], ...], ...]:
    """Return each roll choice's exact outcomes merged by effect, as floats."""
    return tuple(tuple((effect, float(p)) for effect, p in spec.distribution()) for spec in variant.rolls)


def _goes_up(choices: Sequence[Sequence[tuple[Effect, float]]]) -> bool:
    """Return True if every outcome that keeps the turn going raises the turn total (one sweep is exact)."""
    return all(e.ends_turn or (e.kind is EffectKind.ADD and e.amount > 0) for choice in choices for e, _ in choice)


def _ended(V: Values, goal: int, j: int, score: int) -> float:
    """Return the mover's chance once its turn has ended with ``score`` (first to the goal)."""
    return 1.0 if score >= goal else 1.0 - float(V[j][score])


def _past(ending: Ending, total: int) -> float:
    """Return the mover's chance after banking ``total`` past the goal: 1 - L[total - j] (``total`` is T - j)."""
    last = ending.last
    return 1.0 - float(last[min(total, len(last) - 1)])


def turn_top(variant: Variant, V: Values, i: int, j: int, ending: Ending | None, min_top: int = 0) -> int:
    """Return how many turn totals the row at (i, j) covers: to the goal, or past it up to the sweep's stop."""
    goal = variant.goal
    if ending is None:
        return goal - i
    last = ending.last
    threshold = max(ending.bust * float(V[j][i]), TRUNCATION_ERROR)
    need = goal - j
    while need < len(last) - 1 and last[need] > threshold:
        need += 1
    return max(j + need - i, min_top)


def turn_row(variant: Variant, V: Values, i: int, j: int, ending: Ending | None = None, min_top: int = 0) -> Row:
    """Return the turn at (i, j) given the next mover's values V: holding, each roll and the choice at every total.

    Without ``ending`` (first to the goal) the row covers k < goal - i; with it, up to the stop past
    the goal and at least ``min_top`` totals.
    """
    goal = variant.goal
    top = turn_top(variant, V, i, j, ending, min_top)
    choices = outcomes(variant)
    x = float(V[j][i])
    hold = [1.0 - x] + [
        1.0 - float(V[j][i + k]) if i + k < goal or ending is None else _past(ending, i + k - j) for k in range(1, top)
    ]
    one_sweep = _goes_up(choices)
    # an add is read without ``resolve`` (the common case: most of the time goes here); -1 marks the others
    adds = [[(effect, p, effect.amount if effect.kind is EffectKind.ADD else -1) for effect, p in c] for c in choices]
    win = [0.5] * top
    rolls = [[0.0] * top for _ in choices]
    best = [HOLD] * top
    for _ in range(MAX_SWEEPS):
        change = 0.0
        for k in range(top - 1, -1, -1):
            for c, choice in enumerate(adds):
                value = 0.0
                for effect, p, amount in choice:
                    if amount >= 0 and k + amount < top:
                        value += p * win[k + amount]
                        continue
                    score, total, ends = effect.resolve(i, k)
                    if ends:
                        if score < goal or ending is None:
                            value += p * _ended(V, goal, j, score)
                        else:
                            value += p * _past(ending, score - j)
                    elif total < top:
                        value += p * win[total]
                    else:  # past the row: first to the goal wins; else holding is optimal (or forced) there
                        value += p * (1.0 if ending is None else _past(ending, i + total - j))
                rolls[c][k] = value
            code = best_code(k, hold[k], [row[k] for row in rolls])
            new = hold[k] if code == HOLD else rolls[code - 1][k]
            change = max(change, abs(new - win[k]))
            win[k] = new
            best[k] = code
        if one_sweep or change < INNER_TOLERANCE:
            break
    return Row(hold, rolls, best)


def best_code(k: int, hold: float, rolls: Sequence[float]) -> int:
    """Return the kernels' choice: 0 holds, c + 1 rolls with choice c; ties roll at k = 0, else hold, fewest dice."""
    best_value, code = hold, HOLD
    for c, value in enumerate(rolls):
        margin = ROLL_TIE if code > 0 else 0.0
        if value > best_value + margin or (k == 0 and code == HOLD and value >= best_value):
            best_value, code = value, c + 1
    return code


def dice_values(variant: Variant, V: Values, i: int, j: int) -> list[float]:
    """Return the win probability of each dice choice at (i, j) in a one-throw-per-turn game (Hog)."""
    values = []
    for choice in outcomes(variant):
        value = 0.0
        for effect, p in choice:
            score, total, ends = effect.resolve(i, 0)
            value += p * _ended(V, variant.goal, j, score if ends else score + total)
        values.append(value)
    return values


def option_names(variant: Variant) -> list[str]:
    """Return the names of the roll options: 'roll', or 'roll:N' where the dice are chosen."""
    return ["roll"] if not variant.chooses_dice else [f"roll:{n}" for n in variant.choices]


def action_values(
    variant: Variant, V: Values, i: int, j: int, k: int, row: Row | None = None
) -> tuple[dict[str, float], str]:
    """Return every option's win probability at (i, j, k) and the perfect player's option, as ``Policy`` does.

    First to the goal. ``row``: the turn at (i, j) if already computed (``turn_row``).
    """
    goal = variant.goal
    names = option_names(variant)
    if i + k >= goal:  # holding wins at once; a roll is worth one step of the optimality equation
        if not variant.can_hold:
            return dict.fromkeys(names, 1.0), names[0]
        values = {"hold": 1.0}
        for name, choice in zip(names, outcomes(variant), strict=True):
            value = 0.0
            for effect, p in choice:
                score, total, ends = effect.resolve(i, k)
                if score + total >= goal:
                    chance = 1.0
                elif ends:
                    chance = 1.0 - float(V[j][score])
                else:  # the turn goes on below the goal (a tail, a subtraction): same scores, a lower total
                    row = row or turn_row(variant, V, i, j)
                    chance = row.win(total)
                value += p * chance
            values[name] = value
        return values, "hold"
    if variant.decision is Decision.DICE_PER_TURN:
        dice = dice_values(variant, V, i, j)
        index = int(np.argmax(dice))
        return dict(zip(names, dice, strict=True)), names[index]
    row = row or turn_row(variant, V, i, j)
    values = {"hold": row.hold[k]}
    for name, rolls in zip(names, row.rolls, strict=True):
        values[name] = rolls[k]
    return values, "hold" if row.best[k] == HOLD else names[row.best[k] - 1]
