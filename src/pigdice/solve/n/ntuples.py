"""Score tuples of the n-player solver: enumerating those of one score sum, and the cycles they form.

A score tuple (a_0, ..., a_{n-1}), every score below the goal, sits at the flat index
sum_r a_r goal^(n-1-r); its rotations form a cycle (``pigdice.solve.n.nkernels``), which the tuple
of the smallest flat index stands for.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def first_tuple(a, s, n, goal, start):  # pragma: no cover - numba
    """Write the smallest (lexicographic) scores a[start:] in [0, goal) with sum s."""
    for q in range(start, n):
        room = (n - 1 - q) * (goal - 1)
        v = s - room
        if v < 0:
            v = 0
        a[q] = v
        s -= v


@njit(cache=True)
def cycle_period(a, n, goal, top_power):  # pragma: no cover - numba
    """Return the number of distinct rotations of the score tuple ``a`` if its flat index is the smallest
    of them (it stands for its cycle), else 0. ``top_power`` is goal ** (n - 1)."""
    idx = 0
    for q in range(n):
        idx = idx * goal + a[q]
    rot = idx
    for t in range(1, n):
        rot = (rot - a[t - 1] * top_power) * goal + a[t - 1]
        if rot < idx:
            return 0
        if rot == idx:
            return t
    return n


@njit(cache=True)
def next_tuple(a, n, goal):  # pragma: no cover - numba
    """Advance ``a`` to the next score tuple with the same sum (lexicographic); False after the last."""
    rest = a[n - 1]
    for q in range(n - 2, -1, -1):
        if a[q] + 1 < goal and rest >= 1:
            a[q] += 1
            first_tuple(a, rest - 1, n, goal, q + 1)
            return True
        rest += a[q]
    return False
