"""The command line's analysis: review --json with luck and skill, levels, history and practice."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from clihelpers import assert_one_line_error, run_json, runner

from pigdice.cli.app import app
from pigdice.engine.game import apply, dice_rng, new_game, robot_rng
from pigdice.engine.record import Commitment, SeatEntry, record_game, save_record
from pigdice.players.specs import parse_strategy
from pigdice.rules import find_variant


def save_game(folder: Path, seed: int, variant_name: str = "pig", goal: int = 40) -> Path:
    """Save a finished game between a person (playing hold:10) and level:4; return its file."""
    variant = find_variant(variant_name, goal=goal)
    seats = [parse_strategy("hold:10", variant), parse_strategy("level:4", variant)]
    state, dice, rng, moves = new_game(variant, 2), dice_rng(seed), robot_rng(seed), []
    while not state.is_terminal():
        moves.append(seats[state.current].choose(state, rng))
        state, _ = apply(state, moves[-1], dice)
    entries = [SeatEntry("You", "you", "human"), SeatEntry("Babe", "level:4", "robot")]
    path = folder / f"game-{seed}.json"
    save_record(record_game(variant, entries, seed, moves, commitment=Commitment.make(seed)), path)
    return path


def test_review_json_gives_every_seat_start_luck_error_and_result(tmp_path: Path) -> None:
    data = run_json("review", str(save_game(tmp_path, 3)), "--json")
    for seat in data["seats"]:
        assert seat["result"] == pytest.approx(seat["start"] + seat["luck"] - seat["error"], abs=1e-9)
        assert {"dice", "others", "luck_adjusted", "rating", "luckiest", "unluckiest"} <= set(seat)
    assert data["luck"]["identity"].startswith("result = start + luck - error")
    text = runner.invoke(app, ["review", str(save_game(tmp_path, 3))]).stdout
    assert "points of winning chance to the dice" in text or "The dice gave you" in text
    assert "Performance Rating" in text and "luckiest roll" in text


def test_levels_lists_eight_robots_from_the_weakest_up() -> None:
    data = run_json("levels", "pig", "--goal", "50", "--json")
    levels = data["levels"]
    assert [level["spec"] for level in levels] == [f"level:{n}" for n in range(1, 9)]
    chances = [level["chance"] for level in levels]
    assert chances == sorted(chances) and len(set(chances)) == 8 and data["increasing"]
    assert chances[-1] == pytest.approx(0.5, abs=1e-12)  # the perfect player against itself, each seat half the games
    assert levels[-1]["moving_first"] - 0.5 == pytest.approx(data["first_player_edge"])
    text = runner.invoke(app, ["levels", "pig", "--goal", "50"]).stdout
    assert "a club player" in text and "level:8" in text


@pytest.mark.slow
def test_levels_of_pig_rise_strictly_to_one_half() -> None:
    data = run_json("levels", "pig", "--json")
    chances = [level["chance"] for level in data["levels"]]
    assert all(a < b for a, b in itertools.pairwise(chances))
    assert chances[0] < 0.05 and chances[-1] == pytest.approx(0.5, abs=1e-12)
    # Neller & Presser 2004: the first player wins 0.5306 under optimal play
    assert 0.5 + data["first_player_edge"] == pytest.approx(0.5306, abs=1e-4)


def test_levels_says_when_an_ending_is_left_out() -> None:
    data = run_json("levels", "pig", "--goal", "25", "--endgame", "final-round", "--json")
    assert "race to the goal" in data["note"]
    assert_one_line_error(["levels", "pig", "--goal", "0"], "--goal")


def test_history_and_its_plot_from_a_games_folder(tmp_path: Path) -> None:
    for seed in range(3):
        save_game(tmp_path, seed)
    data = run_json("history", "--folder", str(tmp_path), "--json", "--plot", str(tmp_path / "h.png"))
    assert data["games"] == 3 and data["finished"] == 3 and data["rating"]["decisions"] > 0
    assert (tmp_path / "h.png").stat().st_size > 1000
    text = runner.invoke(app, ["history", "--folder", str(tmp_path)]).stdout
    assert "Performance Rating" in text and "you play like" in text
    empty = runner.invoke(app, ["history", "--folder", str(tmp_path / "none")])
    assert empty.exit_code == 0 and "No game of yours" in empty.stdout


def test_practice_asks_the_mistakes_again_until_they_are_right(tmp_path: Path) -> None:
    save_game(tmp_path, 5, goal=40)
    answers = "\n".join(["h"] + ["r"] * 40) + "\n"  # the first one wrong (hold), then roll every time
    result = runner.invoke(app, ["practice", "--folder", str(tmp_path), "--cards", "3"], input=answers)
    assert result.exit_code == 0, result.output
    assert "Not the best" in result.stdout and "Right." in result.stdout
    assert "Practised 3 positions, 2 right the first time." in result.stdout
    progress = json.loads((tmp_path / "practice" / "progress.json").read_text())
    assert len(progress["cards"]) == 3 and all(c["right"] == 1 for c in progress["cards"].values())
    again = runner.invoke(app, ["practice", "--folder", str(tmp_path), "--cards", "3"], input="q\n")
    assert again.exit_code == 0
    assert "3 positions" in again.stdout or "Nothing is due" in again.stdout
