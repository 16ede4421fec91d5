"""Group games on the web: the win chance of a table of three or more is that table's (exact where a solver has
it, else an estimate said in words, never the 2-player figure); Swine Herd's house rule is logged in words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from webhelpers import SEED, create_game, make_settings, receive_until

from pigdice.web.app import create_app
from pigdice.web.manager import seeds_from

pytestmark = pytest.mark.timeout(180)

SLOW = 600.0  # a robot delay the tests never wait for: the table stays at its first moment


@pytest.fixture
def still(tmp_path: Path) -> Iterator[TestClient]:
    """An app whose server never stands anyone for the first roll by itself (the table stays at 0-0-0)."""
    settings = make_settings(tmp_path, robot_delay=SLOW)
    with TestClient(create_app(settings, seeds_from(np.random.default_rng(SEED)))) as test_client:
        yield test_client


@pytest.mark.slow
def test_three_at_swine_herd_are_shown_the_tables_chance_not_the_two_player_one(still: Any) -> None:
    data = create_game(still, variant="swine-herd", players=["you", "you", "you"], goal=30)
    code, tokens = data["code"], data["tokens"]
    for seat in range(3):
        hint = still.post(f"/api/games/{code}/hint", json={"seat": seat, "token": tokens[str(seat)]}).json()
        assert hint["win_probability"] == pytest.approx(1 / 3)  # an even table: an even share, never 0.5
        assert "estimate for a table of 3" in hint["table_note"] and hint["approximate"]
    for _ in range(3):  # the people stand for the first roll themselves (the server is slow), then all choose
        state = still.get(f"/api/games/{code}").json()["state"]
        for seat in state["to_choose"]:
            body = {"seat": seat, "token": tokens[str(seat)], "action": "roll", "expected_step": state["step"]}
            assert still.post(f"/api/games/{code}/actions", json=body).status_code == 200
    review = still.get(f"/api/games/{code}/review").json()
    assert "estimate for a table of 3" in review["chart_note"]
    assert review["decisions"] and all(d["win_by_seat"] is not None for d in review["decisions"])  # a chart


def test_the_house_rule_is_logged_in_words(client: Any) -> None:
    data = create_game(client, variant="swine-herd", players=["you", "you"], goal=4)
    code, tokens = data["code"], data["tokens"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        state = ws.receive_json()["state"]
        for _ in range(300):  # everyone always stays standing: the rule seats them together at the goal
            if state["finished"]:
                break
            if state["turn_total"] > 0:
                for seat in state["to_choose"]:
                    move = {"seat": seat, "token": tokens[str(seat)], "action": "roll", "expected_step": state["step"]}
                    ws.send_json({"type": "action", **move})
            update = receive_until(ws, "update")
            state = update["state"]
    events = client.get(f"/api/games/{code}").json()["events"]
    ruled = [e for e in events if e.get("house_rule")]
    assert ruled and all(e["type"] == "Rolled" and e["player"] == -1 for e in ruled)
    assert "by the house rule they all sit down" in ruled[0]["line"]
