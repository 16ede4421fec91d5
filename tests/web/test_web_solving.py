"""The perfect player is solved in a worker process, never on the event loop: shared jobs, a bounded queue,
rooms and hints that say "preparing" and are told when it is ready, and /healthz that answers meanwhile."""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from pathlib import Path

import httpx
import pytest
from webhelpers import create_game, error_of, free_port, make_settings, receive_until, start_server, wait_until

from pigdice.rules.registry import find_variant
from pigdice.web.app import create_app
from pigdice.web.errors import WebError
from pigdice.web.explorer import Explorer
from pigdice.web.solving import SolvePool

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


pytestmark = pytest.mark.usefixtures("fresh_policies")  # every test solves into its own empty caches


def test_a_room_with_the_perfect_player_prepares_then_plays(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        # a goal no other test solves, so the policy is not in this process's memory yet
        game = create_game(client, variant="big-pig", goal=37, players=["you", "optimal"])
        code, token = game["code"], game["tokens"]["0"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            welcome = ws.receive_json()
            if welcome["state"]["preparing"]:
                assert receive_until(ws, "ready")["state"]["preparing"] is False
            ws.send_json({"type": "action", "seat": 0, "token": token, "action": "hold", "expected_step": 0})
            receive_until(ws, "update")

            # the perfect player now moves without anyone asking, until its turn ends: it passes the dice
            # back or (about one game in three at this goal) reaches 37 in one turn and wins
            def turn_done() -> dict | None:
                state = client.get(f"/api/games/{code}").json()["state"]
                return state if state["current"] == 0 or state["finished"] else None

            state = wait_until(turn_done, "the robot's turn")
            assert state["step"] > 1  # the robot played
            assert state["current"] == 0 or state["winners"] == [1]


def test_a_hint_says_preparing_and_then_answers(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, hint_wait_seconds=0.0))) as client:
        game = create_game(client, variant="big-pig", goal=39, players=["you", "hold:20"])
        body = {"seat": 0, "token": game["tokens"]["0"]}
        reply = client.post(f"/api/games/{game['code']}/hint", json=body)
        assert reply.status_code == 503
        assert error_of(reply)["code"] == "preparing"
        hint = wait_until(
            lambda: (r := client.post(f"/api/games/{game['code']}/hint", json=body)).status_code == 200 and r.json(),
            "the hint once the perfect player is ready",
            timeout=120,
        )
        assert hint["best"] in ("roll", "hold") and 0 < hint["win_probability"] < 1


def test_explorer_cache_is_bounded_by_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path / "policies"))
    pool = SolvePool()
    explorer = Explorer(pool, max_bytes=50_000)  # one goal-40 view is ~25 KB of JSON

    async def views() -> None:
        for goal in (20, 30, 40, 50):
            data = json.loads(await explorer.data(find_variant("pig", goal=goal)))
            assert data["goal"] == goal
            assert explorer.cached_bytes <= 50_000

    try:
        asyncio.run(views())
    finally:
        pool.close()
    assert 1 <= len(explorer) < 4


def test_the_pool_shares_one_job_per_solve_and_refuses_past_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path / "policies"))
    pool = SolvePool(workers=1, max_jobs=1)

    async def asks() -> None:
        pig = find_variant("pig", goal=60)
        first = asyncio.ensure_future(pool.policy(pig))
        second = asyncio.ensure_future(pool.policy(pig))
        await asyncio.sleep(0)
        assert pool.busy == 1  # both wait for one job
        with pytest.raises(WebError) as refused:
            await pool.policy(find_variant("two-dice-pig", goal=60))
        assert refused.value.status == 503 and refused.value.code == "busy"
        one, two = await asyncio.gather(first, second)
        assert one is two or (one.values == two.values).all()
        assert pool.policy_ready(pig) and pool.busy == 0

    try:
        asyncio.run(asks())
    finally:
        pool.close()


@pytest.mark.slow
def test_healthz_answers_quickly_while_a_new_solve_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 9: a solve blocked /healthz for up to 50 s; now it runs in a worker process."""

    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path / "policies"))
    port = free_port()
    server = start_server(tmp_path / "games.sqlite3", port, 0.0)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=60) as http:
            reply = http.post(f"{base}/api/games", json={"goal": 150, "players": ["you", "optimal"]})
            assert reply.status_code == 201, reply.text
            game = reply.json()
            assert game["state"]["preparing"]
            slowest = 0.0
            while True:
                started = time.perf_counter()
                health = http.get(f"{base}/healthz").json()
                slowest = max(slowest, time.perf_counter() - started)
                if not health["solving"]:
                    break
                time.sleep(0.02)
            # generous against a loaded CI machine; before the solve pool this was seconds (bench/web_health.py)
            assert slowest < 0.5
            hint = http.post(f"{base}/api/games/{game['code']}/hint", json={"seat": 0, "token": game["tokens"]["0"]})
            assert hint.status_code == 200, hint.text
            assert hint.json()["best"] in ("roll", "hold")
    finally:
        server.terminate()
        server.wait(timeout=30)
