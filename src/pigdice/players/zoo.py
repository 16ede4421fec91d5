"""The strategy zoo: ``keep-pace`` and ``max-score``.

Every strategy here is a function of (my score, highest opponent score, turn total), so it has
an ``action_table(variant)`` for the exact evaluator (``pigdice compare``) and the fast simulator.

``keep-pace`` -- Neller & Presser 2010 ("Practical Play of the Dice Game Pig", UMAP Journal
31(1)), "keep pace and end race": hold when holding wins; if either score is at least 71, roll
(end race); otherwise hold at 21 + round((opponent - you) / 8) (keep pace). ``round`` rounds
halves up. For a goal G other than 100 both constants scale with the goal: end race from
71 G / 100 on, hold at round(21 G / 100 + (opponent - you) / 8) (the score difference already
scales with G), never below 1, so a turn always starts with a roll. With 3+ players the
opponent is the highest-scoring one. In games where each roll picks a number of dice, it
throws the dice count ``max-score`` would pick; it has no meaning in Hog (one throw per turn).

``max-score`` -- maximises the expected score of the turn, one roll at a time: roll while the
expected gain of one more roll is positive, computed exactly from the variant's outcome table:
gain = sum over outcomes of p * (change), the change being +a for adding a, -k for a bust
(the turn total k is lost), -(score + k) for a reset, +k for doubling, and so on. In Pig the
gain is (20 - k) / 6, so it holds at 20 (Neller & Presser 2004, "Optimal Play of the Dice Game
Pig": hold at 20 maximises the expected points of a turn). Where each roll picks a number of
dice it rolls the count with the largest gain; in Hog it throws the count with the largest
expected score. A turn always starts with a roll; ties (within 1e-9) go to holding, then to
fewer dice.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll
from pigdice.errors import BadStrategyError
from pigdice.players.base import Progress, can_win_by_holding, may_hold, perspective, roll_choice
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Variant

TIE = 1e-9  # gains closer than this count as equal (Hog's 5 and 6 dice tie exactly)


# -- max-score --------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _gain_parts(variant: Variant, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Return G[c, k] and R[c]: one more roll with choice c at turn total k gains G[c, k] - R[c] * score."""
    ks = np.arange(top, dtype=np.float64)
    gains = np.zeros((len(variant.choices), top))
    resets = np.zeros(len(variant.choices))
    for c, spec in enumerate(variant.rolls):
        for effect, fraction in spec.distribution():
            p = float(fraction)
            kind, amount = effect.kind, float(effect.amount)
            if kind is EffectKind.ADD:
                delta = np.full(top, amount)
            elif kind is EffectKind.DOUBLE:
                delta = ks.copy()
            elif kind is EffectKind.SUBTRACT:
                delta = -np.minimum(amount, ks)
            elif kind is EffectKind.SET:
                delta = amount - ks
            elif kind is EffectKind.BUST:
                delta = -ks
            elif kind is EffectKind.RESET_SCORE:
                delta = -ks
                resets[c] += p
            else:  # BANK: the turn ends with amount (+ the turn total if kept) instead of k
                delta = np.full(top, amount) if effect.keep_turn_total else amount - ks
            gains[c] += p * delta
    return gains, resets


def expected_gains(variant: Variant, score: int, turn_totals: np.ndarray | int) -> np.ndarray:
    """Return the expected gain of one more roll with each choice: shape (choices, len(turn_totals))."""
    ks = np.atleast_1d(np.asarray(turn_totals, dtype=np.int64))
    top = max(variant.goal, int(ks.max()) + 1)
    gains, resets = _gain_parts(variant, top)
    return gains[:, ks] - resets[:, None] * score


def _best(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (index of the best row per column, fewest dice on ties; the best value)."""
    best = values.max(axis=0)
    index = np.argmax(values >= best - TIE, axis=0)
    return index, best


@dataclass(frozen=True)
class MaxScore:
    """Maximise the expected score of the turn: roll while one more roll gains points on average."""

    name: str = "max-score"
    chases_in_last_turn: ClassVar[bool] = True  # a last turn: roll until ahead (may_hold)

    def decide(self, variant: Variant, score: int, turn_total: int) -> int:
        """Return 0 to hold or c + 1 to roll with choice c (table code) at (score, turn_total)."""
        index, best = _best(expected_gains(variant, score, turn_total))
        if variant.decision is not Decision.DICE_PER_TURN and turn_total > 0 and best[0] <= TIE:
            return 0
        return int(index[0]) + 1

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold when holding wins or one more roll loses points on average; else roll the best dice."""
        variant = state.variant
        score, _, turn_total = perspective(state)
        if variant.decision is Decision.DICE_PER_TURN:
            return roll_choice(variant, self.decide(variant, score, 0))
        code = self.decide(variant, score, turn_total)
        if may_hold(state) and turn_total > 0 and (code == 0 or can_win_by_holding(state)):
            return Hold()
        if code == 0:  # forced to roll (final round): the best dice anyway
            code = int(_best(expected_gains(variant, score, turn_total))[0][0]) + 1
        return roll_choice(variant, code)

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the (goal, goal, goal) action table, computed in one vectorised pass."""
        goal = variant.goal
        ks = np.arange(goal)
        gains, resets = _gain_parts(variant, goal)
        scores = np.arange(goal, dtype=np.float64)
        values = gains[:, None, :] - resets[:, None, None] * scores[None, :, None]  # (c, i, k)
        best = values.max(axis=0)
        index = np.argmax(values >= best - TIE, axis=0)
        if variant.decision is Decision.DICE_PER_TURN:
            codes = np.broadcast_to((index[:, :1] + 1), (goal, goal))
        else:
            codes = np.where((best > TIE) | (ks[None, :] == 0), index + 1, 0)
        return np.ascontiguousarray(np.broadcast_to(codes[:, None, :], (goal, goal, goal)), dtype=np.int8)


def parse_max_score(spec: str, variant: Variant) -> MaxScore:
    """Parse the 'max-score' spec."""
    _no_argument(spec, "max-score")
    return MaxScore()


# -- keep-pace ----------------------------------------------------------------------------------
def keep_pace_threshold(goal: int, score: int, opponent: int) -> int:
    """Return keep-pace's hold threshold: round(21 * goal / 100 + (opponent - score) / 8), at least 1."""
    # exact integer form of floor(21 g / 100 + (j - i) / 8 + 1/2)
    return max(1, (168 * goal + 100 * (opponent - score) + 400) // 800)


def is_end_race(goal: int, score: int, opponent: int) -> bool:
    """Return True once either score is at least 71% of the goal (71 of 100): then keep-pace races."""
    return 100 * max(score, opponent) >= 71 * goal


@dataclass(frozen=True)
class KeepPace:
    """Neller & Presser's 'keep pace and end race' (2010), scaled to the goal."""

    name: str = "keep-pace"
    chases_in_last_turn: ClassVar[bool] = True  # a last turn: roll until ahead (may_hold)

    def wants_roll(self, goal: int, score: int, opponent: int, turn_total: int) -> bool:
        """Return True if keep-pace rolls at this state (before the can-win check)."""
        if is_end_race(goal, score, opponent):
            return True
        return turn_total < keep_pace_threshold(goal, score, opponent)

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold when holding wins or the turn total reaches the threshold; race once a score is high."""
        variant = state.variant
        score, opponent, turn_total = perspective(state)
        if may_hold(state) and turn_total > 0:
            if can_win_by_holding(state) or not self.wants_roll(variant.goal, score, opponent, turn_total):
                return Hold()
        if not variant.chooses_dice:
            return Roll()
        return roll_choice(variant, int(_best(expected_gains(variant, score, turn_total))[0][0]) + 1)

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the (goal, goal, goal) action table, computed in one vectorised pass."""
        goal = variant.goal
        j = np.arange(goal)[:, None]
        k = np.arange(goal)[None, :]
        if variant.chooses_dice:
            gains, resets = _gain_parts(variant, goal)
            values = gains[:, None, :] - resets[:, None, None] * np.arange(goal)[None, :, None]
            best = values.max(axis=0)
            roll = (np.argmax(values >= best - TIE, axis=0) + 1).astype(np.int8)  # (i, k)
        else:
            roll = np.ones((goal, goal), dtype=np.int8)
        table = np.empty((goal, goal, goal), dtype=np.int8)
        for i in range(goal):  # one score at a time: the table's own bytes, not eight times them in temporaries
            threshold = np.maximum(1, (168 * goal + 100 * (j - i) + 400) // 800)
            race = 100 * np.maximum(i, j) >= 71 * goal
            table[i] = np.where(~race & (k >= threshold), 0, roll[i][None, :])
        return table


def parse_keep_pace(spec: str, variant: Variant) -> KeepPace:
    """Parse the 'keep-pace' spec."""
    _no_argument(spec, "keep-pace")
    if variant.decision is Decision.DICE_PER_TURN:
        raise BadStrategyError(f"keep-pace decides when to hold; {variant.name} has one throw per turn (use dice:N)")
    return KeepPace()


def _no_argument(spec: str, word: str) -> None:
    if spec.strip().lower() != word:
        raise BadStrategyError(f"{spec!r}: {word} takes no arguments")
