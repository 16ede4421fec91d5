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


class MissingExtraError(PigdiceError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def require_modules(modules: tuple[str, ...], extra: str, what: str) -> None:
    """Raise MissingExtraError naming ``pigdice[extra]`` if any of ``modules`` cannot be imported.

    ``what`` starts the message, e.g. "the web server needs".
    """
    import importlib.util

    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtraError(f"{what} {', '.join(missing)}: install the extra with pip install 'pigdice[{extra}]'")


class ResourceLimitError(BadParameterError):
    """Work refused before it starts: it would need more memory than this machine can give it.

    ``needed``, ``available`` and ``budget`` are bytes; ``largest_goal`` is the largest goal whose
    arrays fit the budget (0 if none does).
    """

    def __init__(self, message: str, needed: int = 0, available: int = 0, budget: int = 0, largest_goal: int = 0):
        super().__init__(message)
        self.needed = needed
        self.available = available
        self.budget = budget
        self.largest_goal = largest_goal

    def __reduce__(self) -> tuple[type[ResourceLimitError], tuple[str, int, int, int, int]]:
        """Pickle with every field (the error may be raised in a worker process and sent back)."""
        return (type(self), (str(self), self.needed, self.available, self.budget, self.largest_goal))
