"""What the two PettingZoo environments share: agents named by seat, their spaces, the checks and the text render."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pigdice.engine.game import GameState, new_game
from pigdice.envs.encoding import OBSERVATION_HIGH, action_count, observation_size_of, observe_as
from pigdice.envs.setup import (
    check_decisions,
    check_hold_at_goal,
    check_observation,
    check_player_count,
    check_render_mode,
    legal_mask,
    render_text,
)
from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant


def agent_name(seat: int) -> str:
    """Return the agent name of a seat."""
    return f"player_{seat}"


class Seats:
    """Agents ``player_0`` ... with one observation space (the encoding and the action mask) and one action space."""

    variant: Variant
    state: GameState

    def set_up(
        self,
        variant: Variant,
        players: int,
        max_decisions: int,
        render_mode: str | None,
        observation: str = "full",
        hold_at_goal: bool = True,
    ) -> None:
        """Check the parameters and set up the agents, spaces and the (unseeded) dice generator."""
        self.variant = variant
        check_player_count(variant, players)
        self.render_mode = check_render_mode(render_mode)
        self.max_decisions = check_decisions(max_decisions)
        self.observation = check_observation(observation)
        self.hold_at_goal = check_hold_at_goal(hold_at_goal)
        self.possible_agents = [agent_name(seat) for seat in range(players)]
        self.agents = list(self.possible_agents)
        actions = action_count(variant)
        size = observation_size_of(self.observation, players)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, OBSERVATION_HIGH, (size,), np.int64),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(actions)
        self._rng = np.random.default_rng()
        self.state = new_game(variant, players)
        self._decisions = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """Return the observation space (the same for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Return the action space (the same for every agent)."""
        return self._action_space

    def seat_of(self, agent: str) -> int:
        """Return the seat of ``agent``; raise BadParameterError for an unknown name."""
        if agent not in self.possible_agents:
            raise BadParameterError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}")
        return self.possible_agents.index(agent)

    def observed(self, seat: int) -> np.ndarray:
        """Return the observation vector of ``seat`` (the environment's observation kind)."""
        return observe_as(self.observation, self.state, seat)

    def legal(self, seat: int) -> np.ndarray:
        """Return the int8 mask of ``seat``'s legal actions (only hold at the goal, with ``hold_at_goal``)."""
        return legal_mask(self.state, seat, self.hold_at_goal)

    def render(self) -> str | None:
        """Return the game as one line of text ('ansi'), or print it ('human')."""
        return render_text(self.state, self.render_mode)

    def close(self) -> None:
        """Release nothing: the environment holds no outside resources."""
