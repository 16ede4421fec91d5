"""Never lose a game: restarts (in process, and a real server killed with SIGKILL) resume every game exactly."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from webhelpers import crash, create_game, free_port, make_settings, start_server, wait_until

from pigdice.engine.events import event_to_json
from pigdice.engine.game import parse_action, replay
from pigdice.rules import find_variant
from pigdice.web.app import create_app
from pigdice.web.store import SCHEMA_VERSION, Store, StoreError, schema_table

pytestmark = pytest.mark.timeout(120)


def _play_mine(client: Any, code: str, token: str, moves: int) -> dict[str, Any]:
    """Play ``moves`` of seat 0's actions (rolling to 12, then holding); return the last state."""
    state = client.get(f"/api/games/{code}").json()["state"]
    for _ in range(moves):
        if state["finished"]:
            break
        assert state["current"] == 0
        action = "hold" if state["turn_total"] >= 12 else "roll"
        reply = client.post(
            f"/api/games/{code}/actions",
            json={"seat": 0, "token": token, "action": action, "expected_step": state["step"]},
        )
        assert reply.status_code == 200, reply.text
        state = client.get(f"/api/games/{code}").json()["state"]
    return state


def _stored_actions(client: TestClient, code: str) -> list[str]:
    """Return the actions stored for the room ``code`` of the app behind ``client``."""
    app: Any = client.app
    record = app.state.manager.store.load_game(code)
    assert record is not None
    return [m.action for m in record.moves]


def _state_if(client: Any, code: str, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """Return the room's state if ``test`` holds for it, else None (a condition for ``wait_until``)."""
    state: dict[str, Any] = client.get(f"/api/games/{code}").json()["state"]
    return state if test(state) else None


def _events_match_replay(game: dict[str, Any], actions: list[str]) -> None:
    state = game["state"]
    variant = find_variant(state["variant"], goal=state["goal"])
    _, events = replay(variant, state["players"], int(state["seed"]), [parse_action(a) for a in actions])
    stored = [{k: v for k, v in e.items() if k not in ("step", "line")} for e in game["events"]]
    assert stored == [event_to_json(e) for e in events]


def test_restart_in_process_resumes_exactly(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        data = create_game(client, players=["you", "hold:20"], goal=60)
        code, token = data["code"], data["tokens"]["0"]
        _play_mine(client, code, token, 8)
        before = client.get(f"/api/games/{code}").json()
    with TestClient(create_app(settings)) as client:
        after = client.get(f"/api/games/{code}").json()
        assert after == before
        state = after["state"]
        while not state["finished"]:
            state = _play_mine(client, code, token, 1)
        game = client.get(f"/api/games/{code}").json()
        assert game["events"][: len(before["events"])] == before["events"]
        actions = _stored_actions(client, code)
    _events_match_replay(game, actions)


def test_robots_carry_on_after_a_restart(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, robot_delay=0.05))) as client:
        code = create_game(client, players=["hold:15", "hold:20"], goal=100)["code"]
        state = wait_until(lambda: _state_if(client, code, lambda s: s["step"] >= 3), "the robots' first moves")
        assert not state["finished"]  # a game of 100 is far from over after a few moves at 0.05 s each
    with TestClient(create_app(make_settings(tmp_path))) as client:  # nobody connects: the robots resume alone
        wait_until(lambda: _state_if(client, code, lambda s: s["finished"]), "the resumed robots to finish")
        game = client.get(f"/api/games/{code}").json()
        actions = _stored_actions(client, code)
    _events_match_replay(game, actions)


def test_schema_version_is_recorded_and_checked(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'schema.sqlite3'}"
    store = Store(url)
    assert store.migrate() == SCHEMA_VERSION
    assert store.migrate() == SCHEMA_VERSION  # idempotent
    with store.engine.begin() as conn:
        conn.execute(schema_table.insert().values(version=SCHEMA_VERSION + 1, applied_at=0.0))
    with pytest.raises(StoreError, match="newer"):
        Store(url).migrate()


def test_bad_database_url_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="database URL"):
        Store("not a url at all")
    with pytest.raises(StoreError, match="cannot open"):
        Store(f"sqlite:///{tmp_path / 'missing' / 'dir' / 'x.sqlite3'}").migrate()


# -- a real server process, killed with SIGKILL ---------------------------------------------------------
def _wait_my_turn(client: httpx.Client, code: str) -> dict[str, Any]:
    """Poll until seat 0 is to move or the game is over; return the state."""
    return wait_until(lambda: _state_if(client, code, lambda s: s["finished"] or s["current"] == 0), "my turn")


@pytest.mark.slow
@pytest.mark.e2e
def test_kill_9_mid_game_loses_nothing(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    db = tmp_path / "kill.sqlite3"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(db, port, delay=0.1)
    try:
        with httpx.Client(base_url=base, timeout=10) as client:
            data = client.post("/api/games", json={"variant": "pig", "goal": 60, "players": ["you", "hold:20"]}).json()
            code, token = data["code"], data["tokens"]["0"]
            robots = client.post("/api/games", json={"variant": "pig", "goal": 100, "players": ["hold:15", "hold:20"]})
            robots_code = robots.json()["code"]
            for _ in range(10):  # about half a game of my moves, with the robot's turns in between
                state = _wait_my_turn(client, code)
                if state["finished"]:
                    break
                action = "hold" if state["turn_total"] >= 12 else "roll"
                client.post(
                    f"/api/games/{code}/actions",
                    json={"seat": 0, "token": token, "action": action, "expected_step": state["step"]},
                )
            _wait_my_turn(client, code)
            before = client.get(f"/api/games/{code}").json()
            robots_before = client.get(f"/api/games/{robots_code}").json()
        assert robots_before["state"]["step"] > 0 and not robots_before["state"]["finished"]
    finally:
        crash(server)

    server = start_server(db, port, delay=0.0)
    try:
        with httpx.Client(base_url=base, timeout=10) as client:
            after = client.get(f"/api/games/{code}").json()
            assert after == before  # same state, same history
            robots_after = client.get(f"/api/games/{robots_code}").json()
            assert robots_after["events"][: len(robots_before["events"])] == robots_before["events"]
            # finish my game over the websocket
            with connect(f"ws://127.0.0.1:{port}/ws/{code}") as ws:
                welcome = json.loads(ws.recv())
                assert welcome["events"] == before["events"]
                state = welcome["state"]
                while not state["finished"]:
                    if state["current"] == 0:
                        time.sleep(0.06)  # stay under the server's 20 messages/s per connection
                        action = "hold" if state["turn_total"] >= 12 else "roll"
                        ws.send(
                            json.dumps(
                                {
                                    "type": "action",
                                    "seat": 0,
                                    "token": token,
                                    "action": action,
                                    "expected_step": state["step"],
                                }
                            )
                        )
                    while True:
                        message = json.loads(ws.recv(timeout=10))
                        if message["type"] == "update":
                            state = message["state"]
                            break
                        assert message["type"] != "error", message
            wait_until(lambda: _state_if(client, robots_code, lambda s: s["finished"]), "the robots to finish")
            games = {c: client.get(f"/api/games/{c}").json() for c in (code, robots_code)}
    finally:
        crash(server)
    store = Store(f"sqlite:///{db}")
    for game_code, game in games.items():
        record = store.load_game(game_code)
        assert record is not None and record.finished
        _events_match_replay(game, [m.action for m in record.moves])
    assert games[code]["events"][: len(before["events"])] == before["events"]
