"""pigdice.evaluate: any agent (spec, function, table, file, model) played exactly against the perfect player."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pigdice
from pigdice.engine.game import new_game
from pigdice.envs.encoding import observe
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.study.agent_evaluation import evaluate
from pigdice.study.agent_tables import agent_table, position_observations
from pigdice.study.analysis.approximation import approximate_turns, approximation_study
from pigdice.study.evaluate import exact_compare, exact_herd

GOAL = 30  # small games keep the tabulated Python functions quick


def hold_at_20(score: int, opponent_score: int, turn_total: int) -> str:
    """Play hold:20 as a plain function: roll below 20 unless holding wins."""
    return "roll" if turn_total < 20 and score + turn_total < GOAL else "hold"


def test_hold_20_against_the_perfect_player_is_the_compare_figure() -> None:
    pig = find_variant("pig")
    result = pigdice.evaluate("hold:20", variant="pig")
    # issue 28's acceptance figure; Neller & Presser's hold-at-20 loses about 4 points to optimal play
    assert result.average == pytest.approx(0.460080, abs=1e-6)
    compared = exact_compare(pig, *(parse_strategy(s, pig) for s in ("hold:20", "optimal")))
    assert result.seats == pytest.approx((compared.a_first, compared.b_first), abs=1e-12)
    assert result.perfect_seats[0] == pytest.approx(0.5305927, abs=1e-6)  # Neller & Presser 2004: 0.5306
    assert result.gap == pytest.approx(result.perfect_average - result.average)
    assert 0.5 < result.same_choice_share < 1  # type: ignore[operator]
    assert result.share_basis.startswith("the positions the agent reaches")
    worst = result.costly[0]
    assert worst.choice != worst.perfect and worst.chance_lost > 0
    costs = [c.expected_loss for c in result.costly]
    assert costs == sorted(costs, reverse=True)  # type: ignore[type-var]
    assert result.to_json()["average"] == result.average


def test_the_perfect_player_has_no_gap_and_chooses_perfectly() -> None:
    result = evaluate("optimal", "pig", goal=GOAL)
    assert result.gap == 0.0
    assert result.same_choice_share == 1.0
    assert result.costly == ()
    assert result.average == pytest.approx(0.5, abs=1e-12)


def test_a_function_is_its_spec() -> None:
    by_spec = evaluate("hold:20", "pig", goal=GOAL)
    by_function = evaluate(hold_at_20, "pig", goal=GOAL)
    assert by_function.seats == by_spec.seats
    assert by_function.same_choice_share == by_spec.same_choice_share
    assert by_function.agent == "hold_at_20"

    def with_variant(score: int, opponent_score: int, turn_total: int, variant: Any) -> bool:
        return turn_total < 20 and score + turn_total < variant.goal

    assert evaluate(with_variant, "pig", goal=GOAL).seats == by_spec.seats


def test_a_table_and_its_files_are_their_spec(tmp_path: Path) -> None:
    pig = find_variant("pig", goal=GOAL)
    table = action_table(parse_strategy("keep-pace", pig), pig)
    by_spec = evaluate("keep-pace", pig)
    assert evaluate(table, pig).seats == by_spec.seats
    np.save(tmp_path / "mine.npy", table.astype(np.int64))
    np.savez(tmp_path / "mine.npz", actions=table, other=np.zeros(3))
    assert evaluate(str(tmp_path / "mine.npy"), pig).seats == by_spec.seats
    assert evaluate(tmp_path / "mine.npz", pig).seats == by_spec.seats
    assert evaluate(table == 1, pig).seats == by_spec.seats  # booleans: True rolls


def test_an_opponent_other_than_the_perfect_player() -> None:
    pig = find_variant("pig", goal=GOAL)
    result = evaluate("hold:15", pig, opponent="hold:20")
    compared = exact_compare(pig, *(parse_strategy(s, pig) for s in ("hold:15", "hold:20")))
    assert result.seats == pytest.approx((compared.a_first, compared.b_first), abs=1e-12)
    perfect = exact_compare(pig, *(parse_strategy(s, pig) for s in ("optimal", "hold:20")))
    assert result.perfect_seats == pytest.approx((perfect.a_first, perfect.b_first), abs=1e-12)
    assert result.opponent == "hold:20"


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (np.ones((GOAL, GOAL)), "shape"),
        (np.full((GOAL, GOAL, GOAL), 2), r"outside 0\.\.1"),
        (np.full((GOAL, GOAL, GOAL), 0.5), "not whole"),
        (np.full((GOAL, GOAL, GOAL), "roll"), "not numbers"),
        ("hold:twenty", "whole number"),
        ("nonsense", "unknown strategy"),
        (object(), "cannot evaluate"),
        (lambda score: True, "must take"),
    ],
)
def test_bad_agents_are_refused(bad: Any, words: str) -> None:
    with pytest.raises(BadStrategyError, match=words):
        evaluate(bad, "pig", goal=GOAL)


def test_bad_table_files_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.npy"
    text.write_text("not a table")
    many = tmp_path / "many.npz"
    np.savez(many, a=np.zeros(2), b=np.zeros(2))
    pipe = tmp_path / "pipe.npy"
    os.mkfifo(pipe)  # no writer: a plain open would wait for ever
    cases = [
        (text, "not a numpy table"),
        (many, "name the table"),
        (tmp_path / "missing.npz", "no file"),
        (pipe, "pipe"),
        (Path("/dev/zero"), "a device"),
    ]
    for path, words in cases:
        with pytest.raises(BadStrategyError, match=words):
            evaluate(path, "pig", goal=GOAL)
    link = tmp_path / "zero.npy"
    link.symlink_to("/dev/zero")
    with pytest.raises(BadStrategyError, match=r"device|link"):
        evaluate(link, "pig", goal=GOAL)


class FakeModel:
    """A stand-in for a Stable-Baselines3 model: hold:20 read off the environments' observations."""

    def __init__(self) -> None:
        self.asked = 0

    def predict(
        self, observation: np.ndarray, state: Any = None, action_masks: Any = None, deterministic: bool = False
    ) -> tuple[np.ndarray, None]:
        assert action_masks is not None and deterministic
        self.asked += len(observation)
        goal, total, score = observation[:, 0], observation[:, 1], observation[:, 4]
        holds = (total >= 20) | (score + total >= goal)
        return holds.astype(np.int64), None  # 0 rolls, 1 holds in Pig


def test_a_model_is_asked_at_every_position_and_equals_its_table() -> None:
    model = FakeModel()
    result = evaluate(model, "pig", goal=GOAL)
    assert model.asked == GOAL * GOAL * (GOAL + 1) // 2  # every (score, other, turn total) below the goal
    assert result.seats == evaluate("hold:20", "pig", goal=GOAL).seats
    assert result.agent == "FakeModel"


def test_model_observations_are_the_environments() -> None:
    pig = find_variant("pig", goal=GOAL)
    for score, other, total in ((0, 0, 0), (7, 12, 5), (29, 3, 0)):
        state = replace(new_game(pig, 2), scores=(score, other), turn_total=total, rolls_this_turn=int(total > 0))
        made = position_observations(pig, np.array([score]), np.array([other]), np.array([total]))
        assert made[0].tolist() == observe(state, 0).tolist()


def test_a_model_with_out_of_range_answers_is_refused() -> None:
    class Wild:
        def predict(self, observation: np.ndarray, **_: Any) -> tuple[np.ndarray, None]:
            return np.full(len(observation), 7), None

    with pytest.raises(BadStrategyError, match=r"outside 0\.\.1"):
        evaluate(Wild(), "pig", goal=GOAL)


def test_dice_per_turn_games() -> None:
    hog = find_variant("hog", goal=GOAL)
    perfect = evaluate("optimal", hog)
    assert perfect.gap == 0.0 and perfect.same_choice_share == 1.0
    five = evaluate("dice:5", hog)
    compared = exact_compare(hog, *(parse_strategy(s, hog) for s in ("dice:5", "optimal")))
    assert five.seats == pytest.approx((compared.a_first, compared.b_first), abs=1e-12)
    assert five.gap > 0 and 0 < five.same_choice_share < 1  # type: ignore[operator]
    assert all(c.turn_total == 0 and c.choice.startswith("roll") for c in five.costly)


def test_other_endings_are_labelled() -> None:
    result = evaluate("hold:20", "pig", goal=GOAL, opponent="optimal")
    ending = evaluate("hold:20", find_variant("pig", goal=GOAL, endgame="final-round"))
    assert result.exact and not ending.exact
    assert ending.seats == result.seats
    assert "first-to-goal" in ending.notes[0]
    assert "first-to-goal" in ending.to_json()["method"]


def test_three_players_match_the_approximation_study() -> None:
    pig = find_variant("pig", goal=8)
    actions = agent_table("optimal", pig).table.copy()
    actions[:, :, 0][actions[:, :, 0] == 0] = 1  # the approximate player rolls where the policy would pass
    result = evaluate(actions, pig, players=3)
    study = approximation_study(pig, 3)
    assert result.seats == pytest.approx([s.approximate for s in study.seats], abs=1e-10)
    assert result.perfect_seats == pytest.approx(study.optimal, abs=1e-12)
    assert result.same_choice_share is None and approximate_turns(pig).leftover == 0
    with pytest.raises(BadParameterError, match="perfect players only"):
        evaluate("hold:5", pig, players=3, opponent="hold:6")


def test_swine_herd_reads_the_sit_tables() -> None:
    herd = find_variant("swine-herd", goal=GOAL)
    a, b = (parse_strategy(s, herd) for s in ("hold:10", "optimal"))
    result = evaluate("hold:10", herd)
    expected = exact_herd(herd, a, b)
    assert expected is not None
    assert result.seats == pytest.approx((expected.a_first, expected.b_first), abs=1e-12)
    with pytest.raises(BadStrategyError, match="only the perfect player and hold:N"):
        evaluate(hold_at_20, herd)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(BadParameterError):
        evaluate("hold:20", "pig", goal=0)
    with pytest.raises(BadParameterError):
        evaluate("hold:20", "pig", players=11)
    with pytest.raises(BadParameterError):
        evaluate("hold:20", 42)  # type: ignore[arg-type]
