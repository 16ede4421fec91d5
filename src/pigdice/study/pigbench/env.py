"""Pig-Bench's training environment: one seat, chosen at random each game, against a fixed action table.

It plays the 2-player first-to-goal form of a turn-based variant through the game engine, as the
research environments do, and shows the learner their observation (``pigdice.envs.encoding``'s
layout: goal, turn total, rolls this turn, final round, then per player score, to move, owed a
last turn, standing) with two changes, so that what it sees during training is exactly what exact
evaluation can show it afterwards (``observations``):

- "rolls this turn" is fixed at 0 at turn total 0 and 1 after (a position does not tell how many
  rolls made its turn total);
- the scores, the goal and the turn total are divided by the goal (float32), as a network wants.

Where holding wins at once (score + turn total reaches the goal) the environment holds for the
player: exact evaluation never reads those positions. An action that is not legal there (a
learner without masks, SB3's DQN) is replaced by the first legal one. The opponent, the perfect
player by default, plays from its action table (one lookup a move).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pigdice.engine.codec import to_integer
from pigdice.engine.game import Action, GameState, Hold, apply, legal_actions, new_game, returns
from pigdice.rules.variant import Decision, Variant
from pigdice.study.pigbench.positions import (
    MAX_DECISIONS,
    OBSERVATION_SIZE,
    action_count,
    code_of,
    observations,
    table_action,
)


class BenchEnv(gym.Env):
    """A learner against a fixed action table in a random seat each game (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium declares it per instance)

    def __init__(self, variant: Variant, opponent: np.ndarray) -> None:
        self.variant = variant.require_turns("Pig-Bench").first_to_goal()
        self.goal = self.variant.goal
        self.opponent = opponent
        self.per_turn = self.variant.decision is Decision.DICE_PER_TURN
        self.observation_space = spaces.Box(0.0, 2.0, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(action_count(self.variant))
        self.state: GameState = new_game(self.variant, 2)
        self.seat = 0
        self._decisions = 0

    def _observe(self) -> np.ndarray:
        s = self.state
        me, other = s.scores[self.seat], s.scores[1 - self.seat]
        clip = self.goal  # a finished game's scores may pass the goal
        return observations(self.goal, np.array([min(me, clip)]), np.array([min(other, clip)]),
                            np.array([min(s.turn_total, clip)]))[0]  # fmt: skip

    def _wins_by_holding(self) -> bool:
        s = self.state
        return self.variant.can_hold and s.scores[s.current] + s.turn_total >= self.goal

    def _advance(self) -> None:
        """Play the opponent's moves (and holds that win at once) until the learner chooses or the game ends."""
        rng = self.np_random
        while self.state.winners is None:
            if self._wins_by_holding():
                self.state, _ = apply(self.state, Hold(), rng)
            elif self.state.current == self.seat:
                return
            else:
                s = self.state
                k = 0 if self.per_turn else s.turn_total
                code = int(self.opponent[s.scores[s.current], s.scores[self.seat], k])
                self.state, _ = apply(self.state, table_action(self.variant, code), rng)

    def action_masks(self) -> np.ndarray:
        """Return the learner's legal actions as a boolean array (sb3-contrib's MaskablePPO reads it)."""
        mask = np.zeros(action_count(self.variant), dtype=bool)
        for action in legal_actions(self.state):
            mask[self._integer(action)] = True
        return mask

    def _integer(self, action: Action) -> int:
        return to_integer(self.variant, action)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game with the learner in a random seat; play up to its first choice."""
        super().reset(seed=seed)
        self.seat = int(self.np_random.integers(2))
        self.state = new_game(self.variant, 2)
        self._decisions = 0
        self._advance()
        return self._observe(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponent's; return observation, reward, terminated, truncated, info."""
        if self.state.winners is None:
            mask = self.action_masks()
            index = int(np.asarray(action).reshape(-1)[0])
            if not (0 <= index < len(mask) and mask[index]):
                index = int(np.flatnonzero(mask)[0])
            self.state, _ = apply(self.state, table_action(self.variant, code_of(self.variant, index)), self.np_random)
            self._decisions += 1
            self._advance()
        terminated = self.state.winners is not None
        reward = returns(self.state)[self.seat] if terminated else 0.0
        truncated = not terminated and self._decisions >= MAX_DECISIONS
        return self._observe(), float(reward), terminated, truncated, {}
