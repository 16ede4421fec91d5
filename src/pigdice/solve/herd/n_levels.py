"""The solve of 3-player Swine Herd over score sums, from the highest down: turn starts, lone rollers, pair states.

Every state after someone sits leads only to turn starts with a higher score sum, so at each sum n:
(1) every canonical turn start (s1 <= s2 <= s3, the symmetry V(permuted s) = permuted V) with sum n
is solved (``n_fixed_points.turn_start``) and written to all its permutations; (2) the lone roller's
rows for the seated/roller triples with sum n; (3) the pair sweeps for the triples (c, a <= b) with
c + a + b = n. The best-response pass (``br``) walks the same order over the best-response tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pigdice.solve.herd.n_best_response import turn_start_best_response
from pigdice.solve.herd.n_bundles import (
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


COUNTS = 12  # the counts ``solve_levels`` adds to, in the order of ``Statistics``'s fields


@njit(cache=True)
def solve_levels(game, stored, br, high, low, counts):  # pragma: no cover - numba
    """Solve every state with score sum from ``high`` down to ``low`` (with ``br``: the best-response tables).

    Sums above ``high`` are solved already (a solve calls this for blocks of sums, from 3 (goal - 1)
    down to 0). The solve writes game.V, R, W, PR and, for each turn start settled by the sticky,
    forced or traced search, its played profile to ``stored`` (a ``StoredProfiles``), which the
    best-response pass reads back. ``counts`` (COUNTS int64, the fields of ``Statistics``, the rows
    of ``stored`` used last) is added to.
    """
    goal = game.goal
    sweep = new_sweep(game)
    scratch = new_scratch()
    pair_rows = new_pair_rows(row_count(goal, game.amounts))
    turn_starts = root_steps = unsettled = stages3 = mixed3 = stages2 = mixed2 = unresolved = 0
    sticky = forced = traced = 0
    used = counts[COUNTS - 1]
    s = np.zeros(3, dtype=np.int64)
    for n in range(high, low - 1, -1):
        for s0 in range(0, min(n // 3, goal - 1) + 1):
            for s1 in range(s0, goal):
                s2 = n - s0 - s1
                if s2 < s1:
                    break
                if s2 >= goal:
                    continue
                s[0], s[1], s[2] = s0, s1, s2
                turn_starts += 1
                if not br:
                    x, steps, how = turn_start(s, sweep)
                    root_steps += steps
                    if how == UNSETTLED:  # trace its logit equilibria (``n_tracing``)
                        status, _, taken = trace_turn_start(s, game, sweep.rows.S, x)
                        root_steps += taken
                        if status == TRACED:
                            how = ON_TRACED
                            traced += 1
                    if how > ON_SELECTED and used + goal - s0 > stored.stage.shape[0]:
                        how = UNSETTLED  # no room to store the profile (not met: there is room for goal^3 rows)
                        clear_plays(sweep.plays)
                    if how == UNSETTLED:
                        unsettled += 1
                    elif how > ON_SELECTED:
                        if how == ON_STICKY:
                            sticky += 1
                        elif how != ON_TRACED:
                            forced += 1
                        used = _store_profile(s, goal, sweep.rows.S, stored, used)
                        load_profile(s, stored, sweep.plays)
                    _write_perms(s, x, game.V)
                    mixed, stage_unresolved = turn(s, x, game, sweep.rows, sweep.plays)
                else:
                    load_profile(s, stored, sweep.plays)
                    bx, steps, settled, mixed, stage_unresolved = turn_start_best_response(s, sweep, scratch)
                    root_steps += steps
                    if not settled:
                        unsettled += 1
                    _write_perms(s, bx, game.BV)
                stages3 += goal - s0 - 1
                mixed3 += mixed
                unresolved += stage_unresolved
        # the lone roller's rows whose bust returns to a turn start at this sum
        for c1 in range(0, min(n, goal - 1) + 1):
            for c2 in range(c1, min(n - c1, goal - 1) + 1):
                r = n - c1 - c2
                if r < goal:
                    lone_rows(c1, c2, r, game, br)
        st, mx, un = pair_level(n, game, br, pair_rows, scratch)
        stages2 += st
        mixed2 += mx
        unresolved += un
    added = (turn_starts, root_steps, unsettled, stages3, mixed3, stages2, mixed2, unresolved, sticky, forced, traced)
    for k in range(COUNTS - 1):
        counts[k] += added[k]
    counts[COUNTS - 1] = used
