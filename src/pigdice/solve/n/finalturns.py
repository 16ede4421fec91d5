"""The last turns of a 3-player game, after one player banks a total at or past the goal.

Once a player X banks T >= goal, the players still owed a last turn play it in turn order: under
the final round both others (Y, then Z), under equal turns only the seats after X's (both, one or
none). Nobody's choice after that depends on anything but the best total so far M, how many
players t share it (a shared tie splits the win among everyone on M), and the scores of the
players still to play. The last player to play (Z, score c) faces the 2-player last-turn problem
of ``pigdice.solve.two.lastturn`` with a tie worth 1/(t + 1) when ties are shared: L_t[M - c]. The
player before them (Y, score b) chooses how far past M to go, knowing Z comes after: holding at
u = b + k is worth to Y

    u > M: 1 - L_1[u - c] (Y leads alone);  u = M, shared: (1 - L_{t+1}[M - c]) / (t + 1);  else 0,

and Y's turn is swept like any turn (``row``), from the first total where holding is provably
best (L_1[u - c] <= the smallest bust chance: rolling wins at most 1 - pbust) down to 0.
Each option's outcome is a vector of three shares: each player of the old lead (h), Y and Z.

``banked_table`` fills FT[class, T - goal, rest, r]: the win vector (X first, in turn order) of
X banking T with the others' scores ``rest`` (flat index b * goal + c), one class for the final
round, one per X's seat under equal turns. The n-player kernels read it in ``banked_share``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.rules.variant import Endgame, TieRule, Variant
from pigdice.solve.n.rows import doubles
from pigdice.solve.positions import INDIFFERENCE, TRUNCATION_ERROR
from pigdice.solve.step import effect_step, thrown_score
from pigdice.solve.tables import EffectTable
from pigdice.solve.two import lastturn
from pigdice.solve.two.lastturn import prefer

MAX_SWEEPS = 10_000
SWEEP_TOLERANCE = 1e-16
LAST_SLACK = 512  # the last player's tables reach this far past the banked table's largest total


@njit(cache=True, inline="always")
def _last(L, t, d):  # pragma: no cover - numba
    """Return the last player's share L_t[d] (t players on the lead); past the table its last entry."""
    if d < 0:
        d = 0
    if d >= L.shape[1]:
        d = L.shape[1] - 1
    return L[t - 1, d]


@njit(cache=True, inline="always")
def finish(u, M, t, c, after, shared, L, out):  # pragma: no cover - numba
    """Write the shares (each old leader, Y, Z) of Y ending their last turn on ``u`` into ``out``.

    ``after``: Z (score c) still plays a last turn; else Y is the last to play and Z plays no part.
    """
    if u > M:
        z = _last(L, 1, u - c) if after else 0.0
        out[0] = 0.0
        out[1] = 1.0 - z
        out[2] = z
    elif u == M and shared:
        z = _last(L, t + 1, M - c) if after else 0.0
        s = (1.0 - z) / (t + 1)
        out[0] = s
        out[1] = s
        out[2] = z
    else:
        z = _last(L, t, M - c) if after else 0.0
        out[0] = (1.0 - z) / t
        out[1] = 0.0
        out[2] = z


class LastTurns(NamedTuple):
    """What Y's last turn reads (``row``): the effects, the last player's tables and the ending's rules."""

    table: EffectTable
    last: np.ndarray  # L[t - 1, d]: the last player's share at deficit d with t players on the lead
    shared: bool  # a tie on the best total is shared
    single: bool  # the last turn is one banked throw (a final roll, or Hog): k = 0 only, no hold
    pbust: float  # the smallest bust chance of a roll choice
    cap: int  # > 0: with Z still to play, Y holds at totals >= cap (the tests' capped game)


class LastTurnRows(NamedTuple):
    """Y's last turn over the turn total k (``row``): one entry per k below the top it returns."""

    win: np.ndarray  # (totals, 3): the shares (each old leader, Y, Z) under optimal play
    act: np.ndarray  # (totals,) int64: 0 hold, c + 1 roll with choice c
    hold: np.ndarray  # (totals,): Y's share if holding
    rolls: np.ndarray  # (choices, totals): Y's share if rolling with each choice


def last_turn_rows(totals: int, choices: int) -> LastTurnRows:
    """Return room for ``totals`` turn totals of a last turn with ``choices`` roll choices."""
    return LastTurnRows(np.empty((totals, 3)), np.empty(totals, dtype=np.int64), np.empty(totals),
                        np.empty((choices, totals)))  # fmt: skip


def last_turn_game(variant: Variant, table: EffectTable, last: np.ndarray, cap: int = 0) -> LastTurns:
    """Return what the last turns of ``variant`` read, with the last player's tables ``last`` (``last_tables``)."""
    from pigdice.solve.two.endgame import bust_chance, single_last_throw

    return LastTurns(table, last, variant.ties is TieRule.SHARED, single_last_throw(variant), bust_chance(table),
                     int(cap))  # fmt: skip


@njit(cache=True)
def row(game, M, t, b, c, after, min_top, rows):  # pragma: no cover - numba
    """Solve Y's last turn (score b) against the lead M held by t players; return the totals swept.

    Fills rows.win[k] (the three shares under optimal play), rows.act[k] (0 hold, c + 1 roll with
    choice c), rows.hold[k] and rows.rolls[c, k] (Y's share if holding / rolling) for k < the returned
    top; at k >= top Y holds. ``after``: Z (score c) still plays a last turn. ``game.single``: the last
    turn is one banked throw: k = 0 only, no hold. The rows must have room for the top (M - b + the
    stop past M, see ``stop``). ``game.cap`` > 0: with Z still to play, Y holds at totals >= cap. The
    sweep covers at least ``min_top`` totals (action values past the stop, for hints).
    """
    tb = game.table
    kinds, amounts, keeps, probs, offsets = tb.kinds, tb.amounts, tb.keeps, tb.probabilities, tb.offsets
    L, shared = game.last, game.shared
    win, act, hold, rolls = rows.win, rows.act, rows.hold, rows.rolls
    n_choices = offsets.shape[0] - 1
    out = np.empty(3)
    opt = np.empty((n_choices + 1, 3))
    options = np.empty(n_choices + 1)
    if game.single:
        best = 0
        for ch in range(n_choices):
            opt[ch, 0] = 0.0
            opt[ch, 1] = 0.0
            opt[ch, 2] = 0.0
            for e in range(offsets[ch], offsets[ch + 1]):
                finish(thrown_score(kinds[e], amounts[e], keeps[e], b), M, t, c, after, shared, L, out)
                for q in range(3):
                    opt[ch, q] += probs[e] * out[q]
            rolls[ch, 0] = opt[ch, 1]
            if ch > 0 and opt[ch, 1] > opt[best, 1] + INDIFFERENCE:
                best = ch
        for q in range(3):
            win[0, q] = opt[best, q]
        act[0] = best + 1
        hold[0] = np.nan
        return 1
    top = stop(M, b, c, after, L, game.pbust)
    if after and game.cap > 0 and game.cap - b < top:
        top = game.cap - b
    if min_top > top:
        top = min(min_top, win.shape[0])
    for k in range(top):
        for q in range(3):
            win[k, q] = 0.0
    sweeps = 0
    settled = False
    while True:
        sweeps += 1
        change = 0.0
        for k in range(top - 1, -1, -1):
            finish(b + k, M, t, c, after, shared, L, out)
            for q in range(3):
                opt[0, q] = out[q]
            hold[k] = out[1]
            options[0] = out[1]
            for ch in range(n_choices):
                for q in range(3):
                    opt[ch + 1, q] = 0.0
                for e in range(offsets[ch], offsets[ch + 1]):
                    p = probs[e]
                    score, total, ends = effect_step(kinds[e], amounts[e], keeps[e], b, k)
                    if not ends and total < top:
                        for q in range(3):
                            opt[ch + 1, q] += p * win[total, q]
                    else:  # the turn ends on ``score`` (a reset takes the game with it), or Y holds at the stop
                        finish(score + total, M, t, c, after, shared, L, out)
                        for q in range(3):
                            opt[ch + 1, q] += p * out[q]
                rolls[ch, k] = opt[ch + 1, 1]
                options[ch + 1] = opt[ch + 1, 1]
            best = prefer(options, n_choices + 1, k == 0)
            change = max(change, abs(options[best] - win[k, 1]))
            for q in range(3):
                win[k, q] = opt[best, q]
            act[k] = best
        if tb.monotone or sweeps >= MAX_SWEEPS or (settled and change < SWEEP_TOLERANCE):
            return top
        settled = change < SWEEP_TOLERANCE


@njit(cache=True)
def stop(M, b, c, after, L, pbust):  # pragma: no cover - numba
    """Return the turn total from which Y holds: the first past M where holding is provably best.

    Alone (no Z after), any total past M wins. With Z after, holding u wins 1 - L_1[u - c] and rolling
    at most 1 - pbust, so holding is best once L_1[u - c] <= pbust (or, with no bust chance at all,
    once it is below TRUNCATION_ERROR; past the table's end L stays at its last entry).
    """
    u = M + 1
    if after:
        margin = max(pbust, TRUNCATION_ERROR)
        while u - c < L.shape[1] - 1 and L[0, u - c] > margin:
            u += 1
    return u - b


@njit(cache=True)
def banked_table(game, goal, equal_turns, shifts, FT):  # pragma: no cover - numba
    """Fill FT[class, e, b * goal + c, r]: the win vector (X, Y, Z) of X banking goal + e, Y on b, Z on c.

    Final round: one class, Y and Z both play. Equal turns: class = X's seat; Y and Z play after
    seat 0, only Y after seat 1, nobody after seat 2 (X wins).

    ``shifts``: Y's turn depends only on M - b and M - c (no reset sends a score to 0, no cap), so
    each pair is swept once and written to every (M, b, c) that has it: (goal + width)^2 turns
    instead of width * goal^2.
    """
    n_choices = game.table.offsets.shape[0] - 1
    width = FT.shape[1]
    size = goal + width + game.last.shape[1] + 2
    rows = LastTurnRows(np.empty((size, 3)), np.empty(size, dtype=np.int64), np.empty(size),
                        np.empty((n_choices, size)))  # fmt: skip
    win = rows.win
    if shifts:
        for db in range(1, goal + width):
            for dc in range(1, goal + width):
                # every M in [goal, goal + width) with b = M - db and c = M - dc in [0, goal)
                low = max(goal, db, dc)
                high = min(goal + width, goal + db, goal + dc)
                if low >= high:
                    continue
                row(game, low, 1, low - db, low - dc, True, 0, rows)
                for M in range(low, high):
                    rest = (M - db) * goal + M - dc
                    for r in range(3):
                        FT[0, M - goal, rest, r] = win[0, r]
            if equal_turns:  # Y alone after X: c plays no part
                low = max(goal, db)
                high = min(goal + width, goal + db)
                if low >= high:
                    continue
                row(game, low, 1, low - db, 0, False, 0, rows)
                for M in range(low, high):
                    for c in range(goal):
                        rest = (M - db) * goal + c
                        FT[1, M - goal, rest, 0] = win[0, 0]
                        FT[1, M - goal, rest, 1] = win[0, 1]
                        FT[1, M - goal, rest, 2] = 0.0
                        FT[2, M - goal, rest, 0] = 1.0
                        FT[2, M - goal, rest, 1] = 0.0
                        FT[2, M - goal, rest, 2] = 0.0
        return
    for e in range(width):
        M = goal + e
        for b in range(goal):
            for c in range(goal):
                rest = b * goal + c
                row(game, M, 1, b, c, True, 0, rows)
                FT[0, e, rest, 0] = win[0, 0]
                FT[0, e, rest, 1] = win[0, 1]
                FT[0, e, rest, 2] = win[0, 2]
                if equal_turns:
                    row(game, M, 1, b, c, False, 0, rows)
                    FT[1, e, rest, 0] = win[0, 0]
                    FT[1, e, rest, 1] = win[0, 1]
                    FT[1, e, rest, 2] = 0.0
                    FT[2, e, rest, 0] = 1.0
                    FT[2, e, rest, 1] = 0.0
                    FT[2, e, rest, 2] = 0.0


def last_tables(variant: Variant, table: EffectTable, players: int, length: int) -> np.ndarray:
    """Return L[t - 1, d], d < ``length``: the last player's share at deficit d with t = 1 .. players - 1
    players sharing the lead (a tie is worth 1/(t + 1) to them when ties are shared, else nothing)."""
    from pigdice.solve.two.endgame import single_last_throw

    shared = variant.ties is TieRule.SHARED
    out = np.empty((players - 1, length))
    for t in range(1, players):
        tie = 1.0 / (t + 1) if shared else 0.0
        lastturn.last_turn_starts(length, tie, single_last_throw(variant), table, out[t - 1])
    return out


def banked_tables(variant: Variant, table: EffectTable, width: int, cap: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return (FT, L) for 3 players: the banked table over totals goal .. goal + width - 1 and the last
    player's tables (long enough for every deficit the table's totals and Y's stops reach); ``cap`` as
    in ``row``."""
    goal = variant.goal
    equal_turns = variant.endgame is Endgame.EQUAL_TURNS
    # Y's throws from totals below their stop (M + at most LAST_SLACK) stay inside L; a doubling throw
    # goes twice as far
    stretch = 2 if doubles(table) else 1
    L = last_tables(variant, table, 3, stretch * (goal + width + LAST_SLACK) + int(table.amounts.max()) + 1)
    FT = np.empty((3 if equal_turns else 1, width, goal * goal, 3))
    shifts = cap == 0 and not table.has_reset
    banked_table(last_turn_game(variant, table, L, cap), goal, equal_turns, shifts, FT)
    return FT, L


def banked_bytes(goal: int, width: int, equal_turns: bool) -> int:
    """Return the bytes of FT (``banked_tables``) for 3 players."""
    return (3 if equal_turns else 1) * width * goal * goal * 3 * 8
