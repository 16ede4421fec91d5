"""Persistence: every database call of the rooms, off the event loop where it must be, and moves by group commit.

SQLite writes take well under a millisecond and group commit batches them: they run on the event loop, which
beats a thread whose GIL hand-offs (5 ms switch interval) would stall every batch under load. A server database
(PostgreSQL) is called from a small thread pool, and the moves of many rooms waiting at once go in one
transaction. This is the rooms' ``RoomStorage``: a room writes through it and knows nothing else of the server.

A server database that does not answer within ``Settings.database_seconds`` (frozen, or its connections all
stuck) fails the call with a ``StoreError``, so a request never hangs. A write reported failed may have been
committed all the same (the connection dropped after the commit): before calling it failed, the moves are read
back, and if they are there the write succeeded; if other moves are there, the room is told to read them
(``GameAheadError``), so it never refuses its next step for good.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pigdice.web.config import Settings
from pigdice.web.store import GameAheadError, GameClosedError, MoveRecord, MoveWrite, Store, StoreError, faults

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
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="pigdice-read")
        self._pending: list[tuple[list[MoveWrite], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a database call: inline for SQLite, in a thread pool for server databases (PostgreSQL), where a
        call that takes longer than ``database_seconds`` fails with a StoreError (its thread finishes later)."""
        if self.inline:
            return fn(*args)
        loop = asyncio.get_running_loop()
        call = loop.run_in_executor(self._executor, fn, *args)
        try:
            return await asyncio.wait_for(call, self.settings.database_seconds)
        except TimeoutError:
            seconds = self.settings.database_seconds
            raise StoreError(f"the database {self.store.safe_url()} did not answer within {seconds:g} s") from None

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a database read that may be long (a game of many moves) in a thread, for every database: the event
        loop stays free while its rows are fetched and decoded."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, fn, *args)

    async def write_moves(self, moves: list[MoveWrite]) -> None:
        """Store one room's consecutive moves together (all or none): at once for SQLite; for a server database,
        the moves of many rooms waiting at once are written in one transaction (group commit) by a thread."""
        if self.inline:  # SQLite: a write takes tens of microseconds; doing it now saves event-loop round trips
            try:
                self.store.record_moves(moves)
            except Exception as exc:
                failure = await self._confirm(moves, exc)
                if failure is not None:
                    raise failure from None
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
            except Exception as failed:
                outcomes = []
                for moves, _ in batch:  # find the bad one(s); the others still get written
                    try:
                        if len(batch) == 1:
                            raise failed
                        await self.db(self.store.record_moves, moves)
                        outcomes.append(None)
                    except Exception as exc:
                        outcomes.append(await self._confirm(moves, exc))
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)

    async def _confirm(self, moves: list[MoveWrite], failure: BaseException) -> BaseException | None:
        """Return None if ``moves`` are stored after all (the write failed after its commit, or an earlier
        write reported failed had stored them), else the error to raise: ``failure``, or a ``GameAheadError``
        carrying other moves the database holds from that step on."""
        if isinstance(failure, GameClosedError):
            return failure
        first = moves[0]
        try:
            stored = await self.db(self.store.moves_after, first.game_id, first.step - 1)
        except Exception:
            stored = None  # the database is still out of reach: the write is reported failed
        if stored and _same(stored[: len(moves)], moves):
            log.warning("game id %s: moves %s..%s were stored after all", first.game_id, first.step, moves[-1].step)
            return None
        if stored:
            return GameAheadError(f"id {first.game_id}", stored)
        faults("store", "could not store moves (game id %s, step %s): %s", first.game_id, first.step, failure)
        return failure

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
        self._readers.shutdown(wait=True)


def _same(stored: list[MoveRecord], moves: list[MoveWrite]) -> bool:
    """Return True if the stored moves are ``moves`` (step, seat, action and events)."""
    return len(stored) == len(moves) and all(
        (s.step, s.seat, s.action, s.events) == (m.step, m.seat, m.action, m.events)
        for s, m in zip(stored, moves, strict=True)
    )
