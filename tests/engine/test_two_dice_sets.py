"""Piggy Six for large groups: two sets of dice following each other round the table."""

from __future__ import annotations

import json

import pytest

from pigdice.engine.events import Banked, FinalRoundStarted, GameOver, TurnStarted
from pigdice.engine.game import HOLD, ROLL, Action, GameState, Resign, apply, dice_rng, new_game
from pigdice.engine.record import SeatEntry, parse_record, record_game, record_text, replay_record
from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.rules.outcomes import ScriptedDice
from pigdice.rules.variant import Variant

SMALL = (1, 2)  # 3 points, no six
BUST = (6, 1)


def two_sets(goal: int = 100, **ending: str) -> Variant:
    """Return Piggy Six with two sets of dice."""
    return find_variant("piggy-six", goal=goal, dice_sets="2", **ending)


def after_half_the_table(variant: Variant, dice: ScriptedDice) -> GameState:
    """Return an 8-player game once players 0-3 have each had one turn (one roll of 3, then hold) with set 1."""
    state = new_game(variant, 8)
    for _ in range(4):
        state, _ = apply(state, ROLL, dice)
        state, _ = apply(state, HOLD, dice)
    return state


def test_two_sets_need_seven_players_and_a_known_count() -> None:
    with pytest.raises(BadParameterError, match="7 or more players"):
        new_game(two_sets(), 6)
    with pytest.raises(BadParameterError, match="dice_sets"):
        find_variant("piggy-six", dice_sets="3")
    assert new_game(find_variant("piggy-six"), 6).other_set is None


def test_the_second_set_starts_with_the_first_player_once_half_the_table_has_played() -> None:
    dice = ScriptedDice([SMALL] * 4)
    state = new_game(two_sets(), 8)
    state, _ = apply(state, ROLL, dice)
    assert state.current == 0 and state.other_set is not None and state.other_set.phase == "not started"
    state, _ = apply(state, HOLD, dice)
    assert state.current == 1  # only one set is under way: no alternation yet
    for _ in range(3):
        state, _ = apply(state, ROLL, dice)
        state, events = apply(state, HOLD, dice)
    assert [e for e in events if isinstance(e, TurnStarted)] == [TurnStarted(4, 4), TurnStarted(0, 5)]
    assert (state.current, state.set_number) == (0, 2)  # the second set moves first
    assert state.other_set is not None and (state.other_set.number, state.other_set.player) == (1, 4)


def test_the_sets_take_turns_one_move_each_and_keep_their_own_turn_totals() -> None:
    dice = ScriptedDice([SMALL] * 4 + [(4, 5), (2, 2), (5, 5)])
    state = after_half_the_table(two_sets(), dice)
    state, _ = apply(state, ROLL, dice)  # player 0, set 2: 9
    assert (state.current, state.turn_total) == (4, 0)
    state, _ = apply(state, ROLL, dice)  # player 4, set 1: 4
    assert (state.current, state.turn_total) == (0, 9)
    state, _ = apply(state, ROLL, dice)  # player 0, set 2: 19
    assert (state.current, state.turn_total) == (4, 4)
    assert state.other_set is not None and (state.other_set.player, state.other_set.turn_total) == (0, 19)
    state, events = apply(state, HOLD, dice)  # player 4 banks 4; set 1 passes to 5; back to player 0
    assert Banked(4, 4, 4) in events and TurnStarted(5, 6) in events
    assert (state.current, state.set_number, state.turn_total) == (0, 2, 19)


def test_a_set_waits_for_a_player_still_busy_with_the_other_set() -> None:
    dice = ScriptedDice([SMALL] * 4 + [SMALL, BUST] * 4)
    state = after_half_the_table(two_sets(), dice)
    for _ in range(4):  # player 0 rolls on with set 2 while players 4-7 bust with set 1
        state, _ = apply(state, ROLL, dice)
        state, _ = apply(state, ROLL, dice)
    assert state.other_set is not None
    assert (state.current, state.other_set.phase, state.other_set.player) == (0, "waiting", 0)
    assert state.turn_total == 12
    state, events = apply(state, HOLD, dice)  # player 0 banks; set 1 now starts with them, set 2 goes to 1
    assert [e for e in events if isinstance(e, TurnStarted)] == [TurnStarted(0, 9), TurnStarted(1, 10)]
    assert (state.current, state.set_number) == (0, 1)
    assert state.other_set is not None and (state.other_set.phase, state.other_set.player) == ("rolling", 1)


def test_reaching_the_goal_lets_the_other_set_finish_its_turn_and_the_best_score_wins() -> None:
    dice = ScriptedDice([BUST] * 4 + [(5, 5), (1, 1), (5, 4)])
    state = new_game(two_sets(goal=10), 8)
    for _ in range(4):
        state, _ = apply(state, ROLL, dice)
    state, _ = apply(state, ROLL, dice)  # player 0 (set 2): 10
    state, _ = apply(state, ROLL, dice)  # player 4 (set 1): 2
    state, events = apply(state, HOLD, dice)  # player 0 reaches the goal
    assert FinalRoundStarted(0, (4,)) in events and not state.is_terminal()
    assert (state.current, state.turn_total) == (4, 2)
    state, _ = apply(state, ROLL, dice)  # 11 in hand
    state, events = apply(state, HOLD, dice)
    assert events[-1] == GameOver((4,), state.scores) and state.scores[4] == 11


def test_first_to_the_goal_cuts_the_other_turn_short() -> None:
    dice = ScriptedDice([BUST] * 4 + [(5, 5), (1, 1)])
    state = new_game(two_sets(goal=10, endgame="first-to-goal"), 8)
    for _ in range(6):
        state, _ = apply(state, ROLL, dice)
    state, events = apply(state, HOLD, dice)
    assert events[-1] == GameOver((0,), state.scores)


def test_a_player_leaving_with_the_other_set_in_hand_passes_it_on() -> None:
    dice = ScriptedDice([SMALL] * 4 + [SMALL])
    state = after_half_the_table(two_sets(), dice)
    state, _ = apply(state, ROLL, dice)  # player 0 has 3 in hand with set 2; player 4 moves set 1
    state, events = apply(state, Resign(0), dice)
    assert TurnStarted(1, 6) in events
    assert state.current == 4 and state.other_set is not None and state.other_set.player == 1


def hold_at(state: GameState, limit: int) -> Action:
    """Return the move of a player who holds at ``limit`` in hand."""
    return HOLD if state.turn_total >= limit else ROLL


def test_a_seeded_game_plays_to_the_end_and_its_record_replays() -> None:
    variant = two_sets(goal=50)
    state, rng, actions = new_game(variant, 8), dice_rng(11), list[Action]()
    while not state.is_terminal():
        action = hold_at(state, 10 + 2 * state.current)
        state, _ = apply(state, action, rng)
        actions.append(action)
    assert max(state.scores) >= 50 and sum(state.turns_played) > 8
    seats = [SeatEntry(f"P{n}", f"hold:{10 + 2 * n}", "robot") for n in range(8)]
    record = record_game(variant, seats, 11, actions)
    assert record.params == {"dice_sets": "2"}
    again = parse_record(record_text(record))
    replayed, _ = replay_record(again)
    assert replayed.scores == state.scores and replayed.winners == state.winners
    assert json.loads(record_text(record))["result"]["winners"] == list(state.winners or ())


def test_one_set_games_keep_their_records_and_states_unchanged() -> None:
    variant = find_variant("piggy-six")
    assert variant.parameters == () and variant.players_min == 2
    state = new_game(variant, 3)
    assert "other_set" not in state.to_json() and state.other_set is None
    record = record_game(variant, [SeatEntry(f"P{n}", "hold:20", "robot") for n in range(3)], 5, [ROLL, HOLD])
    assert record.params == {}
