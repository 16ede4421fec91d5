"""Every resource a stranger can take is bounded with a clear refusal: bodies, rooms, robots-only rooms,
idle rooms, the explorer's cache; unexpected and storage errors answer JSON and keep the connection."""

from __future__ import annotations

import logging
import sqlite3
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from webhelpers import create_game, error_of, make_settings

from pigdice.web.app import QuietBadFrames, create_app
from pigdice.web.errors import WebError
from pigdice.web.limits import ClientRooms
from pigdice.web.store import StoreError

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def test_a_body_over_the_limit_is_refused_with_413(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, max_body_bytes=1000))) as client:
        big = {"variant": "pig", "name": "x" * 5000}
        reply = client.post("/api/games", json=big)
        assert reply.status_code == 413
        assert error_of(reply)["code"] == "body_too_large"

        def chunks() -> Any:  # no Content-Length: counted while it is read
            for _ in range(10):
                yield b" " * 500

        reply = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
        assert reply.status_code == 413
        assert error_of(reply)["code"] == "body_too_large"
        assert create_game(client)["code"]  # a normal body still works


def test_rooms_per_client_are_limited_with_429(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, rooms_per_client=3))) as client:
        for _ in range(3):
            create_game(client)
        reply = client.post("/api/games", json={"players": ["you", "hold:20"]})
        assert reply.status_code == 429
        error = error_of(reply)
        assert error["code"] == "too_many_rooms" and "try again" in error["message"]


def test_the_client_window_forgets_old_rooms() -> None:
    rooms = ClientRooms(limit=1, window=0.05)
    rooms.add("a")
    with pytest.raises(WebError):
        rooms.check("a")
    rooms.check("b")  # another client is not affected
    time.sleep(0.06)
    rooms.check("a")  # the window moved on
    bounded = ClientRooms(limit=1, window=60, max_clients=10)
    for n in range(50):
        bounded.add(f"client-{n}")
    assert bounded.usage()["clients"] == 10


def test_total_open_rooms_are_limited_with_503(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, max_open_rooms=2))) as client:
        create_game(client)
        create_game(client)
        reply = client.post("/api/games", json={"players": ["you", "hold:20"]})
        assert reply.status_code == 503
        assert error_of(reply)["code"] == "server_full"


def test_robot_only_rooms_are_capped_in_goal_and_number(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, max_robot_rooms=1, max_robot_room_goal=500, robot_delay=5.0)
    with TestClient(create_app(settings)) as client:
        reply = client.post("/api/games", json={"goal": 100000, "players": ["hold:20", "hold:25"]})
        assert reply.status_code == 400
        assert "500" in error_of(reply)["message"]
        create_game(client, goal=100, players=["hold:20", "hold:25"])
        reply = client.post("/api/games", json={"goal": 100, "players": ["hold:20", "hold:25"]})
        assert reply.status_code == 429
        assert error_of(reply)["code"] == "too_many_rooms"
        create_game(client, goal=100000, players=["you", "hold:20"])  # people may play long games


def test_idle_rooms_expire_marked_never_deleted(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, idle_room_seconds=60.0)
    with TestClient(create_app(settings)) as client:
        game = create_game(client, players=["you", "hold:20"])
        code, token = game["code"], game["tokens"]["0"]
        manager = client.app.state.manager  # type: ignore[attr-defined]
        expired = client.portal.call(manager.expire_now, time.time() + 120)
        assert expired == [code]
        reply = client.post(
            f"/api/games/{code}/actions", json={"seat": 0, "token": token, "action": "roll", "expected_step": 0}
        )
        assert reply.status_code == 410
        assert error_of(reply)["code"] == "room_closed"
        state = client.get(f"/api/games/{code}").json()["state"]
        assert state["closed"]
    with TestClient(create_app(settings)) as client:  # after a restart the room is still there, still closed
        state = client.get(f"/api/games/{code}").json()["state"]
        assert state["closed"]
        reply = client.post(
            f"/api/games/{code}/actions", json={"seat": 0, "token": token, "action": "roll", "expected_step": 0}
        )
        assert reply.status_code == 410
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        assert db.execute("SELECT status FROM games WHERE code = ?", (code,)).fetchone() == ("expired",)


def test_robot_only_rooms_expire_after_their_time(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, robot_room_seconds=60.0, robot_delay=5.0)
    with TestClient(create_app(settings)) as client:
        robots = create_game(client, goal=100, players=["hold:20", "hold:25"])["code"]
        people = create_game(client, goal=100, players=["you", "hold:25"])["code"]
        manager = client.app.state.manager  # type: ignore[attr-defined]
        assert client.portal.call(manager.expire_now, time.time() + 120) == [robots]
        assert client.get(f"/api/games/{robots}").json()["state"]["closed"]
        assert client.get(f"/api/games/{people}").json()["state"]["closed"] is None


def test_a_damaged_game_is_quarantined_and_the_server_starts(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        damaged = create_game(client, players=["hold:20", "hold:25"], goal=100)["code"]
        fine = create_game(client, players=["you", "hold:20"])["code"]
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        db.execute("UPDATE games SET params = '{', finished = 0, status = 'active' WHERE code = ?", (damaged,))
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").status_code == 200
        reply = client.get(f"/api/games/{damaged}")
        assert reply.status_code == 410
        assert error_of(reply)["code"] == "room_damaged"
        assert client.get(f"/api/games/{fine}").status_code == 200
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        status, reason = db.execute("SELECT status, closed_reason FROM games WHERE code = ?", (damaged,)).fetchone()
    assert status == "quarantined" and reason


def test_storage_failure_on_create_is_503_and_the_connection_stays_usable(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        store = client.app.state.manager.store  # type: ignore[attr-defined]

        def full(*_: Any) -> int:
            raise StoreError("database or disk is full")

        real = store.create_game
        store.create_game = full
        reply = client.post("/api/games", json={"players": ["you", "hold:20"]})
        assert reply.status_code == 503
        assert error_of(reply)["code"] == "storage_failed"
        store.create_game = real
        assert create_game(client)["code"]


def test_an_unexpected_error_is_a_json_500_and_the_next_request_works(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path)), raise_server_exceptions=False) as client:
        manager = client.app.state.manager  # type: ignore[attr-defined]

        async def broken(*_: Any, **__: Any) -> Any:
            raise RuntimeError("boom")

        manager.create = broken
        reply = client.post("/api/games", json={"players": ["you", "hold:20"]})
        assert reply.status_code == 500
        assert error_of(reply)["code"] == "internal_error"
        assert "boom" not in reply.text  # no internals to strangers
        assert client.get("/healthz").status_code == 200


def test_invalid_utf8_frames_are_logged_as_one_line() -> None:
    try:
        b"\xff".decode()
    except UnicodeDecodeError:
        import sys

        record = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1, "Invalid UTF-8", (), sys.exc_info())
    QuietBadFrames().filter(record)
    assert record.exc_info is None and record.levelno == logging.WARNING
    other = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1, "other", (), None)
    assert QuietBadFrames().filter(other) and other.levelno == logging.ERROR


def test_storage_failure_over_the_websocket_is_a_clear_error(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        game = create_game(client, players=["you", "friend"])
        store = client.app.state.manager.store  # type: ignore[attr-defined]

        def locked(*_: Any) -> bool:
            raise StoreError("database is locked")

        store.claim_seat = locked
        with client.websocket_connect(f"/ws/{game['code']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "join", "seat": 1, "id": 7})
            reply = ws.receive_json()
            while reply["type"] != "error":
                reply = ws.receive_json()
            assert reply["code"] == "storage_failed" and reply["id"] == 7
        assert client.get(f"/api/games/{game['code']}").json()["state"]["waiting_for"] == [1]


def test_the_perfect_player_is_bounded_in_goal_and_dice(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        reply = client.post(
            "/api/games", json={"variant": "hog", "params": {"max_dice": 40}, "players": ["you", "optimal"]}
        )
        assert reply.status_code == 400
        assert "30 dice" in error_of(reply)["message"]
        reply = client.post("/api/games", json={"goal": 500, "players": ["you", "optimal"]})
        assert reply.status_code == 400
        assert "200" in error_of(reply)["message"]
        game = create_game(client, variant="hog", params={"max_dice": 40}, players=["you", "dice:5"])
        reply = client.post(f"/api/games/{game['code']}/hint", json={"seat": 0, "token": game["tokens"]["0"]})
        assert reply.status_code == 409
        assert error_of(reply)["code"] == "no_hint"
