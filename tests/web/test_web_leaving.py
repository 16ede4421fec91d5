"""Leaving a game: abort before anyone plays, claim the seat of a player who left (away past the grace period,
or opened after timeouts), the freed seat's holder told why; names that never say "You" to others; the date a
game was played; seeded dice."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from webhelpers import create_game, error_of, make_settings, receive_until

from pigdice.web.app import create_app
from pigdice.web.manager import seeds_from

pytestmark = pytest.mark.timeout(120)


def _post(client: Any, code: str, what: str, **body: Any) -> Any:
    return client.post(f"/api/games/{code}/{what}", json=body)


def _roll(client: Any, code: str, seat: int, token: str, step: int) -> Any:
    return _post(client, code, "actions", seat=seat, token=token, action="roll", expected_step=step)


# -- abort ----------------------------------------------------------------------------------------
def test_a_game_can_be_called_off_before_anyone_plays(client: Any) -> None:
    data = create_game(client, players=["you", "friend"], name="Ann", goal=50)
    code, ann = data["code"], data["tokens"]["0"]
    assert data["state"]["can_abort"]
    with client.websocket_connect(f"/ws/{code}") as watcher:
        watcher.receive_json()
        reply = _post(client, code, "abort", seat=0, token=ann)
        told = receive_until(watcher, "closed")
    assert reply.status_code == 200, reply.text
    state = reply.json()["state"]
    assert state["aborted"] and not state["can_abort"] and not state["finished"] and state["winners"] is None
    assert state["closed"] == "Ann called the game off before it began" and told["aborted"]
    assert error_of(client.post(f"/api/games/{code}/join", json={"seat": 1}))["code"] == "room_closed"
    assert error_of(_post(client, code, "abort", seat=0, token=ann))["code"] == "room_closed"
    assert client.app.state.manager.store.load_game(code).status == "aborted"  # kept, with no result


def test_after_a_persons_decision_the_game_can_no_longer_be_called_off(client: Any) -> None:
    data = create_game(client, players=["you", "you"], goal=50)
    code, tokens = data["code"], data["tokens"]
    assert _roll(client, code, 0, tokens["0"], 0).status_code == 200
    late = _post(client, code, "abort", seat=1, token=tokens["1"])
    assert late.status_code == 409 and error_of(late)["code"] == "too_late" and "resign" in error_of(late)["message"]
    assert not client.get(f"/api/games/{code}").json()["state"]["closed"]


def test_a_robots_moves_do_not_stop_a_person_calling_the_game_off(client: Any) -> None:
    data = create_game(client, players=["hold:20", "you"], goal=50)
    code = data["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        welcome = ws.receive_json()
        if welcome["state"]["step"] == 0:
            receive_until(ws, "update")  # the robot moves first
    assert _post(client, code, "abort", seat=1, token=data["tokens"]["1"]).status_code == 200


def test_bad_abort_requests_get_a_coded_error_and_change_nothing(client: Any) -> None:
    data = create_game(client, players=["you", "hold:20"], goal=50)
    code, token = data["code"], data["tokens"]["0"]
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"seat": 0, "token": "wrong"}, 403, "wrong_token"),
        ({"seat": 1, "token": token}, 403, "wrong_token"),  # a robot's seat
        ({"seat": 9, "token": token}, 400, "bad_seat"),
        ({"seat": 0}, 422, "bad_request"),
        ({"seat": "0", "token": token}, 422, "bad_request"),
        ({"seat": 0, "token": token, "why": "bored"}, 422, "bad_request"),
    ]
    for body, status, error in cases:
        reply = client.post(f"/api/games/{code}/abort", json=body)
        assert reply.status_code == status and error_of(reply)["code"] == error, (body, reply.text)
    assert error_of(_post(client, "NoSuchRoom00", "abort", seat=0, token=token))["code"] == "unknown_room"
    assert not client.get(f"/api/games/{code}").json()["state"]["closed"]


# -- a seat left behind ------------------------------------------------------------------------------
def _seats_until(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Read the socket's messages until a "seats" message for which ``wanted`` is true; return it."""
    for _ in range(100):
        message = receive_until(ws, "seats")
        if wanted(message):
            return message
    raise AssertionError("no such seats message in 100")


@pytest.fixture
def brief(tmp_path: Path) -> Iterator[TestClient]:
    """An app whose people count as gone 0.3 s after their last connection closes (turns are not timed)."""
    settings = make_settings(tmp_path, away_seconds=0.3, turn_seconds=0.0)
    with TestClient(create_app(settings, seeds_from(np.random.default_rng(1)))) as test_client:
        yield test_client


def _sit_with(client: Any, players: list[str], names: list[str]) -> tuple[str, dict[int, str]]:
    """Create a room for ``players`` (the first is me, Ann) and let the friends named ``names`` take their seats."""
    data = create_game(client, players=players, name="Ann", goal=50)
    code, tokens = data["code"], {0: data["tokens"]["0"]}
    for seat, name in enumerate(names, start=1):
        tokens[seat] = client.post(f"/api/games/{code}/join", json={"seat": seat, "name": name}).json()["token"]
    return code, tokens


def test_a_player_away_past_the_grace_period_can_be_claimed(brief: Any) -> None:
    code, tokens = _sit_with(brief, ["you", "friend"], ["Bo"])
    with brief.websocket_connect(f"/ws/{code}") as ann:
        ann.receive_json()
        with brief.websocket_connect(f"/ws/{code}") as bo:
            bo.receive_json()
            bo.send_json({"type": "hello", "tokens": {"1": tokens[1]}})
            receive_until(bo, "hello")
            early = _post(brief, code, "claim", seat=0, token=tokens[0], absent=1)
            assert error_of(early)["code"] == "not_left" and "still playing" in error_of(early)["message"]
        gone = _seats_until(ann, lambda m: "1" in m["state"]["away"])  # Bo's page closed: his grace period starts
        assert gone["state"]["away_seconds"] == 0.3
        room = brief.app.state.manager.rooms[code]
        since = room.away[1]
        assert room.left_behind(now=since + 0.29) == [] and room.left_behind(now=since + 0.31) == [1]
        left = _seats_until(ann, lambda m: m.get("left") == 1)  # the server says so when the grace period is over
        assert left["state"]["left_behind"] == [1]
        reply = _post(brief, code, "claim", seat=0, token=tokens[0], absent=1)
        assert reply.status_code == 200, reply.text
    state = reply.json()["state"]
    assert state["finished"] and state["winners"] == [0] and state["claims"] == {"1": 0}
    line = next(e["line"] for e in reply.json()["events"] if e["type"] == "Resigned")
    assert line == "Bo was away too long and left the game: Ann claimed the win"
    record = brief.get(f"/api/games/{code}/record").json()
    assert record["moves"][-1]["action"] == "resign:1"  # played by Ann, so the log tells a claim from a resignation
    # Bo comes back: his seat is still his (he can see the end and offer a rematch), and he sees why he lost
    with brief.websocket_connect(f"/ws/{code}") as bo:
        welcome = bo.receive_json()
        assert welcome["state"]["claims"] == {"1": 0}
        assert any("Ann claimed the win" in e["line"] for e in welcome["events"])


def test_with_three_players_the_others_play_on_without_the_one_who_left(brief: Any) -> None:
    code, tokens = _sit_with(brief, ["you", "friend", "friend"], ["Bo", "Cy"])
    with brief.websocket_connect(f"/ws/{code}") as ann:
        ann.receive_json()
        with brief.websocket_connect(f"/ws/{code}") as cy:
            cy.receive_json()
            cy.send_json({"type": "hello", "tokens": {"2": tokens[2]}})
            receive_until(cy, "hello")
        _seats_until(ann, lambda m: m.get("left") == 2)
    reply = _post(brief, code, "claim", seat=1, token=tokens[1], absent=2)  # Bo claims: the game goes on
    state = reply.json()["state"]
    assert not state["finished"] and state["resigned"] == [2] and state["claims"] == {"2": 1}
    lines = [e["line"] for e in reply.json()["events"]]
    assert lines == ["Cy was away too long and left the game: Bo plays on without them"]
    assert _roll(brief, code, 0, tokens[0], state["step"]).status_code == 200


def test_a_seat_opened_after_timeouts_can_be_claimed_and_its_holder_is_told(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, turn_seconds=0.3, skips_to_free_seat=1)
    with TestClient(create_app(settings)) as client:
        data = create_game(client, players=["friend", "you"], name="Ann", goal=50)  # Bo, who never moves, starts
        code, ann = data["code"], data["tokens"]["1"]
        with client.websocket_connect(f"/ws/{code}") as watch:
            watch.receive_json()
            bo = client.post(f"/api/games/{code}/join", json={"seat": 0, "name": "Bo"}).json()["token"]
            freed = _seats_until(watch, lambda m: "freed" in m)
        assert freed["freed"] == 0 and freed["reason"] == "Bo ran out of time 1 times in a row"
        assert freed["state"]["left_behind"] == [0] and freed["state"]["freed"] == [0]
        with client.websocket_connect(f"/ws/{code}") as back:  # Bo's page comes back and is told why
            back.receive_json()
            back.send_json({"type": "hello", "tokens": {"0": bo}})
            hello = receive_until(back, "hello")
        assert hello["refused"] == ["0"] and hello["reasons"] == {"0": "freed"}
        reply = _post(client, code, "claim", seat=1, token=ann, absent=0)
        assert reply.status_code == 200, reply.text
        assert reply.json()["state"]["winners"] == [1]


def test_bad_claims_get_a_coded_error_and_change_nothing(brief: Any) -> None:
    code, tokens = _sit_with(brief, ["you", "friend"], ["Bo"])
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"seat": 0, "token": tokens[0], "absent": 0}, 400, "bad_seat"),  # your own seat: resign instead
        ({"seat": 0, "token": tokens[0], "absent": 5}, 400, "bad_seat"),
        ({"seat": 0, "token": tokens[0], "absent": 1}, 409, "not_left"),  # Bo never left
        ({"seat": 0, "token": tokens[1], "absent": 1}, 403, "wrong_token"),
        ({"seat": 0, "token": tokens[0]}, 422, "bad_request"),
        ({"seat": 0, "token": tokens[0], "absent": -1}, 422, "bad_request"),
        ({"seat": 0, "token": tokens[0], "absent": True}, 422, "bad_request"),
    ]
    for body, status, error in cases:
        reply = brief.post(f"/api/games/{code}/claim", json=body)
        assert reply.status_code == status and error_of(reply)["code"] == error, (body, reply.text)
    state = brief.get(f"/api/games/{code}").json()["state"]
    assert state["claims"] == {} and state["resigned"] == [] and state["step"] == 0


def test_a_robot_room_has_nobody_to_leave_behind(client: Any) -> None:
    data = create_game(client, players=["you", "hold:20"], goal=50)
    reply = _post(client, data["code"], "claim", seat=0, token=data["tokens"]["0"], absent=1)
    assert reply.status_code == 409 and error_of(reply)["code"] == "not_left"


# -- names, dates, seeds ------------------------------------------------------------------------------
def test_unnamed_people_are_players_by_number_never_you(client: Any) -> None:
    data = create_game(client, players=["you", "friend"], goal=6)
    code = data["code"]
    joined = client.post(f"/api/games/{code}/join", json={"seat": 1}).json()
    assert [s["name"] for s in joined["state"]["seats"]] == ["Player 1", "Player 2"]
    hot = create_game(client, players=["you", "you"], goal=6)["state"]
    assert [s["name"] for s in hot["seats"]] == ["Player 1", "Player 2"]
    named = create_game(client, players=["you", "you"], name="Ann", goal=6)["state"]
    assert [s["name"] for s in named["seats"]] == ["Ann 1", "Ann 2"]
    _roll(client, code, 0, data["tokens"]["0"], 0)
    _post(client, code, "resign", seat=1, token=joined["token"])
    events = client.get(f"/api/games/{code}").json()["events"]
    assert events and not any("You" in e["line"] for e in events)
    assert events[-1]["line"] == "Game over: Player 1 wins"


def test_records_carry_the_date_played(client: Any) -> None:
    data = create_game(client, players=["you", "hold:20"], goal=6)
    record = client.get(f"/api/games/{data['code']}/record").json()
    played = datetime.fromisoformat(record["played_at"])
    assert abs((datetime.now(UTC) - played).total_seconds()) < 600
    assert data["state"]["played_at"] == record["played_at"]


def test_a_seeded_source_gives_the_same_dice(tmp_path: Path) -> None:
    rolls = []
    for run in range(2):
        settings = make_settings(tmp_path / str(run))
        (tmp_path / str(run)).mkdir()
        with TestClient(create_app(settings, seeds_from(np.random.default_rng(42)))) as client:
            data = create_game(client, players=["you", "you"], goal=50)
            rolled = [e for e in _roll(client, data["code"], 0, data["tokens"]["0"], 0).json()["events"]]
            rolls.append([e["faces"] for e in rolled if e["type"] == "Rolled"])
    assert rolls[0] == rolls[1] and rolls[0]
