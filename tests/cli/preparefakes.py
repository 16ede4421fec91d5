"""Stand-in parts for ``pigdice prepare``'s worker processes (importable by name in a spawned process)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def _nothing() -> None:
    """Do nothing: a job that compiles nothing."""


def _fail() -> None:
    """Fail as a broken job would."""
    raise ValueError("the dice are loaded")


def _die() -> None:
    """End the process at once, as the system's out-of-memory killer would."""
    os._exit(3)


def _linger() -> None:
    """Write this process's id where the test looks, then wait as a long compile would."""
    Path(os.environ["PREPARE_TEST_DIR"], f"{os.getpid()}.pid").touch()
    time.sleep(60)


def fake_jobs(name: str) -> list[tuple[str, object]]:
    """Return a stand-in part's jobs: two that do nothing, unless the name asks for trouble."""
    trouble = {"broken": _fail, "killed": _die, "long": _linger}
    if name in trouble:
        return [(f"{name} job", trouble[name])]
    return [(f"{name} job {number}", _nothing) for number in (1, 2)]
