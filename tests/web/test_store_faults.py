"""Storage faults and damaged rows: every fault is a one-line StoreError naming the operation and the database;
a stored game that cannot be decoded is a DamagedGameError that can be quarantined without deleting anything."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from pigdice.web.store import (
    DamagedGameError,
    GameRecord,
    MoveWrite,
    SeatRecord,
    Store,
    StoreError,
    schema_table,
)


def _record(code: str, kinds: tuple[str, ...] = ("human", "robot"), claimed: bool = True) -> GameRecord:
    """Return a new game of Pig to 100 with these seat kinds (humans claimed unless told otherwise)."""
    seats = [
        SeatRecord(i, kind, "human" if kind == "human" else "hold:20", f"p{i}", f"hash{i}" if claimed else None)
        for i, kind in enumerate(kinds)
        if kind in ("human", "robot")
    ]
    return GameRecord(code, "pig", 100, "first-to-goal", "none", "none", {}, "f" * 32, 12345, seats)


def _move(game_id: int, step: int, seat: int = 0, to_move: int | None = 0, events_size: int = 1) -> MoveWrite:
    events = [{"type": "rolled", "seat": seat, "faces": [3], "turn_total": 3 * step, "pad": "x" * events_size}]
    return MoveWrite(game_id, step, seat, "roll", events, to_move=to_move)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def store(db: Path) -> Store:
    """Return a migrated store on a fresh SQLite file holding game AAAA (id 1) with three moves."""
    store = Store(f"sqlite:///{db}")
    store.migrate()
    game_id = store.create_game(_record("AAAA"))
    store.record_moves([_move(game_id, 1)])
    store.record_moves([_move(game_id, 2)])
    store.record_moves([_move(game_id, 3, to_move=1)])
    return store


def _raw(db: Path, sql: str) -> None:
    """Run ``sql`` on the database file through a plain sqlite3 connection (to damage rows)."""
    with sqlite3.connect(db) as conn:
        conn.execute(sql)
    conn.close()


# -- damaged rows ----------------------------------------------------------------------------------
DAMAGES = [
    ("UPDATE games SET params = 'not json'", "params is not valid JSON"),
    ("UPDATE games SET params = '[1, 2]'", "params is list, not a JSON object"),
    ("UPDATE games SET seed = 'abc'", "seed is 'abc', not an integer"),
    ("UPDATE games SET seed = 1.5", "seed is 1.5, not an integer"),
    ("UPDATE games SET variant = CAST(x'ff' AS TEXT)", "variant is not valid UTF-8 text"),
    ("UPDATE games SET variant = x'70696767'", "variant is bytes, not text"),  # a blob in a text column
    ("UPDATE games SET status = 'lost'", "status 'lost' is not one of"),
    ("UPDATE games SET to_move = 7", "the seat to move (7) is not one of the 2"),
    ("UPDATE seats SET name = CAST(x'c3' AS TEXT) WHERE seat = 1", "name is not valid UTF-8 text"),
    ("UPDATE seats SET kind = 'alien' WHERE seat = 1", "seat kind 'alien'"),
    ("DELETE FROM seats WHERE seat = 1", "the game has 2 players but seats [0]"),
    ("UPDATE moves SET events = '{\"type\": 1}' WHERE step = 2", "the events of move 2 are not a JSON list of objects"),
    ("UPDATE moves SET events = '[1, 2]' WHERE step = 2", "the events of move 2 are not a JSON list of objects"),
    ("UPDATE moves SET events = '[{' WHERE step = 2", "events is not valid JSON"),
    ("UPDATE moves SET action = CAST(x'ff' AS TEXT) WHERE step = 3", "action is not valid UTF-8 text"),
    ("UPDATE moves SET seat = 5 WHERE step = 3", "move 3 is by seat 5"),
    ("DELETE FROM moves WHERE step = 2", "at step 3 but its stored moves are steps 1, 3"),
    ("UPDATE games SET step = 5", "at step 5 but its stored moves are steps 1..3"),
]


@pytest.mark.parametrize(("damage", "reason"), DAMAGES, ids=[d[1][:30] for d in DAMAGES])
def test_a_damaged_row_is_a_damaged_game_error(store: Store, db: Path, damage: str, reason: str) -> None:
    _raw(db, damage)
    with pytest.raises(DamagedGameError, match="game AAAA \\(id 1\\) is damaged") as info:
        store.load_game("AAAA")
    assert info.value.code == "AAAA" and info.value.game_id == 1
    assert reason in info.value.reason
    assert "\n" not in str(info.value)


def test_quarantine_keeps_everything_and_hides_the_game_at_start(store: Store, db: Path) -> None:
    other = store.create_game(_record("BBBB", ("robot", "robot")))
    assert sorted(store.robot_turn_codes()) == ["AAAA", "BBBB"]  # AAAA: a robot (seat 1) is to move
    _raw(db, "UPDATE games SET params = 'not json' WHERE code = 'AAAA'")
    with pytest.raises(DamagedGameError) as info:
        store.load_game("AAAA")
    store.quarantine(info.value.code, info.value.reason)
    assert store.robot_turn_codes() == ["BBBB"]
    assert store.unfinished_codes() == ["BBBB"]
    assert store.count_open_games() == 1
    with sqlite3.connect(db) as conn:
        status, reason, closed_at = conn.execute(
            "SELECT status, closed_reason, closed_at FROM games WHERE code = 'AAAA'"
        ).fetchone()
        kept = conn.execute("SELECT count(*) FROM moves WHERE game_id = 1").fetchone()[0]
    conn.close()
    assert status == "quarantined" and "params is not valid JSON" in reason and closed_at > 0
    assert kept == 3
    # by id too (a game whose code itself cannot be read is found by the id the error carries)
    store.quarantine(other, "checked by hand")
    assert store.robot_turn_codes() == []
    record = store.load_game("BBBB")
    assert record is not None and record.status == "quarantined" and record.closed_reason == "checked by hand"
    with pytest.raises(StoreError, match="no game 'ZZZZ' to quarantine"):
        store.quarantine("ZZZZ", "nothing")


# -- storage faults ------------------------------------------------------------------------------------
def _one_line_store_error(call: Callable[[], Any], *words: str) -> str:
    """Call ``call``; check it raises a StoreError (not a raw SQLAlchemy error) of one line holding ``words``."""
    with pytest.raises(StoreError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message, message
    for word in words:
        assert word in message, message
    return message


def test_migrate_refuses_what_is_not_a_writable_database(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("these are my notes, not a database\n" * 50)
    _one_line_store_error(Store(f"sqlite:///{text}").migrate, "cannot open the database", "file is not a database")
    _one_line_store_error(Store(f"sqlite:///{tmp_path}").migrate, "is a folder, not a database file")
    _one_line_store_error(
        Store(f"sqlite:///{tmp_path / 'missing' / 'x.sqlite3'}").migrate, "cannot open", "missing does not exist"
    )
    newer = f"sqlite:///{tmp_path / 'newer.sqlite3'}"
    store = Store(newer)
    store.migrate()
    with store.engine.begin() as conn:
        conn.execute(schema_table.insert().values(version=99, applied_at=0.0))
    _one_line_store_error(Store(newer).migrate, "schema version 99, newer than this pigdice")
    assert text.read_text().startswith("these are my notes")  # nothing was written into the text file


def _query_only(store: Store) -> None:
    """Make every new connection of ``store`` read-only (what a read-only file does, even for root)."""
    store.close()
    event.listen(store.engine, "connect", lambda dbapi, _record: dbapi.execute("PRAGMA query_only=ON"))


def test_a_read_only_database_fails_at_migrate_and_at_every_write(store: Store) -> None:
    _query_only(store)
    _one_line_store_error(store.migrate, "cannot open the database sqlite:///", "read-only")
    _one_line_store_error(lambda: store.record_moves([_move(1, 4)]), "cannot record moves in the database", "read-only")
    _one_line_store_error(lambda: store.create_game(_record("CCCC")), "cannot create a game in", "read-only")
    _one_line_store_error(lambda: store.close_game("AAAA", "expired", "test"), "cannot close game AAAA in")
    _one_line_store_error(lambda: store.expire_idle(2e9), "cannot expire games in")
    record = store.load_game("AAAA")  # reads still work
    assert record is not None and record.step == 3


def test_a_read_only_file_fails_at_migrate(store: Store, db: Path) -> None:
    store.close()
    # opened read-only by SQLite itself (a chmod would not stop root, who runs CI)
    _one_line_store_error(Store(f"sqlite:///file:{db}?mode=ro&uri=true").migrate, "cannot open the database", "read")


def test_a_full_disk_refuses_the_move_and_the_game_goes_on(store: Store, db: Path) -> None:
    with sqlite3.connect(db) as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    store.close()
    # the database may not grow: SQLite's own "database or disk is full", as on a full disk
    event.listen(store.engine, "connect", lambda dbapi, _record: dbapi.execute(f"PRAGMA max_page_count={pages}"))
    step = 4
    with pytest.raises(StoreError) as info:
        for step in range(4, 200):
            store.record_moves([_move(1, step, events_size=2000)])
    message = str(info.value)
    assert message.startswith("cannot record moves in the database sqlite:///")
    assert "database or disk is full (free some disk space)" in message
    record = store.load_game("AAAA")
    assert record is not None and record.step == step - 1  # the refused move left nothing behind


def test_a_locked_database_is_a_store_error(store: Store, db: Path) -> None:
    store.close()
    event.listen(store.engine, "connect", lambda dbapi, _record: dbapi.execute("PRAGMA busy_timeout=50"))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing
    try:
        _one_line_store_error(lambda: store.record_moves([_move(1, 4)]), "database is locked", "another process")
        _one_line_store_error(lambda: store.create_game(_record("CCCC")), "cannot create a game in", "locked")
        _one_line_store_error(store.migrate, "cannot open the database", "locked")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store.record_moves([_move(1, 4)])  # the kept-open moves connection works again


CALLS: list[tuple[str, Callable[[Store], Any]]] = [
    ("migrate", lambda s: s.migrate()),
    ("load_game", lambda s: s.load_game("AAAA")),
    ("create_game", lambda s: s.create_game(_record("CCCC"))),
    ("record_moves", lambda s: s.record_moves([_move(1, 1)])),
    ("claim_seat", lambda s: s.claim_seat(1, 0, "me", "h")),
    ("rename_seats", lambda s: s.rename_seats(1, ["a", "b"])),
    ("set_to_move", lambda s: s.set_to_move(1, 0)),
    ("robot_turn_codes", lambda s: s.robot_turn_codes()),
    ("unfinished_codes", lambda s: s.unfinished_codes()),
    ("count_open_games", lambda s: s.count_open_games()),
    ("expire_idle", lambda s: s.expire_idle(0.0, 0.0)),
    ("close_game", lambda s: s.close_game("AAAA", "expired", "x")),
    ("quarantine", lambda s: s.quarantine("AAAA", "x")),
    ("checkpoint", lambda s: s.checkpoint("TRUNCATE")),
    ("wal_bytes", lambda s: s.wal_bytes()),
]


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
def test_every_method_turns_a_broken_file_into_a_store_error(
    tmp_path: Path, name: str, call: Callable[..., Any]
) -> None:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"SQLite format 2\x00" + bytes(range(256)) * 64)
    message = _one_line_store_error(lambda: call(Store(f"sqlite:///{path}")), "the database sqlite:///")
    assert "file is not a database" in message
