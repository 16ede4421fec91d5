"""The Performance Rating: how much winning chance a player gives away per decision, and its named bands.

**The formula.** PR = 10,000 x (the winning chance given away in all, as a fraction) / (the decisions
that mattered), that is 100 x the average points of winning chance given away per decision. A
decision *matters* when its options' chances differ by at least a tenth of a point (0.001); a forced
move, or a choice between equal options, is not counted. Lower is better: the perfect player rates
0. It is eXtreme Gammon's idea (500 x the equity lost per non-obvious decision) on a scale that suits
dice games, whose single decisions cost far less than backgammon's.

**The bands** are calibrated on Pig (to 100, 2 players, ``bench/rating_calibration.py``): the robots
``level:1`` to ``level:8`` each fall in the band they are named after (the bounds lie between their
ratings), holding at 20 rates about 10 (a master), Neller and Presser's keep-pace about 1.4 (world
class) and the perfect player 0.
The same scale serves every variant, so a rating in Hog or Swine Herd is read against Pig's bands.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

RATING_SCALE = 10_000  # PR = this x the average chance (a fraction) given away per decision that mattered
MATTERS = 0.001  # a decision matters when its options' chances differ by at least this (a tenth of a point)

# (band, the highest rating in it), best first: calibrated on Pig (bench/rating_calibration.py)
BANDS: tuple[tuple[str, float], ...] = (
    ("perfect", 0.5),
    ("world class", 8.0),
    ("master", 25.0),
    ("expert", 50.0),
    ("strong club player", 90.0),
    ("club player", 150.0),
    ("casual player", 195.0),
    ("beginner", math.inf),
)


def band_of(rating: float) -> str:
    """Return the named band of a Performance Rating (lower is better)."""
    for name, highest in BANDS:
        if rating < highest:
            return name
    return BANDS[-1][0]


def level_of(rating: float) -> int:
    """Return the robot level (1 to 8) whose band a rating falls in: the level it played like."""
    names = [name for name, _ in BANDS]
    return len(BANDS) - names.index(band_of(rating))


def level_title(rating: float) -> str:
    """Return the robot a rating played like, in words, e.g. 'a master (level 6 of 8)'."""
    from pigdice.players.defaults import LEVEL_COUNT, LEVEL_TITLES

    level = level_of(rating)
    return f"{LEVEL_TITLES[level - 1]} (level {level} of {LEVEL_COUNT})"


def matters(values: Mapping[str, float]) -> bool:
    """Return True if a decision's options differ by at least ``MATTERS`` (a choice that can give chance away)."""
    return len(values) > 1 and max(values.values()) - min(values.values()) >= MATTERS


@dataclass(frozen=True)
class Rating:
    """A player's Performance Rating over some decisions: how many mattered, the chance given away, the band."""

    decisions: int  # decisions that mattered
    given_away: float  # the winning chance given away in them (a fraction)

    @property
    def value(self) -> float | None:
        """Return the Performance Rating (None when no decision mattered)."""
        if self.decisions == 0:
            return None
        return RATING_SCALE * self.given_away / self.decisions

    @property
    def band(self) -> str | None:
        """Return the rating's named band (None when no decision mattered)."""
        value = self.value
        return None if value is None else band_of(value)

    @property
    def error_rate(self) -> float | None:
        """Return the average winning chance given away per decision that mattered (a fraction)."""
        return None if self.decisions == 0 else self.given_away / self.decisions

    def __add__(self, other: Rating) -> Rating:
        """Return the rating over both sets of decisions."""
        return Rating(self.decisions + other.decisions, self.given_away + other.given_away)

    def to_json(self) -> dict[str, Any]:
        """Return the rating as JSON-ready data."""
        return {
            "decisions": self.decisions,
            "given_away": self.given_away,
            "error_rate": self.error_rate,
            "rating": self.value,
            "band": self.band,
        }


def rate(decisions: Iterable[tuple[Mapping[str, float], float | None]]) -> Rating:
    """Return the rating of decisions given as (each option's chance, the chance given away)."""
    count, lost = 0, 0.0
    for values, loss in decisions:
        if loss is not None and matters(values):
            count += 1
            lost += loss
    return Rating(count, lost)


def describe_rating(rating: Rating) -> str:
    """Return a rating in words, e.g. 'Performance Rating 9.8 (strong club player) over 23 decisions'."""
    value = rating.value
    if value is None:
        return "no decision that mattered, so no Performance Rating"
    plural = "" if rating.decisions == 1 else "s"
    return f"Performance Rating {value:.1f} ({rating.band}) over {rating.decisions} decision{plural}"


def bands_table() -> list[tuple[str, str]]:
    """Return the bands as (name, the ratings in it) for a table, best first."""
    rows = []
    low = 0.0
    for name, highest in BANDS:
        span = f"{low:g} or more" if math.isinf(highest) else f"{low:g} to under {highest:g}"
        rows.append((name, span))
        low = highest
    return rows
