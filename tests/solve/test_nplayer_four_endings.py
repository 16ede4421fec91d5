"""The exact 4-player solver under a final round and equal turns, against the plain-Python reference game.

The reference (tests/solve/reference_games.py) solves whole 4-player games state by state, so only tiny
goals fit: Pig to 3 or 4 with a cap on the player who reaches the goal and on the last turns with
someone after them, and Hog (one throw per turn, no cap needed). Pig's final round at goals 4 and 5 has
no answer there: every player in turn would rather pass than reach the goal first and face three last
turns, so the reference refuses it (a war of attrition the rules leave open).
"""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.exact import exactness
from pigdice.solve.n.nplayer import solve_players
from pigdice.solve.positions import Position

from .reference_games import reference_game

EXACT = 1e-9
INDIFFERENT = 1e-9  # where the best two options' values lie closer than this either is a best choice

# (name, goal, endgame, ties, final turn, cap, Hog's dice)
Case = tuple[str, int, str, str, str, int | None, int]
QUICK_CASE: Case = ("pig", 3, "final-round", "shared", "roll", 8, 0)
SLOW_CASES: list[Case] = [
    ("pig", 3, "equal-turns", "shared", "turn", 8, 0),  # goal 4 with cap 10: 205,072 decision points, 67 s in CI
    ("pig", 3, "equal-turns", "first-to-reach", "turn", 8, 0),
    ("hog", 4, "final-round", "first-to-reach", "turn", None, 2),
    ("hog", 5, "final-round", "shared", "turn", None, 2),
]


def case_variant(case: Case) -> Variant:
    """Return the variant of one case."""
    name, goal, endgame, ties, final_turn, _, dice = case
    params = {"max_dice": dice} if dice else {}
    return find_variant(name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)


def check_every_position(case: Case) -> int:
    """Compare the solver with the reference at every decision point of one case; return how many there were."""
    variant, cap = case_variant(case), case[5]
    reference = reference_game(variant, 4, cap, cap_last_turn=False, refuse_endless=True)
    policy = solve_players(variant, 4, cap=cap or 0)
    assert policy.truncation == 0.0
    count = 0
    for position in reference.positions():
        count += 1
        found, expected = np.array(policy.win_vector(position)), np.array(reference.values(position))
        assert np.abs(found - expected).max() < EXACT, (position, found, expected)
        mine, theirs = policy.action_values(position), reference.action_values(position)
        assert mine.keys() == theirs.keys(), position
        assert max(abs(mine[o] - theirs[o]) for o in mine) < EXACT, (position, mine, theirs)
        ranked = sorted(theirs.values())
        if len(ranked) == 1 or ranked[-1] - ranked[-2] > INDIFFERENT:
            assert policy.best(position) == reference.best(position), (position, mine, theirs)
    return count


def test_four_players_final_roll_equal_the_reference_everywhere():
    """Pig to 3, a shared final round of one roll each: 17,712 decision points, every value and choice."""
    assert check_every_position(QUICK_CASE) > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_CASES, ids=lambda case: "-".join(str(v) for v in case))
def test_four_players_endings_equal_the_reference_everywhere(case):
    """Equal turns (both tie rules, the last turns swept past the goal) and Hog's final round: 65,536 to 205,072
    decision points a case (the reference takes 30 to 70 s to build each)."""
    assert check_every_position(case) > 10_000


@pytest.mark.parametrize("endgame", ["final-round", "equal-turns"])
def test_four_player_vectors_sum_to_one_and_the_ending_is_exact(endgame):
    variant = find_variant("pig", goal=12, endgame=endgame)
    assert exactness(variant, 4) is None
    policy = solve_players(variant, 4)
    assert policy.values.min() >= 0.0 and policy.values.max() <= 1.0
    assert np.abs(policy.values.sum(axis=-1) - 1.0).max() < 1e-12
    assert policy.residual < 1e-12 and policy.truncation <= 1e-12
    assert sum(policy.win_probability_by_seat()) == pytest.approx(1.0, abs=1e-12)
    # three players still to play: the first of them goes past the leader by a margin, knowing two come after
    after = Position((10, 3, 5, 13), 4, 0, (1, 2))
    assert policy.best(after) == "roll"
    assert sum(policy.win_vector(after)) == pytest.approx(1.0, abs=1e-12)


def test_five_players_with_an_ending_are_refused_clearly():
    assert "2 to 4 players" in (exactness(find_variant("pig", goal=10, endgame="final-round"), 5) or "")
