"""The exact 3-player solver under a final round and equal turns (``solve_players`` with an ending)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pigdice.engine.game import apply, new_game, parse_action
from pigdice.errors import BadParameterError
from pigdice.players.optimal import position_of
from pigdice.rules import find_variant
from pigdice.solve.exact import exact_policy, exactness
from pigdice.solve.n.nplayer import PlayersPolicy, solve_players
from pigdice.solve.positions import INDIFFERENCE, Position
from pigdice.study.evaluate import wilson_interval

from .reference_games import reference_game

EXACT = 1e-12


# Small games checked at every position against the plain-Python reference (tests/solve/reference_games.py).
# The cap binds the player who reaches the goal and a last turn with someone after it; the very last turn
# is not capped (cap_last_turn=False), as the solver plays it. Caps are large enough that no scores make
# every player pass forever (at Pig goal 6 a cap of 16 does: a war of attrition the rules leave open).
REFERENCE_CASES = [
    ("pig", 5, "final-round", "first-to-reach", "turn", 20),
    ("two-dice-pig", 4, "final-round", "shared", "turn", 20),
    ("pig", 5, "equal-turns", "shared", "turn", 20),
    ("pig", 5, "final-round", "first-to-reach", "roll", 20),
    ("pig-dice", 4, "final-round", "first-to-reach", "roll", 12),
    ("hog", 6, "final-round", "shared", "turn", None),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "goal", "endgame", "ties", "final_turn", "cap"), REFERENCE_CASES)
def test_three_players_endings_equal_the_reference_everywhere(name, goal, endgame, ties, final_turn, cap):
    params = {"max_dice": 3} if name == "hog" else {}
    variant = find_variant(name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)
    game = reference_game(variant, 3, cap, cap_last_turn=False, refuse_endless=True)
    policy = solve_players(variant, 3, cap=cap or 0)
    assert policy.truncation == 0.0
    worst = 0.0
    for position in game.positions():
        found = policy.win_vector(position)
        worst = max(worst, *(abs(a - b) for a, b in zip(game.values(position), found, strict=True)))
        assert policy.best(position) == game.best(position), position
        expected, values = game.action_values(position), policy.action_values(position)
        assert values.keys() == expected.keys(), position
        worst = max(worst, *(abs(values[option] - value) for option, value in expected.items()))
    assert worst < EXACT


def test_equal_turns_a_goal_reached_from_the_last_seat_ends_the_game():
    policy = solve_players(find_variant("pig", goal=20, endgame="equal-turns"), 3)
    for scores in ((10, 15, 18), (19, 0, 0)):
        for k in range(20 - scores[0], 30 - scores[0]):
            assert policy.win_vector(Position(scores, k, seat=2)) == (1.0, 0.0, 0.0)
            assert policy.best(Position(scores, k, seat=2)) == "hold"
        # from the first seat the others still play, so holding at the goal is worth less than a sure win
        assert policy.win_vector(Position(scores, 20 - scores[0], seat=0))[0] < 1.0


@pytest.mark.parametrize("ties", ["first-to-reach", "shared"])
def test_the_last_player_rolls_until_passing_the_leader(ties):
    goal = 20
    policy = solve_players(find_variant("pig", goal=goal, endgame="final-round", ties=ties), 3)
    for leader in (20, 25, 31):
        for other in (3, leader):  # the middle player finished below or level with the leader
            for score in (0, 12, 19):
                for k in range(0, leader - score + 3):
                    position = Position((score, leader, other), k, 0, ())  # X then Y have finished
                    best = policy.best(position)
                    if score + k > leader:
                        assert best == "hold"
                    elif score + k < leader:
                        assert best == "roll", (position, policy.action_values(position))


def test_the_middle_player_goes_past_the_leader_by_a_margin():
    # Y plays a last turn with Z still to play after: holding just past X's total hands Z an easy target
    policy = solve_players(find_variant("pig", goal=30, endgame="final-round"), 3)
    position = Position((10, 25, 30), 21, 0, (1,))  # Y on 31, one past X, Z on 25 to play
    assert policy.best(position) == "roll"
    stops = [k for k in range(21, 80) if policy.best(Position((10, 25, 30), k, 0, (1,))) == "hold"]
    assert stops and stops[0] > 21


@pytest.mark.parametrize("endgame", ["final-round", "equal-turns"])
def test_seat_probabilities_sum_to_one_and_values_are_vectors(endgame):
    policy = solve_players(find_variant("two-dice-pig", goal=25, endgame=endgame), 3)
    assert policy.values.min() >= 0.0 and policy.values.max() <= 1.0
    assert np.abs(policy.values.sum(axis=-1) - 1.0).max() < EXACT
    seats = policy.win_probability_by_seat()
    assert sum(seats) == pytest.approx(1.0, abs=EXACT)
    assert policy.residual < EXACT and policy.truncation <= 1e-12


@pytest.mark.slow
def test_the_ending_changes_the_odds():
    first = solve_players(find_variant("pig", goal=40).first_to_goal(), 3).win_probability_by_seat()
    final = solve_players(find_variant("pig", goal=40, endgame="final-round"), 3).win_probability_by_seat()
    equal = solve_players(find_variant("pig", goal=40, endgame="equal-turns"), 3).win_probability_by_seat()
    # the final round gives the later seats a reply: the first seat's edge shrinks; equal turns more so
    assert final[0] < first[0]
    assert equal[0] < first[0]
    assert len({round(v, 6) for v in (*first, *final, *equal)}) == 9


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "goal", "endgame", "games"),
    [("pig", 25, "final-round", 2500), ("pig", 25, "equal-turns", 2500), ("two-dice-pig", 25, "final-round", 2000)],
)
def test_exact_robots_play_their_values_through_the_engine(name, goal, endgame, games):
    variant = find_variant(name, goal=goal, endgame=endgame)
    policy = solve_players(variant, 3)
    rng = np.random.default_rng(goal * 7 + games)
    wins = [0.0] * 3
    for _ in range(games):
        state = new_game(variant, 3)
        while state.winners is None:
            state, _ = apply(state, parse_action(policy.best(position_of(state))), rng)
        for seat in state.winners:
            wins[seat] += 1.0 / len(state.winners)
    for seat, value in enumerate(policy.win_probability_by_seat()):
        low, high = wilson_interval(wins[seat], games, z=3.2905)  # 99.9% two-sided
        assert low <= value <= high, f"seat {seat}: {wins[seat]} of {games} against {value:.4f}"


def test_best_is_a_best_reply_everywhere_it_settles():
    policy = solve_players(find_variant("pig", goal=20, endgame="final-round"), 3)
    for scores in ((0, 0, 0), (15, 3, 9), (19, 19, 0)):
        for k in range(0, 40 - scores[0]):
            values = policy.action_values(Position(scores, k))
            assert values[policy.best(Position(scores, k))] >= max(values.values()) - INDIFFERENCE


def test_save_and_load_keep_the_last_turns(tmp_path: Path):
    variant = find_variant("pig", goal=15, endgame="equal-turns")
    policy = solve_players(variant, 3)
    path = tmp_path / "p.npz"
    policy.save(path)
    loaded = PlayersPolicy.load(path, variant, 3)
    assert np.array_equal(loaded.values, policy.values) and np.array_equal(loaded.banked, policy.banked)
    position = Position((9, 14, 3), 0, 1, None)
    assert loaded.win_vector(position) == policy.win_vector(position)
    with pytest.raises(BadParameterError, match="other parameters"):
        PlayersPolicy.load(path, find_variant("pig", goal=15, endgame="equal-turns", ties="first-to-reach"), 3)
    with pytest.raises(BadParameterError, match="shape"):
        PlayersPolicy.load(path, find_variant("pig", goal=15, endgame="final-round"), 3)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(BadParameterError, match="damaged"):
        PlayersPolicy.load(path, variant, 3)


def test_exact_dispatch_and_limits():
    assert exactness(find_variant("freys-pig"), 3) is None
    assert "2 and 3 players" in (exactness(find_variant("freys-pig"), 4) or "")
    policy = exact_policy(find_variant("freys-pig", goal=15), 3, use_cache=False)
    assert isinstance(policy, PlayersPolicy) and policy.seats == 3
    with pytest.raises(BadParameterError, match="2 and 3 players"):
        solve_players(find_variant("pig", goal=10, endgame="final-round"), 4)
    with pytest.raises(BadParameterError, match="cap"):
        solve_players(find_variant("pig", goal=10, endgame="final-round"), 3, cap=10)


def test_positions_the_policy_does_not_answer_are_refused_clearly():
    policy = solve_players(find_variant("pig", goal=10, endgame="final-round"), 3)
    with pytest.raises(BadParameterError, match="final round is on"):
        policy.best(Position((3, 12, 0)))
    with pytest.raises(BadParameterError, match="at or past the goal"):
        policy.best(Position((3, 5, 4), 0, 0, (1,)))  # nobody finished on the goal
    with pytest.raises(BadParameterError, match="past the"):
        policy.best(Position((3, 5, 4), 999_999))  # beyond the totals the solve follows: refused with the bound
    with pytest.raises(BadParameterError, match="owed a last turn"):
        policy.best(Position((3, 11, 12), 0, 0, (1,)))


@pytest.mark.parametrize(
    ("name", "goal", "endgame", "ties"),
    [
        pytest.param("pig-dice", 12, "final-round", "first-to-reach", marks=pytest.mark.slow),
        ("pig", 10, "equal-turns", "shared"),
        ("hog", 9, "final-round", "shared"),
    ],
)
def test_the_banked_table_swept_once_per_difference_equals_the_table_swept_per_score(name, goal, endgame, ties):
    # Y's last turn depends only on M - b and M - c: sweeping each pair once must give, bit for bit,
    # what sweeping every (M, b, c) gives
    from pigdice.solve.n.finalturns import banked_table, last_tables, last_turn_game
    from pigdice.solve.tables import effect_table

    variant = find_variant(name, goal=goal, endgame=endgame, ties=ties)
    table = effect_table(variant)
    width = 40
    L = last_tables(variant, table, 3, goal + width + 512)
    classes = 3 if endgame == "equal-turns" else 1
    tables = []
    for shifts in (True, False):
        FT = np.full((classes, width, goal * goal, 3), np.nan)
        banked_table(last_turn_game(variant, table, L), goal, classes == 3, shifts, FT)
        tables.append(FT)
    assert not np.isnan(tables[0]).any()
    assert np.array_equal(tables[0], tables[1])
