"""The one progress bar of the terminal and the command line: shown only for work over a second, with the time
elapsed and an estimate of the time left, and how to stop it."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

PROGRESS_AFTER = 1.0  # seconds of work before a progress bar appears


class LazyBar:
    """A progress callback ``(fraction, label)`` that shows a rich bar once the work has taken over a second."""

    def __init__(
        self, console: Console, enabled: bool = True, stop_keys: str = "Ctrl-C stops", after: float = PROGRESS_AFTER
    ) -> None:
        self.console = console
        self.enabled = enabled
        self.stop_keys = stop_keys
        self.after = after  # 0: show the bar at the first call (work known to be long, or silent between calls)
        self.started = time.perf_counter()
        self.bar: Progress | None = None
        self.task: Any = None

    def __call__(self, fraction: float, label: str) -> None:
        """Record progress; start the bar once the work has run for ``after`` seconds (``PROGRESS_AFTER``)."""
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.started < self.after:
                return
            self.bar = Progress(
                TextColumn("{task.description:<22}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeElapsedColumn(),
                TextColumn("elapsed, about"),
                TimeRemainingColumn(),
                TextColumn(f"left · {self.stop_keys}"),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(label, total=1.0)
        self.bar.update(self.task, completed=min(max(fraction, 0.0), 1.0), description=label)

    def restart(self) -> None:
        """Start counting the second again (the next piece of work), removing the bar if it was shown."""
        self.stop()
        self.started = time.perf_counter()

    def stop(self) -> None:
        """Remove the bar if it was shown."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
