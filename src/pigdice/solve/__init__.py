"""Optimal play: solve a variant (numba kernels behind a small typed API) and use its policy.

The names below load the solver (and numba) on first use, so ``pigdice.solve.memory`` and
``pigdice.solve.actions`` stay cheap to import from anywhere.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pigdice.solve.policy import Policy, TurnRow
    from pigdice.solve.solver import cache_dir, cache_path, cached, remember, solvable, solve, solve_uncached

_HOMES = {
    "Policy": "policy",
    "TurnRow": "policy",
    "cache_dir": "solver",
    "cache_path": "solver",
    "cached": "solver",
    "remember": "solver",
    "solvable": "solver",
    "solve": "solver",
    "solve_uncached": "solver",
}

__all__ = [
    "Policy",
    "TurnRow",
    "cache_dir",
    "cache_path",
    "cached",
    "remember",
    "solvable",
    "solve",
    "solve_uncached",
]


def __getattr__(name: str) -> Any:
    """Return a public name of the solver, importing its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pigdice.solve' has no attribute {name!r}")
    return getattr(importlib.import_module(f"pigdice.solve.{home}"), name)
