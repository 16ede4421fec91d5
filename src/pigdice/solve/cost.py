"""The cost model: can the exact perfect player of a game be solved here, and how big is that solve.

An exact solve keeps a value per score tuple, ``goal ** players`` of them, and its time grows with
that count (``pigdice.solve.memory`` says how many bytes it needs). Two kinds of game cost more per
tuple: where a roll can reset a score the solve repeats its passes until the reset values settle,
and with 3+ players under a final round or equal turns a turn total that can double or fall (Pig
Dice) makes the last turns run far past the goal and every turn sweep repeat. ``SolveBounds`` sets
a ceiling of score tuples for each kind; ``exact_refusal`` is the one answer to "is it exact here?"
that the web server asks (the CLI and the designer may ask it too).

Measured on one core (the web's default bounds): 10**6 tuples plays 3 players to 100 exactly (first
to the goal: 24 MB kept, ~0.2 GB while solving, 4-10 s, ~45 s for Hog with rerolls; a final round
39 MB and ~12 s; equal turns 118 MB and ~32 s) and 4 players to 31; 4 players to 100 would be 10**8
(~3 GB, ~6 minutes). 3-player Two-Dice Pig (resets) takes ~8 s to 50 and over 5 minutes to 100;
3-player Pig Dice with a final round ~1 minute to 20, growing as the cube of the goal.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from pigdice.rules.variant import Endgame, Variant
from pigdice.solve.exact import HANDED_BYTES, HERD_GROUP, exactness, herd_group_refusal
from pigdice.solve.memory import (
    available_bytes,
    banked_table_bytes,
    budget_bytes,
    herd_group_bytes,
    players_values_bytes,
    solver_bytes,
    values_bytes,
)
from pigdice.solve.tables import effect_table, is_banded

# CPU seconds per score tuple and goal point (a turn sweeps up to ``goal`` totals) of a first-to-goal solve
# of Pig, by players, measured on a 2-core AMD EPYC (November 2026): 2 players to 100 in 4 ms and to 1000 in
# 3.1 s; 3 players to 100 in 4.6 s; 4 players to 100 in 318 s (docs/benchmarks.md).
SECONDS_PER_TUPLE_POINT = {2: 4e-9, 3: 46e-9, 4: 32e-9, 5: 90e-9}
# What multiplies it, fitted to the same measurements: a final round or equal turns add the last turns;
# resets repeat the passes (9 for 2 players, up to 19 for 3); turn totals that can fall (Pig Dice) sweep every
# turn to a fixed point, and under an ending far past the goal; Swine Herd solves a stage game per tuple.
ENDING_FACTOR = {Endgame.FIRST_TO_GOAL: 1.0, Endgame.FINAL_ROUND: 2.0, Endgame.EQUAL_TURNS: 5.0}
RESET_FACTOR = {2: 18.0, 3: 25.0}
FALLING_FACTOR = 55.0
# ... except 2 players first to the goal, whose turns are solved in one elimination (``two/banded.py``):
# Pig Dice to 100 in 26 ms, Knizia's Big Pig 26 ms, Pig 3 ms in the same run (bench/bench_solve.py).
# Under a final round the elimination solves the turns too, but the last-turn table (to 512 totals past
# the goal) and a second solve as it doubles keep Pig Dice's own game to 100 at 0.4 s: FALLING_FACTOR fits it.
BANDED_FACTOR = 8.0
FAR_FACTOR = 4.0
FIRST_BANKED_WIDTH = 64  # totals past the goal an n-player ending's banked table covers at first (nplayer.FIRST_WIDTH)
HERD_FACTOR = 150.0
ESTIMATE_SPREAD = 6.0  # rough: the time given spans this factor either way (every measured case falls inside)


@dataclass(frozen=True)
class SolveBounds:
    """The largest exact solves allowed, in score tuples (``goal ** players``), by kind of game."""

    max_states: int = 1_000_000  # any game
    max_reset_states: int = 125_000  # games where a roll can reset a score
    max_far_states: int = 8_000  # 3+ players, a last round, turn totals that can double or fall


@dataclass(frozen=True)
class SolveCost:
    """How big the exact solve of a game is: its score tuples, and what makes each of them cost more."""

    states: int  # goal ** players: the values the solve keeps (and its time grows with)
    resets: bool  # a roll can reset a score: the passes repeat until the reset values settle
    reaches_far: bool  # 3+ players, a last round and turn totals that double or fall: long, repeated sweeps


@functools.lru_cache(maxsize=256)
def has_reset(variant: Variant) -> bool:
    """Return True if a roll of ``variant`` can reset a score (its exact solve then repeats passes)."""
    return effect_table(variant).has_reset


def tables_reach_far(variant: Variant) -> bool:
    """Return True if the exact solve of ``variant`` follows long totals past the goal: an ending (final round,
    equal turns) where the turn total can double or fall (Pig Dice), so the sweeps there are long and repeated."""
    return variant.endgame is not Endgame.FIRST_TO_GOAL and not effect_table(variant).monotone


def solve_cost(variant: Variant, players: int) -> SolveCost:
    """Return the size of the exact solve of ``variant`` with ``players`` players."""
    states = variant.goal**players
    if variant.is_simultaneous:  # Swine Herd: one shared die, no reset, and nobody's turn to run past the goal
        return SolveCost(states, resets=False, reaches_far=False)
    return SolveCost(states, resets=has_reset(variant), reaches_far=players > 2 and tables_reach_far(variant))


def largest_exact_goal(max_states: int, players: int) -> int:
    """Return the largest goal whose exact solve for ``players`` players has at most ``max_states`` score tuples."""
    goal = round(max_states ** (1 / players))
    while goal > 0 and goal**players > max_states:
        goal -= 1
    while (goal + 1) ** players <= max_states:
        goal += 1
    return goal


def exact_refusal(variant: Variant, players: int, bounds: SolveBounds, where: str = "this server") -> str | None:
    """Return why the exact perfect player of ``variant`` with ``players`` players is not played within
    ``bounds`` (no exact solver, or a solve past the bound for its kind), in words naming ``where`` the bounds
    hold; None if it is played exactly."""
    reason = exactness(variant, players)
    if reason is not None:
        return reason
    cost = solve_cost(variant, players)
    if cost.states > bounds.max_states:
        limit = largest_exact_goal(bounds.max_states, players)
        return f"{where} solves {players}-player games exactly up to goal {limit}"
    if cost.resets and cost.states > bounds.max_reset_states:
        limit = largest_exact_goal(bounds.max_reset_states, players)
        return f"{where} solves {players}-player games whose rolls can reset a score exactly up to goal {limit}"
    if cost.reaches_far and cost.states > bounds.max_far_states:
        limit = largest_exact_goal(bounds.max_far_states, players)
        return (
            f"{where} solves {players}-player games with a last round whose turn totals can double or fall "
            f"exactly up to goal {limit}"
        )
    return None


Need = Callable[[int], int]


def memory_need(variant: Variant, players: int) -> Need:
    """Return the bytes the exact solve of ``variant`` with ``players`` players needs at least, as a function of
    the goal (the values every solver keeps; the solvers check their own peak exactly before they allocate)."""
    if players > 2 and variant.endgame is not Endgame.FIRST_TO_GOAL and not variant.is_simultaneous:
        # a table of values per seat under equal turns, and the banked table at its first width
        equal_turns = variant.endgame is Endgame.EQUAL_TURNS
        seats = players if equal_turns else 1
        return lambda goal: (
            seats * players_values_bytes(goal, players)
            + banked_table_bytes(goal, players, equal_turns, FIRST_BANKED_WIDTH)
        )
    if players > 2 and variant.is_simultaneous:  # the equilibrium's tables and its best responses' (exploitability)
        return lambda goal: 2 * herd_group_bytes(goal)
    if players > 2:
        return lambda goal: players_values_bytes(goal, players)
    if variant.is_simultaneous:  # stage values, sit chances and the lone roller's values: goal x goal x goal
        return lambda goal: 5 * 8 * goal * goal * (goal + 1)
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return solver_bytes
    seats = 2 if variant.endgame is Endgame.EQUAL_TURNS else 1  # a table of values per seat with a last turn
    return lambda goal: seats * values_bytes(goal)


@dataclass(frozen=True)
class SolveEstimate:
    """What an exact solve would take, told before it starts (``pigdice solve --dry-run``)."""

    states: int  # score tuples: goal ** players
    memory: int  # bytes the solve needs at least
    budget: int  # bytes pigdice allows itself here (half of what is available)
    seconds: tuple[float, float]  # a rough range of CPU seconds on a machine like the one measured
    exact: str | None  # None if an exact solver plays this game, else what is missing

    @property
    def fits(self) -> bool:
        """Return whether the solve's memory fits this machine's budget."""
        return self.memory <= self.budget


def _falling_factor(variant: Variant, players: int) -> float:
    """Return how much longer a solve takes because turn totals can fall: 1 if they cannot."""
    table = effect_table(variant)
    if table.monotone:
        return 1.0
    if players == 2 and variant.endgame is Endgame.FIRST_TO_GOAL and is_banded(table):
        return BANDED_FACTOR
    return FALLING_FACTOR


def estimate(variant: Variant, players: int) -> SolveEstimate:
    """Return what the exact solve of ``variant`` with ``players`` players would take here, without solving."""
    cost = solve_cost(variant, players)
    seconds = cost.states * variant.goal * SECONDS_PER_TUPLE_POINT[min(max(players, 2), 5)]
    if variant.is_simultaneous:
        seconds *= HERD_FACTOR
    else:
        seconds *= ENDING_FACTOR.get(variant.endgame, ENDING_FACTOR[Endgame.EQUAL_TURNS])
        seconds *= RESET_FACTOR[min(players, 3)] if cost.resets else 1.0
        seconds *= _falling_factor(variant, players)
        seconds *= FAR_FACTOR if cost.reaches_far else 1.0
    spread = (seconds / ESTIMATE_SPREAD, seconds * ESTIMATE_SPREAD)
    memory = memory_need(variant, players)(variant.goal)
    # 3-player Swine Herd: the solve asked about is the exact one, whether or not play has it at hand yet
    herd_group = variant.is_simultaneous and players == HERD_GROUP
    reason = herd_group_refusal(variant, players) if herd_group else exactness(variant, players)
    return SolveEstimate(cost.states, memory, budget_bytes(available_bytes()), spread, reason)


# A solve whose upper end is at most this many seconds of CPU may run in the caller's process once its kernels are
# compiled (``exact.solve_in_worker``): a worker costs a second Python with numba (0.3 s of CPU for Pig to 100,
# whose solve takes 0.01 s), and Ctrl-C waits at most this long for such a solve.
SHORT_SOLVE_SECONDS = 1.0


def is_short(variant: Variant, players: int, max_bytes: int = HANDED_BYTES) -> bool:
    """Return True if the exact solve of ``variant`` is short and small enough to run in the caller's process: its
    estimate's upper end within SHORT_SOLVE_SECONDS, its memory within ``max_bytes``."""
    guess = estimate(variant, players)
    return guess.seconds[1] <= SHORT_SOLVE_SECONDS and guess.memory <= max_bytes


# The distributed n-player solve (``pigdice.solve.n.distributed``): score tuples per Dask task (about
# 1-2 s of 5-player Pig on one core), the memory a worker keeps of its own (Python, numba and the kernels'
# rows, measured 0.26 GiB at 5 players), and what a task costs the scheduler besides the solve.
TASK_STATES = 400_000
WORKER_BASE_BYTES = 300 << 20
TASK_OVERHEAD_SECONDS = 0.05
DEFAULT_WORKERS = 2


@dataclass(frozen=True)
class DistributedEstimate:
    """What the distributed solve of a first-to-goal game would take (``pigdice solve --dry-run``, 5+ players)."""

    workers: int
    store_bytes: int  # the values on disk, in a directory every worker reaches
    worker_bytes: int  # what each worker keeps of its own; the store's pages come on top (shared on one machine)
    tasks: int  # tasks of one pass (a sum's tasks finish before the next lower sum starts)
    seconds: tuple[float, float]  # a rough range of wall-clock seconds with ``workers`` workers


def distributed_estimate(variant: Variant, players: int, workers: int = DEFAULT_WORKERS) -> DistributedEstimate:
    """Return what solving ``variant`` for ``players`` players on ``workers`` Dask workers would take, roughly."""
    told = estimate(variant, players)
    sums = players * (variant.goal - 1) + 1
    tasks = max(1, told.states // TASK_STATES) + sums
    low, high = told.seconds
    overhead = tasks * TASK_OVERHEAD_SECONDS
    store = players_values_bytes(variant.goal, players, players)  # the store keeps every entry
    return DistributedEstimate(
        workers, store, WORKER_BASE_BYTES, tasks, (low / workers + overhead, high / workers + overhead)
    )
