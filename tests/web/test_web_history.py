"""Your history and practice on the web: the seats a browser holds, their finished games reviewed exactly."""

from __future__ import annotations

from typing import Any

import pytest
from webhelpers import create_game


def play_out(client: Any, goal: int = 20, hold_at: int = 6) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Play a hot-seat game of Pig to the end over HTTP (both hold at ``hold_at``); return code, tokens, last state."""
    data = create_game(client, players=["you", "you"], goal=goal)
    code, tokens, state = data["code"], data["tokens"], data["state"]
    for _ in range(500):
        if state["finished"]:
            break
        seat = state["current"]
        action = "hold" if state["turn_total"] >= hold_at else "roll"
        body = {"seat": seat, "token": tokens[str(seat)], "action": action, "expected_step": state["step"]}
        reply = client.post(f"/api/games/{code}/actions", json=body)
        assert reply.status_code == 200, reply.text
        state = reply.json()["state"]
    assert state["finished"]
    return code, tokens, state


def test_the_review_gives_every_seat_its_luck_and_skill(client: Any) -> None:
    code, _, last = play_out(client)
    review = client.get(f"/api/games/{code}/review").json()
    assert review["luck"]["values"] == "the perfect player's exact chances to win"
    for seat in review["seats"]:
        assert seat["result"] == pytest.approx(seat["start"] + seat["luck"] - seat["error"], abs=1e-9)
        assert seat["rating"]["decisions"] > 0 and seat["rating"]["band"]
        assert seat["luck_line"] and seat["rating_line"]
    winners = last["winners"]
    assert [s["result"] for s in review["seats"]] == [1.0 if p in winners else 0.0 for p in range(2)]
    assert len(review["luck"]["timeline"]) == last["step"] + 1


def test_the_history_lists_the_finished_games_of_the_seats_a_browser_holds(client: Any) -> None:
    first, tokens_one, last_one = play_out(client, hold_at=6)
    second, tokens_two, _ = play_out(client, hold_at=15)
    going = create_game(client, players=["you", "you"], goal=20)
    seats = [{"code": first, "seat": 0, "token": tokens_one["0"]}]
    seats.append({"code": second, "seat": 1, "token": tokens_two["1"]})
    seats.append({"code": going["code"], "seat": 0, "token": going["tokens"]["0"]})
    seats.append({"code": first, "seat": 1, "token": "not-the-token"})
    reply = client.post("/api/history", json={"key": "0123456789abcdef", "games": seats})
    assert reply.status_code == 200, reply.text
    history = reply.json()
    assert [e["source"] for e in history["entries"]] == [first, second]
    assert history["finished"] == 2 and history["wins"] == sum(e["result"] for e in history["entries"])
    assert history["entries"][0]["result"] == (1.0 if 0 in last_one["winners"] else 0.0)
    assert history["rating"]["decisions"] == sum(e["rating"]["decisions"] for e in history["entries"])
    assert len(history["skipped"]) == 2  # the game still going (its review would be a hint) and the wrong token
    assert any("not over" in s for s in history["skipped"])


def test_practice_serves_the_costliest_decisions_with_their_exact_answer(client: Any) -> None:
    code, tokens, _ = play_out(client, hold_at=2)  # holding at 2 gives chance away again and again
    reply = client.post("/api/practice", json={"games": [{"code": code, "seat": 0, "token": tokens["0"]}]})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    cards = body["cards"]
    assert cards and body["intervals"][0] == 0 and body["session"] > 0
    assert [c["loss"] for c in cards] == sorted((c["loss"] for c in cards), reverse=True)
    for card in cards:
        assert card["loss"] >= 0.01 and card["seat"] == 0
        assert card["values"][card["best"]] == max(card["values"].values())
        assert card["values"][card["best"]] - card["values"][card["taken"]] == pytest.approx(card["loss"])
        assert card["question"].startswith("Pig to 20.") and "Best:" in card["answer"]


def test_history_requests_are_bounded_and_checked(client: Any) -> None:
    too_many = [{"code": "abcdefgh", "seat": 0, "token": "x"}] * 61
    assert client.post("/api/history", json={"games": too_many}).status_code == 422
    assert client.post("/api/history", json={"games": [{"code": "../etc", "seat": 0, "token": "x"}]}).status_code == 422
    assert client.post("/api/practice", json={"games": [], "extra": 1}).status_code == 422
    empty = client.post("/api/history", json={"games": []}).json()
    assert empty["entries"] == [] and empty["games"] == 0


def test_the_pages_open(client: Any) -> None:
    for path, words in (("/history", "Your history"), ("/practice", "Practice")):
        page = client.get(path)
        assert page.status_code == 200 and words in page.text
    home = client.get("/").text
    assert "level:3" in home and "a club player" in home
