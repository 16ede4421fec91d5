"""How many threads a solve runs on: the setting's name, its bounds and how it is read (no numba here).

The n-player solver (``pigdice.solve.n.levels``) solves each score sum's blocks on threads; the
server's solve workers keep to one (``pigdice.web.workerpool``), and both read the one setting named here.
``usable_cores`` is the one count of the cores a process may use (``pigdice prepare`` and the game
designer's workers count them the same way). ``one_blas_thread`` keeps every loaded OpenBLAS on one thread
while kernels with small dense solves run (3-player Swine Herd's tracing).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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


_BLAS_THREAD_CALLS = (  # (get, set) of the OpenBLAS builds numpy and scipy ship, and of a plain OpenBLAS
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
)


def _loaded_openblas() -> list[tuple[Callable[[], int], Callable[[int], None]]]:
    """Return (get, set) thread-count calls of every OpenBLAS this process has loaded (none where it cannot tell)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.rsplit("/", 1)[-1].lower()}
    except OSError:
        return []
    calls = []
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _BLAS_THREAD_CALLS:
            if hasattr(lib, get_name) and hasattr(lib, set_name):
                calls.append((getattr(lib, get_name), getattr(lib, set_name)))
                break
    return calls


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with every loaded OpenBLAS on one thread, then restore its count.

    The numba kernels' small dense solves (n of a few hundred) gain nothing from BLAS threads, and on
    a shared machine the spinning threads cost CPU time: the 3-player Swine Herd tracing took 2.1x
    the CPU time with OpenBLAS's default threads (tracing goal 40's seven hard turn starts: 11.9 vs
    5.6 CPU-s, bench/swine_herd_n.py).
    """
    import scipy.linalg.cython_lapack  # noqa: F401  (the LAPACK numba's linear algebra calls: loaded before counting)

    calls = _loaded_openblas()
    before = [get() for get, _ in calls]
    for _, set_threads in calls:
        set_threads(1)
    try:
        yield
    finally:
        for (_, set_threads), count in zip(calls, before, strict=True):
            set_threads(count)
