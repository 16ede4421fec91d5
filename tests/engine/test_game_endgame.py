"""Endgame rules as tables: first to the goal, a final round (one more turn or one more roll),
equal turns; ties shared or won by whoever reached the score first.

Seed 003 ("Future Challenges") names the final-round and equal-turns endings and the
first-to-reach tie rule; seed 000 gives Pig Dice's "one more roll"; seed 001's Swine Herd and
seed 004's Piggy Six share ties. All rows play one-die Pig to a goal of 10 with three players,
so the seat order of the final round is visible.
"""

from __future__ import annotations

import pytest

from pigdice.engine.events import FinalRoundStarted, GameOver
from pigdice.engine.game import Hold, Roll, legal_actions, returns
from pigdice.rules import Endgame, FinalTurn, TieRule, find_variant


def pig10(endgame: str, ties: str = "shared", final_turn: str = "turn"):
    return find_variant("pig", goal=10, endgame=endgame, ties=ties, final_turn=final_turn)


FIRST = pig10("first-to-goal")
TURN_SHARED = pig10("final-round", "shared", "turn")
TURN_FIRST = pig10("final-round", "first-to-reach", "turn")
ROLL_SHARED = pig10("final-round", "shared", "roll")
ROLL_FIRST = pig10("final-round", "first-to-reach", "roll")
EQUAL_SHARED = pig10("equal-turns", "shared")
EQUAL_FIRST = pig10("equal-turns", "first-to-reach")

# Ann (seat 0) banks 2, Bob (seat 1) reaches 10: the opening of most rows below.
OPEN = "r h r r h"
OPEN_THROWS = [(2,), (6,), (4,)]

# fmt: off
ROWS = [
    # variant, actions, throws, scores, winners, current, final_round
    pytest.param(FIRST, OPEN, OPEN_THROWS, (2, 10, 0), (1,), None, None, id="first-to-goal-wins-at-once"),
    pytest.param(FIRST, "r h r r r", [(2,), (6,), (4,), (5,)], (2, 0, 0), None, 1, None,
                 id="first-to-goal-needs-a-hold"),
    # final round, one more full turn for everyone else, in seat order after the reacher
    pytest.param(TURN_SHARED, OPEN, OPEN_THROWS, (2, 10, 0), None, 2, (2, 0), id="final-turn-starts"),
    pytest.param(TURN_SHARED, OPEN + " r r h", [*OPEN_THROWS, (6,), (4,)], (2, 10, 10), None, 0, (0,),
                 id="final-turn-continues-to-seat-0"),
    pytest.param(TURN_SHARED, OPEN + " r r h r", [*OPEN_THROWS, (6,), (4,), (1,)], (2, 10, 10), (1, 2), None,
                 None, id="final-turn-tie-shared"),
    pytest.param(TURN_FIRST, OPEN + " r r h r", [*OPEN_THROWS, (6,), (4,), (1,)], (2, 10, 10), (1,), None,
                 None, id="final-turn-tie-first-to-reach"),
    pytest.param(TURN_FIRST, OPEN + " r r r h", [*OPEN_THROWS, (1,), (6,), (3,)], (11, 10, 0), (0,), None,
                 None, id="final-turn-last-seat-overtakes"),
    pytest.param(TURN_FIRST, OPEN + " r r r", [*OPEN_THROWS, (1,), (6,), (3,)], (2, 10, 0), None, 0, (0,),
                 id="final-turn-may-roll-on"),
    # final round, one more roll, banked at once
    pytest.param(ROLL_SHARED, OPEN + " r r", [*OPEN_THROWS, (6,), (5,)], (7, 10, 6), (1,), None, None,
                 id="final-roll-banked"),
    pytest.param(ROLL_SHARED, "r h r r h r r", [(5,), (6,), (4,), (1,), (6,)], (11, 10, 0), (0,), None, None,
                 id="final-roll-overtakes"),
    pytest.param(ROLL_SHARED, "r h r r h r r", [(5,), (6,), (4,), (1,), (5,)], (10, 10, 0), (0, 1), None, None,
                 id="final-roll-tie-shared"),
    pytest.param(ROLL_FIRST, "r h r r h r r", [(5,), (6,), (4,), (1,), (5,)], (10, 10, 0), (1,), None, None,
                 id="final-roll-tie-first-to-reach"),
    # equal turns: only the seats after the reacher play, so the round is complete
    pytest.param(EQUAL_SHARED, OPEN, OPEN_THROWS, (2, 10, 0), None, 2, (2,), id="equal-turns-starts"),
    pytest.param(EQUAL_SHARED, OPEN + " r r h", [*OPEN_THROWS, (6,), (5,)], (2, 10, 11), (2,), None, None,
                 id="equal-turns-best-wins"),
    pytest.param(EQUAL_SHARED, OPEN + " r r h", [*OPEN_THROWS, (6,), (4,)], (2, 10, 10), (1, 2), None, None,
                 id="equal-turns-tie-shared"),
    pytest.param(EQUAL_FIRST, OPEN + " r r h", [*OPEN_THROWS, (6,), (4,)], (2, 10, 10), (1,), None, None,
                 id="equal-turns-tie-first-to-reach"),
    pytest.param(EQUAL_FIRST, "r r h h r r h", [(6,), (4,), (6,), (5,)], (10, 0, 11), (2,), None, None,
                 id="equal-turns-seat-0-reaches"),
    pytest.param(EQUAL_FIRST, "h h r r h", [(6,), (4,)], (0, 0, 10), (2,), None, None,
                 id="equal-turns-last-seat-ends-at-once"),
    pytest.param(EQUAL_FIRST, "r r h r r h r", [(6,), (4,), (6,), (5,), (1,)], (10, 11, 0), (1,), None, None,
                 id="equal-turns-higher-score-beats-first-to-reach"),
]
# fmt: on


@pytest.mark.parametrize(("variant", "actions", "throws", "scores", "winners", "current", "final_round"), ROWS)
def test_endgame(play, variant, actions, throws, scores, winners, current, final_round):
    state, events = play(variant, 3, actions, throws)
    assert state.scores == scores
    assert state.winners == winners
    if winners is None:
        assert state.current == current
        assert state.final_round == final_round
        assert returns(state) == (0.0, 0.0, 0.0)
    else:
        assert events[-1] == GameOver(winners, scores)
        assert sum(returns(state)) == pytest.approx(1.0)
        assert {p for p, r in enumerate(returns(state)) if r > 0} == set(winners)


@pytest.mark.parametrize(
    ("variant", "expected"),
    [(TURN_SHARED, (2, 0)), (ROLL_SHARED, (2, 0)), (EQUAL_SHARED, (2,))],
    ids=["final-turn", "final-roll", "equal-turns"],
)
def test_final_round_started_names_the_remaining_seats(play, variant, expected):
    _, events = play(variant, 3, OPEN, OPEN_THROWS)
    assert FinalRoundStarted(1, expected) in events


def test_equal_turns_gives_everyone_the_same_number_of_turns(play):
    state, _ = play(EQUAL_SHARED, 3, OPEN + " r r h", [*OPEN_THROWS, (6,), (5,)])
    assert state.turns_played == (1, 1, 1)


def test_final_round_gives_everyone_one_turn_after_the_reacher(play):
    state, _ = play(TURN_SHARED, 3, OPEN + " r r h r", [*OPEN_THROWS, (6,), (4,), (1,)])
    assert state.turns_played == (2, 1, 1)


def test_final_roll_means_one_roll_and_no_hold(play):
    state, _ = play(ROLL_SHARED, 3, OPEN, OPEN_THROWS)
    assert state.is_final_roll()
    assert legal_actions(state) == [Roll()]


@pytest.mark.parametrize("variant", [TURN_SHARED, EQUAL_SHARED], ids=["final-turn", "equal-turns"])
def test_a_full_last_turn_may_hold(play, variant):
    state, _ = play(variant, 3, OPEN, OPEN_THROWS)
    assert not state.is_final_roll()
    assert legal_actions(state) == [Roll(), Hold()]


def test_final_turn_roll_only_changes_the_final_round_ending(play):
    """final_turn='roll' belongs to the final-round ending; equal turns still play full turns."""
    variant = pig10("equal-turns", "shared", "roll")
    state, _ = play(variant, 3, OPEN, OPEN_THROWS)
    assert legal_actions(state) == [Roll(), Hold()]


def test_endgame_parameters_are_parsed():
    variant = find_variant("pig", endgame="Final Round", ties="first_to_reach", final_turn="ROLL")
    assert variant.endgame is Endgame.FINAL_ROUND
    assert variant.ties is TieRule.FIRST_TO_REACH
    assert variant.final_turn is FinalTurn.ROLL


@pytest.mark.parametrize(
    ("name", "endgame", "ties"),
    [
        ("pig", Endgame.FIRST_TO_GOAL, TieRule.SHARED),
        ("freys-pig", Endgame.EQUAL_TURNS, TieRule.FIRST_TO_REACH),  # seed 003: must exceed the first
        ("pig-dice", Endgame.FINAL_ROUND, TieRule.FIRST_TO_REACH),  # seed 003: "achieve a higher score"
        ("swine-herd", Endgame.EQUAL_TURNS, TieRule.SHARED),  # seed 001: tied players share
        ("piggy-six", Endgame.EQUAL_TURNS, TieRule.SHARED),  # seed 004: finish the round
        ("piggy-six-3dice", Endgame.EQUAL_TURNS, TieRule.SHARED),
    ],
)
def test_default_endgames_follow_the_seeds(name, endgame, ties):
    variant = find_variant(name)
    assert (variant.endgame, variant.ties) == (endgame, ties)
