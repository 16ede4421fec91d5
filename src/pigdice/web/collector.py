"""The garbage collector around a long game's big jobs, so that none of its full passes stalls the event loop.

Loading a room of 100,000 moves, writing its record or checking its dice builds hundreds of thousands of
objects in a worker thread. Each time the objects that survive grow by a quarter, CPython runs a full
collection over every one of them, holding the GIL: 0.3-3.6 s with such a room on a busy two-core machine
(bench/web_health.py), during which the event loop answers nothing. While such a job runs, automatic
collection waits (the job's temporaries are freed by their reference counts as it ends). What a job keeps
(a long room loaded this way, the rows it was read from) is then frozen (``gc.freeze``): else the first
collection after the pause would walk all of it (0.35 s), and later full passes too. Freezing keeps whatever
is alive at that moment out of every later collection, so a reference cycle frozen then is never freed: only
long games (``LONG_GAME`` moves and more, rare) are frozen, never every room.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

LONG_GAME = 10_000  # moves: a game this long is kept out of later full collections once loaded

_lock = threading.Lock()
_running = 0  # jobs in the block now: collection resumes when the last one ends


def without_collection(job: Callable[..., T], *args: Any, keep: bool | Callable[[T], bool] = False) -> T:
    """Run ``job(*args)`` with automatic garbage collection paused; freeze what it built if ``keep`` is true (or,
    given a function, if it says so of the job's result)."""
    global _running
    with _lock:
        _running += 1
        gc.disable()
    freeze = False
    try:
        result = job(*args)
        freeze = keep(result) if callable(keep) else keep
        return result
    finally:
        with _lock:
            _running -= 1
            if freeze:
                gc.freeze()
            if _running == 0:
                gc.enable()


def is_long_game(record: Any) -> bool:
    """Return whether a stored game (anything with ``moves``, or None) has ``LONG_GAME`` moves or more."""
    return record is not None and len(getattr(record, "moves", ())) >= LONG_GAME


def release(items: list[Any], piece: int = 1000) -> None:
    """Empty ``items`` a piece at a time, from the end (a thread that frees 100,000 rows in one go holds the GIL
    for a fifth of a second; between pieces the event loop gets its turn)."""
    while items:
        del items[-piece:]
