"""A long game's big jobs leave the event loop its turns (issue 32, bench/web_health.py): its record and its
verification are made in a worker process and only their result comes back (the record from a file, in pieces);
its welcome's events are encoded once per move, not once per visitor."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fastapi.testclient import TestClient
from webhelpers import create_game, stored_game

from pigdice.engine.fairness import verify_record
from pigdice.engine.record import parse_record
from pigdice.web.live import dumps
from pigdice.web.longjobs import WORKER_NICENESS, LongJobs, RecordOrder, pieces
from pigdice.web.rooms import Room


def long_jobs(client: TestClient) -> LongJobs:
    """Return the app's long-game jobs."""
    jobs: LongJobs = client.app.state.manager.long_jobs  # type: ignore[attr-defined]
    return jobs


def room_of(client: TestClient, code: str) -> Room:
    """Return a room, loading it from the database if the app does not hold it in memory yet."""
    assert client.get(f"/api/games/{code}").status_code == 200
    room: Room = client.app.state.manager.rooms[code]  # type: ignore[attr-defined]
    return room


def test_a_long_games_record_and_verification_come_from_a_worker_as_a_thread_makes_them(client: TestClient) -> None:
    code = stored_game(client, 300)
    in_thread = client.get(f"/api/games/{code}/record")
    checked_in_thread = client.get(f"/api/games/{code}/verify").json()
    jobs = long_jobs(client)
    assert jobs.busy == 0 and jobs._executor is None  # a short game needs no worker process
    jobs.threshold = 300  # this game counts as long now
    assert jobs.is_long(room_of(client, code).record_order())
    reply = client.get(f"/api/games/{code}/record", params={"download": "true"})
    assert jobs._executor is not None  # the worker made it
    assert reply.content == in_thread.content and reply.headers["content-length"] == str(len(reply.content))
    assert reply.headers["content-disposition"] == f'attachment; filename="pigdice-{code}.json"'
    assert "content-disposition" not in in_thread.headers
    record = parse_record(reply.content)
    assert record.finished and len(record.moves) > 300 and verify_record(record).ok
    assert os.listdir(jobs.folder()) == []  # the worker's file is gone once opened
    checked = client.get(f"/api/games/{code}/verify").json()
    assert checked == checked_in_thread and checked["ok"] and checked["moves_checked"] > 300
    assert jobs.busy == 0


def test_a_running_long_games_record_keeps_its_dice_secret(client: TestClient) -> None:
    code = stored_game(client, 40, finish=False)
    long_jobs(client).threshold = 1
    record = parse_record(client.get(f"/api/games/{code}/record").content)
    assert record.seed is None and not record.finished and len(record.moves) == 40
    assert record.commitment is not None and record.commitment.salt is None
    checked = client.get(f"/api/games/{code}/verify").json()
    assert checked["commitment"] == "secret" and not checked["ok"] and checked["moves_checked"] == 0


def test_a_record_order_travels_as_one_line_per_action(client: TestClient) -> None:
    code = stored_game(client, 25, finish=False)
    room = room_of(client, code)
    order = room.record_order()
    assert order.moves == 25 == len(order.actions.split("\n")) and order.key("verify") == f"verify:{code}:25"
    assert order.record() == room.game_record()
    empty = RecordOrder(room.variant, order.seats, 1, "", None, False, "x", None)
    assert empty.moves == 0 and empty.record().moves == ()


def test_a_record_file_is_read_in_pieces_and_closed(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"0123456789")
    stream = path.open("rb")
    assert list(pieces(stream, 4)) == [b"0123", b"4567", b"89"] and stream.closed


def test_the_worker_yields_the_cpu_and_closing_stops_it_and_removes_the_record_files(client: TestClient) -> None:
    code = stored_game(client, 30)
    jobs = long_jobs(client)
    jobs.threshold = 1
    assert client.get(f"/api/games/{code}/verify").json()["ok"]
    workers = list(jobs._executor._processes.values())  # type: ignore[union-attr]
    folder = jobs.folder()
    assert workers and all(w.is_alive() for w in workers)
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert all(os.getpriority(os.PRIO_PROCESS, w.pid) == min(19, mine + WORKER_NICENESS) for w in workers)
    jobs.close()
    assert not any(w.is_alive() for w in workers) and not Path(folder).exists()


def test_a_welcome_is_encoded_once_per_move_and_names_included(client: TestClient) -> None:
    game = create_game(client, players=["you", "friend"], name="Ada")
    code = game["code"]
    room = room_of(client, code)
    first = room.welcome_text()
    assert first == dumps(room.welcome()) and json.loads(first)["events"] == []
    cached = room.welcome_events
    assert room.welcome_text() == first and room.welcome_events is cached  # nothing new: encoded once
    assert client.post(f"/api/games/{code}/join", json={"name": "Rosalind"}).status_code == 200
    assert room.welcome_text() == dumps(room.welcome()) and room.welcome_events is not cached  # a new name
    cached = room.welcome_events
    body = {"seat": 0, "token": game["tokens"]["0"], "action": "roll", "expected_step": 0}
    assert client.post(f"/api/games/{code}/actions", json=body).status_code == 200
    moved = room.welcome_text()
    assert moved == dumps(room.welcome()) and room.welcome_events is not cached  # a new move
    assert "Ada" in json.loads(moved)["events"][0]["line"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        assert json.loads(ws.receive_text()) == json.loads(dumps(room.welcome()))
