"""The in-process policy cache: bounded by bytes (least recently used first), thread-safe, fed from workers."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import all_variants, find_variant
from pigdice.solve import cached, remember, solvable, solve, solve_uncached
from pigdice.solve import solver as solver_module
from pigdice.solve import storage as storage_module
from pigdice.solve.policy import START
from pigdice.solve.solver import PolicyCache

pytestmark = pytest.mark.usefixtures("fresh_policies")


def pig(goal: int):
    return find_variant("pig", goal=goal)


# --- bounded by bytes -----------------------------------------------------------------------------


def test_the_default_limit_is_a_module_constant(monkeypatch):
    assert PolicyCache().max_bytes == solver_module.MEMORY_CACHE_BYTES == 256 << 20
    monkeypatch.setattr(solver_module, "MEMORY_CACHE_BYTES", 1000)
    assert PolicyCache().max_bytes == 1000


def test_least_recently_used_policies_go_first():
    policies = {goal: solve_uncached(pig(goal)) for goal in (20, 21, 22)}
    limit = policies[20].nbytes + policies[21].nbytes + policies[22].nbytes - 1
    cache = PolicyCache(limit)
    cache.put("20", policies[20])
    cache.put("21", policies[21])
    assert cache.get("20") is policies[20]  # 20 is now the most recently used
    cache.put("22", policies[22])  # over the limit: 21 goes
    assert cache.get("21") is None
    assert cache.get("20") is policies[20] and cache.get("22") is policies[22]
    assert len(cache) == 2 and cache.nbytes <= limit


def test_a_policy_larger_than_the_limit_is_not_kept():
    policy = solve_uncached(pig(30))
    cache = PolicyCache(policy.nbytes - 1)
    cache.put("30", policy)
    assert cache.get("30") is None and len(cache) == 0


def test_solve_keeps_within_the_limit(monkeypatch):
    one = solve_uncached(pig(25)).nbytes
    monkeypatch.setattr(solver_module, "MEMORY_CACHE_BYTES", 3 * one)
    for goal in range(20, 26):
        solve(pig(goal))
    assert solver_module._MEMORY.nbytes <= 3 * one
    assert cached(pig(25)) is not None and cached(pig(20)) is None


def test_turn_rows_kept_by_a_policy_are_bounded(monkeypatch):
    monkeypatch.setattr(storage_module, "ROW_CACHE_BYTES", 20_000)
    policy = solve(pig(60))
    for i in range(60):
        for j in range(0, 60, 7):
            policy.turn(i, j)
    assert policy.nbytes <= policy.values.nbytes + 20_000
    assert policy.turn(5, 5).win[0] == pytest.approx(policy.win_probability(5, 5))


def test_threads_share_the_cache_safely(monkeypatch):
    one = solve_uncached(pig(25)).nbytes
    monkeypatch.setattr(solver_module, "MEMORY_CACHE_BYTES", 4 * one)
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for n in range(30):
                goal = 15 + (n * 7 + offset) % 11
                policy = solve(pig(goal))
                assert policy.values.shape == (goal, goal)
                cached(pig(goal))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert solver_module._MEMORY.nbytes <= 4 * one


# --- remember() and cached(): the web's solve pool ----------------------------------------------


def test_cached_never_solves_and_never_reads_the_disk(monkeypatch):
    variant = pig(30)
    solve(variant)  # now on disk and in memory
    solver_module._MEMORY.clear()

    def refuse(*args, **kwargs):
        raise AssertionError("cached() must not solve")

    monkeypatch.setattr(solver_module, "solve_uncached", refuse)
    monkeypatch.setattr(solver_module.Policy, "load", refuse)
    assert cached(variant) is None


def test_a_policy_from_a_worker_is_remembered():
    variant = find_variant("pig", goal=30, endgame="equal-turns")
    from_worker = pickle.loads(pickle.dumps(solve_uncached(variant)))
    assert cached(variant) is None
    remember(from_worker)
    assert cached(variant) is from_worker
    assert cached(solvable(variant)) is from_worker  # the solvable (first-to-goal) form is the key
    assert solve(variant) is from_worker and from_worker.from_cache


def test_cached_refuses_what_solve_refuses():
    with pytest.raises(BadParameterError, match="the solver"):
        cached(find_variant("swine-herd"))
    assert cached(find_variant("swine-herd", goal=30).roll_hold_form()) is None


def test_remember_refuses_a_policy_of_the_wrong_shape():
    policy = solve_uncached(pig(20))
    policy.values = np.zeros((3, 3))
    with pytest.raises(BadParameterError, match="shape"):
        remember(policy)


# --- a policy pickles (it is sent back from a worker process) ------------------------------------


@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.name)
def test_every_registered_variants_policy_pickles(variant):
    variant = variant.roll_hold_form().with_goal(16)
    policy = solve_uncached(variant)
    policy.win_probability(0, 0)  # the start turn's row (roll/hold games), sent: the caller's start action
    policy.win_probability(5, 3)  # another row, which is not sent
    data = pickle.dumps(policy)
    again = pickle.loads(data)
    assert again.variant == policy.variant and again.variant.fingerprint() == variant.fingerprint()
    assert np.array_equal(again.values, policy.values)
    assert (again.iterations, again.residual) == (policy.iterations, policy.residual)
    start = policy._rows.get(START)
    assert len(again._rows) == (0 if start is None else 1) and again._rows.get((5, 3)) is None
    if start is not None:
        sent = again._rows.get(START)
        assert all(
            np.array_equal(getattr(sent, part), getattr(start, part)) for part in ("win", "action", "hold", "rolls")
        )
        assert again.nbytes == again.values.nbytes + sum(
            getattr(start, p).nbytes for p in ("win", "action", "hold", "rolls")
        )
    else:
        assert again.nbytes == again.values.nbytes
    assert np.array_equal(again.action_table(), policy.action_table())
    assert again.win_probability(3, 5) == policy.win_probability(3, 5)
    assert len(data) < again.values.nbytes + 20_000  # the values and the variant, not the caches
