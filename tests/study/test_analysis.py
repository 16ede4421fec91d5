"""Exact analyses: totals, hand-computed small games, the solver's values, and a simulation check."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from pigdice.errors import BadParameterError, PigdiceError
from pigdice.players.specs import parse_strategy
from pigdice.rules import find_variant
from pigdice.solve import solve
from pigdice.solve.actions import hold_thresholds
from pigdice.study.analysis import (
    STAT_NAMES,
    analyze,
    play_chain,
    turn_outcomes,
)
from pigdice.study.simulate import simulate


def brute_force_pig(goal: int, thresholds: tuple[int, int], turns: int = 400) -> dict[str, object]:
    """Play 1-die Pig (hold at N, or when holding wins) over full states, written out from the rules.

    An independent check of the analysis: no effect tables, no turn-start chain, just
    (scores, mover, turn total) -> probability, one roll or hold at a time.
    """
    states: dict[tuple[int, int, int, int], float] = {(0, 0, 0, 0): 1.0}  # (s0, s1, mover, k)
    length = [0.0] * (turns + 1)
    first_wins = 0.0
    scoring = [0.0, 0.0]
    turn = 1
    while turn <= turns and states:
        ended: dict[tuple[int, int, int, int], float] = {}
        live = states
        while live:
            after: dict[tuple[int, int, int, int], float] = {}
            for (s0, s1, mover, k), p in live.items():
                mine = (s0, s1)[mover]
                if k >= thresholds[mover] or mine + k >= goal:  # hold
                    if mine + k >= goal:
                        length[turn] += p
                        scoring[mover] += p
                        if mover == 0:
                            first_wins += p
                        continue
                    scoring[mover] += p
                    new = (s0 + k, s1) if mover == 0 else (s0, s1 + k)
                    key = (*new, 1 - mover, 0)
                    ended[key] = ended.get(key, 0.0) + p
                    continue
                for face in range(1, 7):
                    q = p / 6
                    if face == 1:
                        key = (s0, s1, 1 - mover, 0)
                        ended[key] = ended.get(key, 0.0) + q
                    else:
                        key = (s0, s1, mover, k + face)
                        after[key] = after.get(key, 0.0) + q
            live = after
        states = ended
        turn += 1
    return {"first_wins": first_wins, "length": length[1:], "scoring": scoring}


# -- hand-computed ------------------------------------------------------------------------------
def test_goal_two_pig_hold_one_by_hand() -> None:
    # Goal 2: every roll but a 1 wins at once, so the mover wins a turn with 5/6, else passes.
    # P(first wins) = (5/6) / (1 - 1/36) = 6/7; P(length = n) = (1/6)^(n-1) * 5/6, mean 6/5.
    a = analyze(find_variant("pig", goal=2), ["hold:1"])
    seating = a.seatings[0]
    assert seating.p_first_wins == pytest.approx(float(Fraction(6, 7)), abs=1e-12)
    for n in range(1, 8):
        assert seating.length[n - 1] == pytest.approx(float(Fraction(1, 6) ** (n - 1) * Fraction(5, 6)), abs=1e-15)
    assert seating.mean_length == pytest.approx(1.2, abs=1e-11)
    assert a.winner_scoring_turns == pytest.approx(1.0, abs=1e-11)
    assert seating.loser_scoring_turns == pytest.approx(0.0, abs=1e-12)
    assert seating.stat(0, "busts") + seating.stat(1, "busts") == pytest.approx(0.2, abs=1e-11)


def test_goal_three_pig_hold_one_by_hand() -> None:
    # Goal 3, both hold at 1. From score 0: a 1 busts (1/6), a 2 banks 2 (1/6), 3-6 win (2/3);
    # from score 2 every face but 1 wins (5/6). With f(a, b) the mover's win probability:
    #   f(2, 2) = 5/6 + (1 - f(2, 2))/6                      -> 6/7
    #   f(0, 2) = 2/3 + (1 - f(2, 2))/6 + (1 - f(2, 0))/6,  f(2, 0) = 5/6 + (1 - f(0, 2))/6
    #                                                         -> f(0, 2) = 174/245, f(2, 0) = 216/245
    #   f(0, 0) = 2/3 + (1 - f(0, 2))/6 + (1 - f(0, 0))/6    -> 1296/1715
    f22 = Fraction(6, 7)
    f02 = Fraction(174, 245)
    f20 = Fraction(216, 245)
    assert f22 == Fraction(5, 6) + (1 - f22) / 6
    assert f02 == Fraction(2, 3) + (1 - f22) / 6 + (1 - f20) / 6
    assert f20 == Fraction(5, 6) + (1 - f02) / 6
    f00 = Fraction(1296, 1715)
    assert f00 == Fraction(2, 3) + (1 - f02) / 6 + (1 - f00) / 6
    a = analyze(find_variant("pig", goal=3), ["hold:1"])
    seating = a.seatings[0]
    assert seating.p_first_wins == pytest.approx(float(f00), abs=1e-12)
    assert a.first_player_advantage == pytest.approx(float(f00 - Fraction(1, 2)), abs=1e-12)
    # the game ends on turn 1 with 2/3; on turn 2 when turn 1 did not (1/3) and the second wins at 0 (2/3)
    assert seating.length[0] == pytest.approx(2 / 3, abs=1e-15)
    assert seating.length[1] == pytest.approx(2 / 9, abs=1e-15)
    # expected points banked by the first turn: 2 * 1/6 + (3 + 4 + 5 + 6)/6 = 20/6
    assert a.turns[0].banked[0, 0] == pytest.approx(20 / 6, abs=1e-15)
    assert a.turns[0].win[0, 0] == pytest.approx(2 / 3, abs=1e-15)
    assert a.turns[0].scoring[0, 0] == pytest.approx(5 / 6, abs=1e-15)


def test_goal_three_pig_optimal_by_hand() -> None:
    # Optimal goal-3 Pig goes for the goal every turn: at turn total 2, rolling wins with 5/6 at once,
    # while holding leaves the opponent to go for 3 from 0 (which wins at least 29/36 for them).
    # So no score is ever banked short of the goal; a turn wins with 4/6 + (1/6)(5/6) = 29/36
    # (3-6 at once, or 2 then anything but 1), else the turn passes: q = 7/36.
    #   P(first wins) = (29/36) / (1 - q^2) = 1044/1247;  P(length = n) = q^(n-1) * 29/36, mean 36/29.
    win = Fraction(4, 6) + Fraction(1, 6) * Fraction(5, 6)
    q = 1 - win
    assert win == Fraction(29, 36)
    p_first = win / (1 - q * q)
    assert p_first == Fraction(1044, 1247)
    variant = find_variant("pig", goal=3)
    a = analyze(variant)
    assert a.opening() == {"hold_at": 3}
    seating = a.seatings[0]
    assert seating.p_first_wins == pytest.approx(float(p_first), abs=1e-12)
    assert seating.p_first_wins == pytest.approx(float(solve(variant).values[0, 0]), abs=1e-12)
    for n in range(1, 6):
        assert seating.length[n - 1] == pytest.approx(float(q ** (n - 1) * win), abs=1e-15)
    assert seating.mean_length == pytest.approx(36 / 29, abs=1e-10)
    assert a.winner_scoring_turns == pytest.approx(1.0, abs=1e-10)
    # expected points of the first turn: (3+4+5+6)/6 + (1/6) * (4+5+6+7+8)/6
    assert a.turns[0].banked[0, 0] == pytest.approx(18 / 6 + 30 / 36, abs=1e-14)


@pytest.mark.parametrize(("goal", "thresholds"), [(6, (2, 4)), (10, (3, 7)), (12, (20, 1))])
def test_agrees_with_brute_force_over_full_states(goal: int, thresholds: tuple[int, int]) -> None:
    variant = find_variant("pig", goal=goal)
    a = analyze(variant, [f"hold:{thresholds[0]}", f"hold:{thresholds[1]}"])
    seating = a.seatings[0]
    brute = brute_force_pig(goal, thresholds)
    assert seating.p_first_wins == pytest.approx(brute["first_wins"], abs=1e-11)
    length = brute["length"]
    assert isinstance(length, list)
    for n in range(min(40, len(seating.length))):
        assert seating.length[n] == pytest.approx(length[n], abs=1e-13)
    scoring = brute["scoring"]
    assert isinstance(scoring, list)
    assert seating.stat(0, "scoring_turns") == pytest.approx(scoring[0], abs=1e-10)
    assert seating.stat(1, "scoring_turns") == pytest.approx(scoring[1], abs=1e-10)


# -- totals and the solver ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "goal"),
    [
        ("pig", 30),
        ("two-dice-pig", 30),
        ("big-pig-knizia", 30),
        ("pig-dice", 30),
        ("hog", 30),
        ("hog-reroll", 20),
        ("piggy-six-3dice", 20),
        ("freys-pig", 30),
    ],
)
def test_optimal_totals_and_first_player_advantage(name: str, goal: int) -> None:
    variant = find_variant(name, goal=goal)
    a = analyze(variant)
    seating = a.seatings[0]
    policy = solve(variant)
    assert a.policy is not None
    # first-player advantage is exactly the solver's V[0, 0] - 1/2
    assert seating.p_first_wins == pytest.approx(float(policy.values[0, 0]), abs=1e-10)
    assert a.first_player_advantage == pytest.approx(float(policy.values[0, 0]) - 0.5, abs=1e-10)
    # the length distribution and the tail account for all the probability
    assert seating.tail < 1e-12
    assert seating.length.sum() + seating.tail == pytest.approx(1.0, abs=1e-12)
    assert seating.wins_at.sum() == pytest.approx(seating.length.sum(), abs=1e-15)
    # every turn outcome is a probability distribution
    t = a.turns[0]
    rows = np.add.reduceat(t.probabilities, t.indptr[:-1]) if t.probabilities.size else np.zeros(goal * goal)
    empty = np.diff(t.indptr) == 0
    rows[empty] = 0.0
    assert np.allclose(rows.reshape(goal, goal) + t.win, 1.0, atol=1e-12)
    assert t.leftover < 1e-12
    # the turn counts add up: the seats alternate, so the first seat plays ceil(n / 2) of n turns
    n = np.arange(1, len(seating.length) + 1)
    assert seating.stat(0, "turns") == pytest.approx(float((np.ceil(n / 2) * seating.length).sum()), abs=1e-9)
    assert seating.stat(1, "turns") == pytest.approx(float((n // 2 * seating.length).sum()), abs=1e-9)
    assert seating.mean_length == pytest.approx(seating.stat(0, "turns") + seating.stat(1, "turns"), rel=1e-9)
    # the winner scored at least once, and scoring turns cannot outnumber turns
    assert a.winner_scoring_turns >= 1.0 - 1e-9
    assert seating.winner_scoring_turns + seating.loser_scoring_turns == pytest.approx(
        seating.stat(0, "scoring_turns") + seating.stat(1, "scoring_turns"), rel=1e-9
    )
    # expected visits: every game starts a turn at (0, 0)
    assert a.turn_starts[0, 0] >= 1.0
    visits = a.state_visits()
    assert visits is not None
    # (Pig Dice's tail can bring the turn total back to 0 within a turn: more visits than turn starts)
    assert visits[0, 0, 0] >= a.turn_starts[0, 0] - 1e-12
    if name != "pig-dice":
        assert visits[0, 0, 0] == pytest.approx(a.turn_starts[0, 0])


def test_pig_goal_100_published_values() -> None:
    # Neller & Presser 2004/2005 (seed 003): the first player wins 0.5306 under optimal play,
    # and holds at 21 at the start; Hog: 0.5299 rolling 6 dice; Pass the Pigs 0.5310.
    a = analyze(find_variant("pig"))
    assert a.seatings[0].p_first_wins == pytest.approx(0.5306, abs=5e-5)
    assert a.opening() == {"hold_at": 21}
    hog = analyze(find_variant("hog"))
    assert hog.seatings[0].p_first_wins == pytest.approx(0.5299, abs=5e-5)
    assert hog.opening() == {"dice": 6}
    # 003's conclusion: Pig takes about four or five scoring turns to win
    assert 4.0 < a.winner_scoring_turns < 5.0
    assert 4.0 < hog.winner_scoring_turns < 5.0
    ptp = analyze(find_variant("pass-the-pigs"))
    assert ptp.seatings[0].p_first_wins == pytest.approx(0.5310, abs=5e-5)


def test_two_score_variants_take_about_two_scoring_turns() -> None:
    # 003: Piggy and Pig Dice are won in about two scoring turns (hold at roughly half the goal)
    for name in ("piggy", "pig-dice"):
        a = analyze(find_variant(name))
        assert 1.5 < a.winner_scoring_turns < 2.6, name


def test_pair_of_strategies_has_both_seatings_and_matches_head_to_head() -> None:
    from pigdice.solve.two.headtohead import head_to_head

    variant = find_variant("two-dice-pig", goal=40)
    a = analyze(variant, ["hold:10", "optimal"])
    assert len(a.seatings) == 2
    assert [s.first for s in a.seatings] == ["hold:10", "optimal"]
    h2h = head_to_head(variant, a.actions[0], a.actions[1])
    assert a.seatings[0].p_first_wins == pytest.approx(h2h.a_first, abs=1e-10)
    assert 1.0 - a.seatings[1].p_first_wins == pytest.approx(h2h.b_first, abs=1e-10)
    assert a.a_win_rate == pytest.approx(h2h.average, abs=1e-10)
    assert a.a_win_rate < 0.5  # the optimal player wins more often
    data = a.to_json()
    assert data["strategies"] == ["hold:10", "optimal"]
    assert len(data["seatings"]) == 2


def test_resets_are_counted() -> None:
    # Two-Dice Pig: a double 1 loses the whole score, so resets and lost points show up
    a = analyze(find_variant("two-dice-pig", goal=50), ["hold:20"])
    seating = a.seatings[0]
    assert seating.stat(0, "resets") > 0.0
    assert seating.stat(0, "points_lost_to_resets") > 0.0
    # every roll loses the score with 1/36 (1-1) and the turn total with 10/36 (one 1)
    turn = a.turns[0]
    assert turn.reset[0, 0] == pytest.approx(turn.rolls[0, 0] / 36, rel=1e-12)
    assert turn.bust[0, 0] == pytest.approx(turn.rolls[0, 0] * 10 / 36, rel=1e-12)
    assert turn.rolls[0, 0] > 1.0
    assert a.visit_probabilities() is None  # scores can go down: only expected visits are exact


def test_visit_probabilities_without_resets() -> None:
    a = analyze(find_variant("pig", goal=20), ["hold:5"])
    reach = a.visit_probabilities()
    assert reach is not None
    assert reach[0, 0] == pytest.approx(1.0)
    assert np.all(reach <= 1.0 + 1e-12)
    # scores move in steps of 5 or more from 0 for hold:5 ... so (1, 0) is never a turn start
    assert reach[1, 0] == 0.0
    assert np.all(a.turn_starts + 1e-12 >= reach)


def test_hold_thresholds_of_pig_look_like_figure_1() -> None:
    variant = find_variant("pig")
    table = solve(variant).action_table()
    thresholds = hold_thresholds(table)
    assert thresholds[0, 0] == 21
    # near the goal a player just rolls for the remaining points: hold at 100 - i
    assert thresholds[90, 0] == 10
    # when the opponent is about to win, roll for it all
    assert thresholds[0, 99] == 100
    assert thresholds.shape == (100, 100)


def test_turn_outcomes_and_chain_can_be_used_directly() -> None:
    variant = find_variant("pig", goal=10)
    table = np.zeros((10, 10, 10), dtype=np.int8)
    table[:, :, :] = 1
    table[:, :, 4:] = 0  # hold at 4
    outcomes = turn_outcomes(variant, table, visits=False)
    assert outcomes.visits is None
    seating = play_chain(variant, outcomes, outcomes)
    assert seating.length.sum() + seating.tail == pytest.approx(1.0, abs=1e-12)
    assert set(seating.to_json()["per_player"][0]) >= set(STAT_NAMES)


def test_a_pair_that_never_ends_reports_its_tail() -> None:
    variant = find_variant("pig", goal=10)
    passing = np.zeros((10, 10, 10), dtype=np.int8)  # hold at 0: pass every turn
    outcomes = turn_outcomes(variant, passing)
    seating = play_chain(variant, outcomes, outcomes, max_turns=50)
    assert seating.tail == pytest.approx(1.0)
    assert len(seating.length) == 50


def test_simulation_agrees_within_a_confidence_interval() -> None:
    variant = find_variant("pig", goal=20)
    specs = ["hold:6", "hold:10"]
    a = analyze(variant, specs)
    games = 3000
    result = simulate(variant, [parse_strategy(s, variant) for s in specs], games, seed=20240607)
    seating = a.seatings[0]
    p = seating.p_first_wins
    assert abs(result.wins[0] / games - p) < 4.5 * math.sqrt(p * (1 - p) / games)
    assert abs(result.mean_turns - seating.mean_length) < 4.5 * seating.sd_length / math.sqrt(games)


def test_simultaneous_and_bad_strategies_are_clear_errors() -> None:
    with pytest.raises(PigdiceError, match=r"everyone at once.*exact analysis"):
        analyze(find_variant("swine-herd", goal=20))
    with pytest.raises(BadParameterError, match="one or two strategies"):
        analyze(find_variant("pig", goal=20), ["hold:5", "hold:6", "hold:7"])
    with pytest.raises(PigdiceError):
        analyze(find_variant("pig", goal=20), ["rolls:3"])  # not a function of the state


def test_other_endgames_are_analysed_first_to_goal_and_say_so() -> None:
    a = analyze(find_variant("piggy-six", goal=20))
    data = a.to_json()
    assert data["endgame_analysed"] == "first-to-goal"
    assert data["endgame_of_variant"] == "equal-turns"
