"""One action codec: the two integer conventions, the text form and the engine's actions, converted both ways.

A player's choice has four spellings in pigdice, and this module is the one place that converts them:

- **engine actions** (``Roll(dice)`` / ``Hold()``), what ``pigdice.engine.game.apply`` takes;
- **text** (``"roll"``, ``"hold"``, ``"roll:3"``, ``"3"``), what the terminal reads, the web sends and records log;
- **environment integers** (``Convention.ROLLS_FIRST``): ``a < len(variant.choices)`` rolls
  ``variant.choices[a]`` dice and ``len(variant.choices)`` holds (Pig: 0 roll, 1 hold), the order
  of OpenSpiel's ``pig`` and of every research interface (Gymnasium, PettingZoo, the vector env);
- **action-table codes** (``Convention.HOLD_FIRST``): hold is 0 and roll choice c is ``c + 1``
  (Pig: 0 hold, 1 roll), what the solver writes and every action table holds
  (``pigdice.solve.actions.HOLD``).

Games with one throw a turn (Hog) have no hold: their environment integers are ``0..choices - 1``
and their codes ``1..choices``. Anything out of range, or not a whole number, raises
``IllegalActionError`` naming the range.
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from pigdice.engine.game import Action, Hold, Roll, parse_action
from pigdice.errors import IllegalActionError
from pigdice.rules.variant import Variant


class Convention(Enum):
    """The two ways pigdice numbers a player's choices."""

    ROLLS_FIRST = "environment integers"  # roll choice c is c, hold is len(choices) (OpenSpiel's pig order)
    HOLD_FIRST = "action-table codes"  # hold is 0, roll choice c is c + 1 (solver and action tables)


ROLLS_FIRST = Convention.ROLLS_FIRST
HOLD_FIRST = Convention.HOLD_FIRST


def action_count(variant: Variant) -> int:
    """Return the number of distinct actions: one roll per dice choice, then hold where the player may hold."""
    return len(variant.choices) + int(variant.can_hold)


def integer_range(variant: Variant, convention: Convention = ROLLS_FIRST) -> range:
    """Return the integers ``variant``'s actions take in ``convention``."""
    if convention is ROLLS_FIRST:
        return range(action_count(variant))
    return range(0 if variant.can_hold else 1, len(variant.choices) + 1)


def hold_integer(variant: Variant, convention: Convention = ROLLS_FIRST) -> int | None:
    """Return the integer of the hold action in ``convention`` (None in games with one throw a turn, Hog)."""
    if not variant.can_hold:
        return None
    return len(variant.choices) if convention is ROLLS_FIRST else 0


def _whole_number(variant: Variant, value: object, convention: Convention) -> int:
    """Return ``value`` as an int: an int, a numpy integer or a one-element integer array; else refuse it."""
    if isinstance(value, np.ndarray) and value.size == 1 and np.issubdtype(value.dtype, np.integer):
        value = value.reshape(()).item()
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        span = integer_range(variant, convention)
        raise IllegalActionError(f"an action is a whole number {span.start}..{span.stop - 1}, got {value!r}")
    return int(value)


def _roll_choice(variant: Variant, index: int, integer: int, convention: Convention) -> Action:
    """Return the roll of roll choice ``index``, or refuse ``integer`` if there is no such choice."""
    if not 0 <= index < len(variant.choices):
        span = integer_range(variant, convention)
        raise IllegalActionError(f"action {integer} is out of range {span.start}..{span.stop - 1}")
    return Roll(variant.choices[index]) if variant.chooses_dice else Roll()


def to_action(variant: Variant, integer: object, convention: Convention = ROLLS_FIRST) -> Action:
    """Return the engine action of ``integer`` in ``convention``; raise IllegalActionError if it is out of range.

    A numpy integer or a one-element integer array (what Stable-Baselines3's ``predict`` returns
    for one observation, and what ``Discrete.contains`` accepts) counts as that integer.
    """
    index = _whole_number(variant, integer, convention)
    if index == hold_integer(variant, convention):
        return Hold()
    return _roll_choice(variant, index if convention is ROLLS_FIRST else index - 1, index, convention)


def to_integer(variant: Variant, action: Action, convention: Convention = ROLLS_FIRST) -> int:
    """Return the integer of engine action ``action`` in ``convention``; raise IllegalActionError if it has none."""
    if isinstance(action, Hold):
        hold = hold_integer(variant, convention)
        if hold is None:
            raise IllegalActionError(f"{variant.name} has no hold")
        return hold
    if not isinstance(action, Roll):
        raise IllegalActionError(f"{action!r} is not a roll or a hold")
    if action.dice is None:
        choice = 0
    elif action.dice in variant.choices:
        choice = variant.choices.index(action.dice)
    else:
        raise IllegalActionError(f"{variant.name} rolls {_dice_list(variant)} dice, not {action.dice}")
    return choice if convention is ROLLS_FIRST else choice + 1


def convert(variant: Variant, integer: object, source: Convention, target: Convention) -> int:
    """Return integer ``integer`` of convention ``source`` written in convention ``target``."""
    return to_integer(variant, to_action(variant, integer, source), target)


def convert_array(variant: Variant, integers: np.ndarray, source: Convention, target: Convention) -> np.ndarray:
    """Return an int64 array of ``integers`` (convention ``source``) written in ``target``; refuse any out of range."""
    values = np.asarray(integers)
    if values.size and not np.issubdtype(values.dtype, np.integer):
        raise IllegalActionError(f"actions are whole numbers, got an array of {values.dtype}")
    values = values.astype(np.int64)
    span = integer_range(variant, source)
    outside = (values < span.start) | (values >= span.stop)
    if np.any(outside):
        raise IllegalActionError(
            f"action {int(values[outside][0])} is out of range {span.start}..{span.stop - 1} ({source.value})"
        )
    if source is target:
        return values
    shift = 1 if target is HOLD_FIRST else -1  # a roll choice moves by one; hold swaps ends
    out = values + shift
    hold = hold_integer(variant, source)
    if hold is not None:
        out[values == hold] = hold_integer(variant, target)
    return out


def from_text(variant: Variant, text: str) -> Action:
    """Return the engine action that ``text`` ('roll', 'hold', 'roll:3' or '3') names in ``variant``.

    Raises IllegalActionError if the text is not an action, names a number of dice the variant
    does not roll, or holds in a game without a hold.
    """
    action = parse_action(text)
    to_integer(variant, action)  # checks the dice count and the hold against the variant
    return action


def to_text(action: Action) -> str:
    """Return the text form of ``action`` ('roll', 'roll:3' or 'hold'), what records log and the web sends."""
    return str(action)


def _dice_list(variant: Variant) -> str:
    """Return the dice counts ``variant`` may roll, as words ("1", "1 or 2", "1, 2 or 3")."""
    counts = [str(n) for n in variant.choices]
    return counts[0] if len(counts) == 1 else f"{', '.join(counts[:-1])} or {counts[-1]}"
