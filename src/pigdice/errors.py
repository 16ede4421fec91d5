"""Errors pigdice raises for bad input; every one carries a message that names the problem."""

from __future__ import annotations


class PigdiceError(ValueError):
    """Base class of every pigdice input error (a ValueError, so callers can catch either)."""


class UnknownVariantError(PigdiceError):
    """A variant name that the registry does not know."""


class BadParameterError(PigdiceError):
    """A variant or command parameter outside its allowed values."""


class IllegalActionError(PigdiceError):
    """An action that is not legal in the current game state."""


class BadStrategyError(PigdiceError):
    """A strategy spec string that cannot be parsed."""
