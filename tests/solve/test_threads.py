"""The BLAS thread setting the dense kernels run under (``pigdice.solve.threads.one_blas_thread``)."""

from __future__ import annotations

import pytest

from pigdice.solve.threads import _loaded_openblas, one_blas_thread


def test_one_blas_thread_sets_one_and_restores_the_count() -> None:
    with one_blas_thread():
        calls = _loaded_openblas()  # scipy's LAPACK is loaded by now (numpy's OpenBLAS and scipy's)
        inside = [get() for get, _ in calls]
    if not calls:
        pytest.skip("no OpenBLAS loaded in this build")
    assert inside == [1] * len(calls)
    calls[0][1](2)
    with one_blas_thread():
        assert calls[0][0]() == 1
    assert calls[0][0]() == 2  # the count before the block is put back


def test_one_blas_thread_restores_after_an_error() -> None:
    with one_blas_thread():
        calls = _loaded_openblas()
    if not calls:
        pytest.skip("no OpenBLAS loaded in this build")
    before = [get() for get, _ in calls]
    with pytest.raises(KeyError), one_blas_thread():
        raise KeyError("x")
    assert [get() for get, _ in calls] == before
