"""Swine Herd's 2-player equilibrium as the perfect player: options, mixes, draws, hints and the solvers' switch."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pigdice.engine.game import Hold, Roll, new_game
from pigdice.engine.simultaneous import seat_view
from pigdice.errors import BadParameterError
from pigdice.players.optimal import Optimal, approximation_note, herd_view, hint_for_state
from pigdice.rules import find_variant
from pigdice.solve.exact import exact_policy, exactness, solver_kind, start_action
from pigdice.solve.herd.swineherd_policy import SwineHerdExact
from pigdice.solve.positions import Position

HERD = find_variant("swine-herd")
MIXED = (43, 53, 12)  # a stage game where both mix (seen from the player with 43)


@pytest.fixture(scope="module")
def herd() -> SwineHerdExact:
    policy = exact_policy(HERD, 2)
    assert isinstance(policy, SwineHerdExact)
    return policy


def test_two_players_are_exact_and_more_are_not() -> None:
    assert exactness(HERD, 2) is None and approximation_note(HERD, 2) is None
    # goal 100 takes minutes: solved on request (solver_kind), in play only once it is in the cache
    assert "not been worked out here yet" in (exactness(HERD, 3) or "")
    assert "2-player equilibrium against the opponent with the highest score" in (approximation_note(HERD, 3) or "")
    assert solver_kind(HERD, 3) == "swine-herd" and "2 or 3 players, not 4" in (exactness(HERD, 4) or "")
    assert "goal 200" in (exactness(HERD.with_goal(201), 2) or "")
    assert "Pig's optimal policy" in (approximation_note(HERD.with_goal(201), 3) or "")  # no equilibrium to read


def test_a_mixed_stage_leaves_the_mover_indifferent(herd: SwineHerdExact) -> None:
    a, b, t = MIXED
    position = Position((a, b), t, standing=(True, True))
    values = herd.action_values(position)
    chances = herd.strategy(position)
    stage = herd.solved.stage(a, b, t)
    assert 0.0 < chances["hold"] < 1.0 and chances["hold"] == pytest.approx(stage.sit_a)
    assert values["hold"] == pytest.approx(values["roll"], abs=1e-9)  # the other's mix makes both options equal
    assert herd.win_vector(position)[0] == pytest.approx(stage.value, abs=1e-12)
    assert herd.play(position, lambda: 0.0) == "hold" and herd.play(position, lambda: 0.999) == "roll"


def test_the_seats_are_symmetric(herd: SwineHerdExact) -> None:
    a, b, t = MIXED
    mine = herd.win_vector(Position((a, b), t, standing=(True, True)))
    theirs = herd.win_vector(Position((b, a), t, standing=(True, True)))
    assert mine[0] == pytest.approx(theirs[1], abs=1e-12)
    assert herd.win_probability_by_seat() == [0.5, 0.5]


def test_alone_and_before_the_first_roll(herd: SwineHerdExact) -> None:
    assert herd.action_values(Position((0, 0))) == {"roll": 0.5}
    assert herd.strategy(Position((0, 0))) == {"roll": 1.0}
    alone = Position((90, 40), 15, standing=(True, False))  # 105 against a seated 40: sit down and win
    assert herd.best(alone) == "hold" and herd.win_vector(alone)[0] == 1.0
    behind = Position((20, 60), 10, standing=(True, False))  # 30 against 60, alone: roll on
    assert herd.best(behind) == "roll"


def test_between_equals_nobody_sits_first(herd: SwineHerdExact) -> None:
    # sitting first hands the other a free roll: at equal scores both stay until the house rule seats them
    assert start_action(herd) == HERD.goal
    assert herd.strategy(Position((0, 0), 40, standing=(True, True))) == {"roll": 1.0}


def test_positions_it_cannot_answer(herd: SwineHerdExact) -> None:
    with pytest.raises(BadParameterError, match="2 players"):
        herd.action_values(Position((0, 0, 0), 2, standing=(True, True, True)))
    with pytest.raises(BadParameterError, match="standing"):
        Position((0, 0), 2, standing=(False, True))


def test_the_robot_mixes_from_its_own_generator() -> None:
    a, b, t = MIXED
    state = dataclasses.replace(new_game(HERD, 2), scores=(a, b), turn_total=t)
    robot = Optimal(HERD)
    sit = robot.exact(2).strategy(Position((a, b), t, standing=(True, True)))["hold"]  # type: ignore[union-attr]
    rng = np.random.default_rng(7)
    picks = []
    for step in range(2000):  # a new moment each time: one draw per moment
        moment = dataclasses.replace(state, turn=step)
        picks.append(isinstance(robot.choose(seat_view(moment, 0), rng), Hold))
    assert abs(np.mean(picks) - sit) < 0.04  # 4.4 standard errors of 2,000 draws
    again = Optimal(HERD)
    rng = np.random.default_rng(7)
    replayed = [
        isinstance(again.choose(seat_view(dataclasses.replace(state, turn=s), 0), rng), Hold) for s in range(50)
    ]
    assert replayed == picks[:50]  # the same seed, the same choices


def test_the_hint_shows_the_mix() -> None:
    a, b, t = MIXED
    state = dataclasses.replace(new_game(HERD, 2), scores=(a, b), turn_total=t)
    hint = hint_for_state(state)
    assert hint.approximate is None and hint.mix is not None and set(hint.mix) == {"sit", "stand"}
    text = hint.describe()
    assert "mixes" in text and "sit down" in text and "stay standing" in text
    assert hint_for_state(new_game(HERD, 2)).best == "stand"
    assert isinstance(Optimal(HERD).choose(new_game(HERD, 2), np.random.default_rng(0)), Roll)


def test_three_players_read_the_equilibrium_against_the_highest_score(herd: SwineHerdExact) -> None:
    a, b, t = MIXED
    state = dataclasses.replace(new_game(HERD, 3), scores=(a, b, 10), turn_total=t)
    assert herd_view(seat_view(state, 0)) == Position((a, b), t, standing=(True, True))
    seated = dataclasses.replace(state, standing=(True, False, True))
    assert herd_view(seat_view(seated, 0)).standing == (True, False)  # the leader sat down: alone against 53
    hint = hint_for_state(state)
    pair = herd.win_vector(Position((a, b), t, standing=(True, True)))[0]
    assert hint.win_probability == pytest.approx(pair) and hint.mix is not None
    assert "highest score" in (hint.approximate or "")
    robot = Optimal(HERD)
    picks = [
        isinstance(robot.choose(seat_view(dataclasses.replace(state, turn=n), 0), np.random.default_rng(n)), Hold)
        for n in range(300)
    ]
    assert 0.6 < np.mean(picks) < 0.95  # it mixes as the equilibrium does (sits 79% here)
