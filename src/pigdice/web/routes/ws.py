"""The live websocket of a room: the state and the latest events on connect (older ones a page at a time on
request), every move pushed; actions, joins and hints in."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from pigdice.errors import PigdiceError
from pigdice.web.errors import WebError
from pigdice.web.leaving import seats_back, seats_left
from pigdice.web.live import Connection, TokenBucket, dumps
from pigdice.web.manager import RoomManager
from pigdice.web.protocol import (
    WsAction,
    WsHello,
    WsHint,
    WsHistory,
    WsJoin,
    WsPing,
    validation_message,
    ws_adapter,
)
from pigdice.web.rooms import Room
from pigdice.web.routes import AppSettings, Client, Manager
from pigdice.web.socketlimits import REFUSED_CODE, SocketLimits
from pigdice.web.store import StoreError

router = APIRouter()

MAX_STRIKES = 100  # rate-limited messages before a connection is closed
WELCOME_SENT_SECONDS = 10.0  # a websocket counts as being opened until its welcome is sent, or this long


def error_message(code: str, message: str) -> str:
    """Return an error message for the socket as JSON text."""
    return dumps({"type": "error", "code": code, "message": message})


@router.websocket("/ws/{code}")
async def ws_room(ws: WebSocket, code: str, manager: Manager, settings: AppSettings, client: Client) -> None:
    """Live room: the full state on connect, every move pushed; actions, joins and hints in (within the bounds on
    websockets per address)."""
    limits: SocketLimits = ws.app.state.sockets
    await limits.wait_to_open(client, settings.ws_opening_wait_seconds)
    refusal = limits.refusal(client)
    if refusal is not None:
        await ws.accept()
        await ws.close(code=REFUSED_CODE, reason=refusal)  # the page shows the reason and tries again later
        return
    admission = limits.admit(client)
    try:
        await ws.accept()
        await live_room(ws, code, manager, settings, admission.opened)
    finally:
        admission.close()


async def live_room(
    ws: WebSocket, code: str, manager: Manager, settings: AppSettings, opened: Callable[[], None]
) -> None:
    """Welcome the websocket to room ``code`` (``opened()`` once its welcome is sent or it ends), then answer its
    messages until it closes."""
    try:
        room = await manager.get(code)
    except WebError as exc:
        await ws.send_text(dumps({"type": "error", **exc.to_json()}))
        await ws.close(code=4000 + exc.status)  # 4404 no such room, 4410 damaged
        return
    except StoreError:
        await ws.send_text(error_message("storage_failed", "the game server could not reach its storage; try again"))
        await ws.close(code=1011)
        return
    conn = Connection(ws.send_text)
    conn.start()
    async with room.lock:
        room.connections.add(conn)
        conn.send(room.welcome_text())
        room.broadcast_watchers()
    bucket = TokenBucket(settings.rate_per_second, settings.rate_burst)
    strikes = 0
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn.first_sent.wait(), WELCOME_SENT_SECONDS)
        opened()
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                conn.send(error_message("bad_message", "send JSON text messages, not binary"))
                continue
            if len(text) > settings.max_message_bytes:
                limit = settings.max_message_bytes
                conn.send(error_message("message_too_large", f"messages are limited to {limit} bytes"))
                continue
            if not bucket.allow():
                strikes += 1
                rate = settings.rate_per_second
                conn.send(error_message("rate_limited", f"too many messages; at most {rate:g} per second"))
                if strikes >= MAX_STRIKES:
                    break
                continue
            try:
                parsed = ws_adapter.validate_json(text)
            except ValidationError as exc:
                if any(e.get("type") == "json_invalid" for e in exc.errors()):
                    conn.send(error_message("malformed_json", "that message is not valid JSON"))
                else:
                    conn.send(error_message("bad_message", validation_message(exc)))
                continue
            await handle(manager, room, conn, parsed)
            if conn.closed:
                break
    except WebSocketDisconnect:
        pass
    finally:
        room.connections.discard(conn)
        await conn.stop()
        if conn.seats:
            seats_left(room, conn.seats)  # the grace period starts for seats with no connection left
            room.broadcast({"type": "seats", "state": room.snapshot()})
        else:
            room.broadcast_watchers()
        with contextlib.suppress(Exception):
            await ws.close()


async def handle(manager: RoomManager, room: Room, conn: Connection, message: Any) -> None:
    """Answer one parsed message of a connection (errors go back to it, tagged with the message's id)."""
    msg_id = getattr(message, "id", None)
    try:
        if isinstance(message, WsAction):
            update = await room.act(message.seat, message.token, message.action, message.expected_step)
            hold(room, conn, [message.seat])
            if update.get("type") == "chosen":  # Swine Herd: the chooser sees their own hidden choice
                choice = {"type": "choice", "seat": message.seat, "action": update["action"], "step": room.step}
                conn.send(dumps({**choice, "id": msg_id}))
        elif isinstance(message, WsHint):
            room.authorize(message.seat, message.token)
            reply = await manager.perfect.hint(room, message.seat)
            conn.send(dumps({**reply, "id": msg_id}))
        elif isinstance(message, WsJoin):
            seat, token = await room.join(message.seat, message.name)
            hold(room, conn, [seat.index])
            conn.send(dumps({"type": "joined", "seat": seat.index, "token": token, "id": msg_id}))
            room.broadcast({"type": "seats", "state": room.snapshot()})
        elif isinstance(message, WsHello):
            hello(room, conn, message)
        elif isinstance(message, WsPing):
            conn.send(dumps({"type": "pong", "id": msg_id}))
        elif isinstance(message, WsHistory):
            conn.send(dumps({"type": "history", **room.history_page(message.before), "id": msg_id}))
    except WebError as exc:
        conn.send(dumps({"type": "error", **exc.to_json(), "id": msg_id}))
    except StoreError:
        message = "the game server could not reach its storage; try again"
        conn.send(dumps({"type": "error", "code": "storage_failed", "message": message, "id": msg_id}))
    except PigdiceError as exc:
        conn.send(dumps({"type": "error", "code": "bad_request", "message": str(exc), "id": msg_id}))


def hold(room: Room, conn: Connection, seats: list[int]) -> None:
    """Bind ``seats`` (proven by their tokens) to the connection: their holders are here."""
    conn.seats.update(seats)
    seats_back(room, seats)


def hello(room: Room, conn: Connection, message: WsHello) -> None:
    """Bind the seats whose tokens check out to the connection; answer which were refused, and why (a seat opened
    after timeouts is told so), and the hidden Swine Herd choices those seats made in this moment."""
    held: list[int] = []
    refused: dict[str, str] = {}
    for key, token in message.tokens.items():
        index = int(key) if key.isdecimal() and key.isascii() else -1
        try:
            room.authorize(index, token)
            held.append(index)
        except WebError:
            refused[key] = "freed" if index in room.freed else "unknown"
    new = set(held) - conn.seats
    hold(room, conn, held)
    choices = {str(seat): str(room.choices[seat]) for seat in held if seat in room.choices}
    reply = {"type": "hello", "seats": sorted(held), "refused": sorted(refused), "reasons": refused}
    conn.send(dumps({**reply, "choices": choices, "step": room.step, "id": message.id}))
    if new:
        room.broadcast({"type": "seats", "state": room.snapshot()})
