"""Long work in a worker process that Ctrl-C (or a key) stops at once, reporting its progress as it goes.

A numba kernel cannot be interrupted: Python sees Ctrl-C only once the kernel returns, which in a
long solve (or while the kernels compile on a fresh install) can take minutes. ``run_in_worker``
runs the work in a worker process instead (spawned, never forked: the caller may have threads)
and waits for it in small steps, so the caller's Ctrl-C (KeyboardInterrupt) or its ``check()``
stops the worker within a tenth of a second: the worker is killed, and the next job starts a
new one. Between jobs the worker is kept, with its imports and compiled kernels loaded; each job
runs with the caller's environment and folder. The worker writes nothing that outlives it:
callers save what it returns themselves (atomically, ``storage.save_npz``), so a stopped solve
leaves no file behind. The worker ignores Ctrl-C itself (the terminal sends it to the whole
process group), so it never prints a traceback.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from pigdice.errors import PigdiceError

T = TypeVar("T")
Progress = Callable[[float, str], None]

POLL_SECONDS = 0.1  # how often the caller looks at the worker (and at ``check``) while it works
REPORT_SECONDS = 0.05  # the worker sends at most one progress report this often


class WorkerError(PigdiceError):
    """The worker process failed in a way that could not be sent back (it died, or its error does not pickle)."""


def _serve(connection: Connection) -> None:
    """Run jobs ``(work, args, environment, folder)`` until the caller goes: send progress, then the result."""
    last = [0.0]

    def progress(fraction: float, label: str) -> None:
        now = time.monotonic()
        if now - last[0] >= REPORT_SECONDS:
            last[0] = now
            connection.send(("progress", float(fraction), str(label)))

    while True:
        try:
            work, args, environment, folder = connection.recv()
        except (EOFError, OSError):
            return
        os.environ.clear()
        os.environ.update(environment)
        try:
            os.chdir(folder)
            result = work(*args, progress)
        except Exception as exc:  # every failure goes back to the caller, which raises it there
            try:
                connection.send(("error", exc))
            except Exception:  # an exception that does not pickle: its text still goes back
                connection.send(("error", WorkerError(f"{type(exc).__name__}: {exc}")))
            continue
        connection.send(("done", result))
        del result  # a kept worker holds no answer between jobs (a large policy is several GB)


class _Worker:
    """The worker process kept between jobs, and the end of the pipe the caller talks through."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, theirs = context.Pipe()
        self.process: BaseProcess = context.Process(target=_serve, args=(theirs,), daemon=True)
        main = threading.current_thread() is threading.main_thread()  # only the main thread sets handlers
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None  # the worker stays deaf to Ctrl-C
        try:
            self.process.start()
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        theirs.close()

    def stop(self) -> None:
        """Kill the worker at once (a job it runs is abandoned)."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


_KEPT: list[_Worker] = []
_LOCK = threading.Lock()  # one job at a time in this process


def run_in_worker(
    work: Callable[..., T],
    args: tuple[Any, ...] = (),
    progress: Progress | None = None,
    check: Callable[[], None] | None = None,
    cleanup: Callable[[float], None] | None = None,
) -> T:
    """Return ``work(*args, progress)`` computed in a worker process.

    ``work`` must be a module-level function and ``args`` picklable. The worker's progress reports
    reach ``progress``, the latest one again at every wait without news (so a display can start and
    tick while the kernels compile); ``check()`` is called between waits and may raise to stop (a
    key pressed). Any exception in the caller while waiting (KeyboardInterrupt on Ctrl-C) kills the
    worker at once and propagates; an error in the worker is raised here. ``cleanup(started)`` then
    removes what the killed worker may have left half-written since ``started`` (a ``time.time()``).
    """
    started = time.time()
    with _LOCK:
        worker = _KEPT.pop() if _KEPT and _KEPT[-1].process.is_alive() else _Worker()
        _KEPT.clear()
        answered = False
        try:
            worker.connection.send((work, args, dict(os.environ), os.getcwd()))
            kind, answer = _wait(worker, progress, check)
            answered = True  # the job is over (done, or failed in the worker): the worker is free again
        finally:
            if answered:
                _KEPT.append(worker)
            else:  # stopped while waiting (Ctrl-C, a key), or the worker died: the job is abandoned
                worker.stop()
                if cleanup is not None:
                    cleanup(started)
    if kind == "error":
        raise answer
    result: T = answer
    return result


def _wait(worker: _Worker, progress: Progress | None, check: Callable[[], None] | None) -> tuple[str, Any]:
    """Return ('done', the job's result) or ('error', the exception it raised), passing its progress on."""
    latest: tuple[float, str] = (0.0, "starting")
    while True:
        if worker.connection.poll(POLL_SECONDS):
            try:
                kind, *payload = worker.connection.recv()
            except EOFError:
                raise WorkerError("the worker process stopped without an answer") from None
            if kind == "progress":
                latest = (payload[0], payload[1])
                if progress is not None:
                    progress(*latest)
            elif kind in ("done", "error"):
                return kind, payload[0]
        elif not worker.process.is_alive() and not worker.connection.poll():
            code = worker.process.exitcode
            raise WorkerError(f"the worker process stopped (exit code {code}) without an answer")
        elif progress is not None:  # no news (the kernels compiling, a long pass): the caller's display goes on
            progress(*latest)
        if check is not None:
            check()
