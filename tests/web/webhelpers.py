"""Helpers shared by the web tests (imported by name: tests/web is on sys.path)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx

from pigdice.engine.events import event_to_json
from pigdice.engine.game import Hold, Roll, apply, dice_rng, new_game
from pigdice.web.config import Settings
from pigdice.web.records import MoveWrite

T = TypeVar("T")

SEED = 20261126  # the web tests' games draw their dice seeds from a generator seeded with this


def wait_until(condition: Callable[[], T | None], what: str, timeout: float = 20.0, interval: float = 0.02) -> T:
    """Poll ``condition`` until it returns something true and return that; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def make_settings(path: Path, **overrides: Any) -> Settings:
    """Return test settings: a SQLite file under ``path``, robots without delay."""
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{path / 'games.sqlite3'}",
        "robot_delay": 0.0,
        "rate_per_second": 1000.0,  # tests click faster than people; test_rate_limit sets its own limit
        "rate_burst": 1000.0,
        "warm_solver": False,  # the solver's worker process starts at the first solve, not with every test app
        "hint_wait_seconds": 120.0,  # hints wait for the solve pool (test_web_solving checks 'preparing')
    }
    values.update(overrides)
    return Settings(**values)


def create_game(client: Any, **body: Any) -> dict[str, Any]:
    """Create a room through the API and return the JSON reply (fails the test on an error)."""
    body.setdefault("variant", "pig")
    body.setdefault("goal", 20)
    body.setdefault("players", ["you", "friend"])
    reply = client.post("/api/games", json=body)
    assert reply.status_code == 201, reply.text
    data: dict[str, Any] = reply.json()
    return data


def error_of(reply: Any) -> dict[str, Any]:
    """Return the ``error`` object of a JSON error reply."""
    data = reply.json()
    assert "error" in data, data
    error: dict[str, Any] = data["error"]
    assert error["message"], error
    return error


def receive_until(ws: Any, kind: str, limit: int = 500) -> dict[str, Any]:
    """Read websocket messages until one of type ``kind`` arrives; return it."""
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind:
            return message
        if message["type"] == "error":
            raise AssertionError(f"expected {kind!r}, got an error: {message}")
    raise AssertionError(f"no {kind!r} message in {limit} messages")


def free_port() -> int:
    """Return a free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(db: Path, port: int, delay: float, **settings: str) -> subprocess.Popen[bytes]:
    """Start `pigdice serve` on 127.0.0.1:``port`` with a SQLite file and a robot delay; wait until it answers.

    ``settings`` are server settings by field name (``turn_seconds="2"`` sets ``PIGDICE_TURN_SECONDS``).
    """
    env = {**os.environ, "PIGDICE_ROBOT_DELAY": str(delay), "PIGDICE_DATABASE_URL": f"sqlite:///{db}"}
    env.update({f"PIGDICE_{name.upper()}": value for name, value in settings.items()})
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from pigdice.cli.app import main; main()",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so a crash takes its solve workers too (``crash``)
    )

    def answers() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"server exited: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(answers, "the server to answer /healthz", timeout=30, interval=0.1)
    except AssertionError:
        process.kill()
        raise
    return process


def crash(server: subprocess.Popen[bytes]) -> None:
    """Kill a server from ``start_server`` with SIGKILL, as a machine crash would: with its solve workers."""
    os.killpg(server.pid, signal.SIGKILL)
    server.wait()


@contextlib.contextmanager
def served(db: Path, delay: float = 0.0, **settings: str) -> Iterator[str]:
    """Run `pigdice serve` on a free port for the block (as ``start_server``); yield its base URL, then stop it."""
    port = free_port()
    process = start_server(db, port, delay, **settings)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def stored_game(client: Any, moves: int, finish: bool = True) -> str:
    """Create a Pig room for two people and store ``moves`` moves of theirs directly (mostly holding at 0, a
    roll now and then; then, if ``finish``, one of them rolls and holds to the goal); return its code, the
    room dropped from memory so that the next request reads and replays it from the database (``client`` is a
    TestClient of the app; bench/web_health.py builds its 100,000-move room with this too)."""
    game = create_game(client, goal=100, players=["you", "you"])
    manager = client.app.state.manager
    room = manager.rooms.pop(game["code"])
    state = new_game(room.variant, 2)
    rng = dice_rng(room.seed)
    writes: list[MoveWrite] = []
    while not state.is_terminal() and (len(writes) < moves or finish):
        if len(writes) < moves:
            if state.turn_total:
                action = Hold() if state.scores[state.current] + state.turn_total < 90 else Roll()
            else:
                action = Hold() if state.step % 4 else Roll()
        else:
            action = Hold() if state.scores[state.current] + state.turn_total >= 100 else Roll()
        mover = state.current
        state, events = apply(state, action, rng)
        winners = None if state.winners is None else list(state.winners)
        to_move = None if state.is_terminal() else state.current
        events_json = [event_to_json(e) for e in events]
        writes.append(
            MoveWrite(room.game_id, state.step, mover, str(action), events_json, state.is_terminal(), winners, to_move)
        )
    store = manager.store
    for start in range(0, len(writes), 1000):
        store.record_moves(writes[start : start + 1000])
    return str(game["code"])
