"""What a stored game is: seats, moves and games as records, and the defensive decoding of stored rows into them.

Nothing read from the database is trusted: ``decode_game`` checks every field's type and the game's consistency
(seats 0..n-1, moves 1..step, JSON of the right shape) and raises ``BadRow`` naming the first bad field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pigdice.web.schema import ACTIVE, FINISHED, STATUSES


class BadRow(ValueError):
    """A stored value that is not what its column promises."""


@dataclass
class SeatRecord:
    """One stored seat."""

    seat: int
    kind: str
    spec: str
    name: str
    token_hash: str | None = None


@dataclass
class MoveRecord:
    """One stored action and the events it produced."""

    step: int
    seat: int
    action: str
    events: list[dict[str, Any]]


@dataclass
class MoveWrite:
    """One move to append: the game, its new step, who acted, the action, events, the outcome and who is next."""

    game_id: int
    step: int
    seat: int
    action: str
    events: list[dict[str, Any]]
    finished: bool = False
    winners: list[int] | None = None
    to_move: int | None = None  # the seat to move after this one (stored as NULL once finished)


@dataclass
class GameRecord:
    """One stored game: how to rebuild the variant, the seed, the seats, the move log and its status."""

    code: str
    variant: str
    goal: int
    endgame: str
    ties: str
    final_turn: str
    params: dict[str, Any]
    fingerprint: str
    seed: int
    seats: list[SeatRecord]
    id: int = 0
    step: int = 0
    finished: bool = False
    moves: list[MoveRecord] = field(default_factory=list)
    status: str = ACTIVE  # active | finished | quarantined | expired
    closed_reason: str | None = None
    closed_at: float | None = None
    to_move: int | None = 0  # the seat whose move it is; None when finished or unknown (a game of schema 1)
    creator: str | None = None  # a hash of the creating client
    salt: str | None = None  # the dice commitment's secret salt (hex); None for games from before schema 3
    created_at: float | None = None  # when the game was created (epoch seconds)
    next_code: str | None = None  # the code of the game's rematch, once it started (schema 4)


def _text(row: Mapping[Any, Any], name: str) -> str:
    value = row[name]
    if not isinstance(value, str):
        raise BadRow(f"{name} is {type(value).__name__}, not text")
    return value


def _optional_text(row: Mapping[Any, Any], name: str) -> str | None:
    return None if row[name] is None else _text(row, name)


def _integer(row: Mapping[Any, Any], name: str) -> int:
    value = row[name]
    if type(value) is not int:
        raise BadRow(f"{name} is {value!r}, not an integer")
    return value


def _optional_integer(row: Mapping[Any, Any], name: str) -> int | None:
    return None if row[name] is None else _integer(row, name)


def _optional_real(row: Mapping[Any, Any], name: str) -> float | None:
    value = row[name]
    if value is None:
        return None
    if type(value) not in (int, float):
        raise BadRow(f"{name} is {value!r}, not a number")
    return float(value)


def _json(row: Mapping[Any, Any], name: str) -> Any:
    try:
        return json.loads(_text(row, name))
    except ValueError as exc:
        raise BadRow(f"{name} is not valid JSON ({exc})") from None


def decode_game(row: Mapping[Any, Any], seat_rows: Sequence[Mapping[Any, Any]], move_rows: Sequence[Any]) -> GameRecord:
    """Build a GameRecord from its rows, checking every field (raise ``BadRow`` naming the first bad one)."""
    params = _json(row, "params")
    if not isinstance(params, dict):
        raise BadRow(f"params is {type(params).__name__}, not a JSON object")
    players = _integer(row, "players")
    seats = []
    for r in seat_rows:
        kind = _text(r, "kind")
        if kind not in ("human", "robot"):
            raise BadRow(f"seat kind {kind!r} is neither human nor robot")
        seats.append(
            SeatRecord(_integer(r, "seat"), kind, _text(r, "spec"), _text(r, "name"), _optional_text(r, "token_hash"))
        )
    if [s.seat for s in seats] != list(range(players)) or players < 1:
        raise BadRow(f"the game has {players} players but seats {[s.seat for s in seats]}")
    step = _integer(row, "step")
    moves = []
    for r in move_rows:
        events = _json(r, "events")
        if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
            raise BadRow(f"the events of move {r['step']!r} are not a JSON list of objects")
        seat = _integer(r, "seat")
        if not 0 <= seat < players:
            raise BadRow(f"move {r['step']!r} is by seat {seat}, not one of the {players}")
        moves.append(MoveRecord(_integer(r, "step"), seat, _text(r, "action"), events))
    if [m.step for m in moves] != list(range(1, step + 1)):
        raise BadRow(f"the game is at step {step} but its stored moves are steps {_span([m.step for m in moves])}")
    finished = row["finished"]
    if finished not in (True, False):  # 0 and 1 included
        raise BadRow(f"finished is {finished!r}, not a boolean")
    status = _optional_text(row, "status") or (FINISHED if finished else ACTIVE)
    if status not in STATUSES:
        raise BadRow(f"status {status!r} is not one of {', '.join(STATUSES)}")
    to_move = _optional_integer(row, "to_move")
    if to_move is not None and not 0 <= to_move < players:
        raise BadRow(f"the seat to move ({to_move}) is not one of the {players}")
    return GameRecord(
        code=_text(row, "code"),
        variant=_text(row, "variant"),
        goal=_integer(row, "goal"),
        endgame=_text(row, "endgame"),
        ties=_text(row, "ties"),
        final_turn=_text(row, "final_turn"),
        params=params,
        fingerprint=_text(row, "fingerprint"),
        seed=_integer(row, "seed"),
        seats=seats,
        id=_integer(row, "id"),
        step=step,
        finished=bool(finished),
        moves=moves,
        status=status,
        closed_reason=_optional_text(row, "closed_reason"),
        closed_at=_optional_real(row, "closed_at"),
        to_move=to_move,
        creator=_optional_text(row, "creator"),
        salt=_salt(row),
        created_at=_optional_real(row, "created_at"),
        next_code=_next_code(row),
    )


def _next_code(row: Mapping[Any, Any]) -> str | None:
    """Return the stored code of the game's rematch (a room code), or None."""
    code = row.get("next_code")
    if code is not None and (not isinstance(code, str) or not 8 <= len(code) <= 64):
        raise BadRow(f"next_code is {str(code)[:70]!r}, not a room code")
    return code


def _salt(row: Mapping[Any, Any]) -> str | None:
    """Return the stored salt: lower-case hex of at most 64 digits, or None."""
    salt = row.get("salt")
    if salt is not None and not isinstance(salt, str):
        raise BadRow(f"salt is {type(salt).__name__}, not text")
    if salt is not None and (not 0 < len(salt) <= 64 or any(ch not in "0123456789abcdef" for ch in salt)):
        raise BadRow(f"salt is {salt[:70]!r}, not lower-case hexadecimal")
    return salt


def _span(steps: list[int]) -> str:
    """Return a short description of a list of step numbers ("none", "1..40", or the list when not a run)."""
    if not steps:
        return "none"
    if steps == list(range(steps[0], steps[0] + len(steps))):
        return f"{steps[0]}..{steps[-1]}"
    return ", ".join(map(str, steps[:8])) + (", ..." if len(steps) > 8 else "")
