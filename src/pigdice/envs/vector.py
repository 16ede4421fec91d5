"""A batched Gymnasium environment: thousands of games of one seat against robots, stepped at once in numba.

``PigdiceVectorEnv`` is a ``gymnasium.vector.VectorEnv`` of ``num_envs`` games of
``pigdice.envs.gym.PigdiceEnv``: the same parameters, observations, action integers, masks and
rewards, and for the same seed the same game (game k of ``reset(seed=s)`` is ``PigdiceEnv``
reset with seed s + k; a list of seeds gives each game its own). Every turn-based variant and
ending is played; Swine Herd (everyone at once) is not. The robots are those the kernel plays
(``pigdice.envs.vector_kernels``): hold:N (with +dice:D), dice:N, and the perfect player in
2-player first-to-goal games (its action table from the solver). ``hold_at_goal`` (default True,
as ``PigdiceEnv``'s): in a first-to-goal game whoever reaches the goal holds at once, nobody asked.

Autoreset: ``metadata["autoreset_mode"]`` says which. Next-step (the default, Gymnasium's own):
the step after a game ends starts the next one, its action unused, reward 0. Same-step: a game
that ends starts again in the same step; its last observation is in ``info["final_obs"]``
(rows marked by ``info["_final_obs"]``). A game that continues after its end (no seed) throws
on from its own dice, as ``PigdiceEnv.reset()`` without a seed does. ``action_masks()`` gives
the batch's legal actions (also ``info["action_mask"]``); a game that is over has none.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pigdice.engine.game import MOVE_LIMIT
from pigdice.envs import vector_kernels as kernels
from pigdice.envs.encoding import OBSERVATION_HIGH, action_count, observation_size
from pigdice.envs.setup import MAX_DECISIONS, check_decisions, check_hold_at_goal, check_player_count, make_variant
from pigdice.errors import BadParameterError, BadStrategyError, IllegalActionError
from pigdice.players.base import Strategy
from pigdice.players.fixed import DiceEachTurn, HoldAt
from pigdice.players.specs import parse_strategy
from pigdice.rules.outcomes import RollSpec, SumUnlessBad
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant

MAX_GAMES = 1 << 20  # the most games one batch steps (a million rows of a few int64 each)
DENSE_THROWS = 1 << 16  # a throw whose face combinations are at most this many is scored by table lookup
SUPPORTED_ROBOTS = "hold:N (also hold:N+dice:D), dice:N, and optimal in 2-player first-to-the-goal games"
AUTORESET_MODES = {"next-step": AutoresetMode.NEXT_STEP, "same-step": AutoresetMode.SAME_STEP}
_DECISIONS = {
    Decision.ROLL_HOLD: kernels.ROLL_HOLD,
    Decision.DICE_PER_TURN: kernels.DICE_PER_TURN,
    Decision.DICE_PER_ROLL: kernels.DICE_PER_ROLL,
}
_ENDGAMES = {
    Endgame.FIRST_TO_GOAL: kernels.FIRST_TO_GOAL,
    Endgame.FINAL_ROUND: kernels.FINAL_ROUND,
    Endgame.EQUAL_TURNS: kernels.EQUAL_TURNS,
}
_MASK_64 = (1 << 64) - 1


def rules_of(variant: Variant, players: int, seat: int, max_decisions: int, hold_at_goal: bool = True) -> kernels.Rules:
    """Return the kernel's numbers for ``variant`` played by ``players`` with the learner at ``seat``."""
    return kernels.Rules(
        goal=variant.goal,
        players=players,
        decision=_DECISIONS[variant.decision],
        endgame=_ENDGAMES[variant.endgame],
        first_to_reach=variant.ties is TieRule.FIRST_TO_REACH,
        final_roll=variant.endgame is Endgame.FINAL_ROUND and variant.final_turn is FinalTurn.ROLL,
        can_hold=variant.can_hold,
        choices=len(variant.choices),
        seat=seat,
        max_decisions=max_decisions,
        move_limit=MOVE_LIMIT,
        robots_draw=True,
        # as envs.setup.must_hold: only a first-to-the-goal game with a hold ends by holding at the goal
        hold_at_goal=hold_at_goal and variant.endgame is Endgame.FIRST_TO_GOAL and variant.can_hold,
    )


def _dense_effects(spec: RollSpec) -> list[tuple[int, int, bool]]:
    """Return the effect of every face-index combination of ``spec``'s dice, the first die most significant."""
    effects = []
    for faces in itertools.product(*(die.faces for die in spec.dice)):
        effect = spec.throw_faces(faces).effect
        effects.append((int(effect.kind), effect.amount, effect.keep_turn_total))
    return effects


def dice_of(variant: Variant) -> kernels.Dice:
    """Return the kernel's throw tables for every roll choice of ``variant``."""
    columns: dict[str, list[Any]] = {name: [] for name in kernels.Dice._fields}
    columns["die_start"].append(0)
    columns["face_start"].append(0)
    for spec in variant.rolls:
        mishap = spec.mishap
        chance = float(mishap.probability) if mishap is not None and mishap.probability > 0 else 0.0
        columns["mishap"].append(chance)
        columns["mishap_kind"].append(int(mishap.effect.kind) if mishap is not None else 0)
        columns["mishap_amount"].append(mishap.effect.amount if mishap is not None else 0)
        columns["mishap_keep"].append(mishap.effect.keep_turn_total if mishap is not None else True)
        for die in spec.dice:
            columns["cumulative"].extend(die.cumulative)
            columns["faces"].extend(die.faces)
            columns["face_start"].append(len(columns["faces"]))
        columns["die_start"].append(len(columns["face_start"]) - 1)
        columns["dense_start"].append(len(columns["dense_kind"]))
        scorer = spec.scorer
        if isinstance(scorer, SumUnlessBad):
            columns["mode"].append(kernels.SUM_UNLESS_BAD)
            columns["bad_face"].append(scorer.bad_face)
            columns["reset_at"].append(scorer.reset_at)
            continue
        if np.prod([len(die.faces) for die in spec.dice], dtype=float) > DENSE_THROWS:
            raise BadParameterError(
                f"{variant.name}: a throw of {spec.count} dice has too many face combinations for the batched "
                f"environment (at most {DENSE_THROWS:,}); play it in the single environment"
            )
        columns["mode"].append(kernels.DENSE)
        columns["bad_face"].append(0)
        columns["reset_at"].append(0)
        for kind, amount, keep in _dense_effects(spec):
            columns["dense_kind"].append(kind)
            columns["dense_amount"].append(amount)
            columns["dense_keep"].append(keep)
    types = {"mishap": np.float64, "cumulative": np.float64, "mishap_keep": np.bool_, "dense_keep": np.bool_}
    return kernels.Dice(**{name: np.array(values, dtype=types.get(name, np.int64)) for name, values in columns.items()})


def _roll_choice(variant: Variant, dice: int | None) -> int:
    """Return the roll choice a robot throws with ``dice`` dice (None: the smallest), as ``roll_with`` picks it."""
    if not variant.chooses_dice or dice is None:
        return 0
    wanted = min(max(dice, variant.choices[0]), variant.choices[-1])
    if wanted not in variant.choices:
        raise BadStrategyError(f"{variant.name} cannot throw {wanted} dice")
    return variant.choices.index(wanted)


def robots_of(variant: Variant, robots: Sequence[Strategy], seat: int) -> kernels.Robots:
    """Return the kernel's robots: ``robots`` in seat order around the learner at ``seat``."""
    players = len(robots) + 1
    kind = np.zeros(players, dtype=np.int64)
    threshold = np.zeros(players, dtype=np.int64)
    roll = np.zeros(players, dtype=np.int64)
    table = np.zeros((1, 1, 1), dtype=np.int8)
    for place, robot in enumerate(robots):
        other = place if place < seat else place + 1
        if isinstance(robot, HoldAt):
            kind[other], threshold[other], roll[other] = (
                kernels.HOLD_AT,
                robot.threshold,
                _roll_choice(variant, robot.dice),
            )
        elif isinstance(robot, DiceEachTurn):
            if robot.dice not in variant.choices:
                raise BadStrategyError(f"{robot.name}: {variant.name} cannot throw {robot.dice} dice")
            kind[other], roll[other] = kernels.DICE_EACH_TURN, variant.choices.index(robot.dice)
        elif _is_perfect(robot) and players == 2 and variant.endgame is Endgame.FIRST_TO_GOAL:
            kind[other] = kernels.TABLE
            table = np.ascontiguousarray(robot.action_table(variant), dtype=np.int8)  # type: ignore[attr-defined]
        else:
            raise BadStrategyError(
                f"the batched environment's robots are {SUPPORTED_ROBOTS}; {robot.name} in {players}-player "
                f"{variant.name} ({variant.endgame.label}) plays in the single environment (PigdiceEnv)"
            )
    return kernels.Robots(kind, threshold, roll, table)


def _is_perfect(robot: Strategy) -> bool:
    from pigdice.players.optimal import Optimal

    return isinstance(robot, Optimal)


def check_games(num_envs: int) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
        raise BadParameterError(f"num_envs must be a whole number, got {num_envs!r}")
    if not 1 <= num_envs <= MAX_GAMES:
        raise BadParameterError(f"num_envs must be between 1 and {MAX_GAMES:,}, got {num_envs}")
    return int(num_envs)


def _check_autoreset(mode: str | AutoresetMode) -> AutoresetMode:
    if isinstance(mode, AutoresetMode) and mode in AUTORESET_MODES.values():
        return mode
    if isinstance(mode, str) and mode.strip().lower().replace("_", "-") in AUTORESET_MODES:
        return AUTORESET_MODES[mode.strip().lower().replace("_", "-")]
    raise BadParameterError(f"autoreset_mode must be one of {', '.join(AUTORESET_MODES)}, got {mode!r}")


def generator_words(seed: int | None) -> tuple[int, int, int, int]:
    """Return the PCG64 state of ``default_rng(seed)`` (what Gymnasium seeds with) as four 64-bit words."""
    state = np.random.PCG64(np.random.SeedSequence(seed)).state["state"]
    whole, increment = int(state["state"]), int(state["inc"])
    return whole >> 64, whole & _MASK_64, increment >> 64, increment & _MASK_64


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise BadParameterError(f"a seed is a whole number >= 0 (or None), got {seed!r}")
    return int(seed)


def batch_seeds(seed: int | Sequence[int | None] | None, games: int) -> list[int | None]:
    """Return each game's seed: ``seed + k`` for game k, one of a list of ``games`` seeds, or None (fresh entropy)."""
    if seed is None or isinstance(seed, int | np.integer):
        first = _check_seed(seed)
        return [None if first is None else first + k for k in range(games)]
    if isinstance(seed, str | bytes) or not isinstance(seed, Sequence | np.ndarray):
        raise BadParameterError(f"seed is a whole number, one per game, or None; got {type(seed).__name__}")
    if len(seed) != games:
        raise BadParameterError(f"give one seed per game: {games} seeds, not {len(seed)}")
    return [_check_seed(s) for s in seed]


def check_batch_actions(actions: Any, masks: np.ndarray, playing: np.ndarray) -> np.ndarray:
    """Return ``actions`` as int64 after checking one whole number per game, each legal where ``playing``."""
    games, count = masks.shape
    chosen = np.asarray(actions)
    if chosen.shape != (games,):
        raise BadParameterError(f"step takes one action per game: an array of shape ({games},), not {chosen.shape}")
    if chosen.dtype == np.bool_ or not np.issubdtype(chosen.dtype, np.integer):
        raise IllegalActionError(f"actions are whole numbers 0..{count - 1}, not {chosen.dtype}")
    chosen = chosen.astype(np.int64)
    outside = np.flatnonzero((chosen < 0) | (chosen >= count))
    if outside.size:
        game = int(outside[0])
        raise IllegalActionError(f"game {game}: action {chosen[game]} is out of range 0..{count - 1}")
    legal = masks[np.arange(games), chosen].astype(bool)
    illegal = np.flatnonzero(playing & ~legal)
    if illegal.size:
        game = int(illegal[0])
        allowed = ", ".join(str(a) for a in np.flatnonzero(masks[game]))
        raise IllegalActionError(f"game {game}: action {chosen[game]} is not allowed now; allowed: {allowed}")
    return chosen


class PigdiceVectorEnv(VectorEnv):
    """``num_envs`` games of one seat against robots (``PigdiceEnv``'s), stepped together in numba."""

    def __init__(
        self,
        num_envs: int = 1024,
        variant: str | Variant = "pig",
        opponents: str | list[str] = "optimal",
        seat: int = 0,
        goal: int | None = None,
        endgame: str | None = None,
        ties: str | None = None,
        max_decisions: int = MAX_DECISIONS,
        autoreset_mode: str | AutoresetMode = "next-step",
        hold_at_goal: bool = True,
    ) -> None:
        self.num_envs = check_games(num_envs)
        self.hold_at_goal = check_hold_at_goal(hold_at_goal)
        self.variant = make_variant(variant, goal, endgame, ties).require_turns("the batched environment")
        specs = opponents.split(",") if isinstance(opponents, str) else list(opponents)
        robots = [parse_strategy(spec.strip(), self.variant) for spec in specs]
        players = check_player_count(self.variant, len(robots) + 1)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise BadParameterError(f"seat must be a whole number 0..{players - 1}, got {seat!r}")
        self.seat, self.players = seat, players
        self.autoreset_mode = _check_autoreset(autoreset_mode)
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": []}
        self.max_decisions = check_decisions(max_decisions)
        self._rules = rules_of(self.variant, players, seat, self.max_decisions, self.hold_at_goal)
        self._dice = dice_of(self.variant)
        self._robots = robots_of(self.variant, robots, seat)
        self.single_observation_space = spaces.Box(0, OBSERVATION_HIGH, (observation_size(players),), np.int64)
        self._actions = action_count(self.variant)
        self.single_action_space = spaces.Discrete(self._actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._games = kernels.new_games(self.num_envs, self.players)
        self._outputs = self._new_outputs()
        self._seeded = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = False

    def _new_outputs(self) -> kernels.Outputs:
        n, size = self.num_envs, observation_size(self.players)
        return kernels.Outputs(
            observations=np.zeros((n, size), dtype=np.int64),
            rewards=np.zeros(n, dtype=np.float64),
            terminated=np.zeros(n, dtype=np.bool_),
            truncated=np.zeros(n, dtype=np.bool_),
            masks=np.zeros((n, self._actions), dtype=np.int8),
            final_observations=np.zeros((n, size), dtype=np.int64),
            finished=np.zeros(n, dtype=np.bool_),
        )

    def _reset_mask(self, options: dict[str, Any] | None) -> np.ndarray:
        if options is None:
            return np.ones(self.num_envs, dtype=np.bool_)
        if not isinstance(options, dict) or set(options) - {"reset_mask"}:
            raise BadParameterError("the only reset option is 'reset_mask' (which games to start again)")
        mask = np.asarray(options.get("reset_mask", np.ones(self.num_envs, dtype=np.bool_)))
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise BadParameterError(f"reset_mask is a boolean array of shape ({self.num_envs},)")
        return mask

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new games (game k seeded ``seed + k``, or ``seed[k]``); play up to the learner's first move."""
        which = self._reset_mask(options)
        seeds = batch_seeds(seed, self.num_envs)
        rng = self._games.rng
        for game in np.flatnonzero(which):
            if seeds[game] is not None or not self._seeded[game]:
                rng[game] = generator_words(seeds[game])
                self._seeded[game] = True
        kernels.reset_games(self._rules, self._dice, self._robots, self._games, which, self._outputs)
        self._started = True
        return self._outputs.observations.copy(), self._info()

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self._outputs.masks.copy(),
            "_action_mask": np.ones(self.num_envs, dtype=np.bool_),
        }
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            info["final_obs"] = self._outputs.final_observations.copy()
            info["_final_obs"] = self._outputs.finished.copy()
        return info

    def action_masks(self) -> np.ndarray:
        """Return every game's legal actions for the learner, a (num_envs, actions) boolean array."""
        return self._outputs.masks.astype(bool)

    def _check_actions(self, actions: Any) -> np.ndarray:
        playing = ~self._games.reported & ~self._games.over
        return check_batch_actions(actions, self._outputs.masks, playing)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play every game's learner action, then its robots; return observations, rewards, ends and info."""
        if not self._started:
            raise BadParameterError("call reset() before step()")
        chosen = self._check_actions(actions)
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        kernels.step_games(self._rules, self._dice, self._robots, self._games, chosen, same_step, self._outputs)
        out = self._outputs
        return (
            out.observations.copy(),
            out.rewards.copy(),
            out.terminated.copy(),
            out.truncated.copy(),
            self._info(),
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Release nothing: the games are arrays."""


VECTOR_ENV_ID = "pigdice/PigdiceVector-v0"
if VECTOR_ENV_ID not in gym.registry:
    gym.register(id=VECTOR_ENV_ID, vector_entry_point="pigdice.envs.vector:PigdiceVectorEnv")
