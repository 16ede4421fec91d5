"""Bounds on what one stranger can take: request body size (an ASGI middleware), the size and time of a request's
headers (the HTTP protocol the server runs), and new rooms per client."""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict, deque
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pigdice.web.errors import WebError


class BodyTooLarge(Exception):
    """Raised inside the app when a request body grows past the limit while it is read."""


def json_error(code: str, message: str) -> bytes:
    """Return an error body as the API sends it."""
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413: by Content-Length at once, else while reading."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, counting its body bytes."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        message = f"request bodies are limited to {limit} bytes"
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                if not value.isdigit() or int(value) > limit:
                    await self._refuse(send, message)
                    return
        seen = 0
        refused = False

        async def counted_receive() -> Message:
            nonlocal seen, refused
            incoming = await receive()
            if incoming["type"] == "http.request":
                seen += len(incoming.get("body", b""))
                if seen > limit and not refused:
                    # answer now: the framework would turn an error while reading into its own 400
                    refused = True
                    await self._refuse(send, message)
                    raise BodyTooLarge
            return incoming

        async def guarded_send(outgoing: Message) -> None:
            if not refused:  # once refused, whatever the app answers is dropped
                await send(outgoing)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except BodyTooLarge:
            pass

    @staticmethod
    async def _refuse(send: Send, message: str) -> None:
        body = json_error("body_too_large", message)
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class ClientRooms:
    """New rooms per client address in a sliding window; the table of clients is bounded too."""

    def __init__(self, limit: int, window: float, max_clients: int = 100_000) -> None:
        self.limit = limit
        self.window = window
        self.max_clients = max_clients
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, client: str, now: float) -> deque[float]:
        stamps = self._seen.get(client)
        if stamps is None:
            return deque()
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        return stamps

    def check(self, client: str) -> None:
        """Raise 429 if ``client`` has made its allowance of rooms in the window."""
        stamps = self._recent(client, time.monotonic())
        if len(stamps) >= self.limit:
            wait = int(stamps[0] + self.window - time.monotonic()) + 1
            minutes = max(1, (wait + 59) // 60)
            raise WebError(
                "too_many_rooms",
                f"you have opened {self.limit} rooms recently; try again in {minutes} minutes",
                429,
            )

    def add(self, client: str) -> None:
        """Count a new room for ``client``."""
        now = time.monotonic()
        stamps = self._recent(client, now)
        stamps.append(now)
        self._seen[client] = stamps
        self._seen.move_to_end(client)
        while len(self._seen) > self.max_clients:
            self._seen.popitem(last=False)

    def usage(self) -> dict[str, Any]:
        """Return how many clients are tracked (for /healthz)."""
        return {"clients": len(self._seen)}


def bounded_http_protocol(max_head_bytes: int, head_seconds: float) -> type[asyncio.Protocol]:
    """Return uvicorn's HTTP protocol (httptools) with bounds on a request's line and headers: past
    ``max_head_bytes`` the answer is 431 and the connection closes; headers not complete within
    ``head_seconds`` of the request's first byte (or of the connection) close it (408). Without either a
    stranger could send one header of 32 MiB, or a byte a minute, and hold the server."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class BoundedHttpToolsProtocol(HttpToolsProtocol):
        """HttpToolsProtocol that bounds the bytes and the time of every request's head."""

        _head_bytes = 0
        _in_head = True
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            """Start the clock of the first request's head."""
            super().connection_made(transport)
            self._head_timer = self.loop.call_later(head_seconds, self._head_late)

        def connection_lost(self, exc: Exception | None) -> None:
            """Stop the clock."""
            self._stop_clock()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            """Count the bytes of a head still arriving; refuse it once it is too large."""
            if self._in_head:
                if self._head_timer is None:  # the first bytes of a new request on a kept-alive connection
                    self._head_timer = self.loop.call_later(head_seconds, self._head_late)
                if self._head_bytes > max_head_bytes:
                    self._refuse(431, "Request Header Fields Too Large")
                    return
                self._head_bytes += len(data)  # bytes of the head, and perhaps of the body after it
            super().data_received(data)

        def on_headers_complete(self) -> None:
            """The head is in: stop its clock and count."""
            self._in_head = False
            self._stop_clock()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            """The request is in: the next bytes begin another head."""
            super().on_message_complete()
            self._in_head = True
            self._head_bytes = 0

        def _stop_clock(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if self._in_head and not self.transport.is_closing():
                self._refuse(408, "Request Timeout")

        def _refuse(self, status: int, reason: str) -> None:
            self._stop_clock()
            body = f"{reason}\n".encode()
            head = f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain\r\ncontent-length: {len(body)}\r\n"
            self.transport.write(head.encode() + b"connection: close\r\n\r\n" + body)
            self.transport.close()

    return BoundedHttpToolsProtocol
