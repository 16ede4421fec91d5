"""The solve pool: the perfect player's policies and the explorer's data, computed in a worker process.

Solving is seconds of CPU (numba, and pure Python around it), so it never runs on the event loop
or its threads: jobs go to a bounded process pool. Requests for the same solve share one job (an
exact solve is keyed by ``exact_key``: its solver, number of players, ending, tie rule and final
turn); when more than ``max_jobs`` different solves wait, new ones are refused (503 ``busy``) instead
of queueing without end. A policy already solved never waits for that limit: in memory it is at hand,
in the solvers' disk cache it is read in a thread here. How large a solve may be is the perfect
player's decision (``pigdice.solve.cost``, within the server's bounds): the pool solves what it is asked.

A result larger than ``spill_bytes`` (Swine Herd to 199 is a 302 MB policy) does not travel through the
pipe, where unpickling it would hold the server for a second: the worker writes it to a spill file
(pickle protocol 5, its arrays out of band) and the server maps the file back (``load_spill``: no copy,
the arrays read from the page cache). The spill files are this server's disk cache of big policies,
kept until it stops, so a big policy is never solved twice. A worker that dies (killed, out of memory)
has its job tried once more in a fresh worker; workers die with the server (``quiet_worker``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import mmap
import os
import pickle
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pigdice import files
from pigdice.errors import PigdiceError
from pigdice.rules.variant import Variant
from pigdice.web.errors import WebError
from pigdice.web.workerpool import WorkerPool, quiet_worker, workers_ignore_ctrl_c

if TYPE_CHECKING:
    from pigdice.solve.exact import ExactPolicy
    from pigdice.solve.policy import Policy

log = logging.getLogger("pigdice.web")

T = TypeVar("T")

SPILL_BYTES = 16 * 2**20  # a result with more array bytes than this comes back through a spill file
MAPPED_POLICIES = 8  # spilled policies kept mapped (their pages are the page cache's, not the server's)
SPILL_MAGIC = b"pigdice-spill-1\n"
ALIGN = 64  # each array of a spill file starts at a multiple of this (numpy reads aligned data fastest)


@dataclass(frozen=True)
class Spilled:
    """A worker's result written to a spill file (too large for the pipe): its path and its array bytes."""

    path: str
    nbytes: int


def spill(result: Any, folder: str, threshold: int = SPILL_BYTES) -> Any:
    """Return ``result`` itself if its arrays are small, else write it to a new spill file in ``folder`` and
    return its ``Spilled`` handle: an index, then the pickle (protocol 5) and its arrays out of band, aligned."""
    buffers: list[pickle.PickleBuffer] = []
    head = pickle.dumps(result, protocol=5, buffer_callback=buffers.append)
    parts = [memoryview(head), *(buffer.raw() for buffer in buffers)]
    total = sum(part.nbytes for part in parts[1:])
    if total < threshold:
        return result
    room = 48 * len(parts) + 16  # the index's bytes, fixed first: the offsets it lists depend on it
    offset = len(SPILL_MAGIC) + 16 + room
    spans = []
    for part in parts:
        offset = -(-offset // ALIGN) * ALIGN
        spans.append((offset, part.nbytes))
        offset += part.nbytes
    index = json.dumps(spans).encode().ljust(room)  # JSON allows the spaces that pad it
    path = Path(folder) / f"{os.getpid()}-{os.urandom(6).hex()}.spill"
    with files.replacing(path, binary=True) as stream:
        stream.write(SPILL_MAGIC + room.to_bytes(16, "little") + index)
        position = len(SPILL_MAGIC) + 16 + room
        for (at, size), part in zip(spans, parts, strict=True):
            stream.write(bytes(at - position))
            stream.write(part)
            position = at + size
    return Spilled(str(path), total)


def load_spill(path: str) -> Any:
    """Return the result in the spill file at ``path``, its arrays mapped from the file (copy-on-write: no copy
    is made, and nothing written to them reaches the file)."""
    with open(path, "rb") as stream:
        mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_COPY)
    start = len(SPILL_MAGIC) + 16
    if mapped[: len(SPILL_MAGIC)] != SPILL_MAGIC:
        raise WebError("solve_failed", "a spilled policy file is damaged; try again", 503)
    size = int.from_bytes(mapped[len(SPILL_MAGIC) : start], "little")
    spans = json.loads(mapped[start : start + size])
    view = memoryview(mapped)
    (at, length), *rest = spans
    return pickle.loads(view[at : at + length], buffers=[view[o : o + n] for o, n in rest])


def exact_in_worker(variant: Variant, players: int, folder: str = "", threshold: int = SPILL_BYTES) -> Any:
    """Solve (or load from the disk cache) the exact policy of ``variant`` played by ``players``, in a worker;
    a large one comes back as a spill file in ``folder`` (``spill``)."""
    from pigdice.solve.exact import exact_policy

    policy = exact_policy(variant, players)
    return spill(policy, folder, threshold) if folder else policy


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


class SolvePool(WorkerPool):
    """A bounded process pool for solves, with one shared job per solve and a limit on waiting jobs."""

    def __init__(self, workers: int = 1, max_jobs: int = 8, spill_bytes: int = SPILL_BYTES) -> None:
        super().__init__(workers, max_jobs, quiet_worker, "pigdice-web-spill-")
        self.spill_bytes = spill_bytes
        self._spilled: dict[str, str] = {}  # exact job key -> its spill file
        self._mapped: OrderedDict[str, ExactPolicy] = OrderedDict()  # spilled policies mapped, most recent last
        self.retried = 0  # jobs tried again after their worker died

    @property
    def running(self) -> list[str]:
        """Return the keys of the jobs that run or wait."""
        return list(self._jobs)

    def start(self) -> None:
        """Start the worker process now (it imports the solver), so the first solve does not wait for it."""
        with workers_ignore_ctrl_c():
            self._pool().submit(warm_worker)

    def spill_dir(self) -> str:
        """Return this server's folder of spill files (made on first use, removed when the pool closes)."""
        return self.folder()

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

    def _pool_broke(self) -> None:
        log.error("the solve pool broke; starting a new one")

    def _finished(self, key: str, future: asyncio.Future[Any]) -> None:
        """Forget a finished job; its error, if nobody waits for it any more, is logged rather than lost."""
        self._jobs.pop(key, None)
        if not future.cancelled() and future.exception() is not None:
            log.warning("solve job %s failed: %r", key, future.exception())

    # -- exact policies --------------------------------------------------------------------
    async def exact(self, variant: Variant, players: int) -> ExactPolicy:
        """Return the exact policy of ``variant`` played by ``players``: from memory, a spill file or the disk
        cache (read in a thread: never refused as busy), or from a (shared) job.

        The caller checks that a solver exists (``exactness``) and that the solve is within its bounds.
        """
        from pigdice.solve.exact import exact_policy, is_cached, remember_exact

        key = exact_job_key(variant, players)
        policy = self._at_hand(key, variant, players)
        if policy is not None:
            return policy
        if key in self._spilled:
            return await self._map(key, self._spilled[key])
        if is_cached(variant, players):  # solved before, on disk: read it here, off the loop
            policy = await asyncio.to_thread(exact_policy, variant, players)
            remember_exact(policy)
            return policy
        result = await self._wait(key, exact_in_worker, variant, players, self.spill_dir(), self.spill_bytes)
        if isinstance(result, Spilled):
            self._spilled[key] = result.path
            return await self._map(key, result.path)
        remember_exact(result)
        return result

    def _at_hand(self, key: str, variant: Variant, players: int) -> ExactPolicy | None:
        """Return the policy if it is in memory or mapped from a spill file, else None (never waits)."""
        from pigdice.solve.exact import cached_exact

        policy = cached_exact(variant, players)
        if policy is None and key in self._mapped:
            self._mapped.move_to_end(key)
            policy = self._mapped[key]
        return policy

    async def _map(self, key: str, path: str) -> ExactPolicy:
        """Map the spilled policy at ``path`` in a thread and keep it among the mapped ones."""
        policy: ExactPolicy = await asyncio.to_thread(load_spill, path)
        self._mapped[key] = policy
        self._mapped.move_to_end(key)
        while len(self._mapped) > MAPPED_POLICIES:
            self._mapped.popitem(last=False)
        return policy

    def exact_ready(self, variant: Variant, players: int) -> bool:
        """Return True if the exact policy of ``variant`` with ``players`` players is at hand (no wait at all)."""
        return self._at_hand(exact_job_key(variant, players), variant, players) is not None

    def exact_known(self, variant: Variant, players: int) -> bool:
        """Return True if the exact policy needs no solve: at hand, spilled here, or in the solvers' disk cache."""
        from pigdice.solve.exact import is_cached

        key = exact_job_key(variant, players)
        return self.exact_ready(variant, players) or key in self._spilled or is_cached(variant, players)

    def cached_exact(self, variant: Variant, players: int) -> ExactPolicy:
        """Return the exact policy at hand (call after ``exact_ready`` said yes)."""
        policy = self._at_hand(exact_job_key(variant, players), variant, players)
        if policy is None:
            raise WebError("solve_failed", "the perfect player's policy is not in memory; try again", 503)
        return policy

    def check_exact_room(self, variant: Variant, players: int) -> None:
        """Raise 503 ``busy`` if the exact solve of ``variant`` with ``players`` players would be refused (a policy
        solved before never is)."""
        if not self.exact_known(variant, players):
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
        """Return the result of the job ``key`` (``work(*args)``), its failures turned into web errors; a job
        whose worker died (killed, out of memory) is tried once more in a fresh worker."""
        retried = False
        while True:
            try:
                return await asyncio.shield(self._submit(key, work, *args))
            except PigdiceError:
                raise
            except BrokenProcessPool:
                self._forget_broken_pool()
                if retried:
                    raise WebError("solve_failed", "the perfect player could not be prepared; try again", 503) from None
                retried = True
                self.retried += 1
                log.warning("a solve worker died; its job %s is tried once more", key)
            except MemoryError:
                raise WebError(
                    "solve_failed", "the perfect player needs more memory than this server has", 503
                ) from None

    def close(self) -> None:
        """Stop the worker processes (running jobs are abandoned) and remove the spill files."""
        super().close()
        self._mapped.clear()
        self._spilled.clear()


def _plain(policy: ExactPolicy) -> Policy:
    """Return the 2-player first-to-goal ``Policy`` inside ``policy`` (what the approximations read)."""
    plain = policy.first_to_goal()
    if plain is None:
        raise WebError("solve_failed", "the perfect player's policy is of another game; try again", 503)
    return plain
