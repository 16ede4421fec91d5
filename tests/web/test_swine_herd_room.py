"""Swine Herd on the web: every standing seat chooses at the same time, the choices stay hidden until all have
chosen, then one update shows them all with the roll; the log keeps the engine's order, so games replay."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from webhelpers import create_game, error_of, make_settings, receive_until, wait_until

from pigdice.engine.events import event_to_json
from pigdice.engine.game import GameState, Hold, Roll
from pigdice.engine.record import parse_record, replay_record
from pigdice.engine.simultaneous import apply_choices
from pigdice.web.app import create_app
from pigdice.web.config import Settings
from pigdice.web.manager import RoomManager
from pigdice.web.rooms import GameRequest
from pigdice.web.store import GameRecord, MoveWrite, SeatRecord, Store, StoreError

pytestmark = pytest.mark.timeout(120)

SLOW = 600.0  # a robot delay the tests never wait for: the server makes no choice by itself in them


@pytest.fixture
def slow(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app whose server never gets to choose by itself (people stand for first rolls themselves)."""
    with TestClient(create_app(make_settings(tmp_path, robot_delay=SLOW))) as test_client:
        yield test_client


def _act(client: Any, code: str, seat: int, token: str, action: str, step: int) -> Any:
    body = {"seat": seat, "token": token, "action": action, "expected_step": step}
    return client.post(f"/api/games/{code}/actions", json=body)


def _state(client: Any, code: str) -> dict[str, Any]:
    state: dict[str, Any] = client.get(f"/api/games/{code}").json()["state"]
    return state


def _choice_ahead(client: Any, code: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Stand every person for the turn's first roll (``slow`` rooms) until there is a real choice; return the state."""
    for _ in range(100):
        state = _state(client, code)
        assert not state["finished"]
        if state["turn_total"] > 0:
            return state
        for seat in state["to_choose"]:
            reply = _act(client, code, seat, tokens[seat], "roll", state["step"])
            assert reply.status_code == 200, reply.text
    raise AssertionError("no turn total after 100 first rolls")


def _waiting_choice(client: Any, code: str, people: tuple[int, ...] = (0, 1)) -> dict[str, Any]:
    """Wait (in rooms whose server stands everyone for first rolls) until ``people`` all have a real choice to make."""
    return wait_until(
        lambda: (s := _state(client, code))["turn_total"] > 0 and set(people) <= set(s["to_choose"]) and s,
        "a moment with a choice",
    )


def _drain(ws: Any, until: str) -> list[dict[str, Any]]:
    """Return every message of ``ws`` up to and including the first of type ``until``."""
    seen: list[dict[str, Any]] = []
    for _ in range(200):
        message: dict[str, Any] = ws.receive_json()
        seen.append(message)
        if message["type"] == until:
            return seen
    raise AssertionError(f"no {until!r} message")


def test_a_choice_stays_hidden_until_everyone_standing_has_chosen(client: Any) -> None:
    data = create_game(client, variant="swine-herd", players=["you", "friend"], goal=40, name="Ann")
    code, ann = data["code"], data["tokens"]["0"]
    bo = client.post(f"/api/games/{code}/join", json={"seat": 1, "name": "Bo"}).json()["token"]
    moment = _waiting_choice(client, code)
    assert moment["choosing"] == [0, 1] and moment["to_choose"] == [0, 1] and moment["chosen"] == []
    before = client.get(f"/api/games/{code}").json()
    with (
        client.websocket_connect(f"/ws/{code}") as ann_ws,
        client.websocket_connect(f"/ws/{code}") as bo_ws,
        client.websocket_connect(f"/ws/{code}") as watcher,
    ):
        for ws, tokens in ((ann_ws, {"0": ann}), (bo_ws, {"1": bo}), (watcher, None)):
            assert ws.receive_json()["type"] == "welcome"
            if tokens:
                ws.send_json({"type": "hello", "tokens": tokens})
                receive_until(ws, "hello")
        step = moment["step"]
        ann_ws.send_json({"type": "action", "seat": 0, "token": ann, "action": "hold", "expected_step": step})
        for ws in (ann_ws, bo_ws, watcher):
            chosen = receive_until(ws, "chosen")
            assert chosen["seats"] == [0] and "action" not in chosen  # who chose, never what
            assert chosen["state"]["chosen"] == [0] and chosen["state"]["to_choose"] == [1]
            assert chosen["state"]["step"] == step and chosen["state"]["scores"] == moment["scores"]
            assert chosen["state"]["standing"] == [True, True]
        # the snapshot and the history say nothing more than "Ann has chosen"
        now = client.get(f"/api/games/{code}").json()
        assert now["events"] == before["events"] and now["state"]["chosen"] == [0]
        # (and that a person has decided, so the game can no longer be called off)
        moving = ("chosen", "to_choose", "spectators", "seats", "can_abort")
        assert {k: v for k, v in now["state"].items() if k not in moving} == {
            k: v for k, v in before["state"].items() if k not in moving
        }
        # Ann may not change her mind; Bo's choice reveals both at once, with the roll
        again = _act(client, code, 0, ann, "roll", step)
        assert again.status_code == 409 and error_of(again)["code"] == "already_chosen"
        bo_ws.send_json({"type": "action", "seat": 1, "token": bo, "action": "roll", "expected_step": step})
        seen = {name: _drain(ws, "update") for name, ws in (("ann", ann_ws), ("bo", bo_ws), ("watcher", watcher))}
    for messages in seen.values():
        assert all(m["type"] != "error" for m in messages), messages
        assert [m["type"] for m in messages].count("update") == 1
        # Bo's side learned nothing of Ann's choice before his own was in
        assert "Banked" not in json.dumps(messages[:-1])
        update = messages[-1]
        assert update["choices"] == [
            {"seat": 0, "action": "hold", "step": step + 1},
            {"seat": 1, "action": "roll", "step": step + 2},
        ]
        kinds = [(e["type"], e.get("player")) for e in update["events"]]
        assert kinds[:3] == [("Banked", 0), ("StayedStanding", 1), ("Rolled", -1)]
        assert update["state"]["chosen"] == [] and update["state"]["scores"][0] == moment["turn_total"]
    state = seen["bo"][-1]["state"]
    assert state["standing"][0] is False or state["turn"] > moment["turn"]


class Recorder:
    """A robot that stays standing and remembers the state it chose on and what the room's choices were then."""

    def __init__(self, room: Any) -> None:
        self.room = room
        self.seen: list[tuple[GameState, dict[int, Any]]] = []

    def choose(self, state: GameState, rng: np.random.Generator) -> Roll | Hold:
        self.seen.append((state, dict(self.room.choices)))
        return Roll()


def test_robots_choose_on_the_moment_without_seeing_a_choice_of_it(tmp_path: Path) -> None:
    """The person chooses first (the robot waits its delay); the robot still sees the moment as it opened."""

    async def scenario() -> tuple[Recorder, Any, list[Any]]:
        store = Store(f"sqlite:///{tmp_path / 'robots.sqlite3'}")
        store.migrate()
        manager = RoomManager(store, Settings(database_url=store.url, robot_delay=0.4))
        room, tokens = await manager.create(GameRequest("swine-herd", 40), ["you", "hold:5"], None)
        recorder = Recorder(room)
        room.seats[1].strategy = recorder
        for _ in range(500):  # the server stands everyone for the first roll
            if room.state.turn_total > 0 and not room.choices:
                break
            await asyncio.sleep(0.01)
        moment = room.state
        chosen = await room.act(0, tokens[0], "hold", moment.step)
        assert chosen["type"] == "chosen" and room.choices == {0: Hold()}
        for _ in range(500):
            if room.state.step > moment.step:
                break
            await asyncio.sleep(0.01)
        await manager.close()
        return recorder, moment, list(room.actions)

    recorder, moment, actions = asyncio.run(scenario())
    seen, choices_then = recorder.seen[-1]
    assert choices_then == {0: Hold()}  # the person had chosen before the robot did...
    assert seen.step == moment.step and seen.current == 1  # ...but the robot saw the moment as it opened, its move
    assert seen.standing == (True, True) and seen.scores == moment.scores and seen.turn_total == moment.turn_total
    assert actions[-2:] == ["hold", "roll"]  # stored in the engine's order: seat 0, then seat 1


@pytest.mark.slow
def test_a_game_is_stored_in_the_engines_order_and_replays(client: Any) -> None:
    data = create_game(client, variant="swine-herd", players=["you", "friend", "hold:6"], goal=15)
    code, mine = data["code"], data["tokens"]["0"]
    friend = client.post(f"/api/games/{code}/join", json={"seat": 1}).json()["token"]
    tokens = {0: mine, 1: friend}
    moments = 0
    with client.websocket_connect(f"/ws/{code}") as ws:
        state = ws.receive_json()["state"]
        for _ in range(400):
            if state["finished"]:
                break
            if state["turn_total"] > 0:  # a real choice: the people choose, the robot too, unseen
                for seat in state["to_choose"]:
                    if seat in tokens:
                        action = "hold" if state["turn_total"] >= 5 + 3 * seat else "roll"
                        ws.send_json(
                            {"type": "action", "seat": seat, "token": tokens[seat], "action": action,
                             "expected_step": state["step"]}
                        )  # fmt: skip
            update = receive_until(ws, "update")
            assert [c["seat"] for c in update["choices"]] == sorted(c["seat"] for c in update["choices"])
            moments += 1
            state = update["state"]
    assert state["finished"] and moments > 3
    record = parse_record(json.dumps(client.get(f"/api/games/{code}/record").json()))
    replayed, per_move = replay_record(record)
    assert replayed.scores == tuple(state["scores"]) and list(replayed.winners or ()) == state["winners"]
    events = client.get(f"/api/games/{code}").json()["events"]
    assert sum(len(e) for e in per_move) == len(events)
    verified = client.get(f"/api/games/{code}/verify").json()
    assert verified["ok"], verified
    review = client.get(f"/api/games/{code}/review")
    assert review.status_code == 200 and review.json()["finished"]


def test_the_reveal_is_what_the_engine_gives_for_the_same_choices(slow: Any) -> None:
    data = create_game(slow, variant="swine-herd", players=["you", "you", "you"], goal=50)
    code, tokens = data["code"], {int(k): v for k, v in data["tokens"].items()}
    state = _choice_ahead(slow, code, tokens)
    app: Any = slow.app
    room = app.state.manager.rooms[code]
    moment, dice = room.state, np.random.default_rng()
    dice.bit_generator.state = room.rng.bit_generator.state
    expected, events = apply_choices(moment, {0: Hold(), 1: Roll(), 2: Hold()}, dice)
    for seat, action in ((2, "hold"), (0, "hold"), (1, "roll")):  # any order of arrival
        reply = _act(slow, code, seat, tokens[seat], action, state["step"])
        assert reply.status_code == 200, reply.text
    update = reply.json()
    assert room.state == expected
    assert [{k: v for k, v in e.items() if k not in ("step", "line")} for e in update["events"]] == [
        event_to_json(ev) for ev in events
    ]


def test_choices_refused_clearly(slow: Any) -> None:
    data = create_game(slow, variant="swine-herd", players=["you", "you", "you"], goal=50)
    code, tokens = data["code"], {int(k): v for k, v in data["tokens"].items()}
    state = slow.get(f"/api/games/{code}").json()["state"]
    assert state["turn_total"] == 0 and state["to_choose"] == [0, 1, 2]
    nothing = _act(slow, code, 0, tokens[0], "hold", state["step"])  # nothing to bank before the first roll
    assert nothing.status_code == 400 and "nothing to sit down with" in error_of(nothing)["message"]
    assert error_of(_act(slow, code, 0, tokens[0], "dance", state["step"]))["code"] == "illegal_action"
    assert error_of(_act(slow, code, 0, tokens[1], "roll", state["step"]))["code"] == "wrong_token"
    state = _choice_ahead(slow, code, tokens)
    step = state["step"]
    stale = _act(slow, code, 0, tokens[0], "hold", step + 1)
    assert stale.status_code == 409 and error_of(stale)["code"] == "stale_step"
    assert _act(slow, code, 0, tokens[0], "hold", step).status_code == 200
    twice = _act(slow, code, 0, tokens[0], "hold", step)
    assert twice.status_code == 409 and error_of(twice)["code"] == "already_chosen"
    assert "final" in error_of(twice)["message"]
    assert _act(slow, code, 1, tokens[1], "roll", step).status_code == 200
    state = _act(slow, code, 2, tokens[2], "roll", step).json()["state"]
    if state["turn_total"] > 0:  # seat 0 sat down with its points: it has no choice until the next turn
        seated = _act(slow, code, 0, tokens[0], "roll", state["step"])
        assert seated.status_code == 409 and error_of(seated)["code"] == "seated"
        assert "sat down" in error_of(seated)["message"]
    # over the websocket, the same refusals come back as error messages
    with slow.websocket_connect(f"/ws/{code}") as ws:
        state = ws.receive_json()["state"]
        seat = state["to_choose"][0]
        move = {"type": "action", "seat": seat, "token": tokens[seat], "expected_step": state["step"]}
        ws.send_json({**move, "action": "roll"})
        receive_until(ws, "chosen" if len(state["to_choose"]) > 1 else "update")
        if len(state["to_choose"]) > 1:
            mine = receive_until(ws, "choice")  # the chooser alone is shown their own hidden choice
            assert mine["seat"] == seat and mine["action"] == "roll"
            ws.send_json({**move, "action": "roll", "id": "again"})
            error = ws.receive_json()
            assert error["type"] == "error" and error["code"] == "already_chosen" and error["id"] == "again"


def test_a_resignation_leaves_the_moment_and_completes_it(slow: Any) -> None:
    data = create_game(slow, variant="swine-herd", players=["you", "you", "you"], goal=50)
    code, tokens = data["code"], {int(k): v for k, v in data["tokens"].items()}
    state = _choice_ahead(slow, code, tokens)
    step = state["step"]
    # a seat that chose and then resigns: its choice goes with it
    assert _act(slow, code, 0, tokens[0], "roll", step).status_code == 200
    resigned = slow.post(f"/api/games/{code}/resign", json={"seat": 0, "token": tokens[0]}).json()
    assert resigned["state"]["chosen"] == [] and resigned["state"]["to_choose"] == [1, 2]
    step = resigned["state"]["step"]
    resigned_again = _act(slow, code, 0, tokens[0], "roll", step)
    assert resigned_again.status_code == 409 and error_of(resigned_again)["code"] == "resigned"
    # seat 1 chooses, seat 2 resigns: the game is over (one player left), nothing hangs
    assert _act(slow, code, 1, tokens[1], "hold", step).status_code == 200
    end = slow.post(f"/api/games/{code}/resign", json={"seat": 2, "token": tokens[2]}).json()
    assert end["state"]["finished"] and end["state"]["winners"] == [1]


def test_the_last_one_to_choose_resigning_reveals_the_moment(slow: Any) -> None:
    data = create_game(slow, variant="swine-herd", players=["you", "you", "you", "you"], goal=50)
    code, tokens = data["code"], {int(k): v for k, v in data["tokens"].items()}
    state = _choice_ahead(slow, code, tokens)
    step = state["step"]
    assert _act(slow, code, 0, tokens[0], "hold", step).status_code == 200
    assert _act(slow, code, 2, tokens[2], "roll", step).status_code == 200
    assert _act(slow, code, 3, tokens[3], "roll", step).status_code == 200
    with slow.websocket_connect(f"/ws/{code}") as ws:
        ws.receive_json()
        reply = slow.post(f"/api/games/{code}/resign", json={"seat": 1, "token": tokens[1]})
        assert reply.status_code == 200 and [e["type"] for e in reply.json()["events"]] == ["Resigned"]
        assert receive_until(ws, "update")["action"] == "resign:1"  # first the resignation...
        reveal = receive_until(ws, "update")  # ...then the moment, with the three choices and the roll
    assert [c["seat"] for c in reveal["choices"]] == [0, 2, 3]
    assert [e["type"] for e in reveal["events"]][:4] == ["Banked", "StayedStanding", "StayedStanding", "Rolled"]
    record = slow.get(f"/api/games/{code}/record").json()
    assert [m["action"] for m in record["moves"][-4:]] == ["resign:1", "hold", "roll", "roll"]


@pytest.fixture
def timed(tmp_path: Path) -> Iterator[TestClient]:
    """Online rooms give people 1 s per choice and open a seat after 2 timeouts in a row."""
    settings = make_settings(tmp_path, turn_seconds=1.0, skips_to_free_seat=2)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_time_runs_out_for_everyone_who_has_not_chosen(timed: Any) -> None:
    data = create_game(timed, variant="swine-herd", players=["you", "friend", "hold:10"], goal=100)
    code, mine = data["code"], data["tokens"]["0"]
    bo = timed.post(f"/api/games/{code}/join", json={"seat": 1, "name": "Bo"}).json()["token"]
    assert bo
    state = _waiting_choice(timed, code)
    deadline = state["deadline"]
    assert deadline is not None and state["turn_seconds"] == 1.0
    chosen = _act(timed, code, 0, mine, "roll", state["step"]).json()
    assert chosen["state"]["deadline"] == deadline  # one clock for the moment: choosing does not restart it
    # Bo says nothing: he sits down with nothing, and the moment is revealed with my choice
    update = wait_until(
        lambda: (s := timed.get(f"/api/games/{code}").json())["state"]["step"] > state["step"] and s,
        "the timeout",
    )
    events = update["events"]
    timed_out = [e for e in events if e["type"] == "TimedOut"]
    assert [e["player"] for e in timed_out] == [1]
    assert any(e["type"] == "StayedStanding" and e["player"] == 0 for e in events)
    # Bo stays silent, I keep standing or sit: after his second timeout in a row his seat opens
    for _ in range(400):
        now = timed.get(f"/api/games/{code}").json()
        if now["state"]["waiting_for"] == [1] or now["state"]["finished"]:
            break
        s = now["state"]
        if 0 in s["to_choose"] and s["turn_total"] > 0:
            _act(timed, code, 0, mine, "hold" if s["turn_total"] >= 8 else "roll", s["step"])
        time.sleep(0.05)
    state = timed.get(f"/api/games/{code}").json()
    assert state["state"]["waiting_for"] == [1] and state["state"]["deadline"] is None
    assert [e["player"] for e in state["events"] if e["type"] == "TimedOut"] == [1, 1]


def test_a_restart_loses_only_the_choices_not_yet_shown(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, robot_delay=SLOW)
    with TestClient(create_app(settings)) as client:
        data = create_game(client, variant="swine-herd", players=["you", "you"], goal=50)
        code, tokens = data["code"], {int(k): v for k, v in data["tokens"].items()}
        state = _choice_ahead(client, code, tokens)
        assert _act(client, code, 0, tokens[0], "hold", state["step"]).status_code == 200
        before = client.get(f"/api/games/{code}").json()
        assert before["state"]["chosen"] == [0]
    with TestClient(create_app(settings)) as client:
        after = client.get(f"/api/games/{code}").json()
        assert after["events"] == before["events"] and after["state"]["step"] == state["step"]
        assert after["state"]["chosen"] == [] and after["state"]["to_choose"] == [0, 1]  # choose again
        assert _act(client, code, 0, tokens[0], "roll", state["step"]).status_code == 200
        update = _act(client, code, 1, tokens[1], "hold", state["step"]).json()
        assert [c["action"] for c in update["choices"]] == ["roll", "hold"]
    with TestClient(create_app(settings)) as client:  # and what was shown is kept
        again = client.get(f"/api/games/{code}").json()["state"]
        assert again["step"] == update["state"]["step"] and again["scores"] == update["state"]["scores"]


def test_a_moment_that_cannot_be_stored_is_not_played(slow: Any) -> None:
    data = create_game(slow, variant="swine-herd", players=["you", "you"], goal=50)
    code, tokens = data["code"], {int(k): v for k, v in data["tokens"].items()}
    state = _choice_ahead(slow, code, tokens)
    app: Any = slow.app
    manager = app.state.manager
    room = manager.rooms[code]
    dice = room.rng.bit_generator.state
    assert _act(slow, code, 0, tokens[0], "hold", state["step"]).status_code == 200
    real = manager.store.record_moves

    def broken(moves: list[MoveWrite]) -> None:
        raise StoreError("disk full")

    manager.store.record_moves = broken
    try:
        failed = _act(slow, code, 1, tokens[1], "roll", state["step"])
    finally:
        manager.store.record_moves = real
    assert failed.status_code == 503 and error_of(failed)["code"] == "storage_failed"
    assert room.rng.bit_generator.state == dice and room.state.step == state["step"]
    assert room.choices == {0: Hold()}  # the first choice stands; the one that failed may be sent again
    update = _act(slow, code, 1, tokens[1], "roll", state["step"]).json()
    assert [c["seat"] for c in update["choices"]] == [0, 1]


def test_hints_are_for_every_standing_seat(slow: Any) -> None:
    data = create_game(slow, variant="swine-herd", players=["you", "you"], goal=20)
    code, tokens = data["code"], {int(k): v for k, v in data["tokens"].items()}
    _choice_ahead(slow, code, tokens)
    for seat in (0, 1):
        hint = slow.post(f"/api/games/{code}/hint", json={"seat": seat, "token": tokens[seat]}).json()
        assert hint["your_turn"] and hint["best"] in ("sit", "stand") and 0 < hint["win_probability"] < 1


def test_the_store_writes_a_moments_moves_together(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'moves.sqlite3'}")
    store.migrate()
    seats = [SeatRecord(i, "human", "you", f"p{i}", f"hash-{i}") for i in (0, 1)]
    game = store.create_game(
        GameRecord("HERD", "swine-herd", 50, "equal-turns", "shared", "none", {}, "f" * 32, 7, seats, to_move=0)
    )
    store.record_moves([MoveWrite(game, step, step % 2, "roll", [], to_move=0) for step in (1, 2, 3)])
    record = store.load_game("HERD")
    assert record is not None and record.step == 3 and [m.step for m in record.moves] == [1, 2, 3]
    with pytest.raises(StoreError, match="follow each other"):
        store.record_moves([MoveWrite(game, 4, 0, "roll", []), MoveWrite(game, 6, 1, "roll", [])])
    with pytest.raises(StoreError, match="move 3 of game HERD was already recorded"):
        store.record_moves([MoveWrite(game, 3, 0, "roll", []), MoveWrite(game, 4, 1, "roll", [])])
    record = store.load_game("HERD")
    assert record is not None and record.step == 3


def test_a_game_stored_seat_by_seat_resumes_where_it_stood(tmp_path: Path) -> None:
    """A moment stored one seat at a time (an older server asked in turn): the seats that chose are not asked again."""
    from pigdice.engine.game import apply, dice_rng

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"

    async def scenario() -> tuple[list[int], str, dict[str, Any], list[str]]:
        store = Store(url)
        store.migrate()
        manager = RoomManager(store, Settings(database_url=url, robot_delay=SLOW))
        room, tokens = await manager.create(GameRequest("swine-herd", 50), ["you", "you"], None)
        state, dice = room.state, dice_rng(room.seed)

        def play(seat: int, action: Roll | Hold) -> None:
            nonlocal state
            state, events = apply(state, action, dice)
            stored = [event_to_json(e) for e in events]
            store.record_moves([MoveWrite(room.game_id, state.step, seat, str(action), stored, to_move=state.current)])

        while state.turn_total == 0:  # everyone stands for the first roll, one seat at a time
            play(0, Roll())
            play(1, Roll())
        play(0, Roll())  # seat 0 stays standing; the server stopped before seat 1 chose
        await manager.close()
        restarted = RoomManager(Store(url), Settings(database_url=url, robot_delay=SLOW))
        room = await restarted.get(room.code)
        choosing = room.choosing()
        again = ""
        try:
            await room.act(0, tokens[0], "hold", state.step)
        except Exception as exc:
            again = getattr(exc, "code", "")
        update = await room.act(1, tokens[1], "hold", state.step)
        actions = list(room.actions)
        await restarted.close()
        return choosing, again, update, actions

    choosing, again, update, actions = asyncio.run(scenario())
    assert choosing == [1] and again == "already_chosen"
    assert update["choices"] == [{"seat": 1, "action": "hold", "step": len(actions)}]
    assert [e["type"] for e in update["events"]][:2] == ["Banked", "Rolled"]


def test_group_commit_writes_each_moment_whole(tmp_path: Path) -> None:
    """A server database writes the waiting moves of many rooms in one transaction: a moment's moves stay together."""
    url = f"sqlite:///{tmp_path / 'group.sqlite3'}"

    async def scenario() -> list[tuple[list[str], list[str]]]:
        store = Store(url)
        store.migrate()
        manager = RoomManager(store, Settings(database_url=url, robot_delay=SLOW))
        manager.persistence.inline = False  # as for PostgreSQL: writes queue up, go to the database thread in batches
        params = {"at_goal": "roll-on"}  # nobody sits: without the house rule no moment ends the game
        rooms = [
            await manager.create(GameRequest("swine-herd", 50, params=params), ["you", "you"], None) for _ in range(3)
        ]
        for _ in range(20):  # the moments of three rooms, revealed at the same time
            await asyncio.gather(*(room.act(0, tokens[0], "roll", room.step) for room, tokens in rooms))
            await asyncio.gather(*(room.act(1, tokens[1], "roll", room.step) for room, tokens in rooms))
            if any(room.state.is_terminal() for room, _ in rooms):
                break
        stored = []
        for room, _ in rooms:
            record = store.load_game(room.code)
            assert record is not None
            stored.append((list(room.actions), [m.action for m in record.moves]))
        await manager.close()
        return stored

    for actions, stored in asyncio.run(scenario()):
        assert stored == actions and len(actions) >= 40


def test_the_perfect_robot_plays_the_exact_equilibrium(tmp_path: Path) -> None:
    """With 2 players the robot and the hints play Swine Herd's exact equilibrium; the house rule ends the game."""
    with TestClient(create_app(make_settings(tmp_path))) as client:
        data = create_game(client, variant="swine-herd", players=["you", "optimal"], goal=12)
        code, token = data["code"], data["tokens"]["0"]

        def my_moment() -> dict[str, Any] | None:
            state = _state(client, code)
            return state if state["finished"] or 0 in state["to_choose"] else None

        state = wait_until(my_moment, "my choice")
        hint = client.post(f"/api/games/{code}/hint", json={"seat": 0, "token": token}).json()
        assert hint["approximate"] is None and hint["best"] == "stand" and hint["mix"] is None  # nothing to bank yet
        for _ in range(400):  # stay standing every time: the robot stays too, until the shared total reaches 12
            if state["finished"]:
                break
            reply = _act(client, code, 0, token, "roll", state["step"])
            assert reply.status_code == 200, reply.text
            state = wait_until(my_moment, "the next moment")
        assert state["finished"]
        record = parse_record(client.get(f"/api/games/{code}/record").content)
        final, _ = replay_record(record)
        assert final.winners == (0, 1) and min(final.scores) >= 12  # between equals nobody sits first: shared


def test_three_players_at_a_quick_goal_get_the_three_player_equilibrium(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        data = create_game(client, variant="swine-herd", players=["you", "optimal", "hold:5"], goal=12)
        code, token = data["code"], data["tokens"]["0"]

        def my_moment() -> dict[str, Any] | None:
            state = _state(client, code)
            return state if state["finished"] or 0 in state["to_choose"] else None

        state = wait_until(my_moment, "my choice")
        for _ in range(400):
            if state["finished"]:
                break
            hint = client.post(f"/api/games/{code}/hint", json={"seat": 0, "token": token}).json()
            assert hint["approximate"] is None and hint["table_note"] is None  # goal 12 solves in a moment: exact
            assert 0.0 <= hint["win_probability"] <= 1.0
            reply = _act(client, code, 0, token, "hold" if state["turn_total"] >= 6 else "roll", state["step"])
            assert reply.status_code == 200, reply.text
            state = wait_until(my_moment, "the next moment")
        assert state["finished"]


def test_a_room_stores_the_house_rule_it_is_played_with(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rule.sqlite3'}"

    async def scenario() -> dict[str, Any]:
        store = Store(url)
        store.migrate()
        manager = RoomManager(store, Settings(database_url=url, robot_delay=SLOW))
        room, _ = await manager.create(GameRequest("swine-herd", 20), ["you", "you"], None)
        record = store.load_game(room.code)
        await manager.close()
        assert record is not None
        return dict(record.params)

    assert asyncio.run(scenario()) == {"at_goal": "sit"}  # a room stored before the rule restores without it
