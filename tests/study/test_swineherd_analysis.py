"""Exact 2-player Swine Herd analysis: the chain against a plain backward evaluation, the engine, and symmetry."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pigdice.engine.game import GameState, Hold, Roll
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Strategy
from pigdice.players.fixed import HoldAt
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.herd.swineherd import SwineHerdPolicy, solve_swine_herd
from pigdice.study.analysis.swineherd import (
    SitTable,
    analyze_swine_herd,
    equilibrium_table,
    evaluate_pair,
    hold_at_table,
    report_text,
    summary_rows,
)
from pigdice.study.plots.swineherd import plot_swine_herd, sit_boundary
from pigdice.study.simulate import simulate

BUST = 1 / 6
FACES = (2, 3, 4, 5, 6)  # the d6: a 1 busts, the others add their pips


def herd(goal: int, **params: Any) -> Variant:
    return find_variant("swine-herd", goal=goal, **params)


_POLICIES: dict[tuple[int, bool], SwineHerdPolicy] = {}


def policy_for(variant: Variant) -> SwineHerdPolicy:
    key = (variant.goal, variant.sits_at_goal)
    if key not in _POLICIES:
        _POLICIES[key] = solve_swine_herd(variant)
    return _POLICIES[key]


# -- a plain backward evaluation (house rule), for small goals ------------------------------------
def backward(variant: Variant, table_a: SitTable, table_b: SitTable) -> dict[str, float]:
    """Evaluate from the top score sums down: X(a, b) = (what one play brings) / (1 - P(the play busts back))."""
    goal = variant.goal
    keys = ("win_a", "win_b", "shared", "turns", "rolls", "together", "together_count", "home")
    X: dict[tuple[int, int], list[float]] = {}

    def after(x: int, y: int, together: bool, home: bool) -> list[float]:
        if x >= goal or y >= goal:
            result = [float(x > y), float(y > x), float(x == y), 0.0, 0.0, 0.0, 0.0, 0.0]
            later_together = 0.0
        else:
            result = [*X[(x, y)]]
            later_together = result[5]
        result[5] = 1.0 if together else later_together
        result[6] += float(together)
        result[7] += float(home)
        return result

    for n in range(2 * goal - 2, -1, -1):
        for a in range(max(0, n - goal + 1), min(n, goal - 1) + 1):
            b = n - a
            top = goal - min(a, b)
            total = [0.0] * 8
            rolls = 1.0
            back = BUST
            exits: list[tuple[float, list[float]]] = []
            stage = dict.fromkeys(range(1, top + 7), 0.0)
            for f in FACES:
                stage[f] += 1 / 6
            for t in range(1, top + 7):
                m = stage[t]
                if m == 0.0:
                    continue
                if t >= top:  # the house rule seats both
                    exits.append((m, after(a + t, b + t, True, True)))
                    continue
                p, q = table_a.sit_chance(a, b, t), table_b.sit_chance(b, a, t)
                exits.append((m * p * q, after(a + t, b + t, True, False)))
                for seat, mass in ((1, m * p * (1 - q)), (0, m * (1 - p) * q)):
                    if mass == 0.0:
                        continue
                    me, them = (b, a + t) if seat == 1 else (a, b + t)
                    table = table_b if seat == 1 else table_a
                    walk = {t: mass}
                    while walk:
                        u = min(walk)
                        w = walk.pop(u)
                        rolls += w
                        ends = [(w * BUST, me)]
                        for f in FACES:
                            if table.holds_alone(me, them, u + f):
                                ends.append((w / 6, me + u + f))
                            else:
                                walk[u + f] = walk.get(u + f, 0.0) + w / 6
                        for mass_end, score in ends:
                            x, y = (them, score) if seat == 1 else (score, them)
                            exits.append((mass_end, after(x, y, False, False)))
                stay = m * (1 - p) * (1 - q)
                rolls += stay
                back += stay * BUST
                for f in FACES:
                    stage[t + f] += stay / 6
            for mass, result in exits:
                for i in range(8):
                    total[i] += mass * result[i]
            total[3] += 1.0
            total[4] += rolls
            X[(a, b)] = [v / (1 - back) for v in total]
    return dict(zip(keys, X[(0, 0)], strict=True))


FIELDS = ("win_a", "win_b", "shared", "turns", "rolls", "together", "together_count", "home")


@pytest.mark.parametrize("pair", [("optimal", "hold:4"), ("hold:3", "hold:6"), ("hold:7", "optimal")])
def test_the_chain_agrees_with_a_plain_backward_evaluation(pair: tuple[str, str]) -> None:
    variant = herd(12)
    policy = policy_for(variant)
    tables = [
        equilibrium_table(policy, seat) if spec == "optimal" else hold_at_table(variant, int(spec[5:]))
        for seat, spec in enumerate(pair)
    ]
    fast = evaluate_pair(variant, *tables)
    slow = backward(variant, *tables)
    for name in FIELDS:
        assert getattr(fast, name) == pytest.approx(slow[name], abs=1e-11), name
    assert fast.never == 0.0
    if "optimal" in pair:
        assert fast.mixed > 0.0  # the equilibrium mixes against these robots at goal 12


def test_the_equilibrium_against_itself_is_the_solved_value() -> None:
    for goal in (12, 40):
        variant = herd(goal)
        policy = policy_for(variant)
        e = evaluate_pair(variant, equilibrium_table(policy, 0), equilibrium_table(policy, 1))
        assert e.chance_a == pytest.approx(policy.value(0, 0), abs=1e-9)
        assert e.win_a == pytest.approx(e.win_b, abs=1e-12)
        assert e.win_a + e.win_b + e.shared + e.never == pytest.approx(1.0, abs=1e-12)
        assert e.never == 0.0 and e.turns >= 1.0 and e.rolls > e.turns


@pytest.mark.parametrize("k", [2, 8, 15, 30])
def test_the_equilibrium_guarantees_its_value_from_either_seat(k: int) -> None:
    variant = herd(40)
    policy = policy_for(variant)
    robot = hold_at_table(variant, k)
    as_a = evaluate_pair(variant, equilibrium_table(policy, 0), robot)
    as_b = evaluate_pair(variant, robot, equilibrium_table(policy, 1))
    assert as_a.chance_a >= policy.value(0, 0) - 1e-9
    assert as_a.chance_a == pytest.approx(as_b.chance_b, abs=1e-9)  # nobody goes first: the seats are alike
    assert as_a.shared == pytest.approx(as_b.shared, abs=1e-9)


def test_hold_robots_are_symmetric_and_tie_with_themselves() -> None:
    variant = herd(50)
    same = evaluate_pair(variant, hold_at_table(variant, 20), hold_at_table(variant, 20))
    assert same.shared == pytest.approx(1.0, abs=1e-12) and same.win_a == 0.0 and same.win_b == 0.0
    one = evaluate_pair(variant, hold_at_table(variant, 12), hold_at_table(variant, 25))
    other = evaluate_pair(variant, hold_at_table(variant, 25), hold_at_table(variant, 12))
    assert one.win_a == pytest.approx(other.win_b, abs=1e-12) and one.win_b == pytest.approx(other.win_a, abs=1e-12)
    assert one.turns == pytest.approx(other.turns, abs=1e-9) and one.rolls == pytest.approx(other.rolls, abs=1e-9)
    assert one.win_a + one.win_b + one.shared == pytest.approx(1.0, abs=1e-12)


# -- the engine ------------------------------------------------------------------------------------
class TableRobot:
    """Plays a SitTable in the engine (standing choices drawn with the table's chance)."""

    def __init__(self, table: SitTable) -> None:
        self.table = table
        self.name = table.name

    def choose(self, state: GameState, rng: np.random.Generator) -> Hold | Roll:
        t = state.turn_total
        if t == 0:
            return Roll()
        me = state.current
        mine, theirs = state.scores[me], state.scores[1 - me]
        if state.standing[1 - me]:
            return Hold() if rng.random() < self.table.sit_chance(mine, theirs, t) else Roll()
        return Hold() if self.table.holds_alone(mine, theirs, t) else Roll()


def _close(count: int, games: int, p: float) -> None:
    assert abs(count / games - p) < 4.5 * math.sqrt(max(p * (1 - p), 1e-4) / games), (count / games, p)


def test_the_engine_agrees_with_hold_robots_and_the_house_rule() -> None:
    variant = herd(20)
    games = 3000
    result = simulate(variant, [HoldAt(6), HoldAt(10)], games, seed=20250101)
    exact = evaluate_pair(variant, hold_at_table(variant, 6), hold_at_table(variant, 10))
    _close(result.outright[0], games, exact.win_a)
    _close(result.outright[1], games, exact.win_b)
    _close(result.ties, games, exact.shared)
    assert abs(result.mean_turns - exact.turns) < 0.15


def test_the_engine_agrees_with_the_equilibrium_table() -> None:
    variant = herd(20)
    policy = policy_for(variant)
    games = 3000
    robots: list[Strategy] = [TableRobot(equilibrium_table(policy, 0)), HoldAt(8)]
    result = simulate(variant, robots, games, seed=7)
    exact = evaluate_pair(variant, equilibrium_table(policy, 0), hold_at_table(variant, 8))
    assert exact.mixed > 0.0
    _close(result.outright[0], games, exact.win_a)
    _close(result.outright[1], games, exact.win_b)
    _close(result.ties, games, exact.shared)


def test_the_lone_choice_follows_the_policy() -> None:
    variant = herd(20)
    policy = policy_for(variant)
    rng = np.random.default_rng(3)
    for seat in (0, 1):
        table = equilibrium_table(policy, seat)
        for _ in range(400):
            mine, other = int(rng.integers(20)), int(rng.integers(40))
            total = int(rng.integers(1, 20))
            if other >= 20 and other - mine - total >= 20:
                continue  # no play reaches it
            a, b = (mine, other) if seat == 0 else (other, mine)
            hold, roll = policy.alone(a, b, total, seat)
            assert table.holds_alone(mine, other, total) == (hold >= roll), (seat, mine, other, total)
        for a, b, t in ((0, 0, 8), (10, 3, 6), (3, 10, 12)):
            mine, theirs = (a, b) if seat == 0 else (b, a)
            assert table.sit_chance(mine, theirs, t) == policy.sit_probability(a, b, t, seat)


def test_hold_at_sits_like_the_robot() -> None:
    table = hold_at_table(herd(30), 10)
    assert table.sit_chance(0, 0, 9) == 0.0 and table.sit_chance(0, 0, 10) == 1.0
    assert table.sit_chance(25, 0, 5) == 1.0  # holding reaches the goal
    assert not table.holds_alone(0, 45, 9) and table.holds_alone(0, 45, 10)
    assert table.holds_alone(22, 45, 8)  # the robot sits at the goal even behind a score past it


# -- without the house rule, and bad input ---------------------------------------------------------
def test_roll_on_reports_games_that_never_end() -> None:
    variant = herd(20, at_goal="roll-on")
    assert not variant.sits_at_goal
    policy = policy_for(variant)
    endless = evaluate_pair(variant, equilibrium_table(policy, 0), equilibrium_table(policy, 1))
    assert endless.never == pytest.approx(1.0, abs=1e-12) and endless.home == 0.0
    robots = evaluate_pair(variant, hold_at_table(variant, 5), hold_at_table(variant, 9))
    assert robots.never == 0.0
    assert robots.win_a + robots.win_b + robots.shared == pytest.approx(1.0, abs=1e-12)
    # hold robots sit once they reach the goal, so the house rule changes nothing for them
    house = evaluate_pair(herd(20), hold_at_table(herd(20), 5), hold_at_table(herd(20), 9))
    assert robots.win_a == pytest.approx(house.win_a, abs=1e-12)


def test_bad_input_is_refused() -> None:
    with pytest.raises(BadParameterError, match="turn-based"):
        hold_at_table(find_variant("pig", goal=20), 10)
    with pytest.raises(BadParameterError, match="goal"):
        evaluate_pair(herd(20), hold_at_table(herd(20), 5), hold_at_table(herd(30), 5))
    with pytest.raises(BadParameterError, match="200"):
        analyze_swine_herd(herd(201))
    with pytest.raises(BadStrategyError, match="optimal"):
        analyze_swine_herd(herd(20), ["max-score"])
    with pytest.raises(BadParameterError, match="one or two"):
        analyze_swine_herd(herd(20), ["hold:3", "hold:4", "hold:5"])


def test_a_strategy_it_cannot_play_is_refused_before_the_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.study.analysis import swineherd

    def no_solve(variant: Variant) -> SwineHerdPolicy:
        raise AssertionError("solved before the strategies were checked")

    monkeypatch.setattr(swineherd, "solve_swine_herd", no_solve)
    with pytest.raises(BadStrategyError, match="rolls:3"):
        analyze_swine_herd(herd(100), ["optimal", "rolls:3"])


def test_the_analysis_is_json_and_words() -> None:
    analysis = analyze_swine_herd(herd(30), ["optimal", "hold:10"])
    data = json.loads(json.dumps(analysis.to_json(arrays=True)))
    assert data["strategies"] == ["optimal", "hold:10"] and data["goal"] == 30
    assert data["win_a"] + data["win_b"] + data["shared"] + data["never"] == pytest.approx(1.0)
    assert len(data["equilibrium"]["turn_start_values"]) == 30
    assert 0.0 < data["equilibrium"]["mixed_share"] < 1.0
    words = " ".join(f"{name} {value}" for name, value in summary_rows(analysis))
    assert "_" not in words and "--" not in words
    assert report_text(analysis, "md").startswith("# Exact analysis: Swine Herd, goal 30")
    assert report_text(analysis, "html").startswith("<!doctype html>")


# -- the picture -----------------------------------------------------------------------------------
def test_the_sit_boundary_and_its_files(tmp_path: Path) -> None:
    variant = herd(30)
    policy = policy_for(variant)
    totals, chances = sit_boundary(policy)
    assert totals.shape == (30, 30) and np.all(totals >= 1) and np.all(totals <= 30)
    assert np.all((chances >= 0.5) | (totals == 30 - np.minimum.outer(np.arange(30), np.arange(30))))
    png = plot_swine_herd(variant, tmp_path / "sit.png", "boundary", 10, policy)
    assert (tmp_path / "sit.png").stat().st_size > 10_000 and "when to sit" in png.title
    plot_swine_herd(variant, tmp_path / "sit.html", "slice", 10, policy)
    assert '"type":"heatmap"' in (tmp_path / "sit.html").read_text(encoding="utf-8")
    with pytest.raises(BadParameterError, match="everyone at once"):
        plot_swine_herd(variant, tmp_path / "win.png", "win")
