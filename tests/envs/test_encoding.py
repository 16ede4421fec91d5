"""The one action and observation encoding every research interface shares."""

from __future__ import annotations

import numpy as np
import pytest

from pigdice.engine.game import Hold, Roll, apply, new_game
from pigdice.engine.simultaneous import apply_choices, choosing_seats, seat_view
from pigdice.envs.encoding import action_count, action_mask, observe, table_code, to_action, to_integer
from pigdice.errors import IllegalActionError
from pigdice.rules import ScriptedDice, find_variant


def test_pig_numbers_its_actions_like_openspiels_pig() -> None:
    pig = find_variant("pig")
    assert action_count(pig) == 2
    assert to_action(pig, 0) == Roll() and to_action(pig, 1) == Hold()
    assert [table_code(pig, a) for a in (0, 1)] == [1, 0]  # action tables: hold 0, roll 1


def test_dice_choices_come_first_and_hog_has_no_hold() -> None:
    hog = find_variant("hog")
    assert action_count(hog) == len(hog.choices)
    assert to_action(hog, 2) == Roll(3) and to_integer(hog, Roll(3)) == 2
    reroll = find_variant("hog-reroll")
    assert to_action(reroll, len(reroll.choices)) == Hold()
    with pytest.raises(IllegalActionError, match="no hold"):
        to_integer(hog, Hold())


def test_an_observation_is_seen_from_the_observer_seat() -> None:
    pig = find_variant("pig")
    state, _ = apply(new_game(pig, 3), Roll(), ScriptedDice([(4,)]))
    state, _ = apply(state, Hold(), ScriptedDice([]))
    # header: goal, turn total, rolls this turn, final round; then per player from the observer:
    # score, to move, owed a last turn, standing
    assert list(observe(state, 0)) == [100, 0, 0, 0, 4, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1]
    assert list(observe(state, 1)) == [100, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 4, 0, 0, 1]
    assert list(action_mask(state, 1)) == [1, 1] and not action_mask(state, 0).any()


def test_swine_herd_choices_are_taken_together() -> None:
    herd = find_variant("swine-herd")
    state, _ = apply_choices(new_game(herd, 3), {0: Roll(), 1: Roll(), 2: Roll()}, ScriptedDice([(5,)]))
    assert state.turn_total == 5 and choosing_seats(state) == [0, 1, 2]
    assert seat_view(state, 2).current == 2
    assert list(action_mask(state, 2)) == [1, 1]
    with pytest.raises(IllegalActionError, match=r"seats \[0, 1, 2\]"):
        apply_choices(state, {0: Hold(), 1: Roll()}, np.random.default_rng(0))
    state, _ = apply_choices(state, {0: Hold(), 1: Roll(), 2: Hold()}, ScriptedDice([(1,)]))
    assert state.scores == (5, 0, 5)  # seat 1 stayed standing and lost the 5 on the shared 1
