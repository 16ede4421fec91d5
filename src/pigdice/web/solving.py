"""The solve pool: the perfect player's policies and the explorer's data, computed in a worker process.

Solving is seconds of CPU (numba, and pure Python around it), so it never runs on the event loop
or its threads: jobs go to a bounded process pool. Requests for the same variant share one job;
when more than ``max_jobs`` different solves wait, new ones are refused (503 ``busy``) instead of
queueing without end. A finished policy is kept in the solver's in-memory cache (bounded by bytes)
and on disk, so the next request for it is instant.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar

from pigdice.errors import PigdiceError
from pigdice.rules.variant import Variant
from pigdice.web.errors import WebError

if TYPE_CHECKING:
    from pigdice.solve.policy import Policy

log = logging.getLogger("pigdice.web")

T = TypeVar("T")


def solve_in_worker(variant: Variant) -> Policy:
    """Solve (or load from the disk cache) the policy of ``variant``, in a worker process."""
    from pigdice.solve.solver import solve

    return solve(variant)


def warm_worker() -> bool:
    """Import the solver (numba and its compiled kernels) in a fresh worker."""
    import pigdice.solve.solver  # noqa: F401

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


class SolvePool:
    """A bounded process pool for solves, with one shared job per variant and a limit on waiting jobs."""

    def __init__(self, workers: int = 1, max_jobs: int = 8) -> None:
        self.workers = workers
        self.max_jobs = max_jobs
        self._executor: ProcessPoolExecutor | None = None
        self._jobs: dict[str, asyncio.Future[Any]] = {}

    @property
    def busy(self) -> int:
        """Return how many jobs run or wait."""
        return len(self._jobs)

    def start(self) -> None:
        """Start the worker process now (it imports the solver), so the first solve does not wait for it."""
        self._pool().submit(warm_worker)

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn: a fresh interpreter, never a fork of the server with its threads and sockets
            self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._executor

    def is_running(self, kind: str, variant: Variant) -> bool:
        """Return True while a job for ``variant`` runs or waits."""
        return job_key(kind, variant) in self._jobs

    def check_room(self, kind: str, variant: Variant) -> None:
        """Raise 503 ``busy`` if a new job for ``variant`` would be refused (it is neither running nor cached)."""
        if job_key(kind, variant) not in self._jobs and len(self._jobs) >= self.max_jobs:
            raise WebError(
                "busy",
                f"the server is preparing {len(self._jobs)} perfect players already; try again in a minute",
                503,
            )

    def job(self, kind: str, variant: Variant, work: Callable[[Variant], T]) -> asyncio.Future[T]:
        """Return the future of the job computing ``work(variant)`` in a worker, starting it unless it runs."""
        key = job_key(kind, variant)
        future = self._jobs.get(key)
        if future is not None:
            return future
        self.check_room(kind, variant)
        loop = asyncio.get_running_loop()
        try:
            future = asyncio.wrap_future(self._pool().submit(work, variant), loop=loop)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start a fresh pool
            log.error("the solve pool broke; starting a new one")
            self._executor = None
            future = asyncio.wrap_future(self._pool().submit(work, variant), loop=loop)
        self._jobs[key] = future
        future.add_done_callback(lambda done: self._finished(key, done))
        return future

    def _finished(self, key: str, future: asyncio.Future[Any]) -> None:
        """Forget a finished job; its error, if nobody waits for it any more, is logged rather than lost."""
        self._jobs.pop(key, None)
        if not future.cancelled() and future.exception() is not None:
            log.warning("solve job %s failed: %r", key, future.exception())

    async def policy(self, variant: Variant) -> Policy:
        """Return the solved policy of ``variant``'s roll/hold form: from memory, or from a (shared) worker job."""
        from pigdice.solve.solver import cached, remember

        target = variant.roll_hold_form()
        policy = cached(target)
        if policy is not None:
            return policy
        policy = await self.run("policy", target, solve_in_worker)
        remember(policy)
        return policy

    def policy_ready(self, variant: Variant) -> bool:
        """Return True if the policy of ``variant`` is in memory (no job needed)."""
        from pigdice.solve.solver import cached

        return cached(variant.roll_hold_form()) is not None

    def cached_policy(self, variant: Variant) -> Policy:
        """Return the in-memory policy of ``variant`` (call after ``policy_ready`` said yes)."""
        from pigdice.solve.solver import cached

        policy = cached(variant.roll_hold_form())
        if policy is None:
            raise WebError("solve_failed", "the perfect player's policy is not in memory; try again", 503)
        return policy

    async def run(self, kind: str, variant: Variant, work: Callable[[Variant], T]) -> T:
        """Return ``work(variant)`` computed in a worker; requests for the same job share it.

        ``work`` must be a module-level function (it is pickled by name). Many requests may wait for
        one job, so one request going away does not cancel it.
        """
        try:
            return await asyncio.shield(self.job(kind, variant, work))
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
