"""Bounds on websockets per client address: how many one address may be opening at once (a burst of
handshakes and welcomes is work on the event loop that every other visitor waits behind), how many it may hold
open, and how many the server holds open in all. A refused websocket is accepted and closed at once with
``REFUSED_CODE`` and a reason the page shows."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

REFUSED_CODE = 4429  # 4000 + HTTP 429 Too Many Requests, as the room's other close codes (4404, 4410)
TOO_MANY_FROM_YOU = "too many connections from your address; try again"
TOO_MANY_IN_ALL = "the server has too many connections; try again"


@dataclass
class SocketLimits:
    """Count websockets being opened (accepted, welcome not yet sent) and open, per address and in all."""

    opening_per_client: int
    open_per_client: int
    open_in_all: int
    opening: Counter[str] = field(default_factory=Counter)
    open: Counter[str] = field(default_factory=Counter)
    total: int = 0
    waiting: set[asyncio.Future[None]] = field(default_factory=set)  # websockets waiting for a place to open

    def refusal(self, client: str) -> str | None:
        """Return why a new websocket of ``client`` is refused, or None if it may open."""
        if self.opening[client] >= self.opening_per_client or self.open[client] >= self.open_per_client:
            return TOO_MANY_FROM_YOU
        if self.total >= self.open_in_all:
            return TOO_MANY_IN_ALL
        return None

    def opening_full(self, client: str) -> bool:
        """Return whether ``client`` has as many websockets being opened as it may."""
        return self.opening[client] >= self.opening_per_client

    async def wait_to_open(self, client: str, seconds: float) -> None:
        """Wait until ``client`` has a place to open a websocket, or ``seconds`` have passed (a burst from one
        address is let in a few at a time); woken by each opening that ends, never polling."""
        deadline = time.monotonic() + seconds
        while self.opening_full(client):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.waiting.add(woken)
            try:
                await asyncio.wait_for(woken, left)
            except TimeoutError:
                return
            finally:
                self.waiting.discard(woken)

    def opening_ended(self) -> None:
        """Wake every websocket waiting for a place to open (each looks again at its own address's count)."""
        for woken in self.waiting:
            if not woken.done():
                woken.set_result(None)
        self.waiting.clear()

    def admit(self, client: str) -> Admission:
        """Count a new websocket of ``client`` as being opened and open; return what ends each."""
        self.opening[client] += 1
        self.open[client] += 1
        self.total += 1
        return Admission(self, client)

    def usage(self) -> dict[str, int]:
        """Return how many websockets are open and being opened (for /healthz)."""
        return {"open": self.total, "opening": sum(self.opening.values())}


@dataclass
class Admission:
    """One admitted websocket: ``opened()`` once its welcome is sent, ``close()`` when it ends (which also ends
    its opening, if it never got that far)."""

    limits: SocketLimits
    client: str
    opening: bool = True
    open: bool = True

    def opened(self) -> None:
        """Stop counting the websocket as being opened."""
        if self.opening:
            self.opening = False
            forget(self.limits.opening, self.client)
            self.limits.opening_ended()

    def close(self) -> None:
        """Stop counting the websocket at all."""
        self.opened()
        if self.open:
            self.open = False
            forget(self.limits.open, self.client)
            self.limits.total -= 1


def forget(counts: Counter[str], client: str) -> None:
    """Count one websocket of ``client`` less (the tables hold only addresses with a websocket now)."""
    counts[client] -= 1
    if counts[client] <= 0:
        del counts[client]
