"""The command line's progress bar (``pigdice.terminal.waiting.LazyBar``): lazy, on stderr, with an estimate."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from pigdice.cli.output import stderr_console
from pigdice.terminal.waiting import PROGRESS_AFTER, LazyBar

__all__ = ["PROGRESS_AFTER", "LazyBar", "progress_bar"]


@contextmanager
def progress_bar(enabled: bool = True, after: float = PROGRESS_AFTER) -> Iterator[LazyBar]:
    """Yield a lazy progress callback (a bar only for work over ``after`` seconds, on a terminal)."""
    bar = LazyBar(stderr_console(), enabled and sys.stderr.isatty(), after=after)
    try:
        yield bar
    finally:
        bar.stop()
