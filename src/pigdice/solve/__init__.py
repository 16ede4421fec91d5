"""Optimal play: solve a variant (numba kernels behind a small typed API) and use its policy."""

from pigdice.solve.policy import Policy, TurnRow
from pigdice.solve.solver import cache_dir, cache_path, solvable, solve, solve_uncached

__all__ = ["Policy", "TurnRow", "cache_dir", "cache_path", "solvable", "solve", "solve_uncached"]
