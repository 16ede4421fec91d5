"""Work in a worker process: its result and progress come back, its errors are raised here, and a stop is at once."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

from pigdice.errors import BadParameterError
from pigdice.solve import background
from pigdice.solve.background import run_in_worker


def counted(n: int, progress: Callable[[float, str], None]) -> tuple[int, str | None]:
    """Report n steps of progress and return n with the worker's PIGDICE_TEST_MARK."""
    for step in range(n):
        progress(step / n, f"step {step}")
        time.sleep(0.06)
    return n, os.environ.get("PIGDICE_TEST_MARK")


def refused(reason: str, progress: Callable[[float, str], None]) -> None:
    """Raise the input error a solve raises."""
    raise BadParameterError(reason)


def endless(seconds: float, progress: Callable[[float, str], None]) -> None:
    """Work (sleep) for ``seconds``: far longer than a test waits."""
    time.sleep(seconds)


def test_the_result_progress_and_environment_of_a_job_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIGDICE_TEST_MARK", "first")
    seen: list[tuple[float, str]] = []
    assert run_in_worker(counted, (4,), lambda f, label: seen.append((f, label))) == (4, "first")
    assert seen and all(0.0 <= f < 1.0 for f, _ in seen) and seen[0][1] in ("starting", "step 0")
    monkeypatch.setenv("PIGDICE_TEST_MARK", "second")  # the kept worker runs each job in the caller's environment
    assert run_in_worker(counted, (1,)) == (1, "second")


def test_an_error_in_the_worker_is_raised_here_and_the_worker_is_kept() -> None:
    with pytest.raises(BadParameterError, match="no such goal"):
        run_in_worker(refused, ("no such goal",))
    kept = list(background._KEPT)
    assert len(kept) == 1 and kept[0].process.is_alive()
    assert run_in_worker(counted, (1,))[0] == 1
    assert kept == background._KEPT  # the same process ran the next job


@pytest.mark.parametrize("stop", [KeyboardInterrupt, BadParameterError])
def test_a_stop_while_waiting_kills_the_worker_at_once(stop: type[BaseException]) -> None:
    started = time.perf_counter()
    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) > 3:
            raise stop("stop")

    with pytest.raises(stop):
        run_in_worker(endless, (600.0,), check=check)
    assert time.perf_counter() - started < 30  # spawning the worker, 4 waits of 0.1 s, the kill
    assert background._KEPT == []  # the worker was killed, not kept
    assert run_in_worker(counted, (1,))[0] == 1  # the next job starts a new one


def test_a_stopped_job_is_tidied_after() -> None:
    tidied: list[float] = []

    def check() -> None:
        raise KeyboardInterrupt

    before = time.time()
    with pytest.raises(KeyboardInterrupt):
        run_in_worker(endless, (600.0,), check=check, cleanup=tidied.append)
    assert len(tidied) == 1 and before <= tidied[0] <= time.time()
    run_in_worker(counted, (1,), cleanup=tidied.append)
    assert len(tidied) == 1  # a finished job leaves nothing to tidy


def test_the_cache_loses_only_unfinished_saves_begun_since(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.solve.policyfile import remove_partial_files

    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    old = tmp_path / "pig-goal100.npz1234.tmp"
    old.write_bytes(b"x")
    os.utime(old, (time.time() - 3600, time.time() - 3600))  # another program's, long ago
    finished = tmp_path / "pig-goal100.npz"
    finished.write_bytes(b"x")
    since = time.time()
    partial = tmp_path / "pig-goal90.npzabcd.tmp"
    partial.write_bytes(b"x")
    remove_partial_files(since)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([old.name, finished.name])


@pytest.mark.usefixtures("fresh_policies")
@pytest.mark.parametrize(
    "players, endgame",
    [(3, "first-to-goal"), (2, "first-to-goal"), pytest.param(2, "final-round", marks=pytest.mark.slow)],
)
def test_a_large_policy_comes_back_through_the_disk_cache_not_the_pipe(players: int, endgame: str) -> None:
    """A worker saves a policy over the hand-back bound to the cache and the caller reads that file back: the
    same values as one sent through the pipe (which would pickle it whole in both processes)."""
    from pigdice.rules import find_variant
    from pigdice.rules.variant import Endgame
    from pigdice.solve import exact
    from pigdice.solve.exact import SavedPolicy, solve_for_caller, solve_in_worker
    from pigdice.solve.positions import Position

    variant = find_variant("pig", goal=8).with_endgame(Endgame(endgame))
    answer, _ = solve_for_caller(variant, players, 0, lambda fraction, label: None)  # in process: what the worker does
    assert isinstance(answer, SavedPolicy) and answer.path.endswith(".npz")
    piped, _ = solve_in_worker(variant, players, use_cache=False)  # small enough for the pipe
    assert not isinstance(piped, SavedPolicy)
    read, _ = solve_in_worker(variant, players, handed_bytes=0)
    assert exact.is_cached(variant, players)
    assert read.win_probability_by_seat() == piped.win_probability_by_seat()
    assert read.win_vector(Position((5,) * players, 2)) == piped.win_vector(Position((5,) * players, 2))


def no_worker(*args: object, **kwargs: object) -> None:
    """Stand in for ``run_in_worker`` where a solve must run in the caller's process."""
    raise AssertionError("a worker was started")


@pytest.mark.usefixtures("fresh_policies")
def test_a_short_solve_whose_kernels_are_compiled_runs_here(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker costs a second Python with numba (Pig to 100: 0.3 s of CPU, its solve 0.01 s); once a worker has
    marked a game's kernels compiled, a short solve of the same rules runs in the caller, with the same values."""
    from pigdice import kernelcache
    from pigdice.rules import find_variant
    from pigdice.solve import exact
    from pigdice.solve.cost import is_short

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "kernels"))  # the marks' folder (numba read its own at import)
    variant = find_variant("pig", goal=8)
    work = exact.kernel_work(variant, 2)
    assert not kernelcache.kernels_ready(work)  # nothing compiled there yet: a worker, which Ctrl-C stops at once
    exact.solve_for_caller(variant, 2, None, lambda fraction, label: None)  # what a worker does: it marks them
    assert kernelcache.kernels_ready(work)
    assert exact.kernel_work(variant.with_goal(100), 2) == work  # the same kernels at any goal
    assert exact.kernel_work(find_variant("two-dice-pig", goal=8), 2) != work  # other rules: other kernels
    assert exact.kernel_work(variant, 3) != work
    assert is_short(variant, 2) and is_short(variant.with_goal(100), 2)
    assert not is_short(variant.with_goal(1000), 2)  # too long to keep Ctrl-C waiting (4 s or more)
    assert not is_short(variant, 2, max_bytes=0)  # larger than a policy handed back whole
    monkeypatch.setattr(background, "run_in_worker", no_worker)
    here, _ = exact.solve_in_worker(variant, 2, use_cache=False, short=True)
    assert here.win_probability_by_seat() == exact.exact_policy(variant, 2, use_cache=False).win_probability_by_seat()
    with pytest.raises(AssertionError, match="a worker was started"):
        exact.solve_in_worker(variant, 2, use_cache=False)  # not said short: a worker
