"""The exact 2-player Swine Herd solver: a hand-derived goal-1 game, an independent plain-Python value
iteration, the symmetry of the draw rule, the limit of the stop rule, the API and its errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.rules.effects import add, bust, double
from pigdice.rules.outcomes import RollSpec
from pigdice.rules.variant import Variant
from pigdice.solve.herd.swineherd import (
    MAX_GOAL,
    SwineHerdPolicy,
    read_die,
    solve_swine_herd,
    truncated_values,
)

from .herd_dice import EXACT, SWINE, loaded
from .herd_dice import herd as shared_herd

# a riskier die: at goals 8-10 it has turn starts of every kind (unique, endless, boundary) under the draw rule
RISKY = loaded((bust(), "1/3"), (add(1), "1/3"), (add(3), "1/3"))


def herd(goal: int, roll: RollSpec | None = None, at_goal: str = "roll-on") -> Variant:
    """Return Swine Herd at ``goal`` on ``roll``; here by default without the house rule (the draw rule)."""
    return shared_herd(goal, roll, at_goal)


@pytest.fixture(scope="module")
def goal100() -> SwineHerdPolicy:
    return solve_swine_herd(herd(100))


# -- an independent reference -------------------------------------------------------------------


def reference_values(
    faces: list[tuple[int, float]], p_bust: float, goal: int, endless: float, stop: float, sit_at_goal: bool = False
) -> dict[tuple[int, int], float]:
    """Return V[a, b] by plain value iteration, turn start by turn start from the highest score sum down.

    No code is shared with the solver. A turn start's only unknown inside its turn is its own value
    x (a bust with both standing starts the same turn again); everything else it reads lies at a
    higher score sum. Given x the stage values follow by backward induction over the turn total t
    (capped at goal - min(a, b): beyond it a sit passes the goal for both and the stage no longer
    changes; that stationary stage is iterated to its fixed point). Then x <- F(x) is iterated from
    the endless payoff: F is monotone, so the iterates move monotonically to the fixed point nearest
    that payoff, the value under the rule (Everett's recursive games). (Iterating all states at
    once from the endless payoff is not the same: it is the game cut after n rolls, whose limit
    differs where a player can time its sit to the cut.)
    """
    go = 1.0 - stop
    V: dict[tuple[int, int], float] = {}

    def result(x: int, y: int) -> float:
        if x >= goal or y >= goal:
            return 1.0 if x > y else 0.5 if x == y else 0.0
        return V[x, y]

    @functools.cache
    def past(seat: str, d: int) -> float:
        """A's payoff with ``seat`` standing alone, d short of a seated score past the goal."""
        if d < 0:
            return 1.0 if seat == "A" else 0.0
        hold = 0.5 if d == 0 else (0.0 if seat == "A" else 1.0)
        busted = 0.0 if seat == "A" else 1.0
        rolled = stop * endless + go * (p_bust * busted + sum(p * past(seat, d - f) for f, p in faces))
        return max(hold, rolled) if seat == "A" else min(hold, rolled)

    def alone(seat: str, s: int, o: int, u: int) -> float:
        """A's payoff with ``seat`` standing alone at a decision (score s, total u, the other banked o)."""
        if o >= goal:
            return past(seat, o - s - u)
        if s + u >= goal:
            return 1.0 if seat == "A" else 0.0
        if seat == "A":
            return max(result(s + u, o), roll("A", s, o, u))
        return min(result(o, s + u), roll("B", s, o, u))

    def roll(seat: str, s: int, o: int, u: int) -> float:
        """A's payoff when ``seat`` rolls on alone."""
        busted = result(s, o) if seat == "A" else result(o, s)
        return stop * endless + go * (p_bust * busted + sum(p * alone(seat, s, o, u + f) for f, p in faces))

    def val2(m: list[list[float]]) -> float:
        low = max(min(row) for row in m)
        high = min(max(m[0][j], m[1][j]) for j in range(2))
        if low == high:
            return low
        return (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / (m[0][0] + m[1][1] - m[0][1] - m[1][0])

    def turn(a: int, b: int, x: float, payoffs: dict[int, tuple[float, float, float]]) -> float:
        """Return F(x): the turn's value when a bust with both standing is worth x."""
        top = goal - min(a, b)
        ss, sy, ys = payoffs[top]
        stage = {top: ss if sit_at_goal else x}  # the house rule: both still standing sit here
        for _ in range(0 if sit_at_goal else 100_000):
            again = stop * endless + go * (p_bust * x + (1.0 - p_bust) * stage[top])
            settled = val2([[ss, sy], [ys, again]])
            if abs(settled - stage[top]) <= 1e-15:
                break
            stage[top] = settled
        for t in range(top - 1, 0, -1):
            ss, sy, ys = payoffs[t]
            again = stop * endless + go * (p_bust * x + sum(p * stage[min(t + f, top)] for f, p in faces))
            stage[t] = val2([[ss, sy], [ys, again]])
        return stop * endless + go * (p_bust * x + sum(p * stage[min(f, top)] for f, p in faces))

    for n in range(2 * goal - 2, -1, -1):
        for a in range(max(0, n - goal + 1), min(n, goal - 1) + 1):
            b = n - a
            payoffs = {
                t: (result(a + t, b + t), roll("B", b, a + t, t), roll("A", a, b + t, t))
                for t in range(1, goal - min(a, b) + 1)
            }
            x = endless
            for _ in range(1_000_000):
                moved = turn(a, b, x, payoffs)
                if abs(moved - x) < 1e-15:
                    break
                x = moved
            else:
                raise AssertionError(f"the reference iteration at ({a}, {b}) did not settle")
            V[a, b] = moved
    return V


def reference_of(variant: Variant, endless: float, stop: float) -> dict[tuple[int, int], float]:
    """Return the reference values of ``variant``'s shared die, read from its outcome table."""
    faces: list[tuple[int, float]] = []
    p_bust = 0.0
    for effect, probability in variant.roll_spec().distribution():
        if effect.kind.name == "BUST":
            p_bust += float(probability)
        else:
            faces.append((effect.amount, float(probability)))
    return reference_values(faces, p_bust, variant.goal, endless, stop, variant.sits_at_goal)


@pytest.mark.parametrize(
    ("goal", "roll", "endless", "stop"),
    [
        (6, None, 0.0, 0.0),  # a d6: endless play lost by A
        (6, None, 1.0, 0.0),
        (6, None, 0.5, 0.05),  # a 5% chance per roll that the game stops as a draw
        (8, RISKY, 0.5, 0.0),  # the draw rule, with unique, endless and boundary turn starts
        (8, RISKY, 0.3, 0.0),
        (8, None, 0.5, -1.0),  # the house rule (both standing sit at the goal), a d6
        (9, RISKY, 0.5, -1.0),
        (7, None, 0.0, -1.0),  # under the house rule the endless payoff never matters
    ],
)
def test_solver_matches_plain_value_iteration(goal: int, roll: RollSpec | None, endless: float, stop: float) -> None:
    variant = herd(goal, roll, "sit" if stop < 0 else "roll-on")
    stop = max(stop, 0.0)
    policy = solve_swine_herd(variant, endless=endless, stop=stop)
    expected = reference_of(variant, endless, stop)
    worst = max(abs(policy.value(a, b) - value) for (a, b), value in expected.items())
    assert worst < EXACT


def test_the_risky_die_reaches_every_kind_of_turn_start() -> None:
    policy = solve_swine_herd(herd(8, RISKY))
    goal = policy.goal
    kinds = {(policy.is_endless(a, b), policy.is_boundary(a, b)) for a in range(goal) for b in range(goal)}
    assert kinds == {(False, False), (True, False), (False, True)}


# -- hand-derived values ------------------------------------------------------------------------


@pytest.mark.parametrize(("endless", "value"), [(0.0, 1 / 6), (0.3, 0.3), (0.5, 0.5), (1.0, 5 / 6)])
def test_goal_one_value_is_the_rule_clamped(endless: float, value: float) -> None:
    # Goal 1, turn start (0, 0): every roll t >= 2 puts a sitter past the goal, so every stage is the
    # stationary one: sit-sit ties (1/2); A sits, B stays: B rolls once more and passes A unless it
    # busts (A: 1/6); A stays, B sits: 5/6; both stay: x/6 + 5/6 S (x = V(0, 0)). For x >= 1/6 A
    # stays, for x <= 5/6 B stays, and then S = x/6 + 5/6 S gives S = x and V = x/6 + 5/6 x = x:
    # every x in [1/6, 5/6] solves the equations (the turn never ends). For x < 1/6 A sits: S = 1/6,
    # V = x/6 + 5/36 = x gives x = 1/6 (B's side: 5/6). Everett's value is the rule's payoff
    # clamped to that interval.
    policy = solve_swine_herd(herd(1), endless=endless)
    assert policy.value(0, 0) == pytest.approx(value, abs=1e-14)
    assert policy.is_endless(0, 0) == (1 / 6 < endless < 5 / 6)


@pytest.mark.parametrize("stop", [0.001, 0.1, 0.5])
def test_goal_one_with_a_stop_chance(stop: float) -> None:
    # Goal 1, endless = 0, a chance ``stop`` per roll that the game ends (worth 0 to A): A sits at
    # once (sit: B's roll busts with (1 - stop)/6; stay: V < that), B stays, so
    # V = (1 - stop)(V/6 + 5/6 (1 - stop)/6), i.e. V = 5 (1 - stop)^2 / (30 + 6 stop).
    policy = solve_swine_herd(herd(1), endless=0.0, stop=stop)
    assert policy.value(0, 0) == pytest.approx(5 * (1 - stop) ** 2 / (30 + 6 * stop), abs=1e-14)
    assert policy.sit_probability(0, 0, 2, 0) == 1.0
    assert policy.sit_probability(0, 0, 2, 1) == 0.0


def test_goal_one_draw_rule_is_an_endless_turn() -> None:
    policy = solve_swine_herd(herd(1))
    stage = policy.stage(0, 0, 2)
    assert stage.payoffs[0] == pytest.approx((0.5, 1 / 6))
    assert stage.payoffs[1] == pytest.approx((5 / 6, 0.5))
    assert (stage.sit_a, stage.sit_b, stage.value) == (0.0, 0.0, pytest.approx(0.5))


# -- goal 100 -----------------------------------------------------------------------------------


def test_draw_rule_is_symmetric(goal100: SwineHerdPolicy) -> None:
    V = goal100.V
    assert np.abs(np.diag(V) - 0.5).max() < 1e-12
    assert np.abs(V + V.T - 1.0).max() < 1e-12


def test_values_are_monotone(goal100: SwineHerdPolicy) -> None:
    V = goal100.V
    assert np.diff(V, axis=0).min() > -1e-12  # more points never hurt
    assert np.diff(V, axis=1).max() < 1e-12  # nor do the opponent's help


def test_residuals(goal100: SwineHerdPolicy) -> None:
    residual = goal100.residual()
    assert residual.turn < 1e-12
    assert residual.stage < 1e-12
    assert residual.play < EXACT  # the stored strategies, played for one turn, are worth V


@pytest.mark.parametrize("endless", [0.0, 1.0])
def test_residuals_of_the_other_rules(endless: float) -> None:
    # most turn starts end an interval of solutions here: the exiting player's strategy read just inside
    policy = solve_swine_herd(herd(40), endless=endless)
    assert policy.kinds.max() == 2
    residual = policy.residual()
    assert residual.turn < 1e-12
    assert residual.play < EXACT


def test_values_at_goal_100(goal100: SwineHerdPolicy) -> None:
    # pinned from this solver (no published value exists for the simultaneous game); the bench prints them
    assert goal100.value(0, 0) == pytest.approx(0.5, abs=1e-12)
    assert goal100.value(50, 0) == pytest.approx(0.889190248, abs=1e-9)
    assert goal100.value(0, 90) == pytest.approx(0.015298372, abs=1e-9)
    # near the goal with a small lead nobody sits first: the game never ends, a draw
    assert goal100.value(90, 80) == 0.5
    assert goal100.is_endless(90, 80)
    assert not goal100.is_endless(0, 0)


@pytest.fixture(scope="module")
def house100() -> SwineHerdPolicy:
    return solve_swine_herd(herd(100, at_goal="sit"))


def test_house_rule_is_the_default() -> None:
    assert SWINE.sits_at_goal and not herd(10).sits_at_goal
    assert solve_swine_herd(SWINE.with_goal(10)).sit_at_goal


def test_house_rule_ends_every_turn(house100: SwineHerdPolicy) -> None:
    # every turn ends with positive chance (a bust or the forced sit): one solution per turn start
    assert not house100.kinds.any()
    V = house100.V
    assert np.abs(np.diag(V) - 0.5).max() < 1e-12
    assert np.abs(V + V.T - 1.0).max() < 1e-12
    residual = house100.residual()
    assert max(residual.turn, residual.stage, residual.play) < 1e-12


def test_house_rule_values_at_goal_100(house100: SwineHerdPolicy) -> None:
    # pinned from this solver (the reference above agrees at goals 7-9); the bench prints them
    assert house100.value(50, 0) == pytest.approx(0.903935, abs=1e-6)
    assert house100.value(80, 60) == pytest.approx(0.860014, abs=1e-6)
    assert house100.value(90, 80) == pytest.approx(0.862352, abs=1e-6)
    assert house100.value(98, 99) == 0.0  # every turn that is not a bust reaches 100 for both: the leader wins
    # at the forced stage both sit, whatever they would choose
    stage = house100.stage(90, 80, 20)
    assert (stage.sit_a, stage.sit_b, stage.value) == (1.0, 1.0, 1.0)


def test_stop_chance_converges_to_the_draw_rule() -> None:
    variant = herd(40)
    draw = solve_swine_herd(variant).V
    gaps = [np.abs(solve_swine_herd(variant, stop=stop).V - draw).max() for stop in (1e-3, 1e-6, 1e-9)]
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 1e-6


def test_stage_api(goal100: SwineHerdPolicy) -> None:
    for a, b, t in [(0, 0, 2), (50, 0, 10), (90, 80, 4), (60, 55, 30), (97, 3, 200)]:
        stage = goal100.stage(a, b, t)
        (ss, sy), (ys, yy) = stage.payoffs
        p, q = stage.sit_a, stage.sit_b
        played = p * (q * ss + (1 - q) * sy) + (1 - p) * (q * ys + (1 - q) * yy)
        assert played == pytest.approx(stage.value, abs=1e-9)
        assert p == goal100.sit_probability(a, b, t, 0)
        assert q == goal100.sit_probability(a, b, t, 1)
        # neither player gains by leaving the equilibrium (a saddle point or an indifferent mix)
        assert max(q * ss + (1 - q) * sy, q * ys + (1 - q) * yy) <= stage.value + 1e-9
        assert min(p * ss + (1 - p) * ys, p * sy + (1 - p) * yy) >= stage.value - 1e-9
    assert goal100.stage(0, 0, 100) == goal100.stage(0, 0, 1000)  # the stationary stage


def test_alone_matches_the_stage(goal100: SwineHerdPolicy) -> None:
    a, b, t = 30, 20, 12
    (_, sy), (ys, _) = goal100.stage(a, b, t).payoffs
    assert goal100.alone(a, b + t, t, 0)[1] == pytest.approx(ys)  # A stays while B sits: A rolls alone
    assert 1 - goal100.alone(a + t, b, t, 1)[1] == pytest.approx(sy)
    hold, roll = goal100.alone(90, 20, 15, 0)  # past the goal against 20: holding wins
    assert hold == 1.0 and roll < 1.0


def test_truncated_model_is_another_game() -> None:
    # cutting the shared total (both must sit at the cut K) is the first look's model: its values move
    # with K (the exits left are the forced sits, a tiny part of a turn that otherwise never ends) and
    # settle only for K in the hundreds, on a game where the leader wins every endless turn
    variant = herd(12)
    draw = solve_swine_herd(variant)
    v84, v144, v600, v900 = (truncated_values(variant, k) for k in (84, 144, 600, 900))
    assert np.abs(v84 - v144).max() > 1e-3
    assert np.abs(v600 - v900).max() < 1e-6
    assert v900[11, 10] == pytest.approx(5 / 6, abs=1e-9)
    assert draw.value(11, 10) == 0.5


# -- errors -------------------------------------------------------------------------------------


def test_rejects_a_turn_based_variant() -> None:
    with pytest.raises(BadParameterError, match="turn-based"):
        solve_swine_herd(find_variant("pig"))


def test_rejects_a_table_it_cannot_handle() -> None:
    with pytest.raises(BadParameterError, match="double"):
        read_die(herd(10, loaded((bust(), "1/3"), (add(2), "1/3"), (double(), "1/3"))))
    with pytest.raises(BadParameterError, match="bust"):
        read_die(herd(10, loaded((add(1), "1/2"), (add(2), "1/2"))))


@pytest.mark.parametrize(
    ("kwargs", "match"), [({"endless": 1.5}, "endless"), ({"stop": 1.0}, "stop"), ({"stop": -0.1}, "stop")]
)
def test_rejects_a_bad_rule(kwargs: dict, match: str) -> None:
    with pytest.raises(BadParameterError, match=match):
        solve_swine_herd(herd(4), **kwargs)


def test_rejects_a_goal_above_the_bound() -> None:
    with pytest.raises(BadParameterError, match=str(MAX_GOAL)):
        solve_swine_herd(herd(MAX_GOAL + 1))


def test_rejects_bad_positions(goal100: SwineHerdPolicy) -> None:
    with pytest.raises(BadParameterError, match="scores"):
        goal100.value(100, 0)
    with pytest.raises(BadParameterError, match="turn total"):
        goal100.stage(0, 0, 0)
    with pytest.raises(BadParameterError, match="seat"):
        goal100.sit_probability(0, 0, 2, 2)
