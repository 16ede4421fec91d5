"""A web game as a record: downloaded, verified against the commitment, reviewed, and replayed in the terminal."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from webhelpers import create_game, error_of

from pigdice.engine.fairness import verify_record
from pigdice.engine.record import GameRecord, commitment_digest, replay_record
from pigdice.terminal.records import replay_record_in_terminal


def _play_out(client: Any, goal: int = 15) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Play a 2-person hot-seat game of Pig to the end over HTTP; return the code, the first and the last state."""
    data = create_game(client, players=["you", "you"], goal=goal)
    code, tokens, first = data["code"], data["tokens"], data["state"]
    state = first
    for _ in range(500):
        if state["finished"]:
            break
        seat = state["current"]
        action = "hold" if state["turn_total"] >= 6 else "roll"
        body = {"seat": seat, "token": tokens[str(seat)], "action": action, "expected_step": state["step"]}
        reply = client.post(f"/api/games/{code}/actions", json=body)
        assert reply.status_code == 200, reply.text
        state = reply.json()["state"]
    assert state["finished"]
    return code, first, state


def test_the_commitment_is_published_first_and_checks_out_at_the_end(client: Any) -> None:
    code, first, last = _play_out(client)
    assert first["commitment"] and first["seed"] is None and first["salt"] is None
    assert last["commitment"] == first["commitment"]
    assert commitment_digest(int(last["seed"]), last["salt"]) == first["commitment"]
    checked = client.get(f"/api/games/{code}/verify").json()
    assert checked["ok"] and checked["commitment"] == "matches" and checked["commitment_digest"] == first["commitment"]
    assert checked["dice"]["throws"] == checked["throws_checked"] > 0
    assert 0 <= checked["dice"]["p_value"] <= 1


def test_the_downloaded_record_verifies_and_replays_in_the_terminal(client: Any) -> None:
    code, _, last = _play_out(client)
    reply = client.get(f"/api/games/{code}/record?download=true")
    assert reply.status_code == 200 and "attachment" in reply.headers["content-disposition"]
    record = GameRecord.from_json(reply.json())
    assert record.origin == "web" and record.room == code and str(record.seed) == last["seed"]
    assert verify_record(record).ok
    state, _ = replay_record(record)
    assert list(state.scores) == last["scores"] and list(state.winners or []) == last["winners"]
    # the room's own event log, as the players saw it, is what the record replays to
    game = client.get(f"/api/games/{code}").json()
    stripped = [{k: v for k, v in e.items() if k not in ("step", "line")} for e in game["events"]]
    assert stripped == [e for move in record.moves for e in move.events]
    console = Console(file=io.StringIO(), width=100, color_system=None)
    assert replay_record_in_terminal(record, console=console, pause=0) == 0
    shown = console.file.getvalue()
    assert "Game over" in shown and ("wins" in shown or "share" in shown)


def test_a_running_game_keeps_seed_and_salt_secret(client: Any) -> None:
    data = create_game(client, players=["you", "friend"], goal=20)
    record = client.get(f"/api/games/{data['code']}/record").json()
    assert record["seed"] is None and record["commitment"]["salt"] is None and record["commitment"]["digest"]
    checked = client.get(f"/api/games/{data['code']}/verify").json()
    assert checked["commitment"] == "secret" and not checked["ok"]


def test_the_review_marks_every_decision(client: Any) -> None:
    code, _, last = _play_out(client)
    review = client.get(f"/api/games/{code}/review").json()
    assert review["exact"] and review["finished"] and review["names"] == [s["name"] for s in last["seats"]]
    assert review["decisions"] and all(d["taken"] in ("roll", "hold") for d in review["decisions"])
    for d in review["decisions"]:
        assert abs(sum(d["win_by_seat"]) - 1) < 1e-9
        assert d["loss"] >= 0 and (d["mark"] is None) == (d["loss"] < 0.01)
    assert [s["decisions"] for s in review["seats"]] == [
        sum(1 for d in review["decisions"] if d["seat"] == seat) for seat in (0, 1)
    ]
    page = client.get(f"/review/{code}")
    assert page.status_code == 200 and "Game review" in page.text and "/static/review.js" in page.text


def test_unknown_rooms_have_no_record_or_review(client: Any) -> None:
    for path in ("record", "verify", "review"):
        reply = client.get(f"/api/games/NoSuchRoom12/{path}")
        assert reply.status_code == 404 and error_of(reply)["message"]
    assert client.get("/review/NoSuchRoom12").status_code == 404
