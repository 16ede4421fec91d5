"""Game review: each decision's options against the perfect player, the chance given away, and the marks."""

from __future__ import annotations

import pytest

from pigdice.engine.game import Hold, Roll
from pigdice.engine.record import Commitment, SeatEntry, record_game
from pigdice.players.optimal import Optimal
from pigdice.rules import find_variant
from pigdice.study.review import MARKS, mark_of, review_game, review_record, summary_line


def test_marks_follow_the_stated_thresholds() -> None:
    assert MARKS == (("blunder", 0.08), ("mistake", 0.03), ("inaccuracy", 0.01))
    assert [mark_of(x) for x in (0.0, 0.0099, 0.01, 0.0299, 0.03, 0.08, 0.5, None)] == [
        None, None, "inaccuracy", "inaccuracy", "mistake", "blunder", "blunder", None,
    ]  # fmt: skip


def test_holding_at_zero_on_the_first_turn_of_pig_is_a_mistake() -> None:
    variant = find_variant("pig")
    review = review_game(variant, ["You", "Babe"], [True, False], 1, [Hold()])
    first = review.decisions[0]
    # Neller & Presser 2004: the first player wins 0.5306 under optimal play (0.530593 to six places, README);
    # holding at 0 hands the start to the opponent, leaving 1 - 0.530593
    assert first.values["roll"] == pytest.approx(0.530593, abs=1e-6)
    assert first.values["hold"] == pytest.approx(1 - 0.530593, abs=1e-6)
    assert first.best == "roll" and first.taken == "hold"
    assert first.loss == pytest.approx(first.values["roll"] - first.values["hold"])
    assert first.mark == "mistake"  # 6.1 points
    assert first.win_by_seat == pytest.approx((first.values["roll"], 1 - first.values["roll"]))
    assert review.seats[0].marks == {"blunder": 0, "mistake": 1, "inaccuracy": 0}
    assert summary_line(review.seats[0], review.names).startswith("You gave away 6.1% in 1 decision (1 mistake)")


def test_the_perfect_player_is_never_marked() -> None:
    variant = find_variant("pig", goal=40)
    perfect = Optimal(variant)
    from pigdice.engine.game import apply, dice_rng, new_game, robot_rng

    state, dice, robots, actions = new_game(variant, 2), dice_rng(9), robot_rng(9), []
    while not state.is_terminal():
        actions.append(perfect.choose(state, robots))
        state, _ = apply(state, actions[-1], dice)
    review = review_game(variant, ["A", "B"], [False, False], 9, actions, perfect)
    assert review.decisions and all(d.loss == pytest.approx(0.0, abs=1e-12) for d in review.decisions)
    assert all(s.worst is None and sum(s.marks.values()) == 0 for s in review.seats)
    assert review.approximate is None
    for d in review.decisions:  # the chart's chances add up to 1 (2 players, first to the goal: no ties)
        assert sum(d.win_by_seat) == pytest.approx(1.0)


def test_three_player_reviews_are_exact_with_every_seats_chance() -> None:
    variant = find_variant("pig", goal=15, endgame="final-round")
    record = record_game(
        variant,
        [SeatEntry("You", "you", "human"), SeatEntry("B", "hold:5", "robot"), SeatEntry("C", "hold:5", "robot")],
        4,
        [Roll(), Roll(), Hold(), Roll(), Hold(), Roll(), Hold()],
        commitment=Commitment.make(4),
    )
    review = review_record(record)
    assert review.approximate is None
    for d in review.decisions:
        assert len(d.win_by_seat) == 3 and sum(d.win_by_seat) == pytest.approx(1.0)
        assert d.win_by_seat[d.seat] == pytest.approx(d.values[d.best])


def test_dice_choices_are_reviewed_by_count() -> None:
    variant = find_variant("hog", goal=30)
    review = review_game(variant, ["You", "B"], [True, False], 2, [Roll(1), Roll(6)])
    first = review.decisions[0]
    assert first.taken == "roll:1" and first.best != "roll:1" and first.loss > 0
    assert "roll:6" in first.values


def test_after_a_resignation_the_others_play_the_smaller_game_exactly() -> None:
    from pigdice.engine.game import Resign, apply, new_game
    from pigdice.players.optimal import position_of
    from pigdice.rules.outcomes import ScriptedDice

    variant = find_variant("pig", goal=20)
    three, _ = apply(new_game(variant, 3), Resign(1), ScriptedDice([]))
    three, _ = apply(three, Roll(), ScriptedDice([(4,)]))
    two, _ = apply(new_game(variant, 2), Roll(), ScriptedDice([(4,)]))
    assert position_of(three) == position_of(two)  # seat 1 left: the game is 2-player Pig between seats 0 and 2
    perfect = Optimal(variant)
    assert perfect.hint(three).values == pytest.approx(perfect.hint(two).values)
    review = review_game(variant, ["A", "B", "C"], [True, True, True], 3, [Resign(1), Roll(), Hold()], perfect)
    first = review.decisions[0]
    assert first.win_by_seat[1] == 0.0 and sum(first.win_by_seat) == pytest.approx(1.0)


def test_swine_herd_choices_are_reviewed_on_the_moment_each_seat_saw() -> None:
    # seat 1 chose without seeing seat 0 sit down: its decision is judged with seat 0 still standing
    from pigdice.engine.game import replay
    from pigdice.solve.exact import exact_policy
    from pigdice.solve.positions import Position

    herd = find_variant("swine-herd", goal=30)
    seed = next(s for s in range(50) if replay(herd, 2, s, [Roll(), Roll()])[0].turn_total > 0)
    state, _ = replay(herd, 2, seed, [Roll(), Roll()])
    review = review_game(herd, ["A", "B"], [True, True], seed, [Roll(), Roll(), Hold(), Roll()])
    first, second = review.decisions
    assert (first.seat, first.taken, second.seat, second.taken) == (0, "sit", 1, "stand")
    assert second.scores == (0, 0) and second.turn_total == state.turn_total  # not A's banked score
    policy = exact_policy(herd, 2)
    both_standing = policy.action_values(Position((0, 0), state.turn_total, standing=(True, True)))
    assert second.values == {"sit": both_standing["hold"], "stand": both_standing["roll"]}
    assert review.approximate is None
