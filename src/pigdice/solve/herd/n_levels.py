"""The solve of 3-player Swine Herd over score sums, from the highest down: turn starts, lone rollers, pair states.

Every state after someone sits leads only to turn starts with a higher score sum, so at each sum n:
(1) every canonical turn start (s1 <= s2 <= s3, the symmetry V(permuted s) = permuted V) with sum n
is solved (``n_fixed_points.turn_start``) and written to all its permutations; (2) the lone roller's
rows for the seated/roller triples with sum n; (3) the pair sweeps for the triples (c, a <= b) with
c + a + b = n. The best-response pass (``br``) walks the same order over the best-response tables.
A sum's turn starts are independent of each other (each reads higher sums only): ``solve_starts`` solves
any range of them without the GIL, ``commit_starts`` then stores their profiles in order, so threads
(``n_threads``) give the values and stored rows of one thread, bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.herd.n_best_response import turn_start_best_response
from pigdice.solve.herd.n_bundles import (
    FORCED,
    Game,
    StoredProfiles,
    clear_plays,
    load_profile,
    new_pair_rows,
    new_scratch,
    new_sweep,
    row_count,
)
from pigdice.solve.herd.n_fixed_points import ON_SELECTED, ON_STICKY, ON_TRACED, UNSETTLED, turn_start
from pigdice.solve.herd.n_lone import lone_rows
from pigdice.solve.herd.n_pairs import pair_level
from pigdice.solve.herd.n_tracing import TRACED, trace_turn_start
from pigdice.solve.herd.n_turns import turn


@njit(cache=True)
def _write_perms(s, v, T):  # pragma: no cover - numba
    """Write the vector v of the sorted turn start s to every permutation of it in T."""
    perms = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
    for p in perms:
        T[s[p[0]], s[p[1]], s[p[2]], 0] = v[p[0]]
        T[s[p[0]], s[p[1]], s[p[2]], 1] = v[p[1]]
        T[s[p[0]], s[p[1]], s[p[2]], 2] = v[p[2]]


@njit(cache=True)
def _store_profile(s, goal, S, stored, used):  # pragma: no cover - numba
    """Store the sit chances S of every stage of the sorted turn start s from row ``used`` on; return the rows used."""
    stored.span[s[0], s[1], s[2], 0] = used
    for t in range(1, goal - s[0]):
        stored.stage[used] = t
        for j in range(3):
            stored.sit[used, j] = S[t, j]
        used += 1
    stored.span[s[0], s[1], s[2], 1] = used - stored.span[s[0], s[1], s[2], 0]
    return used


COUNTS = 12  # the counts the level kernels add to, in the order of ``Statistics``'s fields


class StartResults(NamedTuple):
    """What ``solve_starts`` found at each turn start of one score sum (row k: turn start k of ``level_starts``)."""

    how: np.ndarray  # (m,) int64: how it settled (``n_fixed_points``: UNSETTLED .. ON_TRACED; br: settled 0, else -1)
    steps: np.ndarray  # (m,) int64: turn sweeps taken
    traced: np.ndarray  # (m,) int64: 1 if the tracing settled it
    mixed: np.ndarray  # (m,) int64: three-standing stages whose played profile mixes
    unresolved: np.ndarray  # (m,) int64: stage games with no equilibrium found
    S: np.ndarray  # (m, goal, 3): the played sit chances by stage t (kept where a repair settled it)


@njit(cache=True)
def level_starts(n, goal):  # pragma: no cover - numba
    """Return the sorted turn starts (s1 <= s2 <= s3 < goal) with score sum n, (m, 3) int64, s1 then s2 ascending."""
    starts = np.zeros((goal * goal, 3), dtype=np.int64)  # s0 and s1 fix s2: at most goal^2 of them
    k = 0
    for s0 in range(0, min(n // 3, goal - 1) + 1):
        for s1 in range(s0, goal):
            s2 = n - s0 - s1
            if s2 < s1:
                break
            if s2 < goal:
                starts[k, 0], starts[k, 1], starts[k, 2] = s0, s1, s2
                k += 1
    return starts[:k].copy()


@njit(cache=True)
def new_results(m, goal):  # pragma: no cover - numba
    """Return zeroed results for m turn starts."""
    return StartResults(
        np.zeros(m, dtype=np.int64),
        np.zeros(m, dtype=np.int64),
        np.zeros(m, dtype=np.int64),
        np.zeros(m, dtype=np.int64),
        np.zeros(m, dtype=np.int64),
        np.zeros((m, goal, 3)),
    )


@njit(cache=True)
def _play_profile(s, goal, S, plays):  # pragma: no cover - numba
    """Set ``plays`` to the profile S of the sorted turn start s at every stage, as ``load_profile`` reads it back."""
    clear_plays(plays)
    for t in range(1, goal - s[0]):
        plays.mode[t] = FORCED
        plays.mask[t] = 7
        for j in range(3):
            plays.sit[t, j] = S[t, j]


@njit(cache=True, nogil=True)
def solve_starts(game, stored, br, starts, lo, hi, out):  # pragma: no cover - numba
    """Solve the turn starts starts[lo:hi] of one score sum (higher sums solved) into ``out`` and game.V (br: BV).

    Each turn start is solved from fresh plays and reads only higher sums, so any split of a sum's
    turn starts over threads gives the same values. The profiles are stored afterwards, in order, by
    ``commit_starts``; the best-response pass reads ``stored`` (complete by then). Runs without the GIL.
    """
    goal = game.goal
    sweep = new_sweep(game)
    scratch = new_scratch()
    s = np.zeros(3, dtype=np.int64)
    for k in range(lo, hi):
        for j in range(3):
            s[j] = starts[k, j]
        if not br:
            x, steps, how = turn_start(s, sweep)
            if how == UNSETTLED:  # trace its logit equilibria (``n_tracing``)
                status, _, taken = trace_turn_start(s, game, sweep.rows.S, x)
                steps += taken
                if status == TRACED:
                    how = ON_TRACED
                    out.traced[k] = 1
            if how > ON_SELECTED:
                for t in range(1, goal - s[0]):
                    for j in range(3):
                        out.S[k, t, j] = sweep.rows.S[t, j]
                _play_profile(s, goal, out.S[k], sweep.plays)
            _write_perms(s, x, game.V)
            mixed, stage_unresolved = turn(s, x, game, sweep.rows, sweep.plays)
        else:
            load_profile(s, stored, sweep.plays)
            bx, steps, settled, mixed, stage_unresolved = turn_start_best_response(s, sweep, scratch)
            how = ON_SELECTED if settled else UNSETTLED
            _write_perms(s, bx, game.BV)
        out.how[k] = how
        out.steps[k] = steps
        out.mixed[k] = mixed
        out.unresolved[k] = stage_unresolved


@njit(cache=True)
def commit_starts(game, stored, br, starts, out, counts):  # pragma: no cover - numba
    """Add one score sum's results to ``counts`` and store its repaired profiles in order (rows: counts' last).

    A profile that finds no room left in ``stored`` (not met: there is room for goal^3 rows) is counted
    unsettled and not stored.
    """
    goal = game.goal
    used = counts[COUNTS - 1]
    added = np.zeros(COUNTS - 1, dtype=np.int64)  # the fields of ``Statistics`` but rows
    for k in range(starts.shape[0]):
        s = starts[k]
        how = out.how[k]
        added[0] += 1
        added[1] += out.steps[k]
        added[3] += goal - s[0] - 1
        added[4] += out.mixed[k]
        added[7] += out.unresolved[k]
        added[10] += out.traced[k]
        if not br and how > ON_SELECTED and used + goal - s[0] > stored.stage.shape[0]:
            how = UNSETTLED
        if how == UNSETTLED:
            added[2] += 1
        elif not br and how > ON_SELECTED:
            if how == ON_STICKY:
                added[8] += 1
            elif how != ON_TRACED:
                added[9] += 1
            used = _store_profile(s, goal, out.S[k], stored, used)
    for k in range(COUNTS - 1):
        counts[k] += added[k]
    counts[COUNTS - 1] = used


@njit(cache=True)
def solve_level_rest(game, br, n, counts):  # pragma: no cover - numba
    """Solve the states of score sum n after its turn starts: the lone roller's rows and the pair sweeps."""
    goal = game.goal
    for c1 in range(0, min(n, goal - 1) + 1):  # the lone roller's rows whose bust returns to a turn start at sum n
        for c2 in range(c1, min(n - c1, goal - 1) + 1):
            r = n - c1 - c2
            if r < goal:
                lone_rows(c1, c2, r, game, br)
    st, mx, un = pair_level(n, game, br, new_pair_rows(row_count(goal, game.amounts)), new_scratch())
    counts[5] += st
    counts[6] += mx
    counts[7] += un


def solve_levels(game: Game, stored: StoredProfiles, br: bool, high: int, low: int, counts: np.ndarray) -> None:
    """Solve every state with score sum from ``high`` down to ``low`` on one thread (with ``br``: the best responses).

    Sums above ``high`` are solved already. The solve writes game.V, R, W, PR and, for each turn
    start settled by the sticky, forced or traced search, its played profile to ``stored`` (a
    ``StoredProfiles``), which the best-response pass reads back. ``counts`` (COUNTS int64, the fields
    of ``Statistics``, the rows of ``stored`` used last) is added to. ``n_threads.LevelThreads`` runs the
    same steps with each sum's turn starts spread over threads.
    """
    for n in range(high, low - 1, -1):
        starts = level_starts(n, game.goal)
        out = new_results(starts.shape[0], game.goal)
        solve_starts(game, stored, br, starts, 0, starts.shape[0], out)
        commit_starts(game, stored, br, starts, out, counts)
        solve_level_rest(game, br, n, counts)
