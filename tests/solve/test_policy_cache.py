"""A damaged or odd policy cache is never trusted and never fatal: it is refused, re-solved and replaced."""

from __future__ import annotations

import os
import stat
import threading
import time
import zipfile

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.solve import Policy, cache_path, solve, solve_uncached

VARIANT = find_variant("pig", goal=15)


@pytest.fixture
def cache(fresh_policies):
    """Return where the test's own (empty) policy cache keeps ``VARIANT``."""
    return cache_path(VARIANT)


def saved_bytes(tmp_path) -> bytes:
    path = tmp_path / "good.npz"
    solve_uncached(VARIANT).save(path)
    return path.read_bytes()


def with_values(path, values) -> None:
    """Save a policy file of the right variant and format whose values are ``values``."""
    Policy(VARIANT, np.asarray(values, dtype=np.float64), 1, 0.0, 0.0).save(path)


def damaged_files(tmp_path) -> dict[str, bytes]:
    good = saved_bytes(tmp_path)
    middle = len(good) // 2
    return {
        "empty": b"",
        "truncated": good[: len(good) // 3],
        "bad crc": good[:middle] + bytes([good[middle] ^ 0xFF]) + good[middle + 1 :],
        "not a zip": b"not a policy at all",
    }


@pytest.mark.parametrize("kind", ["empty", "truncated", "bad crc", "not a zip"])
def test_a_damaged_file_is_refused_clearly_and_rebuilt(cache, tmp_path, kind):
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(damaged_files(tmp_path)[kind])
    with pytest.raises(BadParameterError):
        Policy.load(cache, VARIANT)
    policy = solve(VARIANT)
    assert not policy.from_cache
    assert Policy.load(cache, VARIANT).values == pytest.approx(policy.values)


@pytest.mark.parametrize("bad", [np.nan, 7.0, -0.5, np.inf])
def test_values_that_are_not_win_probabilities_are_not_trusted(cache, bad):
    values = solve_uncached(VARIANT).values.copy()
    values[3, 4] = bad
    cache.parent.mkdir(parents=True, exist_ok=True)
    with_values(cache, values)
    with pytest.raises(BadParameterError, match=r"win probabilities in \[0, 1\]"):
        Policy.load(cache, VARIANT)
    policy = solve(VARIANT)
    assert not policy.from_cache and np.isfinite(policy.values).all()
    assert 0.0 <= policy.win_probability(3, 4) <= 1.0


def test_a_fifo_at_the_cache_path_is_neither_read_nor_replaced(cache):
    solve_uncached(VARIANT)  # the kernels load (or compile, in a fresh checkout) before the clock starts
    cache.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(cache)
    done = threading.Event()
    result: list[Policy] = []
    thread = threading.Thread(target=lambda: (result.append(solve(VARIANT)), done.set()), daemon=True)
    thread.start()
    assert done.wait(60), "solve blocked on a FIFO at the cache path"
    assert not result[0].from_cache
    assert stat.S_ISFIFO(os.lstat(cache).st_mode)  # pigdice writes only plain files: the pipe is left alone


def test_saves_use_their_own_temporary_files(cache):
    cache.parent.mkdir(parents=True, exist_ok=True)
    policy = solve_uncached(VARIANT)
    threads = [threading.Thread(target=policy.save, args=(cache,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Policy.load(cache, VARIANT).values == pytest.approx(policy.values)
    assert sorted(p.name for p in cache.parent.iterdir()) == [cache.name]


def test_threads_read_policy_files_one_at_a_time(cache, monkeypatch):
    # numpy reads every .npy header with ast.literal_eval, and CPython 3.11 keeps the AST constructor's
    # recursion depth per interpreter, not per thread (gh-106905): two threads building ASTs at once,
    # switched by a garbage collection inside one of them, fail with "SystemError: AST constructor
    # recursion depth mismatch" (test_threads_share_the_cache_safely failed so, now and then). The web
    # solves and loads from several threads, so policy files must be read one thread at a time. Here each
    # header takes 20 ms, long enough for the threads to overlap wherever the reads are not serialized.
    import ast

    solve(VARIANT)  # on disk now
    parse, busy, most = ast.literal_eval, [0], [0]
    count = threading.Lock()

    def slow_parse(text):
        with count:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        time.sleep(0.02)
        try:
            return parse(text)
        finally:
            with count:
                busy[0] -= 1

    monkeypatch.setattr(ast, "literal_eval", slow_parse)
    start = threading.Barrier(4)

    def load() -> None:
        start.wait()
        Policy.load(cache, VARIANT)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1, f"{most[0]} threads parsed .npy headers at once"


def test_a_file_declaring_a_huge_array_is_refused_from_its_header(cache):
    # a few bytes on disk may declare (and decompress to) gigabytes: only the header is read
    cache.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(cache, "w") as archive:
        for name, shape, dtype in (("values.npy", (100_000, 100_000), "<f8"), ("meta.npy", (), "<U10")):
            with archive.open(name, "w") as member:
                np.lib.format.write_array_header_1_0(member, {"descr": dtype, "fortran_order": False, "shape": shape})
    assert cache.stat().st_size < 1000
    with pytest.raises(BadParameterError, match=r"values have shape \(100000, 100000\)"):
        Policy.load(cache, VARIANT)
    assert not solve(VARIANT).from_cache  # and the solver re-solves


def test_huge_metadata_is_refused_from_its_header(cache, tmp_path):
    cache.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(cache, "w") as archive:
        for name, shape, dtype in (("values.npy", (15, 15), "<f8"), ("meta.npy", (), "<U100000000")):
            with archive.open(name, "w") as member:
                np.lib.format.write_array_header_1_0(member, {"descr": dtype, "fortran_order": False, "shape": shape})
    with pytest.raises(BadParameterError, match="damaged policy metadata"):
        Policy.load(cache, VARIANT)
