"""A learner baseline: tabular Q-learning by self-play, written out as an action table and evaluated exactly.

Method: Watkins' Q-learning (Watkins 1989; Watkins & Dayan 1992, "Q-learning", Machine Learning
8:279-292) in the self-play negamax form for alternating zero-sum games (as in Tesauro's TD-Gammon
or Neller & Presser's own Q-learning of Pig): Q[i, j, k, a] estimates the probability that the
player to move wins at its score i, the opponent's score j and turn total k, after action a
(0 hold, 1 roll) and optimal play afterwards. Both seats share one table. One step is one
decision followed by one update ``Q += alpha * (target - Q)`` with a sampled target:

- hold (a pass at k = 0): the opponent moves at (j, i + k, 0): ``1 - max_a Q[j, i + k, 0, a]``;
- roll, the turn ends with score s (bust: s = i; reset: 0; bank: i + amount (+ k)):
  ``1 - max_a Q[j, s, 0, a]``, or 1 if s reaches the goal;
- roll, the turn goes on with turn total k' (add, double, subtract, set): ``max_a Q[i, j, k', a]``,
  or 1 if i + k' reaches the goal (holding wins at once, so turn totals stop at goal - i).

The throws are drawn from the variant's own effect table (``pigdice.solve.tables.effect_table``,
the numbers the solver reads), so every roll/hold variant of the family is learned as it is
played, first to the goal winning (the game the solver and ``head_to_head`` compute).

Settings (chosen before any run, not tuned against the evaluation):

- behaviour: epsilon-greedy with a constant ``epsilon`` = 0.1 (a random action, hold or roll
  with equal chance, a tenth of the time); the games always start at (0, 0, 0);
- learning rate: ``alpha = 1 / n ** omega`` with n the visits of (state, action), ``omega`` = 0.8,
  a polynomial rate (Even-Dar & Mansour 2003, "Learning rates for Q-learning", JMLR 5:1-25:
  1/n is exponentially slow, n^-omega with 1/2 < omega < 1 polynomial); omega = 1 is 1/visits;
- initial values 0.5 (neither side favoured; not optimistic);
- greedy choice and the written table break ties as the solver does: roll at k = 0 (a pass
  that ties never helps), hold elsewhere (unvisited states therefore hold once k >= 1).

Randomness: the caller passes a numpy ``Generator``; the learner draws one 63-bit seed from it
for a splitmix64 stream (Steele, Lea & Flood 2014) that the kernel carries from call to call, so
training N steps at once or in pieces gives the same table.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.errors import BadParameterError
from pigdice.rules.parameters import shown
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import HOLD
from pigdice.solve.memory import action_table_bytes, check_memory
from pigdice.solve.solver import solvable, solve
from pigdice.solve.step import effect_step
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.solve.two.headtohead import head_to_head

EPSILON = 0.1
OMEGA = 0.8
INITIAL = 0.5
RATE_TABLE = 1 << 16  # learning rates n^-omega kept in a table for n below this (above: computed)
UNIT = 1 << 53
MAX_STEPS = 10**12  # per call of ``train``: a few hours of one core


def learner_bytes(goal: int) -> int:
    """Return the bytes of the learner's arrays at ``goal``: Q and the visits (8 bytes, 2 actions) and 2 tables."""
    return 2 * 16 * goal**3 + action_table_bytes(goal, 2)


# -- the kernel ---------------------------------------------------------------------------------
class Learning(NamedTuple):
    """What the kernel learns and how: the table, its visit counts, the learning rates and the exploration."""

    q: np.ndarray  # (goal, goal, goal, 2): Q[i, j, k, a] (one throw a turn, ``pigbench.tabular``: Q[i, j, c])
    visits: np.ndarray  # int64, shaped as q
    rates: np.ndarray  # rates[n] = n^-omega for n below its length
    omega: float
    explore: int  # epsilon as a 53-bit threshold


@njit(cache=True)
def _train(learning, goal, table, thresholds, rng, position, steps):  # pragma: no cover - numba
    """Play ``steps`` self-play decisions from ``position`` (i, j, k, games), updating learning.q and its visits.

    ``table`` is the variant's ``EffectTable`` and ``thresholds`` the cumulative 53-bit chances of its
    effects; ``rng[0]`` is the splitmix64 state. Both carry over to the next call.
    """
    q, visits, rates, omega, explore = learning
    kinds, amounts, keeps = table.kinds, table.amounts, table.keeps
    z = rng[0]
    golden = np.uint64(0x9E3779B97F4A7C15)
    mix1 = np.uint64(0xBF58476D1CE4E5B9)
    mix2 = np.uint64(0x94D049BB133111EB)
    s11 = np.uint64(11)
    one = np.uint64(1)
    n_rates = rates.shape[0]
    last = thresholds.shape[0] - 1
    i = position[0]
    j = position[1]
    k = position[2]
    games = position[3]
    for _ in range(steps):
        z += golden
        r = (z ^ (z >> np.uint64(30))) * mix1
        r = (r ^ (r >> np.uint64(27))) * mix2
        r ^= r >> np.uint64(31)
        q_hold = q[i, j, k, 0]
        q_roll = q[i, j, k, 1]
        if np.int64(r >> s11) < explore:
            a = 1 if r & one else 0
        elif q_roll > q_hold or (k == 0 and q_roll >= q_hold):
            a = 1
        else:
            a = 0
        ends = True
        won = False
        s = i
        k2 = k
        if a == 0:
            s = i + k
        else:
            z += golden
            r = (z ^ (z >> np.uint64(30))) * mix1
            r = (r ^ (r >> np.uint64(27))) * mix2
            r ^= r >> np.uint64(31)
            u = np.int64(r >> s11)
            e = 0
            while e < last and u >= thresholds[e]:
                e += 1
            s, k2, ends = effect_step(kinds[e], amounts[e], keeps[e], i, k)
        if ends:
            if s >= goal:
                won = True
                target = 1.0
            else:
                target = 1.0 - max(q[j, s, 0, 0], q[j, s, 0, 1])
        elif i + k2 >= goal:
            won = True
            target = 1.0
        else:
            target = max(q[i, j, k2, 0], q[i, j, k2, 1])
        n = visits[i, j, k, a] + 1
        visits[i, j, k, a] = n
        alpha = rates[n] if n < n_rates else math.exp(-omega * math.log(n))
        q[i, j, k, a] += alpha * (target - q[i, j, k, a])
        if won:
            games += 1
            i = 0
            j = 0
            k = 0
        elif ends:
            i, j = j, s
            k = 0
        else:
            k = k2
    rng[0] = z
    position[0] = i
    position[1] = j
    position[2] = k
    position[3] = games


# -- the learner --------------------------------------------------------------------------------
def _check_fraction(value: float, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise BadParameterError(f"{name} must be a number from {low} to {high}, got {shown(value)}")
    return float(value)


def check_variant(variant: Variant) -> Variant:
    """Return the 2-player first-to-goal form of ``variant``, or raise BadParameterError if it is not roll/hold.

    The learner's actions are hold and roll with the one set of dice; games that choose a number
    of dice (Hog, Piggy Six with 3 dice) or are played on shared rolls (Swine Herd) are refused.
    """
    variant = solvable(variant)
    if variant.decision is not Decision.ROLL_HOLD:
        raise BadParameterError(
            f"the Q-learner learns roll/hold games (hold or roll the one set of dice); {variant.name} is "
            f"played by '{variant.decision.label}'"
        )
    return variant


class QLearner:
    """Tabular Q-learning by self-play on a 2-player roll/hold variant, first to the goal winning.

    ``q[i, j, k, a]`` is the learned win probability of the player to move after action a (0 hold,
    1 roll); ``visits`` counts the updates of each entry. See the module docstring for the method.
    """

    def __init__(
        self,
        variant: Variant,
        rng: np.random.Generator,
        epsilon: float = EPSILON,
        omega: float = OMEGA,
        initial: float = INITIAL,
    ) -> None:
        if not isinstance(rng, np.random.Generator):
            raise BadParameterError(f"pass a seeded numpy Generator (np.random.default_rng(seed)), got {shown(rng)}")
        self.variant = check_variant(variant)
        self.epsilon = _check_fraction(epsilon, "epsilon", 0.0, 1.0)
        self.omega = _check_fraction(omega, "omega (alpha = 1 / visits ** omega)", 0.5, 1.0)
        self.initial = _check_fraction(initial, "the initial value", 0.0, 1.0)
        goal = self.variant.goal
        check_memory(f"Q-learning {self.variant.name}", goal, learner_bytes)
        table = effect_table(self.variant)
        cumulative = np.cumsum(table.probabilities)
        self._thresholds = np.minimum(np.round(cumulative / cumulative[-1] * UNIT), UNIT).astype(np.int64)
        self._table: EffectTable = table
        rates = np.ones(RATE_TABLE)  # rates[n] = n^-omega (a visit count n is at least 1)
        rates[1:] = np.arange(1, RATE_TABLE, dtype=np.float64) ** -self.omega
        self.q = np.full((goal, goal, goal, 2), self.initial)
        self.visits = np.zeros((goal, goal, goal, 2), dtype=np.int64)
        self._learning = Learning(self.q, self.visits, rates, self.omega, int(self.epsilon * UNIT))
        self._rng = np.array([rng.integers(0, 2**63, dtype=np.int64)], dtype=np.uint64)
        self._position = np.zeros(4, dtype=np.int64)  # i, j, k of the player to move; games finished
        self.steps = 0
        self.seconds = 0.0

    @property
    def games(self) -> int:
        """Return the number of self-play games finished so far."""
        return int(self._position[3])

    def train(self, steps: int) -> None:
        """Play ``steps`` more decisions of self-play, updating the table after each."""
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or not 0 <= steps <= MAX_STEPS:
            raise BadParameterError(f"steps must be a whole number from 0 to {MAX_STEPS:_}, got {shown(steps)}")
        started = time.perf_counter()
        _train(self._learning, self.variant.goal, self._table, self._thresholds, self._rng, self._position, int(steps))
        self.seconds += time.perf_counter() - started
        self.steps += int(steps)

    def action_table(self) -> np.ndarray:
        """Return the greedy action table T[i, j, k] (0 hold, 1 roll): ties roll at k = 0, hold elsewhere."""
        return greedy_table(self.q)


def greedy_table(q: np.ndarray) -> np.ndarray:
    """Return the greedy int8 action table of ``q[i, j, k, a]``; states with i + k >= goal hold (never read)."""
    goal = q.shape[0]
    hold, roll = q[..., 0], q[..., 1]
    table = (roll > hold).astype(np.int8)
    table[:, :, 0] |= (roll[:, :, 0] >= hold[:, :, 0]).astype(np.int8)
    i, k = np.ogrid[:goal, :goal]
    table[np.broadcast_to((i + k >= goal)[:, None, :], table.shape)] = HOLD
    return table


def agreement(table: np.ndarray, reference: np.ndarray) -> float:
    """Return the fraction of the states (i, j, k) with i + k < goal on which two action tables agree."""
    goal = table.shape[0]
    i, k = np.ogrid[:goal, :goal]
    live = np.broadcast_to((i + k < goal)[:, None, :], table.shape)
    return float(np.mean(table[live] == reference[live]))


# -- the learning curve -------------------------------------------------------------------------
def checkpoints(total: int, points: int, first: int = 10_000) -> list[int]:
    """Return up to ``points`` training step counts from ``first`` to ``total``, evenly spaced on a log scale."""
    if total < 1 or points < 1:
        raise BadParameterError(f"the steps and the points must be at least 1, got {total} and {points}")
    first = min(first, total)
    if points == 1 or first == total:
        return [total]
    marks = np.geomspace(first, total, points)
    return sorted({round(float(m)) for m in marks} | {total})


@dataclass(frozen=True)
class CurvePoint:
    """The greedy table after ``steps`` steps, evaluated exactly against the optimal player."""

    steps: int
    games: int
    seconds: float  # training time so far (evaluation excluded)
    learner_first: float  # P(the learner wins | it moves first)
    optimal_first: float  # P(the learner wins | the optimal player moves first)
    agreement: float  # fraction of states i + k < goal where the learner acts optimally

    @property
    def average(self) -> float:
        """Return the learner's win probability when each side starts half the games (0.5: as good as optimal)."""
        return (self.learner_first + self.optimal_first) / 2

    @property
    def gap(self) -> float:
        """Return how far the learner falls short of the optimal player: 0.5 - average."""
        return 0.5 - self.average

    def to_json(self) -> dict[str, float | int]:
        """Return the point as JSON-ready data."""
        return {
            "steps": self.steps,
            "games": self.games,
            "train_seconds": self.seconds,
            "learner_first": self.learner_first,
            "optimal_first": self.optimal_first,
            "average": self.average,
            "gap": self.gap,
            "agreement": self.agreement,
        }


Progress = Callable[[CurvePoint], None]  # called with each point as soon as it is evaluated


@dataclass(frozen=True)
class LearningCurve:
    """The exact win probability of the learner's greedy table against optimal play, by training steps."""

    variant: Variant
    points: tuple[CurvePoint, ...]
    epsilon: float
    omega: float
    initial: float

    @property
    def final(self) -> CurvePoint:
        """Return the last point (the most training)."""
        return self.points[-1]

    @property
    def steps_per_second(self) -> float:
        """Return the training speed over the whole run (evaluation excluded)."""
        return self.final.steps / self.final.seconds if self.final.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, object]:
        """Return the curve and its settings as JSON-ready data."""
        return {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "method": "Q-learning, self-play (negamax), one shared table",
            "epsilon": self.epsilon,
            "alpha": f"1 / visits ** {self.omega}",
            "initial": self.initial,
            "ties": "roll at turn total 0, hold elsewhere",
            "steps_per_second": self.steps_per_second,
            "points": [point.to_json() for point in self.points],
        }


def learning_curve(
    variant: Variant,
    marks: Sequence[int],
    rng: np.random.Generator,
    epsilon: float = EPSILON,
    omega: float = OMEGA,
    initial: float = INITIAL,
    progress: Progress | None = None,
) -> LearningCurve:
    """Train one learner through the increasing step counts ``marks``; evaluate its table exactly at each.

    Each point is ``head_to_head`` of the learner's greedy table against the optimal table, with
    each side moving first. Training is one run: the table at a mark does not depend on the marks.
    """
    learner = QLearner(variant, rng, epsilon, omega, initial)
    variant = learner.variant
    if not marks or any(b <= a for a, b in itertools.pairwise(marks)) or marks[0] < 0:
        raise BadParameterError(f"the marks must be increasing step counts from 0, got {list(marks)[:5]}...")
    optimal = solve(variant).action_table()
    points = []
    for mark in marks:
        learner.train(mark - learner.steps)
        table = learner.action_table()
        result = head_to_head(variant, table, optimal)
        point = CurvePoint(
            learner.steps, learner.games, learner.seconds, result.a_first, result.b_first, agreement(table, optimal)
        )
        points.append(point)
        if progress is not None:
            progress(point)
    return LearningCurve(variant, tuple(points), learner.epsilon, learner.omega, learner.initial)
