"""Each robot level's exact chance against the perfect player (``pigdice levels VARIANT``).

A level (``pigdice.players.levels``) is a fixed table, so its chance against the perfect player is
computed exactly, never simulated: by the head-to-head evaluator of two action tables
(``pigdice.solve.two.headtohead``) in turn-by-turn games, by the exact chain of two sit tables
(``pigdice.study.analysis.swineherd``) in 2-player Swine Herd. Those evaluators follow a race to the
goal; a variant whose goal starts a final round, or that plays equal turns, is evaluated in that race
form (its note says so). Each level plays half its games first: the average of the two seats is its
chance, and the perfect player against itself gets exactly one half.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pigdice.errors import BadParameterError
from pigdice.players.levels import LEVELS, TOP, LevelPlayer, level_table
from pigdice.rules.variant import Endgame, Variant

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class LevelChance:
    """One level against the perfect player: its chance moving first, moving second, and the average."""

    number: int
    title: str
    allowance: float
    first: float  # its chance when it moves first
    second: float  # its chance when the perfect player moves first

    @property
    def average(self) -> float:
        """Return its chance with each side moving first in half the games."""
        return (self.first + self.second) / 2

    def to_json(self) -> dict[str, Any]:
        """Return the level as JSON-ready data."""
        return {
            "level": self.number,
            "spec": f"level:{self.number}",
            "title": self.title,
            "allowance": self.allowance,
            "chance": self.average,
            "moving_first": self.first,
            "moving_second": self.second,
        }


@dataclass(frozen=True)
class LevelLadder:
    """Every level's exact chance against the perfect player in one game."""

    variant: Variant
    levels: tuple[LevelChance, ...]
    evaluated: str  # the game the chances are exact for, in words
    note: str | None

    @property
    def first_player_edge(self) -> float:
        """Return how much moving first is worth between two perfect players (half the seats' difference)."""
        top = self.levels[-1]
        return abs(top.first - top.second) / 2

    def is_increasing(self) -> bool:
        """Return True if every level's chance is strictly above the one below it."""
        return all(a.average < b.average for a, b in zip(self.levels, self.levels[1:], strict=False))

    def to_json(self) -> dict[str, Any]:
        """Return the ladder as JSON-ready data."""
        return {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "evaluated": self.evaluated,
            "note": self.note,
            "exact": True,
            "increasing": self.is_increasing(),
            "first_player_edge": self.first_player_edge,
            "levels": [level.to_json() for level in self.levels],
        }


def level_ladder(
    variant: Variant, progress: Progress | None = None, allowances: Sequence[float] | None = None
) -> LevelLadder:
    """Return every level's exact chance against the perfect player in 2-player ``variant``.

    ``allowances`` replaces the levels' own (a calibration tries others; level 8's stays 0).
    """
    chosen = [level.allowance for level in LEVELS] if allowances is None else [*allowances]
    if len(chosen) != len(LEVELS) or chosen[-1] != 0.0:
        raise BadParameterError(f"give {len(LEVELS)} allowances, the last one 0 (the perfect player)")

    def report(fraction: float, what: str) -> None:
        if progress is not None:
            progress(fraction, what)

    if variant.is_simultaneous:
        rows = _herd_ladder(variant, chosen, report)
        return LevelLadder(variant, rows, f"{variant.title} with 2 players, to goal {variant.goal}", None)
    race = variant.first_to_goal()
    rows = _race_ladder(race, chosen, report)
    note = None
    if variant.endgame is not Endgame.FIRST_TO_GOAL:
        note = (
            f"the chances are exact for the race to the goal: {variant.title}'s own ending "
            f"({variant.endgame.label}) is left out, as fixed strategies are evaluated exactly only in a race"
        )
    return LevelLadder(variant, rows, f"{variant.title} with 2 players, first to {variant.goal} wins", note)


def _race_ladder(race: Variant, allowances: Sequence[float], report: Progress) -> tuple[LevelChance, ...]:
    """Return the levels' chances in a 2-player race to the goal, by the head-to-head evaluator."""
    from pigdice.solve.two.headtohead import head_to_head

    perfect = LevelPlayer(race, level=TOP)
    report(0.0, "the perfect player's table")
    best = perfect.action_table(race)
    policy = perfect.policy
    rows = []
    share = 1 / len(LEVELS)
    for index, (level, allowance) in enumerate(zip(LEVELS, allowances, strict=True)):
        if allowance == 0.0:
            table = best
        else:
            table = level_table(policy, allowance, _part(report, index * share, share / 2, f"level {level.number}"))
        report((index + 0.5) * share, f"level {level.number} against the perfect player")
        match = head_to_head(race, table, best)
        rows.append(LevelChance(level.number, level.title, allowance, match.a_first, match.b_first))
    report(1.0, "done")
    return tuple(rows)


def _part(report: Progress, start: float, width: float, what: str) -> Callable[[float], None]:
    """Return a progress callback for one part of the work: ``start`` to ``start + width`` of the whole."""
    return lambda fraction: report(start + fraction * width, what)


def _herd_ladder(variant: Variant, allowances: Sequence[float], report: Progress) -> tuple[LevelChance, ...]:
    """Return the levels' chances in 2-player Swine Herd, by the exact chain of sit tables."""
    from pigdice.solve.exact import exact_policy
    from pigdice.study.analysis.swineherd import equilibrium_table, evaluate_pair
    from pigdice.study.herdlevels import level_sit_table

    report(0.0, "the equilibrium")
    solved = exact_policy(variant, 2).solved  # type: ignore[attr-defined]
    perfect = (equilibrium_table(solved, 0), equilibrium_table(solved, 1))
    rows = []
    for index, (level, allowance) in enumerate(zip(LEVELS, allowances, strict=True)):
        report(index / len(LEVELS), f"level {level.number} against the perfect player")
        if allowance == 0.0:
            mine = perfect
        else:
            mine = (level_sit_table(solved, 0, allowance), level_sit_table(solved, 1, allowance))
        first = evaluate_pair(variant, mine[0], perfect[1])
        second = evaluate_pair(variant, perfect[0], mine[1])
        rows.append(LevelChance(level.number, level.title, allowance, first.chance_a, second.chance_b))
    report(1.0, "done")
    return tuple(rows)
