"""Persistence: every database call of the rooms, off the event loop where it must be, and moves by group commit.

SQLite writes take well under a millisecond and group commit batches them: they run on the event loop, which
beats a thread whose GIL hand-offs (5 ms switch interval) would stall every batch under load. A server database
(PostgreSQL) is called from a small thread pool, and the moves of many rooms waiting at once go in one
transaction. This is the rooms' ``RoomStorage``: a room writes through it and knows nothing else of the server.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pigdice.web.config import Settings
from pigdice.web.store import MoveWrite, Store

log = logging.getLogger("pigdice.web")

MAX_BATCH = 500  # moves written in one transaction at most
TRUNCATE_SECONDS = 60.0  # a large SQLite log is truncated at most this often (it pauses writers briefly)

T = TypeVar("T")


class Persistence:
    """The rooms' database: calls in the right place, moves by group commit, SQLite checkpoints off the loop."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.inline = store.is_sqlite
        self._executor = ThreadPoolExecutor(max_workers=1 if store.is_sqlite else 4, thread_name_prefix="pigdice-db")
        self._pending: list[tuple[list[MoveWrite], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a database call: inline for SQLite, in a thread pool for server databases (PostgreSQL)."""
        if self.inline:
            return fn(*args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    async def write_moves(self, moves: list[MoveWrite]) -> None:
        """Store one room's consecutive moves together (all or none): at once for SQLite; for a server database,
        the moves of many rooms waiting at once are written in one transaction (group commit) by a thread."""
        if self.inline:  # SQLite: a write takes tens of microseconds; doing it now saves event-loop round trips
            self.store.record_moves(moves)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((moves, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        await future

    async def _write_pending(self) -> None:
        """Write queued moves in batches until none are left (a room's moves stay together)."""
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                await self.db(self.store.record_moves, [move for moves, _ in batch for move in moves])
                outcomes: list[BaseException | None] = [None] * len(batch)
            except Exception:
                outcomes = []
                for moves, _ in batch:  # find the bad one(s); the others still get written
                    try:
                        await self.db(self.store.record_moves, moves)
                        outcomes.append(None)
                    except Exception as exc:
                        outcomes.append(exc)
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)

    async def free_seat(self, game_id: int, seat: int) -> None:
        """Store that a person's seat is open again (RoomStorage)."""
        await self.db(self.store.free_seat, game_id, seat)

    async def claim_seat(self, game_id: int, seat: int, name: str, token_hash: str) -> bool:
        """Store a claimed open seat; return False if someone took it meanwhile (RoomStorage)."""
        return await self.db(self.store.claim_seat, game_id, seat, name, token_hash)

    async def abort_game(self, code: str, reason: str) -> bool:
        """Store that a game was called off before it began (RoomStorage); return False if it was not active."""
        return await self.db(self.store.abort_game, code, reason)

    async def checkpoints(self) -> None:
        """Checkpoint the SQLite log in the database thread, so its fsync never stalls a move.

        A passive checkpoint every few seconds never blocks a writer, but under a steady stream of moves the
        log is never rewound and grows without end (375 MB in 51 s, issue 9). So once the log passes
        ``wal_truncate_bytes`` a RESTART rewinds it (a 6-20 ms pause for writers, bench/wal_load.py), and at
        most once a minute a TRUNCATE gives the disk space back (~80-150 ms).
        """
        loop = asyncio.get_running_loop()
        last_truncate = time.monotonic()
        while True:
            await asyncio.sleep(self.settings.checkpoint_seconds)
            try:
                size = await loop.run_in_executor(self._executor, self.store.checkpoint, "PASSIVE")
                if size > self.settings.wal_truncate_bytes:
                    mode = "TRUNCATE" if time.monotonic() - last_truncate > TRUNCATE_SECONDS else "RESTART"
                    await loop.run_in_executor(self._executor, self.store.checkpoint, mode)
                    if mode == "TRUNCATE":
                        last_truncate = time.monotonic()
            except Exception:
                log.exception("SQLite checkpoint failed")

    def close(self) -> None:
        """Give the SQLite log back to the file and stop the database threads."""
        try:
            self.store.checkpoint("TRUNCATE")
        except Exception:
            log.debug("the last checkpoint failed", exc_info=True)
        self._executor.shutdown(wait=True)
