"""A Gymnasium environment: one seat of any variant against pigdice's robots, a pool of them, or itself.

The learner plays seat ``seat`` (a number, or ``"random"``: a seat drawn per episode from the
environment's ``np_random``). ``opponents`` names the other seats (``pigdice.envs.opponents``): robot
specs (the ones ``pigdice play`` takes: 'optimal', 'hold:20', 'keep-pace', ...), Strategy objects,
policies on observations (``f(observation, action_mask) -> action`` or a model with ``predict``), a pool
of line-ups with weights (one drawn per episode: ``{"optimal": 1, "hold:20": 1}``), or ``"self"``:
self-play, every such seat played by the policy given to ``set_opponent`` (the random robot until then).

``observation`` is ``"full"`` (the shared encoding, ``pigdice.envs.encoding``) or ``"exact"`` (only
what exact evaluation reads: the turn total, the ending flags and every score, so a trained policy
can be written out and evaluated exactly with ``pigdice.evaluate``). ``action_masks()`` gives the
legal actions (the convention of sb3-contrib's MaskablePPO), also in ``info["action_mask"]``, with
the learner's seat in ``info["seat"]``. The reward is the learner's share of the win when the game
ends, so the expected return is its win probability. ``hold_at_goal`` (default True, as in the
PettingZoo and OpenSpiel games): in a first-to-goal game a player whose score plus turn total reaches
the goal holds; here the environment holds for them (a choice of one is no choice, so the learner is
never asked there, and a learner without masks never meets a refused action). False lets everyone
roll on. In Swine Herd the robots choose on the same state as the learner and never see its choice.
If the robots finish the game before the learner's first move, the first ``step`` reports the end
(its action unused). Render modes: ``"ansi"`` (``render()`` returns a line of text) and ``"human"``
(the line is printed at every reset and step, Gymnasium's convention for text environments).
Registered with Gymnasium as ``pigdice/Pigdice-v0``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pigdice.engine.game import HOLD, Action, GameState, apply, new_game, returns
from pigdice.engine.simultaneous import apply_choices, choosing_seats, seat_view
from pigdice.envs.encoding import OBSERVATION_HIGH, action_count, observation_size_of, observe_as, to_action
from pigdice.envs.opponents import OpponentSlot, first_self_opponent, make_player, opponent_pool
from pigdice.envs.setup import (
    MAX_DECISIONS,
    check_decisions,
    check_hold_at_goal,
    check_observation,
    check_player_count,
    check_render_mode,
    legal_mask,
    make_variant,
    must_hold,
    render_text,
    skip_empty_moments,
)
from pigdice.errors import BadParameterError
from pigdice.players.base import Strategy
from pigdice.rules.variant import Variant

RANDOM_SEAT = "random"

ENV_ID = "pigdice/Pigdice-v0"


class PigdiceEnv(gym.Env):
    """One seat of a pigdice game against robots, a pool of them or itself, as a Gymnasium environment."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 (Gymnasium declares it per instance)

    def __init__(
        self,
        variant: str | Variant = "pig",
        opponents: Any = "optimal",
        seat: int | str = 0,
        goal: int | None = None,
        endgame: str | None = None,
        ties: str | None = None,
        max_decisions: int = MAX_DECISIONS,
        render_mode: str | None = None,
        observation: str = "full",
        hold_at_goal: bool = True,
    ) -> None:
        self.variant = make_variant(variant, goal, endgame, ties)
        self.observation = check_observation(observation)
        self.hold_at_goal = check_hold_at_goal(hold_at_goal)
        self._slot = OpponentSlot(first_self_opponent(self.variant))
        self._lineups, self._chances = opponent_pool(opponents, self.variant, self.observation, self._slot)
        players = check_player_count(self.variant, len(self._lineups[0]) + 1)
        self.seat_choice = _check_seat(seat, players)
        self.render_mode = check_render_mode(render_mode)
        self.seat = 0 if self.seat_choice == RANDOM_SEAT else int(self.seat_choice)
        self.players = players
        self.robots: list[Strategy] = list(self._lineups[0])
        self.max_decisions = check_decisions(max_decisions)
        size = observation_size_of(self.observation, players)
        self.observation_space = spaces.Box(0, OBSERVATION_HIGH, (size,), np.int64)
        self.action_space = spaces.Discrete(action_count(self.variant))
        self.state: GameState = new_game(self.variant, players)
        self._robot_rng = np.random.default_rng()
        self._decisions = 0
        self._ended = False

    def set_opponent(self, policy: Any) -> None:
        """Let ``policy`` play every "self" seat from the next move on (a spec, a Strategy, a function or a model)."""
        if not self._slot.seats:
            raise BadParameterError("set_opponent plays the 'self' seats: make the environment with opponents='self'")
        self._slot.player = make_player(policy, self.variant, self.observation)

    def _robot(self, seat: int) -> Strategy:
        return self.robots[seat if seat < self.seat else seat - 1]

    def _advance(self) -> None:
        """Let the robots play until the learner has a choice to make or the game is over."""
        rng = self.np_random
        while not self.state.is_terminal():
            self.state, _ = skip_empty_moments(self.state, rng)
            if self.hold_at_goal and must_hold(self.state):
                self.state, _ = apply(self.state, HOLD, rng)  # at the goal you hold: nobody is asked
                continue
            seats = choosing_seats(self.state)
            if not seats or self.seat in seats:
                return
            self.state, _ = apply_choices(self.state, self._robot_choices(seats), rng)

    def _robot_choices(self, seats: list[int]) -> dict[int, Action]:
        """Return what the robots among ``seats`` choose, each seeing the state from its own seat."""
        return {s: self._robot(s).choose(seat_view(self.state, s), self._robot_rng) for s in seats if s != self.seat}

    def _observe(self) -> np.ndarray:
        return observe_as(self.observation, self.state, self.seat)

    def _info(self) -> dict[str, Any]:
        mask = self.action_masks().astype(np.int8)
        return {"action_mask": mask, "scores": list(self.state.scores), "seat": self.seat}

    def action_masks(self) -> np.ndarray:
        """Return the learner's legal actions as a boolean array."""
        return legal_mask(self.state, self.seat, self.hold_at_goal).astype(bool)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game (``seed`` seeds the dice, the draws and the robots); play up to the learner's move."""
        super().reset(seed=seed)
        if self.seat_choice == RANDOM_SEAT:
            self.seat = int(self.np_random.integers(self.players))
        if len(self._lineups) > 1:
            self.robots = list(self._lineups[int(self.np_random.choice(len(self._lineups), p=self._chances))])
        self._robot_rng = np.random.default_rng(int(self.np_random.integers(2**63)))
        self.state = new_game(self.variant, self.players)
        self._decisions = 0
        self._ended = False
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the robots'; return observation, reward, terminated, truncated, info."""
        if self._ended:
            raise BadParameterError("the game is over: call reset() to start another")
        if self.state.is_terminal():  # the robots finished the game before the learner's first move
            self._ended = True
            return self._observe(), returns(self.state)[self.seat], True, False, self._info()
        move = to_action(self.variant, action)
        choices = self._robot_choices(choosing_seats(self.state))  # turn-based: the learner's move alone
        self.state, _ = apply_choices(self.state, {**choices, self.seat: move}, self.np_random)
        self._decisions += 1
        self._advance()
        terminated = self.state.is_terminal()
        self._ended = terminated
        reward = returns(self.state)[self.seat] if terminated else 0.0
        truncated = not terminated and self._decisions >= self.max_decisions
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        """Return the game as one line of text ('ansi'), or print it ('human')."""
        return render_text(self.state, self.render_mode)


def _check_seat(seat: Any, players: int) -> int | str:
    """Return ``seat`` after checking it is a seat number 0..players-1 or 'random'."""
    if isinstance(seat, str) and seat.strip().lower() == RANDOM_SEAT:
        return RANDOM_SEAT
    if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < players:
        raise BadParameterError(f"seat must be a whole number 0..{players - 1} or 'random', got {seat!r}")
    return int(seat)


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="pigdice.envs.gym:PigdiceEnv")
