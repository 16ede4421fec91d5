"""Persistence: games as seed + action log (with their events) in SQLite or PostgreSQL (SQLAlchemy 2 Core).

A move is written (action, events, new step) in one transaction before anyone is told about it, so a server
killed at any moment loses nothing that a player saw. The tables and their upgrades live in ``schema``, the
records and the checks of a stored row in ``records``; ``Store.migrate`` creates or upgrades the tables. Every
storage fault comes out as a ``StoreError`` naming the operation and the database; a stored game that cannot be
decoded is a ``DamagedGameError`` and can be quarantined (kept, but never loaded at start again).

A server database is given bounds: a connection is refused after ``CONNECT_SECONDS`` and a statement cancelled
after ``STATEMENT_MS`` (the database enforces it), and a connection from the pool is waited for at most
``POOL_SECONDS``. Faults are logged once per ``FaultLog`` interval, with a count of the others, not per request.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Select,
    and_,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from pigdice.errors import PigdiceError
from pigdice.web.records import BadRow, GameRecord, MoveRecord, MoveWrite, SeatRecord, decode_game
from pigdice.web.schema import (
    ABORTED,
    ACTIVE,
    CLOSED,
    EXPIRED,
    FINISHED,
    QUARANTINED,
    SCHEMA_VERSION,
    UPGRADES,
    found_version,
    games_table,
    metadata,
    moves_table,
    schema_table,
    seats_table,
)

__all__ = [
    "SCHEMA_VERSION",
    "DamagedGameError",
    "DriverStatement",
    "FaultLog",
    "GameAheadError",
    "GameClosedError",
    "GameRecord",
    "MoveRecord",
    "MoveWrite",
    "SeatRecord",
    "Store",
    "StoreError",
    "faults",
    "games_table",
    "metadata",
    "moves_table",
    "open_engine",
    "schema_table",
    "seats_table",
]

CHECKPOINT_MODES = ("PASSIVE", "FULL", "RESTART", "TRUNCATE")
# a blocking checkpoint holds the write lock while it waits for readers: wait briefly, and try again next time
CHECKPOINT_WAIT_MS = 100
BUSY_TIMEOUT_MS = 5000
CONNECT_SECONDS = 5  # a server database that does not accept a connection within this is down
STATEMENT_MS = 10_000  # a statement running longer is cancelled by the database (a lock held, a frozen writer)
POOL_SECONDS = 5  # waiting for a free connection of the pool (all of them stuck: the database is frozen)
FAULT_LOG_SECONDS = 30.0  # the same storage fault is logged once per this many seconds

# built once: the statements of the hot path (a move is written on every roll and hold)
INSERT_MOVES = insert(moves_table)
_GAME_AT_STEP = (
    games_table.c.id == bindparam("b_id"),
    games_table.c.step == bindparam("b_prev"),
    games_table.c.status == literal_column(f"'{ACTIVE}'"),  # a closed game takes no more moves
)
_ADVANCE: dict[str, Any] = {
    "step": bindparam("b_step"),
    "finished": bindparam("b_finished"),
    "winners": bindparam("b_winners"),
    "updated_at": bindparam("b_now"),
    "to_move": bindparam("b_to_move"),
}
# the status only in the last move's statement: an UPDATE that sets an indexed column rewrites its index entries,
# which made every move write two more pages to SQLite's log (5 instead of 3)
ADVANCE_GAME = update(games_table).where(*_GAME_AT_STEP).values(_ADVANCE)
FINISH_GAME = update(games_table).where(*_GAME_AT_STEP).values({**_ADVANCE, "status": literal_column(f"'{FINISHED}'")})


@dataclass(frozen=True)
class DriverStatement:
    """A Core statement compiled once for a dialect: its SQL text and, for positional drivers, the parameter order.

    The move writes run through ``Connection.exec_driver_sql`` with it: the same SQLAlchemy connection and
    transaction as every other statement, without compiling and binding the statement again on every move.
    """

    sql: str
    order: tuple[str, ...] | None  # None: the driver takes named parameters

    @classmethod
    def of(cls, statement: ClauseElement, dialect: Dialect) -> DriverStatement:
        """Compile ``statement`` for ``dialect``."""
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        return cls(compiled.string, tuple(compiled.positiontup or ()) if compiled.positional else None)

    def bind(self, rows: list[dict[str, Any]]) -> Any:
        """Return the driver parameters for ``rows``: one set for one row, a list of them for executemany."""
        order = self.order
        params = rows if order is None else [tuple(row[name] for name in order) for row in rows]
        return params[0] if len(params) == 1 else params


class StoreError(PigdiceError):
    """The database could not be opened, is of a newer schema, or refused a read or a write."""


class DamagedGameError(StoreError):
    """A stored game whose row cannot be decoded (bad JSON, bad types, missing seats or moves, bad text)."""

    def __init__(self, code: str, game_id: int, reason: str) -> None:
        super().__init__(f"game {code} (id {game_id}) is damaged: {reason}")
        self.code = code
        self.game_id = game_id
        self.reason = reason


class GameAheadError(StoreError):
    """Moves of a game that the database holds past the step a room knows: a commit reported failed went through
    after all, and the room must read them (``moves`` are the stored ones from the room's next step on)."""

    def __init__(self, code: str, moves: list[MoveRecord]) -> None:
        super().__init__(f"game {code} holds {len(moves)} more stored moves than the room knew")
        self.code = code
        self.moves = moves


class FaultLog:
    """Log a fault once per ``interval`` seconds for each kind of fault, then say how many more came meanwhile:
    20 s of a database outage is a few lines, not thousands of tracebacks."""

    def __init__(self, logger: logging.Logger, interval: float = FAULT_LOG_SECONDS) -> None:
        self.logger = logger
        self.interval = interval
        self._last: dict[str, tuple[float, int]] = {}  # kind -> (when last logged, how many were not since)
        self._lock = threading.Lock()

    def __call__(self, kind: str, message: str, *args: Any, exc_info: bool = False) -> bool:
        """Log ``message % args`` as an error unless a fault of this ``kind`` was logged within the interval;
        return True if it was logged."""
        now = time.monotonic()
        with self._lock:
            last, quiet = self._last.get(kind, (-self.interval, 0))
            if now - last < self.interval:
                self._last[kind] = (last, quiet + 1)
                return False
            self._last[kind] = (now, 0)
            while len(self._last) > 1000:  # kinds are few; a bound all the same
                self._last.pop(next(iter(self._last)))
        more = f" (and {quiet} more like it in the last {now - last:.0f} s)" if quiet else ""
        self.logger.error(message + more, *args, exc_info=exc_info)
        return True


faults = FaultLog(logging.getLogger("pigdice.web"))  # the web server's storage faults, once per interval


class GameClosedError(StoreError):
    """A move for a game that is finished, expired or quarantined."""

    def __init__(self, code: str, status: str, reason: str | None) -> None:
        super().__init__(f"game {code} is {status}" + (f" ({reason})" if reason else "") + "; it takes no moves")
        self.code = code
        self.status = status
        self.reason = reason


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # WAL + NORMAL: a commit survives a killed process (kill -9); only a power cut may lose the last ones
    if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        _switch_to_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # no checkpoints on the write path (they fsync): Store.checkpoint runs them from a background thread
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


def _switch_to_wal(cursor: Any) -> None:
    """Switch a database to WAL, retrying while another connection holds a lock (SQLite does not wait there)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except Exception as exc:  # the driver's OperationalError
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def open_engine(url: str) -> Engine:
    """Return an engine for ``url`` (SQLite files get WAL; in-memory SQLite one shared connection)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"cannot read database URL {url!r}; e.g. sqlite:///path/pigdice.sqlite3") from None
    try:
        if parsed.get_backend_name() == "sqlite":
            kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
            if _is_memory(parsed.database):
                kwargs["poolclass"] = StaticPool
            engine = create_engine(url, **kwargs)
            event.listen(engine, "connect", _sqlite_pragmas)
            return engine
        kwargs = {"connect_args": _server_timeouts(parsed)} if parsed.get_backend_name() == "postgresql" else {}
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5, pool_timeout=POOL_SECONDS, **kwargs)
    except ImportError as exc:
        raise StoreError(
            f"no database driver for {parsed.drivername}: {exc}; for PostgreSQL install pip install 'pigdice[postgres]'"
        ) from None
    except ArgumentError as exc:
        raise StoreError(f"cannot use database URL {url!r}: {exc}") from None


def _server_timeouts(parsed: Any) -> dict[str, Any]:
    """Return the connection arguments that bound a PostgreSQL server: the connect timeout and, through the
    libpq options, the statement timeout (any the URL sets itself win)."""
    query = dict(parsed.query)
    args: dict[str, Any] = {}
    if "connect_timeout" not in query:
        args["connect_timeout"] = CONNECT_SECONDS
    if "options" not in query:
        args["options"] = f"-c statement_timeout={STATEMENT_MS}"
    return args


def _is_memory(database: str | None) -> bool:
    return database in (None, "", ":memory:")


# what the database's own words mean for whoever runs the server
_HINTS = (
    ("file is not a database", "the file is not an SQLite database"),
    ("unable to open database file", "check that the path is a file in an existing folder that can be written"),
    ("readonly database", "the file or its folder is read-only"),
    ("disk is full", "free some disk space"),
    ("disk i/o error", "the disk failed or is full"),
    ("database is locked", "another process holds a lock on it"),
)


def _fault_reason(exc: SQLAlchemyError) -> str:
    """Return the driver's first line for ``exc`` with a hint of what to do."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip()
    reason = text.splitlines()[0].strip() if text else type(exc).__name__
    hints = [hint for words, hint in _HINTS if words in reason.lower()]
    return f"{reason} ({hints[0]})" if hints else reason


_UNDECODABLE = re.compile(r"Could not decode to UTF-8 column '([^']*)'")


def _undecodable_column(exc: SQLAlchemyError) -> str | None:
    """Return the column named by SQLite's "not valid UTF-8" error, or None for any other error."""
    match = _UNDECODABLE.search(str(getattr(exc, "orig", "")))
    return match.group(1) if match else None


class _NotAdvanced(Exception):
    """A move whose game did not advance (rolls the batch back)."""


def _open_games() -> ColumnElement[bool]:
    g = games_table.c
    return and_(g.status == ACTIVE, g.finished.is_(False))


def robot_turn_query(limit: int) -> Select[tuple[str]]:
    """Return the query of Store.robot_turn_codes (one statement: the status index, then two seat look-ups)."""
    g = games_table.c
    s = seats_table.c
    robot_to_move = select(s.seat).where(s.game_id == g.id, s.seat == g.to_move, s.kind == "robot").exists()
    open_seat = select(s.seat).where(s.game_id == g.id, s.kind == "human", s.token_hash.is_(None)).exists()
    return (
        select(g.code)
        .where(_open_games(), or_(g.to_move.is_(None), and_(robot_to_move, ~open_seat)))
        .order_by(g.updated_at.desc())
        .limit(limit)
    )


def _duration(seconds: float) -> str:
    """Return ``seconds`` in words, rounded to the largest unit: "7 days", "3 hours", "45 seconds"."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = round(seconds / size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    n = max(0, round(seconds))
    return f"{n} second{'s' if n != 1 else ''}"


class Store:
    """Games, seats and moves in one database; every method is a short synchronous transaction."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = open_engine(url)
        self._hot = (
            DriverStatement.of(INSERT_MOVES, self.engine.dialect),
            DriverStatement.of(ADVANCE_GAME, self.engine.dialect),
            DriverStatement.of(FINISH_GAME, self.engine.dialect),
        )
        self._moves: Connection | None = None  # SQLite: one connection kept open for the hot path (moves)
        self._wal_path: str | None = None  # SQLite: the write-ahead log's file ('' in memory), found on first use

    @property
    def is_sqlite(self) -> bool:
        """Return True for SQLite (writes are serialised through one thread)."""
        return self.engine.dialect.name == "sqlite"

    def safe_url(self) -> str:
        """Return the database URL with any password hidden."""
        return make_url(self.url).render_as_string(hide_password=True)

    @contextmanager
    def _faults(self, doing: str) -> Iterator[None]:
        """Turn a database error inside the block into a StoreError: "cannot {doing} the database {url}: why"."""
        try:
            yield
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot {doing} the database {self.safe_url()}: {_fault_reason(exc)}") from exc

    # -- schema ----------------------------------------------------------------------------
    def migrate(self) -> int:
        """Create the tables or upgrade older ones in place, in one transaction; return the version in use.

        Raises StoreError (one line) for a database that cannot be opened or written, or of a newer schema.
        """
        self._check_sqlite_path()
        with self._faults("open"), self.engine.connect() as conn, conn.begin():
            self._lock_schema(conn)
            version = found_version(conn)
            if version is not None and version > SCHEMA_VERSION:
                raise StoreError(
                    f"the database {self.safe_url()} has schema version {version}, newer than this pigdice "
                    f"({SCHEMA_VERSION}); upgrade pigdice"
                )
            for old in range(version or SCHEMA_VERSION, SCHEMA_VERSION):
                UPGRADES[old](conn)
            metadata.create_all(conn)  # a new database, or tables an upgrade did not touch
            if version != SCHEMA_VERSION:
                conn.execute(insert(schema_table).values(version=SCHEMA_VERSION, applied_at=time.time()))
            else:  # a write on every start: a read-only database fails here, not at the first move
                latest = select(func.max(schema_table.c.id)).scalar_subquery()
                conn.execute(
                    update(schema_table).where(schema_table.c.id == latest).values(applied_at=schema_table.c.applied_at)
                )
        return SCHEMA_VERSION

    def _check_sqlite_path(self) -> None:
        """Refuse, with a clear line, a SQLite path that is a folder or lies in a folder that does not exist."""
        database = self.engine.url.database
        if not self.is_sqlite or _is_memory(database) or database is None or database.startswith("file:"):
            return
        path = Path(database)
        why = None
        if path.is_dir():
            why = f"{path} is a folder, not a database file"
        elif not path.parent.is_dir():
            why = f"the folder {path.parent} does not exist"
        if why:
            raise StoreError(f"cannot open the database {self.safe_url()}: {why}")

    def _lock_schema(self, conn: Connection) -> None:
        """Take the lock that makes two servers starting at once migrate one after the other."""
        if self.is_sqlite:
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # pysqlite would begin only at the first INSERT/UPDATE
        elif self.engine.dialect.name == "postgresql":
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7370616)")

    # -- writes ----------------------------------------------------------------------------
    def create_game(self, record: GameRecord) -> int:
        """Insert a new, active game with its seats (and its seat to move and creator); return its id."""
        now = time.time()
        with self._faults("create a game in"), self.engine.begin() as conn:
            result = conn.execute(
                insert(games_table).values(
                    code=record.code,
                    variant=record.variant,
                    goal=record.goal,
                    endgame=record.endgame,
                    ties=record.ties,
                    final_turn=record.final_turn,
                    params=json.dumps(record.params),
                    fingerprint=record.fingerprint,
                    players=len(record.seats),
                    seed=record.seed,
                    step=0,
                    finished=False,
                    winners=None,
                    created_at=now,
                    updated_at=now,
                    status=ACTIVE,
                    to_move=record.to_move,
                    creator=record.creator,
                    salt=record.salt,
                )
            )
            key = result.inserted_primary_key
            if key is None:
                raise StoreError("the database returned no id for the new game")
            game_id = int(key[0])
            conn.execute(
                insert(seats_table),
                [
                    {
                        "game_id": game_id,
                        "seat": s.seat,
                        "kind": s.kind,
                        "spec": s.spec,
                        "name": s.name,
                        "token_hash": s.token_hash,
                        "claimed_at": now if s.token_hash else None,
                    }
                    for s in record.seats
                ],
            )
        record.id = game_id
        return game_id

    def claim_seat(self, game_id: int, seat: int, name: str, token_hash: str) -> bool:
        """Give an open human seat its token hash and name; return False if it was taken meanwhile."""
        with self._faults("claim a seat in"), self.engine.begin() as conn:
            result = conn.execute(
                update(seats_table)
                .where(
                    seats_table.c.game_id == game_id,
                    seats_table.c.seat == seat,
                    seats_table.c.kind == "human",
                    seats_table.c.token_hash.is_(None),
                )
                .values(token_hash=token_hash, name=name, claimed_at=time.time())
            )
            return result.rowcount == 1

    def free_seat(self, game_id: int, seat: int) -> None:
        """Open a person's seat for anyone to take (its token no longer acts for it)."""
        with self._faults("free a seat in"), self.engine.begin() as conn:
            conn.execute(
                update(seats_table)
                .where(seats_table.c.game_id == game_id, seats_table.c.seat == seat, seats_table.c.kind == "human")
                .values(token_hash=None, claimed_at=None)
            )

    def rename_seats(self, game_id: int, names: list[str]) -> None:
        """Store new display names for a game's seats (in seat order)."""
        with self._faults("rename seats in"), self.engine.begin() as conn:
            for seat, name in enumerate(names):
                conn.execute(
                    update(seats_table)
                    .where(seats_table.c.game_id == game_id, seats_table.c.seat == seat)
                    .values(name=name)
                )

    def link_rematch(self, game_id: int, next_code: str) -> None:
        """Store the code of a finished game's rematch (everyone who opens the old game is sent on to it)."""
        with self._faults("link a rematch in"), self.engine.begin() as conn:
            conn.execute(update(games_table).where(games_table.c.id == game_id).values(next_code=next_code))

    def abort_game(self, code: str, reason: str) -> bool:
        """Close an active game as 'aborted' (called off before it began); return False if it was not active."""
        return self.close_game(code, ABORTED, reason)

    def set_to_move(self, game_id: int, to_move: int | None) -> None:
        """Store the seat whose move it is (for a game stored without one, once it has been replayed)."""
        with self._faults("update a game in"), self.engine.begin() as conn:
            conn.execute(update(games_table).where(games_table.c.id == game_id).values(to_move=to_move))

    def record_moves(self, moves: list[MoveWrite]) -> None:
        """Append moves of different games and advance each game, all in one transaction (group commit).

        A game may have several moves in a batch if they follow each other (steps N, N+1, ...: the choices of
        one Swine Herd moment); the game then advances once, to its last move's step and outcome.

        Raises GameClosedError for a game that is finished, expired or quarantined, and StoreError for a move
        that does not follow its game's stored step or a database that refused the write; nothing is written then.
        """
        if not moves:
            return
        firsts: dict[int, MoveWrite] = {}
        lasts: dict[int, MoveWrite] = {}
        for m in moves:
            before = lasts.get(m.game_id)
            if before is not None and m.step != before.step + 1:
                raise StoreError("a game's moves in one batch must follow each other, step after step")
            firsts.setdefault(m.game_id, m)
            lasts[m.game_id] = m
        now = time.time()
        rows = [
            {
                "game_id": m.game_id,
                "step": m.step,
                "seat": m.seat,
                "action": m.action,
                "events": json.dumps(m.events, separators=(",", ":")),
                "created_at": now,
            }
            for m in moves
        ]
        advances = [
            {
                "b_id": m.game_id,
                "b_prev": firsts[m.game_id].step - 1,
                "b_step": m.step,
                "b_finished": m.finished,
                "b_winners": None if m.winners is None else json.dumps(m.winners),
                "b_now": now,
                "b_to_move": None if m.finished else m.to_move,
            }
            for m in lasts.values()
        ]
        try:
            if self.is_sqlite:  # one connection kept open: no pool check-out per move (the hot path)
                conn = self._moves_connection()
                with conn.begin():
                    self._write_moves(conn, rows, advances)
            else:
                with self.engine.begin() as conn:
                    self._write_moves(conn, rows, advances)
        except (IntegrityError, _NotAdvanced):
            # a step already stored, a game that does not exist or is closed: nothing was written; say which
            raise self._refusal(list(firsts.values())) from None
        except SQLAlchemyError as exc:
            if self._moves is not None and self._moves.invalidated:
                self._moves.close()
                self._moves = None
            raise StoreError(f"cannot record moves in the database {self.safe_url()}: {_fault_reason(exc)}") from exc

    def _moves_connection(self) -> Connection:
        """Return the connection kept open for SQLite's move writes (opened on first use)."""
        if self._moves is None:
            self._moves = self.engine.connect()
        return self._moves

    def _write_moves(self, conn: Connection, rows: list[dict[str, Any]], advances: list[dict[str, Any]]) -> None:
        """Insert the moves and advance their games (the caller's transaction commits or rolls back both)."""
        insert_moves, advance_game, finish_game = self._hot
        conn.exec_driver_sql(insert_moves.sql, insert_moves.bind(rows))
        finishing = [a for a in advances if a["b_finished"]]
        ongoing = [a for a in advances if not a["b_finished"]] if finishing else advances
        for statement, group in ((advance_game, ongoing), (finish_game, finishing)):
            if group and conn.exec_driver_sql(statement.sql, statement.bind(group)).rowcount != len(group):
                raise _NotAdvanced

    def _refusal(self, moves: list[MoveWrite]) -> StoreError:
        """Return the error that says why a batch of moves was refused (a closed game, a wrong step, no game)."""
        g = games_table.c
        with self._faults("record moves in"), self.engine.connect() as conn:
            found = {
                r.id: r
                for r in conn.execute(
                    select(g.id, g.code, g.step, g.status, g.closed_reason).where(g.id.in_([m.game_id for m in moves]))
                )
            }
        for m in moves:
            row = found.get(m.game_id)
            if row is None:
                return StoreError(f"no game has id {m.game_id}")
            if row.status not in (ACTIVE, None):
                return GameClosedError(row.code, row.status, row.closed_reason)
            if row.step >= m.step:
                return StoreError(f"move {m.step} of game {row.code} was already recorded")
            if row.step != m.step - 1:
                return StoreError(f"move {m.step} of game {row.code} does not follow its stored step {row.step}")
        return StoreError("a move does not follow its game's stored step")

    def moves_after(self, game_id: int, step: int, limit: int = 100) -> list[MoveRecord]:
        """Return the stored moves of a game after ``step`` (at most ``limit``), in order: what a room reads back
        when a write it was told had failed may have gone through."""
        m = moves_table.c
        query = (
            select(m.step, m.seat, m.action, m.events)
            .where(m.game_id == game_id, m.step > step)
            .order_by(m.step)
            .limit(limit)
        )
        with self._faults("read moves from"), self.engine.connect() as conn:
            rows = conn.execute(query).all()
        moves = []
        for row in rows:
            try:
                events = json.loads(row.events)
            except (TypeError, ValueError):
                raise StoreError(f"move {row.step} of game id {game_id} has damaged events") from None
            moves.append(MoveRecord(int(row.step), int(row.seat), str(row.action), events))
        return moves

    def close_game(self, code: str, status: str, reason: str) -> bool:
        """Close an active game as 'expired', 'quarantined' or 'aborted' with a reason; return False if it was not
        active."""
        if status not in CLOSED:
            raise StoreError(f"a game is closed as one of {', '.join(CLOSED)}, not {status!r}")
        g = games_table.c
        with self._faults(f"close game {code} in"), self.engine.begin() as conn:
            result = conn.execute(
                update(games_table)
                .where(g.code == code, g.status == ACTIVE)
                .values(status=status, closed_reason=reason, closed_at=time.time(), to_move=None)
            )
            return result.rowcount == 1

    def quarantine(self, code_or_id: str | int, reason: str) -> None:
        """Mark a game (by code, or by id) quarantined with a reason, whatever its status; nothing is deleted."""
        g = games_table.c
        which = g.id == code_or_id if isinstance(code_or_id, int) else g.code == code_or_id
        with self._faults(f"quarantine game {code_or_id} in"), self.engine.begin() as conn:
            result = conn.execute(
                update(games_table).where(which).values(status=QUARANTINED, closed_reason=reason, closed_at=time.time())
            )
            if result.rowcount != 1:
                raise StoreError(f"no game {code_or_id!r} to quarantine")

    def expire_idle(self, idle_before: float, robot_only_before: float | None = None) -> list[str]:
        """Mark 'expired' every active game with no move since ``idle_before`` and, if given, every robot-only game
        created before ``robot_only_before``; return their codes (nothing is deleted)."""
        now = time.time()
        g = games_table.c
        with self._faults("expire games in"), self.engine.begin() as conn:
            codes = self._close_where(conn, g.updated_at < idle_before, f"no move for {_duration(now - idle_before)}")
            if robot_only_before is not None:
                humans = select(seats_table.c.seat).where(seats_table.c.game_id == g.id, seats_table.c.kind == "human")
                robots_only = and_(g.created_at < robot_only_before, ~humans.exists())
                codes += self._close_where(
                    conn, robots_only, f"robots alone for over {_duration(now - robot_only_before)}"
                )
        return codes

    def _close_where(self, conn: Connection, condition: ColumnElement[bool], reason: str) -> list[str]:
        """Expire the open games matching ``condition``; return their codes."""
        g = games_table.c
        where = and_(_open_games(), condition)
        values = {"status": EXPIRED, "closed_reason": reason, "closed_at": time.time(), "to_move": None}
        if self.engine.dialect.update_returning:
            return list(conn.scalars(update(games_table).where(where).values(**values).returning(g.code)))
        codes: list[str] = list(conn.scalars(select(g.code).where(where)))  # without RETURNING (SQLite before 3.35)
        conn.execute(update(games_table).where(g.code.in_(codes), g.status == ACTIVE).values(**values))
        return codes

    # -- reads -----------------------------------------------------------------------------
    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """Yield a connection whose reads all see one snapshot (a game's row, seats and moves agree)."""
        with self.engine.connect() as conn:
            if self.is_sqlite:  # pysqlite begins no transaction for reads: each SELECT would see the latest commit
                conn.exec_driver_sql("BEGIN")
            elif self.engine.dialect.name == "postgresql":
                conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    def load_game(self, code: str) -> GameRecord | None:
        """Return the stored game with this code (seats and moves included, whatever its status), or None.

        Raises DamagedGameError (naming the game and what is wrong) for a game whose rows cannot be decoded.
        """
        g = games_table.c
        with self._faults(f"load game {code} from"), self._snapshot() as conn:
            game_id = conn.scalar(select(g.id).where(g.code == code))
            if game_id is None:
                return None
            try:
                row = conn.execute(select(games_table).where(g.id == game_id)).mappings().one()
                seats = (
                    conn.execute(
                        select(seats_table).where(seats_table.c.game_id == game_id).order_by(seats_table.c.seat)
                    )
                    .mappings()
                    .all()
                )
                query = select(moves_table).where(moves_table.c.game_id == game_id).order_by(moves_table.c.step)
                # a thousand rows at a time: fetching 100,000 in one call holds the GIL for half a second
                moves = [r for rows in conn.execute(query).mappings().partitions(1000) for r in rows]
            except OperationalError as exc:
                column = _undecodable_column(exc)
                if column is None:
                    raise
                raise DamagedGameError(code, int(game_id), f"{column} is not valid UTF-8 text") from None
        try:
            return decode_game(row, seats, moves)
        except BadRow as exc:
            raise DamagedGameError(code, int(game_id), str(exc)) from None

    def robot_turn_codes(self, limit: int = 10_000) -> list[str]:
        """Return the codes of the active games a robot must carry on at start, most recently active first.

        Those whose seat to move is a robot with every human seat taken, and those whose seat to move is unknown
        (stored before schema 2: load them once so the server can store it).
        """
        with self._faults("list games in"), self.engine.connect() as conn:
            return list(conn.scalars(robot_turn_query(limit)))

    def unfinished_codes(self, limit: int = 10_000) -> list[str]:
        """Return the codes of active games not yet over, most recently active first."""
        g = games_table.c
        query = select(g.code).where(_open_games()).order_by(g.updated_at.desc()).limit(limit)
        with self._faults("list games in"), self.engine.connect() as conn:
            return list(conn.scalars(query))

    def count_open_games(self, creator: str | None = None) -> int:
        """Return how many games are active and not over (of one creator, if given)."""
        query = select(func.count()).select_from(games_table).where(_open_games())
        if creator is not None:
            query = query.where(games_table.c.creator == creator)
        with self._faults("count games in"), self.engine.connect() as conn:
            return int(conn.scalar(query) or 0)

    # -- SQLite's write-ahead log ------------------------------------------------------------
    def checkpoint(self, mode: str = "PASSIVE") -> int:
        """Copy the SQLite write-ahead log into the database file; return the log's size in bytes after it.

        PASSIVE never blocks writers; TRUNCATE (also FULL, RESTART) holds the write lock while it copies what
        is left and empties the log, waiting at most CHECKPOINT_WAIT_MS for readers. Other databases: 0.
        """
        mode = mode.upper()
        if mode not in CHECKPOINT_MODES:
            raise StoreError(f"a checkpoint mode is one of {', '.join(CHECKPOINT_MODES)}, not {mode!r}")
        if not self.is_sqlite:
            return 0
        with self._faults("checkpoint"), self.engine.connect() as conn:
            if mode == "PASSIVE":
                conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").all()
            else:
                conn.exec_driver_sql(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
                try:
                    conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})").all()
                finally:
                    conn.exec_driver_sql(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        return self.wal_bytes()

    def wal_bytes(self) -> int:
        """Return the size of SQLite's write-ahead log file in bytes (0 without one, and for other databases)."""
        if not self.is_sqlite:
            return 0
        if self._wal_path is None:
            with self._faults("read the file name of"), self.engine.connect() as conn:
                files = {row[1]: row[2] for row in conn.exec_driver_sql("PRAGMA database_list")}
            main = files.get("main") or ""
            self._wal_path = f"{main}-wal" if main else ""
        if not self._wal_path:
            return 0
        try:
            return os.path.getsize(self._wal_path)
        except OSError:
            return 0

    def close(self) -> None:
        """Release the database connections."""
        if self._moves is not None:
            self._moves.close()
            self._moves = None
        self.engine.dispose()
