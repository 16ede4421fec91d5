"""Your games in a browser: their history and the positions to practise, with no account.

A browser keeps the seat tokens of the games it played (``pigdice:CODE`` in its local storage) and an
anonymous player key of its own; the history and practice pages send those seats here. Each one
whose token still holds the seat, in a game that is over, is reviewed exactly by the perfect player
(as the review page is) and becomes a history entry (``pigdice.study.history``) and cards of its
costliest decisions (``pigdice.study.practice``). A game still going is left out: its review would
be a hint. Nothing is stored on the server for the key.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any

from pydantic import Field

from pigdice.study.history import History, HistoryGame, game_entry
from pigdice.study.practice import INTERVALS, SESSION, Card, cards_from_review, one_per_position
from pigdice.web.errors import WebError
from pigdice.web.manager import RoomManager
from pigdice.web.protocol import SeatIndex, Strict, Token
from pigdice.web.rooms import Room

PREPARE_SECONDS = 60.0  # how long a history waits for a game's perfect player to be solved
MAX_OWN_GAMES = 60  # games one history or practice request reviews (the browser sends its newest)
RoomCode = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{8,64}$")]
PlayerKey = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{8,64}$")]


class OwnSeat(Strict):
    """A seat a browser holds: the room, the seat, and its token."""

    code: RoomCode
    seat: SeatIndex
    token: Token


class OwnGames(Strict):
    """POST /api/history and /api/practice: the seats a browser holds, and its anonymous player key."""

    key: PlayerKey | None = None
    games: Annotated[list[OwnSeat], Field(max_length=MAX_OWN_GAMES)] = Field(default_factory=list)


Reviewed = tuple[OwnSeat, Room, dict[str, Any]]


async def _reviewed(manager: RoomManager, body: OwnGames) -> tuple[list[Reviewed], list[str]]:
    """Return each held seat of a finished game with its room and review, and why any other was left out."""
    found: list[Reviewed] = []
    skipped: list[str] = []
    reviews: dict[str, dict[str, Any]] = {}  # one review per game, whichever of its seats the browser holds
    for own in body.games:
        try:
            room = await manager.get(own.code)
            room.authorize(own.seat, own.token)
        except WebError as exc:
            skipped.append(f"{own.code}: {exc}")
            continue
        if not room.state.is_terminal():
            skipped.append(f"{own.code}: the game is not over yet")
            continue
        try:
            review = reviews.get(room.code) or await _review(manager, room)
        except WebError as exc:
            skipped.append(f"{own.code}: {exc}")
            continue
        reviews[room.code] = review
        found.append((own, room, review))
    return found, skipped


async def _review(manager: RoomManager, room: Room) -> dict[str, Any]:
    """Return the room's review, waiting up to ``PREPARE_SECONDS`` for a perfect player still being solved."""
    try:
        return await manager.perfect.review(room)
    except WebError as exc:
        if exc.code != "preparing":
            raise
    task = manager.perfect.prepare(room, for_hint=True)
    if task is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), PREPARE_SECONDS)
    return await manager.perfect.review(room)


def _title(room: Room) -> str:
    return f"{room.variant.title} to {room.variant.goal}"


async def history_answer(manager: RoomManager, body: OwnGames) -> dict[str, Any]:
    """Return the history of the seats a browser holds (oldest game first), as JSON."""
    found, skipped = await _reviewed(manager, body)
    found.sort(key=lambda item: item[1].played_at or "")
    games: list[HistoryGame] = []
    for own, room, review in found:
        entry = game_entry(review, own.seat, room.code, room.played_at, _title(room), True)
        if entry.result is None and room.state.winners is not None:  # approximate values: the result still counts
            share = 1.0 / len(room.state.winners)
            entry = game_entry(
                {**review, "results": {str(own.seat): share if own.seat in room.state.winners else 0.0}},
                own.seat, room.code, room.played_at, _title(room), True,
            )  # fmt: skip
        games.append(entry)
    return History(tuple(games), tuple(skipped)).to_json()


async def practice_answer(manager: RoomManager, body: OwnGames) -> dict[str, Any]:
    """Return the cards of a browser's costliest decisions in its finished games, the most given away first."""
    found, skipped = await _reviewed(manager, body)
    cards: list[Card] = []
    for own, room, review in found:
        cards.extend(cards_from_review(review, [own.seat], room.code, _title(room)))
    cards = sorted(one_per_position(cards), key=lambda card: -card.loss)
    return {"cards": [card.to_json() for card in cards], "skipped": skipped, "intervals": INTERVALS, "session": SESSION}
