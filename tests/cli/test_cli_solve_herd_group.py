"""``pigdice solve swine-herd --players 3``: the 3-player equilibrium (``herd.swineherd_n``) with its exploitability.

Rules source: seed 001, Swine Herd, with the house rule that everyone standing sits once the turn total
takes them all to the goal. Goal 21 on the d6 is the smallest goal where a turn start is settled only by
tracing its logit equilibria ((0, 9, 17), ``tests/solve/test_swineherd_tracing.py``): every turn start
settles there and the exploitability is at rounding level (3.5e-13 over goals 21-30,
``swineherd_n``'s docstring).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pigdice.cli.app import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def goal21() -> dict:
    result = run("solve", "swine-herd", "--players", "3", "--goal", "21", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_answer_has_the_keys_of_an_n_player_answer(goal21: dict) -> None:
    for key in ("variant", "goal", "players", "exact", "regret", "win_probability_by_seat", "start_action", "states"):
        assert key in goal21
    assert goal21["players"] == 3 and goal21["goal"] == 21 and goal21["states"] == 21**3
    equilibria = goal21["equilibria"]
    assert "selected" in equilibria["selection_rule"] and equilibria["search"] is None
    assert equilibria["start_by_seat"] == goal21["win_probability_by_seat"]


def test_every_turn_start_settles_and_no_seat_can_gain(goal21: dict) -> None:
    assert goal21["exact"] is True
    assert goal21["exploitability"] <= 1e-9 and goal21["exploitability_at_start"] <= 1e-9
    assert max(goal21["exploitability_by_seat"]) == goal21["exploitability"] == goal21["regret"]
    equilibria = goal21["equilibria"]
    assert equilibria["unsettled"] == 0 and equilibria["settled_by_tracing"] == 1  # (0, 9, 17)
    settled = sum(equilibria[k] for k in ("settled_on_selected", "settled_on_kept_equilibria", "settled_by_mixing"))
    assert settled + equilibria["settled_by_tracing"] == equilibria["turn_starts"] == 1771  # s1 <= s2 <= s3 < 21
    seats = goal21["win_probability_by_seat"]
    assert sum(seats) == pytest.approx(1.0, abs=1e-12)
    assert seats[0] == seats[1] == seats[2]  # a symmetric game: equal scores play alike


def test_the_table_names_the_gain_in_words() -> None:
    result = runner.invoke(app, ["solve", "swine-herd", "--players", "3", "--goal", "8"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "most a player gains by playing otherwise" in text and "│ equilibrium │ exact" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--players", "3", "--goal", "121"), "3-player Swine Herd is solved exactly up to goal 120"),
        (("--players", "3", "--param", "at_goal=roll-on"), "sits down once the turn total takes them all"),
    ],
)
def test_bad_input_is_one_line(args: tuple[str, ...], message: str) -> None:
    result = run("solve", "swine-herd", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_the_solve_is_kept_in_the_cache_and_play_uses_it(goal21: dict) -> None:
    from pigdice.players.optimal import Optimal
    from pigdice.rules import find_variant
    from pigdice.solve.exact import HERD_GROUP_QUICK_GOAL, exactness, is_cached
    from pigdice.solve.herd.swineherd_n_policy import SwineHerdNExact

    variant = find_variant("swine-herd", goal=21)
    assert variant.goal > HERD_GROUP_QUICK_GOAL  # past the goals solved on demand: in play only once solved
    assert is_cached(variant, 3) and exactness(variant, 3) is None
    policy = Optimal(variant).exact(3)
    assert isinstance(policy, SwineHerdNExact)
    assert policy.win_probability_by_seat() == pytest.approx(goal21["win_probability_by_seat"], abs=1e-15)
    again = run("solve", "swine-herd", "--players", "3", "--goal", "21", "--json")
    assert json.loads(again.stdout)["from_cache"] is True


def test_a_hint_at_three_gives_the_equilibriums_chances() -> None:
    from pigdice.rules import find_variant
    from pigdice.solve.exact import exact_policy
    from pigdice.solve.positions import Position

    args = ("hint", "swine-herd", "--goal", "15", "--score", "6", "--opponent", "6,7", "--turn-total", "3")
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    hint = json.loads(result.stdout)
    policy = exact_policy(find_variant("swine-herd", goal=15), 3)
    position = Position((6, 6, 7), 3)
    assert hint["values"] == pytest.approx(policy.action_values(position), abs=1e-15)
    assert hint["win_probability_by_player"] == pytest.approx(policy.win_vector(position), abs=1e-15)
    assert hint["play"]["hold"] == pytest.approx(0.8627142576, abs=1e-9) and hint["exact"] is True
    words = run(*args)
    assert "the perfect player chooses at random: sit down 86% of the time" in " ".join(words.stdout.split())
    seated = json.loads(run(*args, "--seated-opponents", "2", "--json").stdout)
    position = Position((6, 6, 7), 3, standing=(True, True, False))
    assert seated["values"] == pytest.approx(policy.action_values(position), abs=1e-15)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--seated-opponents", "3"), "--seated-opponents 3 is not an opponent"),
        (("--seated", "--seated-opponents", "1"), "leave out --seated-opponents"),
        (("--turn-total", "0", "--seated-opponents", "1"), "nobody sits down before the first roll"),
    ],
)
def test_a_hint_at_three_refuses_in_one_line(extra: tuple[str, ...], message: str) -> None:
    result = run("hint", "swine-herd", "--goal", "15", "--score", "6", "--opponent", "6,7", "--turn-total", "3", *extra)
    assert result.exit_code != 0 and message in result.output and "Traceback" not in result.output
