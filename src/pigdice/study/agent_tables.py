"""Any agent written out as an action table: a spec, a strategy, a Python function, a table, a file or a model.

An action table T[i, j, k] (my score, the highest other score, the turn total) holds 0 to hold or
c + 1 to roll with dice choice c (Pig: 1 rolls); ``pigdice.players.tables`` explains the codes.
``agent_table`` accepts:

- a spec string (``"hold:20"``, ``"keep-pace"``, ``"level:3"``, ...) or a ``Strategy`` with a table;
- a plain Python function ``f(score, opponent_score, turn_total)`` or ``f(score, opponent_score,
  turn_total, variant)`` returning True / ``"roll"`` to roll, False / ``"hold"`` to hold (or a number of
  dice where the player chooses them, 0 holding), asked once at every position;
- a numpy array of shape (goal, goal, goal), roll 1 and hold 0, or a ``.npy`` / ``.npz`` file holding one
  (an ``.npz`` with one array, or with an array named ``actions`` or ``table``);
- a trained model with ``predict(observations, action_masks=...)`` (Stable-Baselines3 and sb3-contrib's
  MaskablePPO), or a saved one, ``sb3:PATH`` or a ``.zip`` path (``pigdice.study.saved_models``: PPO,
  A2C, DQN, MaskablePPO), asked for its greedy action at every position at once, with the research
  environments' observation (``pigdice.envs.encoding``) of the kind its observation space has: "exact"
  (8 numbers) holds just what the table reads; with "full" (12 numbers) "rolls this turn" cannot be
  told from the turn total, so it is 0 at turn total 0 and 1 after;
- an OpenSpiel policy of ``python_pigdice`` or of OpenSpiel's ``pig`` (``pigdice.study.openspiel_policies``),
  its most probable action at every position, or a saved TabularPolicy in OpenSpiel's text form
  (``openspiel:PATH``).
"""

from __future__ import annotations

import inspect
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pigdice import files
from pigdice.engine.codec import HOLD_FIRST, ROLLS_FIRST, action_count, convert_array
from pigdice.errors import BadStrategyError
from pigdice.players.base import Progress, Strategy
from pigdice.players.plugins import PythonStrategy
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.memory import action_table_bytes, check_memory
from pigdice.solve.storage import READ_LOCK
from pigdice.study.openspiel_policies import (
    is_openspiel_policy,
    is_policy_file_spec,
    openspiel_table,
    read_policy_file,
)
from pigdice.study.saved_models import OBSERVATION_KINDS, is_model_spec, load_model

TABLE_FILE_SUFFIXES = (".npy", ".npz")
TABLE_NAMES = ("actions", "table")  # the array an .npz may name, if it holds more than one
FILE_SLACK = 1 << 16  # bytes past the table's own that a table file may hold (headers, zip records)
MODEL_BATCH = 65_536  # positions a model is asked about at once


@runtime_checkable
class PredictingModel(Protocol):
    """A trained model that answers a batch of observations (Stable-Baselines3's ``predict``)."""

    def predict(self, observation: Any, *args: Any, **kwargs: Any) -> Any:
        """Return (actions, state) for a batch of observations."""


@dataclass(frozen=True)
class AgentTable:
    """An agent's action table and the name it is shown by."""

    name: str
    table: np.ndarray  # (goal, goal, goal) int8


def is_table_file(text: str) -> bool:
    """Return True if ``text`` names a table file (``.npy``, ``.npz`` or a path) rather than a spec."""
    name = text.strip()
    return name.lower().endswith(TABLE_FILE_SUFFIXES) or (":" not in name and ("/" in name or os.sep in name))


def agent_table(agent: Any, variant: Variant, progress: Progress | None = None) -> AgentTable:
    """Return ``agent``'s action table in 2-player, first-to-goal ``variant`` (see the module docstring)."""
    variant = variant.require_turns("an agent's action table").first_to_goal()
    check_memory("an agent's action table", variant.goal, action_table_bytes)
    if is_policy_file_spec(agent):
        return AgentTable(*read_policy_file(agent, variant))
    if is_model_spec(agent):
        saved = load_model(agent, variant)
        return AgentTable(saved.name, model_table(saved.model, variant, progress))
    if isinstance(agent, str) and not is_table_file(agent):
        strategy = parse_strategy(agent, variant)
        return AgentTable(strategy.name, action_table(strategy, variant, progress))
    if isinstance(agent, str | os.PathLike):
        return AgentTable(Path(agent).name, read_table_file(agent, variant))
    if isinstance(agent, np.ndarray):
        return AgentTable("the table", checked_table(agent, variant))
    if isinstance(agent, Strategy):
        return AgentTable(agent.name, action_table(agent, variant, progress))
    if is_openspiel_policy(agent):
        return AgentTable(f"OpenSpiel {type(agent).__name__}", openspiel_table(agent, variant, progress))
    if isinstance(agent, PredictingModel) and not inspect.isroutine(agent):
        return AgentTable(type(agent).__name__, model_table(agent, variant, progress))
    if callable(agent):
        name = getattr(agent, "__qualname__", None) or type(agent).__name__
        strategy = PythonStrategy(name, function_of_four(agent, name))
        return AgentTable(name, action_table(strategy, variant, progress))
    raise BadStrategyError(
        f"cannot evaluate a {type(agent).__name__}: give a strategy spec, a Strategy, a function "
        "f(score, opponent_score, turn_total), an action table (array, .npy or .npz), a model with predict(), "
        "a saved Stable-Baselines3 model (sb3:PATH) or an OpenSpiel policy"
    )


def function_of_four(function: Callable[..., Any], name: str) -> Callable[[int, int, int, Variant], Any]:
    """Return ``function`` called as f(score, opponent, turn_total, variant), whether it takes three or four."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return function  # a builtin without a signature: called with four
    try:
        signature.bind(0, 0, 0, None)
        return function
    except TypeError:
        pass
    try:
        signature.bind(0, 0, 0)
    except TypeError as exc:
        raise BadStrategyError(
            f"{name} must take (score, opponent_score, turn_total) or (score, opponent_score, turn_total, variant)"
        ) from exc
    return lambda score, opponent, turn_total, _variant: function(score, opponent, turn_total)


def checked_table(table: Any, variant: Variant, where: str = "the table") -> np.ndarray:
    """Return ``table`` as an int8 action table of ``variant`` after checking its shape and values."""
    goal = variant.goal
    array = np.asarray(table)
    if array.shape != (goal, goal, goal):
        raise BadStrategyError(
            f"{where} has shape {array.shape}; an action table for goal {goal} has shape {(goal, goal, goal)} "
            "(my score, other score, turn total)"
        )
    if array.dtype == np.bool_:
        array = array.astype(np.int8)
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise BadStrategyError(f"{where} holds {array.dtype} values, not numbers (roll 1, hold 0)")
    if np.issubdtype(array.dtype, np.floating) and not np.all(np.isfinite(array) & (array == np.round(array))):
        raise BadStrategyError(f"{where} holds numbers that are not whole (roll 1, hold 0)")
    high = len(variant.choices)
    inside = decision_positions(variant)
    used = array[inside]
    if used.size and (used.min() < 0 or used.max() > high):
        codes = "roll 1, hold 0" if high == 1 else f"hold 0, roll with choice c as c + 1 (up to {high})"
        raise BadStrategyError(f"{where} holds values outside 0..{high} ({codes})")
    out = np.where(inside, np.clip(array, 0, high), 1).astype(np.int8)
    if not variant.can_hold and np.any(out[:, :, 0] == 0):
        raise BadStrategyError(f"{where} holds somewhere, but {variant.name} has no hold: name a dice choice")
    return np.ascontiguousarray(out)


def decision_positions(variant: Variant) -> np.ndarray:
    """Return the (goal, goal, goal) mask of the positions where the mover chooses (i + k < goal; Hog: k = 0)."""
    goal = variant.goal
    i, _, k = np.ogrid[:goal, :goal, :goal]
    chosen = (k == 0) if variant.decision is Decision.DICE_PER_TURN else (i + k < goal)
    return np.broadcast_to(chosen, (goal, goal, goal)).copy()


def read_table_file(path: str | os.PathLike[str], variant: Variant) -> np.ndarray:
    """Return the action table stored in a ``.npy`` or ``.npz`` file (no pickles; plain files only, bounded)."""
    shown = Path(path).name
    limit = 8 * action_table_bytes(variant.goal) + FILE_SLACK  # room for an int64 table
    try:
        with files.open_regular(path, limit, "an action table") as stream, READ_LOCK:
            loaded = np.load(stream, allow_pickle=False)
            if isinstance(loaded, np.lib.npyio.NpzFile):
                with loaded:
                    table = _npz_table(loaded, shown)
            else:
                table = loaded
    except files.UnsafeFileError as exc:
        raise BadStrategyError(str(exc)) from None
    except FileNotFoundError:
        raise BadStrategyError(f"no file {shown}") from None
    except OSError as exc:
        raise BadStrategyError(f"cannot read {shown}: {exc.strerror or exc}") from None
    except (ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise BadStrategyError(f"{shown} is not a numpy table file ({exc})") from None
    return checked_table(table, variant, shown)


def _npz_table(archive: Any, shown: str) -> np.ndarray:
    """Return the one array of an .npz, or the one named ``actions`` or ``table``."""
    names = list(archive.files)
    wanted = [n for n in TABLE_NAMES if n in names]
    if len(names) == 1:
        return np.asarray(archive[names[0]])
    if wanted:
        return np.asarray(archive[wanted[0]])
    raise BadStrategyError(f"{shown} holds {len(names)} arrays; name the table 'actions'")


def position_observations(
    variant: Variant, scores: np.ndarray, others: np.ndarray, totals: np.ndarray, kind: str = "full"
) -> np.ndarray:
    """Return the research environments' observations of 2-player turn positions (mover first, to move).

    ``kind`` "full": [goal, turn total, rolls this turn, final round, then per player score, to move,
    owed a last turn, standing]; "exact": [turn total, final round, then per player score, owed a last
    turn, standing] (``pigdice.envs.encoding``).
    """
    if kind == "exact":
        observations = np.zeros((len(scores), 8), dtype=np.int64)
        observations[:, 0] = totals
        observations[:, 2] = scores  # the mover: score, owed a last turn, standing
        observations[:, 4] = 1
        observations[:, 5] = others  # the other player
        observations[:, 7] = 1
        return observations
    observations = np.zeros((len(scores), 12), dtype=np.int64)
    observations[:, 0] = variant.goal
    observations[:, 1] = totals
    observations[:, 2] = totals > 0  # rolls this turn: unknown from the position (see the module docstring)
    observations[:, 4] = scores  # the mover: score, to move, owed a last turn, standing
    observations[:, 5] = 1
    observations[:, 7] = 1
    observations[:, 8] = others  # the other player
    observations[:, 11] = 1
    return observations


def observation_kind(model: Any) -> str:
    """Return the observation kind a model reads ("full" or "exact"), from its observation space if it has one."""
    shape = getattr(getattr(model, "observation_space", None), "shape", None)
    if shape is None:
        return "full"
    size = shape[0] if len(shape) == 1 else None
    if size not in OBSERVATION_KINDS:
        raise BadStrategyError(
            f"the model reads observations of shape {tuple(shape)}; a model trained on a 2-player pigdice "
            "environment reads 12 numbers (observation 'full') or 8 ('exact')"
        )
    return OBSERVATION_KINDS[size]


def model_table(model: PredictingModel, variant: Variant, progress: Progress | None = None) -> np.ndarray:
    """Return the action table of a model, asked (deterministically) at every position at once."""
    goal = variant.goal
    actions = action_count(variant)  # the environments' integers: rolls first, hold last
    inside = decision_positions(variant)
    scores, others, totals = (axis.astype(np.int64) for axis in np.nonzero(inside))
    codes = np.empty(len(scores), dtype=np.int64)
    masks = np.ones((MODEL_BATCH, actions), dtype=bool)
    kind = observation_kind(model)
    for start in range(0, len(scores), MODEL_BATCH):
        stop = min(start + MODEL_BATCH, len(scores))
        batch = position_observations(variant, scores[start:stop], others[start:stop], totals[start:stop], kind)
        answer = _ask(model, batch, masks[: stop - start])
        if answer.shape != (stop - start,) or np.any((answer < 0) | (answer >= actions)):
            raise BadStrategyError(f"the model answered with actions outside 0..{actions - 1} (or not one each)")
        codes[start:stop] = convert_array(variant, answer, ROLLS_FIRST, HOLD_FIRST)
        if progress is not None:
            progress(stop / len(scores))
    table = np.ones((goal, goal, goal), dtype=np.int8)
    table[scores, others, totals] = codes
    if variant.decision is Decision.DICE_PER_TURN:
        table[:, :, :] = table[:, :, :1]
    return table


def _ask(model: PredictingModel, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Return the model's integer actions for a batch (with masks where its predict takes them)."""
    try:
        try:
            answer = model.predict(observations, action_masks=masks, deterministic=True)
        except TypeError:
            answer = model.predict(observations, deterministic=True)
    except Exception as exc:  # the model's own code failed
        raise BadStrategyError(f"the model's predict failed: {type(exc).__name__}: {exc}") from exc
    actions = answer[0] if isinstance(answer, tuple) else answer
    array = np.asarray(actions)
    if not np.issubdtype(array.dtype, np.integer):
        raise BadStrategyError(f"the model answered with {array.dtype} values, not whole action numbers")
    return array.reshape(-1).astype(np.int64)
