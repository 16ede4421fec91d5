"""The one action codec: both integer conventions, text and engine actions, round trips and refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pigdice.engine.codec import (
    HOLD_FIRST,
    ROLLS_FIRST,
    Convention,
    action_count,
    convert,
    convert_array,
    from_text,
    hold_integer,
    integer_range,
    to_action,
    to_integer,
    to_text,
)
from pigdice.engine.game import Hold, Roll, legal_actions, new_game
from pigdice.errors import IllegalActionError
from pigdice.rules import find_variant, variant_names

FAST = settings(max_examples=60, deadline=None)
VARIANTS = [find_variant(name) for name in variant_names()]
variants = st.sampled_from(VARIANTS)
conventions = st.sampled_from(list(Convention))


def test_pig_in_both_conventions() -> None:
    pig = find_variant("pig")
    assert [to_action(pig, a) for a in (0, 1)] == [Roll(), Hold()]  # OpenSpiel's pig: 0 roll, 1 stop
    assert [to_action(pig, a, HOLD_FIRST) for a in (0, 1)] == [Hold(), Roll()]  # action tables: 0 hold, 1 roll
    assert [convert(pig, a, ROLLS_FIRST, HOLD_FIRST) for a in (0, 1)] == [1, 0]


def test_hog_has_no_hold_in_either_convention() -> None:
    hog = find_variant("hog")
    assert hold_integer(hog) is None and hold_integer(hog, HOLD_FIRST) is None
    assert integer_range(hog, HOLD_FIRST) == range(1, len(hog.choices) + 1)
    assert to_action(hog, 2) == Roll(3) and to_action(hog, 3, HOLD_FIRST) == Roll(3)
    with pytest.raises(IllegalActionError, match="no hold"):
        to_integer(hog, Hold(), HOLD_FIRST)
    with pytest.raises(IllegalActionError, match=r"out of range 1\.\.26"):
        to_action(hog, 0, HOLD_FIRST)


@FAST
@given(variant=variants, convention=conventions, data=st.data())
def test_every_integer_round_trips_through_action_and_text(variant, convention, data) -> None:
    integer = data.draw(st.sampled_from(list(integer_range(variant, convention))))
    action = to_action(variant, integer, convention)
    assert to_integer(variant, action, convention) == integer
    assert from_text(variant, to_text(action)) == action
    other = HOLD_FIRST if convention is ROLLS_FIRST else ROLLS_FIRST
    there = convert(variant, integer, convention, other)
    assert convert(variant, there, other, convention) == integer
    assert list(convert_array(variant, np.array([integer]), convention, other)) == [there]


@FAST
@given(variant=variants, convention=conventions)
def test_every_legal_action_has_one_integer_in_range(variant, convention) -> None:
    integers = [to_integer(variant, action, convention) for action in legal_actions(new_game(variant))]
    assert len(set(integers)) == len(integers)
    assert set(integers) <= set(integer_range(variant, convention))
    assert len(integer_range(variant, convention)) == action_count(variant)


@FAST
@given(variant=variants, convention=conventions, outside=st.integers(1, 10**6))
def test_integers_out_of_range_are_refused_with_the_range(variant, convention, outside) -> None:
    span = integer_range(variant, convention)
    for bad in (span.stop - 1 + outside, span.start - outside):
        with pytest.raises(IllegalActionError, match=rf"action {bad} is out of range {span.start}\.\.{span.stop - 1}"):
            to_action(variant, bad, convention)
        with pytest.raises(IllegalActionError, match=f"action {bad} is out of range"):
            convert_array(variant, np.array([span.start, bad]), convention, ROLLS_FIRST)


@pytest.mark.parametrize("bad", [1.0, "1", True, None, np.array([0, 1])])
def test_what_is_not_a_whole_number_is_refused(bad) -> None:
    with pytest.raises(IllegalActionError, match=r"an action is a whole number 0\.\.1, got"):
        to_action(find_variant("pig"), bad)


def test_numpy_integers_count_as_integers() -> None:
    pig = find_variant("pig")
    assert to_action(pig, np.int64(1)) == Hold() and to_action(pig, np.array([0])) == Roll()
    with pytest.raises(IllegalActionError, match="whole numbers, got an array of float64"):
        convert_array(pig, np.array([0.0]), ROLLS_FIRST, HOLD_FIRST)


def test_text_the_variant_cannot_play_is_refused() -> None:
    hog = find_variant("hog")
    assert from_text(hog, "roll:4") == Roll(4) and from_text(hog, "7") == Roll(7)
    with pytest.raises(IllegalActionError, match=r"rolls 1, 2, .* or 26 dice, not 27"):
        from_text(hog, "roll:27")
    with pytest.raises(IllegalActionError, match="has no hold"):
        from_text(hog, "hold")
    with pytest.raises(IllegalActionError, match="cannot read action 'jump'"):
        from_text(find_variant("pig"), "jump")
