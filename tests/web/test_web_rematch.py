"""Rematch by agreement: an offer everyone sees, yes and no answers, one next game however many clicks and tabs
ask for it at once, the people keeping their seats (moved one place), and a clear error for every bad request."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from webhelpers import create_game, error_of, make_settings, receive_until

from pigdice.web.app import create_app
from pigdice.web.config import Settings
from pigdice.web.manager import RoomManager
from pigdice.web.rooms import GameRequest
from pigdice.web.store import Store


def _rematch(client: Any, code: str, tokens: dict[str, str], answer: str = "yes") -> Any:
    return client.post(f"/api/games/{code}/rematch", json={"tokens": tokens, "answer": answer})


def _resign(client: Any, code: str, seat: int, token: str) -> dict[str, Any]:
    reply = client.post(f"/api/games/{code}/resign", json={"seat": seat, "token": token})
    assert reply.status_code == 200, reply.text
    state: dict[str, Any] = reply.json()["state"]
    return state


def _ann_bo_and_a_robot(client: Any) -> tuple[str, dict[str, str], dict[str, str]]:
    """Ann (seat 0) and Bo (seat 1) play a robot (seat 2) and both resign: the robot wins. Return the room's code
    and Ann's and Bo's tokens."""
    data = create_game(client, players=["you", "friend", "hold:20"], name="Ann", goal=50)
    code = data["code"]
    bo = client.post(f"/api/games/{code}/join", json={"seat": 1, "name": "Bo"}).json()
    ann_tokens, bo_tokens = data["tokens"], {"1": bo["token"]}
    early = _rematch(client, code, ann_tokens)
    assert early.status_code == 409 and error_of(early)["code"] == "not_over"  # only once the game is over
    _resign(client, code, 0, ann_tokens["0"])
    assert _resign(client, code, 1, bo_tokens["1"])["winners"] == [2]
    return code, ann_tokens, bo_tokens


def test_a_rematch_starts_once_everyone_holding_a_seat_says_yes(client: Any) -> None:
    code, ann, bo = _ann_bo_and_a_robot(client)
    with client.websocket_connect(f"/ws/{code}") as watcher:  # a spectator sees the offer and where to go
        assert watcher.receive_json()["state"]["rematch"] == {"offer": None, "next": None, "ended": None}
        offered = _rematch(client, code, ann).json()
        assert offered["rematch"]["offer"] == {"by": 0, "accepted": [0], "waiting_for": [1]}  # robots say yes
        assert offered["tokens"] == {} and offered["rematch"]["next"] is None
        seen = receive_until(watcher, "rematch")
        assert seen["rematch"]["offer"]["waiting_for"] == [1]
        accepted = _rematch(client, code, bo).json()
        told = receive_until(watcher, "again")
    following = accepted["rematch"]["next"]
    new_code = following["code"]
    assert told["code"] == new_code and told["url"] == f"/play/{new_code}" == following["url"]
    assert told["seats"] == following["seats"] == {"0": 2, "1": 0, "2": 1}  # the old second player starts
    assert accepted["tokens"] == {"0": bo["1"]}  # Bo keeps his token, in his new seat
    new = client.get(f"/api/games/{new_code}").json()["state"]
    assert [(s["name"], s["kind"]) for s in new["seats"]] == [
        ("Bo", "human"),
        ("Wilbur", "robot"),
        ("Ann", "human"),
    ]
    assert new["waiting_for"] == [] and new["current"] == 0  # Bo kept his seat: nobody else can take it
    assert client.post(f"/api/games/{new_code}/join", json={"seat": 0, "name": "Mallory"}).status_code == 409
    move = {"seat": 0, "token": bo["1"], "action": "roll", "expected_step": 0}
    assert client.post(f"/api/games/{new_code}/actions", json=move).status_code == 200  # with his old token
    # a late yes, from another tab, leads to the same game; so does a late no
    late = _rematch(client, code, ann).json()
    assert late["rematch"]["next"]["code"] == new_code and late["tokens"] == {"2": ann["0"]}
    assert _rematch(client, code, ann, "no").json()["rematch"]["next"]["code"] == new_code
    # whoever opens the old game later (back from the review page, after a restart) is sent on
    assert client.get(f"/api/games/{code}").json()["state"]["rematch"]["next"]["code"] == new_code


def test_a_declined_or_withdrawn_offer_starts_nothing(client: Any) -> None:
    code, ann, bo = _ann_bo_and_a_robot(client)
    _rematch(client, code, ann)
    with client.websocket_connect(f"/ws/{code}") as watcher:
        watcher.receive_json()
        declined = _rematch(client, code, bo, "no").json()["rematch"]
        told = receive_until(watcher, "rematch")
    assert declined == {"offer": None, "next": None, "ended": {"how": "declined", "seat": 1, "name": "Bo"}}
    assert told["how"] == "declined" and told["name"] == "Bo"
    _rematch(client, code, bo)  # Bo offers now; he thinks again and withdraws
    withdrawn = _rematch(client, code, bo, "no").json()["rematch"]
    assert withdrawn["ended"] == {"how": "withdrawn", "seat": 1, "name": "Bo"} and withdrawn["offer"] is None
    no_offer = _rematch(client, code, ann, "no")
    assert no_offer.status_code == 409 and error_of(no_offer)["code"] == "no_offer"
    assert client.get(f"/api/games/{code}").json()["state"]["rematch"]["next"] is None


def test_bad_rematch_requests_get_a_coded_error_and_change_nothing(client: Any) -> None:
    code, ann, bo = _ann_bo_and_a_robot(client)
    _rematch(client, code, ann)
    before = client.get(f"/api/games/{code}").json()["state"]["rematch"]
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"tokens": {"0": "wrong"}}, 403, "wrong_token"),
        ({"tokens": {"x": ann["0"]}}, 400, "bad_seat"),
        ({"tokens": {"7": ann["0"]}}, 400, "bad_seat"),
        ({"tokens": {"2": ann["0"]}}, 403, "wrong_token"),  # the robot's seat: nobody answers for it
        ({"tokens": {}}, 422, "bad_request"),
        ({"tokens": bo, "answer": "maybe"}, 422, "bad_request"),
        ({"tokens": bo, "extra": 1}, 422, "bad_request"),
        ({"tokens": {"1": 5}}, 422, "bad_request"),
    ]
    for body, status, error in cases:
        reply = client.post(f"/api/games/{code}/rematch", json=body)
        assert reply.status_code == status and error_of(reply)["code"] == error, (body, reply.text)
    json_header = {"content-type": "application/json"}
    malformed = client.post(f"/api/games/{code}/rematch", content=b"{nope", headers=json_header)
    assert error_of(malformed)["code"] == "malformed_json"
    assert error_of(_rematch(client, "NoSuchRoom00", ann))["code"] == "unknown_room"
    assert client.get(f"/api/games/{code}").json()["state"]["rematch"] == before  # nothing changed


def test_a_hot_seat_rematch_keeps_both_seats_in_one_answer(client: Any) -> None:
    hot = create_game(client, players=["you", "you"], goal=6)
    _resign(client, hot["code"], 0, hot["tokens"]["0"])
    reply = _rematch(client, hot["code"], hot["tokens"]).json()  # this browser holds both seats: one yes for both
    assert reply["tokens"] == {"1": hot["tokens"]["0"], "0": hot["tokens"]["1"]}
    assert reply["rematch"]["next"] is not None


def test_many_tabs_saying_yes_at_once_start_exactly_one_game(client: Any) -> None:
    code, ann, bo = _ann_bo_and_a_robot(client)
    clicks = [ann, bo] * 12  # every tab of both players clicks at the same moment
    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda tokens: _rematch(client, code, tokens).json(), clicks))
    started = {reply["rematch"]["next"]["code"] for reply in replies if reply["rematch"]["next"]}
    assert len(started) == 1  # one game, which everyone still asking reaches
    final = client.get(f"/api/games/{code}").json()["state"]["rematch"]["next"]["code"]
    assert started == {final}
    store = client.app.state.manager.store
    assert store.count_open_games() == 1  # the new game, and no other


def test_concurrent_answers_in_the_server_give_one_next_game(tmp_path: Path) -> None:
    async def scenario() -> tuple[set[str], int]:
        settings = make_settings(tmp_path)
        store = Store(settings.database_url)
        store.migrate()
        manager = RoomManager(store, settings)
        room, tokens = await manager.create(GameRequest("pig", 30), ["you", "you"], None)
        await room.resign(0, tokens[0])  # the game is over: seat 1 wins
        mine = {str(seat): token for seat, token in tokens.items()}
        replies = await asyncio.gather(*(manager.rematch(room, mine, "yes") for _ in range(30)))
        await manager.close()
        return {r["rematch"]["next"]["code"] for r in replies}, store.count_open_games()

    codes, open_games = asyncio.run(scenario())
    assert len(codes) == 1 and open_games == 1


def test_the_rematch_link_survives_a_restart(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        data = create_game(client, players=["you", "hold:20"], goal=50)
        code = data["code"]
        _resign(client, code, 0, data["tokens"]["0"])
        new_code = _rematch(client, code, data["tokens"]).json()["rematch"]["next"]["code"]  # robots say yes
    with TestClient(create_app(settings)) as client:
        following = client.get(f"/api/games/{code}").json()["state"]["rematch"]["next"]
        assert following == {"code": new_code, "url": f"/play/{new_code}", "seats": {"0": 1, "1": 0}}
