"""Live connections: a per-websocket send queue, a token-bucket rate limit, and news told once per burst."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any


class OncePerBurst:
    """Run a callback once, ``delay`` seconds after the first of a burst of requests (the ones that come while it
    waits join it): news that every connection hears, such as how many watch, costs N sends per burst, not N**2
    when N visitors open a room together."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.waiting = False

    def request(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` at the end of this burst (this one's callback is the one run, if a burst is waiting)."""
        if self.waiting:
            return
        self.waiting = True

        def run() -> None:
            self.waiting = False
            callback()

        asyncio.get_running_loop().call_later(self.delay, run)


class TokenBucket:
    """A token bucket: ``rate`` messages per second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        """Take one token if there is one; return whether the message may pass."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """One websocket: an outgoing queue drained by its own task, so a slow reader never blocks a room."""

    def __init__(self, send_text: Callable[[str], Awaitable[None]], max_queue: int = 1000) -> None:
        self._send_text = send_text
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(max_queue)
        self.seats: set[int] = set()  # seats this connection proved it holds
        self.closed = False
        self.first_sent = asyncio.Event()  # set once the first message (the welcome) is written, or the send failed
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the task that writes queued messages to the socket."""
        self.task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await self._send_text(text)
            except Exception:  # the peer went away; the reader loop notices and cleans up
                self.closed = True
                return
            finally:
                self.first_sent.set()

    def send(self, text: str) -> None:
        """Queue a message; a connection that falls 1000 messages behind is dropped."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closed = True

    async def stop(self) -> None:
        """Stop the writer task after it has sent what is queued."""
        self.closed = True
        if self.task is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
            try:
                await asyncio.wait_for(self.task, 2)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()


def dumps(message: dict[str, Any]) -> str:
    """Return a message as compact JSON text."""
    return json.dumps(message, separators=(",", ":"))
