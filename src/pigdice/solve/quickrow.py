"""One state's options from solved turn-start values, without the compiled kernels (a hint in a new process).

A hint reads one row of one turn. The kernels compute it in microseconds, but loading them costs
most of a second in a new process; this module computes the same row from the rules' own
``Effect.resolve`` and the solved V in plain Python, for the 2-player, first-to-goal games:

- holding at turn total k > 0 hands the opponent its turn at (j, i + k): 1 - V[j, i + k]; at
  k = 0 it passes: 1 - V[j, i];
- a roll's value is the sum over its exact outcomes of: a turn that ends with score s,
  1 - V[j, s] (1 if s reaches the goal); a turn that goes on with total k', the best option
  there (1 once i + k' reaches the goal: holding wins);
- a one-throw-per-turn game (Hog) banks every throw.

Where every outcome that goes on raises the turn total, one sweep from the highest total down is
exact; otherwise (Pig Dice's doubles and tails, Knizia's 1-1) sweeps repeat to a fixed point, as
the kernels' inner loop does. Ties are broken as the kernels break them (``best_code``).
"""

from __future__ import annotations

import numpy as np

from pigdice.rules.effects import Effect, EffectKind
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import HOLD, ROLL_TIE

INNER_TOLERANCE = 1e-15
MAX_SWEEPS = 10_000


def _outcomes(variant: Variant) -> list[list[tuple[Effect, float]]]:
    """Return each roll choice's exact outcomes merged by effect, as floats."""
    return [[(effect, float(p)) for effect, p in spec.distribution()] for spec in variant.rolls]


def _goes_up(outcomes: list[list[tuple[Effect, float]]]) -> bool:
    """Return True if every outcome that keeps the turn going raises the turn total (one sweep is exact)."""
    return all(e.ends_turn or (e.kind is EffectKind.ADD and e.amount > 0) for choice in outcomes for e, _ in choice)


def _ended(V: np.ndarray, goal: int, j: int, score: int) -> float:
    """Return the mover's chance once its turn has ended with ``score``."""
    return 1.0 if score >= goal else 1.0 - float(V[j, score])


def turn_row(variant: Variant, V: np.ndarray, i: int, j: int) -> tuple[list[float], list[list[float]], list[int]]:
    """Return (hold[k], rolls[c][k], best code[k]) for every turn total k < goal - i at (i, j)."""
    goal = variant.goal
    top = goal - i
    outcomes = _outcomes(variant)
    hold = [1.0 - float(V[j, i])] + [1.0 - float(V[j, i + k]) for k in range(1, top)]
    one_sweep = _goes_up(outcomes)
    win = [0.5] * top
    rolls = [[0.0] * top for _ in outcomes]
    best = [HOLD] * top
    for _ in range(MAX_SWEEPS):
        change = 0.0
        for k in range(top - 1, -1, -1):
            for c, choice in enumerate(outcomes):
                value = 0.0
                for effect, p in choice:
                    score, total, ends = effect.resolve(i, k)
                    if ends:
                        value += p * _ended(V, goal, j, score)
                    elif i + total >= goal:
                        value += p
                    else:
                        value += p * win[total]
                rolls[c][k] = value
            code = best_code(k, hold[k], [row[k] for row in rolls])
            new = hold[k] if code == HOLD else rolls[code - 1][k]
            change = max(change, abs(new - win[k]))
            win[k] = new
            best[k] = code
        if one_sweep or change < INNER_TOLERANCE:
            break
    return hold, rolls, best


def best_code(k: int, hold: float, rolls: list[float]) -> int:
    """Return the kernels' choice: 0 holds, c + 1 rolls with choice c; ties roll at k = 0, else hold, fewest dice."""
    best_value, code = hold, HOLD
    for c, value in enumerate(rolls):
        margin = ROLL_TIE if code > 0 else 0.0
        if value > best_value + margin or (k == 0 and code == HOLD and value >= best_value):
            best_value, code = value, c + 1
    return code


def dice_values(variant: Variant, V: np.ndarray, i: int, j: int) -> list[float]:
    """Return the win probability of each dice choice at (i, j) in a one-throw-per-turn game (Hog)."""
    values = []
    for choice in _outcomes(variant):
        value = 0.0
        for effect, p in choice:
            score, total, ends = effect.resolve(i, 0)
            value += p * _ended(V, variant.goal, j, score if ends else score + total)
        values.append(value)
    return values


def option_names(variant: Variant) -> list[str]:
    """Return the names of the roll options: 'roll', or 'roll:N' where the dice are chosen."""
    return ["roll"] if not variant.chooses_dice else [f"roll:{n}" for n in variant.choices]


def action_values(variant: Variant, V: np.ndarray, i: int, j: int, k: int) -> tuple[dict[str, float], str]:
    """Return every option's win probability at (i, j, k) and the perfect player's option, as ``Policy`` does."""
    goal = variant.goal
    names = option_names(variant)
    if i + k >= goal:  # holding wins at once; a roll is worth one step of the optimality equation
        if not variant.can_hold:
            return dict.fromkeys(names, 1.0), names[0]
        values = {"hold": 1.0}
        row: list[float] = []  # the best value at each total of this turn, computed once if a roll falls below the goal
        for name, choice in zip(names, _outcomes(variant), strict=True):
            value = 0.0
            for effect, p in choice:
                score, total, ends = effect.resolve(i, k)
                if score + total >= goal:
                    chance = 1.0
                elif ends:
                    chance = 1.0 - float(V[j, score])
                else:  # the turn goes on below the goal (a tail, a subtraction): same scores, a lower total
                    row = row or _best_values(variant, V, i, j)
                    chance = row[total]
                value += p * chance
            values[name] = value
        return values, "hold"
    if variant.decision is Decision.DICE_PER_TURN:
        dice = dice_values(variant, V, i, j)
        index = int(np.argmax(dice))
        return dict(zip(names, dice, strict=True)), names[index]
    hold, rolls, best = turn_row(variant, V, i, j)
    values = {"hold": hold[k]}
    for name, row in zip(names, rolls, strict=True):
        values[name] = row[k]
    return values, "hold" if best[k] == HOLD else names[best[k] - 1]


def _best_values(variant: Variant, V: np.ndarray, i: int, j: int) -> list[float]:
    """Return the mover's chance at (i, j, k) under optimal play, for every turn total k below the goal."""
    hold, rolls, best = turn_row(variant, V, i, j)
    return [hold[k] if code == HOLD else rolls[code - 1][k] for k, code in enumerate(best)]
