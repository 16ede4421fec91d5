"""Fuzzing the API and the websocket as a hostile stranger would: no 5xx, no traceback, every refusal
a JSON error with a code and a message, and the room untouched by what was refused."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webhelpers import make_settings

from pigdice.web.app import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

# values a stranger might put anywhere: numbers far out of range, odd text, wrong types
HOSTILE_TEXT = st.sampled_from(
    ["", " ", "1e-10000000", "1e999", "NaN", "-1", "²", "٢٠", "\x00", "é" * 40, "9" * 5000, "../../etc", "optimal"]
) | st.text(max_size=40)
HOSTILE_NUMBER = st.sampled_from([0, -1, 1, 2, 10**6, 10**40, -(10**40), 2**63]) | st.integers()
HOSTILE_SCALAR = HOSTILE_TEXT | HOSTILE_NUMBER | st.booleans() | st.none() | st.floats(allow_nan=True)
HOSTILE_VALUE = st.recursive(
    HOSTILE_SCALAR,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(HOSTILE_TEXT, inner, max_size=4),
    max_leaves=8,
)
VARIANTS = st.sampled_from(["pig", "hog", "pass-the-pigs", "swine-herd", "big-pig", "nope"]) | HOSTILE_TEXT
PLAYERS = st.lists(
    st.sampled_from(["you", "friend", "hold:20", "optimal", "py:x.py:f", "hold:٢٠", "dice:99"]) | HOSTILE_TEXT,
    max_size=6,
)
CREATE = st.fixed_dictionaries(
    {},
    optional={
        "variant": VARIANTS | HOSTILE_VALUE,
        "goal": HOSTILE_NUMBER | HOSTILE_VALUE,
        "params": st.dictionaries(
            st.sampled_from(["oinker", "max_dice", "double_ones", "x"]), HOSTILE_SCALAR, max_size=3
        )
        | HOSTILE_VALUE,
        "players": PLAYERS | HOSTILE_VALUE,
        "endgame": HOSTILE_TEXT,
        "name": HOSTILE_TEXT,
        "extra": HOSTILE_VALUE,
    },
)
SEAT_BODY = st.fixed_dictionaries(
    {},
    optional={
        "seat": HOSTILE_NUMBER | HOSTILE_VALUE,
        "token": HOSTILE_TEXT | HOSTILE_VALUE,
        "action": st.sampled_from(["roll", "hold", "roll:3", "roll:0", "ROLL", "sit"]) | HOSTILE_TEXT,
        "expected_step": HOSTILE_NUMBER,
        "name": HOSTILE_TEXT,
        "tokens": HOSTILE_VALUE,
        "answer": st.sampled_from(["yes", "no"]) | HOSTILE_TEXT | HOSTILE_VALUE,
        "absent": HOSTILE_NUMBER | HOSTILE_VALUE,
    },
)
WS_MESSAGE = st.fixed_dictionaries(
    {"type": st.sampled_from(["action", "join", "hello", "hint", "ping", "nope"]) | HOSTILE_TEXT},
    optional={
        "seat": HOSTILE_NUMBER,
        "token": HOSTILE_TEXT,
        "action": HOSTILE_TEXT,
        "expected_step": HOSTILE_NUMBER,
        "tokens": HOSTILE_VALUE,
        "id": HOSTILE_VALUE,
    },
)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the whole module (robots without delay, generous limits so fuzzing is not throttled)."""
    path: Path = tmp_path_factory.mktemp("fuzz")
    app = create_app(make_settings(path, rooms_per_client=10**6, max_hint_goal=60, max_explore_goal=60))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def check_reply(reply: Any) -> None:
    """A reply is never a 5xx (but the solver being busy) and every refusal is a JSON error with a code."""
    assert reply.status_code < 500 or reply.json()["error"]["code"] in ("busy", "preparing"), reply.text
    if reply.status_code >= 400 and reply.headers.get("content-type", "").startswith("application/json"):
        error = reply.json()["error"]
        assert error["code"] and error["message"]


def to_body(value: Any) -> bytes:
    """Return ``value`` as a JSON body (non-standard floats as JSON's own NaN/Infinity words)."""
    return json.dumps(value).encode()


@FUZZ
@given(body=CREATE | HOSTILE_VALUE)
def test_fuzz_create(app_client: TestClient, body: Any) -> None:
    check_reply(app_client.post("/api/games", content=to_body(body), headers={"content-type": "application/json"}))


ROUTES = ["actions", "join", "hint", "resign", "rematch", "abort", "claim"]


@FUZZ
@given(body=SEAT_BODY | HOSTILE_VALUE, route=st.sampled_from(ROUTES))
def test_fuzz_room_routes(app_client: TestClient, body: Any, route: str) -> None:
    game = app_client.post("/api/games", json={"goal": 30, "players": ["you", "friend"]}).json()
    code = game["code"]
    before = app_client.get(f"/api/games/{code}").json()["state"]
    reply = app_client.post(
        f"/api/games/{code}/{route}", content=to_body(body), headers={"content-type": "application/json"}
    )
    check_reply(reply)
    if reply.status_code >= 400:  # a refused request changed nothing
        after = app_client.get(f"/api/games/{code}").json()["state"]
        for key in ("step", "closed", "claims", "rematch", "resigned", "scores"):
            assert after[key] == before[key], key


@FUZZ
@given(code=HOSTILE_TEXT, goal=HOSTILE_TEXT, name=VARIANTS)
def test_fuzz_paths_and_queries(app_client: TestClient, code: str, goal: str, name: str) -> None:
    code, name = quote(code, safe=""), quote(name, safe="")  # as a browser would send them
    for path, params in (
        (f"/api/games/{code}", None),
        (f"/api/explore/{name}", {"goal": goal}),
        (f"/play/{code}", None),
        (f"/rules/{name}", None),
        ("/explore", {"variant": name, "goal": goal}),
    ):
        check_reply(app_client.get(path, params=params))


@FUZZ
@given(messages=st.lists(WS_MESSAGE | HOSTILE_VALUE | HOSTILE_TEXT, min_size=1, max_size=5))
def test_fuzz_websocket(app_client: TestClient, messages: list[Any]) -> None:
    code = app_client.post("/api/games", json={"goal": 30, "players": ["you", "friend"]}).json()["code"]
    with app_client.websocket_connect(f"/ws/{code}") as ws:
        assert ws.receive_json()["type"] == "welcome"
        for message in messages:
            ws.send_text(message if isinstance(message, str) else json.dumps(message))
        ws.send_text(json.dumps({"type": "ping", "id": "last"}))
        for _ in range(50):  # every message gets an answer or is ignored; the socket stays open and sane
            reply = ws.receive_json()
            assert reply["type"] != "error" or (reply["code"] and reply["message"])
            if reply["type"] == "pong" and reply.get("id") == "last":
                break
        else:
            raise AssertionError("no pong after the fuzzed messages")
