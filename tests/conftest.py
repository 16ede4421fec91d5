"""Shared test helpers: scripted games, private caches for policies and saved games, hypothesis profiles."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import platformdirs
import pytest
from hypothesis import HealthCheck, settings

from pigdice.engine.events import Event
from pigdice.engine.game import GameState, parse_action, replay
from pigdice.rules import ScriptedDice, Variant

Play = Callable[..., tuple[GameState, list[Event]]]

# Hypothesis: "dev" on a workstation; "ci" where the CI environment variable is set (or by
# HYPOTHESIS_PROFILE=ci): derandomized, so every run tries the same examples, without deadlines,
# so a busy machine never fails a property for being slow, and without an example database.
settings.register_profile("dev", deadline=1000)
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def hypothesis_profile(environ: dict[str, str] | os._Environ[str]) -> str:
    """Return the hypothesis profile for an environment: HYPOTHESIS_PROFILE, else 'ci' under CI, else 'dev'."""
    chosen = environ.get("HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    in_ci = environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return "ci" if in_ci else "dev"


settings.load_profile(hypothesis_profile(os.environ))


def keep_bytecode_outside_the_sources(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """Where PYTHONDONTWRITEBYTECODE is set, keep the bytecode of this run and its subprocesses in the user's cache.

    Without it every process compiles every module it imports again, and pytest rewrites the asserts of all 278
    test modules again in each xdist worker (collection 17 -> 8.5 CPU-s a process). The bytecode goes to a folder
    of its own (PYTHONPYCACHEPREFIX), never beside the sources; returns that folder, or None where nothing changes.
    """
    if not environ.get("PYTHONDONTWRITEBYTECODE") or sys.pycache_prefix:
        return None
    folder = str(Path(platformdirs.user_cache_dir("pigdice")) / "bytecode")
    sys.pycache_prefix, sys.dont_write_bytecode = folder, False
    environ["PYTHONPYCACHEPREFIX"] = folder  # the subprocesses (the CLI, examples, workers) read it too
    environ.pop("PYTHONDONTWRITEBYTECODE")
    return folder


keep_bytecode_outside_the_sources(os.environ)


# the libraries that start a pool of OpenMP threads read this at their first parallel call (torch) or load (OpenBLAS)
THREAD_VARIABLES = ("OMP_NUM_THREADS",)


def one_thread_per_worker(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """Give torch's and OpenBLAS's thread pools one thread (OMP_NUM_THREADS=1) unless the environment chose a number.

    ``pytest -n 2`` runs two workers on two cores: a pool of one thread per core in each worker asks for twice the
    cores there are, and OpenMP's idle threads spin while they wait. Measured (same machine and load, serial): the
    learner tests (envs/test_learners, the research page's examples, study/test_agent_models, cli/test_cli_bench)
    took 45.0 CPU-s with two torch threads and 17.4 with one; the research page's MaskablePPO example alone 11.9
    and 2.9. numba's threads (NUMBA_NUM_THREADS) do not read it. Returns the variables it set (for subprocesses too).
    """
    chosen = [name for name in THREAD_VARIABLES if name not in environ]
    for name in chosen:
        environ[name] = "1"
    return chosen


one_thread_per_worker(os.environ)  # before anything imports numpy or torch: this module imports neither


def play_script(
    variant: Variant, players: int, actions: str, throws: list[tuple[int, ...] | None]
) -> tuple[GameState, list[Event]]:
    """Replay whitespace-separated actions ('r', 'h', 'roll:3') against scripted throws.

    Every scripted throw must be used, so a table row cannot silently leave dice unread.
    """
    dice = ScriptedDice(throws)
    state, events = replay(variant, players, None, [parse_action(a) for a in actions.split()], dice=dice)
    assert dice.remaining == 0, f"{dice.remaining} scripted throws were never used"
    return state, events


@pytest.fixture(autouse=True, scope="session")
def _user_folders_untouched(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep solved policies, saved games and learners' logs of the test run in temporary folders, never the user's.

    The policies solved in this session are shared by every test (on disk and in memory): a test that
    needs to see a solve, a cache file or a memory limit for itself asks for ``fresh_policies``.
    """
    os.environ.setdefault("PIGDICE_CACHE_DIR", str(tmp_path_factory.mktemp("policies")))
    os.environ.setdefault("PIGDICE_GAMES_DIR", str(tmp_path_factory.mktemp("games")))
    # Stable-Baselines3 makes a log folder per model it trains (in /tmp unless told), even when it logs nothing
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))


@pytest.fixture(autouse=True, scope="session")
def _cli_built_once() -> Iterator[None]:
    """Build the command line's click commands once per session, as the installed script does once per run.

    ``typer.testing.CliRunner.invoke`` rebuilds every command from its function signatures on each call
    (~40 ms of CPU for pigdice's 20-odd commands), which made that rebuild most of an in-process CLI test.
    """
    import typer.testing

    build = typer.testing._get_command
    built: dict[int, tuple[object, object]] = {}

    def built_once(app: typer.Typer) -> object:
        if id(app) not in built:
            built[id(app)] = (app, build(app))  # the app is kept, so its id is never reused
        return built[id(app)][1]

    typer.testing._get_command = built_once  # type: ignore[assignment]
    yield
    typer.testing._get_command = build


@pytest.fixture
def fresh_policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give the test empty policy caches of its own: a new disk folder (returned) and empty memory caches.

    Covers both caches of this process: the 2-player first-to-goal policies (``pigdice.solve.solver``)
    and the exact policies of every other game (``pigdice.solve.exact``). Everything is put back after
    the test, so the session's shared solves stay.
    """
    from pigdice.solve import exact, solver

    folder = tmp_path / "policies"
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(folder))
    monkeypatch.setattr(solver, "_MEMORY", solver.PolicyCache())
    monkeypatch.setattr(exact, "_MEMORY", solver.PolicyCache())
    return folder


@pytest.fixture
def play() -> Play:
    """Return the scripted-game helper ``play(variant, players, actions, throws)``."""
    return play_script
