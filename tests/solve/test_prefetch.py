"""The kernels' software prefetch (``pigdice.solve.prefetch``): a prefetch instruction, and nothing read or written."""

from __future__ import annotations

import platform

import numpy as np
import pytest
from numba import njit

from pigdice.solve.prefetch import LINE, prefetch


@njit(cache=False)
def _ask_then_sum(W, seat):  # pragma: no cover - numba
    for entry in range(W.shape[1] * W.shape[2] - 1, -1, -LINE):
        prefetch(W, seat, entry)
    total = 0.0
    for idx in range(W.shape[1]):
        for r in range(W.shape[2]):
            total += W[seat, idx, r]
    return total


def test_asking_for_lines_leaves_the_values_as_they_were():
    W = np.arange(2 * 10 * 3, dtype=np.float64).reshape(2, 10, 3)
    before = W.copy()
    assert _ask_then_sum(W, 1) == float(before[1].sum())  # 30 + ... + 59 = 1335
    assert _ask_then_sum(W, 1) == 1335.0
    assert np.array_equal(W, before)


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86 instruction names")
def test_it_compiles_to_a_prefetch_instruction():
    _ask_then_sum(np.zeros((1, 4, 3)), 0)
    assembly = next(iter(_ask_then_sum.inspect_asm().values()))
    assert "prefetcht0" in assembly
