"""The win chance of a table of three or more, estimated from the 2-player game where no exact solver plays it."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from pigdice.engine.game import new_game
from pigdice.players.optimal import Optimal, position_of, seat_chances
from pigdice.players.tablechance import combine, table_chances, table_note
from pigdice.rules.registry import find_variant


def test_two_players_get_their_own_chance_and_an_even_table_an_even_share() -> None:
    assert combine([0, 1], lambda a, b: 0.7 if a == 0 else 0.3, 2) == pytest.approx((0.7, 0.3))
    assert combine([0, 2, 3], lambda a, b: 0.5, 4) == pytest.approx((1 / 3, 0.0, 1 / 3, 1 / 3))
    lopsided = combine([0, 1, 2], lambda a, b: 0.9 if a < b else 0.1, 3)  # seat 0 beats all, seat 2 nobody
    assert lopsided[0] > lopsided[1] > lopsided[2] and sum(lopsided) == pytest.approx(1.0)


def test_three_at_pig_are_close_to_the_exact_chances() -> None:
    variant = find_variant("pig", goal=20)
    advisor = Optimal(variant)
    exact = advisor.exact(3)
    assert exact is not None
    start = new_game(variant, 3)
    worst = 0.0
    for scores in itertools.product(range(0, 20, 3), repeat=3):
        state = replace(start, scores=scores)
        estimate = table_chances(state, advisor)
        assert estimate is not None and sum(estimate) == pytest.approx(1.0)
        truth = seat_chances(state, exact.win_vector(position_of(state)))
        worst = max(worst, *(abs(a - b) for a, b in zip(estimate, truth, strict=True)))
    assert 0.0 < worst < 0.2  # an estimate, and said to be one: never the 2-player figure for a table of three


def test_a_last_round_past_the_goal_is_not_estimated() -> None:
    variant = find_variant("pig", goal=20, endgame="final-round")
    state = replace(new_game(variant, 3), scores=(21, 5, 3), current=1)
    assert table_chances(state, Optimal(variant)) is None


def test_the_note_says_how_and_how_far_off() -> None:
    note = table_note(find_variant("swine-herd", goal=30), 3)
    assert "estimate for a table of 3" in note and "off by" in note and "points" in note
