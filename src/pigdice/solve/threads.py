"""How many threads a solve runs on: the setting's name, its bounds and how it is read (no numba here).

The n-player solver (``pigdice.solve.n.levels``) solves each score sum's blocks on threads; the
server's solve workers keep to one (``pigdice.web.workerpool``), and both read the one setting named here.
``usable_cores`` is the one count of the cores a process may use (``pigdice prepare`` and the game
designer's workers count them the same way).
"""

from __future__ import annotations

import os

from pigdice.errors import BadParameterError

THREADS_ENV = "PIGDICE_SOLVE_THREADS"  # the setting that fixes the solver's threads (1: one core)
MAX_THREADS = 64


def usable_cores() -> int:
    """Return how many cores this process may run on: its CPU affinity where the system has one, else every core."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def check_threads(threads: int) -> int:
    """Return ``threads``; raise BadParameterError unless it is a whole number from 1 to MAX_THREADS."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise BadParameterError(f"the solver runs on 1 to {MAX_THREADS} threads, not {threads!r}")
    return threads


def solver_threads(threads: int | None = None) -> int:
    """Return the threads to solve on: ``threads`` if given, else the setting PIGDICE_SOLVE_THREADS, else the cores
    this process may run on (raises BadParameterError for a number that cannot be one)."""
    if threads is not None:
        return check_threads(threads)
    setting = os.environ.get(THREADS_ENV, "").strip()
    if setting:
        count = int(setting) if setting.isdecimal() else 0
        if not 1 <= count <= MAX_THREADS:
            raise BadParameterError(
                f"{THREADS_ENV} takes the number of threads to solve on (1 to {MAX_THREADS}), not {setting!r}"
            )
        return count
    return min(usable_cores(), MAX_THREADS)
