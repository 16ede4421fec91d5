"""Events as clients receive them: their fields, the step that made them, and a line of plain text.

Two moments get words of their own: Swine Herd's house rule (a shared roll that takes everyone
standing to the goal seats them all, banking the total), and a seat left behind by a person who was
away too long, which another player claimed (the game's log holds it as that seat resigning, played
by the claimer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pigdice.engine.events import Banked, Event, GameOver, Resigned, Rolled, describe_event, event_to_json

HOUSE_RULE = "everyone standing has reached the goal, so by the house rule they all sit down"


def events_for_clients(
    items: Sequence[tuple[int, Event]], names: Sequence[str], claims: Mapping[int, int]
) -> list[dict[str, Any]]:
    """Return ``(step, event)`` pairs as JSON for clients, each with its step and its line of text; a shared roll
    that seats everyone by the house rule is marked ``house_rule``, a claimed seat's departure ``claimed_by``."""
    out: list[dict[str, Any]] = []
    for index, (step, event) in enumerate(items):
        data = event_to_json(event)
        data["step"] = step
        data["line"] = describe_event(event, list(names))
        later = items[index + 1][1] if index + 1 < len(items) and items[index + 1][0] == step else None
        if isinstance(event, Rolled) and event.player < 0 and isinstance(later, Banked):
            data["house_rule"] = True
            data["line"] += f"; {HOUSE_RULE}"
        elif isinstance(event, Resigned) and event.player in claims:
            claimer = names[claims[event.player]]
            data["claimed_by"] = claims[event.player]
            ends = data["ends"] = _game_ends(items, index, step)
            what = f"{claimer} claimed the win" if ends else f"{claimer} plays on without them"
            data["line"] = f"{names[event.player]} was away too long and left the game: {what}"
        out.append(data)
    return out


def _game_ends(items: Sequence[tuple[int, Event]], index: int, step: int) -> bool:
    """Return True if the game ends in the same step as the event at ``index``."""
    return any(isinstance(event, GameOver) for at, event in items[index + 1 :] if at == step)
