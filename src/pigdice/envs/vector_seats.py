"""A PettingZoo-style batch: thousands of n-player games where every seat is a player, stepped at once in numba.

``PigdiceSeatsBatch`` plays ``num_envs`` games of ``pigdice.envs.aec.PigdiceAECEnv`` together:
each step takes one action per game, for the seat to move in that game (``info["mover"]``), and
returns every seat's observation ``(num_envs, players, observation size)`` in the shared
encoding, each seat's reward ``(num_envs, players)`` (its share of the win when the game ends)
and the mover's action mask. Game k of ``reset(seed=s)`` throws the dice of the AEC environment
reset with seed s + k. Autoreset is next-step: the step after a game ends starts the next one
(its action unused), the dice going on as the AEC environment's do after ``reset()``.
Every turn-based variant and ending; Swine Herd (everyone at once) is not played here.
``hold_at_goal`` (default True, as the AEC environment's): a mover who has reached the goal in a
first-to-goal game is offered only the hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pigdice.envs import vector_kernels as kernels
from pigdice.envs.encoding import action_count, observation_size
from pigdice.envs.setup import MAX_DECISIONS, check_decisions, check_hold_at_goal, check_player_count, make_variant
from pigdice.envs.vector import batch_seeds, check_batch_actions, check_games, dice_of, generator_words, rules_of
from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant


class PigdiceSeatsBatch:
    """``num_envs`` games in which every seat is a player (the AEC environment's), stepped together."""

    def __init__(
        self,
        num_envs: int = 1024,
        variant: str | Variant = "pig",
        players: int = 2,
        goal: int | None = None,
        endgame: str | None = None,
        ties: str | None = None,
        max_decisions: int = MAX_DECISIONS,
        hold_at_goal: bool = True,
    ) -> None:
        self.num_envs = check_games(num_envs)
        self.hold_at_goal = check_hold_at_goal(hold_at_goal)
        self.variant = make_variant(variant, goal, endgame, ties).require_turns("the batched environment")
        self.players = check_player_count(self.variant, players)
        self.max_decisions = check_decisions(max_decisions)
        self.actions = action_count(self.variant)
        self.observation_size = observation_size(self.players)
        self._rules = rules_of(self.variant, self.players, 0, self.max_decisions, self.hold_at_goal)._replace(
            robots_draw=False
        )
        self._dice = dice_of(self.variant)
        self._games = kernels.new_games(num_envs, players)
        self._outputs = kernels.SeatOutputs(
            observations=np.zeros((num_envs, players, self.observation_size), dtype=np.int64),
            movers=np.zeros(num_envs, dtype=np.int64),
            masks=np.zeros((num_envs, self.actions), dtype=np.int8),
            rewards=np.zeros((num_envs, players), dtype=np.float64),
            terminated=np.zeros(num_envs, dtype=np.bool_),
            truncated=np.zeros(num_envs, dtype=np.bool_),
        )
        self._seeded = np.zeros(num_envs, dtype=np.bool_)
        self._started = False

    def reset(self, *, seed: int | Sequence[int | None] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new games (game k seeded ``seed + k``, or ``seed[k]``; None keeps each game's dice going)."""
        seeds = batch_seeds(seed, self.num_envs)
        for game, chosen in enumerate(seeds):
            if chosen is not None or not self._seeded[game]:
                self._games.rng[game] = generator_words(chosen)
                self._seeded[game] = True
        which = np.ones(self.num_envs, dtype=np.bool_)
        kernels.reset_seats(self._rules, self._games, which, self._outputs)
        self._started = True
        return self._outputs.observations.copy(), self._info()

    def _info(self) -> dict[str, Any]:
        return {"mover": self._outputs.movers.copy(), "action_mask": self._outputs.masks.copy()}

    def action_masks(self) -> np.ndarray:
        """Return each game's mover's legal actions, a (num_envs, actions) boolean array."""
        return self._outputs.masks.astype(bool)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play each game's mover's action; return every seat's observations and rewards, the ends and info."""
        if not self._started:
            raise BadParameterError("call reset() before step()")
        chosen = check_batch_actions(actions, self._outputs.masks, ~self._games.reported)
        kernels.step_seats(self._rules, self._dice, self._games, chosen, self._outputs)
        out = self._outputs
        return out.observations.copy(), out.rewards.copy(), out.terminated.copy(), out.truncated.copy(), self._info()
