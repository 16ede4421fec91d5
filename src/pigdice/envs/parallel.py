"""A PettingZoo parallel environment for Swine Herd: every standing player chooses at once.

At each moment every agent sends an action together; the choices of the standing players
(roll: stay standing, hold: sit down and bank the shared turn total) are applied together
(``pigdice.engine.simultaneous``), so nobody sees another's choice of the same moment. A seated
player has nothing to choose until the next turn: their action is ignored (the mask offers only
hold, "stay seated"). While the shared turn total is 0 nobody has anything to bank, so the die
is rolled on without asking. Rewards, observations (``observation``: "full" or "exact"), render
modes and truncation are as in the AEC environment. ``hold_at_goal`` (default True) is accepted
as everywhere, but Swine Herd ends after equal turns, where the rule never applies: a player past
the goal may stay standing, since the highest score wins once everyone is home.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import ParallelEnv

from pigdice.engine.game import new_game, returns
from pigdice.engine.simultaneous import apply_choices, choosing_seats
from pigdice.envs.agents import Seats, agent_name
from pigdice.envs.encoding import action_count, hold_action, to_action
from pigdice.envs.setup import MAX_DECISIONS, make_variant, skip_empty_moments
from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant

Observation = dict[str, np.ndarray]


class PigdiceParallelEnv(Seats, ParallelEnv):
    """Swine Herd (or any simultaneous variant) as a PettingZoo parallel environment."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pigdice_swine_herd_v0",
        "render_modes": ["ansi", "human"],
        "render_fps": 4,
    }

    def __init__(
        self,
        variant: str | Variant = "swine-herd",
        players: int = 2,
        goal: int | None = None,
        max_decisions: int = MAX_DECISIONS,
        render_mode: str | None = None,
        observation: str = "full",
        hold_at_goal: bool = True,
    ) -> None:
        chosen = make_variant(variant, goal)
        if not chosen.is_simultaneous:
            raise BadParameterError(f"{chosen.name} is played in turns: use pigdice.envs.aec_env")
        self.set_up(chosen, players, max_decisions, render_mode, observation, hold_at_goal)

    def _observations(self) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        observations: dict[str, Observation] = {}
        infos: dict[str, dict[str, Any]] = {}
        seated_mask = np.zeros(action_count(self.variant), dtype=np.int8)
        seated_mask[hold_action(self.variant) or 0] = 1
        for agent in self.agents:
            seat = self.seat_of(agent)
            mask = self.legal(seat)
            if not mask.any() and not self.state.is_terminal():
                mask = seated_mask
            observations[agent] = {"observation": self.observed(seat), "action_mask": mask}
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
        rewards = {agent: shares[self.seat_of(agent)] if over else 0.0 for agent in self.agents}
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, cut)
        observations, infos = self._observations()
        if over or cut:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos


def parallel_env(**kwargs: Any) -> PigdiceParallelEnv:
    """Return Swine Herd as a PettingZoo parallel environment (``players``, ``goal``, ...)."""
    return PigdiceParallelEnv(**kwargs)
