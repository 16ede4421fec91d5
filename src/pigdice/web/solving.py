"""The solve pool: the perfect player's policies and the explorer's data, computed in a worker process.

Solving is seconds of CPU (numba, and pure Python around it), so it never runs on the event loop
or its threads: jobs go to a bounded process pool. Requests for the same solve share one job (an
exact solve is keyed by ``exact_key``: its solver, number of players, ending, tie rule and final
turn); when more than ``max_jobs`` different solves wait, new ones are refused (503 ``busy``) instead
of queueing without end. A finished policy is kept in the solvers' in-memory caches (bounded by
bytes) and on disk, so the next request for it is instant. How large a solve may be is the perfect
player's decision (``pigdice.solve.cost``, within the server's bounds): the pool solves what it is asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar

from pigdice.errors import PigdiceError
from pigdice.rules.variant import Variant
from pigdice.web.errors import WebError

if TYPE_CHECKING:
    from pigdice.solve.exact import ExactPolicy
    from pigdice.solve.policy import Policy

log = logging.getLogger("pigdice.web")

T = TypeVar("T")


def exact_in_worker(variant: Variant, players: int) -> ExactPolicy:
    """Solve (or load from the disk cache) the exact policy of ``variant`` played by ``players``, in a worker."""
    from pigdice.solve.exact import exact_policy

    return exact_policy(variant, players)


def quiet_worker() -> None:
    """Leave Ctrl-C to the server: a terminal sends SIGINT to every process of the group, and a worker that took
    it would die printing a traceback while the server shuts down (the server stops its workers itself)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def workers_ignore_ctrl_c() -> Iterator[None]:
    """Start worker processes inside this block with Ctrl-C ignored from their first instruction: an ignored
    signal stays ignored across exec, so a Ctrl-C while a worker still imports cannot print its traceback. The
    server's own handler is put back at once (only the main thread may change it; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def warm_worker() -> bool:
    """Import the solvers (numba and their compiled kernels) in a fresh worker."""
    import pigdice.solve.exact  # noqa: F401

    return True


def load_hint_kernels() -> None:
    """Load the compiled kernels that hints and the perfect player's moves run in this process (from numba's
    cache), so the first hint after start-up does not hold the event loop while they load (~0.3 s)."""
    import numpy as np

    from pigdice.rules.registry import find_variant
    from pigdice.solve.policy import Policy

    for name in ("pig", "hog"):  # roll/hold rows and dice-per-turn values
        variant = find_variant(name, goal=3)
        Policy(variant, np.full((3, 3), 0.5), 0, 0.0, 0.0).action_values(0, 0, 0)


def job_key(kind: str, variant: Variant) -> str:
    """Return the key that identifies a job: the same solve asked twice shares it."""
    return f"{kind}:{variant.name}:{variant.fingerprint()}"


def exact_job_key(variant: Variant, players: int) -> str:
    """Return the key of the exact solve of ``variant`` with ``players`` players (``exact_key``: games the
    solvers tell apart, by players, ending, tie rule or final turn, never share a job)."""
    from pigdice.solve.exact import exact_key

    return f"exact:{exact_key(variant, players)}"


class SolvePool:
    """A bounded process pool for solves, with one shared job per solve and a limit on waiting jobs."""

    def __init__(self, workers: int = 1, max_jobs: int = 8) -> None:
        self.workers = workers
        self.max_jobs = max_jobs
        self._executor: ProcessPoolExecutor | None = None
        self._jobs: dict[str, asyncio.Future[Any]] = {}

    @property
    def busy(self) -> int:
        """Return how many jobs run or wait."""
        return len(self._jobs)

    @property
    def running(self) -> list[str]:
        """Return the keys of the jobs that run or wait."""
        return list(self._jobs)

    def start(self) -> None:
        """Start the worker process now (it imports the solver), so the first solve does not wait for it."""
        with workers_ignore_ctrl_c():
            self._pool().submit(warm_worker)

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn: a fresh interpreter, never a fork of the server with its threads and sockets
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=quiet_worker
            )
        return self._executor

    def is_running(self, kind: str, variant: Variant) -> bool:
        """Return True while a job for ``variant`` runs or waits."""
        return job_key(kind, variant) in self._jobs

    def check_room(self, kind: str, variant: Variant) -> None:
        """Raise 503 ``busy`` if a new job for ``variant`` would be refused (it is neither running nor cached)."""
        self._check_key(job_key(kind, variant))

    def _check_key(self, key: str) -> None:
        if key not in self._jobs and len(self._jobs) >= self.max_jobs:
            raise WebError(
                "busy",
                f"the server is preparing {len(self._jobs)} perfect players already; try again in a minute",
                503,
            )

    def job(self, kind: str, variant: Variant, work: Callable[[Variant], T]) -> asyncio.Future[T]:
        """Return the future of the job computing ``work(variant)`` in a worker, starting it unless it runs."""
        return self._submit(job_key(kind, variant), work, variant)

    def _submit(self, key: str, work: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Return the future of the job ``key`` computing ``work(*args)`` in a worker, starting it unless it runs."""
        future = self._jobs.get(key)
        if future is not None:
            return future
        self._check_key(key)
        loop = asyncio.get_running_loop()
        with workers_ignore_ctrl_c():  # the pool starts (or replaces) its workers as jobs are submitted
            try:
                future = asyncio.wrap_future(self._pool().submit(work, *args), loop=loop)
            except BrokenProcessPool:  # a worker died (killed, out of memory): start a fresh pool
                log.error("the solve pool broke; starting a new one")
                self._executor = None
                future = asyncio.wrap_future(self._pool().submit(work, *args), loop=loop)
        self._jobs[key] = future
        future.add_done_callback(lambda done: self._finished(key, done))
        return future

    def _finished(self, key: str, future: asyncio.Future[Any]) -> None:
        """Forget a finished job; its error, if nobody waits for it any more, is logged rather than lost."""
        self._jobs.pop(key, None)
        if not future.cancelled() and future.exception() is not None:
            log.warning("solve job %s failed: %r", key, future.exception())

    # -- exact policies --------------------------------------------------------------------
    async def exact(self, variant: Variant, players: int) -> ExactPolicy:
        """Return the exact policy of ``variant`` played by ``players``: from memory, or from a (shared) job.

        The caller checks that a solver exists (``exactness``) and that the solve is within its bounds.
        """
        from pigdice.solve.exact import cached_exact, remember_exact

        policy = cached_exact(variant, players)
        if policy is not None:
            return policy
        policy = await self._wait(exact_job_key(variant, players), exact_in_worker, variant, players)
        remember_exact(policy)
        return policy

    def exact_ready(self, variant: Variant, players: int) -> bool:
        """Return True if the exact policy of ``variant`` with ``players`` players is in memory (no job needed)."""
        from pigdice.solve.exact import cached_exact

        return cached_exact(variant, players) is not None

    def cached_exact(self, variant: Variant, players: int) -> ExactPolicy:
        """Return the in-memory exact policy (call after ``exact_ready`` said yes)."""
        from pigdice.solve.exact import cached_exact

        policy = cached_exact(variant, players)
        if policy is None:
            raise WebError("solve_failed", "the perfect player's policy is not in memory; try again", 503)
        return policy

    def check_exact_room(self, variant: Variant, players: int) -> None:
        """Raise 503 ``busy`` if the exact solve of ``variant`` with ``players`` players would be refused."""
        self._check_key(exact_job_key(variant, players))

    # -- the 2-player first-to-goal policy (approximations, action tables) -------------------
    async def policy(self, variant: Variant) -> Policy:
        """Return the solved policy of ``variant``'s roll/hold form: from memory, or from a (shared) worker job."""
        return _plain(await self.exact(variant.roll_hold_form(), 2))

    def policy_ready(self, variant: Variant) -> bool:
        """Return True if the policy of ``variant`` is in memory (no job needed)."""
        return self.exact_ready(variant.roll_hold_form(), 2)

    def cached_policy(self, variant: Variant) -> Policy:
        """Return the in-memory policy of ``variant`` (call after ``policy_ready`` said yes)."""
        return _plain(self.cached_exact(variant.roll_hold_form(), 2))

    # -- waiting ----------------------------------------------------------------------------
    async def run(self, kind: str, variant: Variant, work: Callable[[Variant], T]) -> T:
        """Return ``work(variant)`` computed in a worker; requests for the same job share it.

        ``work`` must be a module-level function (it is pickled by name). Many requests may wait for
        one job, so one request going away does not cancel it.
        """
        return await self._wait(job_key(kind, variant), work, variant)

    async def _wait(self, key: str, work: Callable[..., T], *args: Any) -> T:
        """Return the result of the job ``key`` (``work(*args)``), its failures turned into web errors."""
        try:
            return await asyncio.shield(self._submit(key, work, *args))
        except PigdiceError:
            raise
        except BrokenProcessPool:
            self._executor = None
            raise WebError("solve_failed", "the perfect player could not be prepared; try again", 503) from None
        except MemoryError:
            raise WebError("solve_failed", "the perfect player needs more memory than this server has", 503) from None

    def close(self) -> None:
        """Stop the worker processes (running jobs are abandoned)."""
        if self._executor is not None:
            # a running solve may take minutes: its worker is stopped, not waited for (the pool has no API for it)
            workers = list((getattr(self._executor, "_processes", None) or {}).values())
            for process in workers:
                process.kill()
            for process in workers:
                process.join(timeout=5)
            self._executor.shutdown(wait=True, cancel_futures=True)  # quick now: its workers are gone
            self._executor = None


def _plain(policy: ExactPolicy) -> Policy:
    """Return the 2-player first-to-goal ``Policy`` inside ``policy`` (what the approximations read)."""
    from pigdice.solve.exact import FirstToGoalPolicy

    if not isinstance(policy, FirstToGoalPolicy):
        raise WebError("solve_failed", "the perfect player's policy is of another game; try again", 503)
    return policy.policy
