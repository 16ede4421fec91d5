"""A PettingZoo AEC environment for every turn-based variant, 2-10 players.

Agents ``player_0`` ... take turns as the game says. Each observation is a dict with the
shared encoding (``pigdice.envs.encoding``) as ``observation`` and the legal actions as
``action_mask`` (also in ``infos``). The reward is each player's share of the win when the
game ends (1 for a lone winner, 1/k for k tied winners, 0 otherwise), so a policy's expected
return is its win probability. An illegal action raises IllegalActionError. ``observation`` is
"full" or "exact" (only what exact evaluation reads: see ``pigdice.envs.encoding``).
``hold_at_goal`` (default True, as in the Gymnasium and OpenSpiel games): in a first-to-goal game a
player whose score plus turn total reaches the goal may only hold (the mask offers hold alone, and a
roll there is an IllegalActionError); False offers every action the rules allow. Render modes:
"ansi" (``render()`` returns a line of text) and "human" (the line is printed at every step). A game that runs
past ``max_decisions`` decisions is truncated with no reward. Swine Herd, where everyone
chooses at once, is ``pigdice.envs.parallel.PigdiceParallelEnv``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from pigdice.engine.game import Hold, apply, new_game, returns
from pigdice.envs.agents import Seats, agent_name
from pigdice.envs.encoding import to_action
from pigdice.envs.setup import MAX_DECISIONS, make_variant, must_hold
from pigdice.errors import BadParameterError, IllegalActionError
from pigdice.rules.variant import Variant


class PigdiceAECEnv(Seats, AECEnv):
    """A turn-based pigdice game as a PettingZoo AEC environment (seeded through ``reset(seed=...)``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pigdice_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        variant: str | Variant = "pig",
        players: int = 2,
        goal: int | None = None,
        endgame: str | None = None,
        ties: str | None = None,
        max_decisions: int = MAX_DECISIONS,
        render_mode: str | None = None,
        observation: str = "full",
        hold_at_goal: bool = True,
    ) -> None:
        super().__init__()
        chosen = make_variant(variant, goal, endgame, ties)
        if chosen.is_simultaneous:
            raise BadParameterError(f"{chosen.name} is played by everyone at once: use pigdice.envs.parallel_env")
        self.set_up(chosen, players, max_decisions, render_mode, observation, hold_at_goal)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return ``agent``'s observation: the encoded state from its seat and its action mask."""
        seat = self.seat_of(agent)
        return {"observation": self.observed(seat), "action_mask": self.legal(seat)}

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
        self.infos = {agent: {"action_mask": self.legal(seat)} for seat, agent in enumerate(self.agents)}

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to move (None for an agent whose game is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = to_action(self.variant, action)
        if not isinstance(move, Hold) and self.hold_at_goal and must_hold(self.state):
            raise IllegalActionError(f"{agent} has reached the goal and holds (hold_at_goal=True)")
        try:
            self.state, _ = apply(self.state, move, self._rng)
        except IllegalActionError as error:
            raise IllegalActionError(f"{agent}: {error}") from None
        self._decisions += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.is_terminal():
            shares = returns(self.state)
            self.rewards = {name: shares[self.seat_of(name)] for name in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._decisions >= self.max_decisions:
            self.truncations = dict.fromkeys(self.agents, True)
        self._refresh_infos()
        self.agent_selection = agent_name(self.state.current)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


def aec_env(**kwargs: Any) -> PigdiceAECEnv:
    """Return a PettingZoo AEC environment (``variant``, ``players``, ``goal``, ``endgame``, ``ties``, ...)."""
    return PigdiceAECEnv(**kwargs)
