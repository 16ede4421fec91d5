"""The one progress bar of the command line: lazy (shown only for work over a second) and on stderr."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pigdice.cli.output import stderr_console

PROGRESS_AFTER = 1.0  # seconds of work before a progress bar appears on a terminal


class LazyBar:
    """A progress callback that shows a rich bar on stderr once the work has taken over a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.started = time.perf_counter()
        self.bar: Progress | None = None
        self.task: Any = None

    def __call__(self, fraction: float, label: str) -> None:
        """Record progress; start the bar once the work has run for ``PROGRESS_AFTER`` seconds."""
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.started < PROGRESS_AFTER:
                return
            self.bar = Progress(
                TextColumn("{task.description:<22}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeElapsedColumn(),
                console=stderr_console(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(label, total=1.0)
        self.bar.update(self.task, completed=min(max(fraction, 0.0), 1.0), description=label)

    def stop(self) -> None:
        """Remove the bar if it was shown."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[LazyBar]:
    """Yield a lazy progress callback (a bar only for work over a second, on a terminal)."""
    bar = LazyBar(enabled and sys.stderr.isatty())
    try:
        yield bar
    finally:
        bar.stop()
