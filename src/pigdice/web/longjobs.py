"""A long game's big jobs (its record written out, its dice verified) in a worker process, never on the server's
threads.

A room of 100,000 moves makes a record of 19 MB: rebuilding it replays every move and builds hundreds of
thousands of objects; verifying it replays them again. In a thread of the server that is seconds of work under
the GIL (the event loop waits up to 5 ms for it at every turn) and, at its end, a single free of the whole
record that holds the GIL for a fifth of a second: /healthz stalled 0.2-0.3 s (bench/web_health.py). So a game
of ``LONG_GAME`` moves or more goes to a worker process: it receives the game's rules, seed and actions (one
string: pickling 100,000 small strings holds the GIL too) and hands back only a small result: the verification,
or the path of the record it wrote to a file, which the server then streams in pieces. Shorter games stay in a
thread of the server (no process to start, and their work is short).

Requests for the same job (the same room at the same step) share it; when more than ``max_jobs`` wait, new ones
are refused (503 ``busy``). A worker that dies has its job tried once more in a fresh one; workers die with the
server (``quiet_worker``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from pigdice.engine.fairness import record_dice_statistics, verify_and_count
from pigdice.engine.record import Commitment, GameRecord, SeatEntry, record_game
from pigdice.rules.variant import Variant
from pigdice.web.collector import LONG_GAME, without_collection
from pigdice.web.errors import WebError
from pigdice.web.workerpool import WorkerPool, quiet_worker, workers_ignore_ctrl_c

log = logging.getLogger("pigdice.web")

T = TypeVar("T")

RECORD_PIECE = 2**18  # bytes of a record file sent at a time
WORKER_NICENESS = 5  # the worker yields the CPU to the server when they contend for it (a third of its share)


@dataclass(frozen=True)
class RecordOrder:
    """What rebuilds a room's record anywhere, another process included: the rules, seats, seed, actions (one per
    line), the dice commitment and whether the seed may be shown."""

    variant: Variant
    seats: tuple[SeatEntry, ...]
    seed: int
    actions: str
    commitment: Commitment | None
    reveal_seed: bool
    room: str
    played_at: str | None

    @property
    def moves(self) -> int:
        """Return how many moves the game has."""
        return self.actions.count("\n") + 1 if self.actions else 0

    def key(self, kind: str) -> str:
        """Return the key of a job of ``kind`` on this game as it stands (the same room at the same step)."""
        return f"{kind}:{self.room}:{self.moves}"

    def record(self) -> GameRecord:
        """Return the game's record, its events rebuilt by replaying the actions with the seed's dice."""
        return record_game(
            self.variant,
            self.seats,
            self.seed,
            self.actions.split("\n") if self.actions else [],
            commitment=self.commitment,
            reveal_seed=self.reveal_seed,
            origin="web",
            room=self.room,
            played_at=self.played_at,
        )


def record_bytes(record: GameRecord, moves_per_piece: int = 1000) -> bytes:
    """Return a record as JSON (as ``json.dumps`` writes it), its moves encoded a piece at a time."""
    # one json.dumps of 100,000 moves is one C call that holds the GIL for seconds: in a thread of the server
    # the event loop's thread waits all along; between pieces it gets its turn
    data = record.to_json()
    keys = list(data)
    at = keys.index("moves")
    head = json.dumps({key: data[key] for key in keys[:at]})[:-1]
    tail = json.dumps({key: data[key] for key in keys[at + 1 :]})[1:]
    moves = data["moves"]
    pieces = [json.dumps(moves[i : i + moves_per_piece])[1:-1] for i in range(0, len(moves), moves_per_piece)]
    text = f'{head}, "moves": [{", ".join(pieces)}]{", " + tail if tail != "}" else tail}'
    return text.encode()


def verification(record: GameRecord) -> dict[str, Any]:
    """Return a record's verification and its dice statistics as JSON-ready data."""
    checked, statistics = verify_and_count(record)
    if statistics is None:  # the seed is secret (a running game) or the record does not hold: its recorded throws
        statistics = record_dice_statistics([record])
    digest = None if record.commitment is None else record.commitment.digest
    return {**checked.to_json(), "dice": statistics.to_json(), "commitment_digest": digest}


def verify_order(order: RecordOrder) -> dict[str, Any]:
    """Return the verification of the game ``order`` describes (in a worker process)."""
    return verification(order.record())


def write_record(order: RecordOrder, folder: str) -> str:
    """Write the record of the game ``order`` describes to a new file in ``folder`` (in a worker process); return
    its path."""
    body = record_bytes(order.record(), moves_per_piece=10**9)  # no event loop here: one piece
    path = Path(folder) / f"{order.room}-{os.getpid()}-{os.urandom(6).hex()}.json"
    path.write_bytes(body)
    return str(path)


def open_record(path: str) -> tuple[IO[bytes], int]:
    """Open a record file written by a worker and remove its name (the open file stays readable until closed);
    return it and its size in bytes."""
    stream = open(path, "rb")  # noqa: SIM115 (the caller streams it and closes it)
    os.unlink(path)
    return stream, os.fstat(stream.fileno()).st_size


def pieces(stream: IO[bytes], size: int = RECORD_PIECE) -> Iterator[bytes]:
    """Yield an open file's bytes ``size`` at a time, closing it at the end (or when the reader goes away)."""
    with stream:
        while piece := stream.read(size):
            yield piece


def long_jobs_worker(server: int) -> None:
    """Set a worker up: it dies with the server and leaves Ctrl-C to it (``quiet_worker``), and it runs at a lower
    priority than the server, whose event loop then gets a core as soon as it has something to do."""
    quiet_worker(server)
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not allowed here: the worker runs at the server's priority
        pass


class LongJobs(WorkerPool):
    """A process pool for long games' records and verifications, with one shared job per room and step."""

    busy_message = "the server is busy with other long games; try again in a minute"

    def __init__(self, workers: int = 1, max_jobs: int = 4, threshold: int = LONG_GAME) -> None:
        super().__init__(workers, max_jobs, long_jobs_worker, "pigdice-web-records-")
        self.threshold = threshold  # moves from which a game's jobs go to the worker

    def start(self) -> None:
        """Start the worker now (it imports the engine), so that a long game's first job does not wait for it."""
        with workers_ignore_ctrl_c():
            self._pool().submit(int)

    def is_long(self, order: RecordOrder) -> bool:
        """Return True if the game ``order`` describes is long enough for a worker process."""
        return order.moves >= self.threshold

    async def verify(self, order: RecordOrder) -> dict[str, Any]:
        """Return the verification of the game ``order`` describes: a long game's computed in a worker."""
        if not self.is_long(order):  # a short replay, in a thread
            return await asyncio.to_thread(without_collection, lambda: verification(order.record()))
        result: dict[str, Any] = await self.run(order.key("verify"), verify_order, order)
        return result

    async def record(self, order: RecordOrder) -> tuple[Iterator[bytes], int]:
        """Return the record of the game ``order`` describes, as pieces of JSON to send, and its size in bytes: a
        long game's written to a file by a worker and read back a piece at a time."""
        if not self.is_long(order):
            body = await asyncio.to_thread(without_collection, lambda: record_bytes(order.record()))
            return iter([body]), len(body)
        path: str = await self.run(f"{order.key('record')}:{os.urandom(6).hex()}", write_record, order, self.folder())
        stream, size = await asyncio.to_thread(open_record, path)
        return pieces(stream), size

    async def run(self, key: str, work: Callable[..., T], *args: Any) -> T:
        """Return ``work(*args)`` computed in a worker (``work`` is pickled by name); requests with the same ``key``
        share the job, and one whose worker died is tried once more in a fresh worker."""
        for attempt in (1, 2):
            try:
                return await asyncio.shield(self._submit(key, work, *args))
            except BrokenProcessPool:
                self._forget_broken_pool()
                log.warning("a long game's worker died during job %s (attempt %d)", key, attempt)
        raise WebError("busy", "the server could not finish this long game's work; try again", 503)
