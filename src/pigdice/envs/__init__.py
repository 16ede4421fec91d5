"""Research interfaces: Gymnasium, PettingZoo and OpenSpiel environments for every variant (extra ``rl``).

Everything here is imported on first use, so ``import pigdice.envs`` costs nothing and a
missing extra is a clear error naming ``pip install 'pigdice[rl]'``:

- ``PigdiceEnv`` (Gymnasium, ``pigdice/Pigdice-v0``): one seat (fixed or random) against robots, a pool
  of them or itself (self-play);
- ``PigdiceVectorEnv`` (Gymnasium ``VectorEnv``, ``pigdice/PigdiceVector-v0``): thousands of those games in numba;
- ``aec_env`` / ``PigdiceAECEnv`` (PettingZoo AEC): every turn-based variant, 2-10 players;
- ``parallel_env`` / ``PigdiceParallelEnv`` (PettingZoo parallel): Swine Herd, choices at once;
- ``pigdice.envs.openspiel`` registers the OpenSpiel game ``python_pigdice``.

Actions and observations ("full" or "exact") are encoded once for all of them
(``pigdice.envs.encoding``); ``hold_at_goal`` means the same in every one (``pigdice.envs.setup``).
"""

from __future__ import annotations

import importlib
from typing import Any

from pigdice.errors import require_modules

_HOMES = {
    "PigdiceEnv": ("pigdice.envs.gym", ("gymnasium",)),
    "PigdiceVectorEnv": ("pigdice.envs.vector", ("gymnasium",)),
    "PigdiceAECEnv": ("pigdice.envs.aec", ("gymnasium", "pettingzoo")),
    "aec_env": ("pigdice.envs.aec", ("gymnasium", "pettingzoo")),
    "PigdiceParallelEnv": ("pigdice.envs.parallel", ("gymnasium", "pettingzoo")),
    "parallel_env": ("pigdice.envs.parallel", ("gymnasium", "pettingzoo")),
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """Import an environment on first use (after checking its extra is installed)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'pigdice.envs' has no attribute {name!r}")
    module, needs = _HOMES[name]
    require_modules(needs, "rl", "the research environments need")
    return getattr(importlib.import_module(module), name)
