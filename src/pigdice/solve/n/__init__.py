"""Exact solvers for 3 or more players: the n-player kernels, mixed cycles and the last turns after the goal."""
