"""The exact n-player solve (first to the goal) spread over Dask workers.

Within one score sum every cycle reads only higher sums and its own rotations
(``pigdice.solve.n.nkernels``), so the cycles of one sum are independent: a sum is split by the first
score of the tuples standing for its cycles into coarse tasks (``nkernels.solve_block``; small sums are
merged into one task; the plan of ``pigdice.solve.n.levels``, whose blocks the in-process solve runs on
threads), a sum's tasks all finish before the next lower sum starts, and each task returns its
``LevelStats`` and its overrides, merged as the in-process solve merges them. The values live in a
memory-mapped .npy file in a directory every worker reaches: on one machine the workers share its pages
(no copy per worker, and the kernels read any state at a higher sum directly); a real cluster needs a
shared file system there. A worker keeps the file mapped between the tasks of one solve (``_opened``), but
maps it afresh per task where tasks flush (machines sharing a network folder). Zarr was not used: the
kernels read states at random across all higher sums, so chunks would have to be fetched whole per read.
With resets the passes repeat as in-process, the anchors in the store too. The result equals
``nplayer.solve_players`` (the same kernels in the same order per cycle).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np

from pigdice.errors import BadParameterError, require_modules
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.cost import DEFAULT_WORKERS, TASK_STATES
from pigdice.solve.memory import check_memory, players_values_bytes
from pigdice.solve.n import nkernels
from pigdice.solve.n.levels import Task, plan_stages
from pigdice.solve.n.nplayer import (
    MIN_OVERRIDES,
    PlayersPolicy,
    check_players,
    pass_residual,
    players_form,
    policy_from_pass,
    repeat_passes,
)
from pigdice.solve.n.rows import (
    FIRST_TO_GOAL,
    NO_ANCHORS,
    NOTHING_SOLVED,
    Anchors,
    LevelStats,
    Overrides,
    PlayersGame,
    cycle_rows,
    merged,
    overrides_for,
    players_game,
)
from pigdice.solve.solver import TOLERANCE, Progress
from pigdice.solve.tables import effect_table

MAX_WORKERS = 256
MAX_ADDRESS = 200  # characters of a scheduler address (as the designer's --scheduler)
CONNECT_TIMEOUT = "10s"
VALUES = "values.npy"
ANCHOR_X = "anchor_x.npy"
ANCHOR_FLIPS = "anchor_flips.npy"


@dataclass(frozen=True)
class Store:
    """Where the values (and, with resets, the anchors) live, and what the workers need to rebuild the game."""

    directory: str
    variant: Variant
    players: int
    resets: bool
    flush: bool  # write each task's values through to disk (machines sharing a network folder)
    token: str = ""  # this solve's own: a worker keeps the store open between tasks per token (``_opened``)


@dataclass(frozen=True)
class _Opened:
    """What a worker keeps between the tasks of one solve: the store's maps and the game's tables."""

    token: str
    maps: list[np.memmap]  # the values, then (with resets) the anchors
    game: PlayersGame


# per worker process: the store directory -> what its tasks reuse (``_opened``; dropped by ``release``)
_OPENED: dict[str, _Opened] = {}
_OPENING = threading.Lock()  # a worker may run tasks on several threads


def check_address(scheduler: str) -> str:
    """Return the scheduler address stripped; raise BadParameterError if it cannot be one."""
    address = scheduler.strip()
    if not address or len(scheduler) > MAX_ADDRESS or not scheduler.isprintable():
        raise BadParameterError(f"--scheduler takes an address like tcp://host:8786 (at most {MAX_ADDRESS} characters)")
    return address


def check_distributable(variant: Variant, players: int) -> Variant:
    """Return the form solved; raise BadParameterError unless it is first to the goal (the endings stay in-process)."""
    if variant.endgame is not Endgame.FIRST_TO_GOAL:
        raise BadParameterError(
            f"the distributed solve plays first to the goal only; the {variant.endgame} ending is solved in one process"
        )
    variant = players_form(variant, players)
    check_players(variant, players)
    return variant


def _open(store: Store, name: str, mode: Literal["r+", "r"] = "r+") -> np.memmap:
    """Return the store's array ``name`` memory-mapped."""
    return cast(np.memmap, np.load(Path(store.directory) / name, mmap_mode=mode))


def _opened(store: Store) -> _Opened:
    """Return this worker's maps and game of ``store``, opening them at the solve's first task here.

    Mapping the values afresh per task would fault in again every page a task reads: at 5 players to 40
    the map is 4 GB and a task reads all over the higher sums. A store of an earlier solve (another token)
    in the same folder is dropped, its maps closed with their last reference. A store flushed per task (a
    folder machines share) is mapped afresh per task: opening the file again is what makes a network file
    system show this machine the values other machines wrote.
    """
    from pigdice.solve.two.endgame import bust_chance

    names = (VALUES, ANCHOR_X, ANCHOR_FLIPS) if store.resets else (VALUES,)
    with _OPENING:
        held = _OPENED.get(store.directory)
        if held is None or held.token != store.token:
            _OPENED.pop(store.directory, None)
            table = effect_table(store.variant)
            one_throw = store.variant.decision is Decision.DICE_PER_TURN
            game = players_game(table, store.variant.goal, store.players, one_throw, FIRST_TO_GOAL, bust_chance(table))
            held = _Opened(store.token, [_open(store, name) for name in names], game)
            _OPENED[store.directory] = held
        elif store.flush:
            held = _Opened(store.token, [_open(store, name) for name in names], held.game)
            _OPENED[store.directory] = held
        return held


def release(directory: str) -> bool:
    """Drop this worker's maps of the store in ``directory``; return whether it held any (run on every worker at
    the end of a solve)."""
    with _OPENING:
        return _OPENED.pop(directory, None) is not None


def run_task(store: Store, task: Task, fresh: bool, keep: bool) -> tuple[LevelStats, Overrides]:
    """Solve one task's cycles into the store; return its stats and the overrides it wrote (a worker runs this)."""
    variant, n = store.variant, store.players
    goal = variant.goal
    held = _opened(store)
    game, maps = held.game, held.maps
    W = maps[0].reshape(1, goal**n, n)
    anchors = Anchors(maps[1], maps[2]) if store.resets else NO_ANCHORS
    work = cycle_rows(goal, goal, n, len(game.table.offsets) - 1)  # fresh rows per task, as per in-process block
    rows = max(MIN_OVERRIDES, int(task.states) // 100)
    overrides = overrides_for(rows)
    level = nkernels.solve_block(
        game, W, task.s_high, task.s_low, task.first_lo, task.first_hi, fresh, work, overrides, 0, anchors, keep
    )
    if store.flush:  # one machine's workers share the file's pages: their writes are seen at once
        for mapped in maps:
            mapped.flush()
    if level.written > rows:
        raise BadParameterError(
            f"{variant.name} for {n} players: {level.unsettled} cycles without consistent choices at score sum "
            f"{task.s_high}, more than a task keeps ({level.written} decision points past {rows})"
        )
    kept = Overrides(*(column[: level.written].copy() for column in overrides))
    return level, kept


def check_store(store: Path | str) -> Path:
    """Create the store's directory if need be; return it, or raise BadParameterError if no values can be kept there."""
    directory = Path(store)
    if directory.exists() and not directory.is_dir():
        raise BadParameterError(f"cannot keep the values in {str(store)!r}: it is a file, not a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadParameterError(f"cannot keep the values in {str(store)!r}: {exc.strerror or exc}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise BadParameterError(f"cannot keep the values in {str(store)!r}: the folder is not writable")
    return directory


def _create_store(directory: Path, variant: Variant, players: int, resets: bool, flush: bool) -> Store:
    """Write the starting values (1/n everywhere) and anchors into ``directory``; return the store."""
    goal, n = variant.goal, players
    values = np.lib.format.open_memmap(directory / VALUES, mode="w+", dtype=np.float64, shape=(goal,) * n + (n,))
    values[...] = 1.0 / n
    values.flush()
    del values
    if resets:
        for name, fill in ((ANCHOR_X, np.nan), (ANCHOR_FLIPS, 0.0)):
            array = np.lib.format.open_memmap(directory / name, mode="w+", dtype=np.float64, shape=(1, goal**n))
            array[...] = fill
            array.flush()
            del array
    return Store(str(directory), variant, players, resets, flush, uuid.uuid4().hex)


@contextmanager
def dask_client(scheduler: str | None = None, workers: int = DEFAULT_WORKERS) -> Iterator[Any]:
    """Yield a Dask client: of the running scheduler at ``scheduler``, else of a LocalCluster it starts and stops."""
    require_modules(("dask", "distributed"), "solve", "the distributed solve needs")
    from dask.distributed import Client, LocalCluster

    cluster = None
    if scheduler is not None:
        address = check_address(scheduler)
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise BadParameterError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
    else:
        if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
            raise BadParameterError(f"workers must be a whole number from 1 to {MAX_WORKERS}, got {workers!r}")
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def solve_distributed(
    variant: Variant,
    players: int,
    client: Any = None,
    store: Path | str | None = None,
    progress: Progress | None = None,
    tolerance: float = TOLERANCE,
    task_states: int = TASK_STATES,
    flush: bool = False,
) -> PlayersPolicy:
    """Solve ``variant`` exactly for ``players`` players (first to the goal) on Dask; return the policy.

    ``client``: a Dask client (None: a 2-worker LocalCluster started for the solve, ``dask_client``).
    ``store``: the directory the values are kept in while solving (None: a temporary one, removed after,
    the values copied into memory; a given directory keeps values.npy and the policy reads it from there).
    A cluster of several machines needs a directory they all share, and ``flush``: each task then writes
    its values through to disk (flushing a memory map writes all of it: far slower on one machine, where
    the workers share the file's pages and see each other's writes at once). Ctrl-C cancels the tasks.
    """
    variant = check_distributable(variant, players)
    if store is not None:
        check_store(store)  # before a cluster starts
    else:  # the values are copied into memory at the end: refused now rather than after the solve
        what = (
            f"keeping the values of {variant.name} for {players} players in memory (a store folder keeps them on disk)"
        )
        check_memory(what, variant.goal, lambda goal: players_values_bytes(goal, players, players))
    if client is None:
        with dask_client() as own:
            return solve_distributed(variant, players, own, store, progress, tolerance, task_states, flush)
    temporary = store is None
    directory = Path(tempfile.mkdtemp(prefix="pigdice-solve-")) if store is None else check_store(store)
    try:
        policy = _solve_in(variant, players, client, directory, progress, tolerance, task_states, flush)
        if temporary:
            policy.values = np.array(policy.values)
        return policy
    finally:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)


def _solve_in(
    variant: Variant,
    players: int,
    client: Any,
    directory: Path,
    progress: Progress | None,
    tolerance: float,
    task_states: int,
    flush: bool,
) -> PlayersPolicy:
    """Solve into the store at ``directory`` with ``client``; return the policy (values memory-mapped)."""
    started = time.perf_counter()
    resets = effect_table(variant).has_reset
    store = _create_store(directory, variant, players, resets, flush)
    try:
        return _solve_stages(variant, players, client, store, progress, tolerance, task_states, started)
    finally:  # the workers close their maps of the store (a worker that is gone holds none)
        with suppress(Exception):
            client.run(release, store.directory)


def _solve_stages(
    variant: Variant,
    players: int,
    client: Any,
    store: Store,
    progress: Progress | None,
    tolerance: float,
    task_states: int,
    started: float,
) -> PlayersPolicy:
    """Run the passes of the solve into ``store`` on ``client``; return the policy (values memory-mapped)."""
    resets = store.resets
    stages = plan_stages(variant.goal, players, task_states)
    total = sum(task.states for stage in stages for task in stage)
    values = _open(store, VALUES)
    settling = [np.inf]
    last_pass: list[tuple[LevelStats, list[Overrides]]] = [(NOTHING_SOLVED, [])]

    def one_pass(passes: int) -> float:
        totals = NOTHING_SOLVED
        found: list[Overrides] = []
        reset_inputs = np.array(values[..., 0, :]) if resets else None
        if store.flush:  # the reset values the passes moved, for machines sharing the folder
            values.flush()
        keep = passes > 1 and settling[0] < nkernels.KEEP_AFTER
        done = 0.0
        for stage in stages:
            for level, rows in _run_stage(client, store, stage, passes == 1, keep):
                totals = merged(totals, level._replace(written=totals.written + level.written))
                found.append(rows)
            done += sum(task.states for task in stage)
            if progress is not None:
                progress(done / total, f"pass {passes}")
        last_pass[0] = (totals, found)
        return pass_residual(values, reset_inputs, settling, totals.residual)

    passes, residual = repeat_passes(one_pass, values, resets, tolerance, f"{variant.name} for {players} players")
    values.flush()
    totals, found = last_pass[0]
    overrides = Overrides(*(np.concatenate([getattr(rows, name) for rows in found]) for name in Overrides._fields))
    readonly = _open(store, VALUES, "r")
    return policy_from_pass(variant, players, readonly, passes, residual, started, totals, overrides)


def _run_stage(
    client: Any, store: Store, stage: list[Task], fresh: bool, keep: bool
) -> list[tuple[LevelStats, Overrides]]:
    """Run one stage's tasks on the cluster and wait for all of them; Ctrl-C cancels them."""
    futures = [client.submit(run_task, store, task, fresh, keep, pure=False) for task in stage]
    try:
        results = client.gather(futures)
    except KeyboardInterrupt:
        client.cancel(futures)
        raise
    return [(LevelStats(*level), Overrides(*rows)) for level, rows in results]
