"""pigdice: play, solve and study Pig and its family of jeopardy dice games."""

import importlib
from typing import Any

from pigdice.kernelcache import lean_cached_loads, skip_blas_probe, use_kernel_cache_with_numba

__version__ = "0.1.0"

use_kernel_cache_with_numba()  # as numba loads: compiled kernels are kept per version of their sources
skip_blas_probe()  # loading the first kernel then imports no scipy
lean_cached_loads()  # nor readies numba's whole compiler

# the public API, imported on first use so that ``import pigdice`` loads neither numpy nor the solver
_LAZY = {"evaluate": "pigdice.study.agent_evaluation"}
__all__ = ["__version__", "evaluate"]


def __getattr__(name: str) -> Any:
    """Return ``pigdice.evaluate`` (and the other public functions) on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'pigdice' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
