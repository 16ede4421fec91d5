"""Helpers shared by the web tests (imported by name: tests/web is on sys.path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pigdice.web.config import Settings


def make_settings(path: Path, **overrides: Any) -> Settings:
    """Return test settings: a SQLite file under ``path``, robots without delay."""
    values: dict[str, Any] = {"database_url": f"sqlite:///{path / 'games.sqlite3'}", "robot_delay": 0.0}
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
    raise AssertionError(f"no {kind!r} message in {limit} messages")
