"""Persistence: games as seed + action log (with their events) in SQLite or PostgreSQL (SQLAlchemy 2).

A move is written (action, events, new step) in one transaction before anyone is told about
it, so a server killed at any moment loses nothing that a player saw. The schema carries a
version number in ``pigdice_schema``; tables are created on start.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from pigdice.errors import PigdiceError

SCHEMA_VERSION = 1

metadata = MetaData()

schema_table = Table(
    "pigdice_schema",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("applied_at", Float, nullable=False),
)

games_table = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(64), nullable=False, unique=True),
    Column("variant", String(64), nullable=False),
    Column("goal", Integer, nullable=False),
    Column("endgame", String(32), nullable=False),
    Column("ties", String(32), nullable=False),
    Column("final_turn", String(32), nullable=False),
    Column("params", Text, nullable=False),  # JSON object of variant parameters
    Column("fingerprint", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("step", Integer, nullable=False, default=0),
    Column("finished", Boolean, nullable=False, default=False),
    Column("winners", Text, nullable=True),  # JSON list once finished
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)

seats_table = Table(
    "seats",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),  # human | robot
    Column("spec", String(64), nullable=False),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=True),  # sha256 of the seat's secret token
    Column("claimed_at", Float, nullable=True),
)

moves_table = Table(
    "moves",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("step", Integer, primary_key=True),  # 1 for the first action
    Column("seat", Integer, nullable=False),
    Column("action", String(32), nullable=False),
    Column("events", Text, nullable=False),  # JSON list of event_to_json dicts
    Column("created_at", Float, nullable=False),
)


# built once: the statements of the hot path (a move is written on every roll and hold)
INSERT_MOVES = insert(moves_table)
ADVANCE_GAME = (
    update(games_table)
    .where(games_table.c.id == bindparam("b_id"), games_table.c.step == bindparam("b_prev"))
    .values(
        step=bindparam("b_step"),
        finished=bindparam("b_finished"),
        winners=bindparam("b_winners"),
        updated_at=bindparam("b_now"),
    )
)


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
    """The database could not be opened, is of a newer schema, or refused a write."""


@dataclass
class SeatRecord:
    """One stored seat."""

    seat: int
    kind: str
    spec: str
    name: str
    token_hash: str | None = None


@dataclass
class MoveRecord:
    """One stored action and the events it produced."""

    step: int
    seat: int
    action: str
    events: list[dict[str, Any]]


@dataclass
class MoveWrite:
    """One move to append: the game, its new step, who acted, the action, events and the outcome."""

    game_id: int
    step: int
    seat: int
    action: str
    events: list[dict[str, Any]]
    finished: bool = False
    winners: list[int] | None = None


@dataclass
class GameRecord:
    """One stored game: how to rebuild the variant, the seed, the seats and the move log."""

    code: str
    variant: str
    goal: int
    endgame: str
    ties: str
    final_turn: str
    params: dict[str, Any]
    fingerprint: str
    seed: int
    seats: list[SeatRecord]
    id: int = 0
    step: int = 0
    finished: bool = False
    moves: list[MoveRecord] = field(default_factory=list)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL + NORMAL: a commit survives a killed process (kill -9); only a power cut may lose the last ones
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    # no checkpoints on the write path (they fsync): Store.checkpoint runs them from a background thread
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


def open_engine(url: str) -> Engine:
    """Return an engine for ``url`` (SQLite files get WAL; in-memory SQLite one shared connection)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"cannot read database URL {url!r}; e.g. sqlite:///path/pigdice.sqlite3") from None
    try:
        if parsed.get_backend_name() == "sqlite":
            memory = parsed.database in (None, "", ":memory:")
            kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
            if memory:
                kwargs["poolclass"] = StaticPool
            engine = create_engine(url, **kwargs)
            event.listen(engine, "connect", _sqlite_pragmas)
            return engine
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
    except ImportError as exc:
        raise StoreError(
            f"no database driver for {parsed.drivername}: {exc}; for PostgreSQL install pip install 'pigdice[postgres]'"
        ) from None
    except ArgumentError as exc:
        raise StoreError(f"cannot use database URL {url!r}: {exc}") from None


class Store:
    """Games, seats and moves in one database; every method is a short synchronous transaction."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = open_engine(url)
        self._hot = (
            DriverStatement.of(INSERT_MOVES, self.engine.dialect),
            DriverStatement.of(ADVANCE_GAME, self.engine.dialect),
        )
        self._moves: Connection | None = None  # SQLite: one connection kept open for the hot path (moves)

    @property
    def is_sqlite(self) -> bool:
        """Return True for SQLite (writes are serialised through one thread)."""
        return self.engine.dialect.name == "sqlite"

    def migrate(self) -> int:
        """Create missing tables and check the schema version; return the version in use."""
        try:
            metadata.create_all(self.engine)
            with self.engine.begin() as conn:
                row = conn.execute(select(schema_table.c.version).order_by(schema_table.c.id.desc())).first()
                if row is None:
                    conn.execute(insert(schema_table).values(version=SCHEMA_VERSION, applied_at=time.time()))
                    return SCHEMA_VERSION
                version = int(row[0])
        except OperationalError as exc:
            raise StoreError(f"cannot open the database {self.safe_url()}: {exc.orig}") from None
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the database {self.safe_url()} has schema version {version}, newer than this pigdice "
                f"({SCHEMA_VERSION}); upgrade pigdice"
            )
        return version

    def safe_url(self) -> str:
        """Return the database URL with any password hidden."""
        return make_url(self.url).render_as_string(hide_password=True)

    def create_game(self, record: GameRecord) -> int:
        """Insert a new game with its seats; return its id."""
        now = time.time()
        with self.engine.begin() as conn:
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
        with self.engine.begin() as conn:
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

    def rename_seats(self, game_id: int, names: list[str]) -> None:
        """Store new display names for a game's seats (in seat order)."""
        with self.engine.begin() as conn:
            for seat, name in enumerate(names):
                conn.execute(
                    update(seats_table)
                    .where(seats_table.c.game_id == game_id, seats_table.c.seat == seat)
                    .values(name=name)
                )

    def record_moves(self, moves: list[MoveWrite]) -> None:
        """Append moves of different games and advance each game, all in one transaction (group commit)."""
        if not moves:
            return
        if len({m.game_id for m in moves}) != len(moves):
            raise StoreError("a batch may hold one move per game")
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
                "b_prev": m.step - 1,
                "b_step": m.step,
                "b_finished": m.finished,
                "b_winners": None if m.winners is None else json.dumps(m.winners),
                "b_now": now,
            }
            for m in moves
        ]
        try:
            if self.is_sqlite:  # one connection kept open: no pool check-out per move (the hot path)
                conn = self._moves_connection()
                with conn.begin():
                    self._write_moves(conn, rows, advances)
            else:
                with self.engine.begin() as conn:
                    self._write_moves(conn, rows, advances)
        except IntegrityError:
            raise StoreError("a move was already recorded") from None

    def _moves_connection(self) -> Connection:
        """Return the connection kept open for SQLite's move writes (opened on first use)."""
        if self._moves is None:
            self._moves = self.engine.connect()
        return self._moves

    def _write_moves(self, conn: Connection, rows: list[dict[str, Any]], advances: list[dict[str, Any]]) -> None:
        """Insert the moves and advance their games (the caller's transaction commits or rolls back both)."""
        insert_moves, advance_game = self._hot
        conn.exec_driver_sql(insert_moves.sql, insert_moves.bind(rows))
        if conn.exec_driver_sql(advance_game.sql, advance_game.bind(advances)).rowcount != len(advances):
            raise StoreError("a move does not follow its game's stored step")

    def load_game(self, code: str) -> GameRecord | None:
        """Return the stored game with this code (seats and moves included), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(games_table).where(games_table.c.code == code)).mappings().first()
            if row is None:
                return None
            seats = [
                SeatRecord(r["seat"], r["kind"], r["spec"], r["name"], r["token_hash"])
                for r in conn.execute(
                    select(seats_table).where(seats_table.c.game_id == row["id"]).order_by(seats_table.c.seat)
                ).mappings()
            ]
            moves = [
                MoveRecord(r["step"], r["seat"], r["action"], json.loads(r["events"]))
                for r in conn.execute(
                    select(moves_table).where(moves_table.c.game_id == row["id"]).order_by(moves_table.c.step)
                ).mappings()
            ]
        return GameRecord(
            code=row["code"],
            variant=row["variant"],
            goal=row["goal"],
            endgame=row["endgame"],
            ties=row["ties"],
            final_turn=row["final_turn"],
            params=json.loads(row["params"]),
            fingerprint=row["fingerprint"],
            seed=int(row["seed"]),
            seats=seats,
            id=int(row["id"]),
            step=int(row["step"]),
            finished=bool(row["finished"]),
            moves=moves,
        )

    def unfinished_codes(self, limit: int = 10_000) -> list[str]:
        """Return the codes of games not yet over, most recently active first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games_table.c.code)
                .where(games_table.c.finished.is_(False))
                .order_by(games_table.c.updated_at.desc())
                .limit(limit)
            )
            return [r[0] for r in rows]

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """Copy the SQLite write-ahead log into the database file (a no-op for other databases)."""
        if not self.is_sqlite or mode not in ("PASSIVE", "TRUNCATE"):
            return
        with self.engine.connect() as conn:
            conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")

    def close(self) -> None:
        """Release the database connections."""
        if self._moves is not None:
            self._moves.close()
            self._moves = None
        self.engine.dispose()
