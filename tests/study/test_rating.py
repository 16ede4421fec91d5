"""The Performance Rating: its formula, the decisions that count, and the named bands."""

from __future__ import annotations

import math

import pytest

from pigdice.players.defaults import LEVEL_TITLES
from pigdice.study.rating import BANDS, MATTERS, RATING_SCALE, Rating, band_of, bands_table, level_of, level_title, rate


def test_the_rating_is_ten_thousand_times_the_chance_given_away_per_decision_that_mattered() -> None:
    decisions = [
        ({"hold": 0.5, "roll": 0.53}, 0.03),  # a mistake
        ({"hold": 0.5, "roll": 0.5}, 0.0),  # equal options: does not count
        ({"roll": 0.4}, 0.0),  # one option: does not count
        ({"hold": 0.3, "roll": 0.5}, 0.0),  # the best choice
        ({"hold": 0.6, "roll": 0.6 + MATTERS / 2}, MATTERS / 2),  # too close to matter
    ]
    rating = rate(decisions)
    assert rating.decisions == 2 and rating.given_away == pytest.approx(0.03)
    assert rating.value == pytest.approx(RATING_SCALE * 0.03 / 2) == pytest.approx(150.0)
    assert rating.error_rate == pytest.approx(0.015)
    assert rate([]).value is None and rate([]).band is None
    assert (rating + Rating(2, 0.0)).value == pytest.approx(75.0)


def test_the_bands_are_the_levels_names_best_first() -> None:
    for name, title in zip([name for name, _ in BANDS], reversed(LEVEL_TITLES), strict=True):
        assert name in title  # 'master' in 'a master', 'perfect' in 'the perfect player'

    bounds = [bound for _, bound in BANDS]
    assert bounds == sorted(bounds) and math.isinf(bounds[-1])
    assert band_of(0.0) == "perfect" and band_of(10.0) == "master" and band_of(1000.0) == "beginner"
    assert [level_of(x) for x in (0.0, 1.4, 9.9, 200.0)] == [8, 7, 6, 1]
    assert level_title(9.9) == "a master (level 6 of 8)"
    assert bands_table()[0] == ("perfect", "0 to under 0.5") and bands_table()[-1][1] == "195 or more"
