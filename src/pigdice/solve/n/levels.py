"""The score sums of an n-player solve cut into blocks, and the blocks of each sum solved on threads.

Within one score sum every cycle reads only higher sums and its own rotations (``pigdice.solve.n.nkernels``),
so a sum's cycles are cut by the first score of the tuples standing for them into blocks
(``nkernels.solve_block``; small sums are merged into one block) that threads, or Dask workers
(``pigdice.solve.n.distributed``), solve at once; a sum's blocks all finish before the next lower sum starts.
The blocks do not depend on the number of threads, each starts from fresh scratch rows, and their figures
and overrides are merged in block order: any number of threads gives the same values, bit for bit.
"""

from __future__ import annotations

import itertools
import math
import queue
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.solve.n import nkernels
from pigdice.solve.n.rows import (
    Anchors,
    CycleRows,
    LevelStats,
    Overrides,
    PlayersGame,
    cycle_rows,
    merged,
    overrides_for,
)
from pigdice.solve.threads import check_threads

# score tuples a block covers (about): enough blocks per sum to keep two threads busy to its end, few
# enough that starting one (a kernel call, its scratch rows cleared) costs nothing measurable
BLOCK_STATES = 40_000


@dataclass(frozen=True)
class Task:
    """One block: the cycles of sums s_high .. s_low whose standing tuple's first score is in [first_lo, first_hi)."""

    s_high: int
    s_low: int
    first_lo: int
    first_hi: int
    states: float  # about how many score tuples it covers (for progress)


@lru_cache(maxsize=64)
def tuples_summing(count: int, below: int) -> np.ndarray:
    """Return how many tuples of ``count`` scores in [0, below) have each sum."""
    counts = np.ones(1)
    for _ in range(count):
        counts = np.convolve(counts, np.ones(below))
    return counts


def cycles_by_first(s: int, players: int, goal: int) -> np.ndarray:
    """Return, for each first score v, about how many tuples of sum s stand for a cycle (all others >= v)."""
    weights = np.zeros(goal)
    for v in range(min(goal, s // players + 1)):
        counts = tuples_summing(players - 1, goal - v)
        rest = s - players * v
        weights[v] = counts[rest] if 0 <= rest < len(counts) else 0.0
    return weights


def plan_stages(goal: int, players: int, task_states: int = BLOCK_STATES, merge: bool = True) -> list[list[Task]]:
    """Return the solve's stages, high sums first: each a list of blocks that can be solved at once.

    Sums of at most ``task_states`` tuples are merged into one block (unless ``merge`` is False: one
    stage per sum, as a level hook needs), larger ones cut into blocks of about that many.
    """
    if task_states < 1:
        raise BadParameterError(f"a task takes at least one score tuple, got {task_states}")
    sums = tuples_summing(players, goal)
    stages: list[list[Task]] = []
    s = players * (goal - 1)
    while s >= 0:
        if sums[s] <= task_states:  # small sums: merged into one task
            low, states = s, float(sums[s])
            while merge and low > 0 and states + sums[low - 1] <= task_states:
                low -= 1
                states += sums[low]
            stages.append([Task(s, low, 0, goal, states)])
            s = low - 1
            continue
        weights = cycles_by_first(s, players, goal)
        pieces = math.ceil(sums[s] / task_states)
        cumulative = np.cumsum(weights)
        edges = [0]
        for piece in range(1, pieces):
            edge = int(np.searchsorted(cumulative, cumulative[-1] * piece / pieces)) + 1
            if edges[-1] < edge < goal:
                edges.append(edge)
        edges.append(goal)
        share = float(sums[s]) / max(float(cumulative[-1]), 1.0)
        stages.append([Task(s, s, lo, hi, share * float(weights[lo:hi].sum())) for lo, hi in itertools.pairwise(edges)])
        s -= 1
    return stages


class Scratch:
    """One block's scratch: the cycle rows (warm rows cleared per block) and room for its overrides."""

    def __init__(self, game: PlayersGame, totals: int, rows: int) -> None:
        """Allocate the rows of one thread's cycle solves and ``rows`` overrides."""
        self.work: CycleRows = cycle_rows(game.goal, totals, game.players, len(game.table.offsets) - 1)
        self.overrides = overrides_for(rows)


class LevelSolver:
    """Solves the stages of ``plan_stages`` into W on ``threads`` threads, merging each stage in block order."""

    def __init__(self, game: PlayersGame, W: np.ndarray, totals: int, threads: int, override_rows: int) -> None:
        """Keep one scratch per thread (``totals`` turn totals per warm row, ``override_rows`` overrides)."""
        self.game, self.W = game, W
        self.threads = check_threads(threads)
        self.free: queue.SimpleQueue[Scratch] = queue.SimpleQueue()
        for _ in range(self.threads):
            self.free.put(Scratch(game, totals, override_rows))
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="pigdice-solve") if self.threads > 1 else None

    def close(self) -> None:
        """Stop the threads."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LevelSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _block(self, task: Task, fresh: bool, anchors: Anchors, keep: bool) -> tuple[LevelStats, Overrides]:
        """Solve one block with a free scratch; return its figures and a copy of the overrides it wrote."""
        scratch = self.free.get()
        try:
            work = scratch.work
            work.warm_C.fill(0.0)  # every block starts from the same rows, whichever thread ran before
            work.warm_d.fill(0.0)
            level = nkernels.solve_block(self.game, self.W, task.s_high, task.s_low, task.first_lo, task.first_hi,
                                         fresh, work, scratch.overrides, 0, anchors, keep)  # fmt: skip
            rows = min(level.written, len(scratch.overrides.state))
            return level, Overrides(*(column[:rows].copy() for column in scratch.overrides))
        finally:
            self.free.put(scratch)

    def solve_stage(
        self, stage: list[Task], fresh: bool, anchors: Anchors, keep: bool, overrides: Overrides, before: LevelStats
    ) -> LevelStats:
        """Solve one stage's blocks; return the pass's figures after ``before`` and them, the overrides appended
        to ``overrides`` from row before.written on (beyond its rows they are counted, not written)."""
        if self.pool is None or len(stage) == 1:
            results = [self._block(task, fresh, anchors, keep) for task in stage]
        else:
            futures: list[Future[tuple[LevelStats, Overrides]]] = [
                self.pool.submit(self._block, task, fresh, anchors, keep) for task in stage
            ]
            try:
                results = [future.result() for future in futures]
            except BaseException:  # Ctrl-C: the running blocks finish, the others never start
                for future in futures:
                    future.cancel()
                wait(futures)
                raise
        totals = before
        for level, rows in results:
            start = totals.written
            room = max(0, min(len(rows.state), len(overrides.state) - start))
            for mine, theirs in zip(overrides, rows, strict=True):
                mine[start : start + room] = theirs[:room]
            totals = merged(totals, level._replace(written=start + level.written))
        return totals
