"""A stationary equilibrium of Swine Herd with 3 players, a simultaneous general-sum stochastic game (seed 001).

The rules (seed 001, Swine Herd): every player stands at the start of a turn and one die is rolled
for everyone; the first roll is taken by all. After every roll that adds to the shared turn total
t, each standing player chooses at the same time to sit (bank t, out for the rest of the turn) or
to stay (and so take the next roll). A bust ends the turn and the standing bank nothing; the turn
also ends when everyone is seated. After the turn in which someone reaches the goal G, the best
score wins and tied players share the win (1/k each). Every player maximises its own expected share.

The ending rule (it makes every play end; the 2-player solver's ``sit_at_goal``): while two or more
players stand, as soon as the shared total takes every standing player to the goal (score + t >= G
for all of them) they all sit at once and the turn ends. "As soon as" is read literally: it is
checked after every roll and after every round of choices (if two of three stay while the third
sits and the total already takes both stayers to the goal, they sit at that total). A single
standing player chooses freely, as in Pig (it may roll on past the goal to beat a seated score);
a player who stays when all others sit has chosen to take the next roll. With the rule, a turn
where everyone stays until forced ends with positive chance, so play ends with probability 1
whatever the players do, and the one-shot deviation principle holds.

States. A turn start is the banked scores (s1, s2, s3), all below G. Inside a turn the standing
players share t; a seated player's score is its bank. Three kinds of decision:
  * all three stand: a 3-player 2-action stage game at (s, t) whose "all stay" payoff contains
    the turn start's own value x (a bust with everyone standing starts the same turn again);
  * two stand, one seated at c (the "pair" states W(c, a, b, t)): a 2-player 2x2 stage game;
    a bust leads to the turn start (c, a, b), whose score sum is higher;
  * one stands (the lone roller, R): a stopping problem against the seated banks.
Every state after someone sits leads only to turn starts with a higher score sum, so the solve
runs over score sums from the highest down. At each sum n: (1) every canonical turn start
(s1 <= s2 <= s3, the symmetry V(permuted s) = permuted V) with sum n is solved and written to all
its permutations; (2) the lone roller's tables for the seated/roller triples with sum n; (3) the
pair sweeps (backward in t) for the triples (c, a <= b) with c + a + b = n, stored by the
consumer that enters them (the sitter's turn-start score c - t and t).

Stage games and the selected equilibrium. A stage game is solved by enumerating its equilibria:
the pure profiles (an action is a best response if its gain is within TIE of the best), then
the mixed ones of every support (two mixers: the 2x2 indifference formulas; three mixers: the
indifference conditions reduce to a quadratic in one probability). Players with equal scores
have identical roles, and only equilibria where they play alike are kept (a symmetric game has
one, Nash 1951), so the solution keeps the symmetry exactly. Among the rest: a pure equilibrium
before a mixed one; among pure ones the one with the most sitters, then the one where the
higher scores sit (players are in ascending score order, so the largest profile index); among
mixed ones the largest total sit probability. A stage game where none is found (a degenerate
one) takes the pure role-symmetric profile with the smallest regret and is counted
(``unresolved``; none occurs on the d6 or the test dice).

The turn-start fixed point. Given x, a backward sweep over t solves the three-standing stages and
returns the turn value F(x) = c + (1 - e) x, with c the payoffs of the exits (someone banks) and e
the exit chance (e > 0 by the ending rule); for the stage profiles fixed, x = c / e exactly. The
iteration x <- c(x) / e(x) starts from equal shares (1/3 each); when the selected profiles stop
changing it ends at once on an exact fixed point; where a mixed stage moves with x, it is a
Newton-like step (after MAX_ROOT_STEPS plain steps it is damped). Most turn starts settle so, on
the selected equilibria.

Where the selected profiles cycle. The selection is not continuous in x: as a player's own restart
value crosses a threshold, the selected equilibrium of some stage changes, the turn's value jumps
back across the threshold, and the iteration cycles (goal 20: 61 of 1540 turn starts, e.g.
(0, 10, 16), whose x alternates between (0.027, 0.159, 0.814) and (0.001, 0.313, 0.685)). Two
repairs, each ending on a genuine stationary equilibrium (every stage profile an equilibrium of
its stage game given x, and x = c / e):
  1. Sticky profiles: every stage keeps the profile it played in the last sweep while that is still
     a (pure, role-symmetric) equilibrium of its stage game, and is re-selected only when it stops
     being one. Jumps that the selection made between two equilibria that both exist are gone; many
     cycles settle.
  2. Forced mixes: the decisions (stage t, player with its tied players) whose kind of play (stay,
     sit, mix) changes over RECORD sweeps of the cycling iteration are forced to sit with chances
     p_r (the other players of that stage play the selected equilibrium of the game left to them,
     ``_forced_stage``; the other stages keep their sticky profiles). For given p the turn's fixed
     point x(p) is solved, and with it each forced player's gain g_r from sitting. An equilibrium
     needs every p_r to be a best reply: p_r = 1 if g_r > 0, 0 if g_r < 0, anything if g_r = 0, a
     complementarity problem, written as the Fischer-Burmeister equations
     fb(p_r, -fb(1 - p_r, GAIN_SCALE g_r)) = 0 (fb(a, b) = a + b - sqrt(a^2 + b^2)) and solved by a
     semismooth Newton method (forward-difference Jacobian, least squares, backtracking) from the
     chances last played, then from all 1/2 and all 0. Solved to RESIDUAL_TOLERANCE, the forced
     players' gains are within about 1e-14 of indifference where they mix. A fixed point that
     cycles inside the search means a decision outside the forced ones flips: it joins them and the
     search starts again (RESTARTS rounds). This is the turn-start analogue of the 2-player
     solver's Newton step on x and of ``pigdice.solve.n.mixing`` (a mover mixing at a breakpoint so
     that the others put its x exactly there): here every player mixes at the stage where its
     choice flips, with the chance that makes it indifferent once the turn's fixed point is solved.
The profile a repaired turn start plays is stored (``Tables.PI``, ``Tables.PP``: every stage's sit
chances) and read back by the best-response pass and ``stage``. A turn start where neither repair
settles takes the damped iteration of the selected profiles and is counted as ``unsettled`` (keeping
instead the forced profile with the smallest residual was tried: no better at goal 50).
Precision: where everything settles the exploitability is at rounding level. Goal 20: 54 turn
starts forced, 7 sticky, none unsettled, exploitability 1e-16 at the start and 3.5e-13 over all turn
starts. Goal 50: 616 forced, 218 sticky, 241 of 22100 still unsettled (the Newton search stalls with
many forced decisions, up to MAX_FORCED), exploitability 5e-3 at the start and 0.16 worst, solve
about 100-150 s (bench/swine_herd_n.py): at goal 50 this solver is not yet an equilibrium.

Exploitability (``exploitability_report``): for each player, the best response against the
others' fixed stationary strategies is a one-player MDP over the same states, solved exactly in
the same order: the stage strategies of the others are recomputed from the equilibrium tables
and the deviator maximises; its turn start, where its own value returns after a bust, is a
scalar fixed point solved by policy iteration (x <- c / e of the greedy policy: monotone, finite).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.errors import BadParameterError, ResourceLimitError
from pigdice.rules.variant import Variant
from pigdice.solve.herd.swineherd import Die, read_die
from pigdice.solve.memory import GiB, budget_bytes, format_bytes

PLAYERS = 3  # the player counts this solver takes
MAX_GOAL = 120  # tables grow as goal^4 (about 18 goal^4 bytes, twice that for the exploitability pass)
MEMORY_LIMIT = 8 * GiB
TIE = 1e-13  # an action within TIE of the best counts as a best response
ROOT_TOLERANCE = 1e-14
MAX_ROOT_STEPS = 60  # plain steps of the turn-start iteration, then as many damped ones
DAMPING = 0.5
MAX_DAMPED_STEPS = 2000
SIT_MARGIN = 1e-12  # a stage is mixed if a sit probability lies this far inside (0, 1)
MIX_CHECK = 1e-9  # a mixed candidate must make each mixer indifferent within this
SELECTED, STICKY, FORCED = 0.0, 1.0, 2.0  # how a stage of a turn is played (column 0 of a turn's profile rows)
MAX_FORCED = 24  # decisions the forced search may hold
RECORD = 8  # sweeps of a cycling iteration compared to find the stages whose choices flip
GAIN_SCALE = 100.0  # gains are scaled by this in the residuals of the forced mixes
RESIDUAL_TOLERANCE = 1e-12  # ... which are solved to this (gains within about 1e-14)
NEWTON_STEPS = 60
NEWTON_H = 1e-7
LINE_SEARCH = 30
STARTS = 6  # Newton starts: the chances last played, then all 1/2, 0, 1, 1/4, 3/4
RESTARTS = 5  # rounds of adding the decisions that still flip to the forced ones


# -- small helpers --------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _pair(lo, hi):  # pragma: no cover - numba
    """Return the packed index of an unordered pair lo <= hi."""
    return hi * (hi + 1) // 2 + lo


@njit(cache=True, inline="always")
def _tri(s, u, goal):  # pragma: no cover - numba
    """Return the packed index of a lone roller's (base score s, turn total u), 1 <= u < goal - s."""
    return s * (2 * goal - s - 1) // 2 + u - 1


@njit(cache=True)
def _ending(x, y, z, goal, V, out):  # pragma: no cover - numba
    """Write to out the shares after a turn ending at scores (x, y, z): the result, or the next turn start."""
    m = max(x, max(y, z))
    if m >= goal:
        k = (x == m) + (y == m) + (z == m)
        out[0] = 1.0 / k if x == m else 0.0
        out[1] = 1.0 / k if y == m else 0.0
        out[2] = 1.0 / k if z == m else 0.0
    else:
        out[0] = V[x, y, z, 0]
        out[1] = V[x, y, z, 1]
        out[2] = V[x, y, z, 2]


@njit(cache=True)
def _past_table(goal, amounts, probs, pbust, PR):  # pragma: no cover - numba
    """Fill PR[k - 1, d + 2 goal] = (win, tie): a lone roller rolling on, d short of k seated at a score >= goal.

    A bust loses (the roller's score is below the goal); past the seated score it holds and wins;
    level with it, it holds (a 1/(k + 1) share) unless rolling on is worth more (ties hold).
    """
    off = 2 * goal
    for k in range(1, 3):
        share = 1.0 / (k + 1)
        for d in range(-off, off + 1):
            win = 0.0
            tie = 0.0
            for f in range(amounts.shape[0]):
                d2 = d - amounts[f]
                if d2 < 0:
                    win += probs[f]
                elif d2 == 0:
                    w0, t0 = PR[k - 1, off, 0], PR[k - 1, off, 1]
                    if share >= w0 + share * t0:
                        tie += probs[f]
                    else:
                        win += probs[f] * w0
                        tie += probs[f] * t0
                else:
                    win += probs[f] * PR[k - 1, d2 + off, 0]
                    tie += probs[f] * PR[k - 1, d2 + off, 1]
            PR[k - 1, d + off, 0] = win
            PR[k - 1, d + off, 1] = tie


@njit(cache=True)
def _lone(c1, c2, s, u, goal, pbust, PR, V, R, out):  # pragma: no cover - numba
    """Write to out the shares (seated at c1, seated at c2, roller) when the lone roller (base s, total u) rolls on."""
    m = max(c1, c2)
    if m >= goal:
        k = (c1 == m) + (c2 == m)
        d = m - s - u
        win = PR[k - 1, d + 2 * goal, 0]
        tie = PR[k - 1, d + 2 * goal, 1]
        top = tie / (k + 1) + (1.0 - win - tie) / k
        out[0] = top if c1 == m else 0.0
        out[1] = top if c2 == m else 0.0
        out[2] = win + tie / (k + 1)
    elif s + u >= goal:  # past the goal ahead of everyone: the next roll wins unless it busts
        out[0] = pbust * V[c1, c2, s, 0]
        out[1] = pbust * V[c1, c2, s, 1]
        out[2] = pbust * V[c1, c2, s, 2] + 1.0 - pbust
    else:
        i = _pair(min(c1, c2), max(c1, c2))
        j = _tri(s, u, goal)
        if c1 <= c2:
            out[0], out[1] = R[i, j, 0], R[i, j, 1]
        else:
            out[0], out[1] = R[i, j, 1], R[i, j, 0]
        out[2] = R[i, j, 2]


@njit(cache=True)
def _lone_rows(c1, c2, s, goal, amounts, probs, pbust, V, R, br, BV, BR):  # pragma: no cover - numba
    """Fill the lone roller's rows R[pair(c1, c2), (s, u)] for every u (c1 <= c2 < goal, s < goal).

    The roller holds when holding is worth at least rolling on to it. With ``br`` the rows of the
    best-response tables BR are filled instead (component i: player i deviates), the roller's
    equilibrium choice read from R and V.
    """
    i = _pair(c1, c2)
    for u in range(goal - s - 1, 0, -1):
        acc = np.zeros(3)
        bacc = np.zeros(3)
        for q in range(3):
            acc[q] = pbust * V[c1, c2, s, q]
            if br:
                bacc[q] = pbust * BV[c1, c2, s, q]
        for f in range(amounts.shape[0]):
            u2 = u + amounts[f]
            p = probs[f]
            if s + u2 >= goal:
                acc[2] += p
                bacc[2] += p
                continue
            j2 = _tri(s, u2, goal)
            hold = V[c1, c2, s + u2, 2] >= R[i, j2, 2]
            if not br:
                for q in range(3):
                    acc[q] += p * (V[c1, c2, s + u2, q] if hold else R[i, j2, q])
            else:
                for q in range(2):
                    bacc[q] += p * (BV[c1, c2, s + u2, q] if hold else BR[i, j2, q])
                bacc[2] += p * max(BV[c1, c2, s + u2, 2], BR[i, j2, 2])
        j = _tri(s, u, goal)
        for q in range(3):
            if br:
                BR[i, j, q] = bacc[q]
            else:
                R[i, j, q] = acc[q]


# -- stage games ----------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _others(prof, n, i, q):  # pragma: no cover - numba
    """Return the chance that the players other than i sit exactly as in ``prof`` (bit j: j sits) given chances q."""
    w = 1.0
    for j in range(n):
        if j != i:
            w *= q[j] if prof & (1 << j) else 1.0 - q[j]
    return w


@njit(cache=True)
def _gain(U, n, i, q):  # pragma: no cover - numba
    """Return player i's payoff from sitting minus staying when the others sit with chances q.

    U[profile, player]: payoffs of an n-player 2-action game, bit j of profile set if player j sits.
    """
    g = 0.0
    for prof in range(1 << n):
        if prof & (1 << i):
            continue
        g += _others(prof, n, i, q) * (U[prof | (1 << i), i] - U[prof, i])
    return g


@njit(cache=True)
def _respects(q, n, tied):  # pragma: no cover - numba
    """Return True if players with equal scores (tied[j]: player j ties player j + 1) play alike."""
    for j in range(n - 1):  # noqa: SIM110 - a plain loop for numba
        if tied[j] and abs(q[j] - q[j + 1]) > 1e-9:
            return False
    return True


@njit(cache=True)
def _is_equilibrium(U, n, q, mixers):  # pragma: no cover - numba
    """Return True if q is an equilibrium: pure players best respond, mixers (bit set) are indifferent."""
    for i in range(n):
        g = _gain(U, n, i, q)
        if mixers & (1 << i):
            if abs(g) > MIX_CHECK:
                return False
        elif q[i] == 1.0:
            if g < -TIE:
                return False
        elif g > TIE:
            return False
    return True


@njit(cache=True)
def _consider(q, n, tied, best, state):  # pragma: no cover - numba
    """Keep q in ``best`` if it respects the roles and beats the kept mixed candidate (more sitting)."""
    if not _respects(q, n, tied):
        return
    for j in range(n - 1):  # exact symmetry for tied players
        if tied[j]:
            m = 0.5 * (q[j] + q[j + 1])
            q[j] = m
            q[j + 1] = m
    total = 0.0
    for j in range(n):
        total += q[j]
    if state[0] == 0.0 or total > state[1]:
        state[0] = 1.0
        state[1] = total
        for j in range(n):
            best[j] = q[j]


@njit(cache=True)
def _solve_stage(U, n, tied, out):  # pragma: no cover - numba
    """Write to out the selected equilibrium's sit chances of the n-player (n = 2, 3) stage game U.

    Return 0 if it is pure, 1 if mixed, 2 if no equilibrium was found (the least-regret pure
    role-symmetric profile is taken). See the module docstring for the selection.
    """
    q = np.zeros(3)
    best_prof = -1
    best_count = -1
    for prof in range(1 << n):
        count = 0
        for j in range(n):
            q[j] = 1.0 if prof & (1 << j) else 0.0
            count += prof >> j & 1
        if not _respects(q, n, tied) or not _is_equilibrium(U, n, q, 0):
            continue
        if count > best_count or (count == best_count and prof > best_prof):
            best_prof, best_count = prof, count
    if best_prof >= 0:
        for j in range(n):
            out[j] = 1.0 if best_prof & (1 << j) else 0.0
        return 0
    best = np.zeros(3)
    state = np.zeros(2)  # found?, total sit chance of the kept candidate
    # two mixers i < j, the others (at most one, k) pure
    for i in range(n):
        for j in range(i + 1, n):
            k = 3 - i - j if n == 3 else -1
            for ak in range(2 if k >= 0 else 1):
                if k >= 0:
                    q[k] = float(ak)
                # i's gain is linear in q[j] and j's in q[i]
                q[i] = 0.0
                q[j] = 0.0
                gi0 = _gain(U, n, i, q)
                gj0 = _gain(U, n, j, q)
                q[j] = 1.0
                gi1 = _gain(U, n, i, q)
                q[j] = 0.0
                q[i] = 1.0
                gj1 = _gain(U, n, j, q)
                if gi0 == gi1 or gj0 == gj1:
                    continue
                qj = gi0 / (gi0 - gi1)
                qi = gj0 / (gj0 - gj1)
                if not (0.0 < qi < 1.0 and 0.0 < qj < 1.0):
                    continue
                q[i] = qi
                q[j] = qj
                if _is_equilibrium(U, n, q, (1 << i) | (1 << j)):
                    _consider(q.copy(), n, tied, best, state)
    if n == 3:
        # three mixers: g_i = A + B q_j + C q_k + D q_j q_k (j < k the others); solve g_0 for q1 and
        # g_1 for q0 as functions of r = q2, then g_2(q0, q1) = 0 is a quadratic in r
        co = np.zeros((3, 4))
        for i in range(3):
            j = 1 if i == 0 else 0
            k = 1 if i == 2 else 2
            for bj in range(2):
                for bk in range(2):
                    q[i] = 0.0
                    q[j] = float(bj)
                    q[k] = float(bk)
                    g = _gain(U, 3, i, q)
                    if bj == 0 and bk == 0:
                        co[i, 0] += g
                        co[i, 1] -= g
                        co[i, 2] -= g
                        co[i, 3] += g
                    elif bj == 1 and bk == 0:
                        co[i, 1] += g
                        co[i, 3] -= g
                    elif bj == 0:
                        co[i, 2] += g
                        co[i, 3] -= g
                    else:
                        co[i, 3] += g
        # q1 = N1 / M1: N1 = -(A0 + C0 r), M1 = B0 + D0 r; q0 = N0 / M0: N0 = -(A1 + C1 r), M0 = B1 + D1 r
        n1 = (-co[0, 0], -co[0, 2])
        m1 = (co[0, 1], co[0, 3])
        n0 = (-co[1, 0], -co[1, 2])
        m0 = (co[1, 1], co[1, 3])
        a2, b2, c2, d2 = co[2, 0], co[2, 1], co[2, 2], co[2, 3]
        poly = np.zeros(3)
        for (x0, x1), (y0, y1), w in (
            ((m0[0], m0[1]), (m1[0], m1[1]), a2),
            ((n0[0], n0[1]), (m1[0], m1[1]), b2),
            ((m0[0], m0[1]), (n1[0], n1[1]), c2),
            ((n0[0], n0[1]), (n1[0], n1[1]), d2),
        ):
            poly[0] += w * x0 * y0
            poly[1] += w * (x0 * y1 + x1 * y0)
            poly[2] += w * x1 * y1
        roots = np.full(2, -1.0)
        scale = max(abs(poly[0]), max(abs(poly[1]), abs(poly[2])))
        if scale > 0.0:
            if abs(poly[2]) > 1e-12 * scale:
                disc = poly[1] * poly[1] - 4.0 * poly[2] * poly[0]
                if disc >= 0.0:
                    sq = np.sqrt(disc)
                    # the stable pair of quadratic roots
                    t = -0.5 * (poly[1] + (sq if poly[1] >= 0.0 else -sq))
                    if t != 0.0:
                        roots[0] = t / poly[2]
                        roots[1] = poly[0] / t
                    else:
                        roots[0] = 0.0
            elif abs(poly[1]) > 0.0:
                roots[0] = -poly[0] / poly[1]
        for r in roots:
            if not 0.0 < r < 1.0:
                continue
            den1 = m1[0] + m1[1] * r
            den0 = m0[0] + m0[1] * r
            if den1 == 0.0 or den0 == 0.0:
                continue
            q[0] = (n0[0] + n0[1] * r) / den0
            q[1] = (n1[0] + n1[1] * r) / den1
            q[2] = r
            if 0.0 < q[0] < 1.0 and 0.0 < q[1] < 1.0 and _is_equilibrium(U, 3, q, 7):
                _consider(q.copy(), 3, tied, best, state)
    if n == 3 and state[0] == 0.0 and (tied[0] or tied[1]):
        _symmetric_mixes(U, tied, q, best, state)
    if state[0] != 0.0:
        for j in range(n):
            out[j] = best[j]
        return 1
    # degenerate: the role-symmetric pure profile with the least regret
    worst_best = np.inf
    for prof in range(1 << n):
        for j in range(n):
            q[j] = 1.0 if prof & (1 << j) else 0.0
        if not _respects(q, n, tied):
            continue
        regret = 0.0
        for j in range(n):
            g = _gain(U, n, j, q)
            regret = max(regret, -g if q[j] == 1.0 else g)
        if regret < worst_best:
            worst_best = regret
            for j in range(n):
                out[j] = q[j]
    return 2


@njit(cache=True)
def _quadratic_roots(g0, gh, g1, roots):  # pragma: no cover - numba
    """Write to roots the roots in (0, 1) of the quadratic through (0, g0), (1/2, gh), (1, g1); return their count."""
    a = 2.0 * g1 - 4.0 * gh + 2.0 * g0
    b = 4.0 * gh - 3.0 * g0 - g1
    c = g0
    count = 0
    scale = max(abs(a), max(abs(b), abs(c)))
    if scale == 0.0:
        return 0
    if abs(a) <= 1e-12 * scale:
        if b != 0.0:
            roots[0] = -c / b
            count = 1
    else:
        disc = b * b - 4.0 * a * c
        if disc < 0.0:
            return 0
        sq = np.sqrt(disc)
        t = -0.5 * (b + (sq if b >= 0.0 else -sq))
        roots[0] = t / a
        roots[1] = c / t if t != 0.0 else t / a
        count = 2
    kept = 0
    for k in range(count):
        if 0.0 < roots[k] < 1.0:
            roots[kept] = roots[k]
            kept += 1
    return kept


@njit(cache=True)
def _symmetric_mixes(U, tied, q, best, state):  # pragma: no cover - numba
    """Consider the role-symmetric mixed equilibria of a 3-player stage with tied players.

    A tied pair (j, j + 1) mixing alike with p and the third player k mixing with r: k's indifference
    is a quadratic in p, then j's is linear in r; all three tied: one quadratic in p.
    """
    roots = np.zeros(2)
    if tied[0] and tied[1]:
        for v, x in ((0, 0.0), (1, 0.5), (2, 1.0)):
            q[0] = x
            q[1] = x
            q[2] = x
            g = _gain(U, 3, 2, q)
            if v == 0:
                g0 = g
            elif v == 1:
                gh = g
            else:
                g1 = g
        for k in range(_quadratic_roots(g0, gh, g1, roots)):
            q[0] = roots[k]
            q[1] = roots[k]
            q[2] = roots[k]
            if _is_equilibrium(U, 3, q, 7):
                _consider(q.copy(), 3, tied, best, state)
        return
    j = 0 if tied[0] else 1
    k = 2 if tied[0] else 0
    for v, x in ((0, 0.0), (1, 0.5), (2, 1.0)):
        q[j] = x
        q[j + 1] = x
        q[k] = 0.0
        g = _gain(U, 3, k, q)
        if v == 0:
            g0 = g
        elif v == 1:
            gh = g
        else:
            g1 = g
    for m in range(_quadratic_roots(g0, gh, g1, roots)):
        p = roots[m]
        q[j] = p
        q[j + 1] = p
        q[k] = 0.0
        h0 = _gain(U, 3, j, q)
        q[k] = 1.0
        h1 = _gain(U, 3, j, q)
        if h0 == h1:
            continue
        r = h0 / (h0 - h1)
        if not 0.0 < r < 1.0:
            continue
        q[k] = r
        if _is_equilibrium(U, 3, q, 7):
            _consider(q.copy(), 3, tied, best, state)


@njit(cache=True)
def _profile_weight(sig, n, prof):  # pragma: no cover - numba
    """Return the chance of the pure profile ``prof`` when each player j sits with chance sig[j]."""
    w = 1.0
    for j in range(n):
        w *= sig[j] if prof & (1 << j) else 1.0 - sig[j]
    return w


@njit(cache=True)
def _best_reply(BU, n, sig, players, bv, bstay, bsit):  # pragma: no cover - numba
    """Write each deviator's best-response value (component players[i]) against the others' sig.

    BU[profile, component]: best-response payoffs. bsit[i] is 1.0 if deviator i sits (ties sit), and
    bstay[i] the chance that every other player stays (the loop weight when i stays).
    """
    q = np.zeros(3)
    for i in range(n):
        for j in range(n):
            q[j] = sig[j]
        c = players[i]
        vs = 0.0
        vy = 0.0
        alone = 1.0
        for prof in range(1 << n):
            if prof & (1 << i):
                continue
            w = _others(prof, n, i, q)
            vs += w * BU[prof | (1 << i), c]
            vy += w * BU[prof, c]
            if prof == 0:
                alone = w
        bstay[i] = alone
        if vs >= vy:
            bv[c] = vs
            bsit[i] = 1.0
        else:
            bv[c] = vy
            bsit[i] = 0.0


# -- the pair states: two stand, one seated ---------------------------------------------------------


@njit(cache=True)
def _pair_sweep(c, a, b, goal, amounts, probs, pbust, PR, V, R, br, BV, BR, D, W, S, BD, BW):  # pragma: no cover
    """Sweep the pair states (seated c; a <= b stand) backwards in t; return (stages, mixed, unresolved).

    W[t]: shares (c, a, b) with both standing at total t, about to roll; D[t]: at the decision after
    a roll to t; S[t]: the two sit chances there. With ``br`` also BW, BD from the best-response
    tables (component i: player i deviates; the seated player's follows the others' play).
    """
    top = goal - a  # from here on both stand at the goal: they sit at once
    nf = amounts.shape[0]
    cap = top + amounts.max()
    tmp = np.zeros(3)
    for t in range(top, cap + 1):
        _ending(c, a + t, b + t, goal, V, D[t])
        if br:
            _ending(c, a + t, b + t, goal, BV, BD[t])
    U = np.zeros((4, 3))
    BU = np.zeros((4, 3))
    Ua = np.zeros((4, 2))
    sig = np.zeros(3)
    bv = np.zeros(3)
    bstay = np.zeros(3)
    bsit = np.zeros(3)
    players = np.array([1, 2, 0])
    tied = np.array([a == b, False])
    bust = np.zeros(3)
    bbust = np.zeros(3)
    _ending(c, a, b, goal, V, bust)
    if br:
        _ending(c, a, b, goal, BV, bbust)
    stages = 0
    mixed = 0
    unresolved = 0
    for t in range(top - 1, 0, -1):
        for q in range(3):
            acc = pbust * bust[q]
            bacc = pbust * bbust[q]
            for f in range(nf):
                acc += probs[f] * D[t + amounts[f], q]
                if br:
                    bacc += probs[f] * BD[t + amounts[f], q]
            W[t, q] = acc
            BW[t, q] = bacc
        # profiles: bit 0 = a sits, bit 1 = b sits
        for q in range(3):
            U[0, q] = W[t, q]
        _lone(c, a + t, b, t, goal, pbust, PR, V, R, U[1])  # a sits, b rolls on alone
        _lone(c, b + t, a, t, goal, pbust, PR, V, R, tmp)  # b sits, a rolls on alone
        U[2, 0], U[2, 1], U[2, 2] = tmp[0], tmp[2], tmp[1]
        _ending(c, a + t, b + t, goal, V, U[3])
        for p in range(4):
            Ua[p, 0] = U[p, 1]
            Ua[p, 1] = U[p, 2]
        kind = _solve_stage(Ua, 2, tied, sig)
        stages += 1
        if kind == 1:
            mixed += 1
        elif kind == 2:
            unresolved += 1
        S[t, 0] = sig[0]
        S[t, 1] = sig[1]
        for q in range(3):
            v = 0.0
            for p in range(4):
                v += _profile_weight(sig, 2, p) * U[p, q]
            D[t, q] = v
        if br:
            for q in range(3):
                BU[0, q] = BW[t, q]
            _lone(c, a + t, b, t, goal, pbust, PR, BV, BR, BU[1])
            _lone(c, b + t, a, t, goal, pbust, PR, BV, BR, tmp)
            BU[2, 0], BU[2, 1], BU[2, 2] = tmp[0], tmp[2], tmp[1]
            _ending(c, a + t, b + t, goal, BV, BU[3])
            # deviators a, b: components 1, 2 (profile bits 0, 1)
            _best_reply(BU, 2, sig, players, bv, bstay, bsit)
            BD[t, 1] = bv[1]
            BD[t, 2] = bv[2]
            v = 0.0
            for p in range(4):
                v += _profile_weight(sig, 2, p) * BU[p, 0]
            BD[t, 0] = v
    return stages, mixed, unresolved


@njit(cache=True)
def _pair_level(n, goal, amounts, probs, pbust, PR, V, R, WT, br, BV, BR, BWT):  # pragma: no cover - numba
    """Run the pair sweeps of every (c, a <= b) with c + a + b = n and store them for their consumers.

    WT[pair(a, b), s, t] = W(s + t, a, b, t): the sitter left the three-standing stage at its score s
    (s + t = c). Return (stages, mixed, unresolved).
    """
    size = goal + amounts.max() + 2
    D = np.zeros((size, 3))
    W = np.zeros((size, 3))
    S = np.zeros((size, 2))
    BD = np.zeros((size, 3))
    BW = np.zeros((size, 3))
    stages = 0
    mixed = 0
    unresolved = 0
    for c in range(max(1, n - 2 * goal + 2), min(n, 2 * goal - 2) + 1):
        rest = n - c
        for a in range(max(0, rest - goal + 1), rest // 2 + 1):
            b = rest - a
            if b >= goal:
                continue
            lo = max(1, c - goal + 1)
            hi = min(c, goal - a - 1)
            if lo > hi:
                continue
            st, mx, un = _pair_sweep(c, a, b, goal, amounts, probs, pbust, PR, V, R, br, BV, BR, D, W, S, BD, BW)
            stages += st
            mixed += mx
            unresolved += un
            i = _pair(a, b)
            for t in range(lo, hi + 1):
                for q in range(3):
                    if br:
                        BWT[i, c - t, t, q] = BW[t, q]
                    else:
                        WT[i, c - t, t, q] = W[t, q]
    return stages, mixed, unresolved


# -- the three-standing turn ------------------------------------------------------------------------


@njit(cache=True)
def _payoffs3(s, t, goal, pbust, PR, V, R, WT, Y, U):  # pragma: no cover - numba
    """Fill U[profile] (bit j: player j sits) at the three-standing stage (s sorted, t); Y: the all-stay payoff."""
    tmp = np.zeros(3)
    for q in range(3):
        U[0, q] = Y[q]
    _ending(s[0] + t, s[1] + t, s[2] + t, goal, V, U[7])
    for i in range(3):
        j = 1 if i == 0 else 0
        k = 1 if i == 2 else 2
        # i stays, j and k sit: i rolls on alone
        _lone(s[j] + t, s[k] + t, s[i], t, goal, pbust, PR, V, R, tmp)
        prof = 7 - (1 << i)
        U[prof, j], U[prof, k], U[prof, i] = tmp[0], tmp[1], tmp[2]
        # i sits, j and k stay: a pair state, unless the total takes both stayers to the goal
        prof = 1 << i
        if s[j] + t >= goal:
            for q in range(3):
                U[prof, q] = U[7, q]
        else:
            w = _pair(s[j], s[k])
            U[prof, i], U[prof, j], U[prof, k] = WT[w, s[i], t, 0], WT[w, s[i], t, 1], WT[w, s[i], t, 2]


@njit(cache=True)
def _forced_stage(U, s, mask, pv, out):  # pragma: no cover - numba
    """Write to out the sit chances at a 3-player stage where each player j in ``mask`` sits with chance pv[j].

    The others play the selected equilibrium of the game left to them (the forced players' draws
    averaged in); a single one left sits when sitting is at least as good. Return its kind (as
    ``_solve_stage``, never 0: the forced players mix).
    """
    free = np.zeros(3, dtype=np.int64)
    nf = 0
    for j in range(3):
        if mask & (1 << j):
            out[j] = pv[j]
        else:
            free[nf] = j
            nf += 1
    if nf == 0:
        return 1
    Ur = np.zeros((1 << nf, nf))
    for prof in range(8):
        w = 1.0
        sub = 0
        for j in range(3):
            if mask & (1 << j):
                w *= pv[j] if prof & (1 << j) else 1.0 - pv[j]
        for k in range(nf):
            if prof & (1 << free[k]):
                sub |= 1 << k
        for k in range(nf):
            Ur[sub, k] += w * U[prof, free[k]]
    if nf == 1:
        out[free[0]] = 1.0 if Ur[1, 0] - Ur[0, 0] >= -TIE else 0.0
        return 1
    tied = np.array([s[free[0]] == s[free[1]], False])
    sig = np.zeros(3)
    kind = _solve_stage(Ur, 2, tied, sig)
    out[free[0]] = sig[0]
    out[free[1]] = sig[1]
    return 2 if kind == 2 else 1


@njit(cache=True)
def _turn(s, x, goal, game, br, bx, work, out, prof):
    # pragma: no cover - numba
    """Sweep the three-standing stages of the turn at s (sorted) for the turn-start value x, backwards in t.

    D[t], C[t], E[t]: value, exit payoff and exit chance (D = C + (1 - E) x) at the decision after a
    roll to t; S[t]: the sit chances. out = (F(x), c, e) as out[0:3], out[3:6], out[6].
    prof[t]: how stage t is played: [SELECTED], [STICKY, -, the profile to keep while it is an
    equilibrium], [FORCED, mask, the chances of the players in mask]; except for SELECTED stages the
    sweep writes each player's gain from sitting to prof[t, 5:8].
    With ``br`` also the best-response sweep for bx: BD, BC, BE per deviator, out[7:10] = bc, out[10:13] = be.
    Return (mixed, unresolved) counts of the sweep's stages. ``game`` = (amounts, probs, pbust, PR,
    V, R, WT, BV, BR, BWT): the die and the tables (B*: the best responses'); ``work`` = (D, C, E,
    S, BD, BC, BE).
    """
    amounts, probs, pbust, PR, V, R, WT, BV, BR, BWT = game
    D, C, E, S, BD, BC, BE = work
    top = goal - s[0]  # from here on all three stand at the goal: they sit at once
    nf = amounts.shape[0]
    cap = top + amounts.max()
    for t in range(top, cap + 1):
        _ending(s[0] + t, s[1] + t, s[2] + t, goal, V, D[t])
        E[t] = 1.0
        for q in range(3):
            C[t, q] = D[t, q]
        if br:
            _ending(s[0] + t, s[1] + t, s[2] + t, goal, BV, BD[t])
            for q in range(3):
                BC[t, q] = BD[t, q]
                BE[t, q] = 1.0
    tied = np.array([s[0] == s[1], s[1] == s[2]])
    U = np.zeros((8, 3))
    BU = np.zeros((8, 3))
    Y = np.zeros(3)
    sig = np.zeros(3)
    bv = np.zeros(3)
    bstay = np.zeros(3)
    bsit = np.zeros(3)
    players = np.array([0, 1, 2])
    pv = np.zeros(3)
    mixed = 0
    unresolved = 0
    for t in range(top - 1, 0, -1):
        cy = np.zeros(3)
        ey = 0.0
        for q in range(3):
            acc = pbust * x[q]
            for f in range(nf):
                acc += probs[f] * D[t + amounts[f], q]
                cy[q] += probs[f] * C[t + amounts[f], q]
            Y[q] = acc
        for f in range(nf):
            ey += probs[f] * E[t + amounts[f]]
        _payoffs3(s, t, goal, pbust, PR, V, R, WT, Y, U)
        mode = prof[t, 0]
        if mode == FORCED:
            fmask = int(prof[t, 1])
            for j in range(3):
                pv[j] = prof[t, 2 + j]
            kind = _forced_stage(U, s, fmask, pv, sig)
        else:
            kind = -1
            if mode == STICKY:  # the profile of the last sweep, while it is still an equilibrium
                mixers = 0
                for j in range(3):
                    sig[j] = prof[t, 2 + j]
                    if SIT_MARGIN < sig[j] < 1.0 - SIT_MARGIN:
                        mixers |= 1 << j
                if mixers == 0 and _respects(sig, 3, tied) and _is_equilibrium(U, 3, sig, 0):
                    kind = 0
            if kind < 0:
                kind = _solve_stage(U, 3, tied, sig)
        if mode != SELECTED:
            for j in range(3):
                prof[t, 5 + j] = _gain(U, 3, j, sig)
        if kind == 1:
            mixed += 1
        elif kind == 2:
            unresolved += 1
        for q in range(3):
            S[t, q] = sig[q]
        stay = _profile_weight(sig, 3, 0)
        E[t] = 1.0 - stay + stay * ey
        for q in range(3):
            v = 0.0
            for p in range(1, 8):
                v += _profile_weight(sig, 3, p) * U[p, q]
            C[t, q] = v + stay * cy[q]
            D[t, q] = v + stay * Y[q]
        if br:
            bcy = np.zeros(3)
            bey = np.zeros(3)
            for q in range(3):
                acc = pbust * bx[q]
                for f in range(nf):
                    acc += probs[f] * BD[t + amounts[f], q]
                    bcy[q] += probs[f] * BC[t + amounts[f], q]
                    bey[q] += probs[f] * BE[t + amounts[f], q]
                Y[q] = acc
            _payoffs3(s, t, goal, pbust, PR, BV, BR, BWT, Y, BU)
            _best_reply(BU, 3, sig, players, bv, bstay, bsit)
            for i in range(3):
                BD[t, i] = bv[i]
                if bsit[i] == 1.0:
                    BC[t, i] = bv[i]
                    BE[t, i] = 1.0
                else:  # i stays: the turn loops only if the others stay too
                    BC[t, i] = bv[i] - bstay[i] * Y[i] + bstay[i] * bcy[i]
                    BE[t, i] = 1.0 - bstay[i] + bstay[i] * bey[i]
    for q in range(3):
        f0 = pbust * x[q]
        c0 = 0.0
        for f in range(nf):
            f0 += probs[f] * D[amounts[f], q]
            c0 += probs[f] * C[amounts[f], q]
        out[q] = f0
        out[3 + q] = c0
    e0 = 0.0
    for f in range(nf):
        e0 += probs[f] * E[amounts[f]]
    out[6] = e0
    if br:
        for q in range(3):
            c0 = 0.0
            e1 = 0.0
            for f in range(nf):
                c0 += probs[f] * BC[amounts[f], q]
                e1 += probs[f] * BE[amounts[f], q]
            out[7 + q] = c0
            out[10 + q] = e1
    return mixed, unresolved


@njit(cache=True)
def _write_perms(s, v, T):  # pragma: no cover - numba
    """Write the vector v of the sorted turn start s to every permutation of it in T."""
    perms = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
    for p in perms:
        T[s[p[0]], s[p[1]], s[p[2]], 0] = v[p[0]]
        T[s[p[0]], s[p[1]], s[p[2]], 1] = v[p[1]]
        T[s[p[0]], s[p[1]], s[p[2]], 2] = v[p[2]]


@njit(cache=True)
def _fixed_point(s, x, goal, game, work, out, prof, limit):
    # pragma: no cover - numba
    """Iterate x <- c(x) / e(x) from x (updated in place) under the stage modes ``prof``; return (steps, settled).

    After every sweep the sticky stages take the profile it played. On return with settled, S (work)
    and the gains prof[:, 5:8] are those of the last sweep, whose x moved by at most ROOT_TOLERANCE.
    """
    S = work[3]
    dummy = np.zeros(3)
    top = goal - s[0]
    for step in range(2 * limit if limit > 1 else 1):
        _turn(s, x, goal, game, False, dummy, work, out, prof)
        for t in range(1, top):
            if prof[t, 0] == STICKY:
                for j in range(3):
                    prof[t, 2 + j] = S[t, j]
        moved = 0.0
        damp = 1.0 if step < limit else DAMPING
        for q in range(3):
            nxt = out[3 + q] / out[6]
            moved = max(moved, abs(nxt - x[q]))
            x[q] += damp * (nxt - x[q])
        if moved <= ROOT_TOLERANCE:
            return step + 1, True
    return 2 * limit if limit > 1 else 1, False


@njit(cache=True)
def _class_mask(s, i):  # pragma: no cover - numba
    """Return the bit mask of player i and the players tied with it (s sorted)."""
    mask = 0
    for j in range(3):
        if s[j] == s[i]:
            mask |= 1 << j
    return mask


@njit(cache=True)
def _first(mask):  # pragma: no cover - numba
    """Return the lowest player in ``mask``."""
    j = 0
    while not mask & (1 << j):
        j += 1
    return j


@njit(cache=True)
def _set_rows(prof, rows, k, p):  # pragma: no cover - numba
    """Force the k decisions rows[:k] (stage t, tie-class mask) to sit with the chances p (in prof)."""
    for r in range(k):
        t = int(rows[r, 0])
        prof[t, 0] = FORCED
        prof[t, 1] = 0.0
    for r in range(k):
        t = int(rows[r, 0])
        mask = int(rows[r, 1])
        prof[t, 1] = float(int(prof[t, 1]) | mask)
        for j in range(3):
            if mask & (1 << j):
                prof[t, 2 + j] = p[r]


@njit(cache=True)
def _fb(a, b):  # pragma: no cover - numba
    """Return the Fischer-Burmeister function a + b - sqrt(a^2 + b^2): zero exactly when a, b >= 0 and a b = 0."""
    return a + b - np.sqrt(a * a + b * b)


@njit(cache=True)
def _residual(s, x0, goal, game, work, out, prof, base, rows, k, p, xs, res):  # pragma: no cover - numba
    """Solve the turn's fixed point (from x0, into xs) with the decisions rows[:k] forced to p; write their residuals.

    res[r] = fb(p_r, -fb(1 - p_r, GAIN_SCALE g_r)) (fb: Fischer-Burmeister), g_r the gain from sitting of
    the row's first player: zero exactly when p_r is a best reply (1 if g > 0, 0 if g < 0, any if g = 0).
    The other stages start from ``base`` (a sticky stage keeps its profile while it stays an
    equilibrium), so the residuals are a function of p. Return (steps, settled).
    """
    prof[:] = base
    _set_rows(prof, rows, k, p)
    for q in range(3):
        xs[q] = x0[q]
    steps, settled = _fixed_point(s, xs, goal, game, work, out, prof, MAX_ROOT_STEPS)
    for r in range(k):
        g = prof[int(rows[r, 0]), 5 + _first(int(rows[r, 1]))]
        inner = _fb(1.0 - p[r], GAIN_SCALE * g)
        res[r] = _fb(p[r], -inner)
    return steps, settled


@njit(cache=True)
def _mix_search(s, x, goal, game, work, out, prof, rows, k, p, pf):
    # pragma: no cover - numba
    """Solve for the chances p of the forced decisions rows[:k] that make each of them a best reply.

    A semismooth Newton method on the residuals of ``_residual`` from p (updated), with a
    forward-difference Jacobian (least squares) and a backtracking line search. Return (status,
    steps): 0 solved (x: the fixed point), 1 not solved (pf: the full Newton step that failed, where
    a decision outside the forced ones may flip), 2 a fixed point did not settle (a decision outside
    the forced ones flips; x: where it was tried).
    """
    steps = 0
    xs = x.copy()
    xt = x.copy()
    res = np.zeros(k)
    trial = np.zeros(k)
    J = np.zeros((k, k))
    col = np.zeros(k)
    pt = p.copy()
    base = prof.copy()
    taken, settled = _residual(s, x, goal, game, work, out, prof, base, rows, k, p, xs, res)
    steps += taken
    if not settled:
        for q in range(3):
            x[q] = xs[q]
        return 2, steps
    norm = np.abs(res).max()
    for _ in range(NEWTON_STEPS):
        if norm <= RESIDUAL_TOLERANCE:
            break
        for j in range(k):
            for r in range(k):
                pt[r] = p[r]
            h = NEWTON_H if p[j] + NEWTON_H <= 1.0 else -NEWTON_H
            pt[j] = p[j] + h
            taken, settled = _residual(s, xs, goal, game, work, out, prof, base, rows, k, pt, xt, col)
            steps += taken
            if not settled:
                for q in range(3):
                    x[q] = xt[q]
                return 2, steps
            for r in range(k):
                J[r, j] = (col[r] - res[r]) / h
        delta = np.linalg.lstsq(J, -res)[0]
        for r in range(k):
            pf[r] = min(1.0, max(0.0, p[r] + delta[r]))
        alpha = 1.0
        improved = False
        for _ in range(LINE_SEARCH):
            for r in range(k):
                pt[r] = min(1.0, max(0.0, p[r] + alpha * delta[r]))
            taken, settled = _residual(s, xs, goal, game, work, out, prof, base, rows, k, pt, xt, trial)
            steps += taken
            if settled:
                tn = np.abs(trial).max()
                if tn < (1.0 - 1e-4 * alpha) * norm:
                    improved = True
                    norm = tn
                    for r in range(k):
                        res[r] = trial[r]
                        p[r] = pt[r]
                    for q in range(3):
                        xs[q] = xt[q]
                    break
            alpha *= 0.5
        if not improved:
            break
    # leave prof and the work arrays at p's fixed point
    taken, settled = _residual(s, xs, goal, game, work, out, prof, base, rows, k, p, xt, res)
    steps += taken
    if settled and np.abs(res).max() <= RESIDUAL_TOLERANCE:
        for q in range(3):
            x[q] = xt[q]
        return 0, steps
    return 1, steps


@njit(cache=True)
def _kind(v):  # pragma: no cover - numba
    """Return a sit chance's kind of play: 0 stays, 1 sits, 2 mixes."""
    return 0 if v <= SIT_MARGIN else (1 if v >= 1.0 - SIT_MARGIN else 2)


@njit(cache=True)
def _candidates(s, x, goal, game, work, out, prof, cands, loose):
    # pragma: no cover - numba
    """Write to cands the decisions (stage t, tie-class mask) whose kind of play changes over RECORD sweeps.

    The kinds: stays, sits, mixes (a mix whose chances only move with x is no change). Decisions
    already forced are left out; with ``loose`` any change of the chances counts. Return (count,
    steps); x is moved on by the sweeps.
    """
    S = work[3]
    top = goal - s[0]
    seen = np.zeros((RECORD, top + 1, 3))
    for r in range(RECORD):
        _fixed_point(s, x, goal, game, work, out, prof, 1)
        for t in range(1, top):
            for q in range(3):
                seen[r, t, q] = S[t, q]
    count = 0
    for t in range(top - 1, 0, -1):
        for i in range(3):
            if prof[t, 0] == FORCED and int(prof[t, 1]) & (1 << i):
                continue
            kinds = 0  # the kinds of play seen: bit 0 stays, bit 1 sits, bit 2 mixes
            lo = 1.0
            hi = 0.0
            for r in range(RECORD):
                v = seen[r, t, i]
                kinds |= 1 if v <= SIT_MARGIN else (2 if v >= 1.0 - SIT_MARGIN else 4)
                lo = min(lo, v)
                hi = max(hi, v)
            if loose:
                if hi - lo <= SIT_MARGIN:
                    continue
            elif kinds == 1 or kinds == 2 or kinds == 4:  # one kind (a mix that only moves with x is no flip)
                continue
            mask = _class_mask(s, i)
            dup = False
            for c in range(count):
                if cands[c, 0] == t and cands[c, 1] == mask:
                    dup = True
            if not dup and count < cands.shape[0]:
                cands[count, 0] = t
                cands[count, 1] = mask
                count += 1
    return count, RECORD


@njit(cache=True)
def _turn_start(s, goal, game, work, out, prof):  # pragma: no cover - numba
    """Solve the equilibrium turn start s (sorted): return (x, steps, how); see the module docstring.

    how: 0 the selected profiles settled, 1 the sticky ones did, 2 the forced search succeeded (both
    leave the played profile in S), -1 nothing settled (the damped iteration's x).
    """
    S = work[3]
    top = goal - s[0]
    prof[:] = 0.0
    x = np.full(3, 1.0 / 3.0)
    steps, settled = _fixed_point(s, x, goal, game, work, out, prof, MAX_ROOT_STEPS)
    if settled:
        return x, steps, 0
    for t in range(1, top):
        prof[t, 0] = STICKY
        for j in range(3):
            prof[t, 2 + j] = S[t, j]
    taken, settled = _fixed_point(s, x, goal, game, work, out, prof, MAX_ROOT_STEPS)
    steps += taken
    if settled:
        return x, steps, 1
    rows = np.zeros((MAX_FORCED, 2))
    k = 0
    x1 = x.copy()
    cands = np.zeros((3 * goal, 2))
    pf = np.zeros(MAX_FORCED)
    kinds = np.zeros((top, 3))
    flips = np.zeros((3 * goal, 2))
    nflips = 0
    for _ in range(RESTARTS):
        ncand, taken = _candidates(s, x1, goal, game, work, out, prof, cands, False)
        steps += taken
        if ncand == 0:
            ncand, taken = _candidates(s, x1, goal, game, work, out, prof, cands, True)
            steps += taken
        for c in range(nflips):  # decisions that flipped between a failed Newton step's ends
            if ncand < cands.shape[0]:
                cands[ncand, 0] = flips[c, 0]
                cands[ncand, 1] = flips[c, 1]
                ncand += 1
        nflips = 0
        added = 0
        for c in range(ncand):
            new = True
            for r in range(k):
                if rows[r, 0] == cands[c, 0] and rows[r, 1] == cands[c, 1]:
                    new = False
            if new and k < MAX_FORCED:
                rows[k, 0] = cands[c, 0]
                rows[k, 1] = cands[c, 1]
                k += 1
                added += 1
        if added == 0:
            break
        last = np.zeros(k)
        for r in range(k):
            last[r] = S[int(rows[r, 0]), _first(int(rows[r, 1]))]
        for start in range(STARTS):
            p = last.copy() if start == 0 else np.full(k, (0.5, 0.0, 1.0, 0.25, 0.75)[start - 1])
            xs = x.copy()
            status, taken = _mix_search(s, xs, goal, game, work, out, prof, rows, k, p, pf)
            steps += taken
            if status == 0:
                return xs, steps, 2
            if status == 1:  # the decisions whose kind of play differs between p and the failed full step
                for t in range(1, top):
                    for j in range(3):
                        kinds[t, j] = _kind(S[t, j])
                base = prof.copy()
                xt = xs.copy()
                taken, settled = _residual(s, xs, goal, game, work, out, prof, base, rows, k, pf[:k], xt, np.zeros(k))
                steps += taken
                prof[:] = base
                for t in range(top - 1, 0, -1):
                    for j in range(3):
                        if base[t, 0] == FORCED and int(base[t, 1]) & (1 << j):
                            continue
                        if _kind(S[t, j]) != kinds[t, j] and nflips < flips.shape[0]:
                            mask = _class_mask(s, j)
                            dup = False
                            for c in range(nflips):
                                if flips[c, 0] == t and flips[c, 1] == mask:
                                    dup = True
                            if not dup:
                                flips[nflips, 0] = t
                                flips[nflips, 1] = mask
                                nflips += 1
            if status == 2:  # a decision outside the forced ones flips: look again where the search stood
                x1 = xs
                break
    # nothing settled: the damped iteration of the selected profiles, unsettled
    prof[:] = 0.0
    dummy = np.zeros(3)
    for _ in range(MAX_DAMPED_STEPS):
        _turn(s, x, goal, game, False, dummy, work, out, prof)
        steps += 1
        moved = 0.0
        for q in range(3):
            nxt = out[3 + q] / out[6]
            moved = max(moved, abs(nxt - x[q]))
            x[q] += 0.5 * (nxt - x[q])
        if moved <= ROOT_TOLERANCE:
            return x, steps, 0
    return x, steps, -1


@njit(cache=True)
def _load_profile(s, PI, PP, prof):  # pragma: no cover - numba
    """Set prof to the stored profile of the sorted turn start s (forced at every stage), or to the selected one."""
    prof[:] = SELECTED
    start = PI[s[0], s[1], s[2], 0]
    for r in range(start, start + PI[s[0], s[1], s[2], 1]):
        t = int(PP[r, 0])
        prof[t, 0] = FORCED
        prof[t, 1] = 7.0
        for j in range(3):
            prof[t, 2 + j] = PP[r, 1 + j]


@njit(cache=True)
def _solve_all(goal, game, PI, PP, br, stats):  # pragma: no cover - numba
    """Solve every state from the highest score sum down (with ``br``: the best-response tables).

    ``game`` = (amounts, probs, pbust, PR, V, R, WT, BV, BR, BWT), as ``_turn`` takes it.
    PI[s0, s1, s2] = (first row, rows) in PP of the stored profile of a sorted turn start solved by the
    sticky or forced search (PP rows: stage t, the three sit chances); written by the solve, read by ``br``.
    stats: [turn starts, root steps, unsettled, 3-stages, mixed 3-stages, pair stages, mixed pair stages,
    unresolved stages, turn starts settled by sticky profiles, ... by the forced search, rows used].
    """
    amounts, probs, pbust, PR, V, R, WT, BV, BR, BWT = game
    size = goal + amounts.max() + 2
    D = np.zeros((size, 3))
    C = np.zeros((size, 3))
    E = np.zeros(size)
    S = np.zeros((size, 3))
    BD = np.zeros((size, 3))
    BC = np.zeros((size, 3))
    BE = np.zeros((size, 3))
    work = (D, C, E, S, BD, BC, BE)
    out = np.zeros(13)
    prof = np.zeros((size, 8))
    used = 0
    s = np.zeros(3, dtype=np.int64)
    for n in range(4 * goal, -1, -1):
        for s0 in range(0, min(n // 3, goal - 1) + 1):
            for s1 in range(s0, goal):
                s2 = n - s0 - s1
                if s2 < s1:
                    break
                if s2 >= goal:
                    continue
                s[0], s[1], s[2] = s0, s1, s2
                stats[0] += 1
                if not br:
                    x, steps, how = _turn_start(s, goal, game, work, out, prof)
                    stats[1] += steps
                    if how > 0 and used + goal - s0 > PP.shape[0]:
                        how = -1  # no room to store the profile (not met: PP has room for goal^3 rows)
                        prof[:] = SELECTED
                    if how < 0:
                        stats[2] += 1
                    elif how > 0:
                        stats[7 + how] += 1
                        PI[s0, s1, s2, 0] = used
                        for t in range(1, goal - s0):
                            PP[used, 0] = t
                            for j in range(3):
                                PP[used, 1 + j] = S[t, j]
                            used += 1
                        PI[s0, s1, s2, 1] = used - PI[s0, s1, s2, 0]
                        _load_profile(s, PI, PP, prof)
                    _write_perms(s, x, V)
                    mixed, unresolved = _turn(s, x, goal, game, False, x, work, out, prof)
                else:
                    x = np.zeros(3)
                    for q in range(3):
                        x[q] = V[s0, s1, s2, q]
                    bx = x.copy()
                    _load_profile(s, PI, PP, prof)
                    settled = False
                    mixed = 0
                    unresolved = 0
                    for _ in range(MAX_ROOT_STEPS + MAX_DAMPED_STEPS):  # policy iteration per deviator
                        mixed, unresolved = _turn(s, x, goal, game, True, bx, work, out, prof)
                        stats[1] += 1
                        moved = 0.0
                        for q in range(3):
                            nxt = out[7 + q] / out[10 + q]
                            moved = max(moved, abs(nxt - bx[q]))
                            bx[q] = nxt
                        if moved <= ROOT_TOLERANCE:
                            settled = True
                            break
                    if not settled:
                        stats[2] += 1
                    _write_perms(s, bx, BV)
                top = goal - s0
                stats[3] += top - 1
                stats[4] += mixed
                stats[7] += unresolved
        # the lone roller's rows whose bust returns to a turn start at this sum
        for c1 in range(0, min(n, goal - 1) + 1):
            for c2 in range(c1, min(n - c1, goal - 1) + 1):
                r = n - c1 - c2
                if r < goal:
                    _lone_rows(c1, c2, r, goal, amounts, probs, pbust, V, R, br, BV, BR)
        st, mx, un = _pair_level(n, goal, amounts, probs, pbust, PR, V, R, WT, br, BV, BR, BWT)
        stats[5] += st
        stats[6] += mx
        stats[7] += un
    stats[10] = used


# -- the Python side -------------------------------------------------------------------------------


def table_bytes(goal: int) -> int:
    """Return the bytes of the equilibrium tables at ``goal`` (the exploitability pass needs as much again)."""
    pairs = goal * (goal + 1) // 2
    return 8 * (9 * goal**3 + 3 * pairs * goal * goal + 3 * pairs * (goal * (goal - 1) // 2) + 2 * (4 * goal + 1) * 2)


def _check(variant: Variant, players: int) -> Die:
    """Return the variant's shared die, or raise BadParameterError / ResourceLimitError naming the problem."""
    if players == 2:
        raise BadParameterError("2-player Swine Herd is zero-sum and has its own exact solver: use solve_swine_herd")
    if players != PLAYERS:
        raise BadParameterError(f"the n-player Swine Herd solver takes {PLAYERS} players, not {players}")
    die = read_die(variant)
    goal = variant.goal
    if not 1 <= goal <= MAX_GOAL:
        raise BadParameterError(
            f"the {players}-player Swine Herd solver takes goals 1..{MAX_GOAL} (its tables grow as goal^4), not {goal}"
        )
    needed = 2 * table_bytes(goal)  # the solve and the exploitability pass
    budget = min(MEMORY_LIMIT, budget_bytes())
    if needed > budget:
        fits = max((g for g in range(1, goal) if 2 * table_bytes(g) <= budget), default=0)
        raise ResourceLimitError(
            f"{players}-player Swine Herd at goal {goal} needs about {format_bytes(needed)} (the equilibrium and the "
            f"best-response tables); the budget is {format_bytes(budget)}: the largest goal that fits is {fits}",
            needed,
            budget,
            budget,
            fits,
        )
    return die


class Tables(NamedTuple):
    """The arrays of a solve: turn starts V, the lone roller's rows R, the pair rows W, the past-goal table PR."""

    V: np.ndarray  # (G, G, G, 3): shares at each turn start (every permutation stored)
    R: np.ndarray  # (pairs, G (G - 1) / 2, 3): lone roller rolling on, seated c1 <= c2 < G, (base s, total u)
    W: np.ndarray  # (pairs, G, G, 3): W[pair(a, b), s, t] = (sitter, a, b) after the sitter left at s, t
    PR: np.ndarray  # (2, 4 G + 1, 2): (win, tie) of a lone roller rolling on against k seated past the goal
    PI: np.ndarray  # (G, G, G, 2) int: (first row, rows) in PP of a sorted turn start's stored profile
    PP: np.ndarray  # (G^3, 4): stored profile rows (stage t, the three sit chances)


def _allocate(goal: int, mixes: bool = True) -> Tables:
    """Return zeroed tables for ``goal`` (without ``mixes``, a dummy M: the best-response tables)."""
    pairs = goal * (goal + 1) // 2
    return Tables(
        np.zeros((goal, goal, goal, 3)),
        np.zeros((pairs, max(1, goal * (goal - 1) // 2), 3)),
        np.zeros((pairs, goal, goal, 3)),
        np.zeros((2, 4 * goal + 1, 2)),
        np.zeros((goal, goal, goal, 2) if mixes else (1, 1, 1, 2), dtype=np.int64),
        np.zeros((goal**3 if mixes else 1, 4)),
    )


class Statistics(NamedTuple):
    """Counts of a solve."""

    turn_starts: int  # canonical (sorted) turn starts
    root_steps: int  # turn sweeps the fixed points took
    unsettled: int  # turn starts left without an equilibrium (the damped iteration of the selected profiles)
    stages3: int  # three-standing stage games
    mixed3: int  # ... whose selected equilibrium mixes
    stages2: int  # pair (two-standing) stage games swept
    mixed2: int
    unresolved: int  # stage games with no equilibrium found (least-regret pure profile taken)
    sticky: int  # turn starts settled by keeping each stage's last equilibrium (the selected ones cycled)
    forced: int  # turn starts settled by the forced-mix search
    rows: int  # stored profile rows (stages of the sticky and forced turn starts)

    @property
    def mixed_share(self) -> float:
        """Return the share of all stage games (three- and two-standing) whose equilibrium mixes."""
        total = self.stages3 + self.stages2
        return (self.mixed3 + self.mixed2) / total if total else 0.0


class Exploitability(NamedTuple):
    """Best-response gains: per player at the start (0, ..., 0), per player over every turn start."""

    at_start: tuple[float, ...]
    worst: tuple[float, ...]
    seconds: float

    @property
    def start(self) -> float:
        """Return the largest gain at the game's start."""
        return max(self.at_start)

    @property
    def overall(self) -> float:
        """Return the largest gain over every turn start and player."""
        return max(self.worst)


class Stage(NamedTuple):
    """A stage game: the standing seats, payoffs[profile][seat] (bit j of profile: standing[j] sits), sit chances."""

    seats: tuple[int, ...]
    payoffs: tuple[tuple[float, ...], ...]
    sit: tuple[float, ...]


@dataclass(eq=False)
class SwineHerdNPolicy:
    """The solved n-player game (n = 3): turn-start shares, the stored tables, and queries of the strategies."""

    name: str
    goal: int
    players: int
    die: Die
    tables: Tables
    seconds: float
    statistics: Statistics
    _exploitability: list[Exploitability] = field(default_factory=list, repr=False)

    @property
    def nbytes(self) -> int:
        """Return the bytes of the stored tables."""
        return sum(int(a.nbytes) for a in self.tables)

    def _scores(self, scores: tuple[int, ...] | list[int]) -> tuple[int, ...]:
        """Return scores as a tuple after checking their number and range (any bank >= 0)."""
        scores = tuple(int(x) for x in scores)
        if len(scores) != self.players or min(scores) < 0:
            raise BadParameterError(f"scores are {self.players} numbers >= 0, got {scores}")
        return scores

    def value(self, scores: tuple[int, ...] | list[int]) -> tuple[float, ...]:
        """Return each player's expected share of the win at a turn start with ``scores`` (all below the goal)."""
        s = self._scores(scores)
        if max(s) >= self.goal:
            raise BadParameterError(f"turn-start scores are in 0..{self.goal - 1}, got {s}")
        return tuple(float(v) for v in self.tables.V[s])

    def _args(self) -> tuple:
        die = self.die
        return (self.goal, die.amounts, die.probabilities, die.bust, self.tables.PR, self.tables.V, self.tables.R)

    def stage(self, scores: tuple[int, ...] | list[int], t: int, standing: tuple[bool, ...] | list[bool]) -> Stage:
        """Return the stage game after a roll to total t with the players marked in ``standing`` standing.

        ``scores`` are the banks at that moment (a standing player's score below the goal). With one
        player standing the "stage" is its stopping problem: payoffs (roll on, hold) as profiles 0, 1.
        """
        s = self._scores(scores)
        stand = tuple(bool(x) for x in standing)
        seats = tuple(i for i in range(self.players) if stand[i])
        goal = self.goal
        if len(stand) != self.players or not seats:
            raise BadParameterError(f"standing marks {self.players} seats with at least one standing, got {standing}")
        if t < 1:
            raise BadParameterError(f"a stage has a turn total of at least 1, got {t}")
        if any(s[i] >= goal for i in seats):
            raise BadParameterError(f"a standing player's score is below the goal {goal}, got {s}")
        if len(seats) >= 2 and all(s[i] + t >= goal for i in seats):
            raise BadParameterError(f"at total {t} every standing player is at the goal: they sit at once (no stage)")
        if len(seats) == 3:
            return self._stage3(s, t)
        if len(seats) == 2:
            return self._stage2(s, t, seats)
        return self._lone_stage(s, t, seats[0])

    def _stage3(self, s: tuple[int, ...], t: int) -> Stage:
        order = sorted(range(3), key=lambda i: s[i])
        srt = np.array([s[i] for i in order], dtype=np.int64)
        goal = self.goal
        size = goal + int(self.die.amounts.max()) + 2
        D, C, S, BD, BC, BE = (np.zeros((size, 3)) for _ in range(6))
        E = np.zeros(size)
        work = (D, C, E, S, BD, BC, BE)
        out = np.zeros(13)
        modes = np.zeros((size, 8))
        _load_profile(srt, self.tables.PI, self.tables.PP, modes)
        x = self.tables.V[tuple(srt)].copy()
        goal_, amounts, probs, pbust, PR, V, R = self._args()
        W = self.tables.W
        _turn(srt, x, goal_, (amounts, probs, pbust, PR, V, R, W, V, R, W), False, x, work, out, modes)
        U = np.zeros((8, 3))
        Y = np.zeros(3)
        for q in range(3):
            Y[q] = pbust * x[q] + sum(p * D[t + a, q] for a, p in zip(amounts.tolist(), probs.tolist(), strict=True))
        _payoffs3(srt, t, goal, pbust, PR, V, R, self.tables.W, Y, U)
        # back to seat order: sorted position k is seat order[k]
        where = {seat: k for k, seat in enumerate(order)}
        payoffs = []
        for prof in range(8):
            sp = sum(1 << where[seat] for seat in range(3) if prof >> seat & 1)
            payoffs.append(tuple(float(U[sp, where[seat]]) for seat in range(3)))
        return Stage((0, 1, 2), tuple(payoffs), tuple(float(S[t, where[seat]]) for seat in range(3)))

    def _stage2(self, s: tuple[int, ...], t: int, seats: tuple[int, ...]) -> Stage:
        (seated,) = (i for i in range(3) if i not in seats)
        a_seat, b_seat = sorted(seats, key=lambda i: s[i])
        c, a, b = s[seated], s[a_seat], s[b_seat]
        goal = self.goal
        size = goal + int(self.die.amounts.max()) + 2
        D, W, BD, BW = (np.zeros((size, 3)) for _ in range(4))
        S = np.zeros((size, 2))
        _, amounts, probs, pbust, PR, V, R = self._args()
        _pair_sweep(c, a, b, goal, amounts, probs, pbust, PR, V, R, False, V, R, D, W, S, BD, BW)
        tmp = np.zeros(3)
        U = np.zeros((4, 3))
        U[0] = W[t]
        _lone(c, a + t, b, t, goal, pbust, PR, V, R, U[1])
        _lone(c, b + t, a, t, goal, pbust, PR, V, R, tmp)
        U[2] = (tmp[0], tmp[2], tmp[1])
        _ending(c, a + t, b + t, goal, V, U[3])
        comp = {seated: 0, a_seat: 1, b_seat: 2}
        bit = {a_seat: 1, b_seat: 2}
        payoffs = []
        for prof in range(4):  # bit 0: seats[0] sits, bit 1: seats[1] sits
            sp = sum(bit[seat] for k, seat in enumerate(seats) if prof >> k & 1)
            payoffs.append(tuple(float(U[sp, comp[i]]) for i in range(3)))
        sit = (float(S[t, 0]), float(S[t, 1]))
        return Stage(seats, tuple(payoffs), sit if seats[0] == a_seat else sit[::-1])

    def _lone_stage(self, s: tuple[int, ...], t: int, seat: int) -> Stage:
        c1, c2 = (s[i] for i in range(3) if i != seat)
        _, _, _, pbust, PR, V, R = self._args()
        roll = np.zeros(3)
        _lone(c1, c2, s[seat], t, self.goal, pbust, PR, V, R, roll)
        hold = np.zeros(3)
        _ending(c1, c2, s[seat] + t, self.goal, V, hold)
        others = [i for i in range(3) if i != seat]
        comp = {others[0]: 0, others[1]: 1, seat: 2}
        pay = (tuple(float(roll[comp[i]]) for i in range(3)), tuple(float(hold[comp[i]]) for i in range(3)))
        return Stage((seat,), pay, (1.0 if hold[2] >= roll[2] else 0.0,))

    def sit_probability(
        self, scores: tuple[int, ...] | list[int], t: int, standing: tuple[bool, ...] | list[bool], seat: int
    ) -> float:
        """Return the equilibrium's chance that ``seat`` sits after a roll to total t with ``standing`` standing.

        ``scores`` are the banks at that moment. A lone player "sits" when it holds.
        """
        stage = self.stage(scores, t, standing)
        if seat not in stage.seats:
            raise BadParameterError(f"seat {seat} is not standing in {tuple(standing)}")
        return stage.sit[stage.seats.index(seat)]


def solve_swine_herd_n(variant: Variant, players: int = 3) -> SwineHerdNPolicy:
    """Solve ``variant`` (Swine Herd on one shared add-or-bust roll) for ``players`` (3) players.

    Returns the selected stationary equilibrium (see the module docstring). Raises
    BadParameterError for 2 players (use the exact 2-player solver), other player counts, a
    turn-based variant, an unsupported roll table or a goal above MAX_GOAL, and ResourceLimitError
    when the tables would not fit the memory budget.
    """
    die = _check(variant, players)
    goal = variant.goal
    started = time.perf_counter()
    tables = _allocate(goal)
    _past_table(goal, die.amounts, die.probabilities, die.bust, tables.PR)
    stats = np.zeros(11, dtype=np.int64)
    dummy4 = np.zeros((1, 1, 1, 3))
    none = (dummy4, np.zeros((1, 1, 3)), dummy4)  # no best-response tables
    game = (die.amounts, die.probabilities, die.bust, tables.PR, tables.V, tables.R, tables.W, *none)
    _solve_all(goal, game, tables.PI, tables.PP, False, stats)
    return SwineHerdNPolicy(
        variant.name, goal, players, die, tables, time.perf_counter() - started, Statistics(*(int(v) for v in stats))
    )


def best_response_values(policy: SwineHerdNPolicy) -> np.ndarray:
    """Return B[s1, s2, s3, i]: player i's best-response share at each turn start against the others' strategies."""
    started = time.perf_counter()
    goal, die, tables = policy.goal, policy.die, policy.tables
    bt = _allocate(goal, mixes=False)
    stats = np.zeros(11, dtype=np.int64)
    game = (die.amounts, die.probabilities, die.bust, tables.PR, tables.V, tables.R, tables.W, bt.V, bt.R, bt.W)
    _solve_all(goal, game, tables.PI, tables.PP, True, stats)
    policy._exploitability.append(_report(policy, bt.V, time.perf_counter() - started))
    return bt.V


def _report(policy: SwineHerdNPolicy, B: np.ndarray, seconds: float) -> Exploitability:
    gain = B - policy.tables.V
    start = (0,) * policy.players
    return Exploitability(
        tuple(float(g) for g in gain[start]), tuple(float(gain[..., i].max()) for i in range(policy.players)), seconds
    )


def exploitability_report(policy: SwineHerdNPolicy) -> Exploitability:
    """Return the best-response gains (computed exactly once per policy, then remembered)."""
    if not policy._exploitability:
        best_response_values(policy)
    return policy._exploitability[-1]


def exploitability(policy: SwineHerdNPolicy) -> float:
    """Return the largest gain any player gets by best responding, over every turn start (exact)."""
    return exploitability_report(policy).overall
