"""A PettingZoo AEC environment for every turn-based variant, 2-10 players.

Agents ``player_0`` ... take turns as the game says. Each observation is a dict with the
shared encoding (``pigdice.envs.encoding``) as ``observation`` and the legal actions as
``action_mask`` (also in ``infos``). The reward is each player's share of the win when the
game ends (1 for a lone winner, 1/k for k tied winners, 0 otherwise), so a policy's expected
return is its win probability. An illegal action raises IllegalActionError. A game that runs
past ``max_decisions`` decisions is truncated with no reward. Swine Herd, where everyone
chooses at once, is ``pigdice.envs.parallel.PigdiceParallelEnv``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from pigdice.engine.game import GameState, apply, new_game, returns
from pigdice.envs.encoding import OBSERVATION_HIGH, action_count, action_mask, observation_size, observe, to_action
from pigdice.envs.setup import MAX_DECISIONS, check_decisions, describe, make_variant
from pigdice.errors import BadParameterError, IllegalActionError
from pigdice.rules.variant import Variant


def agent_name(seat: int) -> str:
    """Return the agent name of a seat."""
    return f"player_{seat}"


class PigdiceAECEnv(AECEnv):
    """A turn-based pigdice game as a PettingZoo AEC environment (seeded through ``reset(seed=...)``)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "pigdice_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        variant: str | Variant = "pig",
        players: int = 2,
        goal: int | None = None,
        endgame: str | None = None,
        ties: str | None = None,
        max_decisions: int = MAX_DECISIONS,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.variant = make_variant(variant, goal, endgame, ties)
        if self.variant.is_simultaneous:
            raise BadParameterError(f"{self.variant.name} is played by everyone at once: use pigdice.envs.parallel_env")
        if isinstance(players, bool) or not isinstance(players, int):
            raise BadParameterError(f"players must be a whole number, got {players!r}")
        self.variant.check_players(players)
        if render_mode not in (None, "ansi"):
            raise BadParameterError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.max_decisions = check_decisions(max_decisions)
        self.possible_agents = [agent_name(seat) for seat in range(players)]
        self.agents = list(self.possible_agents)
        actions = action_count(self.variant)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, OBSERVATION_HIGH, (observation_size(players),), np.int64),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(actions)
        self._rng = np.random.default_rng()
        self.state: GameState = new_game(self.variant, players)
        self._decisions = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """Return the observation space (the same for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Return the action space (the same for every agent)."""
        return self._action_space

    def _seat(self, agent: str) -> int:
        if agent not in self.possible_agents:
            raise BadParameterError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}")
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return ``agent``'s observation: the encoded state from its seat and its action mask."""
        seat = self._seat(agent)
        return {"observation": observe(self.state, seat), "action_mask": action_mask(self.state, seat)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` seeds the dice (None keeps the environment's generator going)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = new_game(self.variant, len(self.possible_agents))
        self._decisions = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._refresh_infos()
        self.agent_selection = agent_name(self.state.current)

    def _refresh_infos(self) -> None:
        self.infos = {agent: {"action_mask": action_mask(self.state, seat)} for seat, agent in enumerate(self.agents)}

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to move (None for an agent whose game is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = to_action(self.variant, action)
        try:
            self.state, _ = apply(self.state, move, self._rng)
        except IllegalActionError as error:
            raise IllegalActionError(f"{agent}: {error}") from None
        self._decisions += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.is_terminal():
            shares = returns(self.state)
            self.rewards = {name: shares[self._seat(name)] for name in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._decisions >= self.max_decisions:
            self.truncations = dict.fromkeys(self.agents, True)
        self._refresh_infos()
        self.agent_selection = agent_name(self.state.current)
        self._accumulate_rewards()

    def render(self) -> str | None:
        """Return the game as one line of text (render mode 'ansi')."""
        return describe(self.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Release nothing: the environment holds no outside resources."""


def aec_env(**kwargs: Any) -> PigdiceAECEnv:
    """Return a PettingZoo AEC environment (``variant``, ``players``, ``goal``, ``endgame``, ``ties``, ...)."""
    return PigdiceAECEnv(**kwargs)
