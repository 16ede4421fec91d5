"""Schema upgrades: a database of schema 1 upgrades in place at migrate(), in one transaction, to the same schema
a new database gets (SQLite, and PostgreSQL when a local cluster can be started)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    insert,
    inspect,
    select,
)
from test_web_postgres import postgres_url  # noqa: F401 (the fixture: a throw-away PostgreSQL cluster)

from pigdice.web.schema import SCHEMA_VERSION, UPGRADES
from pigdice.web.store import MoveWrite, Store, schema_table

# schema 1 as it was shipped (frozen here: the live tables have moved on)
V1 = MetaData()
Table(
    "pigdice_schema",
    V1,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("applied_at", Float, nullable=False),
)
V1_GAMES = Table(
    "games",
    V1,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(64), nullable=False, unique=True),
    Column("variant", String(64), nullable=False),
    Column("goal", Integer, nullable=False),
    Column("endgame", String(32), nullable=False),
    Column("ties", String(32), nullable=False),
    Column("final_turn", String(32), nullable=False),
    Column("params", Text, nullable=False),
    Column("fingerprint", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("step", Integer, nullable=False, default=0),
    Column("finished", Boolean, nullable=False, default=False),
    Column("winners", Text, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)
V1_SEATS = Table(
    "seats",
    V1,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("spec", String(64), nullable=False),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=True),
    Column("claimed_at", Float, nullable=True),
)
V1_MOVES = Table(
    "moves",
    V1,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("step", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("action", String(32), nullable=False),
    Column("events", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)


def _v1_database(url: str) -> None:
    """Create a schema-1 database at ``url`` holding a finished game (OVER) and an unfinished one (LIVE)."""
    engine = create_engine(url)
    now = time.time()
    game = {"variant": "pig", "goal": 100, "endgame": "first-to-goal", "ties": "none", "final_turn": "none"}
    game |= {"params": "{}", "fingerprint": "f" * 32, "players": 2, "seed": 2**61, "created_at": now}
    with engine.begin() as conn:
        V1.drop_all(conn)
        V1.create_all(conn)
        conn.execute(insert(V1.tables["pigdice_schema"]).values(version=1, applied_at=now))
        for game_id, code, finished in ((1, "OVER", True), (2, "LIVE", False)):
            conn.execute(
                insert(V1_GAMES).values(id=game_id, code=code, step=1, finished=finished, updated_at=now, **game)
            )
            conn.execute(
                insert(V1_SEATS),
                [
                    {"game_id": game_id, "seat": 0, "kind": "human", "spec": "human", "name": "Ann", "token_hash": "h"},
                    {
                        "game_id": game_id,
                        "seat": 1,
                        "kind": "robot",
                        "spec": "hold:20",
                        "name": "Bo",
                        "token_hash": None,
                    },
                ],
            )
            conn.execute(
                insert(V1_MOVES).values(game_id=game_id, step=1, seat=0, action="roll", events="[]", created_at=now)
            )
    engine.dispose()


def _shape(url: str) -> dict[str, Any]:
    """Return the tables' columns (name, type, nullable) and index names at ``url``."""
    engine = create_engine(url)
    with engine.connect() as conn:
        tables = inspect(conn)
        shape = {
            name: (
                [(c["name"], str(c["type"]), c["nullable"]) for c in tables.get_columns(name)],
                sorted((i["name"] or "", tuple(i["column_names"])) for i in tables.get_indexes(name)),
            )
            for name in sorted(tables.get_table_names())
        }
    engine.dispose()
    return shape


def _check_upgrade(url: str, fresh_url: str) -> None:
    """Upgrade the schema-1 database at ``url``; check its rows, its shape (that of ``fresh_url``) and a move."""
    store = Store(url)
    assert store.migrate() == SCHEMA_VERSION == 4
    assert store.migrate() == SCHEMA_VERSION  # idempotent
    over, live = store.load_game("OVER"), store.load_game("LIVE")
    assert over is not None and live is not None
    assert (over.status, over.to_move, over.creator, over.closed_reason) == ("finished", None, None, None)
    assert over.salt is None and live.salt is None  # games from before schema 3 made no dice commitment
    assert over.next_code is None and live.next_code is None  # nor linked their rematch (schema 4)
    assert (live.status, live.to_move, live.seed, live.moves[0].action) == ("active", None, 2**61, "roll")
    assert store.robot_turn_codes() == ["LIVE"]  # its seat to move is unknown: resumed once
    store.record_moves([MoveWrite(live.id, 2, 0, "hold", [], to_move=1)])
    assert store.robot_turn_codes() == ["LIVE"]  # now known: the robot's turn, the human seated
    with store.engine.connect() as conn:
        versions = [row[0] for row in conn.execute(select(schema_table.c.version).order_by(schema_table.c.id))]
    assert versions == [1, SCHEMA_VERSION]
    store.close()
    fresh = Store(fresh_url)
    fresh.migrate()
    fresh.close()
    assert _shape(url) == _shape(fresh_url)


def test_every_version_has_its_upgrade() -> None:
    assert sorted(UPGRADES) == list(range(1, SCHEMA_VERSION))


def test_a_schema_1_sqlite_database_upgrades_in_place(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    _v1_database(url)
    _check_upgrade(url, f"sqlite:///{tmp_path / 'new.sqlite3'}")


def test_a_failed_upgrade_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    _v1_database(url)
    before = _shape(url)
    real = UPGRADES[1]

    def half_done(conn: Connection) -> None:
        real(conn)
        raise RuntimeError("power cut")

    monkeypatch.setitem(UPGRADES, 1, half_done)
    with pytest.raises(RuntimeError, match="power cut"):
        Store(url).migrate()
    assert _shape(url) == before  # the ALTER TABLEs were rolled back with the rest
    monkeypatch.setitem(UPGRADES, 1, real)
    assert Store(url).migrate() == SCHEMA_VERSION


def test_two_servers_starting_at_once_upgrade_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    _v1_database(url)
    results: list[Any] = []
    start = threading.Barrier(2)

    def run(migrate: Callable[[], int]) -> None:
        start.wait()
        try:
            results.append(migrate())
        except Exception as exc:
            results.append(exc)

    threads = [threading.Thread(target=run, args=(Store(url).migrate,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [SCHEMA_VERSION, SCHEMA_VERSION]
    with Store(url).engine.connect() as conn:
        assert [row[0] for row in conn.execute(select(schema_table.c.version))] == [1, SCHEMA_VERSION]


@pytest.mark.e2e
@pytest.mark.timeout(120)
def test_a_schema_1_postgres_database_upgrades_in_place(postgres_url: str) -> None:  # noqa: F811
    old = postgres_url  # the cluster's "postgres" database; a second one for the fresh schema
    engine = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql("DROP DATABASE IF EXISTS fresh")
        conn.exec_driver_sql("CREATE DATABASE fresh")
    engine.dispose()
    _v1_database(old)
    _check_upgrade(old, postgres_url.rsplit("/", 1)[0] + "/fresh")
