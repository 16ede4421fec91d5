"""The web server's perfect player and hints use the exact solvers (pigdice.solve.exact) where one exists and the
solve fits the server's bound (Settings.max_exact_states); beyond it they play the approximation and say so."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from webhelpers import create_game, make_settings, wait_until

from pigdice.engine.game import apply, new_game, parse_action
from pigdice.errors import ResourceLimitError
from pigdice.players.optimal import Optimal, position_of
from pigdice.rules.registry import find_variant
from pigdice.solve import exact
from pigdice.solve.cost import largest_exact_goal
from pigdice.solve.exact import FirstToGoalPolicy, exact_policy, exactness
from pigdice.solve.n.nplayer import PlayersPolicy
from pigdice.solve.policy import Policy
from pigdice.solve.two.endgame import EndgamePolicy
from pigdice.web.app import create_app
from pigdice.web.errors import WebError
from pigdice.web.rooms import Room
from pigdice.web.solving import SolvePool, exact_job_key

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


pytestmark = pytest.mark.usefixtures("fresh_policies")  # every test solves into its own empty caches


def _room(client: Any, code: str) -> Room:
    room: Room = client.app.state.manager.rooms[code]
    return room


def _robots(room: Room) -> list[Optimal]:
    return [seat.strategy for seat in room.seats if isinstance(seat.strategy, Optimal)]


def _ready(client: Any, code: str) -> Room:
    """Wait until the room's perfect player has its policy; return the room."""
    room = _room(client, code)
    wait_until(lambda: not room.preparing, "the perfect player's policy", timeout=120)
    return room


def _hint(client: Any, game: dict[str, Any]) -> dict[str, Any]:
    reply = client.post(f"/api/games/{game['code']}/hint", json={"seat": 0, "token": game["tokens"]["0"]})
    assert reply.status_code == 200, reply.text
    hint: dict[str, Any] = reply.json()
    return hint


def _robot_turns_done(client: Any, code: str) -> dict[str, Any] | None:
    state: dict[str, Any] = client.get(f"/api/games/{code}").json()["state"]
    return state if state["current"] == 0 or state["finished"] else None


def test_three_players_first_to_the_goal_play_and_hint_exactly(tmp_path: Path) -> None:
    variant = find_variant("pig", goal=12)
    assert exactness(variant, 3) is None
    reference = exact_policy(variant, 3, use_cache=False)  # solved here, apart from the server's worker
    with TestClient(create_app(make_settings(tmp_path))) as client:
        game = create_game(client, variant="pig", goal=12, players=["you", "optimal", "optimal"])
        room = _ready(client, game["code"])
        for robot in _robots(room):
            assert robot.is_ready_for(3)
            assert isinstance(robot.exact(3), PlayersPolicy) and robot.exact(3).players == 3

        hint = _hint(client, game)
        assert hint["approximate"] is None
        assert hint["values"] == pytest.approx(reference.action_values(position_of(room.state)), abs=1e-12)
        assert hint["best"] == reference.best(position_of(room.state))

        client.post(
            f"/api/games/{game['code']}/actions",
            json={"seat": 0, "token": game["tokens"]["0"], "action": "hold", "expected_step": 0},
        )
        wait_until(lambda: _robot_turns_done(client, game["code"]), "the robots' turns")
        # every robot move is the exact policy's choice at that position (the game replayed from its seed)
        state, rng = new_game(variant, 3), np.random.default_rng(room.seed)
        assert len(room.actions) > 1
        for action in room.actions:
            if state.current != 0:
                assert action == reference.best(position_of(state)), (state, action)
            state, _ = apply(state, parse_action(action), rng)


def test_a_hint_gives_every_seat_its_exact_chance(tmp_path: Path) -> None:
    variant = find_variant("pig", goal=12)
    reference = exact_policy(variant, 3, use_cache=False)
    # the robot who moves first waits a minute: the room stays at its first position while we ask
    with TestClient(create_app(make_settings(tmp_path, robot_delay=60.0))) as client:
        game = create_game(client, variant="pig", goal=12, players=["hold:5", "you", "hold:5"])
        room = _room(client, game["code"])
        body = {"seat": 1, "token": game["tokens"]["1"]}
        reply = client.post(f"/api/games/{game['code']}/hint", json=body)
        assert reply.status_code == 200, reply.text
        hint = reply.json()
        assert room.state.step == 0 and hint["your_turn"] is False and hint["best"] is None
        assert hint["win_probability"] == pytest.approx(reference.win_vector(position_of(room.state))[1], abs=1e-12)


@pytest.mark.parametrize(
    ("players", "endgame", "ties"),
    [(2, "final-round", "shared"), (2, "equal-turns", "first-to-reach"), (3, "final-round", "shared")],
)
def test_an_ending_hint_is_the_exact_one(tmp_path: Path, players: int, endgame: str, ties: str) -> None:
    variant = find_variant("pig", goal=12, endgame=endgame, ties=ties)
    if exactness(variant, players) is not None:
        pytest.skip(f"no exact solver: {exactness(variant, players)}")
    reference = exact_policy(variant, players, use_cache=False)  # solved here, apart from the server's worker
    seats = ["you"] + ["optimal"] * (players - 1)
    with TestClient(create_app(make_settings(tmp_path))) as client:
        game = create_game(client, variant="pig", goal=12, endgame=endgame, ties=ties, players=seats)
        room = _ready(client, game["code"])
        for robot in _robots(room):
            policy = robot.exact(players)
            assert policy is not None and policy.variant == variant and policy.players == players
        if players == 2:
            assert isinstance(robot.exact(2), EndgamePolicy)
        hint = _hint(client, game)
        assert hint["approximate"] is None
        position = position_of(room.state)
        assert hint["values"] == pytest.approx(reference.action_values(position), abs=1e-12)
        # the first-to-goal game's values differ: the hint is not the first-to-goal policy's
        plain = exact_policy(variant.first_to_goal(), players, use_cache=False)
        assert hint["values"] != pytest.approx(plain.action_values(position), abs=1e-9)


def test_past_the_exact_bound_the_room_plays_the_approximation(tmp_path: Path) -> None:
    variant = find_variant("pig", goal=12)
    with TestClient(create_app(make_settings(tmp_path, max_exact_states=12**3 - 1))) as client:
        game = create_game(client, variant="pig", goal=12, players=["you", "optimal", "optimal"])
        room = _ready(client, game["code"])
        for robot in _robots(room):
            assert robot.is_ready_for(3) and robot.exact(3) is None  # the 2-player policy, nothing exact
        hint = _hint(client, game)
        assert "3 players" in hint["approximate"]
        assert f"exactly up to goal {largest_exact_goal(12**3 - 1, 3)}" in hint["approximate"]
        client.post(
            f"/api/games/{game['code']}/actions",
            json={"seat": 0, "token": game["tokens"]["0"], "action": "hold", "expected_step": 0},
        )
        state = wait_until(lambda: _robot_turns_done(client, game["code"]), "the robots' turns")
        assert state["step"] > 1
        assert exact.cached_exact(variant, 3) is None  # no 3-player solve was started
        # 2 players to the same goal fit: that room is exact
        two = create_game(client, variant="pig", goal=12, players=["you", "optimal"])
        assert _hint(client, two)["approximate"] is None


def test_games_with_resets_have_the_smaller_bound(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, max_exact_reset_states=999))) as client:
        manager = client.app.state.manager
        assert manager.perfect.exact_refusal(find_variant("pig", goal=12), 3) is None
        reset = find_variant("two-dice-pig", goal=12)  # double ones reset the score
        assert "reset a score exactly up to goal 9" in manager.perfect.exact_refusal(reset, 3)
        assert manager.perfect.solve_for(reset, 3) == (reset.roll_hold_form(), 2)
        assert manager.perfect.exact_refusal(find_variant("two-dice-pig", goal=9), 3) is None
        assert manager.perfect.exact_refusal(reset, 2) is None  # 144 score pairs


def test_last_rounds_whose_totals_double_have_the_smallest_bound(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        manager = client.app.state.manager
        dice = find_variant("pig-dice", goal=21)  # final round; head and tail double the turn total
        assert "can double or fall exactly up to goal 20" in manager.perfect.exact_refusal(dice, 3)
        assert manager.perfect.exact_refusal(find_variant("pig-dice", goal=20), 3) is None
        assert manager.perfect.exact_refusal(find_variant("pig-dice", goal=21, endgame="first-to-goal"), 3) is None
        assert manager.perfect.exact_refusal(dice, 2) is None  # 2 players: the 2-player endgame solver
        assert manager.perfect.exact_refusal(find_variant("pig", goal=50, endgame="final-round"), 3) is None


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ResourceLimitError("solving pig for 3 players needs 9 GiB; this machine has 2 GiB"), "needs 9 GiB"),
        (WebError("solve_failed", "the perfect player could not be prepared; try again", 503), "process stopped"),
    ],
)
def test_a_failed_exact_solve_falls_back_to_the_approximation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str
) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        pool = client.app.state.manager.pool
        solve = pool.exact
        asked: list[int] = []

        async def fails_for_three(variant: Any, players: int) -> Any:
            asked.append(players)
            if players == 3:
                raise error
            return await solve(variant, players)

        monkeypatch.setattr(pool, "exact", fails_for_three)
        game = create_game(client, variant="pig", goal=13, players=["you", "optimal", "optimal"])
        room = _ready(client, game["code"])
        assert all(robot.is_ready_for(3) and robot.exact(3) is None for robot in _robots(room))
        hint = _hint(client, game)
        assert "the exact solve failed on this server" in hint["approximate"] and reason in hint["approximate"]
        again = create_game(client, variant="pig", goal=13, players=["you", "optimal", "optimal"])
        _ready(client, again["code"])
        assert asked == [3, 2]  # the failure is remembered: the next room plays the approximation at once


def test_rooms_with_other_player_counts_or_endings_never_share_a_job() -> None:
    pig = find_variant("pig", goal=10)
    games = [
        (pig, 2),
        (pig, 3),
        (find_variant("pig", goal=10, endgame="final-round"), 2),
        (find_variant("pig", goal=10, endgame="final-round", ties="first-to-reach"), 2),
        (find_variant("pig", goal=10, endgame="final-round", final_turn="roll"), 2),
        (find_variant("pig", goal=10, endgame="equal-turns"), 2),
        (find_variant("pig", goal=10, endgame="final-round"), 3),
    ]
    games = [(variant, players) for variant, players in games if exactness(variant, players) is None]
    keys = {exact_job_key(variant, players) for variant, players in games}
    assert len(keys) == len(games)
    # the tie rule and final turn do not change first-to-goal play: those games share one job
    assert exact_job_key(find_variant("pig", goal=10, ties="first-to-reach"), 3) == exact_job_key(pig, 3)
    pool = SolvePool(workers=1, max_jobs=len(games))

    async def asks() -> None:
        futures = [asyncio.ensure_future(pool.exact(variant, players)) for variant, players in games]
        again = asyncio.ensure_future(pool.exact(pig, 3))
        await asyncio.sleep(0)
        assert sorted(pool.running) == sorted(keys)  # one job each; asking again shares the running one
        policies = await asyncio.gather(*futures)
        assert (await again).players == 3
        for (variant, players), policy in zip(games, policies, strict=True):
            assert policy.players == players
            assert exact_job_key(policy.variant, players) == exact_job_key(variant, players)
            assert pool.exact_ready(variant, players)
        assert isinstance(policies[0], FirstToGoalPolicy) and isinstance(policies[0].policy, Policy)
        assert isinstance(policies[1], PlayersPolicy)
        assert all(isinstance(policy, EndgamePolicy) for policy in policies[2:6])
        assert pool.busy == 0

    try:
        asyncio.run(asks())
    finally:
        pool.close()


def test_two_and_three_seat_rooms_get_their_own_policies(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        two = create_game(client, variant="pig", goal=11, players=["you", "optimal"])
        three = create_game(client, variant="pig", goal=11, players=["you", "optimal", "optimal"])
        [robot2] = _robots(_ready(client, two["code"]))
        robots3 = _robots(_ready(client, three["code"]))
        assert robot2.exact(2) is not None and robot2.exact(3) is None
        assert all(isinstance(robot.exact(3), PlayersPolicy) for robot in robots3)
