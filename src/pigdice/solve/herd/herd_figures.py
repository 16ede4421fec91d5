"""The group approximation of Swine Herd, measured: its exploitability at small goals, kept with the package.

With 4 or more players (and with 3 at a goal whose equilibrium is not at hand) every seat plays the 2-player
equilibrium against the opponent with the highest score. ``bench/herd_group_exploitability.py`` measures, with
``group_best_response``, how much one seat gains at most by its exact best response while the others keep that
rule, and writes the figures to ``data/herd_group_exploitability.json``; this module reads them and says them in
words for every answer that plays the approximation.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

DATA_NAME = "herd_group_exploitability.json"
HOW = (
    "measured exactly: one player's best reply, worked out over every moment of every turn while the others play "
    "the approximation, against the approximation's own play"
)


class Measured(NamedTuple):
    """The approximation's exploitability at one table size and goal (shares of a win, 0..1)."""

    players: int
    goal: int
    start: float  # the most one seat gains by a best reply, from the start of the game
    worst: float  # the most over every turn start
    worst_at: tuple[int, ...]  # that turn start's scores, the one who gains first
    cpu_seconds: float


@cache
def _figures() -> tuple[Measured, ...]:
    """Return every figure kept with the package."""
    text = resources.files("pigdice.solve").joinpath("data", DATA_NAME).read_text(encoding="utf-8")
    rows = json.loads(text)["figures"]
    return tuple(
        Measured(r["players"], r["goal"], r["start"], r["worst"], tuple(r["worst_at"]), r["cpu_seconds"]) for r in rows
    )


def measured(players: int) -> list[Measured]:
    """Return the approximation's measured exploitability with ``players`` players (3 or 4), by goal."""
    return sorted((m for m in _figures() if m.players == players), key=lambda m: m.goal)


def measured_players(players: int) -> int:
    """Return the table size whose figures stand for ``players`` players: 4 for 4 or more (5+ are not measured)."""
    return min(max(players, 3), 4)


def _percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def summary(players: int) -> str:
    """Return, in words, how far the approximation is from an equilibrium for a table of ``players``.

    For example: "measured exactly with 4 players to goals 5-20: a player who plays against it at its best gains
    up to 26% of a win from the start (goal 20), up to 81% from the worst score".
    """
    rows = measured(measured_players(players))
    if not rows:
        return "its distance from an equilibrium has not been measured"
    top_start = max(rows, key=lambda m: m.start)
    top_worst = max(rows, key=lambda m: m.worst)
    goals = f"goal {rows[0].goal}" if len(rows) == 1 else f"goals {rows[0].goal}-{rows[-1].goal}"
    size = measured_players(players)
    beyond = "" if players == size else f" (not measured beyond {size} players)"
    return (
        f"measured exactly with {size} players at {goals}{beyond}: a player who answers it at its best gains up to "
        f"{_percent(top_start.start)} of a win from the start of a game (goal {top_start.goal}) and up to "
        f"{_percent(top_worst.worst)} from the worst scores (goal {top_worst.goal})"
    )


def to_json(players: int) -> dict[str, Any]:
    """Return the measured figures for ``players`` players as JSON-ready data (``solve --json``)."""
    size = measured_players(players)
    return {
        "rule": "every seat plays the 2-player equilibrium against the opponent with the highest score",
        "players_measured": size,
        "how": HOW,
        "by_goal": [
            {
                "goal": m.goal,
                "at_start": m.start,
                "worst": m.worst,
                "worst_at": list(m.worst_at),
                "cpu_seconds": m.cpu_seconds,
            }
            for m in measured(size)
        ],
        "summary": summary(players),
    }
