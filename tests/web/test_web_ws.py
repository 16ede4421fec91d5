"""The websocket: live updates, every kind of bad message, tokens, rate limits, serialised actions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from webhelpers import create_game, make_settings, receive_until

from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.manager import RoomManager
from pigdice.web.rooms import GameRequest
from pigdice.web.store import Store


def _action(seat: int, token: str, action: str, step: int, **extra: Any) -> dict[str, Any]:
    return {"type": "action", "seat": seat, "token": token, "action": action, "expected_step": step, **extra}


def test_welcome_has_state_and_history(client: Any) -> None:
    data = create_game(client, players=["you", "you"])
    code, tokens = data["code"], data["tokens"]
    client.post(f"/api/games/{code}/actions", json=_strip(_action(0, tokens["0"], "roll", 0)))
    with client.websocket_connect(f"/ws/{code}") as ws:
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome"
        assert welcome["state"]["step"] == 1
        assert welcome["events"][0]["type"] == "Rolled" and welcome["events"][0]["line"]


def _strip(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k != "type"}


def test_unknown_room_is_refused(client: Any) -> None:
    with client.websocket_connect("/ws/nosuchroom123") as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and message["code"] == "unknown_room"


def test_bad_messages_get_clear_errors_and_change_nothing(client: Any) -> None:
    data = create_game(client, players=["you", "friend"])
    code, mine = data["code"], data["tokens"]["0"]
    friend = client.post(f"/api/games/{code}/join", json={"seat": 1}).json()["token"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        welcome = ws.receive_json()
        bad: list[tuple[Any, str]] = [
            ("{not json", "malformed_json"),
            ("[1, 2", "malformed_json"),
            (json.dumps({"type": "dance"}), "bad_message"),
            (json.dumps({"no": "type"}), "bad_message"),
            (json.dumps(_action(0, mine, "roll", 0) | {"dice": 6}), "bad_message"),  # clients never send dice
            (json.dumps(_action(0, mine, "roll", 0) | {"seat": "0"}), "bad_message"),
            (json.dumps(_action(1, mine, "roll", 0)), "wrong_token"),  # acting for another seat
            (json.dumps(_action(0, friend, "roll", 0)), "wrong_token"),
            (json.dumps(_action(1, friend, "roll", 0)), "not_your_turn"),
            (json.dumps(_action(0, mine, "roll", 3)), "stale_step"),
            (json.dumps(_action(0, mine, "fly", 0)), "illegal_action"),
            (json.dumps(_action(0, mine, "roll:2", 0)), "illegal_action"),
            (json.dumps({"type": "join", "seat": 0}), "seat_taken"),
            (json.dumps({"type": "join"}), "room_full"),
            (json.dumps({"type": "hint", "seat": 1, "token": mine}), "wrong_token"),
            ("x" * 5000, "message_too_large"),
        ]
        for text, code_name in bad:
            ws.send_text(text)
            reply = receive_until(ws, "error")
            assert reply["code"] == code_name, (text[:60], reply)
            assert reply["message"]
        ws.send_bytes(b"\x00\x01")
        assert receive_until(ws, "error")["code"] == "bad_message"
        ws.send_json({"type": "hello", "tokens": {"0": mine, "1": mine, "x": "y"}})
        hello = receive_until(ws, "hello")
        assert hello["seats"] == [0] and sorted(hello["refused"]) == ["1", "x"]
        ws.send_json({"type": "ping", "id": 7})
        assert receive_until(ws, "pong")["id"] == 7
    state = client.get(f"/api/games/{code}").json()
    assert state["state"]["step"] == 0 and state["events"] == []
    assert state["state"]["scores"] == welcome["state"]["scores"]


def test_two_players_see_each_others_rolls(client: Any) -> None:
    data = create_game(client, players=["you", "friend"])
    code, mine = data["code"], data["tokens"]["0"]
    with client.websocket_connect(f"/ws/{code}") as alice, client.websocket_connect(f"/ws/{code}") as bob:
        alice.receive_json()
        bob.receive_json()
        bob.send_json({"type": "join", "seat": 1, "name": "Bob"})
        joined = receive_until(bob, "joined")
        bob_token = joined["token"]
        assert receive_until(alice, "seats")["state"]["seats"][1]["name"] == "Bob"
        alice.send_json(_action(0, mine, "roll", 0))
        seen_by_alice = receive_until(alice, "update")
        seen_by_bob = receive_until(bob, "update")
        assert seen_by_alice == seen_by_bob
        assert seen_by_bob["events"][0]["type"] == "Rolled" and seen_by_bob["seat"] == 0
        # play until it is Bob's turn, then Bob acts and Alice sees it
        state = seen_by_alice["state"]
        while state["current"] == 0 and not state["finished"]:
            alice.send_json(_action(0, mine, "hold" if state["turn_total"] else "roll", state["step"]))
            state = receive_until(alice, "update")["state"]
            receive_until(bob, "update")
        bob.send_json(_action(1, bob_token, "roll", state["step"]))
        assert receive_until(alice, "update")["seat"] == 1


def test_spectator_gets_live_updates_but_cannot_act(client: Any) -> None:
    data = create_game(client, players=["you", "hold:20"])
    code = data["code"]
    with client.websocket_connect(f"/ws/{code}") as watcher:
        watcher.receive_json()
        watcher.send_json(_action(0, "guess", "roll", 0))
        assert receive_until(watcher, "error")["code"] == "wrong_token"
        client.post(f"/api/games/{code}/actions", json=_strip(_action(0, data["tokens"]["0"], "roll", 0)))
        assert receive_until(watcher, "update")["step"] == 1


def test_rate_limit(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from pigdice.web.app import create_app

    settings = make_settings(tmp_path, rate_per_second=5.0, rate_burst=5.0)
    with TestClient(create_app(settings)) as client:
        code = create_game(client)["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.receive_json()
            for n in range(12):
                ws.send_json({"type": "ping", "id": n})
            replies = [ws.receive_json() for _ in range(12)]
            limited = [r for r in replies if r["type"] == "error"]
            assert limited and all(r["code"] == "rate_limited" for r in limited)
            assert sum(r["type"] == "pong" for r in replies) <= 6


@pytest.mark.parametrize(("players", "goal"), [(["hold:10", "hold:15"], 25), (["optimal", "keep-pace"], 30)])
def test_robots_play_a_whole_game_and_everyone_sees_it(client: Any, players: list[str], goal: int) -> None:
    data = create_game(client, players=players, goal=goal)
    with client.websocket_connect(f"/ws/{data['code']}") as ws:
        state = ws.receive_json()["state"]
        while not state["finished"]:
            state = receive_until(ws, "update")["state"]
    assert max(state["scores"]) >= goal


def test_swine_herd_group_game(client: Any) -> None:
    data = create_game(client, variant="swine-herd", players=["you", "friend", "hold:6"], goal=15)
    code, mine = data["code"], data["tokens"]["0"]
    friend = client.post(f"/api/games/{code}/join", json={"seat": 1}).json()["token"]
    tokens = {0: mine, 1: friend}
    with client.websocket_connect(f"/ws/{code}") as ws:
        state = ws.receive_json()["state"]
        assert state["standing"] == [True, True, True]
        rolled_for_everyone = False
        for _ in range(400):
            if state["finished"]:
                break
            if state["turn_total"] > 0:  # every standing person chooses now (the first roll of a turn is everyone's)
                for seat in state["to_choose"]:
                    if seat in tokens:
                        assert state["standing"][seat]
                        action = "hold" if state["turn_total"] >= 5 + seat else "roll"
                        ws.send_json(_action(seat, tokens[seat], action, state["step"]))
            update = receive_until(ws, "update")
            rolled_for_everyone |= any(e["type"] == "Rolled" and e["player"] == -1 for e in update["events"])
            state = update["state"]
        assert state["finished"] and rolled_for_everyone


def test_hint_over_websocket(client: Any) -> None:
    data = create_game(client, players=["you", "hold:20"], goal=40)
    with client.websocket_connect(f"/ws/{data['code']}") as ws:
        ws.receive_json()
        ws.send_json({"type": "hint", "seat": 0, "token": data["tokens"]["0"], "id": "h1"})
        hint = receive_until(ws, "hint")
        assert hint["id"] == "h1" and hint["best"] == "roll" and 0 < hint["win_probability"] < 1


def test_two_quick_clicks_roll_once(tmp_path: Path) -> None:
    """Two identical actions sent at once: the room lock and the expected step let exactly one through."""

    async def scenario() -> tuple[list[Any], int]:
        store = Store(f"sqlite:///{tmp_path / 'lock.sqlite3'}")
        store.migrate()
        manager = RoomManager(store, Settings(database_url=store.url, robot_delay=0))
        room, tokens = await manager.create(GameRequest("pig", 50), ["you", "you"], None)
        results = await asyncio.gather(*(room.act(0, tokens[0], "roll", 0) for _ in range(5)), return_exceptions=True)
        await manager.close()
        return list(results), room.state.step

    results, step = asyncio.run(scenario())
    assert step == 1
    assert sum(isinstance(r, dict) for r in results) == 1
    assert all(isinstance(r, WebError) and r.code == "stale_step" for r in results if not isinstance(r, dict))


def test_a_move_that_cannot_be_stored_is_not_played(tmp_path: Path) -> None:
    """Write before broadcast: a failed write refuses the move, keeps the dice generator, and tells nobody."""

    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'fail.sqlite3'}")
        store.migrate()
        manager = RoomManager(store, Settings(database_url=store.url, robot_delay=0))
        room, tokens = await manager.create(GameRequest("pig", 30), ["you", "you"], None)
        sent: list[str] = []

        async def capture(text: str) -> None:
            sent.append(text)

        from pigdice.web.live import Connection

        watcher = Connection(capture)
        watcher.start()
        room.connections.add(watcher)
        real = store.record_moves

        def broken(moves: Any) -> None:
            raise OSError("disk full")

        store.record_moves = broken  # type: ignore[method-assign]
        try:
            await room.act(0, tokens[0], "roll", 0)
            raise AssertionError("the move should have been refused")
        except WebError as exc:
            assert exc.code == "storage_failed"
        assert watcher.queue.empty()  # nothing was queued for anyone (broadcasts are queued synchronously)
        assert room.state.step == 0 and room.history == [] and sent == []
        store.record_moves = real  # type: ignore[method-assign]
        update = await room.act(0, tokens[0], "roll", 0)
        async with asyncio.timeout(5):  # the watcher's writer task sends it soon
            while not sent:
                await asyncio.sleep(0.001)
        assert len(sent) == 1 and json.loads(sent[0])["step"] == 1
        # the refused attempt did not use up a throw: the game is exactly the replay of its stored log
        from pigdice.engine.events import Rolled
        from pigdice.engine.game import parse_action, replay
        from pigdice.rules import find_variant

        record = store.load_game(room.code)
        assert record is not None
        _, events = replay(find_variant("pig", goal=30), 2, room.seed, [parse_action(m.action) for m in record.moves])
        first = events[0]
        assert isinstance(first, Rolled)
        assert update["events"][0]["faces"] == list(first.faces or ())
        await watcher.stop()
        await manager.close()

    asyncio.run(scenario())
