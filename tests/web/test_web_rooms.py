"""Rooms: resigning, the turn timer of online rooms (a timeout passes the turn; repeated ones open the seat),
and spectators counted."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from webhelpers import create_game, error_of, make_settings, receive_until, wait_until

from pigdice.web.app import create_app


def _resign(client: Any, code: str, seat: int, token: str) -> Any:
    return client.post(f"/api/games/{code}/resign", json={"seat": seat, "token": token})


def test_resigning_ends_a_two_player_game_and_is_logged(client: Any) -> None:
    data = create_game(client, players=["you", "hold:20"], goal=50)
    code, token = data["code"], data["tokens"]["0"]
    assert _resign(client, code, 0, "not-the-token").status_code == 403
    reply = _resign(client, code, 0, token)
    assert reply.status_code == 200, reply.text
    state = reply.json()["state"]
    assert state["finished"] and state["winners"] == [1] and state["resigned"] == [0]
    assert [e["type"] for e in reply.json()["events"]] == ["Resigned", "GameOver"]
    assert error_of(_resign(client, code, 0, token))["code"] == "game_over"
    record = client.get(f"/api/games/{code}/record").json()
    assert record["moves"][-1]["action"] == "resign:0" and client.get(f"/api/games/{code}/verify").json()["ok"]


def test_a_resigned_seat_is_skipped_while_the_others_play_on(client: Any) -> None:
    data = create_game(client, players=["you", "you", "you"], goal=50)
    code, tokens = data["code"], data["tokens"]
    state = _resign(client, code, 1, tokens["1"]).json()["state"]  # not seat 1's turn: nothing else happens
    assert not state["finished"] and state["current"] == 0 and state["resigned"] == [1]
    assert error_of(_resign(client, code, 1, tokens["1"]))["code"] == "already_resigned"
    body = {"seat": 0, "token": tokens["0"], "action": "hold", "expected_step": state["step"]}
    state = client.post(f"/api/games/{code}/actions", json=body).json()["state"]
    assert state["current"] == 2  # seat 1 is skipped


@pytest.fixture
def timed(tmp_path: Path) -> Any:
    """A client of an app whose online rooms give a person 1 s per decision and open a seat after 2 timeouts."""
    settings = make_settings(tmp_path, turn_seconds=1.0, skips_to_free_seat=2)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_online_turns_are_timed_and_a_silent_seat_opens(timed: Any) -> None:
    data = create_game(timed, players=["you", "friend"], goal=50)
    code, mine = data["code"], data["tokens"]["0"]
    assert data["state"]["deadline"] is None  # the game has not started: nobody is waiting yet
    bo = timed.post(f"/api/games/{code}/join", json={"seat": 1, "name": "Bo"}).json()
    state = bo["state"]
    assert state["turn_seconds"] == 1.0 and state["deadline"] > time.time() - 1

    # I say nothing: my turn passes to Bo; he says nothing: it comes back; I move; he says nothing again
    def turn_of(seat: int) -> Any:
        state = timed.get(f"/api/games/{code}").json()["state"]
        return state["current"] == seat and state

    wait_until(lambda: turn_of(1), "my timeout")
    state = wait_until(lambda: turn_of(0), "Bo's first timeout")
    body = {"seat": 0, "token": mine, "action": "hold", "expected_step": state["step"]}
    assert timed.post(f"/api/games/{code}/actions", json=body).status_code == 200  # my timeouts reset
    opened = wait_until(
        lambda: (s := timed.get(f"/api/games/{code}").json()["state"])["waiting_for"] == [1] and s,
        "Bo's seat to open",
        timeout=10,
    )
    events = timed.get(f"/api/games/{code}").json()["events"]
    timeouts = [e["player"] for e in events if e["type"] == "TimedOut"]
    assert timeouts.count(1) == 2 and opened["deadline"] is None  # waiting for someone to take the seat
    move = {"seat": 1, "token": bo["token"], "action": "roll", "expected_step": opened["step"]}
    assert timed.post(f"/api/games/{code}/actions", json=move).status_code == 403  # his old token no longer acts
    again = timed.post(f"/api/games/{code}/join", json={"seat": 1, "name": "Cy"})
    assert again.status_code == 200 and again.json()["state"]["deadline"] is not None


def test_games_against_robots_and_hot_seat_games_are_not_timed(timed: Any) -> None:
    for players in (["you", "hold:20"], ["you", "you"]):
        data = create_game(timed, players=players, goal=50)
        time.sleep(1.5)
        state = timed.get(f"/api/games/{data['code']}").json()["state"]
        assert state["step"] == 0 and state["deadline"] is None and state["turn_seconds"] is None


def test_spectators_are_counted(client: Any) -> None:
    data = create_game(client, players=["you", "friend"], goal=50)
    code = data["code"]
    with client.websocket_connect(f"/ws/{code}") as player:
        player.receive_json()
        player.send_json({"type": "hello", "tokens": data["tokens"]})
        receive_until(player, "hello")
        with client.websocket_connect(f"/ws/{code}") as watcher:
            welcome = watcher.receive_json()
            assert welcome["state"]["spectators"] == 1
            assert receive_until(player, "watchers")["spectators"] == 1
        assert receive_until(player, "watchers")["spectators"] == 0
