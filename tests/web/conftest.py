"""Web test helpers: an app on a temporary SQLite database with no robot delay, and small clients."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install pigdice[web])")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import numpy as np
from webhelpers import SEED, make_settings

from pigdice.solve import exact, solver
from pigdice.web.app import create_app
from pigdice.web.config import Settings
from pigdice.web.manager import seeds_from


@pytest.fixture
def fresh_policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Solve into empty policy caches of the test's own: on disk and in this process's memory."""
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path / "policies"))
    monkeypatch.setattr(solver, "_MEMORY", solver.PolicyCache())
    monkeypatch.setattr(exact, "_MEMORY", solver.PolicyCache())


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Return settings on a fresh temporary database."""
    return make_settings(tmp_path)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """Return a TestClient of a running app (lifespan included) whose games' dice come from a seeded source."""
    with TestClient(create_app(settings, seeds_from(np.random.default_rng(SEED)))) as test_client:
        yield test_client
