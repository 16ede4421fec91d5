"""The database schema: tables, indexes, the version number and the steps that upgrade an older database.

Version 1: games, seats, moves. Version 2 adds to games a status (active, finished, quarantined, expired), why
and when a game was closed, the seat to move and a hash of the creating client, and an index on the status.
Version 3 adds the dice commitment's salt. Version 4 adds the code of a game's rematch (``next_code``); the
status 'aborted' (a game called off before it began) needs no new column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    case,
    inspect,
    select,
    update,
)

SCHEMA_VERSION = 4

ACTIVE = "active"
FINISHED = "finished"
QUARANTINED = "quarantined"
EXPIRED = "expired"
ABORTED = "aborted"
STATUSES = (ACTIVE, FINISHED, QUARANTINED, EXPIRED, ABORTED)
CLOSED = (QUARANTINED, EXPIRED, ABORTED)  # what close_game may set

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
    # version 2 (nullable: added to existing tables by ALTER TABLE)
    Column("status", String(16), nullable=True),  # one of STATUSES
    Column("closed_reason", Text, nullable=True),
    Column("closed_at", Float, nullable=True),
    Column("to_move", Integer, nullable=True),  # the seat whose move it is; NULL when finished or unknown
    Column("creator", String(64), nullable=True),  # a hash of the creating client
    Column("salt", String(64), nullable=True),  # the dice commitment's secret salt (hex); NULL before schema 3
    Column("next_code", String(64), nullable=True),  # the code of the game's rematch, once it started (schema 4)
    # not updated_at: an index on it would be rewritten by every move
    Index("ix_games_status", "status"),
    Index("ix_games_creator", "creator", "status"),
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


def _add_column(conn: Connection, table: str, column: Column[Any]) -> None:
    """Add a nullable column to an existing table (plain ALTER TABLE: SQLite and PostgreSQL alike)."""
    kind = column.type.compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column.name} {kind}")


def _upgrade_1_to_2(conn: Connection) -> None:
    """Games get status, closed_reason, closed_at, to_move and creator; the status comes from ``finished``."""
    for column in (
        Column("status", String(16)),
        Column("closed_reason", Text),
        Column("closed_at", Float),
        Column("to_move", Integer),
        Column("creator", String(64)),
    ):
        _add_column(conn, "games", column)
    games = games_table.c
    conn.execute(update(games_table).values(status=case((games.finished, FINISHED), else_=ACTIVE)))
    for index in games_table.indexes:
        index.create(conn)


def _upgrade_2_to_3(conn: Connection) -> None:
    """Games get the salt of their dice commitment (older games have none: they made no commitment)."""
    _add_column(conn, "games", Column("salt", String(64)))


def _upgrade_3_to_4(conn: Connection) -> None:
    """Games get the code of their rematch (older games have none: their rematches were not linked back)."""
    _add_column(conn, "games", Column("next_code", String(64)))


# UPGRADES[v] takes a database from version v to v + 1
UPGRADES: dict[int, Callable[[Connection], None]] = {1: _upgrade_1_to_2, 2: _upgrade_2_to_3, 3: _upgrade_3_to_4}


def found_version(conn: Connection) -> int | None:
    """Return the schema version of the database behind ``conn``, or None if it holds no pigdice tables."""
    tables = inspect(conn)
    if tables.has_table(schema_table.name):
        row = conn.execute(select(schema_table.c.version).order_by(schema_table.c.id.desc())).first()
        if row is not None:
            return int(row[0])
    if not tables.has_table(games_table.name):
        return None
    # tables without a version row (a first start killed between the two): tell the versions by their columns
    columns = {c["name"] for c in tables.get_columns(games_table.name)}
    if "next_code" in columns:
        return 4
    return 3 if "salt" in columns else 2 if "status" in columns else 1
