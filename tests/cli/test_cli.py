"""The `pigdice` command line: JSON shapes for scripts, and one-line errors (exit 2) for bad input."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from clihelpers import run_json, runner

from pigdice.cli.app import app
from pigdice.cli.options import parse_params, variant_from_options
from pigdice.errors import BadParameterError
from pigdice.rules import variant_names

DECISIONS = {"roll-hold", "dice-per-turn", "dice-per-roll", "simultaneous"}


# -- variants ----------------------------------------------------------------------------------
def test_variants_json_lists_every_variant_with_the_stable_keys() -> None:
    data = run_json("variants", "--json")
    assert [item["name"] for item in data] == variant_names()
    for item in data:
        for key in ("name", "aliases", "source", "players_min", "players_max", "goal", "decision", "endgame"):
            assert key in item, (item["name"], key)
        assert item["decision"] in DECISIONS
        assert isinstance(item["source"], list) and item["source"]
        assert all(" (" in source and not source[:3].isdigit() for source in item["source"])  # cited by title
    by_name = {item["name"]: item for item in data}
    assert by_name["hog"]["decision"] == "dice-per-turn"
    assert by_name["swine-herd"]["decision"] == "simultaneous"
    assert by_name["piggy-six"]["endgame"] == "equal-turns"


def test_variants_table_for_people() -> None:
    result = runner.invoke(app, ["variants"])
    assert result.exit_code == 0
    assert "two-dice-pig" in result.stdout and "swine-herd" in result.stdout


# -- rules -------------------------------------------------------------------------------------
def outcome_sum(rows: list[dict[str, Any]]) -> Fraction:
    """Return the exact sum of the 'p/q' probabilities of some outcome rows."""
    return sum((Fraction(row["probability"]) for row in rows), Fraction(0))


def test_rules_pig_json_has_six_outcomes_summing_to_one() -> None:
    data = run_json("rules", "pig", "--json")
    assert data["name"] == "pig" and data["goal"] == 100 and data["decision"] == "roll-hold"
    assert [choice["dice"] for choice in data["outcomes"]] == [1]
    rows = data["outcomes"][0]["outcomes"]
    assert len(rows) == 6
    assert outcome_sum(rows) == 1
    assert {row["effect"]["kind"] for row in rows} == {"add", "bust"}
    assert set(rows[0]) >= {"faces", "label", "probability", "effect"}


def test_rules_two_dice_pig_json_has_36_outcomes() -> None:
    rows = run_json("rules", "two-dice-pig", "--json")["outcomes"][0]["outcomes"]
    assert len(rows) == 36
    assert outcome_sum(rows) == 1
    snake_eyes = [row for row in rows if row["faces"] == [1, 1]]
    assert snake_eyes[0]["effect"]["kind"] == "reset-score"


def test_rules_json_applies_options_and_params() -> None:
    data = run_json("rules", "2dice", "--goal", "50", "--endgame", "equal-turns", "--ties", "first-to-reach", "--json")
    assert (data["name"], data["goal"], data["endgame"], data["ties"]) == (
        "two-dice-pig",
        50,
        "equal-turns",
        "first-to-reach",
    )
    hog = run_json("rules", "hog", "--param", "max_dice=5", "--json")
    assert [choice["dice"] for choice in hog["outcomes"]] == [1, 2, 3, 4, 5]
    assert all(outcome_sum(choice["outcomes"]) == 1 for choice in hog["outcomes"])
    pigs = run_json("rules", "pass-the-pigs", "--param", "oinker=1/100", "--json")
    assert pigs["parameters"]["oinker"] == "1/100"
    assert outcome_sum(pigs["outcomes"][0]["outcomes"]) == 1


def test_rules_for_people_show_text_and_summary() -> None:
    result = runner.invoke(app, ["rules", "two-dice-pig"])
    assert result.exit_code == 0
    assert "Two 1s end the turn" in result.stdout
    assert "27.78%" in result.stdout  # P(single 1) = 10/36
    big = runner.invoke(app, ["rules", "hog"])
    assert big.exit_code == 0 and "JSON form of this command" in big.stdout  # long tables point to JSON


# -- simulate ----------------------------------------------------------------------------------
def test_simulate_json_shape_and_determinism() -> None:
    args = ("simulate", "pig", "--players", "hold:20,hold:25", "--games", "40", "--seed", "5", "--goal", "30", "--json")
    first = run_json(*args)
    assert set(first) == {"games", "wins", "ties", "mean_turns", "seed", "players"}
    assert first["games"] == 40 and len(first["wins"]) == 2
    assert sum(first["wins"]) == pytest.approx(40)
    assert [(p["seat"], p["player"]) for p in first["players"]] == [(1, "hold:20"), (2, "hold:25")]
    assert first == run_json(*args)
    other = run_json(
        "simulate", "pig", "--players", "hold:20,hold:25", "--games", "40", "--seed", "6", "--goal", "30", "--json"
    )
    assert set(other) == set(first)


def test_simulate_table_for_people() -> None:
    result = runner.invoke(
        app, ["simulate", "piggy-six", "--players", "hold:8,hold:14", "--games", "20", "--seed", "1"]
    )
    assert result.exit_code == 0
    assert "hold:14" in result.stdout and "seed 1" in result.stdout


# -- bad input ---------------------------------------------------------------------------------
BAD_INPUT = {
    "unknown variant": (["rules", "no-such-pig"], "known variants"),
    "unknown endgame": (["rules", "pig", "--endgame", "sudden-death"], "first-to-goal"),
    "unknown ties": (["rules", "pig", "--ties", "coin"], "first-to-reach"),
    "unknown final turn": (["rules", "pig", "--final-turn", "nap"], "roll"),
    "goal zero": (["rules", "pig", "--goal", "0"], "goal"),
    "goal negative": (["simulate", "pig", "--goal", "-5", "--games", "3"], "goal"),
    "param without =": (["rules", "hog", "--param", "max_dice"], "key=value"),
    "unknown param": (["rules", "pig", "--param", "colour=red"], "parameter"),
    "param reserved": (["rules", "pig", "--param", "goal=50"], "--goal"),
    "param out of range": (["rules", "hog", "--param", "max_dice=999"], "max_dice"),
    "too many players": (["simulate", "pig", "--players", ",".join(["hold:20"] * 11), "--games", "3"], "players"),
    "too few players": (["play", "pig", "--players", "you"], "players"),
    "more dice than allowed": (["simulate", "hog", "--players", "dice:30,dice:3", "--games", "3"], "26"),
    "bad strategy": (["simulate", "pig", "--players", "hold:20,bogus:3", "--games", "3"], "hold:N"),
    "bad strategy number": (["play", "pig", "--players", "you,hold:x"], "whole number"),
    "human in simulation": (["simulate", "pig", "--players", "you,hold:20", "--games", "3"], "robots"),
    "no games": (["simulate", "pig", "--games", "0"], "games"),
    "negative seed": (["play", "pig", "--seed", "-1"], "seed"),
    "unknown variant in play": (["play", "tic-tac-toe"], "known variants"),
}


@pytest.mark.parametrize("case", list(BAD_INPUT), ids=list(BAD_INPUT))
def test_bad_input_is_one_line_on_stderr_with_exit_2(case: str) -> None:
    args, expected = BAD_INPUT[case]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    assert expected in lines[0]
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    "args",
    [["rules"], ["simulate", "pig", "--games", "many"], ["no-such-command"], ["rules", "pig", "--colour"]],
    ids=["missing argument", "not a number", "unknown command", "unknown option"],
)
def test_typer_usage_errors_keep_exit_2(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_console_script_reports_errors_without_traceback() -> None:
    script = Path(sys.executable).parent / "pigdice"
    if not script.exists():
        pytest.skip("the pigdice console script is not installed next to this Python")
    proc = subprocess.run(
        [str(script), "rules", "pig", "--endgame", "nope"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: unknown endgame 'nope'; allowed: first-to-goal, final-round, equal-turns"
    assert "Traceback" not in proc.stderr


# -- helpers other commands reuse --------------------------------------------------------------
def test_parse_params_reads_ints_and_strings() -> None:
    assert parse_params(["max_dice=10", "oinker=1/100", "snake-eyes=set-25", "n=-3"]) == {
        "max_dice": 10,
        "oinker": "1/100",
        "snake_eyes": "set-25",
        "n": -3,
    }
    with pytest.raises(BadParameterError):
        parse_params(["max_dice=1", "max_dice=2"])


def test_variant_from_options_builds_the_variant() -> None:
    variant = variant_from_options("big pig", goal=60, params=["snake_eyes=bank-25"], endgame="final-round")
    assert (variant.name, variant.goal, str(variant.endgame)) == ("big-pig", 60, "final-round")
    assert dict(variant.parameters)["snake_eyes"] == "bank-25"


def test_play_reads_stdin_to_the_end_without_a_tty() -> None:
    """With piped input the game echoes the keys, never pauses, and EOF abandons it cleanly."""
    result = runner.invoke(app, ["play", "pig", "--players", "you,hold:10", "--seed", "3", "--goal", "10"], input="r\n")
    assert result.exit_code == 0
    assert "seed 3" in result.stdout
    assert "abandoned" in result.stdout or "Game over" in result.stdout
    assert "Traceback" not in result.output


# -- the terminal game, in process -------------------------------------------------------------
def quiet_game(name: str, players: str, seed: int, keys: list[str] | None = None, goal: int = 30) -> tuple[int, str]:
    """Play a terminal game with scripted keys into a string; return the exit code and the transcript."""
    from rich.console import Console

    from pigdice.players.specs import parse_players
    from pigdice.terminal.game import TerminalGame

    variant = variant_from_options(name, goal=goal)
    out = io.StringIO()
    pending = list(keys or [])

    def read(prompt: object) -> str:
        if not pending:
            raise EOFError
        return pending.pop(0)

    console = Console(file=out, width=100, color_system=None)
    game = TerminalGame(variant, parse_players(players, variant), seed, console=console, read=read, pause=0)
    return game.run(), out.getvalue()


@pytest.mark.parametrize("name", variant_names())
def test_every_variant_plays_to_the_end_in_the_terminal(name: str) -> None:
    robot = "dice:5" if name == "hog" else "hold:12"
    code, text = quiet_game(name, f"{robot},{robot},{robot}", seed=11)
    assert code == 0
    assert "seed 11" in text and "Game over" in text
    assert re.search(r"(wins\.|share the victory\.)\n", text)


def test_terminal_game_is_replayable_from_its_seed() -> None:
    keys = ["r", "r", "h"] * 30
    first = quiet_game("two-dice-pig", "you,hold:15", seed=9, keys=keys)
    assert first == quiet_game("two-dice-pig", "you,hold:15", seed=9, keys=keys)


def test_terminal_game_quits_and_survives_eof() -> None:
    code, text = quiet_game("pig", "you,hold:20", seed=1, keys=["x", "h", "q"])
    assert code == 0 and "can't read 'x'" in text and "Game abandoned." in text
    code, text = quiet_game("pig", "you,hold:20", seed=1, keys=[])
    assert code == 0 and "abandoned (end of input)" in text


@pytest.mark.slow
def test_hint_where_the_equilibrium_mixes_says_how_often_each_choice_is_played() -> None:
    # 3-player Pig to 100 at 0 against 61 and 62, turn total 28: a cycle without consistent pure choices;
    # the mover is indifferent and holds with the chance that keeps the others' plans best replies
    args = ("hint", "pig", "--players", "3", "--score", "0", "--opponent", "61,62", "--turn-total", "28")
    data = run_json(*args, "--json")
    assert set(data["play"]) == {"hold", "roll"} and sum(data["play"].values()) == pytest.approx(1.0)
    assert 0.0 < data["play"]["hold"] < 1.0
    assert data["values"]["hold"] == pytest.approx(data["values"]["roll"], abs=1e-11)
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0 and "Both are worth the same to you here" in result.stdout
    assert "the perfect player holds 5% of the time and rolls 95% of the time" in " ".join(result.stdout.split())
    assert run_json("hint", "pig", "--players", "3", "--score", "0", "--opponent", "61,62", "--json")["play"] == {
        "roll": 1.0
    }


def hint_text(players: int, **options: str | int) -> str:
    """Return the hint the terminal shows at the start of a new Pig game to 30 with ``players`` seats."""
    from rich.console import Console

    from pigdice.engine.game import new_game
    from pigdice.terminal.game import show_hint

    out = io.StringIO()
    show_hint(
        new_game(variant_from_options("pig", goal=30, **options), players),
        Console(file=out, color_system=None, width=200),
    )
    return out.getvalue()


# One test per solver, so a cold kernel cache compiles one solver's kernels in each test.
def test_hint_shows_the_best_action_and_win_probability() -> None:
    text = hint_text(2)
    assert "hint: roll" in text and "your chance to win" in text and "hold" in text


def test_hint_is_exact_for_three_players_first_to_the_goal() -> None:
    text = hint_text(3)
    assert "hint: roll" in text and "approximate" not in text


def test_hint_is_approximate_where_no_exact_solver_exists() -> None:
    assert "approximate" in hint_text(5, endgame="final-round")  # a final round is exact up to 4 players
