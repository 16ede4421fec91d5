"""The server's worker processes: spawned, dying with it, one shared job per key, and a folder of their files.

``SolvePool`` (solves) and ``LongJobs`` (long games' records and verifications) are both this: a
``ProcessPoolExecutor`` started on first use, jobs keyed so that equal requests share one, a bound
on jobs that run or wait, a pool replaced when a worker dies, and a temporary folder removed when
the pool closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from pigdice.solve.threads import THREADS_ENV
from pigdice.web.errors import WebError

T = TypeVar("T")

PR_SET_PDEATHSIG = 1  # Linux prctl: the signal a process gets when its parent dies


def quiet_worker(server: int = 0) -> None:
    """Set a worker up: it dies with the server, and leaves Ctrl-C to it.

    On Linux the kernel kills the worker when the server dies, however it dies (``kill -9`` included), and a
    server already gone kills it at once; so no worker, nor the resource tracker they keep open, outlives it.
    A terminal sends Ctrl-C (SIGINT) to every process of the group, and a worker that took it would die printing
    a traceback while the server shuts down (the server stops its workers itself): it is ignored here.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a solve in a worker keeps to one core (the server's event loop has the other) unless the operator says more
    os.environ.setdefault(THREADS_ENV, "1")
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the worker still stops when the server closes the pool
    if server and os.getppid() != server:  # the server died before the line above took effect
        os._exit(1)


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


class WorkerPool:
    """Worker processes with keyed, shared jobs (at most ``max_jobs`` running or waiting) and a temporary folder."""

    busy_message = "the server is busy; try again in a minute"

    def __init__(self, workers: int, max_jobs: int, initializer: Callable[[int], None], folder_prefix: str) -> None:
        self.workers = workers
        self.max_jobs = max_jobs
        self._initializer = initializer
        self._folder_prefix = folder_prefix
        self._executor: ProcessPoolExecutor | None = None
        self._jobs: dict[str, asyncio.Future[Any]] = {}
        self._folder: str | None = None

    @property
    def busy(self) -> int:
        """Return how many jobs run or wait."""
        return len(self._jobs)

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn: a fresh interpreter, never a fork of the server with its threads and sockets
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=self._initializer,
                initargs=(os.getpid(),),
            )
        return self._executor

    def folder(self) -> str:
        """Return this server's folder of the workers' files (made on first use, removed when the pool closes)."""
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix=self._folder_prefix)
        return self._folder

    def _check_key(self, key: str) -> None:
        """Raise 503 ``busy`` if a new job ``key`` would be one too many."""
        if key not in self._jobs and len(self._jobs) >= self.max_jobs:
            raise WebError("busy", self.busy_message, 503)

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
                self._pool_broke()
                self._executor = None
                future = asyncio.wrap_future(self._pool().submit(work, *args), loop=loop)
        self._jobs[key] = future
        future.add_done_callback(lambda done: self._finished(key, done))
        return future

    def _pool_broke(self) -> None:
        """Note that the pool broke before it is replaced (a hook; nothing by default)."""

    def _finished(self, key: str, future: asyncio.Future[Any]) -> None:
        """Forget a finished job."""
        self._jobs.pop(key, None)

    def _forget_broken_pool(self) -> None:
        """Drop the pool if one of its workers died, so that the next job starts a fresh one."""
        if self._executor is not None and getattr(self._executor, "_broken", False):
            self._executor = None

    def close(self) -> None:
        """Stop the worker processes (running jobs are abandoned) and remove their folder."""
        if self._executor is not None:
            # a running job may take minutes: its worker is stopped, not waited for (the pool has no API for it)
            workers = list((getattr(self._executor, "_processes", None) or {}).values())
            for process in workers:
                process.kill()
            for process in workers:
                process.join(timeout=5)
            self._executor.shutdown(wait=True, cancel_futures=True)  # quick now: its workers are gone
            self._executor = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
