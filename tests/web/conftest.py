"""Web test helpers: an app on a temporary SQLite database with no robot delay, and small clients."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install pigdice[web])")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import numpy as np
from browserhelpers import chromium_browser
from webhelpers import SEED, make_settings, served

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


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Launch Chromium once for a browser test module, or skip (fail in CI) when it or Playwright is missing."""
    with chromium_browser() as browser:
        yield browser


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[str]:
    """Start a real server for a browser test module (robots move at once); return its base URL."""
    with served(tmp_path_factory.mktemp(request.module.__name__) / "games.sqlite3") as url:
        yield url
