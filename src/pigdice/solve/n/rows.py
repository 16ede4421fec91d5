"""The named bundles the n-player kernels pass (``pigdice.solve.n.nkernels``): numba does not bounds-check,
so every table, scratch row and result travels under a name, never in a numbered slot.

``PlayersGame`` is what every turn sweep of a solve reads; ``Mover`` whose turn it is and ``TurnRows``
the rows of one sweep; ``CycleRows``
the scratch of one cycle's policy iteration (a row per member); ``Overrides`` and ``Anchors`` what
the solve keeps across cycles and passes; ``Sweep``, ``CycleResult`` and ``LevelStats`` what the
kernels report.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pigdice.rules.effects import EffectKind
from pigdice.solve.n.mixing import WIDE_PLANS, Plans, Profile, plans_for
from pigdice.solve.tables import EffectTable

FIRST_TO_GOAL = np.zeros((0, 1, 1, 1))  # the banked table of first to the goal: banking the goal wins


def doubles(table: EffectTable) -> bool:
    """Return True if some effect of ``table`` doubles the turn total."""
    return bool(np.any(table.kinds == int(EffectKind.DOUBLE)))


def banked_layout(goal: int, players: int, equal_turns: bool) -> np.ndarray:
    """Return where each seat's class lies in the banked table: per seat of the player X who banks past the goal,
    (the first cell of its class, the divisor that turns the others' flat index into its cell, how many play
    after X).

    Under the final round every seat is one class: all n - 1 others play after X and every score counts. Under
    equal turns only the j = n - 1 - seat players after X's seat play; the seats before X's have had their turn,
    below the goal X just passed, and win nothing. So X's class holds goal^j cells, indexed by the scores of
    those j alone: the leading digits of the others' flat index (turn order from X), i.e. the index divided by
    goal^(n - 1 - j). A table per seat over every score tuple would take n times the final round's; this one
    takes the final round's plus goal^(n - 2) + ... + 1 cells.
    """
    layout = np.zeros((players, 3), dtype=np.int64)
    first = 0
    for seat in range(players):
        after = players - 1 - seat if equal_turns else players - 1
        layout[seat] = (first, goal ** (players - 1 - after), after)
        if equal_turns:
            first += goal**after
    return layout


class PlayersGame(NamedTuple):
    """What every turn sweep of an n-player solve reads: the effects, the goal, the players and the ending."""

    table: EffectTable
    goal: int
    players: int
    one_throw: bool  # one banked throw per turn (Hog)
    banked: np.ndarray  # FT[0, T - goal, cell, r] (``nkernels.banked_share``); empty first to the goal
    layout: np.ndarray  # int64 (players, 3): each seat's cells in FT (``banked_layout``)
    pbust: float  # the smallest bust chance of a roll choice
    cap: int  # > 0: the mover holds at totals >= cap (the tests' capped game)
    # how far one throw may carry a total (``nkernels._reach``): the largest amount, and whether a throw doubles
    largest_amount: int
    doubles: bool
    # first to the goal, every throw adding to the turn total or busting it, more than one throw a turn (Pig):
    # the cycle solve's sweeps take ``nkernels._sweep_adds``
    adds_only: bool
    jumps: np.ndarray  # int64, per effect where ``adds_only``: what it adds to the turn total, -1 a bust


def players_game(
    table: EffectTable,
    goal: int,
    players: int,
    one_throw: bool,
    banked: np.ndarray = FIRST_TO_GOAL,
    pbust: float = 0.0,
    cap: int = 0,
    equal_turns: bool = False,
) -> PlayersGame:
    """Return the kernels' bundle of one n-player game (first to the goal unless ``banked`` is given; its cells
    laid out for equal turns if ``equal_turns``, else for the final round)."""

    others = table.amounts[table.kinds != int(EffectKind.DOUBLE)]
    largest = int(others.max()) if len(others) else 0
    adds = table.kinds == int(EffectKind.ADD)
    plain = bool(np.all(adds | (table.kinds == int(EffectKind.BUST))) and np.all(table.amounts[adds] > 0))
    adds_only = plain and not one_throw and banked.shape[0] == 0
    jumps = np.where(adds, table.amounts, -1).astype(np.int64)  # an ADD goes on at k + amount, a BUST ends the turn
    return PlayersGame(table, int(goal), int(players), bool(one_throw), np.ascontiguousarray(banked, dtype=np.float64),
                       banked_layout(int(goal), int(players), equal_turns), float(pbust), int(cap), largest,
                       doubles(table), adds_only, jumps)  # fmt: skip


class Mover(NamedTuple):
    """The mover of one turn sweep (``nkernels._mover``)."""

    seat: int
    next_seat: int  # the seat of the next mover
    rest: int  # the flat index of the others' scores (a_1, ..., a_{n-1})
    base: int  # rest * goal: the flat index of (a_1, ..., a_{n-1}, 0), to which the mover's new score is added
    score: int  # a0


class TurnRows(NamedTuple):
    """One turn sweep's rows over the turn total k, and its scratch (``nkernels._sweep``)."""

    C: np.ndarray  # (totals, n): P_k = C_k + d_k R w'
    d: np.ndarray  # (totals,)
    act: np.ndarray  # (totals,) int64: 0 hold, c + 1 roll with choice c
    rolls: np.ndarray  # (choices, totals): the mover's value of each roll choice, or empty (not recorded)
    opt_c: np.ndarray  # (choices + 1,): each option's value to the mover, opt_c + opt_d x
    opt_d: np.ndarray
    acc: np.ndarray  # (n,)


class Sweep(NamedTuple):
    """What one turn sweep found: its length, the interval of x over which its choices stand, and its stop."""

    top: int  # turn totals swept; the mover holds from there
    lo: float
    hi: float
    truncation: float  # how far a stop past the goal that is not proved may be off (0 where it is proved)
    at_end: bool  # the stop, or a throw from below it, reached the banked table's end (a longer one may move it)


class Choices(NamedTuple):
    """Each cycle member's choices: the turn start they give (C, D), the interval of x over which they stand,
    and the x they were swept at."""

    C: np.ndarray  # (members, n)
    D: np.ndarray  # (members,)
    lo: np.ndarray
    hi: np.ndarray
    x: np.ndarray


class CycleRows(NamedTuple):
    """The scratch of one cycle's solve (``nkernels._solve_cycle``), a row per member, and the warm turn rows."""

    powers: np.ndarray  # (n + 1,) int64: goal ** q
    idxs: np.ndarray  # (members,) int64: each member's flat index
    bases: np.ndarray  # (members,) int64: the flat index of (the member's others' scores, 0)
    need: np.ndarray  # (members,) bool: the member's x left its interval, so it re-chooses
    old: np.ndarray  # (members, n): the members' vectors before this solve
    xs: np.ndarray  # (members,): each member's x, its own entry of the next member's vector
    first: np.ndarray  # (members,): the x each member is swept at first
    xmin: np.ndarray  # (members,): the range of x policy iteration visited
    xmax: np.ndarray
    chosen: Choices  # the choices the cycle's equations are solved with (C, D shared with ``profile``)
    swept: Choices  # the choices each member's latest sweep made
    best: Choices  # the evaluated profile with the smallest regret so far
    best_ws: np.ndarray  # (members, n): its vectors
    plans: Plans  # each member's plans, for a mixed equilibrium (``pigdice.solve.n.mixing``)
    profile: Profile  # the profile solved: seg, chances, turn starts (chosen.C, chosen.D), vectors ``ws``
    warm_C: np.ndarray  # (goal, totals, n): the last turn swept with each mover score (a warm start)
    warm_d: np.ndarray  # (goal, totals)
    act: np.ndarray  # (totals,) int64
    prev: np.ndarray  # (totals,) int64: the choices of the plan before (``nkernels.member_plans``)
    rolls: np.ndarray  # empty: a cycle's sweeps record no roll values
    opt_c: np.ndarray  # (choices + 1,)
    opt_d: np.ndarray


def cycle_rows(goal: int, totals: int, players: int, choices: int) -> CycleRows:
    """Return the scratch of the cycle solves of one n-player solve: ``totals`` turn totals per warm row."""
    n = players
    chosen, swept, best = (
        Choices(np.zeros((n, n)), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)) for _ in range(3)
    )
    acc = np.zeros(n)
    profile = Profile(np.zeros(n, dtype=np.int64), np.zeros(n), chosen.C, chosen.D, np.zeros((n, n)), acc,
                      np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n), np.zeros((n, n)), np.zeros(n))  # fmt: skip
    return CycleRows(
        powers=goal ** np.arange(n + 1, dtype=np.int64),
        idxs=np.zeros(n, dtype=np.int64),
        bases=np.zeros(n, dtype=np.int64),
        need=np.zeros(n, dtype=np.bool_),
        old=np.zeros((n, n)),
        xs=np.zeros(n),
        first=np.zeros(n),
        xmin=np.zeros(n),
        xmax=np.zeros(n),
        chosen=chosen,
        swept=swept,
        best=best,
        best_ws=np.zeros((n, n)),
        plans=plans_for(n, n, max(WIDE_PLANS)),
        profile=profile,
        warm_C=np.zeros((goal, totals, n)),
        warm_d=np.zeros((goal, totals)),
        act=np.zeros(totals, dtype=np.int64),
        prev=np.zeros(totals, dtype=np.int64),
        rolls=np.zeros((0, 0)),
        opt_c=np.zeros(choices + 1),
        opt_d=np.zeros(choices + 1),
    )


class Overrides(NamedTuple):
    """The turn starts of unsettled cycles where the mover does not play the sweep at their own x, a row each:
    they play the sweep at ``x``, or with chance ``chance`` the one at ``x_mixed`` (``nplayer.Override``)."""

    state: np.ndarray  # int64: seat * goal^n + flat index
    x: np.ndarray
    x_mixed: np.ndarray
    chance: np.ndarray


def overrides_for(rows: int) -> Overrides:
    """Return room for ``rows`` overrides."""
    return Overrides(np.zeros(rows, dtype=np.int64), np.zeros(rows), np.zeros(rows), np.zeros(rows))


class Anchors(NamedTuple):
    """Where each cycle member's pure choices stood last pass (solves with resets; empty without)."""

    x: np.ndarray  # (seats, goal^n): an x inside their interval, nan where the last pass did not settle on them
    flips: np.ndarray  # (seats, goal^n): how often the member left them for a small gain (``nkernels.KEEP_GAIN``)


NO_ANCHORS = Anchors(np.zeros((0, 0)), np.zeros((0, 0)))  # solves without resets (one pass) keep no anchors


def anchors_for(seats: int, states: int) -> Anchors:
    """Return anchors for ``states`` score tuples per seat, none set yet."""
    return Anchors(np.full((seats, states), np.nan), np.zeros((seats, states)))


class CycleResult(NamedTuple):
    """What solving one cycle met (``nkernels._solve_cycle``)."""

    sweeps: int  # turn sweeps it took
    change: float  # the largest change of a value
    residual: float  # the largest residual of the cycle's equations
    regret: float  # 0 if settled, else the smallest regret of a profile evaluated
    written: int  # overrides it needed (rows past the array's are counted, not written)
    truncation: float  # the largest truncation of a stop past the goal
    at_end: bool  # a stop, or a throw from below it, reached the banked table's end
    mixed: bool  # the equilibrium mixes
    mix_gain: float  # the most a mover could gain by another plan where it mixes or choices were kept
    kept: bool  # the choices of the pass before were kept


class LevelStats(NamedTuple):
    """What solving the cycles of some score sums met (``nkernels.solve_levels``), and the pass's sums of it."""

    change: float  # the largest change of a value
    residual: float  # the largest cycle residual
    cycles: int
    sweeps: int  # turn sweeps
    regret: float  # the largest regret of a cycle left unsettled
    unsettled: int  # cycles left unsettled
    written: int  # overrides written so far in the pass
    truncation: float  # the largest truncation of a stop past the goal
    at_end: bool  # a stop, or a throw from below it, reached the banked table's end
    mixed: int  # cycles whose equilibrium mixes
    mix_gain: float  # the most a mover of one, or of a kept cycle, could gain by another plan
    kept: int  # cycles whose choices of the pass before were kept


NOTHING_SOLVED = LevelStats(0.0, 0.0, 0, 0, 0.0, 0, 0, 0.0, False, 0, 0.0, 0)


def merged(before: LevelStats, level: LevelStats) -> LevelStats:
    """Return the pass's figures after ``before`` and then ``level``: sums, largest values, the latest count written."""
    return LevelStats(
        max(before.change, level.change),
        max(before.residual, level.residual),
        before.cycles + level.cycles,
        before.sweeps + level.sweeps,
        max(before.regret, level.regret),
        before.unsettled + level.unsettled,
        level.written,
        max(before.truncation, level.truncation),
        before.at_end or level.at_end,
        before.mixed + level.mixed,
        max(before.mix_gain, level.mix_gain),
        before.kept + level.kept,
    )
