"""The store's start-up and housekeeping queries, the seat to move, closed games, and the SQLite log's size."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, update

from pigdice.web.store import GameClosedError, GameRecord, MoveWrite, SeatRecord, Store, StoreError, games_table

DAY = 86400.0


def _record(
    code: str, kinds: str, claimed: bool = True, to_move: int | None = 0, creator: str | None = None
) -> GameRecord:
    """Return a new game of Pig to 100; ``kinds`` spells the seats, h for a human and r for a robot."""
    seats = [
        SeatRecord(i, "human" if k == "h" else "robot", "human" if k == "h" else "hold:20", f"p{i}")
        for i, k in enumerate(kinds)
    ]
    for seat in seats:
        if seat.kind == "human" and claimed:
            seat.token_hash = f"hash-{code}-{seat.seat}"
    return GameRecord(
        code, "pig", 100, "first-to-goal", "none", "none", {}, "f" * 32, 7, seats, to_move=to_move, creator=creator
    )


def _move(game_id: int, step: int, to_move: int | None, finished: bool = False) -> MoveWrite:
    return MoveWrite(game_id, step, 0, "hold", [{"type": "banked"}], finished, [0] if finished else None, to_move)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    store.migrate()
    return store


def _age(store: Store, code: str, created: float | None = None, updated: float | None = None) -> None:
    """Set a game's created_at / updated_at (seconds since the epoch)."""
    values = {k: v for k, v in (("created_at", created), ("updated_at", updated)) if v is not None}
    with store.engine.begin() as conn:
        conn.execute(update(games_table).where(games_table.c.code == code).values(**values))


def test_robot_turn_codes_are_the_games_a_robot_must_carry_on(store: Store) -> None:
    ids = {
        "ROBO": store.create_game(_record("ROBO", "rr")),  # robots only: seat 0 starts
        "RTRN": store.create_game(_record("RTRN", "hr", to_move=1)),  # the robot's turn, the human is seated
        "HTRN": store.create_game(_record("HTRN", "hr")),  # the human's turn
        "OPEN": store.create_game(_record("OPEN", "hr", claimed=False, to_move=1)),  # waiting for a player
        "NULL": store.create_game(_record("NULL", "hh", claimed=False, to_move=None)),  # seat to move unknown
        "DONE": store.create_game(_record("DONE", "rr")),
        "SHUT": store.create_game(_record("SHUT", "rr")),
    }
    store.record_moves([_move(ids["DONE"], 1, 1, finished=True), _move(ids["HTRN"], 1, 1)])  # HTRN: now the robot's
    assert store.close_game("SHUT", "expired", "test")
    _age(store, "ROBO", updated=time.time() + 10)  # the most recently active comes first
    codes = store.robot_turn_codes()
    assert codes[0] == "ROBO"
    assert sorted(codes) == ["HTRN", "NULL", "ROBO", "RTRN"]
    assert len(store.robot_turn_codes(limit=2)) == 2
    store.record_moves([_move(ids["HTRN"], 2, 0)])  # back to the human
    assert sorted(store.robot_turn_codes()) == ["NULL", "ROBO", "RTRN"]
    assert store.claim_seat(ids["OPEN"], 0, "late", "hash-late")  # every human seated: the robot carries on
    store.set_to_move(ids["NULL"], 1)  # known now: a human's turn
    assert sorted(store.robot_turn_codes()) == ["OPEN", "ROBO", "RTRN"]


def test_record_moves_stores_the_seat_to_move_and_the_outcome(store: Store) -> None:
    game_id = store.create_game(_record("GAME", "hr", creator="client-1"))
    record = store.load_game("GAME")
    assert record is not None and (record.to_move, record.creator, record.status) == (0, "client-1", "active")
    store.record_moves([_move(game_id, 1, 1)])
    record = store.load_game("GAME")
    assert record is not None and record.to_move == 1 and record.step == 1
    store.record_moves([_move(game_id, 2, 0, finished=True)])
    record = store.load_game("GAME")
    assert record is not None and record.finished and record.status == "finished" and record.to_move is None
    assert store.count_open_games() == 0


def test_a_refused_move_says_why(store: Store) -> None:
    game_id = store.create_game(_record("GAME", "hr"))
    store.record_moves([_move(game_id, 1, 1)])
    with pytest.raises(StoreError, match="move 1 of game GAME was already recorded"):
        store.record_moves([_move(game_id, 1, 1)])
    with pytest.raises(StoreError, match="move 5 of game GAME does not follow its stored step 1"):
        store.record_moves([_move(game_id, 5, 1)])
    with pytest.raises(StoreError, match="no game has id 999"):
        store.record_moves([_move(999, 1, 1)])
    other = store.create_game(_record("OTHR", "hr"))
    with pytest.raises(StoreError, match="move 1 of game GAME was already recorded"):  # the whole batch is refused
        store.record_moves([_move(other, 1, 1), _move(game_id, 1, 1)])
    record = store.load_game("OTHR")
    assert record is not None and record.step == 0
    assert store.close_game("GAME", "quarantined", "checked by hand")
    with pytest.raises(GameClosedError, match=r"game GAME is quarantined \(checked by hand\); it takes no moves"):
        store.record_moves([_move(game_id, 2, 1)])
    record = store.load_game("GAME")
    assert record is not None and record.step == 1 and record.status == "quarantined"


def test_close_game(store: Store) -> None:
    store.create_game(_record("GAME", "hr"))
    assert store.close_game("GAME", "expired", "the server is shutting rooms")
    assert not store.close_game("GAME", "quarantined", "again")  # only an active game closes
    assert not store.close_game("NONE", "expired", "no such game")
    record = store.load_game("GAME")
    assert record is not None and record.status == "expired" and record.closed_reason == "the server is shutting rooms"
    assert record.closed_at is not None and record.closed_at <= time.time()
    with pytest.raises(StoreError, match="not 'finished'"):
        store.close_game("GAME", "finished", "no")


def test_count_open_games(store: Store) -> None:
    for n in range(3):
        store.create_game(_record(f"MINE{n}", "hr", creator="me"))
    store.create_game(_record("YOUR", "hr", creator="you"))
    store.create_game(_record("ANON", "hr"))
    assert store.count_open_games() == 5
    assert store.count_open_games(creator="me") == 3
    store.close_game("MINE0", "expired", "test")
    assert store.count_open_games(creator="me") == 2 and store.count_open_games() == 4


def test_expire_idle_closes_old_games_and_never_deletes(store: Store) -> None:
    now = time.time()
    for code, kinds, created, updated in [
        ("IDLE", "hr", now - 30 * DAY, now - 8 * DAY),  # nobody moved for 8 days
        ("LIVE", "hr", now - 30 * DAY, now - 60),  # old but played a minute ago
        ("BOTS", "rr", now - 2 * DAY, now - 1),  # robots playing each other for two days
        ("NEWB", "rr", now - 600, now - 1),  # robots, started ten minutes ago
        ("DONE", "hr", now - 30 * DAY, now - 30 * DAY),  # finished long ago
    ]:
        game_id = store.create_game(_record(code, kinds))
        if code == "DONE":
            store.record_moves([_move(game_id, 1, None, finished=True)])
        _age(store, code, created, updated)
    assert store.expire_idle(now - 7 * DAY) == ["IDLE"]
    record = store.load_game("IDLE")
    assert record is not None and record.status == "expired" and record.closed_reason == "no move for 7 days"
    assert store.expire_idle(now - 7 * DAY) == []  # already expired
    assert store.expire_idle(now - 7 * DAY, robot_only_before=now - DAY) == ["BOTS"]
    record = store.load_game("BOTS")
    assert record is not None and record.closed_reason == "robots alone for over 1 day"
    assert sorted(store.unfinished_codes()) == ["LIVE", "NEWB"]
    done = store.load_game("DONE")
    assert done is not None and done.status == "finished"


def test_checkpoint_returns_the_log_size_and_truncate_empties_it(store: Store) -> None:
    game_id = store.create_game(_record("GAME", "hr"))
    for step in range(1, 201):
        store.record_moves([_move(game_id, step, 0)])
    assert store.wal_bytes() > 100_000
    assert store.checkpoint() == store.wal_bytes() > 0  # PASSIVE copies, but keeps the file
    assert store.checkpoint("truncate") == 0 == store.wal_bytes()
    store.record_moves([_move(game_id, 201, 0)])  # the kept-open connection writes on into a fresh log
    assert store.wal_bytes() > 0
    with pytest.raises(StoreError, match="not 'LATER'"):
        store.checkpoint("LATER")
    memory = Store("sqlite://")
    memory.migrate()
    assert memory.checkpoint("TRUNCATE") == 0 == memory.wal_bytes()


def test_a_game_is_read_in_one_snapshot(store: Store) -> None:
    """A move committed while a game is being read is not half seen (the row says step 1, the moves 1..2)."""
    game_id = store.create_game(_record("GAME", "hr"))
    store.record_moves([_move(game_id, 1, 1)])
    done: list[bool] = []

    def meanwhile(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not done and statement.startswith("SELECT games.id, games.code"):  # the game's row was just read
            done.append(True)
            store.record_moves([_move(game_id, 2, 0)])  # on the moves connection, committed at once

    event.listen(store.engine, "after_cursor_execute", meanwhile)
    record = store.load_game("GAME")
    event.remove(store.engine, "after_cursor_execute", meanwhile)
    assert done and record is not None and record.step == 1 and len(record.moves) == 1
    record = store.load_game("GAME")
    assert record is not None and record.step == 2 and len(record.moves) == 2


def test_a_blocking_checkpoint_gives_up_while_a_reader_holds_the_log(store: Store, tmp_path: Path) -> None:
    game_id = store.create_game(_record("GAME", "hr"))
    store.record_moves([_move(game_id, 1, 1)])
    reader = sqlite3.connect(tmp_path / "games.sqlite3")
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM moves").fetchone() == (1,)  # a snapshot inside the log
    try:
        store.record_moves([_move(game_id, 2, 0)])
        assert store.checkpoint("TRUNCATE") > 0  # waited CHECKPOINT_WAIT_MS for the reader, then gave up
        store.record_moves([_move(game_id, 3, 0)])  # and writers go on
    finally:
        reader.rollback()
        reader.close()
    assert store.checkpoint("TRUNCATE") == 0


def test_one_batch_may_finish_some_games_and_advance_others(store: Store) -> None:
    ids = [store.create_game(_record(f"GAM{n}", "hr")) for n in range(3)]
    store.record_moves([_move(ids[0], 1, 1), _move(ids[1], 1, None, finished=True), _move(ids[2], 1, 1)])
    records = [store.load_game(f"GAM{n}") for n in range(3)]
    assert [(r.step, r.status, r.to_move) for r in records if r is not None] == [
        (1, "active", 1),
        (1, "finished", None),
        (1, "active", 1),
    ]
    assert store.count_open_games() == 2
