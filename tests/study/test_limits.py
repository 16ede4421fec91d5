"""Bounds on studies: at most 10^9 simulated games, and memory checked before goal-sized work."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.errors import BadParameterError, BadStrategyError, ResourceLimitError
from pigdice.players.fixed import HoldAt
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.solve import memory
from pigdice.solve.memory import action_table_bytes, chain_bytes, turn_outcomes_bytes
from pigdice.study.analysis import analyze, play_chain, turn_outcomes
from pigdice.study.analysis import turns as turns_module
from pigdice.study.evaluate import compare, exact_compare, simulate_compare, tournament
from pigdice.study.fastsim import head_to_head_sim, simulate_tables
from pigdice.study.limits import MAX_GAMES, check_games
from pigdice.study.simulate import simulate

PIG = find_variant("pig", goal=30)
HOLD = action_table(HoldAt(10), PIG)


pytestmark = pytest.mark.usefixtures("fresh_policies")  # a refusal is only seen by a solve not yet cached


def machine_with(monkeypatch, available: int) -> None:
    """Pretend ``available`` bytes are free."""
    monkeypatch.setattr(memory, "available_bytes", lambda: available)
    monkeypatch.setattr(turns_module, "available_bytes", lambda: available)


# --- games ---------------------------------------------------------------------------------------


def test_check_games_bounds():
    assert check_games(MAX_GAMES) == MAX_GAMES == 10**9
    assert check_games(np.int64(5)) == 5
    with pytest.raises(BadParameterError, match=r"games must be at most 1_000_000_000 \(10\^9\) games"):
        check_games(MAX_GAMES + 1)
    with pytest.raises(BadParameterError, match=r"games must be a whole number, got 1000\.0"):
        check_games(1000.0)
    with pytest.raises(BadParameterError, match="games must be a whole number, got True"):
        check_games(True)
    with pytest.raises(BadParameterError, match=r"--games must be at least 2 \(each side starts half\), got 1"):
        check_games(1, 2, "--games", " (each side starts half)")


@pytest.mark.parametrize(
    "call",
    [
        lambda games: simulate(PIG, [HoldAt(10), HoldAt(20)], games, seed=1),
        lambda games: simulate_tables(PIG, [HOLD, HOLD], games, seed=1),
        lambda games: head_to_head_sim(PIG, HOLD, HOLD, games, seed=1),
        lambda games: simulate_compare(PIG, HoldAt(10), HoldAt(20), games, seed=1),
        lambda games: compare(PIG, HoldAt(10), HoldAt(20), games=games, seed=1),
        lambda games: tournament(PIG, [HoldAt(10), HoldAt(20)], games=games, exact=False),
    ],
    ids=["simulate", "simulate_tables", "head_to_head_sim", "simulate_compare", "compare", "tournament"],
)
def test_simulations_refuse_more_than_the_maximum_before_playing(call):
    with pytest.raises(BadParameterError, match="must be at most 1_000_000_000"):
        call(MAX_GAMES + 1)
    with pytest.raises(BadParameterError, match="must be a whole number"):
        call(2.5)


def test_a_tournament_counts_all_its_games_and_matches():
    strategies = [HoldAt(n) for n in range(5, 15)]  # 45 matches
    with pytest.raises(BadParameterError, match=r"a tournament's games in all \(45 matches x 30000000\)"):
        tournament(PIG, strategies, games=30_000_000, exact=False)
    many = [HoldAt(n) for n in range(1, 201)]  # 19900 matches
    with pytest.raises(BadParameterError, match="make 19900 matches; a tournament plays at most 10000"):
        tournament(PIG, many)


def test_exact_comparison_of_strategies_that_never_score_is_an_error():
    never = np.zeros_like(HOLD)
    from pigdice.solve.two.headtohead import head_to_head

    with pytest.raises(BadStrategyError, match="this game never ends"):
        head_to_head(PIG, never, never)


# --- memory --------------------------------------------------------------------------------------


def test_exact_compare_checks_memory_before_writing_tables(monkeypatch):
    machine_with(monkeypatch, action_table_bytes(30))  # half of it is less than two tables
    with pytest.raises(ResourceLimitError, match="exact comparison at goal 30"):
        exact_compare(PIG, HoldAt(10), HoldAt(20))


def test_compare_checks_each_table(monkeypatch):
    machine_with(monkeypatch, 2 * action_table_bytes(29))
    with pytest.raises(ResourceLimitError, match=r"the action table of hold:10 at goal 30.*fits is 29"):
        compare(PIG, HoldAt(10), HoldAt(20))


def test_analysis_checks_memory_first(monkeypatch):
    machine_with(monkeypatch, 2 * chain_bytes(30))
    with pytest.raises(ResourceLimitError, match="exact analysis at goal 30"):
        analyze(PIG, ["hold:10", "hold:20"])


def test_the_game_chain_checks_memory(monkeypatch):
    outcomes = turn_outcomes(PIG, HOLD, visits=False)
    machine_with(monkeypatch, 2 * chain_bytes(29))
    with pytest.raises(ResourceLimitError, match=r"the exact game chain at goal 30.*fits is 29"):
        play_chain(PIG, outcomes, outcomes)


def test_turn_outcomes_check_their_lists_as_they_grow(monkeypatch):
    big = find_variant("big-pig", goal=40)
    table = action_table(HoldAt(20), big)  # about 18 outcomes per turn-start state
    monkeypatch.setattr(turns_module, "ENTRIES_PER_STATE", 0)  # counted for none up front
    machine_with(monkeypatch, 2 * (turn_outcomes_bytes(40, False, 0) + 5 * 16 * 40 * 40))  # room for ~5
    with pytest.raises(ResourceLimitError, match="exact turn outcomes at goal 40 needs about"):
        turn_outcomes(big, table, visits=False)


def test_normal_goals_still_work():
    result = analyze(PIG, ["hold:10", "hold:20"])
    assert 0 < result.a_win_rate < 1
    assert 0 < exact_compare(PIG, HoldAt(10), HoldAt(20)).average < 1


def test_self_play_in_the_fast_simulator_copies_no_table(monkeypatch):
    # one distinct table is played as a view; two distinct tables are stacked after a memory check
    result = simulate_tables(PIG, [HOLD, HOLD], 2000, seed=3)
    assert sum(result.wins) == 2000
    machine_with(monkeypatch, action_table_bytes(30))
    result = simulate_tables(PIG, [HOLD, HOLD], 2000, seed=3)  # no copy, no refusal
    assert sum(result.wins) == 2000
    other = action_table(HoldAt(20), PIG)
    with pytest.raises(ResourceLimitError, match="the fast simulator's 2 tables at goal 30"):
        simulate_tables(PIG, [HOLD, other], 2000, seed=3)


@pytest.mark.parametrize(
    ("option", "value"), [("max_turns", 0), ("max_turns", 10**6), ("max_turns", 5.0), ("tail", 0.0), ("tail", 1.5)]
)
def test_the_game_chain_bounds_its_options(option, value):
    outcomes = turn_outcomes(PIG, HOLD, visits=False)
    with pytest.raises(BadParameterError, match=f"{option} must be"):
        play_chain(PIG, outcomes, outcomes, **{option: value})
