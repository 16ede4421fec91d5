"""Leaving a game: calling it off before it begins, and going on without a person who left.

- **Abort.** Until a person has made a decision (rolled, held, chosen: the rules' own first roll of a Swine
  Herd turn and robots' moves do not count) anyone holding a seat may call the game off. It ends with no
  result; the database keeps it, marked aborted.
- **A seat left behind.** In a room where people play from different places, a person's seat is left behind
  when its holder has been disconnected for ``Timing.away_seconds`` (the grace period, 60 s by default) or
  when it was opened after repeated timeouts. Anyone else still playing may then claim it: the seat leaves
  the game as if it resigned (played by the claimer, so the log tells a claim from a resignation), which with
  two players left gives the claimer the win and with more lets the others play on. Or they wait: the holder
  may come back (or someone may take an opened seat) and play on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pigdice.engine.game import Resign
from pigdice.web.errors import WebError

if TYPE_CHECKING:
    from pigdice.web.rooms import Room


def seats_left(room: Room, seats: Iterable[int]) -> None:
    """Note that the people of ``seats`` lost their last connection, and tell everyone once their grace passes."""
    connected = room.connected_seats()
    for index in seats:
        seat = room.seats[index]
        if seat.is_robot or index in connected or seat.token_hash is None or index in room.away:
            continue
        room.away[index] = time.time()
        if room.is_online and not room.state.is_terminal():
            room.away_timers[index] = asyncio.create_task(_grace(room, index))


def seats_back(room: Room, seats: Iterable[int]) -> None:
    """Note that the people of ``seats`` are connected again."""
    for index in seats:
        room.away.pop(index, None)
        timer = room.away_timers.pop(index, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()


async def _grace(room: Room, index: int) -> None:
    """After the grace period, tell everyone that seat ``index`` may be claimed (if its holder is still away)."""
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(room.timing.away_seconds + 0.05)  # a little past it, so ``left_behind`` agrees
        room.away_timers.pop(index, None)
        if index in room.left_behind():
            room.broadcast({"type": "seats", "state": room.snapshot(), "left": index})


async def abort(room: Room, index: int, token: str) -> dict[str, Any]:
    """Call the game off for seat ``index`` (before any person's decision); return what everyone is told."""
    async with room.lock:
        seat = room.authorize(index, token)
        room.check_open()
        if room.state.is_terminal():
            raise WebError("game_over", "the game is over", 409)
        if not room.can_abort():
            raise WebError(
                "too_late",
                "the game can no longer be called off: someone has already played; you can resign instead",
                409,
            )
        reason = f"{seat.name} called the game off before it began"
        if not await room.storage.abort_game(room.code, reason):
            raise WebError("room_closed", "this game is closed already", 410)
        room.closed = reason
        room.aborted = True
        room.stop_robots()
        room.stop_grace_timers()
        message = {"type": "closed", "aborted": True, "state": room.snapshot()}
        room.broadcast(message)
        return message


async def claim(room: Room, index: int, token: str, absent: int) -> dict[str, Any]:
    """Seat ``index`` claims seat ``absent``, left behind: it leaves the game (two players left: ``index`` wins;
    more: the others play on); return the update everyone is told."""
    async with room.lock:
        seat = room.authorize(index, token)
        room.check_open()
        state = room.state
        if state.is_terminal():
            raise WebError("game_over", "the game is over", 409)
        other = room.seat(absent)
        if index in state.resigned:
            raise WebError("resigned", f"{seat.name} has left this game, so cannot claim a seat", 409)
        if absent == index:
            raise WebError("bad_seat", "you cannot claim your own seat; resign to leave the game", 400)
        if absent not in room.left_behind():
            grace = room.timing.away_seconds
            why = (
                "is still playing"
                if absent not in room.away
                else f"has been away less than {grace:g} seconds; wait a little, they may come back"
            )
            raise WebError("not_left", f"{other.name} {why}", 409)
        room.claims[absent] = index
        try:
            update = await room.play_locked(index, Resign(absent))
        except WebError:
            room.claims.pop(absent, None)
            raise
        seats_back(room, [absent])  # nothing more to wait for
        await room.reveal_if_complete()
    room.kick_robots()
    return update
