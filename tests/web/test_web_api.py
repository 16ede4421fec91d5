"""The JSON API: creating rooms, taking seats, acting, hints, and a clear error for every bad input."""

from __future__ import annotations

from typing import Any

import pytest
from webhelpers import create_game, error_of

from pigdice.engine.game import replay
from pigdice.rules.registry import find_variant
from pigdice.solve.exact import exactness


def test_variants_and_strategies_are_listed(client: Any) -> None:
    variants = client.get("/api/variants").json()
    names = [v["name"] for v in variants]
    assert "pig" in names and "hog" in names and "swine-herd" in names
    assert all(v["rules"] and v["summary"] for v in variants)
    specs = client.get("/api/strategies").json()
    assert "optimal" in specs and "hold:N" in specs


def test_bust_faces_come_from_the_outcome_tables(client: Any) -> None:
    bust = {v["name"]: v["bust_faces"] for v in client.get("/api/variants").json()}
    assert bust["pig"] == bust["two-dice-pig"] == bust["big-pig"] == bust["hog"] == bust["swine-herd"] == ["1"]
    assert bust["piggy-six"] == bust["piggy-six-3dice"] == ["6"]
    assert bust["big-pig-sevens"] == []  # a sum busts there, not a face
    page = client.get(f"/play/{create_game(client, variant='piggy-six')['code']}").text
    assert '"bust_faces": ["6"]' in page


def test_every_offered_robot_can_be_seated(client: Any) -> None:
    specs = client.get("/api/strategies").json()
    assert not any(form.startswith(("python", "py:")) for form in specs)
    for spec in ("optimal", "hold:25", "rolls:3", "random", "keep-pace", "max-score"):
        if spec.split(":")[0] in {f.split(":")[0] for f in specs}:
            create_game(client, players=["you", spec])
    create_game(client, variant="hog", players=["you", "dice:5"])
    create_game(client, variant="hog-reroll", players=["you", "hold:20+dice:2"])


def test_create_returns_tokens_only_for_my_seats(client: Any) -> None:
    data = create_game(client, players=["you", "friend", "hold:20"])
    assert set(data["tokens"]) == {"0"}
    assert len(data["code"]) >= 10
    state = data["state"]
    assert [s["kind"] for s in state["seats"]] == ["human", "human", "robot"]
    assert state["waiting_for"] == [1]
    assert state["seed"] is None  # the dice seed stays secret until the game is over
    assert "token" not in str(state["seats"])


@pytest.mark.parametrize(
    ("body", "code", "status"),
    [
        ({"variant": "no-such-pig"}, "unknown_variant", 400),
        # a designed game is read from a file: never from a web request
        ({"variant": "designed:/etc/hosts"}, "unknown_variant", 400),
        ({"variant": "designed:proposals/1.json"}, "unknown_variant", 400),
        ({"variant": "pig", "goal": 0}, "bad_request", 422),
        ({"variant": "pig", "goal": "twenty"}, "bad_request", 422),
        ({"variant": "pig", "goal": 10**9}, "bad_request", 422),
        ({"variant": "pig", "players": ["you", "hold:banana"]}, "bad_strategy", 400),
        ({"variant": "pig", "players": ["you", "dice:3"]}, "bad_strategy", 400),
        ({"variant": "pig", "players": ["you"]}, "bad_players", 400),
        ({"variant": "pig", "players": ["you", ""]}, "bad_strategy", 400),
        ({"variant": "pig", "players": ["you"] * 11}, "bad_players", 400),
        ({"variant": "pig", "endgame": "sudden-death"}, "bad_parameter", 400),
        ({"variant": "hog", "params": {"max_dice": 0}}, "bad_parameter", 400),
        ({"variant": "pig", "params": {"colour": "pink"}}, "bad_parameter", 400),
        ({"variant": "pig", "surprise": 1}, "bad_request", 422),
        ({"variant": "pig", "goal": 5000, "players": ["you", "optimal"]}, "bad_parameter", 400),
        # plug-in strategies load code: never from a web request
        ({"variant": "pig", "players": ["you", "python:os:getcwd"]}, "bad_strategy", 400),
        ({"variant": "pig", "players": ["you", "py:/etc/hosts:f"]}, "bad_strategy", 400),
        ({"variant": "pig", "players": ["you", "hold:20+python:os:getcwd"]}, "bad_strategy", 400),
    ],
)
def test_create_rejects_bad_input(client: Any, body: dict[str, Any], code: str, status: int) -> None:
    reply = client.post("/api/games", json=body)
    assert reply.status_code == status, reply.text
    assert error_of(reply)["code"] == code


def test_malformed_json_body(client: Any) -> None:
    reply = client.post("/api/games", content=b"{not json", headers={"Content-Type": "application/json"})
    assert reply.status_code == 422
    assert error_of(reply)["code"] == "malformed_json"


def test_unknown_room(client: Any) -> None:
    for code in ("doesnotexist1", "x", "..%2Fetc"):
        reply = client.get(f"/api/games/{code}")
        assert reply.status_code == 404
        assert error_of(reply)["code"] in ("unknown_room", "not_found")


def test_join_seat_taken_and_room_full(client: Any) -> None:
    data = create_game(client, players=["you", "friend", "hold:20"])
    code = data["code"]
    taken = client.post(f"/api/games/{code}/join", json={"seat": 0})
    assert taken.status_code == 409 and error_of(taken)["code"] == "seat_taken"
    robot = client.post(f"/api/games/{code}/join", json={"seat": 2})
    assert robot.status_code == 409 and error_of(robot)["code"] == "seat_taken"
    missing = client.post(f"/api/games/{code}/join", json={"seat": 7})
    assert missing.status_code == 400 and error_of(missing)["code"] == "bad_seat"
    joined = client.post(f"/api/games/{code}/join", json={"name": "Bea"})
    assert joined.status_code == 200
    assert joined.json()["seat"] == 1 and len(joined.json()["token"]) >= 20
    assert joined.json()["state"]["seats"][1]["name"] == "Bea"
    full = client.post(f"/api/games/{code}/join", json={})
    assert full.status_code == 409 and error_of(full)["code"] == "room_full"


def _act(client: Any, code: str, seat: int, token: str, action: str, step: int) -> Any:
    return client.post(
        f"/api/games/{code}/actions", json={"seat": seat, "token": token, "action": action, "expected_step": step}
    )


def test_actions_are_checked_and_a_refused_action_changes_nothing(client: Any) -> None:
    data = create_game(client, players=["you", "friend"])
    code, mine = data["code"], data["tokens"]["0"]
    # nobody plays until every seat is taken
    waiting = _act(client, code, 0, mine, "roll", 0)
    assert waiting.status_code == 409 and error_of(waiting)["code"] == "waiting_for_players"
    friend = client.post(f"/api/games/{code}/join", json={"seat": 1}).json()["token"]
    before = client.get(f"/api/games/{code}").json()

    cases = [
        (_act(client, code, 1, mine, "roll", 0), 403, "wrong_token"),  # my token cannot act for seat 1
        (_act(client, code, 0, friend, "roll", 0), 403, "wrong_token"),  # nor the friend's for seat 0
        (_act(client, code, 0, "forged-token", "roll", 0), 403, "wrong_token"),
        (_act(client, code, 1, friend, "roll", 0), 409, "not_your_turn"),
        (_act(client, code, 0, mine, "roll", 5), 409, "stale_step"),
        (_act(client, code, 0, mine, "dance", 0), 400, "illegal_action"),
        (_act(client, code, 0, mine, "roll:3", 0), 400, "illegal_action"),
        (_act(client, code, 9, mine, "roll", 0), 400, "bad_seat"),
    ]
    for reply, status, code_name in cases:
        assert reply.status_code == status, reply.text
        assert error_of(reply)["code"] == code_name
    bad_body = client.post(f"/api/games/{code}/actions", json={"seat": 0, "action": "roll"})
    assert bad_body.status_code == 422 and error_of(bad_body)["code"] == "bad_request"
    after = client.get(f"/api/games/{code}").json()
    assert after == before  # nothing changed: same state, no events

    ok = _act(client, code, 0, mine, "roll", 0)
    assert ok.status_code == 200
    assert ok.json()["step"] == 1 and ok.json()["events"][0]["type"] == "Rolled"
    again = _act(client, code, 0, mine, "roll", 0)  # a second click with the old step is refused
    assert again.status_code == 409 and error_of(again)["code"] == "stale_step"


def test_a_whole_game_over_http_matches_a_replay(client: Any) -> None:
    data = create_game(client, players=["you", "you"], goal=15)
    code, tokens = data["code"], data["tokens"]
    state = data["state"]
    moves = 0
    while not state["finished"] and moves < 500:
        seat = state["current"]
        action = "hold" if state["turn_total"] >= 6 else "roll"
        reply = _act(client, code, seat, tokens[str(seat)], action, state["step"])
        assert reply.status_code == 200, reply.text
        state = reply.json()["state"]
        moves += 1
    assert state["finished"] and state["seed"].isdecimal()  # text: JavaScript loses integers above 2^53
    game = client.get(f"/api/games/{code}").json()
    assert len({e["step"] for e in game["events"]}) == state["step"]
    finished = client.post(
        f"/api/games/{code}/actions",
        json={"seat": 0, "token": tokens["0"], "action": "roll", "expected_step": state["step"]},
    )
    assert finished.status_code == 409 and error_of(finished)["code"] == "game_over"

    from pigdice.engine.events import event_to_json
    from pigdice.engine.game import parse_action
    from pigdice.rules import find_variant

    actions = [parse_action(a) for a in _actions_from_store(client, code)]
    _, events = replay(find_variant("pig", goal=15), 2, int(state["seed"]), actions)
    stripped = [{k: v for k, v in e.items() if k not in ("step", "line")} for e in game["events"]]
    assert stripped == [event_to_json(e) for e in events]


def _actions_from_store(client: Any, code: str) -> list[str]:
    store = client.app.state.manager.store
    record = store.load_game(code)
    return [m.action for m in record.moves]


def test_hint_needs_the_seat_token(client: Any) -> None:
    data = create_game(client, players=["you", "hold:20"], goal=30)
    code, mine = data["code"], data["tokens"]["0"]
    wrong = client.post(f"/api/games/{code}/hint", json={"seat": 0, "token": "nope"})
    assert wrong.status_code == 403 and error_of(wrong)["code"] == "wrong_token"
    hint = client.post(f"/api/games/{code}/hint", json={"seat": 0, "token": mine}).json()
    assert hint["best"] == "roll" and 0.4 < hint["win_probability"] < 0.7
    assert hint["approximate"] is None
    assert set(hint["values"]) == {"hold", "roll"}


@pytest.mark.parametrize(("players", "endgame"), [(3, "first-to-goal"), (3, "final-round"), (5, "final-round")])
def test_hint_says_when_it_is_approximate(client: Any, players: int, endgame: str) -> None:
    seats = ["you", "hold:20", "hold:25", "hold:15", "hold:10"][:players]
    data = create_game(client, players=seats, goal=30, endgame=endgame)
    hint = client.post(f"/api/games/{data['code']}/hint", json={"seat": 0, "token": data["tokens"]["0"]}).json()
    if exactness(find_variant("pig", goal=30, endgame=endgame), players) is None:
        assert hint["approximate"] is None
    else:  # 5 players under a final round, as long as no exact solver plays it
        assert f"{players} players" in hint["approximate"]


def test_explore_api(client: Any) -> None:
    pig = client.get("/api/explore/pig?goal=30").json()
    assert pig["kind"] == "hold" and len(pig["threshold"]) == 30 and len(pig["threshold"][0]) == 30
    assert 0.5 < pig["first_player_wins"] < 0.6 and pig["approximate"] is None
    herd = client.get("/api/explore/swine-herd?goal=30").json()
    # Swine Herd: when to sit while the other stands, from the exact 2-player equilibrium
    assert herd["kind"] == "sit" and herd["approximate"] is None and "equilibrium" in herd["note"]
    assert len(herd["threshold"]) == 30 and herd["first_player_wins"] == 0.5
    assert herd["threshold"][0][0] == 30  # two players at 0-0 stand until the house rule seats them
    hog = client.get("/api/explore/hog?goal=30").json()
    assert hog["kind"] == "dice" and all(1 <= d <= hog["max_dice"] for row in hog["dice"] for d in row)
    assert client.get("/api/explore/pig?goal=100000").status_code == 400
    assert error_of(client.get("/api/explore/nopig"))["code"] == "unknown_variant"
    assert error_of(client.get("/api/explore/designed:hosts.json"))["code"] == "unknown_variant"


def test_pages_render(client: Any) -> None:
    data = create_game(client)
    for path in ("/", "/rules", "/rules/pig", "/rules/pass-the-pigs", "/explore", f"/play/{data['code']}"):
        reply = client.get(path)
        assert reply.status_code == 200, path
        assert "<html" in reply.text and "cdn" not in reply.text.lower()
    assert client.get("/rules/no-such").status_code == 404
    assert client.get("/rules/designed:hosts.json").status_code == 404  # no file is opened for a stranger
    assert client.get("/play/nosuchroomcode").status_code == 404
    rules = client.get("/rules/pig-dice").text
    assert "Parker Brothers" in rules and "1942" in rules and "Neller &amp; Presser, Pigtail: A Pig Addendum" in rules
    js = client.get("/static/vendor/plotly.min.js")
    assert js.status_code == 200 and "max-age" in js.headers["cache-control"]
    assert client.get("/join?code=abc").status_code == 404
    assert client.get("/join?code=" + data["code"], follow_redirects=False).headers["location"].endswith(data["code"])


def test_the_api_docs_page_needs_no_network(client: Any) -> None:
    import re

    page = client.get("/api/docs")
    assert page.status_code == 200 and "swagger" in page.text.lower()
    assert re.findall(r"https?://", page.text) == []  # every script and style comes from this server
    for asset in re.findall(r'"(/api/docs-assets/[^"]+)"', page.text):
        assert client.get(asset).status_code == 200
