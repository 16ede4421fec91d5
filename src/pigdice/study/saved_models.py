"""Saved Stable-Baselines3 models (PPO, A2C, DQN, sb3-contrib's MaskablePPO), read without running code they hold.

A model file (``sb3:PATH``, or any path ending in ``.zip``) is read as a plain file of bounded size.
Its settings (the archive's ``data``) are checked first: the algorithm is told from the name of its
policy class, read off the pickle's opcodes without running it; the observation must be one of the
research environments' 2-player vectors ("full": 12 numbers, "exact": 8, ``pigdice.envs.encoding``)
and the actions one per dice choice plus hold. Every pickled object in the settings (classes, spaces,
schedules, buffers) is then replaced by pigdice's own before Stable-Baselines3 opens the file, so
nothing in it is unpickled, and the weights load through torch's ``weights_only`` reader.
A model trained at another goal cannot be told from its file: evaluate at the goal it learned.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import os
import pickletools
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pigdice import files
from pigdice.engine.codec import action_count
from pigdice.errors import BadStrategyError, require_modules
from pigdice.rules.variant import Variant

MODEL_PREFIX = "sb3:"
MODEL_SUFFIX = ".zip"
MODEL_FILE_LIMIT = 256 << 20  # bytes: a model for Pig's few inputs is well under a megabyte
SETTINGS_LIMIT = 4 << 20  # bytes of the settings ("data") member
OBSERVATION_HIGH = 2**31 - 1  # the environments' observation bound (pigdice.envs.encoding)
OBSERVATION_KINDS = {12: "full", 8: "exact"}  # 2-player observation sizes (pigdice.envs.encoding)
POLICY_CLASSES = {
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "PPO",
    ("stable_baselines3.dqn.policies", "DQNPolicy"): "DQN",
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "MaskablePPO",
}
EMPTY_SETTINGS = (  # pickled settings that only training uses: read as empty
    "_last_obs",
    "_last_episode_starts",
    "_last_original_obs",
    "ep_info_buffer",
    "ep_success_buffer",
    "rollout_buffer_class",
    "replay_buffer_class",
    "clip_range_vf",
)


@dataclass(frozen=True)
class SavedModel:
    """A loaded model, the observation kind it reads, its algorithm and the name it is shown by."""

    model: Any
    observation: str  # "full" or "exact"
    algorithm: str
    name: str


def is_model_spec(agent: Any) -> bool:
    """Return True if ``agent`` names a saved Stable-Baselines3 model: ``sb3:PATH`` or a ``.zip`` path."""
    if isinstance(agent, os.PathLike):
        agent = os.fspath(agent)
    if not isinstance(agent, str):
        return False
    text = agent.strip()
    return text.lower().startswith(MODEL_PREFIX) or text.lower().endswith(MODEL_SUFFIX)


def model_path(agent: str | os.PathLike[str]) -> str:
    """Return the file path of a model spec (without its ``sb3:`` prefix)."""
    text = os.fspath(agent).strip()
    path = text[len(MODEL_PREFIX) :] if text.lower().startswith(MODEL_PREFIX) else text
    if not path:
        raise BadStrategyError("name the model file after sb3:, e.g. sb3:ppo_pig.zip")
    return path


def load_model(agent: str | os.PathLike[str], variant: Variant) -> SavedModel:
    """Return the model a spec names, checked against 2-player ``variant`` (see the module docstring)."""
    path = model_path(agent)
    shown = Path(path).name or path
    raw = _read(path, shown)
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile:
        raise BadStrategyError(f"{shown} is not a Stable-Baselines3 model file (not a zip archive)") from None
    with archive:
        settings = _settings(archive, shown)
    algorithm = _algorithm(settings, shown)
    observation = _observation_kind(settings, shown)
    actions = action_count(variant)  # the environments' integers (engine.codec, rolls first)
    _check_actions(settings, actions, variant, shown)
    require_modules(("stable_baselines3", "sb3_contrib", "torch"), "learn", "a saved Stable-Baselines3 model needs")
    classes = _algorithm_classes()
    replacements = _replacements(settings, algorithm, observation, actions, shown)
    try:
        model = classes[algorithm].load(
            io.BytesIO(raw), device="cpu", custom_objects=replacements, print_system_info=False
        )
    except Exception as exc:  # a damaged archive, weights of another shape, ...
        reason = f"{type(exc).__name__}: {exc}"
        raise BadStrategyError(f"{shown} could not be read as a {algorithm} model: {reason}") from None
    return SavedModel(model, observation, algorithm, f"{algorithm} model {shown}")


def _read(path: str, shown: str) -> bytes:
    """Return the bytes of the model file (a plain file of bounded size)."""
    try:
        return files.read_bytes(path, MODEL_FILE_LIMIT, "a Stable-Baselines3 model")
    except files.UnsafeFileError as exc:
        raise BadStrategyError(str(exc)) from None
    except FileNotFoundError:
        raise BadStrategyError(f"no model file {shown}") from None
    except OSError as exc:
        raise BadStrategyError(f"cannot read {shown}: {exc.strerror or exc}") from None


def _settings(archive: zipfile.ZipFile, shown: str) -> dict[str, Any]:
    """Return the model's settings (its ``data`` member, JSON) after checking the archive's members and sizes."""
    members = {info.filename: info for info in archive.infolist()}
    if "data" not in members or "policy.pth" not in members:
        raise BadStrategyError(f"{shown} is not a Stable-Baselines3 model file (no settings or policy weights in it)")
    if sum(info.file_size for info in members.values()) > MODEL_FILE_LIMIT:
        raise BadStrategyError(f"{shown} unpacks to more than {MODEL_FILE_LIMIT:,} bytes; refused")
    if members["data"].file_size > SETTINGS_LIMIT:
        raise BadStrategyError(f"{shown}: its settings are larger than {SETTINGS_LIMIT:,} bytes; refused")
    try:
        settings = json.loads(archive.read("data").decode("utf-8"))
    except (ValueError, UnicodeDecodeError, zipfile.BadZipFile, OSError) as exc:
        raise BadStrategyError(f"{shown} is not a Stable-Baselines3 model file (its settings: {exc})") from None
    if not isinstance(settings, dict):
        raise BadStrategyError(f"{shown} is not a Stable-Baselines3 model file (its settings are not a mapping)")
    return settings


def _pickled(settings: dict[str, Any], key: str) -> bytes | None:
    """Return the pickle bytes of a setting (None where it is plain JSON)."""
    value = settings.get(key)
    if not isinstance(value, dict) or ":serialized:" not in value:
        return None
    try:
        return base64.b64decode(str(value[":serialized:"]), validate=True)
    except (binascii.Error, ValueError):
        return b""


def _global_name(data: bytes) -> tuple[str, str] | None:
    """Return the (module, name) a pickle of a class refers to, read from its opcodes (nothing is run)."""
    texts: list[str] = []
    try:
        for opcode, argument, _position in pickletools.genops(data):
            if opcode.name == "GLOBAL" and isinstance(argument, str):
                module, _, name = argument.partition(" ")
                return module, name
            if opcode.name == "STACK_GLOBAL" and len(texts) >= 2:
                return texts[-2], texts[-1]
            if isinstance(argument, str):
                texts.append(argument)
    except (ValueError, EOFError):
        return None
    return None


def _algorithm(settings: dict[str, Any], shown: str) -> str:
    """Return the algorithm of a model (PPO, A2C, DQN, MaskablePPO), told from its policy class."""
    data = _pickled(settings, "policy_class")
    found = _global_name(data) if data else None
    algorithm = POLICY_CLASSES.get(found) if found else None
    if algorithm is None:
        what = ".".join(found) if found else "none that can be read"
        raise BadStrategyError(
            f"{shown}: its policy class is {what}; pigdice reads PPO, A2C, DQN and MaskablePPO models "
            "with their standard (Mlp) policies"
        )
    if algorithm == "PPO" and "n_epochs" not in settings:
        return "A2C"
    return algorithm


def _observation_kind(settings: dict[str, Any], shown: str) -> str:
    """Return the observation kind ("full" or "exact") a model reads, from its observation space's shape."""
    space = settings.get("observation_space")
    shape = space.get("_shape") if isinstance(space, dict) else None
    box = isinstance(space, dict) and "Box" in str(space.get(":type:", ""))
    size = shape[0] if isinstance(shape, list) and len(shape) == 1 and isinstance(shape[0], int) else None
    if not box or size not in OBSERVATION_KINDS:
        raise BadStrategyError(
            f"{shown} reads observations of shape {shape}; a model trained on a 2-player pigdice environment "
            "reads 12 numbers (observation 'full') or 8 ('exact')"
        )
    return OBSERVATION_KINDS[size]


def _check_actions(settings: dict[str, Any], actions: int, variant: Variant, shown: str) -> None:
    """Raise BadStrategyError unless the model chooses among ``variant``'s actions."""
    found = settings.get("action_space")
    space: dict[str, Any] = found if isinstance(found, dict) else {}
    count = space.get("n")
    discrete = "Discrete" in str(space.get(":type:", ""))
    if not discrete or str(count) != str(actions) or str(space.get("start", "0")) != "0":
        raise BadStrategyError(
            f"{shown} chooses among {count} actions; {variant.name} has {actions} (a model trained on another variant?)"
        )


def _algorithm_classes() -> dict[str, Any]:
    """Return the algorithm classes by name (imported only here: torch is slow to load)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    return {"PPO": PPO, "A2C": A2C, "DQN": DQN, "MaskablePPO": MaskablePPO}


def _policy_classes() -> dict[str, Any]:
    """Return each algorithm's standard policy class."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    return {
        "PPO": ActorCriticPolicy,
        "A2C": ActorCriticPolicy,
        "DQN": DQNPolicy,
        "MaskablePPO": MaskableActorCriticPolicy,
    }


def _constant(value: float) -> Any:
    """Return a schedule that is ``value`` throughout (a loaded model is not trained further)."""
    return lambda _progress: value


def _replacements(
    settings: dict[str, Any], algorithm: str, observation: str, actions: int, shown: str
) -> dict[str, Any]:
    """Return pigdice's own object for every pickled setting (refusing settings it does not know)."""
    import numpy as np
    from gymnasium import spaces

    size = next(n for n, kind in OBSERVATION_KINDS.items() if kind == observation)
    known: dict[str, Any] = {
        "policy_class": _policy_classes()[algorithm],
        "observation_space": spaces.Box(0, OBSERVATION_HIGH, (size,), np.int64),
        "action_space": spaces.Discrete(actions),
        "lr_schedule": _constant(0.0),
        "learning_rate": 0.0,
        "clip_range": 0.2,
        "exploration_schedule": _constant(0.0),
        "train_freq": (1, "step"),
        **dict.fromkeys(EMPTY_SETTINGS),
    }
    pickled = [key for key in settings if _pickled(settings, key) is not None]
    unknown = [key for key in pickled if key not in known]
    if unknown:
        raise BadStrategyError(
            f"{shown} holds Python objects pigdice does not read ({', '.join(sorted(unknown))}); "
            "reading them would run code from the file. Save the model with the standard policy settings."
        )
    return {key: known[key] for key in pickled}
