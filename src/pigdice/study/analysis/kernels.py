"""Numba kernels of the exact analyses: one turn's outcome distribution, and the game chain.

``turn_rows`` pushes the probability mass of one turn forward over the turn total k under an
action table; ``chain_block`` moves the mass of every turn-start state turn by turn. Every throw is
one ``pigdice.solve.step.effect_step``; the kernels take their arrays in the named bundles below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.step import effect_step, thrown_score

MAX_SWEEPS = 100_000  # passes over the turn totals of one turn (effects that lower the total repeat them)


class EffectLabels(NamedTuple):
    """Which effects count as a bust (the turn total lost) and as a reset (the whole score lost), per row of
    the variant's ``EffectTable``: the statistics of ``turn_rows``, not its moves."""

    busts: np.ndarray  # bool
    resets: np.ndarray  # bool


class TurnTallies(NamedTuple):
    """The outcome of one turn started at (i, j), for every j (``turn_rows``)."""

    dist: np.ndarray  # (goal, goal): P(the turn ends with the mover's score s < goal)
    win: np.ndarray  # (goal,): P(it reaches the goal)
    banked: np.ndarray  # (goal,): expected points banked
    bust: np.ndarray  # (goal,): P(the turn total is lost)
    reset: np.ndarray  # (goal,): P(the whole score is lost)
    rolls: np.ndarray  # (goal,): expected rolls
    visits: np.ndarray  # (goal, goal): expected visits to turn total k, or empty (not recorded)


class SeatTurns(NamedTuple):
    """One seat's turn outcomes as the chain reads them: CSR rows i * goal + j of the mover's new scores below
    the goal, and the per-turn figures (goal, goal) it adds up."""

    indptr: np.ndarray  # int64
    scores: np.ndarray  # int64
    probabilities: np.ndarray
    win: np.ndarray  # P(the turn reaches the goal)
    scoring: np.ndarray  # P(the turn banks points)
    banked: np.ndarray  # expected points banked
    bust: np.ndarray
    reset: np.ndarray
    rolls: np.ndarray


class ChainMass(NamedTuple):
    """The chain's state before a turn, (goal, goal) each: M[i, j] the chance a turn starts with the mover at i
    and the other at j; X (Y) the mover's (other's) scoring turns so far, weighted by that chance."""

    M: np.ndarray
    X: np.ndarray
    Y: np.ndarray


class SeatTotals(NamedTuple):
    """Each seat's expected per-game totals, (2,) each (their names are ``chain.STAT_NAMES``)."""

    turns: np.ndarray
    scoring_turns: np.ndarray
    points_banked: np.ndarray
    busts: np.ndarray
    resets: np.ndarray
    rolls: np.ndarray
    points_lost_to_resets: np.ndarray


class ChainTally(NamedTuple):
    """What the chain records as it goes (``chain_block``)."""

    pmf: np.ndarray  # pmf[t]: P(the game ends on turn t + 1)
    seats: SeatTotals
    winner_scoring: np.ndarray  # (1,): the expected scoring turns of the winner
    loser_scoring: np.ndarray  # (1,): ... of the loser
    turn_starts: np.ndarray  # (2, goal, goal): expected turn starts per seat and state


@njit(cache=True)
def turn_rows(i, goal, acts_i, table, labels, one_throw, out):  # pragma: no cover - numba
    """Fill ``out`` (``TurnTallies``) with the outcome of one turn started at (i, j) for every j; return the mass
    left unresolved.

    ``acts_i[j, k]`` is the action at turn total k (0 hold, c + 1 roll with choice c); ``table`` the
    variant's ``EffectTable`` and ``labels`` which of its effects count as busts and resets.
    """
    kinds, amounts, keeps = table.kinds, table.amounts, table.keeps
    probs, offsets = table.probabilities, table.offsets
    dist, win, banked, bust, reset, rolls, visits = out
    top = goal - i
    resid = np.zeros(top)
    seen = np.zeros(top)
    record = visits.shape[0] > 0
    leftover = 0.0
    for j in range(goal):
        acts = acts_i[j]
        same = j > 0
        if same:
            for k in range(1 if one_throw else top):
                if acts[k] != acts_i[j - 1, k]:
                    same = False
                    break
        if same:  # the same actions as at j - 1 (common: thresholds change slowly): the same turn
            dist[j] = dist[j - 1]
            win[j] = win[j - 1]
            banked[j] = banked[j - 1]
            bust[j] = bust[j - 1]
            reset[j] = reset[j - 1]
            rolls[j] = rolls[j - 1]
            if record:
                visits[j] = visits[j - 1]
            continue
        if one_throw:  # Hog: one throw with the chosen number of dice, then the turn ends
            c = acts[0] - 1
            for e in range(offsets[c], offsets[c + 1]):
                p = probs[e]
                s2 = thrown_score(kinds[e], amounts[e], keeps[e], i)
                if labels.resets[e]:
                    reset[j] += p
                elif labels.busts[e]:
                    bust[j] += p
                if s2 >= goal:
                    win[j] += p
                    banked[j] += p * (s2 - i)
                else:
                    dist[j, s2] += p
                    if s2 > i:
                        banked[j] += p * (s2 - i)
            rolls[j] = 1.0
            if record:
                visits[j, 0] = 1.0
            continue
        resid[:] = 0.0
        seen[:] = 0.0
        resid[0] = 1.0
        for _ in range(MAX_SWEEPS):
            for k in range(top):
                m = resid[k]
                if m == 0.0:
                    continue
                resid[k] = 0.0
                a = acts[k]
                if a == 0:  # hold (at k = 0: pass)
                    seen[k] += m
                    dist[j, i + k] += m
                    banked[j] += m * k
                    continue
                c = a - 1
                p_self = 0.0  # rolls that leave the turn total where it is: count them geometrically
                for e in range(offsets[c], offsets[c + 1]):
                    _, total, ends = effect_step(kinds[e], amounts[e], keeps[e], i, k)
                    if not ends and total == k:
                        p_self += probs[e]
                if p_self > 1.0 - 1e-12:
                    leftover += m  # a roll that can never change anything: the turn never ends
                    continue
                m = m / (1.0 - p_self)
                seen[k] += m
                rolls[j] += m
                for e in range(offsets[c], offsets[c + 1]):
                    p = probs[e] * m
                    score, total, ends = effect_step(kinds[e], amounts[e], keeps[e], i, k)
                    if not ends:
                        if total == k:
                            continue  # counted geometrically above
                        if total >= top:  # the turn total reaches the goal: hold and win
                            win[j] += p
                            banked[j] += p * total
                        else:
                            resid[total] += p
                        continue
                    if labels.resets[e]:
                        reset[j] += p
                    elif labels.busts[e]:
                        bust[j] += p
                    if score >= goal:
                        win[j] += p
                    else:
                        dist[j, score] += p
                    if score > i:
                        banked[j] += p * (score - i)
            if resid.sum() <= 1e-17:
                break
        leftover += resid.sum()
        if record:
            visits[j, :top] = seen
    return leftover


@njit(cache=True)
def chain_block(goal, t0, t1, tail, mass, first, second, tally):  # pragma: no cover - numba
    """Play turns t0 .. t1 - 1 of the chain from ``mass`` (``ChainMass``), the seats' turns ``first`` and
    ``second`` (``SeatTurns``) alternating; return (turns done, mass still playing, the new ChainMass).

    Adds to ``tally`` (``ChainTally``) when the game ends, each seat's totals, the winner's and the
    loser's scoring turns and the turn starts per state.
    """
    M, X, Y = mass
    seats = tally.seats
    t = t0
    remaining = M.sum()
    while t < t1:
        seat = t % 2
        st = first if seat == 0 else second
        ind, to, pr = st.indptr, st.scores, st.probabilities
        nM = np.zeros_like(M)
        nX = np.zeros_like(M)
        nY = np.zeros_like(M)
        absorbed = 0.0
        for i in range(goal):
            for j in range(goal):
                m = M[i, j]
                if m == 0.0:
                    continue
                x = X[i, j]
                y = Y[i, j]
                tally.turn_starts[seat, i, j] += m
                pw = st.win[i, j]
                absorbed += m * pw
                tally.winner_scoring[0] += (x + m) * pw  # the winning turn scores too
                tally.loser_scoring[0] += y * pw
                seats.turns[seat] += m
                seats.scoring_turns[seat] += m * st.scoring[i, j]
                seats.points_banked[seat] += m * st.banked[i, j]
                seats.busts[seat] += m * st.bust[i, j]
                seats.resets[seat] += m * st.reset[i, j]
                seats.rolls[seat] += m * st.rolls[i, j]
                seats.points_lost_to_resets[seat] += m * st.reset[i, j] * i
                row = i * goal + j
                for q in range(ind[row], ind[row + 1]):
                    s2 = to[q]
                    p = pr[q]
                    nM[j, s2] += m * p
                    nX[j, s2] += y * p
                    if s2 > i:
                        nY[j, s2] += (x + m) * p
                    else:
                        nY[j, s2] += x * p
        tally.pmf[t] = absorbed
        M = nM
        X = nX
        Y = nY
        t += 1
        remaining = M.sum()
        if remaining < tail:
            break
    return t, remaining, ChainMass(M, X, Y)
