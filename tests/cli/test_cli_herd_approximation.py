"""Swine Herd at tables no equilibrium covers: ``solve`` and ``hint`` answer with the group approximation, labelled,
with its exploitability as measured (``pigdice.solve.herd.herd_figures``) and how."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pigdice.cli.app import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def test_solve_at_four_reports_the_approximation_and_its_measured_exploitability() -> None:
    result = run("solve", "swine-herd", "--players", "4", "--goal", "15", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"] is False and data["players"] == 4
    assert "2-player equilibrium against the opponent with the highest score" in data["approximate"]
    assert data["win_probability_by_seat"] == [0.25] * 4  # the seats play alike from equal scores
    figures = data["approximation"]
    assert figures["players_measured"] == 4 and "best reply" in figures["how"]
    goals = [row["goal"] for row in figures["by_goal"]]
    assert goals[0] == 5 and goals == sorted(goals) and len(goals) >= 10
    assert data["exploitability"] == max(row["worst"] for row in figures["by_goal"]) > 0.5
    assert "measured exactly with 4 players" in data["approximate"]


def test_solve_at_five_says_the_figures_are_four_players() -> None:
    result = run("solve", "swine-herd", "--players", "5", "--goal", "15")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "approximate" in text and "not measured beyond 4 players" in text and "goal 5" in text


def test_a_hint_at_four_is_the_approximation_labelled() -> None:
    args = ("hint", "swine-herd", "--players", "4", "--goal", "15", "--opponent", "10,5,3", "--turn-total", "4")
    data = json.loads(run(*args, "--json").stdout)
    assert data["exact"] is False and data["values_against"] == 10 and set(data["values"]) == {"hold", "roll"}
    assert data["best"] == max(data["values"], key=data["values"].get)
    chances = data["win_probability_by_player"]
    assert sum(chances) == pytest.approx(1.0) and data["win_probability"] == chances[0] < 0.25
    assert "measured exactly with 4 players" in data["approximate"]
    text = " ".join(run(*args).stdout.split())
    assert "chance to beat the leader (10) alone" in text and "Approximate: with 4 players" in text
    assert "Your chance to be the winner of 4: about" in text and "--" not in text.split("Approximate:")[1]


def test_a_hint_at_three_on_an_unsolved_goal_names_the_solve() -> None:
    args = ("hint", "swine-herd", "--goal", "40", "--score", "6", "--opponent", "10,20", "--turn-total", "3")
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"] is False and "measured exactly with 3 players" in data["approximate"]
    assert "pigdice solve swine-herd --players 3 --goal 40" in data["approximate"]


def test_a_hint_at_four_keeps_the_one_line_refusals() -> None:
    args = ("hint", "swine-herd", "--goal", "15", "--opponent", "10,5,3", "--turn-total", "6", "--score", "12")
    result = run(*args, "--seated-opponents", "4")
    assert result.exit_code == 2 and "is not an opponent" in result.output and "Traceback" not in result.output
