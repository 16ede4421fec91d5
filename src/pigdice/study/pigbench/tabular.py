"""Pig-Bench's tabular learner: ``pigdice.study.learner``'s Q-learning by self-play, and its form for Hog.

Roll/hold games use ``QLearner`` as it is. Games with one throw a turn and a choice of dice (Hog)
are learned by the same method one decision a turn: Q[i, j, c] estimates the chance that the
player to move at scores (i, j) wins after throwing choice c and playing best afterwards; the
throw is drawn from the variant's own effect table, the turn's points are banked, and the target
is 1 if the score reaches the goal and 1 - max_c Q[j, s, c] otherwise. Epsilon-greedy (0.1, a
random choice), alpha = 1 / visits^0.8 and initial values 0.5, as in ``QLearner``; greedy ties
take the fewest dice.
"""

from __future__ import annotations

import math
import time
from typing import Protocol

import numpy as np
from numba import njit

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.solver import solvable
from pigdice.solve.step import thrown_score
from pigdice.solve.tables import effect_table
from pigdice.study.learner import EPSILON, INITIAL, OMEGA, RATE_TABLE, UNIT, Learning, QLearner


class TabularLearner(Protocol):
    """What Pig-Bench asks of a tabular learner."""

    steps: int
    seconds: float

    @property
    def games(self) -> int:
        """Return the self-play games finished so far."""
        ...

    def train(self, steps: int) -> None:
        """Play ``steps`` more decisions of self-play."""

    def action_table(self) -> np.ndarray:
        """Return the greedy action table."""
        ...


@njit(cache=True)
def _train_turns(learning, goal, table, thresholds, rng, position, steps):  # pragma: no cover - numba
    """Play ``steps`` self-play turns (one throw each) from ``position`` (i, j, games), updating learning.q.

    ``table`` is the variant's ``EffectTable`` and ``thresholds`` the cumulative 53-bit chances of its
    effects within each choice; ``rng[0]`` is the splitmix64 state. Both carry over to the next call.
    """
    q, visits, rates, omega, explore = learning
    kinds, amounts, keeps, offsets = table.kinds, table.amounts, table.keeps, table.offsets
    z = rng[0]
    golden = np.uint64(0x9E3779B97F4A7C15)
    mix1 = np.uint64(0xBF58476D1CE4E5B9)
    mix2 = np.uint64(0x94D049BB133111EB)
    s11 = np.uint64(11)
    n_rates = rates.shape[0]
    choices = offsets.shape[0] - 1
    i = position[0]
    j = position[1]
    games = position[2]
    for _ in range(steps):
        z += golden
        r = (z ^ (z >> np.uint64(30))) * mix1
        r = (r ^ (r >> np.uint64(27))) * mix2
        r ^= r >> np.uint64(31)
        if np.int64(r >> s11) < explore:
            a = np.int64(r & np.uint64(0x7FF)) % choices
        else:
            a = 0
            for c in range(1, choices):
                if q[i, j, c] > q[i, j, a]:
                    a = c
        z += golden
        r = (z ^ (z >> np.uint64(30))) * mix1
        r = (r ^ (r >> np.uint64(27))) * mix2
        r ^= r >> np.uint64(31)
        u = np.int64(r >> s11)
        e = offsets[a]
        last = offsets[a + 1] - 1
        while e < last and u >= thresholds[e]:
            e += 1
        s = thrown_score(kinds[e], amounts[e], keeps[e], i)
        if s >= goal:
            target = 1.0
        else:
            best = q[j, s, 0]
            for c in range(1, choices):
                best = max(best, q[j, s, c])
            target = 1.0 - best
        n = visits[i, j, a] + 1
        visits[i, j, a] = n
        alpha = rates[n] if n < n_rates else math.exp(-omega * math.log(n))
        q[i, j, a] += alpha * (target - q[i, j, a])
        if s >= goal:
            games += 1
            i = 0
            j = 0
        else:
            i, j = j, s
    rng[0] = z
    position[0] = i
    position[1] = j
    position[2] = games


class TurnQLearner:
    """Tabular Q-learning by self-play where the player chooses its dice once a turn (Hog)."""

    def __init__(self, variant: Variant, rng: np.random.Generator) -> None:
        self.variant = solvable(variant)
        if self.variant.decision is not Decision.DICE_PER_TURN:
            raise BadParameterError(f"{self.variant.name} is not played by one throw a turn")
        goal = self.variant.goal
        table = effect_table(self.variant)
        self._table = table
        thresholds = np.empty(len(table.probabilities), dtype=np.int64)
        for c in range(len(table.offsets) - 1):
            rows = slice(table.offsets[c], table.offsets[c + 1])
            cumulative = np.cumsum(table.probabilities[rows])
            thresholds[rows] = np.minimum(np.round(cumulative / cumulative[-1] * UNIT), UNIT)
        self._thresholds = thresholds
        rates = np.ones(RATE_TABLE)
        rates[1:] = np.arange(1, RATE_TABLE, dtype=np.float64) ** -OMEGA
        choices = len(self.variant.choices)
        self.q = np.full((goal, goal, choices), INITIAL)
        self.visits = np.zeros((goal, goal, choices), dtype=np.int64)
        self._learning = Learning(self.q, self.visits, rates, OMEGA, int(EPSILON * UNIT))
        self._rng = np.array([rng.integers(0, 2**63, dtype=np.int64)], dtype=np.uint64)
        self._position = np.zeros(3, dtype=np.int64)
        self.steps = 0
        self.seconds = 0.0

    @property
    def games(self) -> int:
        """Return the self-play games finished so far."""
        return int(self._position[2])

    def train(self, steps: int) -> None:
        """Play ``steps`` more turns of self-play, updating the table after each."""
        started = time.perf_counter()
        _train_turns(self._learning, self.variant.goal, self._table, self._thresholds, self._rng, self._position,
                     int(steps))  # fmt: skip
        self.seconds += time.perf_counter() - started
        self.steps += int(steps)

    def action_table(self) -> np.ndarray:
        """Return the greedy action table T[i, j, k] = best choice + 1 (the same at every turn total)."""
        goal = self.variant.goal
        best = (np.argmax(self.q, axis=2) + 1).astype(np.int8)
        return np.ascontiguousarray(np.broadcast_to(best[:, :, None], (goal, goal, goal)))


def tabular_learner(variant: Variant, rng: np.random.Generator) -> TabularLearner:
    """Return the tabular learner of ``variant``: roll/hold Q-learning, or one decision a turn (Hog)."""
    form = solvable(variant)
    if form.decision is Decision.DICE_PER_TURN:
        return TurnQLearner(form, rng)
    return QLearner(form, rng)
