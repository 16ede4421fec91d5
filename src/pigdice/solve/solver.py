"""Solve a variant: the 2-player policy that maximises the probability of winning."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, NamedTuple, Protocol, TypeVar

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.layout import SWEEP_GENERAL
from pigdice.solve.memory import MiB, check_memory, solver_bytes
from pigdice.solve.policy import Policy
from pigdice.solve.policyfile import cache_dir, cache_path, solvable
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.solve.two import banded, dicechoice, diesweep, holdspread, rollhold
from pigdice.solve.two.bundles import FIRST_TO_GOAL_ENDS, Ends, Game, game_of

__all__ = ["cache_dir", "cache_path", "solvable"]  # their home is policyfile (no numba); solver re-exports them

TOLERANCE = 1e-12
MAX_PASSES = 10_000
# Spread passes (``holdspread``) between full passes run until they move the reset values by at
# most this share of the tolerance, or this many passes (each shrinks their error 20-50 fold).
SETTLED_SHARE = 1e-2
MAX_SPREAD_PASSES = 40
# ... or, if more, until they move by at most this share of how far the last pass moved them: the next
# pass judges them, and a pass that still changes choices moves them more than settling finer would.
SETTLE_BELOW_MOVE = 1e-3
# A full pass records where its turns bank (to settle the reset values after it) once the pass
# before it moved them by less than this; the passes after it are checked (``holdspread.check_pair``:
# only pairs whose choices may flip are swept). Two-Dice Pig, same run: goal 100 1e-4 29.9 ms (6
# passes), 1e-2 27.4 ms (6), 3e-2 26.9 ms (6); goal 200 1e-4 258 ms (8), 1e-2 273 ms (7), 3e-2 314 ms (7).
SPREAD_BELOW = 1e-2
# ... and the first pass records one too, whatever its reset values: spread passes then evaluate its policy
# (policy iteration: evaluate, then improve), and the checked pass after them sweeps only the pairs whose
# choices may flip (at goal 100 about 65% of them, as the first pass's values were 3e-3 off), in place of
# the two full passes that came before recording. Same process, runs alternating, goal 100 (load 4-7):
# Two-Dice Pig 6 -> 4 passes, 20.4 -> 12.7 ms; Big Pig reset 5 -> 4, 30.0 -> 19.3 ms; Piggy Six 6 -> 4,
# 20.5 -> 13.7 ms (Pig 1.9 ms); 0.3-0.9x the time at every goal from 2 to 250, values within 3e-13.
RECORD_FIRST_PASS = True
# A full pass starts each pair from the level above (not from the last pass's values) while the
# pass before it moved the reset values by more than this: the pairs then settle in fewer rounds.
FRESH_ABOVE = 1e-4
# The in-process policy cache keeps policies up to this many bytes of arrays (values and cached
# turn rows), dropping the least recently used first; set it (or PolicyCache(max_bytes)) to change.
# 256 MiB holds Pig's goal 1000 policy (8 MB) 30 times over, or hundreds of goal 100 ones.
MEMORY_CACHE_BYTES = 256 * MiB
# The level rows of a fast sweep's solve to a goal up to this are kept for the next solve of the same
# game (at most KEPT_ROWS of them): every sweep writes a row's totals below the goal before reading
# them and never writes the wins padded past it. Made afresh, they cost a Pig solve at goal 100
# 0.03-0.2 ms of its 1.8 (a busy machine's caches run cold).
KEEP_ROWS_GOAL = 300
KEPT_ROWS = 8
Progress = Callable[[float, str], None]


class Anderson:
    """Anderson acceleration of the fixed point w = F(w) of the reset values w_j = V[j, 0].

    Resets make every state depend on V[j, 0] at low score sums, so passes repeat; each pass
    maps its input w to F(w). Mixing the last few (w, F(w)) pairs by least squares (Walker &
    Ni 2011, type II) cuts the number of passes; the final pass is still a plain one, and
    convergence is judged on it, so the answer does not depend on the acceleration.
    """

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self.inputs: list[np.ndarray] = []
        self.outputs: list[np.ndarray] = []
        self.last_input: np.ndarray | None = None

    def next(self, output: np.ndarray) -> np.ndarray:
        """Return the next input given the latest pass output F(w) for input w."""
        if self.last_input is None:
            self.last_input = output.copy()
            return output.copy()
        self.inputs.append(self.last_input.copy())
        self.outputs.append(output.copy())
        self.inputs = self.inputs[-(self.memory + 1) :]
        self.outputs = self.outputs[-(self.memory + 1) :]
        residuals = [o - i for i, o in zip(self.inputs, self.outputs, strict=True)]
        if len(residuals) < 2:
            guess = output.copy()
        else:
            d_res = np.stack([residuals[n + 1] - residuals[n] for n in range(len(residuals) - 1)], axis=1)
            d_out = np.stack([self.outputs[n + 1] - self.outputs[n] for n in range(len(residuals) - 1)], axis=1)
            gamma, *_ = np.linalg.lstsq(d_res, residuals[-1], rcond=None)
            guess = output - d_out @ gamma
            guess = np.clip(guess, 0.0, 1.0)
        self.last_input = guess.copy()
        return guess


def fixed_point(
    one_pass: Callable[[int], float],
    exact_in_one: bool,
    resets: Sequence[np.ndarray],
    tolerance: float,
    failure: str,
    settle: Callable[[], bool] | None = None,
) -> tuple[int, float]:
    """Repeat ``one_pass(pass number) -> residual`` below ``tolerance``; return (passes, residual).

    ``exact_in_one``: the first pass is final. Between passes the reset values (views into the
    value arrays of any shape, e.g. V[:, 0]) are moved together by Anderson acceleration, unless
    ``settle()`` moved them itself (it returns True then). ``failure`` is formatted with
    the residual and the passes if the tolerance is never reached.
    """
    accelerator = Anderson(memory=4)
    passes = 0
    residual = float("inf")
    while passes < MAX_PASSES:
        passes += 1
        residual = one_pass(passes)
        if exact_in_one or residual < tolerance:
            break
        if settle is not None and settle():
            accelerator = Anderson(memory=4)  # its pairs came before the reset values jumped
            continue
        if resets:
            mixed = accelerator.next(np.concatenate([view.ravel() for view in resets]))
            start = 0
            for view in resets:
                view[...] = mixed[start : start + view.size].reshape(view.shape)
                start += view.size
    if residual >= tolerance:
        raise BadParameterError(failure.format(residual=residual, passes=passes))
    return passes, residual


def one_pass_is_exact(variant: Variant, table: EffectTable) -> bool:
    """Return True if one level pass solves ``variant`` exactly: no resets (Hog's pairs iterate within the pass)."""
    return not table.has_reset


def settle_resets(V: np.ndarray, spread: holdspread.Spread, tolerance: float) -> bool:
    """Settle the reset values V[:, 0] under the last full pass's policy by spread passes; False if it has none.

    The spread passes evaluate that policy exactly (``holdspread``); Anderson acceleration mixes
    their reset values, as between full passes, until they move by at most ``SETTLED_SHARE``
    of ``tolerance`` (the solve passes a larger one after a pass that moved them far). The
    pass that follows judges the result.
    """
    if not holdspread.usable(spread):
        return False
    accelerator = Anderson(memory=4)
    for _ in range(MAX_SPREAD_PASSES):
        before = V[:, 0].copy()
        holdspread.spread_pass(V, spread)
        if float(np.max(np.abs(V[:, 0] - before))) <= SETTLED_SHARE * tolerance:
            break
        V[:, 0] = accelerator.next(V[:, 0].copy())
    return True


class Sweeps(NamedTuple):
    """What a solve of turn-start values took: passes, Bellman residual, truncation past the goal."""

    passes: int
    residual: float
    truncation: float


def solve_values(
    variant: Variant,
    table: EffectTable,
    seats: Sequence[np.ndarray],
    ends: Ends,
    tolerance: float = TOLERANCE,
    progress: Progress | None = None,
) -> Sweeps:
    """Solve the 2-player turn-start values in place: one array, or one per seat (equal turns).

    ``seats`` holds V (the seat does not matter) or V0, V1 (the values of seat 0 and seat 1 to
    move, pairs (V0[i, j], V1[j, i])). ``ends`` says what banking past the goal is worth
    (``FIRST_TO_GOAL_ENDS``, or the last-turn tables of ``pigdice.solve.two.endgame``).
    """
    goal = variant.goal
    va, vb = seats[0], seats[-1]
    same = len(seats) == 1
    top = 2 * goal - 2
    chunk = max(1, top // 100) if goal >= 300 else top + 1
    truncation = 0.0
    game = game_of(goal, table, ends)
    one_throw = variant.decision is Decision.DICE_PER_TURN
    rows = None if one_throw else _taken_rows(game)
    # turns whose rolls can lower the total (Pig Dice) are solved exactly by elimination, not swept to a fixed point
    band_rows = banded.level_rows(game) if rows is not None and banded.fits(game) else None
    exact = one_pass_is_exact(variant, table)
    spreads = same and rows is not None and holdspread.spreadable(game)
    spread: holdspread.Spread | None = None  # allocated by the first pass that records one
    checks: holdspread.Checks | None = None  # the values the spread was recorded at: later passes check against them

    moved_last = float("inf")  # how far the last pass moved the reset values
    spread_filled = False  # the last pass recorded where its turns bank

    # A pass is a Gauss-Seidel sweep over all score sums, high sums first. Without resets every
    # dependency is solved before it is used, so one pass is exact and its residual is the
    # largest pair residual; with resets, passes repeat until one changes nothing (> tolerance).
    def one_pass(passes: int) -> float:
        nonlocal truncation, moved_last, spread_filled, spread, checks
        fresh = passes == 1 or moved_last > FRESH_ABOVE
        # The first pass to record a spread sweeps every pair; the passes after it sweep only the pairs
        # whose choices may have flipped since (``holdspread.check_pair``), recording their spreads anew.
        recording = spreads and checks is None and (moved_last < SPREAD_BELOW or (passes == 1 and RECORD_FIRST_PASS))
        spread_filled = recording or checks is not None
        if spread_filled and spread is None:
            spread = holdspread.new_spread(goal, table)
        change = 0.0
        pair_residual = 0.0
        truncation = 0.0
        reset_inputs = None if exact else np.concatenate([v[:, 0] for v in seats])
        s = top
        while s >= 0:
            low = max(0, s - chunk + 1)
            if rows is None:
                residual = dicechoice.solve_levels(va, vb, s, low, game, same)
                level = rollhold.LevelSweep(residual, residual, 0.0)
            elif band_rows is not None:
                level = banded.solve_levels(va, vb, s, low, game, band_rows, fresh, same)
            else:
                level = diesweep.die_levels(
                    va, vb, s, low, game, rows, fresh, same, spread if spread_filled else None, checks
                )
            change = max(change, level.change)
            pair_residual = max(pair_residual, level.residual)
            truncation = max(truncation, level.truncation)
            s = low - 1
            if progress is not None:
                progress((top - s) / (top + 1), f"pass {passes}")
        # Given the reset values w_j = V[j, 0] a pass started from, every other value is solved
        # exactly, so the Bellman residual is at most how far the pass moved w (resets have
        # probability <= 1) plus the pair residual.
        if reset_inputs is None:
            return pair_residual
        if spread is not None and not holdspread.usable(spread):
            checks = None  # a turn banks at more totals than a spread holds: full passes from here on
        elif spread_filled and spread is not None:
            checks = holdspread.new_checks(va, reset_inputs)  # every gap is now one at the values just solved
        moved = np.concatenate([v[:, 0] for v in seats]) - reset_inputs
        moved_most = float(np.max(np.abs(moved))) if table.has_reset else change
        moved_last = moved_most
        return max(pair_residual, moved_most) if passes > 1 or table.has_reset else float("inf")

    def settle() -> bool:
        target = max(tolerance, moved_last * SETTLE_BELOW_MOVE / SETTLED_SHARE)
        return spread_filled and spread is not None and settle_resets(va, spread, target)

    passes, residual = fixed_point(
        one_pass,
        exact,
        [v[:, 0] for v in seats] if table.has_reset else [],
        tolerance,
        f"{variant.name} did not converge: residual {{residual:.3g}} after {{passes}} passes",
        settle if spreads else None,
    )
    if rows is not None:
        _keep_rows(game, rows)
    return Sweeps(passes, residual, truncation)


def first_reset_values(goal: int) -> np.ndarray:
    """Return the first guess of the reset values V[j, 0]: 1/2, plus half the share of the goal the mover holds.

    The mover at j against an opponent at 0 wins more the nearer she is to the goal; the line from
    1/2 to 1 lies within 0.025 of the solved values of Two-Dice Pig, Big Pig with resets and Piggy
    Six to 100 (a flat 1/2 lies within 0.48). Same run, goal 100: Two-Dice Pig 23.4 -> 20.0 ms, Big
    Pig reset 34.4 -> 28.7 ms, Piggy Six 26.1 -> 20.3 ms (the first pass's error falls 0.45 -> 0.03).
    """
    return 0.5 + 0.5 * np.arange(goal) / goal


# Level rows kept between solves, by (goal, the effect table's id), with the table (``_taken_rows``)
_kept_rows: dict[tuple[int, int], tuple[EffectTable, rollhold.LevelRows]] = {}


def _taken_rows(game: Game) -> rollhold.LevelRows:
    """Return level rows for ``game``: kept from an earlier solve of the same game (taken out while in use), or new."""
    kept = _kept_rows.pop((game.goal, id(game.table)), None)
    if kept is not None and kept[0] is game.table and game.sweep != SWEEP_GENERAL:
        return kept[1]
    return rollhold.level_rows(game)


def _keep_rows(game: Game, rows: rollhold.LevelRows) -> None:
    """Keep a fast sweep's level rows for the next solve of ``game`` (small goals, ``KEPT_ROWS`` at most)."""
    if game.sweep == SWEEP_GENERAL or game.goal > KEEP_ROWS_GOAL:
        return  # the general sweep starts each turn from the last one's rows: a kept row would change its path
    if len(_kept_rows) >= KEPT_ROWS:
        _kept_rows.clear()
    _kept_rows[(game.goal, id(game.table))] = (game.table, rows)


def solve_uncached(variant: Variant, tolerance: float = TOLERANCE, progress: Progress | None = None) -> Policy:
    """Solve ``variant`` from scratch (no cache) and return its policy."""
    variant = solvable(variant)
    goal = variant.goal
    check_memory(f"solving {variant.name}", goal, solver_bytes)
    table = effect_table(variant)
    values = np.full((goal, goal), 0.5)
    if table.has_reset:
        values[:, 0] = first_reset_values(goal)
    started = time.perf_counter()
    sweeps = solve_values(variant, table, [values], FIRST_TO_GOAL_ENDS, tolerance, progress)
    seconds = time.perf_counter() - started
    return Policy(variant, values, sweeps.passes, sweeps.residual, seconds)


class Measured(Protocol):
    """Anything whose arrays' bytes are known (a policy of any solver)."""

    @property
    def nbytes(self) -> int:
        """Return the bytes of the arrays."""


Kept = TypeVar("Kept", bound=Measured)


class PolicyCache(Generic[Kept]):
    """Policies kept in this process, least recently used dropped first once their arrays pass a byte limit.

    Thread-safe (the web server solves from several threads). A policy larger than the whole
    limit is not kept: the disk cache still serves it.
    """

    def __init__(self, max_bytes: int | None = None) -> None:
        self._max_bytes = max_bytes
        self._items: OrderedDict[str, Kept] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        """Return the byte limit (``MEMORY_CACHE_BYTES`` unless given)."""
        return MEMORY_CACHE_BYTES if self._max_bytes is None else self._max_bytes

    @property
    def nbytes(self) -> int:
        """Return the bytes of the arrays of every policy kept."""
        with self._lock:
            return sum(policy.nbytes for policy in self._items.values())

    def __len__(self) -> int:
        """Return the number of policies kept."""
        return len(self._items)

    def get(self, key: str) -> Kept | None:
        """Return the policy kept under ``key`` (now the most recently used), or None."""
        with self._lock:
            policy = self._items.get(key)
            if policy is not None:
                self._items.move_to_end(key)
                self._trim()
            return policy

    def put(self, key: str, policy: Kept) -> None:
        """Keep ``policy`` under ``key`` as the most recently used, dropping the oldest past the limit."""
        with self._lock:
            self._items.pop(key, None)
            if policy.nbytes > self.max_bytes:
                return
            self._items[key] = policy
            self._trim()

    def clear(self) -> None:
        """Drop every policy."""
        with self._lock:
            self._items.clear()

    def _trim(self) -> None:
        # sizes are read again each time: a policy's cached turn rows grow as hints are asked
        total = sum(policy.nbytes for policy in self._items.values())
        while total > self.max_bytes and len(self._items) > 1:
            _, dropped = self._items.popitem(last=False)
            total -= dropped.nbytes


_MEMORY: PolicyCache[Policy] = PolicyCache()


def _memory_key(variant: Variant) -> str:
    """Return the in-memory cache key of a solvable variant."""
    return f"{variant.name}:{variant.fingerprint()}"


def cached(variant: Variant) -> Policy | None:
    """Return the in-memory policy of ``variant``'s solvable form, or None: never solves, never reads the disk.

    Raises BadParameterError, as ``solve`` does, for a variant the solver does not solve (Swine Herd).
    """
    return _MEMORY.get(_memory_key(solvable(variant)))


def remember(policy: Policy) -> None:
    """Keep ``policy`` (solved elsewhere, e.g. in a worker process) in this process's memory cache."""
    variant = solvable(policy.variant)
    goal, shape = variant.goal, policy.values.shape
    if shape != (goal, goal):
        raise BadParameterError(f"a policy for goal {goal} needs values of shape ({goal}, {goal}), not {shape}")
    _MEMORY.put(_memory_key(variant), policy)


def solve(variant: Variant, use_cache: bool = True, progress: Progress | None = None) -> Policy:
    """Return the optimal policy of ``variant``: from memory, the disk cache, or a fresh solve.

    Raises ResourceLimitError before allocating anything if the goal's arrays would not fit in memory.
    """
    variant = solvable(variant)
    key = _memory_key(variant)
    if use_cache:
        kept = _MEMORY.get(key)
        if kept is not None:
            kept.from_cache = True
            return kept
    check_memory(f"solving {variant.name}", variant.goal, solver_bytes)  # loading needs less
    path = cache_path(variant)
    policy: Policy | None = None
    if use_cache and path.exists():
        try:
            policy = Policy.load(path, variant)
        except BadParameterError:
            policy = None  # a stale, damaged or odd cache file is rebuilt (and replaced on save)
    if policy is None:
        policy = solve_uncached(variant, progress=progress)
        if use_cache:
            try:
                policy.save(path)
            except OSError:
                pass  # a read-only cache only costs a re-solve next time
    if use_cache:
        _MEMORY.put(key, policy)
    return policy
