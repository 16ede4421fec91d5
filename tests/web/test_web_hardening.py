"""The web server against the held-out probes of issue 32: long games, the solve pool, storage faults.

One game must not slow everyone: a room of thousands of moves sends a small welcome (older events on
request) and its record verifies. Solves never block answers already solved; big results come back
through a file; a dead worker's job is tried again. A write reported failed that was stored after all
is read back, never refused for good; a storage outage is logged a few times, not per request.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from webhelpers import create_game, error_of, receive_until, stored_game

from pigdice.engine.fairness import verify_record
from pigdice.engine.record import parse_record
from pigdice.rules.registry import find_variant
from pigdice.web.collector import LONG_GAME, is_long_game, without_collection
from pigdice.web.longjobs import record_bytes
from pigdice.web.rooms import RECENT_EVENTS
from pigdice.web.solving import SolvePool
from pigdice.web.store import FaultLog, MoveWrite, Store, StoreError


@pytest.mark.slow
def test_a_20000_move_games_welcome_is_small_and_its_record_verifies(client: TestClient) -> None:
    code = stored_game(client, 20_000)
    with client.websocket_connect(f"/ws/{code}") as ws:
        text = ws.receive_text()
        welcome = json.loads(text)
        assert welcome["type"] == "welcome" and welcome["state"]["finished"]
        assert len(text.encode()) < 64 * 1024, len(text)
        assert len(welcome["events"]) == RECENT_EVENTS and welcome["earlier"] > 20_000
        ws.send_json({"type": "history", "before": welcome["earlier"], "id": 7})
        page = receive_until(ws, "history")
        assert page["id"] == 7 and page["earlier"] == welcome["earlier"] - RECENT_EVENTS
        assert page["events"][-1]["step"] <= welcome["events"][0]["step"]
    checked = client.get(f"/api/games/{code}/verify").json()
    assert checked["ok"] and checked["moves_checked"] > 20_000, checked["problems"]
    record = parse_record(client.get(f"/api/games/{code}/record").content)
    assert record.finished and verify_record(record).ok


def test_history_pages_walk_back_to_the_first_event(client: TestClient) -> None:
    code = stored_game(client, 300, finish=False)
    game = client.get(f"/api/games/{code}").json()
    total = game["earlier"] + len(game["events"])
    seen = list(game["events"])
    before = game["earlier"]
    while before:
        page = client.get(f"/api/games/{code}", params={"before": before}).json()
        assert len(page["events"]) == before - page["earlier"] and page["state"]["step"] == 300
        seen = page["events"] + seen
        before = page["earlier"]
    assert len(seen) == total and seen[0]["step"] == 1 and seen[-1]["step"] == 300
    assert [e["step"] for e in seen] == sorted(e["step"] for e in seen)
    assert error_of(client.get(f"/api/games/{code}", params={"before": -1}))["code"] == "bad_parameter"


def test_a_write_reported_failed_but_stored_is_confirmed(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = create_game(client, players=["you", "you"])
    store: Store = client.app.state.manager.store  # type: ignore[attr-defined]
    original = store.record_moves

    def committed_then_failed(moves: list[MoveWrite]) -> None:
        original(moves)  # the commit went through ...
        raise StoreError("the connection dropped after the commit")  # ... but the answer was lost

    monkeypatch.setattr(store, "record_moves", committed_then_failed)
    body = {"seat": 0, "token": game["tokens"]["0"], "action": "roll", "expected_step": 0}
    reply = client.post(f"/api/games/{game['code']}/actions", json=body)
    assert reply.status_code == 200, reply.text
    assert reply.json()["state"]["step"] == 1 and store.load_game(game["code"]).step == 1  # type: ignore[union-attr]


def test_a_room_reads_back_moves_stored_behind_its_back(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = create_game(client, players=["you", "you"])
    code, token = game["code"], game["tokens"]["0"]
    store: Store = client.app.state.manager.store  # type: ignore[attr-defined]
    original_write, original_read = store.record_moves, store.moves_after
    outage = {"on": True}

    def write(moves: list[MoveWrite]) -> None:
        original_write(moves)
        if outage["on"]:
            raise StoreError("the server went away after the commit")

    def read(*args: Any) -> Any:
        if outage["on"]:
            raise StoreError("the server is still away")
        return original_read(*args)

    monkeypatch.setattr(store, "record_moves", write)
    monkeypatch.setattr(store, "moves_after", read)
    roll = {"seat": 0, "token": token, "action": "roll", "expected_step": 0}
    first = client.post(f"/api/games/{code}/actions", json=roll)
    assert first.status_code == 503 and error_of(first)["code"] == "storage_failed"  # as far as anyone could tell
    outage["on"] = False
    hold = {**roll, "action": "hold"}  # the player tries something else: the database holds the roll
    second = client.post(f"/api/games/{code}/actions", json=hold)
    assert second.status_code == 409 and error_of(second)["code"] == "stale_step"
    state = client.get(f"/api/games/{code}").json()["state"]
    assert state["step"] == 1  # the room read the stored roll back
    if state["current"] == 0:
        again = client.post(f"/api/games/{code}/actions", json={**hold, "expected_step": 1})
        assert again.status_code == 200, again.text
    assert store.load_game(code).step == client.get(f"/api/games/{code}").json()["state"]["step"]  # type: ignore[union-attr]


def test_a_fault_is_logged_once_per_interval_with_a_count(caplog: pytest.LogCaptureFixture) -> None:
    log = FaultLog(logging.getLogger("pigdice.test"), interval=0.5)
    with caplog.at_level(logging.ERROR, logger="pigdice.test"):
        logged = [log("store", "cannot reach %s", "the database") for _ in range(1000)]
        time.sleep(0.6)
        log("store", "cannot reach %s", "the database")
        log("other", "something else")
    assert sum(logged) == 1
    lines = [record.getMessage() for record in caplog.records]
    assert lines == [
        "cannot reach the database",
        "cannot reach the database (and 999 more like it in the last 1 s)",
        "something else",
    ]


# -- the solve pool ---------------------------------------------------------------------------------------------
def sleeping_job(variant: Any) -> int:
    """A job that holds its worker (the pool at its limit)."""
    time.sleep(60)
    return 0


def dies_once(variant: Any) -> int:
    """A job whose worker dies the first time (as a killed or out-of-memory worker does), then answers."""
    marker = Path(os.environ["PIGDICE_TEST_MARKER"])
    if not marker.exists():
        marker.write_text("died once")
        os._exit(9)
    return 42


@pytest.mark.usefixtures("fresh_policies")
def test_a_policy_solved_before_is_never_refused_as_busy() -> None:
    from pigdice.solve.exact import exact_policy

    solved = find_variant("pig", goal=30)
    exact_policy(solved, 2)  # on disk now
    from pigdice.solve import solver

    solver._MEMORY = solver.PolicyCache()  # ... and no longer in memory
    pool = SolvePool(workers=1, max_jobs=1)

    async def asks() -> None:
        holding = asyncio.ensure_future(pool.run("sleep", find_variant("pig", goal=10), sleeping_job))
        await asyncio.sleep(0)
        assert pool.busy == 1
        pool.check_exact_room(solved, 2)  # no refusal: nothing to solve
        policy = await pool.exact(solved, 2)
        assert 0.5 < policy.win_probability_by_seat()[0] < 0.6
        with pytest.raises(Exception) as refused:
            pool.check_exact_room(find_variant("pig", goal=31), 2)
        assert getattr(refused.value, "code", None) == "busy"
        holding.cancel()

    try:
        asyncio.run(asks())
    finally:
        pool.close()


@pytest.mark.slow
def test_a_dead_workers_job_is_tried_once_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIGDICE_TEST_MARKER", str(tmp_path / "marker"))
    pool = SolvePool(workers=1)
    try:
        assert asyncio.run(pool.run("die", find_variant("pig", goal=10), dies_once)) == 42
        assert pool.retried == 1
    finally:
        pool.close()


@pytest.mark.usefixtures("fresh_policies")
def test_big_results_come_back_through_a_spill_file() -> None:
    from pigdice.solve.exact import exact_policy

    variant = find_variant("pig", goal=12, endgame="final-round")
    pool = SolvePool(workers=1, spill_bytes=1)  # every result is "big"

    async def asks() -> Any:
        first = await pool.exact(variant, 2)
        assert pool.exact_ready(variant, 2)
        return first, await pool.exact(variant, 2)

    try:
        first, again = asyncio.run(asks())
        folder = Path(pool.spill_dir())
        assert len(list(folder.glob("*.spill"))) == 1  # solved once, kept on disk for this server
        assert again is first
        truth = exact_policy(variant, 2)
        assert first.win_probability_by_seat() == pytest.approx(truth.win_probability_by_seat(), abs=1e-12)
    finally:
        pool.close()
    assert not folder.exists()


# -- a long game's big jobs leave the event loop its turns (bench/web_health.py) --------------------------------
def test_a_record_written_piece_by_piece_is_the_one_json_writes(client: TestClient) -> None:
    code = stored_game(client, 300)
    reply = client.get(f"/api/games/{code}/record")  # the room is read and replayed from the database
    record = client.app.state.manager.rooms[code].game_record()  # type: ignore[attr-defined]
    whole = json.dumps(record.to_json()).encode()
    assert reply.content == whole and len(record.moves) > 300
    for size in (1, 7, 10_000):
        assert record_bytes(record, size) == whole


def test_a_long_jobs_collector_pause_ends_with_it() -> None:
    seen: list[bool] = []
    frozen_before = gc.get_freeze_count()
    try:
        kept = [[i] for i in range(1000)]  # new objects, tracked by the collector
        assert without_collection(lambda: seen.append(gc.isenabled()) or len(kept), keep=True) == 1000
        assert seen == [False] and gc.isenabled()
        assert gc.get_freeze_count() >= frozen_before + 1000  # what the job built is left out of later passes
        with pytest.raises(ZeroDivisionError):
            without_collection(lambda: 1 // 0)
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_only_long_games_are_frozen() -> None:
    # a frozen reference cycle is never freed: short rooms (nearly all) stay in the collector's care
    class Stored:
        def __init__(self, moves: int) -> None:
            self.moves = [None] * moves

    assert not is_long_game(None) and not is_long_game(Stored(LONG_GAME - 1)) and is_long_game(Stored(LONG_GAME))
    frozen_before = gc.get_freeze_count()
    try:
        without_collection(lambda: Stored(5), keep=is_long_game)
        assert gc.get_freeze_count() == frozen_before
        without_collection(lambda: Stored(LONG_GAME), keep=is_long_game)
        assert gc.get_freeze_count() > frozen_before
    finally:
        gc.unfreeze()
