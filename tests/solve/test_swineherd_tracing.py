"""3-player Swine Herd: the turn start the stage-selection repairs leave unsettled, settled by tracing (``n_tracing``).

Rules source: seed 001, Swine Herd (all stand at a turn start; one shared roll; after every roll that
adds, each standing player sits or stays at the same time; a bust banks nothing for the standing;
best score after the turn someone reaches the goal wins, ties share), with the ending rule of
``swineherd_n``. Goal 21 on the d6 is the smallest goal with such a turn start: (0, 9, 17), where the
selected, sticky and forced-mix searches all cycle (goal 25's (4, 13, 21) is the same turn start
shifted; there the earlier solver left a best-response gain of 0.035).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pigdice.solve.herd.n_bordered import accurate, border, prepare, solve
from pigdice.solve.herd.n_tracing import FD_STEP, TRACED, _jacobian, _residual, new_model, trace_turn_start
from pigdice.solve.herd.swineherd_n import (
    SwineHerdNPolicy,
    _game,
    best_response_values,
    exploitability_report,
    solve_swine_herd_n,
)

from .herd_dice import herd, sit_gain

TRACED_START = (0, 9, 17)


@pytest.fixture(scope="module")
def goal21() -> SwineHerdNPolicy:
    return solve_swine_herd_n(herd(21), 3, threads=2)


def test_every_turn_start_settles_at_goal_21(goal21: SwineHerdNPolicy) -> None:
    stats = goal21.statistics
    assert stats.unsettled == 0
    assert stats.traced == 1
    _, rows = goal21.tables.PI[TRACED_START]
    assert rows == 21 - 1  # its played profile is stored, one row per stage
    report = exploitability_report(goal21)
    assert report.overall < 1e-9
    assert report.start < 1e-12


def test_the_traced_turn_start_is_an_equilibrium(goal21: SwineHerdNPolicy) -> None:
    best = best_response_values(goal21)
    for perm in itertools.permutations(range(3)):
        scores = tuple(TRACED_START[p] for p in perm)
        assert (best[scores] - goal21.tables.V[scores]).max() < 1e-9
    mixes = 0
    for t in range(1, 21):
        stage = goal21.stage(TRACED_START, t, (True, True, True))
        for k, p in enumerate(stage.sit):
            gain = sit_gain(stage, k)
            if 1e-9 < p < 1 - 1e-9:  # a mixer is indifferent
                mixes += 1
                assert abs(gain) < 1e-12
            else:  # a pure choice is a best reply
                assert gain * (1 if p > 0.5 else -1) > -1e-12
    assert mixes > 0


def test_tracing_again_gives_the_stored_turn_start(goal21: SwineHerdNPolicy) -> None:
    game = _game(goal21.die, goal21.tables)
    sits = np.zeros((64, 3))
    x = np.zeros(3)
    status, lam, steps = trace_turn_start(np.array(TRACED_START), game, sits, x)
    assert status == TRACED
    assert 1e2 <= lam <= 1e9 and steps > 0
    assert x.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.abs(x - goal21.tables.V[TRACED_START]).max() < 1e-12
    for t in range(1, 21):
        assert goal21.sit_probability(TRACED_START, t, (True, True, True), 0) == pytest.approx(sits[t, 0], abs=1e-12)


def test_the_jacobian_by_partial_sweeps_equals_full_sweeps(goal21: SwineHerdNPolicy) -> None:
    # each logit's column re-sweeps the turn from its stage down (``n_tracing._jacobian``): the same numbers,
    # bit for bit, as forward differences of the whole residual
    model = new_model(np.array(TRACED_START), _game(goal21.die, goal21.tables))
    n = 3 * model.top
    w = np.random.default_rng(7).uniform(-3.0, 3.0, n)
    w[:3] = goal21.tables.V[TRACED_START]
    lam = 10.0
    h0 = np.zeros(n)
    _residual(model, w, lam, h0)
    J = np.zeros((n, n + 1))
    _jacobian(model, w, lam, h0, J)
    col = np.zeros(n)
    for k in range(n):
        wt = w.copy()
        h = FD_STEP * max(1.0, abs(w[k]))
        wt[k] += h
        _residual(model, wt, lam, col)
        assert np.array_equal(J[:n, k], (col - h0) / h), k
    _residual(model, w, lam, col)
    assert np.array_equal(col, h0)  # the model is left at w
    assert np.array_equal(J[3:, n], -lam * model.gains[1 : model.top].ravel())


def test_one_thread_gives_the_tables_of_two_bit_for_bit(goal21: SwineHerdNPolicy) -> None:
    # each score sum's turn starts (the traced one among them) are spread over threads (``n_threads``)
    assert goal21.threads == 2
    serial = solve_swine_herd_n(herd(21), 3, threads=1)
    for name, mine, theirs in zip(serial.tables._fields, serial.tables, goal21.tables, strict=True):
        assert np.array_equal(mine, theirs), name
    assert serial.statistics == goal21.statistics
    assert np.array_equal(best_response_values(serial), best_response_values(goal21))


def test_the_block_solve_equals_the_dense_solve(goal21: SwineHerdNPolicy) -> None:
    # the continuation's bordered matrix: the logits' block is block upper triangular (``n_bordered``)
    model = new_model(np.array(TRACED_START), _game(goal21.die, goal21.tables))
    top = model.top
    n = 3 * top
    rng = np.random.default_rng(11)
    w = rng.uniform(-3.0, 3.0, n)
    w[:3] = goal21.tables.V[TRACED_START]
    h0 = np.zeros(n)
    _residual(model, w, 30.0, h0)
    A = np.zeros((n + 1, n + 1))
    _jacobian(model, w, 30.0, h0, A[:n])
    A[n] = rng.uniform(-1.0, 1.0, n + 1)
    ok, work = prepare(A, top)
    assert ok and border(A, top, work)
    r = rng.uniform(-1.0, 1.0, n + 1)
    z = np.zeros(n + 1)
    solve(A, top, work, r, z)
    dense = np.linalg.solve(A, r)
    assert np.abs(z - dense).max() <= 1e-9 * np.abs(dense).max()
    assert accurate(A, z, r)
    A[3, 3 : 3 + 3] = A[4, 3 : 3 + 3]  # stage 1's diagonal block singular: the tracing takes the dense solve
    A[5, 3 : 3 + 3] = 0.0
    assert not prepare(A, top)[0]
