"""The command line against the held-out probes of issue 32: plain files only, bounded reads, clean names,
refusals before any work, every game's record readable.

Each test is a reproducer from the issue: it must give one clear ``error:`` line (exit 2) or the right
answer, quickly, and leave files that are not pigdice's own untouched.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from clihelpers import assert_one_line_error, runner

from pigdice.cli.app import app
from pigdice.engine.game import Hold, Roll, apply, dice_rng, new_game
from pigdice.engine.record import Commitment, SeatEntry, record_game, save_record
from pigdice.rules.registry import find_variant


def timed(args: list[str], seconds: float, *words: str) -> None:
    """The command is refused with one error line naming ``words`` within ``seconds``."""
    started = time.perf_counter()
    assert_one_line_error(args, *words)
    assert time.perf_counter() - started < seconds, args


def game_file(tmp_path: Path, name: str = "game.json", **changes: Any) -> Path:
    """Write a finished 2-player game's record (Pig to 100: its perfect player ships with pigdice, so a review
    solves nothing), with ``changes`` to its JSON, and return it."""
    variant = find_variant("pig")
    state = new_game(variant, 2)
    rng = dice_rng(4)
    actions: list = []
    while not state.is_terminal():
        action = Hold() if state.turn_total >= 20 else Roll()
        state, _ = apply(state, action, rng)
        actions.append(action)
    seats = [SeatEntry("Ann", "you", "human"), SeatEntry("Wilbur", "hold:20", "robot")]
    data = record_game(variant, seats, 4, actions, commitment=Commitment.make(4)).to_json()
    data.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


# -- files ------------------------------------------------------------------------------------------------
def test_play_save_refuses_a_symlink_and_a_device_before_the_game(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("precious")
    link = tmp_path / "link.json"
    link.symlink_to(kept)
    timed(["play", "pig", "--players", "hold:20,hold:20", "--save", str(link)], 5, "--save", "symbolic link")
    assert kept.read_text() == "precious" and link.is_symlink()
    node = os.lstat("/dev/null")
    timed(["play", "pig", "--players", "hold:20,hold:20", "--save", "/dev/null"], 5, "--save", "a device")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode) and os.lstat("/dev/null").st_ino == node.st_ino
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    timed(["play", "pig", "--players", "hold:20,hold:20", "--save", str(pipe)], 5, "pipe")


def test_every_output_option_refuses_what_is_not_a_plain_file(tmp_path: Path) -> None:
    kept = tmp_path / "kept.csv"
    kept.write_text("precious")
    link = tmp_path / "out.csv"
    link.symlink_to(kept)
    timed(["policy", "pig", "--goal", "10", "--export", str(link)], 5, "--export", "symbolic link")
    timed(["tournament", "--variant", "pig", "--goal", "10", "--csv", "/dev/null"], 5, "--csv", "device")
    assert kept.read_text() == "precious"


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="needs Linux's /sys")
def test_an_export_into_a_folder_that_takes_no_file_is_refused_before_the_solve() -> None:
    timed(["policy", "pig", "--goal", "500", "--export", "/sys/x"], 5, "--export", "takes no new file")


def test_rule_files_that_are_devices_pipes_or_huge_are_refused_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "rules.json"
    os.mkfifo(pipe)
    big = tmp_path / "big.json"
    with big.open("wb") as stream:
        stream.truncate(10 * 2**20)
    timed(["rules", "designed:/dev/zero"], 1, "/dev/zero", "a device")
    timed(["rules", f"designed:{pipe}"], 1, "pipe")
    timed(["rules", f"designed:{big}"], 1, "10,485,760 bytes")
    timed(["design", "--space", "/dev/zero", "--out", str(tmp_path / "out")], 1, "a device")


def test_numbers_of_thousands_of_digits_and_lone_surrogates_are_refused(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    huge.write_text('{"format": "pigdice-rules", "version": 1, "rules": {"goal": ' + "9" * 5000 + "}}")
    timed(["rules", f"designed:{huge}"], 2, "thousands of digits")
    lone = tmp_path / "lone.json"
    lone.write_text('{"format": "pigdice-rules", "version": 1, "title": "a\\ud800", "rules": {}}')
    timed(["rules", f"designed:{lone}"], 2, "surrogate")
    record = game_file(tmp_path)
    digits = tmp_path / "digits.json"
    digits.write_text(record.read_text().replace('"goal": 100', '"goal": ' + "9" * 5000))
    timed(["verify", str(digits)], 2, "thousands of digits")
    surrogate = tmp_path / "surrogate.json"
    surrogate.write_text(record.read_text().replace('"name": "Ann"', '"name": "Ann\\udc80"'))
    timed(["replay", str(surrogate)], 2, "seat 0", "surrogate")


# -- what reaches the terminal ---------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["replay", "review", "verify"])
def test_names_with_escapes_and_newlines_print_none_of_them(tmp_path: Path, command: str) -> None:
    record = json.loads(game_file(tmp_path).read_text())
    record["seats"][0]["name"] = "A\x1b[2J\x1b]0;pwned\x07\nerror: fake\u202eB"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(record))
    result = runner.invoke(app, [command, str(path)], env={"PIGDICE_FAST": "1", "COLUMNS": "1000"})  # no wrapping
    assert result.exit_code == 0, result.output
    out = result.output
    assert not any(ch in out for ch in "\x1b\x07\u202e\x9b"), repr(out[:300])
    assert not any(line.startswith("error:") for line in out.splitlines())
    assert "A [2J ]0;pwned error: fake B" in out or command == "verify"  # the name, cleaned, on one line


# -- refusals before any work ------------------------------------------------------------------------------------
def test_a_solve_too_large_for_memory_is_refused_at_once() -> None:
    timed(["solve", "pig", "--goal", "100000", "--endgame", "final-round"], 5, "memory", "largest goal")
    timed(["solve", "pig", "--goal", "4000", "--players", "3"], 5, "memory")
    timed(["hint", "pig", "--goal", "100000", "--score", "5", "--endgame", "equal-turns"], 5, "memory")


def test_a_simulation_whose_tables_cannot_fit_is_refused_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.solve import memory

    monkeypatch.setattr(memory, "available_bytes", lambda: 64 * 2**20)  # a small machine
    args = ["simulate", "pig", "--goal", "1000", "--players", "keep-pace,keep-pace", "--games", "10"]
    timed(args, 5, "action tables", "memory")


def test_review_checks_a_records_goal_before_any_solve(tmp_path: Path) -> None:
    for goal in (5000, 20000):
        timed(["review", str(game_file(tmp_path, f"goal{goal}.json", goal=goal))], 5, "too large to review")
    assert not list(Path(os.environ["PIGDICE_CACHE_DIR"]).glob("pig-goal5000*"))


def test_verify_refuses_a_record_whose_game_cannot_be_rebuilt(tmp_path: Path) -> None:
    path = game_file(tmp_path, params={"max_dice": "many"})
    timed(["verify", str(path)], 5, "cannot be rebuilt")
    timed(["review", str(path)], 5, "cannot be rebuilt")


def test_a_replay_plays_a_record_to_its_end_however_long(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pigdice.terminal import game as terminal

    monkeypatch.setattr(terminal, "ROBOT_MOVES_LIMIT", 30)  # robots playing live stop there; a replay does not
    variant = find_variant("pig", goal=10)
    state = new_game(variant, 2)
    rng = dice_rng(2)
    actions: list = []
    while not state.is_terminal():
        action = Hold() if state.step < 200 or state.turn_total >= 10 else Roll()
        state, _ = apply(state, action, rng)
        actions.append(action)
    seats = [SeatEntry("Ann", "you", "human"), SeatEntry("Bo", "you", "human")]
    path = tmp_path / "long.json"
    save_record(record_game(variant, seats, 2, actions), path)
    result = runner.invoke(app, ["replay", str(path)], env={"PIGDICE_FAST": "1"})
    assert result.exit_code == 0, result.output[-500:]
    assert "wins" in result.output and "may never end" not in result.output
