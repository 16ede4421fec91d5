"""The tracing's bordered linear systems solved by their block structure, in O(n^2) instead of a dense O(n^3).

The continuation of ``n_tracing`` solves systems A z = r with A the (n + 1)-square matrix
[[dH/dw, dH/du], [a row]] at w = (x, y), y[t, j] at index 3 t + j. A logit y at stage t moves the
chances of stage t only, and so the gains of the stages at and below t (their values read the rows
above): the rows of stage t' have zeros in the columns of the stages below t'.
Ordered by stage, the logits' block T (rows and columns 3..n - 1) is block upper triangular with
3 x 3 diagonal blocks. The other four unknowns (x and u) and equations (x = F(x), the arclength
row) border it:

    T z_Y + A_YB z_B = r_Y,  A_BY z_Y + A_BB z_B = r_B,  B = (0, 1, 2, n).

With Z = T^-1 A_YB (four back substitutions, once per continuation step) and the 4 x 4 Schur
complement S = A_BB - A_BY Z, each solve is one back substitution: z_Y' = T^-1 r_Y,
z_B = S^-1 (r_B - A_BY z_Y'), z_Y = z_Y' - Z z_B. The bordering row changes between the tangent
and the corrector, and only S depends on it.

Where a diagonal block of T is (nearly) singular, at a fold of the path in lam, the block elimination
loses accuracy while A stays regular: ``prepare`` then says no and the tracing takes the dense solve.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

SINGULAR = 1e-10  # a 3 x 3 block (or S) whose determinant is below this times its scale counts as singular
ACCURATE = 1e-9  # a tangent solve whose residual exceeds this times |A| |z| takes the dense solve


class BlockWork(NamedTuple):
    """The factors of one continuation step's matrix: T's inverted diagonal blocks, Z, S^-1 and a work row."""

    Dinv: np.ndarray  # (top, 3, 3): inverse of T's diagonal block at stage t (t = 1..top - 1)
    Z: np.ndarray  # (n + 1, 4): rows 3..n - 1 hold T^-1 A_YB
    Sinv: np.ndarray  # (4, 4)
    z: np.ndarray  # (n + 1,) a solve's work row


@njit(cache=True)
def new_block_work(top, n):  # pragma: no cover - numba
    """Return the work of a turn with ``top`` stages and n = 3 top unknowns besides u."""
    return BlockWork(np.zeros((top, 3, 3)), np.zeros((n + 1, 4)), np.zeros((4, 4)), np.zeros(n + 1))


@njit(cache=True)
def _invert3(M, out):  # pragma: no cover - numba
    """Write the inverse of the 3 x 3 M to ``out``; return False if M is (nearly) singular."""
    c00 = M[1, 1] * M[2, 2] - M[1, 2] * M[2, 1]
    c01 = M[1, 2] * M[2, 0] - M[1, 0] * M[2, 2]
    c02 = M[1, 0] * M[2, 1] - M[1, 1] * M[2, 0]
    det = M[0, 0] * c00 + M[0, 1] * c01 + M[0, 2] * c02
    scale = np.abs(M).max()
    if not (np.isfinite(det) and abs(det) > SINGULAR * scale * scale * scale):
        return False
    out[0, 0] = c00 / det
    out[1, 0] = c01 / det
    out[2, 0] = c02 / det
    out[0, 1] = (M[0, 2] * M[2, 1] - M[0, 1] * M[2, 2]) / det
    out[1, 1] = (M[0, 0] * M[2, 2] - M[0, 2] * M[2, 0]) / det
    out[2, 1] = (M[0, 1] * M[2, 0] - M[0, 0] * M[2, 1]) / det
    out[0, 2] = (M[0, 1] * M[1, 2] - M[0, 2] * M[1, 1]) / det
    out[1, 2] = (M[0, 2] * M[1, 0] - M[0, 0] * M[1, 2]) / det
    out[2, 2] = (M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]) / det
    return True


@njit(cache=True)
def _back(A, top, work, r, z):  # pragma: no cover - numba
    """Solve T z_Y = r_Y by block back substitution from the highest stage down (z's indices 3..n - 1)."""
    n = 3 * top
    acc = np.zeros(3)
    for t in range(top - 1, 0, -1):
        for j in range(3):
            row = 3 * t + j
            v = r[row]
            for k in range(3 * (t + 1), n):
                v -= A[row, k] * z[k]
            acc[j] = v
        D = work.Dinv[t]
        for j in range(3):
            z[3 * t + j] = D[j, 0] * acc[0] + D[j, 1] * acc[1] + D[j, 2] * acc[2]


@njit(cache=True)
def prepare(A, top):  # pragma: no cover - numba
    """Return (ok, work): T's diagonal blocks inverted and Z = T^-1 A_YB; ok False where a block is singular."""
    n = 3 * top
    work = new_block_work(top, n)
    block = np.zeros((3, 3))
    for t in range(1, top):
        for i in range(3):
            for j in range(3):
                block[i, j] = A[3 * t + i, 3 * t + j]
        if not _invert3(block, work.Dinv[t]):
            return False, work
    col = np.zeros(n + 1)
    zc = np.zeros(n + 1)
    for c in range(4):
        b = c if c < 3 else n
        for r in range(3, n):
            col[r] = A[r, b]
        _back(A, top, work, col, zc)
        for r in range(3, n):
            work.Z[r, c] = zc[r]
    return True, work


@njit(cache=True)
def border(A, top, work):  # pragma: no cover - numba
    """Invert the Schur complement S = A_BB - A_BY Z for A's current bordering row; return False if S is singular."""
    n = 3 * top
    S = np.zeros((4, 4))
    for i in range(4):
        bi = i if i < 3 else n
        for c in range(4):
            bc = c if c < 3 else n
            v = A[bi, bc]
            for k in range(3, n):
                v -= A[bi, k] * work.Z[k, c]
            S[i, c] = v
    scale = np.abs(S).max()
    if not (np.isfinite(scale) and abs(np.linalg.det(S)) > SINGULAR * scale**4):
        return False
    work.Sinv[:] = np.linalg.inv(S)
    return True


@njit(cache=True)
def solve(A, top, work, r, out):  # pragma: no cover - numba
    """Write the solution of A z = r to ``out`` (after ``prepare`` and ``border``)."""
    n = 3 * top
    z = work.z
    _back(A, top, work, r, z)
    rb = np.zeros(4)
    for i in range(4):
        bi = i if i < 3 else n
        v = r[bi]
        for k in range(3, n):
            v -= A[bi, k] * z[k]
        rb[i] = v
    zb = work.Sinv @ rb
    for i in range(4):
        out[i if i < 3 else n] = zb[i]
    for k in range(3, n):
        out[k] = z[k] - (work.Z[k, 0] * zb[0] + work.Z[k, 1] * zb[1] + work.Z[k, 2] * zb[2] + work.Z[k, 3] * zb[3])


@njit(cache=True)
def accurate(A, z, r):  # pragma: no cover - numba
    """Return True if z solves A z = r to ACCURATE relative to |A| |z|."""
    res = np.abs(A @ z - r).max()
    return np.isfinite(res) and res <= ACCURATE * np.abs(A).max() * max(np.abs(z).max(), 1e-300)
