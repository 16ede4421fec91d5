"""Dice and pigs: the faces they can show and the exact probability of each."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property

from pigdice.errors import BadParameterError


@dataclass(frozen=True)
class Die:
    """One physical die (or rubber pig): integer faces, display labels, exact probabilities."""

    name: str
    faces: tuple[int, ...]
    labels: tuple[str, ...]
    probabilities: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        if not (len(self.faces) == len(self.labels) == len(self.probabilities)):
            raise BadParameterError(f"die {self.name!r}: faces, labels and probabilities differ in length")
        if sum(self.probabilities, Fraction(0)) != 1:
            raise BadParameterError(f"die {self.name!r}: probabilities sum to {sum(self.probabilities)}, not 1")
        if any(p < 0 for p in self.probabilities):
            raise BadParameterError(f"die {self.name!r}: a probability is negative")

    @cached_property
    def cumulative(self) -> tuple[float, ...]:
        """Return the cumulative probabilities as floats, for sampling a face.

        Summed left to right in float64, the very numbers ``numpy.cumsum`` gives, so a seed throws
        the same faces it always has (stored games replay from their seeds).
        """
        return tuple(itertools.accumulate(float(p) for p in self.probabilities))

    def label(self, face: int) -> str:
        """Return the printed label of a face."""
        return self.labels[self.faces.index(face)]


@cache
def standard_die() -> Die:
    """Return a fair six-sided die with faces 1..6."""
    return Die("d6", (1, 2, 3, 4, 5, 6), ("1", "2", "3", "4", "5", "6"), (Fraction(1, 6),) * 6)


@cache
def head_die() -> Die:
    """Return Parker Brothers' head die: a pig head replaces the 1 (face 1, label 'H')."""
    return Die("head", (1, 2, 3, 4, 5, 6), ("H", "2", "3", "4", "5", "6"), (Fraction(1, 6),) * 6)


@cache
def tail_die() -> Die:
    """Return Parker Brothers' tail die: a pig tail replaces the 6 (face 6, label 'T')."""
    return Die("tail", (1, 2, 3, 4, 5, 6), ("1", "2", "3", "4", "5", "T"), (Fraction(1, 6),) * 6)


# Ballard's class data, quoted in Neller & Presser 2005 (seed 003): 3939 rolls of one pig.
PIG_POSITIONS = ("right sider", "left sider", "razorback", "trotter", "snouter", "leaning jowler")
PIG_POSITION_COUNTS = (1344, 1294, 767, 365, 137, 32)


@cache
def rubber_pig() -> Die:
    """Return a Pass the Pigs pig with the empirical landing probabilities of seed 003."""
    total = sum(PIG_POSITION_COUNTS)
    return Die(
        "pig",
        tuple(range(6)),
        PIG_POSITIONS,
        tuple(Fraction(count, total) for count in PIG_POSITION_COUNTS),
    )
