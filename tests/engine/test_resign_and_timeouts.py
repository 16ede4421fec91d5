"""Resignations and timeouts: moves a front end plays for a person, logged and replayed like any other."""

from __future__ import annotations

import pytest

from pigdice.engine.events import Busted, GameOver, Resigned, TimedOut, TurnStarted
from pigdice.engine.game import Hold, Pass, Resign, Roll, apply, new_game, parse_move, replay
from pigdice.errors import IllegalActionError
from pigdice.rules import find_variant
from pigdice.rules.outcomes import ScriptedDice


def test_resigning_a_two_player_game_hands_the_other_the_win() -> None:
    state = new_game(find_variant("pig"), 2)
    state, events = apply(state, Resign(0), ScriptedDice([]))
    assert events == [Resigned(0), GameOver((1,), (0, 0))]
    assert state.winners == (1,) and state.resigned == (0,)
    with pytest.raises(IllegalActionError, match="over"):
        apply(state, Roll(), ScriptedDice([]))


def test_a_resigned_player_is_skipped_and_cannot_win() -> None:
    variant = find_variant("pig", goal=10)
    state = new_game(variant, 3)
    dice = ScriptedDice([(6,), (5,), (6,), (6,)])
    state, _ = apply(state, Roll(), dice)  # seat 0 has 6 in hand
    state, events = apply(state, Resign(0), dice)  # resigning on one's own turn loses the turn total
    assert events[:2] == [Resigned(0), Busted(0, 6)] and state.current == 1
    state, _ = apply(state, Roll(), dice)
    state, _ = apply(state, Hold(), dice)  # seat 1 banks 5
    assert state.current == 2
    state, _ = apply(state, Roll(), dice)
    state, _ = apply(state, Roll(), dice)
    state, events = apply(state, Hold(), dice)  # seat 2 banks 12: first to the goal
    assert state.winners == (2,)
    with pytest.raises(IllegalActionError, match="already resigned"):
        apply(apply(new_game(variant, 3), Resign(1), dice)[0], Resign(1), dice)
    with pytest.raises(IllegalActionError, match="not one of"):
        apply(new_game(variant, 3), Resign(3), dice)


def test_the_turn_skips_a_seat_that_resigned_while_waiting() -> None:
    state = new_game(find_variant("pig"), 3)
    state, _ = apply(state, Resign(1), ScriptedDice([]))  # not seat 1's turn: nothing else happens
    assert state.current == 0 and state.resigned == (1,)
    state, events = apply(state, Hold(), ScriptedDice([]))
    assert TurnStarted(2, 1) in events and state.current == 2
    state, _ = apply(state, Hold(), ScriptedDice([]))
    assert state.current == 0


def test_under_a_final_round_the_best_remaining_score_wins() -> None:
    variant = find_variant("pig", goal=6, endgame="final-round")
    state = new_game(variant, 3)
    dice = ScriptedDice([(6,), (3,)])
    state, _ = apply(state, Roll(), dice)
    state, _ = apply(state, Hold(), dice)  # seat 0 reaches 6: seats 1 and 2 are owed a last turn
    state, _ = apply(state, Resign(2), dice)  # seat 2 leaves before its last turn
    assert state.final_round == (1,)
    state, _ = apply(state, Roll(), dice)
    state, events = apply(state, Hold(), dice)
    assert state.winners == (0,) and isinstance(events[-1], GameOver)


def test_a_timeout_passes_the_turn_and_loses_the_turn_total() -> None:
    state = new_game(find_variant("pig"), 2)
    state, _ = apply(state, Roll(), ScriptedDice([(4,)]))
    state, events = apply(state, Pass(), ScriptedDice([]))
    assert events[0] == TimedOut(0, 4) and state.current == 1 and state.scores == (0, 0)


def test_swine_herd_resignations_and_timeouts_sit_the_player_down() -> None:
    variant = find_variant("swine-herd", goal=20)
    state = new_game(variant, 3)
    dice = ScriptedDice([(5,), (5,)])
    state, _ = apply(state, Roll(), dice)
    state, _ = apply(state, Roll(), dice)
    state, _ = apply(state, Roll(), dice)  # everyone stands for the first roll: 5 in the shared total
    state, events = apply(state, Pass(), dice)  # seat 0 timed out: sits down with nothing
    assert events[0] == TimedOut(0, 5) and state.standing == (False, True, True) and state.scores == (0, 0, 0)
    state, _ = apply(state, Resign(2), dice)  # seat 2 leaves while seat 1 decides
    assert state.standing == (False, True, False) and state.current == 1


def test_moves_read_back_from_the_log_and_replay() -> None:
    assert parse_move("resign:3") == Resign(3) and parse_move("pass") == Pass() and parse_move("roll") == Roll()
    variant = find_variant("pig", goal=20)
    moves = [parse_move(m) for m in ("roll", "pass", "roll", "resign:1")]
    state, events = replay(variant, 2, 5, moves)
    assert state.winners == (0,) and Resigned(1) in events
    assert [str(m) for m in moves] == ["roll", "pass", "roll", "resign:1"]
