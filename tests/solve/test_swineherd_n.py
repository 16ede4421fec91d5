"""The 3-player Swine Herd solver: an independent plain-Python reference at tiny goals, exploitability,
the symmetry of the solution, values summing to 1, the API and its errors.

Rules source: seed 001, Swine Herd (all stand at a turn start; one shared roll; after every roll that
adds, each standing player sits or stays at the same time; a bust banks nothing for the standing;
best score after the turn someone reaches the goal wins, ties share), with the ending rule: while two
or more stand, a total that takes every standing player to the goal seats them all at once.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.rules.effects import add, bust
from pigdice.rules.outcomes import RollSpec
from pigdice.rules.variant import Variant
from pigdice.solve.herd.n_bundles import load_profile, new_sweep
from pigdice.solve.herd.n_turns import turn
from pigdice.solve.herd.swineherd_n import (
    MAX_GOAL,
    SwineHerdNPolicy,
    _game,
    best_response_values,
    exploitability,
    exploitability_report,
    solve_swine_herd_n,
)

from .herd_dice import EXACT, herd, loaded, sit_gain

SMALL = loaded((bust(), "1/3"), (add(1), "1/3"), (add(2), "1/3"))


# -- an independent reference -------------------------------------------------------------------

Vec = tuple[float, float, float]


def _gain(U: dict[tuple[int, ...], Vec], i: int, q: list[float], n: int) -> float:
    """Player i's payoff from sitting minus staying; U[actions] (1 = sit), the others sit with chances q."""
    total = 0.0
    for rest in itertools.product((0, 1), repeat=n - 1):
        acts = [*rest[:i], 0, *rest[i:]]
        weight = 1.0
        for j in range(n):
            if j != i:
                weight *= q[j] if acts[j] else 1 - q[j]
        sit = acts.copy()
        sit[i] = 1
        total += weight * (U[tuple(sit)][i] - U[tuple(acts)][i])
    return total


def _root(fn, lo: float, hi: float) -> list[float]:
    """Return the roots of fn on (lo, hi) found by a grid scan and bisection."""
    roots = []
    grid = np.linspace(lo, hi, 401)
    values = [fn(x) for x in grid]
    for k in range(400):
        a, b, fa, fb = grid[k], grid[k + 1], values[k], values[k + 1]
        if fa == 0.0 and k > 0:
            roots.append(a)
        if fa * fb < 0:
            for _ in range(200):
                m = 0.5 * (a + b)
                fm = fn(m)
                if (fm < 0) == (fa < 0):
                    a, fa = m, fm
                else:
                    b = m
            roots.append(0.5 * (a + b))
    return roots


def reference_equilibrium(U: dict[tuple[int, ...], Vec], scores: list[int]) -> list[float]:
    """Return the selected equilibrium (sit chances) of a stage game among players with these base scores.

    The selection of the module docstring, implemented separately: equal scores play alike; pure before
    mixed; most sitters, then the higher scores sitting; mixed: the largest total sit chance.
    """
    n = len(scores)
    order = sorted(range(n), key=lambda j: -scores[j])  # highest score first (ties: either, they act alike)

    def alike(q: list[float]) -> bool:
        return all(abs(q[i] - q[j]) < 1e-7 for i in range(n) for j in range(n) if scores[i] == scores[j])

    pure = []
    for acts in itertools.product((0, 1), repeat=n):
        q = [float(a) for a in acts]
        best = all((_gain(U, i, q, n) >= -1e-13) if acts[i] else (_gain(U, i, q, n) <= 1e-13) for i in range(n))
        if alike(q) and best:
            pure.append((sum(acts), tuple(acts[j] for j in order), q))
    if pure:
        return max(pure, key=lambda item: item[:2])[2]
    mixed = []
    for mixers in itertools.chain.from_iterable(itertools.combinations(range(n), k) for k in (2, 3)):
        fixed = [j for j in range(n) if j not in mixers]
        for acts in itertools.product((0, 1), repeat=len(fixed)):
            base = [0.0] * n
            for j, a in zip(fixed, acts, strict=True):
                base[j] = float(a)
            i, j = mixers[0], mixers[1]
            if len(mixers) == 2:
                # each mixer's gain is linear in the other's chance
                def lin(who: int, other: int, value: float, base: list[float] = base) -> float:
                    q = base.copy()
                    q[other] = value
                    return _gain(U, who, q, n)

                gi0, gi1, gj0, gj1 = lin(i, j, 0.0), lin(i, j, 1.0), lin(j, i, 0.0), lin(j, i, 1.0)
                if gi0 == gi1 or gj0 == gj1:
                    continue
                q = base.copy()
                q[j], q[i] = gi0 / (gi0 - gi1), gj0 / (gj0 - gj1)
                candidates = [q]
            else:
                candidates = []

                def others(r: float) -> list[float] | None:
                    # q0 from player 1's indifference, q1 from player 0's, given q2 = r (both linear)
                    def solve_for(who: int, var: int) -> float | None:
                        q = [0.0, 0.0, r]
                        q[var] = 0.0
                        g0 = _gain(U, who, q, 3)
                        q[var] = 1.0
                        g1 = _gain(U, who, q, 3)
                        return None if g0 == g1 else g0 / (g0 - g1)

                    q0, q1 = solve_for(1, 0), solve_for(0, 1)
                    return None if q0 is None or q1 is None else [q0, q1, r]

                def residual(r: float) -> float:
                    q = others(r)
                    return 1.0 if q is None else _gain(U, 2, q, 3)

                for r in _root(residual, 1e-9, 1 - 1e-9):
                    found = others(r)
                    if found is not None and abs(residual(r)) < 1e-8:
                        candidates.append(found)
            for q in candidates:
                if not all(0 < q[m] < 1 for m in mixers) or not alike(q):
                    continue
                ok = all(
                    abs(_gain(U, m, q, n)) < 1e-8
                    if m in mixers
                    else ((_gain(U, m, q, n) >= -1e-13) if q[m] else (_gain(U, m, q, n) <= 1e-13))
                    for m in range(n)
                )
                if ok:
                    mixed.append((sum(q), q))
    if not mixed and n == 3:  # tied players mixing alike (p, p) and the third with r
        for j, k in ((0, 1), (1, 2), (0, 2)):
            if scores[j] != scores[k]:
                continue
            other = 3 - j - k
            tied_all = scores[other] == scores[j]

            def full(p: float, r: float, other: int = other, tied_all: bool = tied_all) -> list[float]:
                q = [p] * 3
                q[other] = p if tied_all else r
                return q

            for p in _root(lambda p, other=other: _gain(U, other, full(p, 0.0), 3), 1e-9, 1 - 1e-9):
                if tied_all:
                    q = full(p, p)
                else:
                    h0, h1 = _gain(U, j, full(p, 0.0), 3), _gain(U, j, full(p, 1.0), 3)
                    if h0 == h1:
                        continue
                    q = full(p, h0 / (h0 - h1))
                if all(0 < v < 1 for v in q) and all(abs(_gain(U, m, q, 3)) < 1e-8 for m in range(3)):
                    mixed.append((sum(q), q))
    assert mixed, f"the reference found no equilibrium of {U}"
    return max(mixed, key=lambda item: item[0])[1]


def reference_values(faces: list[tuple[int, float]], p_bust: float, goal: int) -> dict[tuple[int, ...], Vec]:
    """Return every turn start's shares by plain recursion and iteration (no code shared with the solver).

    Turn starts go from the highest score sum down; inside a turn, the turn start's own value x (a
    bust with all three standing) is iterated x <- F(x) from equal shares until it settles.
    """
    V: dict[tuple[int, ...], Vec] = {}

    def result(scores: tuple[int, ...]) -> Vec:
        top = max(scores)
        if top >= goal:
            k = scores.count(top)
            return tuple(1 / k if x == top else 0.0 for x in scores)  # type: ignore[return-value]
        return V[scores]

    def mix(weights: list[tuple[float, Vec]]) -> Vec:
        return tuple(sum(w * v[q] for w, v in weights) for q in range(3))  # type: ignore[return-value]

    @functools.cache
    def lone(c1: int, c2: int, s: int, u: int) -> Vec:
        """Shares (c1, c2, roller) when the lone roller (base s, total u) rolls on."""
        weights: list[tuple[float, Vec]] = [(p_bust, result((c1, c2, s)))]
        for f, p in faces:
            hold = result((c1, c2, s + u + f))
            if hold[2] == 1.0:
                weights.append((p, hold))
                continue
            roll = lone(c1, c2, s, u + f)
            weights.append((p, hold if hold[2] >= roll[2] else roll))
        return mix(weights)

    def stage_value(U: dict[tuple[int, ...], Vec], sig: list[float], comps: int = 3) -> Vec:
        n = len(sig)
        weights = []
        for acts in itertools.product((0, 1), repeat=n):
            w = 1.0
            for j in range(n):
                w *= sig[j] if acts[j] else 1 - sig[j]
            weights.append((w, U[acts]))
        return mix(weights)

    @functools.cache
    def pair(c: int, a: int, b: int, t: int) -> Vec:
        """Shares (c, a, b): a and b stand at total t about to roll, c seated."""
        weights: list[tuple[float, Vec]] = [(p_bust, result((c, a, b)))]
        for f, p in faces:
            t2 = t + f
            if a + t2 >= goal and b + t2 >= goal:
                weights.append((p, result((c, a + t2, b + t2))))
                continue
            la = lone(c, a + t2, b, t2)
            lb = lone(c, b + t2, a, t2)
            both = result((c, a + t2, b + t2))
            U: dict[tuple[int, ...], Vec] = {
                (1, 1): both,
                (1, 0): la,
                (0, 1): (lb[0], lb[2], lb[1]),
                (0, 0): pair(c, a, b, t2),
            }
            U2: dict[tuple[int, ...], Vec] = {k: (v[1], v[2], 0.0) for k, v in U.items()}
            sig = reference_equilibrium(U2, [a, b])
            weights.append((p, stage_value(U, sig)))
        return mix(weights)

    def turn(s: tuple[int, int, int], x: Vec) -> Vec:
        @functools.cache
        def decision(t: int) -> Vec:
            if all(v + t >= goal for v in s):
                return result(tuple(v + t for v in s))
            stay = mix([(p_bust, x)] + [(p, decision(t + f)) for f, p in faces])
            U: dict[tuple[int, ...], Vec] = {(0, 0, 0): stay, (1, 1, 1): result(tuple(v + t for v in s))}
            for i in range(3):
                j, k = (m for m in range(3) if m != i)
                # i stays, j and k sit
                r = lone(s[j] + t, s[k] + t, s[i], t)
                vec = [0.0] * 3
                vec[j], vec[k], vec[i] = r
                U[tuple(0 if m == i else 1 for m in range(3))] = tuple(vec)  # type: ignore[assignment]
                # i sits, j and k stay
                acts = tuple(1 if m == i else 0 for m in range(3))
                if s[j] + t >= goal and s[k] + t >= goal:
                    U[acts] = U[(1, 1, 1)]
                else:
                    lo, hi = (j, k) if s[j] <= s[k] else (k, j)
                    w = pair(s[i] + t, s[lo], s[hi], t)
                    vec = [0.0] * 3
                    vec[i], vec[lo], vec[hi] = w
                    U[acts] = tuple(vec)  # type: ignore[assignment]
            sig = reference_equilibrium(U, list(s))
            return stage_value(U, sig)

        return mix([(p_bust, x)] + [(p, decision(f)) for f, p in faces])

    for n in range(3 * goal - 3, -1, -1):
        for s in itertools.product(range(goal), repeat=3):
            if sum(s) != n:
                continue
            x: Vec = (1 / 3, 1 / 3, 1 / 3)
            for _ in range(10_000):
                moved = turn(s, x)  # type: ignore[arg-type]
                if max(abs(moved[q] - x[q]) for q in range(3)) < 1e-15:
                    break
                x = moved
            else:
                raise AssertionError(f"the reference iteration at {s} did not settle")
            V[s] = moved
    return V


def reference_of(variant: Variant) -> dict[tuple[int, ...], Vec]:
    """Return the reference values of ``variant``'s shared die, read from its outcome table."""
    faces: list[tuple[int, float]] = []
    p_bust = 0.0
    for effect, probability in variant.roll_spec().distribution():
        if effect.kind.name == "BUST":
            p_bust += float(probability)
        else:
            faces.append((effect.amount, float(probability)))
    return reference_values(faces, p_bust, variant.goal)


@pytest.mark.slow
@pytest.mark.parametrize(("goal", "roll"), [(3, SMALL), (3, None)])
def test_solver_matches_the_reference(goal: int, roll: RollSpec | None) -> None:
    variant = herd(goal, roll)
    policy = solve_swine_herd_n(variant, 3)
    expected = reference_of(variant)
    worst = max(abs(a - b) for s, value in expected.items() for a, b in zip(policy.value(s), value, strict=True))
    assert worst < EXACT


# -- properties of the solution -----------------------------------------------------------------


@pytest.fixture(scope="module")
def goal8() -> SwineHerdNPolicy:
    return solve_swine_herd_n(herd(8), 3)


@pytest.mark.parametrize(("goal", "roll"), [(4, SMALL), (5, None)])  # goals where every turn start settles
def test_exploitability_is_zero_at_small_goals(goal: int, roll: RollSpec | None) -> None:
    policy = solve_swine_herd_n(herd(goal, roll), 3)
    report = exploitability_report(policy)
    assert policy.statistics.unsettled == 0
    assert policy.statistics.unresolved == 0
    assert max(report.worst) < 1e-9
    assert min(report.worst) > -1e-12  # a best response is never worse than the equilibrium
    assert exploitability(policy) == report.overall


@pytest.fixture(scope="module")
def goal20() -> SwineHerdNPolicy:
    return solve_swine_herd_n(herd(20), 3)


# (0, 10, 16) at goal 20: the selected stage equilibria make the turn-start iteration alternate between
# x = (0.027, 0.159, 0.814) and (0.001, 0.313, 0.685) for ever (the earlier solver left it there with a
# best-response gain of 0.09); the forced-mix search settles it on a mixed equilibrium.
CYCLING = (0, 10, 16)


def test_a_cycling_turn_start_settles_on_an_equilibrium(goal20: SwineHerdNPolicy) -> None:
    stats = goal20.statistics
    assert stats.unsettled == 0
    assert stats.forced > 0
    _, rows = goal20.tables.PI[CYCLING]
    assert rows > 0  # its played profile is stored
    best = best_response_values(goal20)
    for perm in itertools.permutations(range(3)):
        scores = tuple(CYCLING[p] for p in perm)
        # the Newton search leaves gains of about 1e-14; 1e-9 is the bound
        assert (best[scores] - goal20.tables.V[scores]).max() < 1e-9
    # somewhere in its turn a player mixes, indifferent between sitting and staying
    mixes = 0
    for t in range(1, 20):
        stage = goal20.stage(CYCLING, t, (True, True, True))
        for k, p in enumerate(stage.sit):
            if 1e-9 < p < 1 - 1e-9:
                mixes += 1
                assert abs(sit_gain(stage, k)) < 1e-9
    assert mixes > 0


def test_a_turn_swept_again_reuses_its_payoffs_bit_for_bit(goal20: SwineHerdNPolicy) -> None:
    # ``turn`` keeps the stage payoffs with a sitter for the next sweep of the same turn start: the sweeps of
    # the repairs' searches give the numbers of sweeps on fresh rows, at any x and with forced stages
    game = _game(goal20.die, goal20.tables)
    kept = new_sweep(game)
    s = np.array(CYCLING)
    load_profile(s, goal20.tables.stored, kept.plays)
    for x in ((1 / 3, 1 / 3, 1 / 3), (0.027, 0.159, 0.814), (0.001, 0.313, 0.685)):
        fresh = new_sweep(game)
        load_profile(s, goal20.tables.stored, fresh.plays)
        turn(s, np.array(x), game, kept.rows, kept.plays)
        turn(s, np.array(x), game, fresh.rows, fresh.plays)
        for name in ("D", "C", "E", "S"):
            assert np.array_equal(getattr(kept.rows, name), getattr(fresh.rows, name)), name
        assert np.array_equal(kept.rows.U[:, 1:], fresh.rows.U[:, 1:])  # profile 0 (all stay) is not kept
    assert tuple(kept.rows.key) == CYCLING


def test_exploitability_over_every_turn_start_at_goal_20(goal20: SwineHerdNPolicy) -> None:
    report = exploitability_report(goal20)
    assert report.overall < 1e-9
    assert report.start < 1e-12


def test_values_sum_to_one(goal8: SwineHerdNPolicy) -> None:
    assert np.abs(goal8.tables.V.sum(axis=-1) - 1.0).max() < 1e-12
    assert goal8.value((0, 0, 0)) == pytest.approx((1 / 3, 1 / 3, 1 / 3), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 7), min_size=3, max_size=3), st.permutations(range(3)))
def test_permuted_scores_give_permuted_values(goal8: SwineHerdNPolicy, scores: list[int], perm: list[int]) -> None:
    values = goal8.value(scores)
    moved = goal8.value([scores[p] for p in perm])
    assert moved == pytest.approx([values[p] for p in perm], abs=1e-12)


def test_stage_api(goal8: SwineHerdNPolicy) -> None:
    for scores, t, standing in [
        ((0, 0, 0), 2, (True, True, True)),
        ((2, 5, 3), 3, (True, True, True)),
        ((9, 1, 3), 4, (False, True, True)),
        ((6, 9, 2), 3, (False, False, True)),
    ]:
        stage = goal8.stage(scores, t, standing)
        n = len(stage.seats)
        for k, seat in enumerate(stage.seats):
            assert goal8.sit_probability(scores, t, standing, seat) == stage.sit[k]
        if n >= 2:  # nobody gains by leaving the equilibrium
            for k, seat in enumerate(stage.seats):
                values = []
                for action in (0, 1):
                    total = 0.0
                    for prof in range(1 << n):
                        if (prof >> k & 1) != action:
                            continue
                        w = 1.0
                        for m in range(n):
                            if m != k:
                                w *= stage.sit[m] if prof >> m & 1 else 1 - stage.sit[m]
                        total += w * stage.payoffs[prof][seat]
                    values.append(total)
                played = stage.sit[k] * values[1] + (1 - stage.sit[k]) * values[0]
                assert played >= max(values) - 1e-9
    start = goal8.stage((0, 0, 0), 2, (True, True, True))
    assert start.sit[0] == start.sit[1] == start.sit[2]


# -- errors -------------------------------------------------------------------------------------


def test_two_players_point_at_the_two_player_solver() -> None:
    with pytest.raises(BadParameterError, match="solve_swine_herd"):
        solve_swine_herd_n(herd(10), 2)


def test_rejects_a_turn_based_variant() -> None:
    with pytest.raises(BadParameterError, match="turn-based"):
        solve_swine_herd_n(find_variant("pig"), 3)


def test_rejects_a_goal_above_the_bound() -> None:
    with pytest.raises(BadParameterError, match=str(MAX_GOAL)):
        solve_swine_herd_n(herd(MAX_GOAL + 1), 3)


def test_rejects_a_thread_count_out_of_range() -> None:
    with pytest.raises(BadParameterError, match="threads"):
        solve_swine_herd_n(herd(8), 3, threads=0)


def test_rejects_other_player_counts_and_positions(goal8: SwineHerdNPolicy) -> None:
    with pytest.raises(BadParameterError, match="players"):
        solve_swine_herd_n(herd(10), 5)
    with pytest.raises(BadParameterError, match="turn-start scores"):
        goal8.value((8, 0, 0))
    with pytest.raises(BadParameterError, match="turn total"):
        goal8.stage((0, 0, 0), 0, (True, True, True))
    with pytest.raises(BadParameterError, match="not standing"):
        goal8.sit_probability((0, 9, 0), 2, (True, False, True), 1)
