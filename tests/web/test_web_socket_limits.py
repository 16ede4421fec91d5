"""Bounds on websockets per address: being opened at once, open at once, open in all; refused ones are closed
with a reason the page shows."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from webhelpers import create_game, make_settings

from pigdice.errors import BadParameterError
from pigdice.web.app import create_app
from pigdice.web.config import Settings
from pigdice.web.manager import seeds_from
from pigdice.web.socketlimits import REFUSED_CODE, TOO_MANY_FROM_YOU, TOO_MANY_IN_ALL, SocketLimits


def test_an_address_opens_a_bounded_number_at_once_and_each_frees_its_place() -> None:
    limits = SocketLimits(opening_per_client=2, open_per_client=3, open_in_all=4)
    first, second = limits.admit("a"), limits.admit("a")
    assert limits.refusal("a") == TOO_MANY_FROM_YOU  # two being opened: the third waits
    assert limits.refusal("b") is None  # another address is not held up
    first.opened()
    first.opened()  # twice counts once
    assert limits.refusal("a") is None
    third = limits.admit("a")
    third.opened()
    second.opened()
    assert limits.refusal("a") == TOO_MANY_FROM_YOU  # three open: the address's bound
    fourth = limits.admit("b")
    assert limits.refusal("c") == TOO_MANY_IN_ALL
    assert limits.usage() == {"open": 4, "opening": 1}
    for admission in (first, second, third, fourth, fourth):  # closing twice counts once
        admission.close()
    assert limits.usage() == {"open": 0, "opening": 0}
    assert not limits.open and not limits.opening  # no address is remembered once its websockets are gone


def test_a_websocket_waiting_for_a_place_is_woken_when_one_frees_and_gives_up_at_its_deadline() -> None:
    async def scenario() -> tuple[float, float, int]:
        limits = SocketLimits(opening_per_client=1, open_per_client=5, open_in_all=5)
        first = limits.admit("a")
        loop = asyncio.get_running_loop()
        started = loop.time()
        loop.call_later(0.05, first.opened)  # the place frees after 50 ms: the waiter goes at once, not at 5 s
        await limits.wait_to_open("a", 5.0)
        woken = loop.time() - started
        limits.admit("a")  # holds the place now, and nobody frees it
        started = loop.time()
        await limits.wait_to_open("a", 0.1)
        return woken, loop.time() - started, len(limits.waiting)

    woken, gave_up, left_waiting = asyncio.run(scenario())
    assert woken < 2.0, f"woken after {woken:.2f} s"
    assert 0.09 <= gave_up < 2.0, f"gave up after {gave_up:.2f} s"
    assert left_waiting == 0  # a waiter that gave up is not remembered


def refused_reason(client: TestClient, code: str) -> tuple[int, str]:
    """Open a websocket that the server is expected to refuse; return its close code and reason."""
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/ws/{code}") as ws:
        ws.receive_json()
    return refused.value.code, refused.value.reason


@pytest.mark.parametrize(
    ("bounds", "reason"),
    [({"ws_per_client": 3}, TOO_MANY_FROM_YOU), ({"ws_in_all": 3}, TOO_MANY_IN_ALL)],
)
def test_websockets_past_a_bound_are_closed_with_a_reason(tmp_path: Path, bounds: dict[str, Any], reason: str) -> None:
    settings = make_settings(tmp_path, **bounds)
    with TestClient(create_app(settings, seeds_from(np.random.default_rng(5)))) as client:
        code = create_game(client, players=["you", "you"])["code"]
        with ExitStack() as stack:
            for _ in range(3):
                ws = stack.enter_context(client.websocket_connect(f"/ws/{code}"))
                assert ws.receive_json()["type"] == "welcome"
            assert client.get("/healthz").json()["websockets"] == {"open": 3, "opening": 0}
            assert refused_reason(client, code) == (REFUSED_CODE, reason)
        assert client.get("/healthz").json()["websockets"] == {"open": 0, "opening": 0}
        with client.websocket_connect(f"/ws/{code}") as ws:  # the places are free again
            assert ws.receive_json()["type"] == "welcome"


def test_a_refused_websocket_holds_no_place(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, ws_opening_per_client=0, ws_opening_wait_seconds=0.2)
    with TestClient(create_app(settings, seeds_from(np.random.default_rng(6)))) as client:
        code = create_game(client, players=["you", "you"])["code"]
        for _ in range(3):
            assert refused_reason(client, code) == (REFUSED_CODE, TOO_MANY_FROM_YOU)
        assert client.get("/healthz").json()["websockets"] == {"open": 0, "opening": 0}


def test_an_unknown_websocket_implementation_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIGDICE_WS_PROTOCOL", "carrier-pigeon")
    with pytest.raises(BadParameterError, match="PIGDICE_WS_PROTOCOL must be one of websockets"):
        Settings.from_env("sqlite:///unused.sqlite3")
    monkeypatch.setenv("PIGDICE_WS_PROTOCOL", "websockets-sansio")
    assert Settings.from_env("sqlite:///unused.sqlite3").ws_protocol == "websockets-sansio"
