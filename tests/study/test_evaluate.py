"""Exact comparison, Monte Carlo with Wilson intervals, and round-robin tournaments."""

from __future__ import annotations

import pytest

from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Human
from pigdice.players.specs import parse_strategy
from pigdice.rules import find_variant
from pigdice.solve import solve
from pigdice.study.evaluate import (
    compare,
    exact_compare,
    simulate_compare,
    tournament,
    wilson_interval,
)

Z999 = 3.2905  # fixed seeds make these deterministic; 99.9% intervals keep them robust to code changes


def robots(variant, *specs):  # type: ignore[no-untyped-def]
    """Return the strategies the specs name."""
    return [parse_strategy(spec, variant) for spec in specs]


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(50, 100)
    assert (lo, hi) == pytest.approx((0.40383, 0.59617), abs=1e-5)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.27753, abs=1e-5)
    lo, hi = wilson_interval(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.72247, abs=1e-5)
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("name", "goal", "a", "b"),
    [
        ("pig", 100, "hold:20", "hold:25"),
        ("pig", 100, "keep-pace", "optimal"),
        ("two-dice-pig", 50, "max-score", "hold:20"),
        ("hog", 100, "dice:5", "optimal"),
    ],
)
def test_exact_agrees_with_monte_carlo(name: str, goal: int, a: str, b: str) -> None:
    variant = find_variant(name, goal=goal)
    first, second = robots(variant, a, b)
    result = compare(variant, first, second, games=200_000, seed=2024)
    exact, sim = result.exact, result.simulated
    assert exact is not None and sim is not None
    assert sim.engine == "fast"
    lo, hi = wilson_interval(sim.a_first_wins + sim.b_first_wins, sim.games, z=Z999)
    assert lo <= exact.average <= hi
    lo, hi = sim.ci95
    assert hi - lo < 0.005
    for wins, games, value in [
        (sim.a_first_wins, sim.a_first_games, exact.a_first),
        (sim.b_first_wins, sim.b_first_games, exact.b_first),
    ]:
        lo, hi = wilson_interval(wins, games, z=Z999)
        assert lo <= value <= hi


@pytest.mark.parametrize(("name", "goal"), [("pig", 100), ("hog", 100), ("two-dice-pig", 40)])
def test_optimal_against_itself_is_the_solvers_first_player_value(name: str, goal: int) -> None:
    variant = find_variant(name, goal=goal)
    a, b = robots(variant, "optimal", "optimal")
    result = exact_compare(variant, a, b)
    value = float(solve(variant).values[0, 0])
    assert result.a_first == pytest.approx(value, abs=1e-9)
    assert result.b_first == pytest.approx(1 - value, abs=1e-9)
    assert result.average == pytest.approx(0.5, abs=1e-9)
    if name == "pig":
        assert result.a_first == pytest.approx(0.5306, abs=5e-5)  # Neller & Presser 2004


def test_optimal_beats_every_zoo_strategy_exactly() -> None:
    pig = find_variant("pig", goal=60)
    optimal = parse_strategy("optimal", pig)
    for other in robots(pig, "hold:20", "keep-pace", "max-score", "hold:30"):
        assert exact_compare(pig, optimal, other).average > 0.5


def test_engine_loop_is_used_without_tables() -> None:
    pig = find_variant("pig", goal=20)
    a, b = robots(pig, "rolls:3", "hold:10")
    sim = simulate_compare(pig, a, b, 41, seed=5)
    assert sim.engine == "engine"
    assert (sim.a_first_games, sim.b_first_games) == (21, 20)
    assert 0 <= sim.average <= 1 and sim.mean_turns > 0
    assert sim == simulate_compare(pig, a, b, 41, seed=5)
    seen: list[int] = []
    result = compare(pig, a, b, games=120, seed=1, progress=seen.append)
    assert result.exact is None and result.simulated is not None
    assert seen[0] == 0 and seen[-1] == 120 and seen == sorted(seen)


def test_final_round_endings_between_chasing_robots_are_simulated_fast_and_noted() -> None:
    variant = find_variant("pig", goal=20, endgame="final-round")
    a, b = robots(variant, "hold:10", "hold:5")
    result = compare(variant, a, b, games=30, seed=1)
    assert result.exact is not None and result.simulated is not None
    assert result.simulated.engine == "fast"
    assert result.notes == ("exact values are for the first-to-goal ending; simulations play final-round",)
    assert result.to_json()["endgame"] == "final-round"


def test_other_endings_go_to_the_engine_loop_where_the_fast_simulator_cannot_follow() -> None:
    variant = find_variant("pig", goal=20, endgame="final-round")
    optimal, hold = robots(variant, "optimal", "hold:5")  # the perfect player's last turn is not a table
    result = compare(variant, optimal, hold, games=30, seed=1)
    assert result.simulated is not None and result.simulated.engine == "engine"
    assert "engine loop" in result.notes[1] and "chase" in result.notes[1]
    hog = find_variant("hog", goal=20, endgame="final-round")  # chooses its dice
    assert simulate_compare(hog, *robots(hog, "dice:3", "dice:5"), 30, seed=1).engine == "engine"


def test_compare_without_tables_needs_games() -> None:
    pig = find_variant("pig")
    a, b = robots(pig, "rolls:3", "hold:20")
    with pytest.raises(BadStrategyError, match=r"rolls:3 has no action table.*--games"):
        compare(pig, a, b)
    herd = find_variant("swine-herd")
    with pytest.raises(BadStrategyError, match="everyone at once: only optimal and hold:N"):
        compare(herd, *robots(herd, "rolls:3", "hold:20"))
    big = herd.with_goal(201)
    with pytest.raises(BadStrategyError, match="up to goal 200"):
        compare(big, *robots(big, "hold:25", "hold:20"))
    with pytest.raises(BadStrategyError, match="human"):
        simulate_compare(pig, Human(), b, 10)
    with pytest.raises(BadParameterError, match="at least 2"):
        simulate_compare(pig, a, b, 1)


def test_two_player_tournament_is_exact_and_ranked() -> None:
    pig = find_variant("pig", goal=40)
    strategies = robots(pig, "hold:20", "hold:10", "keep-pace", "optimal")
    result = tournament(pig, strategies, players=2, seed=1)
    assert len(result.matches) == 6
    assert all(m.method == "exact" and m.games == 0 for m in result.matches)
    for match in result.matches:
        assert sum(match.win_rates) == pytest.approx(1.0)
    standings = result.standings
    assert standings[0].name == "optimal"
    assert [s.rank for s in standings] == [1, 2, 3, 4]
    assert sum(s.win_rate for s in standings) == pytest.approx(2.0)
    pairs = result.pairwise()
    assert pairs[("optimal", "hold:10")] + pairs[("hold:10", "optimal")] == pytest.approx(1.0)
    data = result.to_json()
    assert set(data) == {"variant", "goal", "players", "games", "seed", "strategies", "standings", "matches"}
    rows = result.csv_rows()
    assert len(rows) == 12 and {row["method"] for row in rows} == {"exact"}


def test_tournament_mixes_exact_and_simulated_and_can_simulate_all() -> None:
    pig = find_variant("pig", goal=20)
    strategies = robots(pig, "hold:10", "rolls:2", "max-score")
    mixed = tournament(pig, strategies, players=2, games=40, seed=3)
    methods = {m.players: m.method for m in mixed.matches}
    assert methods[("hold:10", "max-score")] == "exact"
    assert methods[("hold:10", "rolls:2")] == "simulated"
    simulated = tournament(pig, strategies, players=2, games=40, seed=3, exact=False)
    assert all(m.method == "simulated" for m in simulated.matches)


def test_three_player_tournament_rotates_seats() -> None:
    pig = find_variant("pig", goal=30)
    strategies = robots(pig, "hold:5", "hold:15", "keep-pace", "optimal")
    seen: list[float] = []
    result = tournament(pig, strategies, players=3, games=30_000, seed=9, progress=lambda f, _: seen.append(f))
    assert len(result.matches) == 4  # C(4, 3)
    for match in result.matches:
        assert match.method == "simulated" and match.games == 30_000
        assert sum(match.win_rates) == pytest.approx(1.0)
        assert match.ci95 is not None and all(
            lo <= r <= hi for r, (lo, hi) in zip(match.win_rates, match.ci95, strict=True)
        )
    assert result.standings[-1].name == "hold:5"
    assert seen[0] == 0.0 and seen[-1] == 1.0
    again = tournament(pig, strategies, players=3, games=30_000, seed=9)
    assert [m.win_rates for m in again.matches] == [m.win_rates for m in result.matches]


def test_many_player_engine_tournament_with_strategies_without_tables() -> None:
    pig = find_variant("pig", goal=15)
    strategies = robots(pig, "rolls:1", "rolls:3", "random", "hold:10")
    result = tournament(pig, strategies, players=4, games=8, seed=2)
    assert len(result.matches) == 1 and result.matches[0].games == 8
    assert sum(result.matches[0].win_rates) == pytest.approx(1.0)


def test_tournament_errors() -> None:
    pig = find_variant("pig")
    with pytest.raises(BadParameterError, match="differ"):
        tournament(pig, robots(pig, "hold:20", "hold:20"))
    with pytest.raises(BadParameterError, match="at least 3 strategies"):
        tournament(pig, robots(pig, "hold:20", "hold:25"), players=3)
    with pytest.raises(BadParameterError, match="at least two"):
        tournament(pig, robots(pig, "hold:20"))
    with pytest.raises(BadStrategyError, match="robots"):
        tournament(pig, [Human(), *robots(pig, "hold:20")])
    with pytest.raises(BadParameterError, match="players"):
        tournament(pig, robots(pig, "hold:20", "hold:25"), players=11)


@pytest.mark.slow
def test_swine_herd_is_compared_exactly_and_agrees_with_simulation() -> None:
    herd = find_variant("swine-herd", goal=30)
    result = compare(herd, *robots(herd, "optimal", "hold:8"), games=4000, seed=5)
    assert result.exact is not None and result.simulated is not None
    assert result.exact.a_first == pytest.approx(result.exact.b_first, abs=1e-12)  # nobody moves first
    assert 0.5 < result.exact.average < 1.0
    low, high = result.simulated.ci95
    assert low - 0.01 < result.exact.average < high + 0.01
    table = tournament(herd, robots(herd, "optimal", "hold:8", "hold:12"))
    assert all(m.method == "exact" for m in table.matches)
    assert table.standings[0].name == "optimal"


def test_swine_herd_without_the_house_rule_refuses_an_endless_pair() -> None:
    herd = find_variant("swine-herd", goal=20, at_goal="roll-on")
    with pytest.raises(BadStrategyError, match="never ends"):
        compare(herd, *robots(herd, "optimal", "optimal"))
