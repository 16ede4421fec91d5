"""3-player Swine Herd through ``ExactPolicy`` (``herd.swineherd_n_policy``): the mover's options at a ``Position``.

Rules source: seed 001, Swine Herd, with the house rule of ``swineherd_n`` (everyone standing sits once
the turn total takes them all to the goal). The answers are read off ``SwineHerdNPolicy.stage`` and
``value``, whose equilibrium the solver tests check; here the adapter must put the mover first, weigh
the others' sit chances and keep an equilibrium's mixer indifferent.
"""

from __future__ import annotations

import itertools

import pytest

from pigdice.errors import BadParameterError
from pigdice.solve.herd.swineherd_n_policy import SwineHerdNExact, swine_herd_n_exact
from pigdice.solve.positions import Position

from .herd_dice import herd

GOAL = 12


@pytest.fixture(scope="module")
def group() -> SwineHerdNExact:
    return swine_herd_n_exact(herd(GOAL), 3)


def test_the_solve_is_certified_exact(group: SwineHerdNExact) -> None:
    assert group.is_exact and group.regret == group.gains.overall <= 1e-9
    assert group.states == GOAL**3 and group.iterations > 0
    seats = group.win_probability_by_seat()
    assert seats == list(group.solved.value((0, 0, 0))) and sum(seats) == pytest.approx(1.0, abs=1e-12)


def test_a_turn_start_only_stands(group: SwineHerdNExact) -> None:
    position = Position((3, 7, 5))
    assert group.strategy(position) == {"roll": 1.0}
    assert group.action_values(position) == {"roll": group.solved.value((3, 7, 5))[0]}
    assert group.win_vector(position) == group.solved.value((3, 7, 5))


def test_a_mixer_is_indifferent_and_the_chances_add_up(group: SwineHerdNExact) -> None:
    mixed = 0
    for scores in itertools.product(range(0, GOAL, 3), repeat=3):
        for t in range(1, GOAL - min(scores)):
            if all(s + t >= GOAL for s in scores):
                break
            position = Position(scores, t, standing=(True, True, True))
            values = group.action_values(position)
            chances = group.strategy(position)
            sit = chances.get("hold", 0.0)
            expected = sit * values["hold"] + (1 - sit) * values["roll"]
            assert group.win_vector(position)[0] == pytest.approx(expected, abs=1e-12)
            assert sum(group.win_vector(position)) == pytest.approx(1.0, abs=1e-12)
            if 0.0 < sit < 1.0:
                mixed += 1
                assert values["hold"] == pytest.approx(values["roll"], abs=1e-9)
            else:  # a pure choice is a best reply
                best = "hold" if sit == 1.0 else "roll"
                assert values[best] >= max(values.values()) - 1e-12
    assert mixed > 0


def test_alone_the_mover_holds_or_rolls_on_by_value(group: SwineHerdNExact) -> None:
    position = Position((4, 9, 2), 5, standing=(True, False, False))
    stage = group.solved.stage((4, 9, 2), 5, (True, False, False))
    values = group.action_values(position)
    assert values == {"hold": stage.payoffs[1][0], "roll": stage.payoffs[0][0]}
    assert group.best(position) == max(values, key=lambda k: (values[k], k == "hold"))


def test_bad_positions_are_refused(group: SwineHerdNExact) -> None:
    with pytest.raises(BadParameterError, match="for 3 players, not 2"):
        group.action_values(Position((1, 2), 3))
    with pytest.raises(BadParameterError, match="below the goal"):
        group.action_values(Position((GOAL, 2, 3), 1))
