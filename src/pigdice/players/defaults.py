"""Defaults every front end shares: the robot offered when none is named, and robots' pig names."""

from __future__ import annotations

from pigdice.rules.variant import Decision, Variant

ROBOT_NAMES = ("Wilbur", "Babe", "Hamlet", "Truffle", "Porkchop", "Snout", "Trotter", "Oinkers", "Hamm", "Curly")


def default_robot(variant: Variant) -> str:
    """Return a sensible robot spec for ``variant`` (Hog needs a number of dice, not a hold point)."""
    if variant.decision is Decision.DICE_PER_TURN:
        return f"dice:{min(6, variant.choices[-1])}"
    return "hold:20"


def robot_name(index: int) -> str:
    """Return the pig name of the ``index``-th robot at a table (0-based; names repeat after ten)."""
    return ROBOT_NAMES[index % len(ROBOT_NAMES)]
