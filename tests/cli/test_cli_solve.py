"""The solve, policy and hint commands: stable JSON/CSV shapes and clear errors."""

from __future__ import annotations

import csv
import json

import pytest
from clihelpers import assert_one_line_error, run_json
from typer.testing import CliRunner

from pigdice.cli.app import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_solve_json_has_the_documented_keys():
    result = run("solve", "pig", "--goal", "50", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in (
        "variant",
        "goal",
        "win_probability_first_player",
        "start_action",
        "states",
        "iterations",
        "residual",
        "seconds",
        "solve_seconds",
        "kernel_seconds",
    ):
        assert key in data
    assert data["variant"] == "pig" and data["goal"] == 50 and data["states"] == 50 * 50 * 51 // 2
    assert data["residual"] < 1e-12
    again = json.loads(run("solve", "pig", "--goal", "50", "--json").stdout)
    assert again["from_cache"] and again["win_probability_first_player"] == data["win_probability_first_player"]
    assert again["kernel_seconds"] == 0.0  # a cached policy needs no solver
    fresh = json.loads(run("solve", "pig", "--goal", "50", "--no-cache", "--json").stdout)
    assert fresh["kernel_seconds"] > 0.0 and not fresh["from_cache"]
    assert fresh["seconds"] >= fresh["kernel_seconds"] + fresh["solve_seconds"]


@pytest.mark.slow
def test_solve_hog_reports_dice_and_people_get_a_table():
    data = json.loads(run("solve", "hog", "--json").stdout)
    assert data["start_action"] == 6  # seed 003: roll 6 dice on the first turn
    text = run("solve", "pig-dice", "--goal", "60").stdout
    assert "player 1 wins" in text and "player 2 wins" in text and "hold at" in text


def test_policy_export_has_one_row_per_state(tmp_path):
    out = tmp_path / "pig.csv"
    result = run("policy", "pig", "--goal", "20", "--export", str(out))
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["score", "opponent", "turn_total", "action", "win_probability", "roll_value", "hold_value"]
    assert len(rows) == 20 * 20 * 21 // 2
    first = rows[0]
    assert first["action"] == "roll"
    assert float(first["win_probability"]) == max(float(first["roll_value"]), float(first["hold_value"]))


def test_policy_export_for_dice_games(tmp_path):
    out = tmp_path / "hog.csv"
    assert run("policy", "hog", "--goal", "20", "--param", "max_dice=5", "--export", str(out)).exit_code == 0
    rows = list(csv.reader(out.open()))
    assert rows[0][:4] == ["score", "opponent", "action", "win_probability"] and len(rows) == 401
    assert rows[0][4:] == [f"dice_{n}_value" for n in range(1, 6)]
    out = tmp_path / "p6.csv"
    assert run("policy", "piggy-six-3dice", "--goal", "20", "--export", str(out)).exit_code == 0
    rows = list(csv.DictReader(out.open()))
    assert {row["action"] for row in rows} <= {"hold", "roll:1", "roll:2", "roll:3"}


def test_policy_grid_for_people():
    text = " ".join(run("policy", "pig", "--goal", "40").stdout.split())
    assert "optimal player holds" in text and "rows: your score" in text


def test_hint_json_and_table():
    data = json.loads(run("hint", "pig", "--score", "50", "--opponent", "80", "--turn-total", "30", "--json").stdout)
    assert data["best"] in ("roll", "hold") and set(data["values"]) == {"roll", "hold"}
    assert data["win_probability"] == max(data["values"].values())
    text = run("hint", "two-dice-pig", "--score", "10", "--opponent", "0").stdout
    assert "best" in text


def test_swine_herd_solve_and_hint() -> None:
    data = json.loads(run("solve", "swine-herd", "--json").stdout)
    assert data["win_probability_by_seat"] == [0.5, 0.5] and data["start_action"] == 100  # equals never sit first
    mixed = json.loads(
        run("hint", "swine-herd", "--score", "43", "--opponent", "53", "--turn-total", "12", "--json").stdout
    )
    assert set(mixed["values"]) == {"hold", "roll"} and 0 < mixed["play"]["hold"] < 1
    assert abs(mixed["values"]["hold"] - mixed["values"]["roll"]) < 1e-9
    text = run("hint", "swine-herd", "--score", "20", "--opponent", "60", "--turn-total", "10", "--seated").stdout
    assert "stay standing" in text and "best" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("hint", "swine-herd", "--opponent", "100"), "add --seated"),
        (("hint", "swine-herd", "--seated"), "nobody sits down before the first roll"),
        (("hint", "swine-herd", "--score", "95", "--opponent", "90", "--turn-total", "10"), "you both sit down"),
        (("hint", "pig", "--seated", "--turn-total", "3"), "--seated is for Swine Herd"),
        (("solve", "nope"), "unknown variant"),
        (("solve", "pig", "--goal", "0"), "--goal takes a whole number from 1 to"),
        (("hint", "pig", "--score", "100"), "already reached"),
        (("hint", "pig", "--turn-total", "-3"), "--turn-total takes a whole number"),
        (("hint", "hog", "--turn-total", "3"), "no turn total"),
        (("policy", "pig", "--goal", "10", "--export", "/"), "folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_hint_in_the_last_turn_of_equal_turns_infers_the_only_seat_left() -> None:
    # the opponent has reached the goal: under equal turns they sat before you, so you are the second seat
    data = run_json("hint", "freys-pig", "--score", "60", "--opponent", "103", "--json")
    assert data["seat"] == 2 and data["values"]["hold"] == 0.0 and 0.0 < data["values"]["roll"] < 1.0
    assert run_json("hint", "freys-pig", "--score", "60", "--opponent", "103", "--seat", "2", "--json") == data


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--opponent", "40,103"), ("you are seat 2 or 3", "--seat")),  # 2 seats fit: say which
        (("--opponent", "40,103,20"), ("you are seat 3 or 4", "--seat")),
        (("--opponent", "103", "--seat", "1"), ("--seat takes 2",)),
        (("--opponent", "40,103", "--seat", "1"), ("--seat takes 2 or 3",)),
    ],
)
def test_a_seat_the_scores_do_not_settle_is_asked_for_with_its_values(args: tuple[str, ...], words: tuple[str]) -> None:
    assert_one_line_error(["hint", "freys-pig", "--score", "60", *args], *words)


def test_solve_of_a_shipped_game_answers_at_once_and_no_cache_solves_it_again() -> None:
    shipped = run_json("solve", "pig", "--json")
    assert shipped["from_cache"] and shipped["kernel_seconds"] == 0.0
    assert abs(shipped["win_probability_first_player"] - 0.5306) < 1e-4  # Neller & Presser 2004
    assert "shipped with pigdice" in runner.invoke(app, ["solve", "pig"]).stdout
    fresh = run_json("solve", "pig", "--no-cache", "--json")
    assert not fresh["from_cache"] and fresh["start_action"] == shipped["start_action"]
    assert abs(fresh["win_probability_first_player"] - shipped["win_probability_first_player"]) < 1e-12


def test_a_dry_run_says_what_a_solve_would_take_without_solving(tmp_path, monkeypatch):
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    result = run("solve", "pig", "--players", "5", "--goal", "100", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # in one process the win vectors are kept compact past a GiB: 4 of the 5 shares a score tuple (nplayer)
    assert data["score_tuples"] == 100**5 and data["memory_bytes"] == 8 * 4 * 100**5
    assert not data["fits_here"] and data["exact_solver"]
    assert 0 < data["cpu_seconds_low"] < data["cpu_seconds_high"]
    assert list(tmp_path.iterdir()) == []  # nothing solved, nothing cached
    text = run("solve", "two-dice-pig", "--players", "3", "--dry-run")
    assert text.exit_code == 0, text.output
    assert "fits here" in text.stdout and "rough" in text.stdout and "--" not in text.stdout
