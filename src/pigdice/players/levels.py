"""Robots of every strength: ``level:1`` (a beginner) to ``level:8`` (the perfect player), by one stated rule.

**The rule.** At every decision a level-N robot reads the perfect player's exact chance to win after
each option and takes the *most cautious* option whose chance is within its allowance of the best:
holding (sitting down in Swine Herd) before rolling, fewer dice before more. It never passes at a
turn total of 0 unless passing is the best option. Level 8's allowance is 0: it is the perfect
player itself (mixing where the equilibrium mixes).

Why this rule: it is deterministic, so a level is a fixed action table (and in Swine Herd a fixed sit
table), and its chance against the perfect player is computed exactly by the same evaluators that
compare any two tables (``pigdice.solve.two.headtohead``, ``pigdice.study.analysis.swineherd``); a
softmax over the option values would need an evaluator of mixed strategies. It is also how people err
at dice games: they stop too early far more than they push on, and a small allowance only changes
choices that were close anyway. A robot never gives away more than its allowance at any one decision,
so a higher level is never worse at any single decision; that its whole-game chance rises strictly
with the level is measured, not assumed (``pigdice levels``, and the tests for Pig).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll, legal_actions
from pigdice.errors import BadStrategyError
from pigdice.players.base import Progress
from pigdice.players.defaults import LEVEL_TITLES
from pigdice.players.optimal import Optimal
from pigdice.rules.variant import Decision, Variant

if TYPE_CHECKING:
    from pigdice.solve.policy import Policy


class Level(NamedTuple):
    """One robot strength: its number, its name in a player's words, and its allowance."""

    number: int
    title: str  # in a player's words, e.g. 'a club player'
    allowance: float  # the most winning chance (0..1) it gives away at any one decision


# chosen so that Pig's chances spread from a few percent to one half; the names (``players.defaults``) are
# the Performance Rating bands (``pigdice.study.rating``) each level's play falls in on Pig
# (bench/rating_calibration.py)
ALLOWANCES = (0.15, 0.06, 0.05, 0.04, 0.03, 0.02, 0.01, 0.0)
LEVELS = tuple(
    Level(number, title, allowance)
    for number, (title, allowance) in enumerate(zip(LEVEL_TITLES, ALLOWANCES, strict=True), start=1)
)
TOP = LEVELS[-1].number
CAUTIOUS_FIRST = ("hold", "sit")  # the options that stop: taken first where they are good enough
ROLLING = ("roll", "stand")


def find_level(number: int) -> Level:
    """Return level ``number`` (1 to 8), or raise BadStrategyError."""
    if not 1 <= number <= TOP:
        raise BadStrategyError(f"level:{number}: the levels go from 1 (a beginner) to {TOP} (the perfect player)")
    return LEVELS[number - 1]


def describe_level(number: int) -> str:
    """Return a level in a player's words, e.g. 'a club player (level 3 of 8)'."""
    return f"{find_level(number).title} (level {number} of {TOP})"


def _caution(name: str) -> tuple[int, int]:
    """Return an option's place in the cautious order: stop first, then roll with the fewest dice."""
    if name in CAUTIOUS_FIRST:
        return (0, 0)
    _, _, count = name.partition(":")
    return (1, int(count) if count.isdecimal() else 0)


def level_choice(values: Mapping[str, float], turn_total: int, allowance: float) -> str:
    """Return the most cautious option whose chance is within ``allowance`` of the best (never a needless pass)."""
    best = max(values.values())
    for name in sorted(values, key=_caution):
        if name in CAUTIOUS_FIRST and turn_total == 0 and values[name] < best:
            continue  # holding at a turn total of 0 passes the turn: nobody does that by choice
        if values[name] >= best - allowance:
            return name
    return max(values, key=lambda name: values[name])  # unreachable: the best is always within the allowance


def _action(name: str) -> Action:
    """Return the engine action of an option's name ('hold', 'sit', 'roll', 'stand', 'roll:N')."""
    if name in CAUTIOUS_FIRST:
        return Hold()
    if name in ROLLING:
        return Roll()
    return Roll(int(name.split(":", 1)[1]))


@dataclass
class LevelPlayer(Optimal):
    """A robot of level 1 to 8: the perfect player's values, read with an allowance (see the module doc).

    It is a perfect player that chooses differently, so every front end hands it the same exact policies
    (solved once, in a worker where the front end solves there) and its hints are the perfect player's.
    """

    level: int = TOP
    _tables: dict[Variant, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        find_level(self.level)
        self.name = f"level:{self.level}"

    @property
    def allowance(self) -> float:
        """Return the most winning chance the robot gives away at any one decision."""
        return find_level(self.level).allowance

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Return the most cautious option within the allowance of the best (level 8: the perfect player's)."""
        if self.level == TOP:
            return super().choose(state, rng)
        legal = legal_actions(state)
        if len(legal) == 1:
            return legal[0]
        hint = self.hint(state)
        return _action(level_choice(hint.values, state.turn_total, self.allowance))

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the level's action table of 2-player, first-to-goal ``variant`` (the perfect player's at level 8)."""
        if self.level == TOP:
            return super().action_table(variant, progress)
        target = variant.roll_hold_form()
        kept = self._tables.get(target)
        if kept is None:
            kept = level_table(self._race_policy(target), self.allowance, progress)
            self._tables[target] = kept
        return kept

    def _race_policy(self, target: Variant) -> Policy:
        """Return the solved 2-player first-to-goal policy of ``target`` (the perfect player's, when it is)."""
        if target == self.variant.roll_hold_form():
            return self.policy
        from pigdice.solve.solver import solve

        return solve(target)


def level_table(policy: Policy, allowance: float, progress: Progress | None = None) -> np.ndarray:
    """Return the action table T[i, j, k] of the level rule with ``allowance`` on a solved race policy."""
    goal = policy.goal
    variant = policy.variant
    table = np.zeros((goal, goal, goal), dtype=np.int8)
    one_throw = variant.decision is Decision.DICE_PER_TURN
    for i in range(goal):
        for j in range(goal):
            if one_throw:
                values = policy.dice_values(i, j)
                table[i, j, :] = int(np.argmax(values >= values.max() - allowance)) + 1
                continue
            row = policy.turn(i, j)
            top = len(row.win)
            near = row.win[:top] - allowance
            stop = row.hold[:top] >= near
            stop[0] &= bool(row.action[0] == 0)  # no pass at a turn total of 0 unless it is the best
            roll = np.argmax(row.rolls[:, :top] >= near[None, :], axis=0) + 1
            table[i, j, :top] = np.where(stop, 0, roll)
        if progress is not None:
            progress((i + 1) / goal)
    return table


def parse_level(spec: str, variant: Variant) -> LevelPlayer:
    """Parse 'level:N' (N from 1 to 8)."""
    word, _, value = spec.strip().lower().partition(":")
    digits = value.strip()
    if word != "level" or not (digits.isascii() and digits.isdigit() and len(digits) <= 2):
        raise BadStrategyError(f"{spec!r}: write level:N with N from 1 (a beginner) to {TOP} (the perfect player)")
    return LevelPlayer(variant, level=int(digits))
