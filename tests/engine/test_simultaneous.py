"""engine.simultaneous: the seats that choose now, the rules' own choice, and a moment applied at once."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.engine.game import Hold, Roll, apply, new_game
from pigdice.engine.simultaneous import apply_choices, apply_each_choice, choosing_seats, rules_stand
from pigdice.errors import IllegalActionError
from pigdice.rules import find_variant
from pigdice.rules.outcomes import ScriptedDice


def test_a_turn_based_game_has_one_chooser_and_no_rules_choice() -> None:
    state = new_game(find_variant("pig"), 3)
    assert choosing_seats(state) == [0] and not rules_stand(state)
    [step] = apply_each_choice(state, {0: Roll()}, ScriptedDice([(4,)]))
    assert step.seat == 0 and step.choice == Roll() and step.state.turn_total == 4


def test_swine_herds_first_roll_is_the_rules_choice_and_later_ones_are_not() -> None:
    herd = find_variant("swine-herd")
    state = new_game(herd, 3)
    assert rules_stand(state) and choosing_seats(state) == [0, 1, 2]
    state, _ = apply_choices(state, dict.fromkeys([0, 1, 2], Roll()), ScriptedDice([(5,)]))
    assert not rules_stand(state)


def test_a_moment_played_one_seat_at_a_time_is_finished_by_the_seats_still_to_choose() -> None:
    herd = find_variant("swine-herd")
    start, _ = apply_choices(new_game(herd, 3), dict.fromkeys([0, 1, 2], Roll()), ScriptedDice([(5,)]))
    half, _ = apply(start, Hold(), ScriptedDice([]))  # an older server stored seat 0's choice alone
    assert choosing_seats(half) == [1, 2]
    together, events = apply_choices(half, {1: Roll(), 2: Hold()}, ScriptedDice([(3,)]))
    one, first = apply(half, Roll(), ScriptedDice([]))
    by_one, second = apply(one, Hold(), ScriptedDice([(3,)]))
    assert together == by_one and events == first + second


def test_each_step_of_a_moment_is_the_engines_step() -> None:
    herd = find_variant("swine-herd")
    start, _ = apply_choices(new_game(herd, 3), dict.fromkeys([0, 1, 2], Roll()), ScriptedDice([(5,)]))
    steps = apply_each_choice(start, {0: Hold(), 1: Roll(), 2: Roll()}, ScriptedDice([(2,)]))
    assert [step.seat for step in steps] == [0, 1, 2]
    state = start
    for step, choice in zip(steps, (Hold(), Roll(), Roll()), strict=True):
        state, events = apply(state, choice, ScriptedDice([(2,)]) if step.seat == 2 else ScriptedDice([]))
        assert step.state == state and step.events == events


def test_a_refused_choice_names_the_seat_only_where_several_choose() -> None:
    with pytest.raises(IllegalActionError) as alone:
        apply_choices(new_game(find_variant("hog"), 2), {0: Hold()}, np.random.default_rng(0))
    assert not str(alone.value).startswith("seat")
    herd = find_variant("swine-herd")
    with pytest.raises(IllegalActionError, match=r"^seat 0: "):
        apply_choices(new_game(herd, 2), {0: Hold(), 1: Roll()}, np.random.default_rng(0))


def test_a_finished_game_has_nobody_to_choose_and_nothing_happens() -> None:
    state, _ = apply(new_game(find_variant("pig", goal=2), 2), Roll(), ScriptedDice([(6,)]))
    state, _ = apply(state, Hold(), ScriptedDice([]))
    assert state.is_terminal() and choosing_seats(state) == []
    assert apply_choices(state, {}, np.random.default_rng(0)) == (state, [])


def test_those_left_standing_at_the_goal_after_a_round_of_choices_sit_without_another_roll() -> None:
    # the house rule read as the 3-player solver reads it (``solve.herd.swineherd_n``): once the players still
    # standing are all at the goal, they sit at that total, whether a roll or the others' sitting made it so
    herd = find_variant("swine-herd", goal=20)
    start = new_game(herd, 3)
    start = start.__class__(**{**start.__dict__, "scores": (2, 15, 16)})
    state, _ = apply_choices(start, dict.fromkeys([0, 1, 2], Roll()), ScriptedDice([(5,)]))
    assert state.turn_total == 5 and choosing_seats(state) == [0, 1, 2]  # seat 0 is not at the goal: a choice
    after, events = apply_choices(state, {0: Hold(), 1: Roll(), 2: Roll()}, ScriptedDice([]))  # no die is rolled
    assert after.is_terminal() and after.scores == (7, 20, 21) and after.winners == (2,)
    assert [type(e).__name__ for e in events].count("Rolled") == 0
