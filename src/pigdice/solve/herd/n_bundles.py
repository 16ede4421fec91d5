"""The named bundles the 3-player Swine Herd kernels share: the game's tables, a turn's rows, how its stages are played.

Numba does not bounds-check, so every array travels under a name (never in a numbered slot):
``Game`` holds the die and the tables every kernel reads, ``TurnRows`` and ``PairRows`` the rows of
one backward sweep over the turn total, ``StageScratch`` one stage game's working space, ``Plays``
how each stage of a turn is played, ``Sweep`` what a turn start's iteration carries (the game, the
turn's rows and plays),
``StoredProfiles`` the profiles the repaired turn starts keep, ``Decisions`` a list of decisions
(stage, tie class) and ``Statistics`` the counts of a solve. The constructors are numba functions,
so the kernels and the Python side build them alike.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

SELECTED, STICKY, FORCED = 0, 1, 2  # how a stage of a turn is played (``Plays.mode``)


class Game(NamedTuple):
    """The shared die and the tables of a solve: the equilibrium's and, in the best-response pass, the deviators'.

    The best-response tables (B*) are 1-sized stand-ins in the solve; component i of a B* table is
    player i's best-response share against the others' equilibrium play.
    """

    goal: int
    amounts: np.ndarray  # int64: what each adding face adds (each >= 1)
    probs: np.ndarray  # float64: each adding face's chance
    pbust: float  # the chance of a bust
    PR: np.ndarray  # (2, 4 G + 1, 2): (win, tie) of a lone roller rolling on against k seated past the goal
    V: np.ndarray  # (G, G, G, 3): shares at each turn start (every permutation stored)
    R: np.ndarray  # (pairs, G (G - 1) / 2, 3): the lone roller's rows (``n_lone``)
    W: np.ndarray  # (pairs, G, G, 3): the pair rows, stored for the stage that enters them (``n_pairs``)
    BV: np.ndarray  # best-response shares at each turn start, as V
    BR: np.ndarray  # ... of the lone roller's rows, as R
    BW: np.ndarray  # ... of the pair rows, as W


class TurnRows(NamedTuple):
    """The rows of one three-standing turn's sweep, by turn total t (row 0: the turn start, before the first roll).

    At t >= 1 the values at the decision after a roll to t; at row 0 the whole turn's: D[0] = F(x),
    C[0] = c and E[0] = e, with F(x) = c + (1 - e) x (and BC[0], BE[0] per deviator).
    """

    D: np.ndarray  # (size, 3) value
    C: np.ndarray  # (size, 3) payoff of the exits (someone banks) from here
    E: np.ndarray  # (size,) chance that the turn ends with a banked score from here
    S: np.ndarray  # (size, 3) the stage's sit chances
    BD: np.ndarray  # (size, 3) deviator i's best-response value (component i)
    BC: np.ndarray  # (size, 3) ... its exit payoff
    BE: np.ndarray  # (size, 3) ... its exit chance
    U: np.ndarray  # (size, 8, 3) each stage's payoffs of the profiles with a sitter (1..7), kept for turn start ``key``
    key: np.ndarray  # (3,) int64: the sorted turn start whose payoffs U holds (-1: none yet)


class PairRows(NamedTuple):
    """The rows of one pair sweep (seated c, a <= b standing), by turn total t; components (c, a, b)."""

    D: np.ndarray  # (size, 3) value at the decision after a roll to t
    W: np.ndarray  # (size, 3) value with both standing at t, about to roll
    S: np.ndarray  # (size, 2) a's and b's sit chances
    BD: np.ndarray  # (size, 3) best-response values, as D (component i: player i deviates)
    BW: np.ndarray  # (size, 3) ... as W


class StageScratch(NamedTuple):
    """One stage game's working space, reused stage after stage; a profile's bit j is set when player j sits.

    A pair stage (two standing) uses profiles 0..3 of U and BU.
    """

    U: np.ndarray  # (8, 3) each player's payoff of each pure profile
    BU: np.ndarray  # (8, 3) ... from the best-response tables
    Y: np.ndarray  # (3,) the payoff if everyone standing stays
    sig: np.ndarray  # (3,) the stage's sit chances
    best: np.ndarray  # (3,) each deviator's best-response value at the stage
    alone: np.ndarray  # (3,) the chance that every player but the deviator stays
    sits: np.ndarray  # (3,) 1.0 if the deviator's best response sits (ties sit)
    tmp: np.ndarray  # (3,) shares of one state, before they are moved to their components


class Plays(NamedTuple):
    """How each stage t of a turn is played, and the gains the sweep found there.

    ``mode[t]``: SELECTED (the selected equilibrium), STICKY (``sit[t]``: the profile to keep while it
    is an equilibrium) or FORCED (the players in ``mask[t]`` sit with chances ``sit[t]``, the others
    play the game left to them). Except at SELECTED stages the sweep writes each player's gain from
    sitting to ``gain[t]``.
    """

    mode: np.ndarray  # (size,) int64
    mask: np.ndarray  # (size,) int64
    sit: np.ndarray  # (size, 3)
    gain: np.ndarray  # (size, 3)


class Sweep(NamedTuple):
    """What a turn start's iteration carries: the game, the turn's rows and how its stages are played.

    The per-sweep kernel (``n_turns.turn``) takes the three apart: a nested bundle passed to a kernel
    called once per sweep cost 10% of a solve.
    """

    game: Game
    rows: TurnRows
    plays: Plays


class StoredProfiles(NamedTuple):
    """The profiles kept for the turn starts the sticky or forced search settled (the best responses read them)."""

    span: np.ndarray  # (G, G, G, 2) int64: (first row, rows) of a sorted turn start's profile
    stage: np.ndarray  # (G^3,) int64: each row's stage t
    sit: np.ndarray  # (G^3, 3): each row's three sit chances


class Decisions(NamedTuple):
    """Decisions of a turn, each a stage and a tie class (the mask of a player and the players tied with it)."""

    stage: np.ndarray  # int64
    mask: np.ndarray  # int64


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
    traced: int  # turn starts settled by tracing their logit equilibria (``n_tracing``)
    rows: int  # stored profile rows (stages of the sticky and forced turn starts)

    @property
    def mixed_share(self) -> float:
        """Return the share of all stage games (three- and two-standing) whose equilibrium mixes."""
        total = self.stages3 + self.stages2
        return (self.mixed3 + self.mixed2) / total if total else 0.0


@njit(cache=True)
def row_count(goal, amounts):  # pragma: no cover - numba
    """Return the rows a sweep over the turn total needs: every total up to the goal and one roll past it."""
    return goal + amounts.max() + 2


@njit(cache=True)
def new_turn_rows(size):  # pragma: no cover - numba
    """Return zeroed rows for a three-standing turn's sweep."""
    return TurnRows(
        np.zeros((size, 3)),
        np.zeros((size, 3)),
        np.zeros(size),
        np.zeros((size, 3)),
        np.zeros((size, 3)),
        np.zeros((size, 3)),
        np.zeros((size, 3)),
        np.zeros((size, 8, 3)),
        np.full(3, -1, dtype=np.int64),
    )


@njit(cache=True)
def new_pair_rows(size):  # pragma: no cover - numba
    """Return zeroed rows for a pair sweep."""
    three = (size, 3)
    return PairRows(np.zeros(three), np.zeros(three), np.zeros((size, 2)), np.zeros(three), np.zeros(three))


@njit(cache=True)
def new_scratch():  # pragma: no cover - numba
    """Return a stage game's zeroed working space."""
    return StageScratch(
        np.zeros((8, 3)),
        np.zeros((8, 3)),
        np.zeros(3),
        np.zeros(3),
        np.zeros(3),
        np.zeros(3),
        np.zeros(3),
        np.zeros(3),
    )


@njit(cache=True)
def new_plays(size):  # pragma: no cover - numba
    """Return plays with every stage SELECTED."""
    return Plays(
        np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64), np.zeros((size, 3)), np.zeros((size, 3))
    )


@njit(cache=True)
def new_sweep(game):  # pragma: no cover - numba
    """Return a turn's sweep over ``game`` with fresh rows and plays."""
    size = row_count(game.goal, game.amounts)
    return Sweep(game, new_turn_rows(size), new_plays(size))


@njit(cache=True)
def new_decisions(size):  # pragma: no cover - numba
    """Return room for ``size`` decisions."""
    return Decisions(np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64))


@njit(cache=True)
def has_decision(decisions, count, t, mask):  # pragma: no cover - numba
    """Return True if the first ``count`` decisions hold the one at stage t with tie class ``mask``."""
    for r in range(count):  # noqa: SIM110 - a plain loop for numba
        if decisions.stage[r] == t and decisions.mask[r] == mask:
            return True
    return False


@njit(cache=True)
def clear_plays(plays):  # pragma: no cover - numba
    """Set every stage of ``plays`` to SELECTED, with nothing kept or forced."""
    plays.mode[:] = SELECTED
    plays.mask[:] = 0
    plays.sit[:] = 0.0
    plays.gain[:] = 0.0


@njit(cache=True)
def copy_plays(plays):  # pragma: no cover - numba
    """Return a copy of ``plays``."""
    return Plays(plays.mode.copy(), plays.mask.copy(), plays.sit.copy(), plays.gain.copy())


@njit(cache=True)
def assign_plays(target, source):  # pragma: no cover - numba
    """Copy ``source`` into ``target``."""
    target.mode[:] = source.mode
    target.mask[:] = source.mask
    target.sit[:] = source.sit
    target.gain[:] = source.gain


@njit(cache=True)
def load_profile(s, stored, plays):  # pragma: no cover - numba
    """Set ``plays`` to the stored profile of the sorted turn start s (forced at every stage), else all SELECTED."""
    clear_plays(plays)
    start = stored.span[s[0], s[1], s[2], 0]
    for r in range(start, start + stored.span[s[0], s[1], s[2], 1]):
        t = stored.stage[r]
        plays.mode[t] = FORCED
        plays.mask[t] = 7
        for j in range(3):
            plays.sit[t, j] = stored.sit[r, j]
