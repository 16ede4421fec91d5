"""The Gymnasium environment's opponents: robots by spec, strategies, policies on observations, pools and self-play.

An opponent line-up names one player for every other seat: a spec (``"optimal"``, ``"hold:20"``),
a ``Strategy``, a policy on observations (a function ``f(observation, action_mask) -> action`` or a
trained model with ``predict``, such as a Stable-Baselines3 one) or ``"self"``. Every ``"self"`` seat is
played by the one opponent policy the environment holds (``PigdiceEnv.set_opponent``): self-play. A
pool is several line-ups with weights; the environment draws one per episode.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pigdice.engine.game import Action, GameState
from pigdice.envs.encoding import action_mask, observe_as, to_action
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Human, Strategy
from pigdice.players.specs import parse_strategy
from pigdice.rules.variant import Variant

SELF = "self"  # a seat played by the environment's opponent policy (self-play)
FIRST_SELF_OPPONENT = "random"  # who plays the "self" seats until set_opponent is called


@dataclass
class PolicyPlayer:
    """A policy on the environments' observations (a function or a model with ``predict``) as a Strategy."""

    policy: Any
    observation: str  # "full" or "exact"
    name: str = "a policy"

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Return the policy's action for the player to move, seen from its own seat."""
        seat = state.current
        observed = observe_as(self.observation, state, seat)
        mask = action_mask(state, seat).astype(bool)
        predict = getattr(self.policy, "predict", None)
        if callable(predict) and not inspect.isroutine(self.policy):
            try:
                answer = predict(observed, action_masks=mask, deterministic=True)
            except TypeError:
                answer = predict(observed, deterministic=True)
            action = answer[0] if isinstance(answer, tuple) else answer
        else:
            action = self.policy(observed, mask)
        return to_action(state.variant, action)


@dataclass
class OpponentSlot:
    """The one opponent policy every "self" seat plays (set by ``PigdiceEnv.set_opponent``)."""

    player: Strategy
    seats: int = 0  # how many seats of the line-ups play it


@dataclass
class SelfPlaySeat:
    """A seat played by whatever opponent the slot holds now."""

    slot: OpponentSlot
    name: str = field(default=SELF)

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Return the slot's opponent's action."""
        return self.slot.player.choose(state, rng)


def make_player(entry: Any, variant: Variant, observation: str) -> Strategy:
    """Return a Strategy for one opponent: a spec, a Strategy, or a policy on observations (function or model)."""
    if isinstance(entry, str):
        player: Strategy = parse_strategy(entry.strip(), variant)
    elif isinstance(entry, Strategy):
        player = entry
    elif callable(entry) or callable(getattr(entry, "predict", None)):
        name = getattr(entry, "__qualname__", None) or type(entry).__name__
        player = PolicyPlayer(entry, observation, name)
    else:
        raise BadStrategyError(
            f"an opponent is a spec such as 'optimal', a Strategy, 'self', a function f(observation, action_mask) "
            f"or a model with predict(); got a {type(entry).__name__}"
        )
    if isinstance(player, Human):
        raise BadStrategyError("the opponents are robots: a person cannot sit at a Gymnasium environment")
    return player


def _lineup_entries(lineup: Any) -> list[Any]:
    """Return the entries of one line-up: a comma-separated string or a sequence."""
    if isinstance(lineup, str):
        entries: list[Any] = [part.strip() for part in lineup.split(",")]
        if any(not part for part in entries):
            raise BadParameterError(f"opponents: an empty name in {lineup!r}")
        return entries
    if isinstance(lineup, Sequence):
        if not lineup:
            raise BadParameterError("opponents: a line-up names at least one opponent")
        return list(lineup)
    return [lineup]


def _is_pool_list(opponents: Any) -> bool:
    """Return True if ``opponents`` is a list of line-ups (each a list or tuple): an equally weighted pool."""
    return (
        isinstance(opponents, Sequence)
        and not isinstance(opponents, str)
        and len(opponents) > 0
        and all(isinstance(item, list | tuple) for item in opponents)
    )


def _weight(lineup: Any, weight: Any) -> float:
    """Return a pool weight after checking it is a positive, finite number."""
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight) or weight <= 0:
        raise BadParameterError(f"opponents: the weight of {lineup!r} must be a positive number, got {weight!r}")
    return float(weight)


def opponent_pool(
    opponents: Any, variant: Variant, observation: str, slot: OpponentSlot
) -> tuple[list[list[Strategy]], np.ndarray]:
    """Return the line-ups of ``opponents`` and their chances (a single line-up has chance 1).

    ``opponents`` is one line-up (``"optimal,hold:10"``, ``["optimal", my_policy]``, ``"self"``), a mapping
    of line-up to weight (``{"optimal": 2, "hold:20": 1}``) or a list of line-ups (``[["optimal"], ["self"]]``).
    """
    if isinstance(opponents, Mapping):
        if not opponents:
            raise BadParameterError("opponents: a pool names at least one line-up")
        lineups = list(opponents)
        weights = [_weight(lineup, weight) for lineup, weight in opponents.items()]
    elif _is_pool_list(opponents):
        lineups = list(opponents)
        weights = [1.0] * len(lineups)
    else:
        lineups, weights = [opponents], [1.0]
    built: list[list[Strategy]] = []
    for lineup in lineups:
        seats: list[Strategy] = []
        for entry in _lineup_entries(lineup):
            if isinstance(entry, str) and entry.strip().lower() == SELF:
                seats.append(SelfPlaySeat(slot))
            else:
                seats.append(make_player(entry, variant, observation))
        built.append(seats)
    sizes = {len(seats) for seats in built}
    if len(sizes) > 1:
        raise BadParameterError(f"opponents: every line-up of a pool seats as many players; got {sorted(sizes)}")
    slot.seats = sum(isinstance(seat, SelfPlaySeat) for seats in built for seat in seats)
    chances = np.array(weights) / sum(weights)
    return built, chances


def first_self_opponent(variant: Variant) -> Strategy:
    """Return who plays the "self" seats before ``set_opponent``: the random robot."""
    return parse_strategy(FIRST_SELF_OPPONENT, variant)
