"""The last turns of an n-player game, after one player banks a total at or past the goal.

Once a player X banks T >= goal, the players still owed a last turn play it in turn order: under
the final round all the others, under equal turns only the seats after X's. Nobody's choice after
that depends on anything but the best total so far M, how many players t share it (a shared tie
splits the win among everyone on M), and the scores of the players still to play.

The recursion runs over how many players are still to play, j (the mover included). Level j's
value V_j[t, M, s_1 .. s_j] is a vector of j + 1 shares: what each of the t players on the lead
gets, then each of the j players still to play, in turn order. Level 0 (nobody left) is 1/t each.
The mover of level j (score s_1) chooses how far past M to go, knowing the others come after:
ending the turn on u is worth the level below, read at

    u > M: (t = 1, lead u), the mover the one leader;  u = M, shared: (t + 1, M), the mover one of them;
    else: (t, M), the mover nothing,

and the mover's turn is swept like any turn (``row``), from the first total where holding is
provably best (the others' shares at (1, u) add up to at most the smallest bust chance: rolling
wins at most 1 - pbust) down to 0. Level 1 is the 2-player last-turn problem of
``pigdice.solve.two.lastturn`` with a tie worth 1/(t + 1) when ties are shared: L_t[M - s_1].

Without a reset or a cap a turn depends on the scores only through the deficits M - s_i, so each
level's table is indexed by those (``shifted``) and each deficit tuple is swept once; otherwise by
M - goal and the scores themselves. ``LastTurns`` holds every level below the top in one flat
array; the top level (the n - 1 players after X, or fewer under equal turns) is written straight
into ``banked_table``'s FT[0, T - goal, cell, r]: the win vector (X first, in turn order) of X
banking T with the others' scores in that cell (``banked_layout``: their flat index under the final
round; under equal turns one class per X's seat, indexed by the scores of the seats after X's alone).
The n-player kernels read it in ``banked_share``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Endgame, TieRule, Variant
from pigdice.solve.memory import banked_cells, banked_table_bytes
from pigdice.solve.n.rows import banked_layout, doubles
from pigdice.solve.positions import INDIFFERENCE, TRUNCATION_ERROR
from pigdice.solve.step import effect_step, thrown_score
from pigdice.solve.tables import EffectTable
from pigdice.solve.two import lastturn
from pigdice.solve.two.lastturn import prefer

MAX_SWEEPS = 10_000
SWEEP_TOLERANCE = 1e-16
LAST_SLACK = 512  # the last player's tables reach this far past the banked table's largest total
LEVEL_SLACK = 128  # ... and the tables of the levels between (two or more still to play) this far


class LastTurns(NamedTuple):
    """What a last turn reads (``row``): the effects, the tables of the levels below and the ending's rules.

    Level j's table (j = 0 .. levels - 1) starts at offset[j] of ``values`` and has the shape
    (tsize[j], msize[j], span[j] ** j, j + 1): t - 1, then M - goal (one entry where ``shifted``), then
    the flat index of the j scores still to play (of the deficits M - s_i where ``shifted``), then the shares.
    """

    table: EffectTable
    values: np.ndarray
    offset: np.ndarray  # int64, one entry per level
    tsize: np.ndarray
    msize: np.ndarray
    span: np.ndarray
    cells: np.ndarray  # span ** j
    shifted: np.ndarray  # 1: indexed by deficits
    goal: int
    shared: bool  # a tie on the best total is shared
    single: bool  # the last turn is one banked throw (a final roll, or Hog): k = 0 only, no hold
    pbust: float  # the smallest bust chance of a roll choice
    cap: int  # > 0: with someone still to play after, the mover holds at totals >= cap (the tests' capped game)
    clipped: np.ndarray  # int64[1]: stops cut short by the end of a table of two or more players


class LastTurnRows(NamedTuple):
    """A last turn over the turn total k (``row``): one entry per k below the top it returns."""

    win: np.ndarray  # (totals, j + 1 or more): the shares (each old leader, the mover, those after) under optimal play
    act: np.ndarray  # (totals,) int64: 0 hold, c + 1 roll with choice c
    hold: np.ndarray  # (totals,): the mover's share if holding
    rolls: np.ndarray  # (choices, totals): the mover's share if rolling with each choice


def last_turn_rows(totals: int, choices: int, shares: int = 3) -> LastTurnRows:
    """Return room for ``totals`` turn totals of a last turn with ``choices`` roll choices and ``shares`` shares."""
    return LastTurnRows(np.empty((totals, shares)), np.empty(totals, dtype=np.int64), np.empty(totals),
                        np.empty((choices, totals)))  # fmt: skip


@njit(cache=True, inline="always")
def _entry(game, j, t, M, scores, first):  # pragma: no cover - numba
    """Return where level j's shares at (t, M, scores[first .. first + j - 1]) start in ``game.values``.

    Past a table's end (a deficit or total beyond it) the last entry is read."""
    span = game.span[j]
    shifted = game.shifted[j] == 1
    m = 0 if shifted else min(max(M - game.goal, 0), game.msize[j] - 1)
    cell = 0
    for i in range(j):
        x = M - scores[first + i] if shifted else scores[first + i]
        x = min(max(x, 0), span - 1)
        cell = cell * span + x
    return game.offset[j] + (((t - 1) * game.msize[j] + m) * game.cells[j] + cell) * (j + 1)


@njit(cache=True, inline="always")
def _at_end(game, j, u, scores, first):  # pragma: no cover - numba
    """Return True if a new lead ``u`` lies at or past the end of level j's table."""
    if game.shifted[j] != 1:
        return u - game.goal >= game.msize[j] - 1
    reached = False
    for i in range(j):
        reached = reached or u - scores[first + i] >= game.span[j] - 1
    return reached


@njit(cache=True, inline="always")
def finish(game, u, M, t, j, scores, first, out):  # pragma: no cover - numba
    """Write the shares (each old leader, the mover, those after) of the level-j mover ending on ``u`` into ``out``.

    The mover's score is scores[first], those still to play after them follow it."""
    V = game.values
    after = first + 1
    if u > M:
        base = _entry(game, j - 1, 1, u, scores, after)
        out[0] = 0.0
        out[1] = V[base]
    elif u == M and game.shared:
        base = _entry(game, j - 1, t + 1, M, scores, after)
        out[0] = V[base]
        out[1] = V[base]
    else:
        base = _entry(game, j - 1, t, M, scores, after)
        out[0] = V[base]
        out[1] = 0.0
    for q in range(1, j):
        out[q + 1] = V[base + q]


@njit(cache=True)
def stop(game, j, M, scores, first):  # pragma: no cover - numba
    """Return the turn total from which the level-j mover holds: the first past M where holding is provably best.

    Alone (j = 1), any total past M wins. With others after, holding u gives them their shares at (1, u)
    and rolling wins at most 1 - pbust, so holding is best once those shares add up to at most pbust (or,
    with no bust chance at all, once they are below TRUNCATION_ERROR). A stop held back by the end of the
    level's table (two or more after) is counted in ``game.clipped``.
    """
    u = M + 1
    if j > 1:
        margin = max(game.pbust, TRUNCATION_ERROR)
        while True:
            if _at_end(game, j - 1, u, scores, first + 1):
                if j > 2:
                    game.clipped[0] += 1
                break
            base = _entry(game, j - 1, 1, u, scores, first + 1)
            loss = 0.0
            for q in range(1, j):
                loss += game.values[base + q]
            if loss <= margin:
                break
            u += 1
    return u - scores[first]


@njit(cache=True)
def row(game, j, M, t, scores, first, min_top, rows):  # pragma: no cover - numba
    """Solve the last turn of the level-j mover (score scores[first]) against the lead M held by t players;
    return the totals swept.

    Fills rows.win[k, :j + 1] (the shares under optimal play), rows.act[k] (0 hold, c + 1 roll with choice
    c), rows.hold[k] and rows.rolls[c, k] (the mover's share if holding / rolling) for k < the returned top;
    at k >= top the mover holds. ``game.single``: the last turn is one banked throw: k = 0 only, no hold.
    The rows must have room for the top (``stop``). ``game.cap`` > 0: with others after, the mover holds at
    totals >= cap. The sweep covers at least ``min_top`` totals (action values past the stop, for hints).
    """
    tb = game.table
    kinds, amounts, keeps, probs, offsets = tb.kinds, tb.amounts, tb.keeps, tb.probabilities, tb.offsets
    win, act, hold, rolls = rows.win, rows.act, rows.hold, rows.rolls
    b = scores[first]
    n_choices = offsets.shape[0] - 1
    n_out = j + 1
    out = np.empty(n_out)
    opt = np.empty((n_choices + 1, n_out))
    options = np.empty(n_choices + 1)
    if game.single:
        best = 0
        for ch in range(n_choices):
            for q in range(n_out):
                opt[ch, q] = 0.0
            for e in range(offsets[ch], offsets[ch + 1]):
                finish(game, thrown_score(kinds[e], amounts[e], keeps[e], b), M, t, j, scores, first, out)
                for q in range(n_out):
                    opt[ch, q] += probs[e] * out[q]
            rolls[ch, 0] = opt[ch, 1]
            if ch > 0 and opt[ch, 1] > opt[best, 1] + INDIFFERENCE:
                best = ch
        for q in range(n_out):
            win[0, q] = opt[best, q]
        act[0] = best + 1
        hold[0] = np.nan
        return 1
    top = stop(game, j, M, scores, first)
    if j > 1 and game.cap > 0 and game.cap - b < top:
        top = game.cap - b
    if min_top > top:
        top = min(min_top, win.shape[0])
    for k in range(top):
        for q in range(n_out):
            win[k, q] = 0.0
    sweeps = 0
    settled = False
    while True:
        sweeps += 1
        change = 0.0
        for k in range(top - 1, -1, -1):
            finish(game, b + k, M, t, j, scores, first, out)
            for q in range(n_out):
                opt[0, q] = out[q]
            hold[k] = out[1]
            options[0] = out[1]
            for ch in range(n_choices):
                for q in range(n_out):
                    opt[ch + 1, q] = 0.0
                for e in range(offsets[ch], offsets[ch + 1]):
                    p = probs[e]
                    score, total, ends = effect_step(kinds[e], amounts[e], keeps[e], b, k)
                    if not ends and total < top:
                        for q in range(n_out):
                            opt[ch + 1, q] += p * win[total, q]
                    else:  # the turn ends on ``score`` (a reset takes the game with it), or the mover holds at the stop
                        finish(game, score + total, M, t, j, scores, first, out)
                        for q in range(n_out):
                            opt[ch + 1, q] += p * out[q]
                rolls[ch, k] = opt[ch + 1, 1]
                options[ch + 1] = opt[ch + 1, 1]
            best = prefer(options, n_choices + 1, k == 0)
            change = max(change, abs(options[best] - win[k, 1]))
            for q in range(n_out):
                win[k, q] = opt[best, q]
            act[k] = best
        if tb.monotone or sweeps >= MAX_SWEEPS or (settled and change < SWEEP_TOLERANCE):
            return top
        settled = change < SWEEP_TOLERANCE


@njit(cache=True, inline="always")
def _decode(cell, span, j, coords):  # pragma: no cover - numba
    """Write the j coordinates of flat index ``cell`` (each below ``span``, the first the slowest) into ``coords``."""
    for i in range(j - 1, -1, -1):
        coords[i] = cell % span
        cell //= span


@njit(cache=True)
def fill_level(game, j, rows):  # pragma: no cover - numba
    """Fill level j's table (j >= 2) by sweeping the level-j mover at every entry; the levels below must be filled."""
    span, msize, cells = game.span[j], game.msize[j], game.cells[j]
    scores = np.empty(j, dtype=np.int64)
    coords = np.empty(j, dtype=np.int64)
    V = game.values
    for t in range(1, game.tsize[j] + 1):
        for m in range(msize):
            for cell in range(cells):
                _decode(cell, span, j, coords)
                if game.shifted[j] == 1:
                    M = game.goal
                    for i in range(j):
                        M = max(M, coords[i])
                    for i in range(j):
                        scores[i] = M - coords[i]
                else:
                    M = game.goal + m
                    for i in range(j):
                        scores[i] = coords[i]
                row(game, j, M, t, scores, 0, 0, rows)
                base = game.offset[j] + (((t - 1) * msize + m) * cells + cell) * (j + 1)
                for q in range(j + 1):
                    V[base + q] = rows.win[0, q]


@njit(cache=True)
def _put_shares(FT, e, cell, j, win):  # pragma: no cover - numba
    """Write the shares win[0, :j + 1] to FT[0, e, cell]; the players after those j play no last turn and get
    nothing."""
    for r in range(FT.shape[3]):
        FT[0, e, cell, r] = win[0, r] if r <= j else 0.0


@njit(cache=True)
def fill_banked(game, goal, classes, shifts, FT):  # pragma: no cover - numba
    """Fill FT[0, e, cell, r]: the win vector (X first, in turn order) of X banking goal + e, for each class
    (first cell, divisor, j) of ``classes`` (``banked_layout``): the j players after X play a last turn, and the
    class's cell first + head holds the vector where their scores have the flat index ``head``.

    ``shifts``: a last turn depends only on the deficits M - s_i (no reset sends a score to 0, no cap), so each
    deficit tuple is swept once and written to every (M, scores) that has it: (goal + width)^j turns instead
    of width * goal^j.
    """
    n_choices = game.table.offsets.shape[0] - 1
    width = FT.shape[1]
    n_rest = FT.shape[3] - 1
    size = goal + width + 2 * game.span.max() + game.msize.max() + 2 * goal + 2  # ``rows_extent``
    rows = LastTurnRows(np.empty((size, n_rest + 1)), np.empty(size, dtype=np.int64), np.empty(size),
                        np.empty((n_choices, size)))  # fmt: skip
    scores = np.empty(n_rest, dtype=np.int64)
    coords = np.empty(n_rest, dtype=np.int64)
    for c in range(classes.shape[0]):
        first, j = classes[c, 0], classes[c, 2]
        if j == 0:  # nobody after: X wins
            for e in range(width):
                for r in range(n_rest + 1):
                    FT[0, e, first, r] = 1.0 if r == 0 else 0.0
            continue
        if shifts:
            span = goal + width - 1  # deficits 1 .. goal + width - 1
            for cell in range(span**j):
                _decode(cell, span, j, coords)
                low, high = goal, goal + width
                for i in range(j):
                    d = coords[i] + 1
                    low = max(low, d)
                    high = min(high, goal + d)
                if low >= high:
                    continue
                for i in range(j):
                    scores[i] = low - coords[i] - 1
                row(game, j, low, 1, scores, 0, 0, rows)
                for M in range(low, high):
                    head = 0
                    for i in range(j):
                        head = head * goal + M - coords[i] - 1
                    _put_shares(FT, M - goal, first + head, j, rows.win)
            continue
        for e in range(width):
            for head in range(goal**j):
                _decode(head, goal, j, scores)
                row(game, j, goal + e, 1, scores, 0, 0, rows)
                _put_shares(FT, e, first + head, j, rows.win)


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


def _reach(variant: Variant, table: EffectTable, width: int, slack: int) -> int:
    """Return how far past 0 a table must reach for leads up to the banked table's end plus ``slack``: a
    doubling throw goes twice as far."""
    stretch = 2 if doubles(table) else 1
    return stretch * (variant.goal + width + slack) + int(table.amounts.max()) + 1


LevelDims = tuple[int, int, int, int]  # a level's (tsize, msize, span, shifted)


def _shifts(table: EffectTable, cap: int) -> bool:
    """Return True if a last turn depends on the scores only through the deficits (no reset, no cap)."""
    return cap == 0 and not table.has_reset


def level_dims(variant: Variant, table: EffectTable, players: int, width: int, cap: int, j: int) -> LevelDims:
    """Return level j's (tsize, msize, span, shifted) of ``players`` players (``LastTurns``), j >= 2."""
    reach = _reach(variant, table, width, LEVEL_SLACK)
    if _shifts(table, cap):
        return (players - j, 1, reach, 1)
    return (players - j, reach - variant.goal, variant.goal, 0)


def rows_extent(game: LastTurns) -> int:
    """Return how many turn totals past the lead a last turn's rows may need (``row``'s top and its throws)."""
    return int(2 * game.span.max() + game.msize.max() + 2 * game.goal + 2)


def last_turn_game(variant: Variant, table: EffectTable, last: np.ndarray, cap: int = 0, width: int = 0) -> LastTurns:
    """Return what the last turns of ``variant`` read: level 0, level 1 from the last player's tables ``last``
    (``last_tables``, one row per t = 1 .. players - 1) and, with 4 or more players, the levels between, swept
    here (their tables reach ``width`` plus LEVEL_SLACK past the goal). Raises BadParameterError if a stop
    lies at the end of such a table."""
    from pigdice.solve.two.endgame import bust_chance, single_last_throw

    players = last.shape[0] + 1
    dims: list[LevelDims] = [(players, 1, 1, 1), (players - 1, 1, last.shape[1], 1)]
    dims += [level_dims(variant, table, players, width, cap, j) for j in range(2, players - 1)]
    cells = [span**j for j, (_, _, span, _) in enumerate(dims)]
    sizes = [tsize * msize * cells[j] * (j + 1) for j, (tsize, msize, _, _) in enumerate(dims)]
    offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    values = np.empty(sum(sizes))
    t = np.arange(1, players + 1, dtype=np.float64)
    values[: sizes[0]] = 1.0 / t
    level1 = values[offset[1] : offset[1] + sizes[1]].reshape(players - 1, last.shape[1], 2)
    level1[:, :, 0] = (1.0 - last) / t[: players - 1, None]
    level1[:, :, 1] = last
    column = [np.array([d[i] for d in dims], dtype=np.int64) for i in range(4)]
    game = LastTurns(table, values, offset, column[0], column[1], column[2], np.array(cells, dtype=np.int64),
                     column[3], variant.goal, variant.ties is TieRule.SHARED, single_last_throw(variant),
                     bust_chance(table), int(cap), np.zeros(1, dtype=np.int64))  # fmt: skip
    if players > 3:
        rows = last_turn_rows(rows_extent(game) + variant.goal + width, table.offsets.shape[0] - 1, players)
        for j in range(2, players - 1):
            fill_level(game, j, rows)
        if game.clipped[0]:
            raise BadParameterError(
                f"{variant.name} ({variant.endgame}) for {players} players: a last turn goes further past the goal "
                "than this solver follows; try a smaller goal"
            )
    return game


def banked_table(game: LastTurns, goal: int, equal_turns: bool, shifts: bool, FT: np.ndarray) -> None:
    """Fill FT[0, e, cell, r] (``fill_banked``) in the cells of ``banked_layout``: under the final round every
    other player plays a last turn after X; under equal turns only the seats after X's."""
    layout = banked_layout(goal, FT.shape[3], equal_turns)
    fill_banked(game, goal, layout if equal_turns else layout[:1], shifts, FT)


def banked_tables(
    variant: Variant, table: EffectTable, width: int, cap: int = 0, players: int = 3
) -> tuple[np.ndarray, np.ndarray, LastTurns]:
    """Return (FT, L, game) for ``players`` players: the banked table over totals goal .. goal + width - 1, the
    last player's tables (long enough for every deficit the table's totals and the stops reach) and what the
    last turns read (``last_turn_game``); ``cap`` as in ``row``."""
    goal = variant.goal
    equal_turns = variant.endgame is Endgame.EQUAL_TURNS
    L = last_tables(variant, table, players, _reach(variant, table, width, LAST_SLACK))
    game = last_turn_game(variant, table, L, cap, width)
    FT = np.empty((1, width, banked_cells(goal, players, equal_turns), players))
    banked_table(game, goal, equal_turns, _shifts(table, cap), FT)
    return FT, L, game


def banked_bytes(goal: int, width: int, equal_turns: bool, players: int = 3) -> int:
    """Return the bytes of FT (``banked_tables``) for ``players`` players."""
    return banked_table_bytes(goal, players, equal_turns, width)


def levels_bytes(goal: int, width: int, players: int) -> int:
    """Return (a bound on) the bytes of the tables between the top level and the last player (4 or more players:
    indexed by deficits, or by goal^j scores and the totals past the goal, whichever is larger)."""
    reach = 2 * (goal + width + LEVEL_SLACK) + 13
    return sum((players - j) * max(reach**j, goal**j * reach) * (j + 1) * 8 for j in range(2, players - 1))
