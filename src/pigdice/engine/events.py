"""What happened in a game: the events ``apply`` returns, the CLI prints and the web stores."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from pigdice.rules.effects import Effect


@dataclass(frozen=True)
class Rolled:
    """A player (or, in Swine Herd, the swineherd for everyone standing) threw dice."""

    player: int
    dice: int
    faces: tuple[int, ...] | None
    labels: tuple[str, ...]
    text: str
    effect: Effect
    turn_total: int


@dataclass(frozen=True)
class Busted:
    """The turn ended with the turn total lost."""

    player: int
    lost: int


@dataclass(frozen=True)
class ScoreReset:
    """The turn ended with the whole score lost."""

    player: int
    lost_score: int
    lost_turn_total: int


@dataclass(frozen=True)
class Banked:
    """Points were added to a player's score (a hold, a sit-down, or a banking roll)."""

    player: int
    points: int
    score: int


@dataclass(frozen=True)
class StayedStanding:
    """Swine Herd: a standing player chose to keep standing for the next roll."""

    player: int


@dataclass(frozen=True)
class TurnStarted:
    """A new turn began (``player`` is -1 in Swine Herd, where everyone plays)."""

    player: int
    turn: int


@dataclass(frozen=True)
class FinalRoundStarted:
    """Someone reached the goal; these players get one last turn (or roll)."""

    by: int
    players: tuple[int, ...]


@dataclass(frozen=True)
class Resigned:
    """A player left the game: they can no longer win, and their turns are skipped."""

    player: int


@dataclass(frozen=True)
class TimedOut:
    """The player to move let their time run out: the turn passed, its turn total lost."""

    player: int
    lost: int


@dataclass(frozen=True)
class GameStopped:
    """The game reached the move limit (``pigdice.engine.game.MOVE_LIMIT``) and stops: the highest score wins."""

    moves: int


@dataclass(frozen=True)
class GameOver:
    """The game ended; ``winners`` share the victory."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]


Event = (
    Rolled
    | Busted
    | ScoreReset
    | Banked
    | StayedStanding
    | TurnStarted
    | FinalRoundStarted
    | Resigned
    | TimedOut
    | GameStopped
    | GameOver
)


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    """Return the field names of an event class (asked once per class: a replay of 100,000 moves asks a lot)."""
    return tuple(field.name for field in dataclasses.fields(kind))


def event_to_json(event: Event) -> dict[str, Any]:
    """Return a JSON-ready dict of an event, with its type in ``"type"``."""
    kind: type = type(event)
    data: dict[str, Any] = {"type": kind.__name__}
    for name in _field_names(kind):
        value = getattr(event, name)
        if isinstance(value, Effect):
            value = value.to_json()
        elif isinstance(value, tuple):
            value = list(value)
        data[name] = value
    return data


def describe_event(event: Event, names: list[str]) -> str:
    """Return one line of plain text for an event, naming players with ``names``."""

    def who(player: int) -> str:
        return "Everyone" if player < 0 else names[player]

    if isinstance(event, Rolled):
        return f"{who(event.player)} rolled {event.text}: {event.effect.describe()} (turn total {event.turn_total})"
    if isinstance(event, Busted):
        if event.lost == 0:
            return f"{who(event.player)}: the turn is over, nothing lost"
        return f"{who(event.player)} lost the turn total of {event.lost}"
    if isinstance(event, ScoreReset):
        return f"{who(event.player)} lost the whole score of {event.lost_score}!"
    if isinstance(event, Banked):
        return f"{who(event.player)} banked {event.points} points: score {event.score}"
    if isinstance(event, StayedStanding):
        return f"{who(event.player)} stays standing"
    if isinstance(event, TurnStarted):
        return f"Turn {event.turn + 1}: {who(event.player)}"
    if isinstance(event, Resigned):
        return f"{who(event.player)} resigned"
    if isinstance(event, TimedOut):
        lost = f", losing the turn total of {event.lost}" if event.lost else ""
        return f"{who(event.player)} ran out of time: the turn passes{lost}"
    if isinstance(event, GameStopped):
        return f"The game has gone on for {event.moves:,} moves and stops here: the highest score wins"
    if isinstance(event, FinalRoundStarted):
        others = ", ".join(names[p] for p in event.players) or "nobody"
        return f"{who(event.by)} reached the goal; last chance for {others}"
    winners = " and ".join(names[p] for p in event.winners)
    return f"Game over: {winners} {'wins' if len(event.winners) == 1 else 'share the victory'}"
