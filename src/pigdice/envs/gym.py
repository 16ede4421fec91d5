"""A Gymnasium environment: one seat of any variant against pigdice's robots.

The learner plays seat ``seat``; the other seats are robots given by spec strings (the same
ones ``pigdice play`` takes: 'optimal', 'hold:20', 'keep-pace', ...). Observations use the
shared encoding (``pigdice.envs.encoding``); ``action_masks()`` gives the legal actions (the
convention of sb3-contrib's MaskablePPO), also in ``info["action_mask"]``. The reward is the
learner's share of the win when the game ends, so the expected return is its win probability.
In Swine Herd the robots choose on the same state as the learner and never see its choice.
If the robots finish the game before the learner's first move, the first ``step`` reports the
end (its action unused).
Registered with Gymnasium as ``pigdice/Pigdice-v0``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pigdice.engine.game import GameState, apply, new_game, returns
from pigdice.engine.simultaneous import apply_choices, choosing_seats, seat_view
from pigdice.envs.encoding import OBSERVATION_HIGH, action_count, action_mask, observation_size, observe, to_action
from pigdice.envs.setup import (
    MAX_DECISIONS,
    check_decisions,
    check_player_count,
    check_render_mode,
    describe,
    make_variant,
    skip_empty_moments,
)
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Human, Strategy
from pigdice.players.specs import parse_strategy
from pigdice.rules.variant import Variant

ENV_ID = "pigdice/Pigdice-v0"


class PigdiceEnv(gym.Env):
    """One seat of a pigdice game against robots, as a Gymnasium environment."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium declares it per instance)

    def __init__(
        self,
        variant: str | Variant = "pig",
        opponents: str | list[str] = "optimal",
        seat: int = 0,
        goal: int | None = None,
        endgame: str | None = None,
        ties: str | None = None,
        max_decisions: int = MAX_DECISIONS,
        render_mode: str | None = None,
    ) -> None:
        self.variant = make_variant(variant, goal, endgame, ties)
        specs = opponents.split(",") if isinstance(opponents, str) else list(opponents)
        self.robots: list[Strategy] = [parse_strategy(spec.strip(), self.variant) for spec in specs]
        if any(isinstance(robot, Human) for robot in self.robots):
            raise BadStrategyError("the opponents are robots: a person cannot sit at a Gymnasium environment")
        players = check_player_count(self.variant, len(self.robots) + 1)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise BadParameterError(f"seat must be a whole number 0..{players - 1}, got {seat!r}")
        self.render_mode = check_render_mode(render_mode)
        self.seat = seat
        self.players = players
        self.max_decisions = check_decisions(max_decisions)
        self.observation_space = spaces.Box(0, OBSERVATION_HIGH, (observation_size(players),), np.int64)
        self.action_space = spaces.Discrete(action_count(self.variant))
        self.state: GameState = new_game(self.variant, players)
        self._robot_rng = np.random.default_rng()
        self._decisions = 0
        self._ended = False

    def _robot(self, seat: int) -> Strategy:
        return self.robots[seat if seat < self.seat else seat - 1]

    def _advance(self) -> None:
        """Let the robots play until the learner has a choice to make or the game is over."""
        rng = self.np_random
        while not self.state.is_terminal():
            self.state, _ = skip_empty_moments(self.state, rng)
            seats = choosing_seats(self.state)
            if not seats or self.seat in seats:
                return
            if self.variant.is_simultaneous:
                choices = {s: self._robot(s).choose(seat_view(self.state, s), self._robot_rng) for s in seats}
                self.state, _ = apply_choices(self.state, choices, rng)
            else:
                move = self._robot(self.state.current).choose(self.state, self._robot_rng)
                self.state, _ = apply(self.state, move, rng)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype(np.int8), "scores": list(self.state.scores)}

    def action_masks(self) -> np.ndarray:
        """Return the learner's legal actions as a boolean array."""
        return action_mask(self.state, self.seat).astype(bool)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game (``seed`` seeds the dice and, through them, the robots); play up to the learner's move."""
        super().reset(seed=seed)
        self._robot_rng = np.random.default_rng(int(self.np_random.integers(2**63)))
        self.state = new_game(self.variant, self.players)
        self._decisions = 0
        self._ended = False
        self._advance()
        return observe(self.state, self.seat), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the robots'; return observation, reward, terminated, truncated, info."""
        if self._ended:
            raise BadParameterError("the game is over: call reset() to start another")
        if self.state.is_terminal():  # the robots finished the game before the learner's first move
            self._ended = True
            return observe(self.state, self.seat), returns(self.state)[self.seat], True, False, self._info()
        move = to_action(self.variant, action)
        if self.variant.is_simultaneous:
            seats = choosing_seats(self.state)
            choices = {
                s: self._robot(s).choose(seat_view(self.state, s), self._robot_rng) for s in seats if s != self.seat
            }
            self.state, _ = apply_choices(self.state, {**choices, self.seat: move}, self.np_random)
        else:
            self.state, _ = apply(self.state, move, self.np_random)
        self._decisions += 1
        self._advance()
        terminated = self.state.is_terminal()
        self._ended = terminated
        reward = returns(self.state)[self.seat] if terminated else 0.0
        truncated = not terminated and self._decisions >= self.max_decisions
        return observe(self.state, self.seat), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        """Return the game as one line of text (render mode 'ansi')."""
        return describe(self.state) if self.render_mode == "ansi" else None


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="pigdice.envs.gym:PigdiceEnv")
