"""Piggy Six for large groups in a web room: two sets of dice, two turns under way, played to the end."""

from __future__ import annotations

from typing import Any

from webhelpers import create_game, error_of, wait_until

PEOPLE = 4  # seats 0-3 share one phone; seats 4-7 are robots


def _persons_move_or_end(client: Any, code: str) -> dict[str, Any] | None:
    """Return the room's state once a person is to move or the game is over, else None (robots are moving)."""
    state: dict[str, Any] = client.get(f"/api/games/{code}").json()["state"]
    return state if state["finished"] or state["current"] < PEOPLE else None


def test_eight_seats_with_two_sets_of_dice_play_to_the_end(client: Any) -> None:
    robots = [f"hold:{limit}" for limit in (6, 9, 12, 15)]
    data = create_game(
        client, variant="piggy-six", params={"dice_sets": "2"}, players=["you"] * PEOPLE + robots, goal=30
    )
    code, tokens = data["code"], data["tokens"]
    saw_both_sets_rolling = False
    for _ in range(400):
        state = wait_until(lambda: _persons_move_or_end(client, code), "a person's move or the end")
        if state["finished"]:
            break
        assert state["set"] in (1, 2) and state["other_set"]["set"] == 3 - state["set"]
        saw_both_sets_rolling |= state["other_set"]["phase"] == "rolling"
        seat = state["current"]
        action = "hold" if state["turn_total"] >= 6 else "roll"
        body = {"seat": seat, "token": tokens[str(seat)], "action": action, "expected_step": state["step"]}
        reply = client.post(f"/api/games/{code}/actions", json=body)
        assert reply.status_code == 200, reply.text
    final = client.get(f"/api/games/{code}").json()["state"]
    assert final["finished"] and max(final["scores"]) >= 30
    assert saw_both_sets_rolling
    record = client.get(f"/api/games/{code}/record").json()
    assert record["params"] == {"dice_sets": "2"} and client.get(f"/api/games/{code}/verify").json()["ok"]


def test_two_sets_of_dice_need_seven_players(client: Any) -> None:
    reply = client.post(
        "/api/games", json={"variant": "piggy-six", "params": {"dice_sets": "2"}, "players": ["you", "hold:9"]}
    )
    assert reply.status_code == 400 and "7 or more players" in error_of(reply)["message"]
