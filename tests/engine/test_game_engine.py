"""The engine's mechanics: new games, turns, events, returns, JSON, seeded replays."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pigdice.engine.events import (
    Banked,
    Busted,
    FinalRoundStarted,
    GameOver,
    Rolled,
    ScoreReset,
    StayedStanding,
    TurnStarted,
    describe_event,
    event_to_json,
)
from pigdice.engine.game import Hold, Roll, apply, legal_actions, new_game, replay, returns
from pigdice.errors import IllegalActionError
from pigdice.rules import ScriptedDice, find_variant
from pigdice.rules.effects import add, bust

PIG = find_variant("pig")


def test_new_game():
    state = new_game(PIG, 3)
    assert state.scores == (0, 0, 0)
    assert (state.current, state.turn_total, state.turn, state.step) == (0, 0, 0, 0)
    assert state.turns_played == (0, 0, 0)
    assert state.winners is None and state.final_round is None
    assert state.standing == ()
    assert legal_actions(state) == [Roll(), Hold()]
    assert returns(state) == (0.0, 0.0, 0.0)
    assert new_game(find_variant("swine-herd"), 3).standing == (True, True, True)


def test_events_of_a_turn():
    state = new_game(PIG, 2)
    state, events = apply(state, Roll(), ScriptedDice([(4,)]))
    assert events == [Rolled(0, 1, (4,), ("4",), "4", add(4), 4)]
    state, events = apply(state, Roll(), ScriptedDice([(1,)]))
    assert events == [Rolled(0, 1, (1,), ("1",), "1", bust(), 0), Busted(0, 4), TurnStarted(1, 1)]
    state, events = apply(state, Roll(), ScriptedDice([(6,)]))
    state, events = apply(state, Hold(), ScriptedDice([]))
    assert events == [Banked(1, 6, 6), TurnStarted(0, 2)]
    assert state.turns_played == (1, 1)
    assert state.turn == 2
    assert state.step == 4


def test_hold_at_zero_banks_nothing_and_reports_no_points():
    state, events = apply(new_game(PIG, 2), Hold(), ScriptedDice([]))
    assert events == [TurnStarted(1, 1)]
    assert state.current == 1


def test_roll_with_the_only_dice_count_is_plain_roll():
    two = find_variant("two-dice-pig")
    state, events = apply(new_game(two, 2), Roll(2), ScriptedDice([(3, 4)]))
    assert state.turn_total == 7
    assert events[0].dice == 2


def test_apply_does_not_change_its_input():
    state = new_game(find_variant("big-pig"), 2)
    snapshot = state.to_json()
    after, _ = apply(state, Roll(), ScriptedDice([(3, 4)]))
    assert state.to_json() == snapshot
    assert after is not state
    with pytest.raises(AttributeError):
        state.turn_total = 5  # type: ignore[misc]


def test_to_json_round_trips_through_json():
    variant = find_variant("hog-reroll")
    state, _ = apply(new_game(variant, 2), Roll(3), ScriptedDice([(2, 3, 4)]))
    data = json.loads(json.dumps(state.to_json()))
    assert data["variant"] == "hog-reroll"
    assert data["turn_total"] == 9
    assert data["legal_actions"][-1] == "hold"
    assert data["legal_actions"][0] == "roll:1"


def test_every_event_type_has_json_and_text(play):
    variant = find_variant("two-dice-pig", goal=10, endgame="final-round")
    _, events = play(variant, 2, "r h r r h r", [(3, 4), (1, 1), (5, 6), (1, 3)])
    herd = find_variant("swine-herd")
    _, herd_events = play(herd, 2, "r r", [(3,)])
    everything = events + herd_events
    kinds = {type(e) for e in everything}
    assert kinds == {Rolled, Busted, ScoreReset, Banked, StayedStanding, TurnStarted, FinalRoundStarted, GameOver}
    for event in everything:
        data = json.loads(json.dumps(event_to_json(event)))
        assert data["type"] == type(event).__name__
        text = describe_event(event, ["Ann", "Bob"])
        assert text and "\n" not in text
    assert describe_event(GameOver((0, 1), (10, 10)), ["Ann", "Bob"]) == "Game over: Ann and Bob share the victory"
    assert describe_event(StayedStanding(1), ["Ann", "Bob"]) == "Bob stays standing"


def test_swine_herd_rolls_belong_to_everyone(play):
    _, events = play(find_variant("swine-herd"), 2, "r r", [(3,)])
    assert events == [StayedStanding(0), StayedStanding(1), Rolled(-1, 1, (3,), ("3",), "3", add(3), 3)]


def test_swine_herd_counts_shared_turns(play):
    state, events = play(find_variant("swine-herd"), 2, "r r h h", [(3,)])
    assert state.turns_played == (1, 1)
    assert state.turn == 1
    assert events[-1] == TurnStarted(-1, 1)


@pytest.mark.parametrize("winners", [(0,), (1, 2), (0, 1, 2)])
def test_returns_split_the_win(winners):
    import dataclasses

    state = dataclasses.replace(new_game(PIG, 3), winners=winners)
    shares = returns(state)
    assert sum(shares) == pytest.approx(1.0)
    assert all((shares[p] > 0) == (p in winners) for p in range(3))
    assert len({shares[p] for p in winners}) == 1


def test_same_seed_same_game():
    actions = [Roll(), Roll(), Hold()] * 10
    first = replay(find_variant("big-pig"), 2, 42, actions)
    second = replay(find_variant("big-pig"), 2, 42, actions)
    assert first == second
    other = replay(find_variant("big-pig"), 2, 43, actions)
    assert other[1] != first[1]


def test_generator_and_replay_agree():
    variant = find_variant("pig-dice")
    rng = np.random.default_rng(5)
    state = new_game(variant, 2)
    actions = []
    events = []
    for action in [Roll(), Roll(), Hold()] * 6:
        if state.is_terminal():
            break
        state, new = apply(state, action, rng)
        actions.append(action)
        events.extend(new)
    assert replay(variant, 2, 5, actions) == (state, events)


def test_swine_herd_stands_before_the_first_roll():
    # seed 001: the herd sits down to bank what the shared rolls made; before the first roll there is nothing
    herd = find_variant("swine-herd", goal=20)
    state = new_game(herd, 3)
    assert legal_actions(state) == [Roll()]
    with pytest.raises(IllegalActionError, match="not allowed now; allowed: roll"):
        apply(state, Hold(), ScriptedDice([]))
    state, _ = apply(state, Roll(), ScriptedDice([]))
    assert legal_actions(state) == [Roll()]  # the next person stands too
    dice = ScriptedDice([(4,), (1,)])
    state, _ = apply(state, Roll(), dice)
    state, _ = apply(state, Roll(), dice)  # everyone stood: the swineherd rolls a 4
    assert state.turn_total == 4
    assert legal_actions(state) == [Roll(), Hold()]
    for _ in range(3):
        state, _ = apply(state, Roll(), dice)  # all stand again: a 1 ends the turn for everyone
    assert (state.turn_total, state.standing) == (0, (True, True, True))
    assert legal_actions(state) == [Roll()]


def _herd_at(scores: tuple[int, ...], at_goal: str):
    """Return a goal-10 Swine Herd game at the start of a turn with ``scores`` banked."""
    import dataclasses

    state = new_game(find_variant("swine-herd", goal=10, at_goal=at_goal), len(scores))
    return dataclasses.replace(state, scores=scores)


def test_swine_herd_house_rule_seats_everyone_at_the_goal():
    # the house rule ('sit', the default): two stand, a 6 then a 4 takes both (4 and 0) to 10: both sit, game over
    state = _herd_at((4, 0, 9), "sit")
    dice = ScriptedDice([(6,), (4,)])
    for action in (Roll(), Roll(), Roll()):  # everyone stands for the first roll: 6
        state, _ = apply(state, action, dice)
    state, _ = apply(state, Roll(), dice)  # seat 0 stands
    state, _ = apply(state, Roll(), dice)  # seat 1 stands
    state, events = apply(state, Hold(), dice)  # seat 2 sits at 15: two stand; a 4 makes 10 for both
    banked = [e for e in events if isinstance(e, Banked)]
    assert [(e.player, e.score) for e in banked] == [(2, 15), (0, 14), (1, 10)]
    assert state.winners == (2,)


def test_swine_herd_house_rule_leaves_a_lone_roller_free():
    state = _herd_at((4, 0), "sit")
    dice = ScriptedDice([(6,), (4,)])
    state, _ = apply(state, Roll(), dice)
    state, _ = apply(state, Roll(), dice)  # both stood: 6
    state, _ = apply(state, Hold(), dice)  # seat 0 sits at 10
    state, _ = apply(state, Roll(), dice)  # seat 1 alone: a 4 makes 10 and it may roll on
    assert state.winners is None and state.turn_total == 10 and state.standing == (False, True)


def test_swine_herd_without_the_house_rule_both_roll_on():
    state = _herd_at((4, 0), "roll-on")
    dice = ScriptedDice([(6,), (4,)])
    for _ in range(4):
        state, _ = apply(state, Roll(), dice)
    assert state.winners is None and state.turn_total == 10 and state.standing == (True, True)
