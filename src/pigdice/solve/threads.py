"""How many threads a solve runs on: the setting's name, its bounds and how it is read (no numba here).

The n-player solver (``pigdice.solve.n.levels``) solves each score sum's blocks on threads; the
server's solve workers keep to one (``pigdice.web.workerpool``), and both read the one setting named here.
"""

from __future__ import annotations

import os

from pigdice.errors import BadParameterError

THREADS_ENV = "PIGDICE_SOLVE_THREADS"  # the setting that fixes the solver's threads (1: one core)
MAX_THREADS = 64


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
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, os.cpu_count() or 1, MAX_THREADS))
