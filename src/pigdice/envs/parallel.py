"""A PettingZoo parallel environment for Swine Herd: every standing player chooses at once.

At each moment every agent sends an action together; the choices of the standing players
(roll: stay standing, hold: sit down and bank the shared turn total) are applied together
(``pigdice.engine.simultaneous``), so nobody sees another's choice of the same moment. A seated
player has nothing to choose until the next turn: their action is ignored (the mask offers only
hold, "stay seated"). While the shared turn total is 0 nobody has anything to bank, so the die
is rolled on without asking. Rewards, observations and truncation are as in the AEC environment.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from pigdice.engine.game import GameState, new_game, returns
from pigdice.engine.simultaneous import apply_choices, choosing_seats
from pigdice.envs.aec import agent_name
from pigdice.envs.encoding import (
    OBSERVATION_HIGH,
    action_count,
    action_mask,
    hold_action,
    observation_size,
    observe,
    to_action,
)
from pigdice.envs.setup import MAX_DECISIONS, check_decisions, describe, make_variant, skip_empty_moments
from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant

Observation = dict[str, np.ndarray]


class PigdiceParallelEnv(ParallelEnv):
    """Swine Herd (or any simultaneous variant) as a PettingZoo parallel environment."""

    metadata: ClassVar[dict[str, Any]] = {"name": "pigdice_swine_herd_v0", "render_modes": ["ansi"]}

    def __init__(
        self,
        variant: str | Variant = "swine-herd",
        players: int = 2,
        goal: int | None = None,
        max_decisions: int = MAX_DECISIONS,
        render_mode: str | None = None,
    ) -> None:
        self.variant = make_variant(variant, goal)
        if not self.variant.is_simultaneous:
            raise BadParameterError(f"{self.variant.name} is played in turns: use pigdice.envs.aec_env")
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

    def _observations(self) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        observations: dict[str, Observation] = {}
        infos: dict[str, dict[str, Any]] = {}
        seated_mask = np.zeros(action_count(self.variant), dtype=np.int8)
        seated_mask[hold_action(self.variant) or 0] = 1
        for agent in self.agents:
            seat = self.possible_agents.index(agent)
            mask = action_mask(self.state, seat)
            if not mask.any() and not self.state.is_terminal():
                mask = seated_mask
            observations[agent] = {"observation": observe(self.state, seat), "action_mask": mask}
            infos[agent] = {"action_mask": mask}
        return observations, infos

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Start a new game; ``seed`` seeds the dice (None keeps the environment's generator going)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        self._decisions = 0
        self.state, _ = skip_empty_moments(new_game(self.variant, len(self.possible_agents)), self._rng)
        return self._observations()

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Apply the standing agents' actions at once; return observations, rewards, ends, cut-offs, infos."""
        if not self.agents:
            raise BadParameterError("the game is over: call reset() to start another")
        missing = [agent for agent in self.agents if agent not in actions]
        if missing:
            raise BadParameterError(f"every agent sends an action at once; missing: {', '.join(missing)}")
        choices = {seat: to_action(self.variant, actions[agent_name(seat)]) for seat in choosing_seats(self.state)}
        self.state, _ = apply_choices(self.state, choices, self._rng)
        self.state, _ = skip_empty_moments(self.state, self._rng)
        self._decisions += 1
        over = self.state.is_terminal()
        cut = not over and self._decisions >= self.max_decisions
        shares = returns(self.state)
        rewards = {agent: shares[self.possible_agents.index(agent)] if over else 0.0 for agent in self.agents}
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, cut)
        observations, infos = self._observations()
        if over or cut:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        """Return the game as one line of text (render mode 'ansi')."""
        return describe(self.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Release nothing: the environment holds no outside resources."""


def parallel_env(**kwargs: Any) -> PigdiceParallelEnv:
    """Return Swine Herd as a PettingZoo parallel environment (``players``, ``goal``, ...)."""
    return PigdiceParallelEnv(**kwargs)
