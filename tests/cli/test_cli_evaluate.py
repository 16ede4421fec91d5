"""pigdice evaluate: an agent's exact chance against the perfect player, as JSON and as a table; bad input exits 2."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from clihelpers import assert_one_line_error, run_json, runner

from pigdice.cli.app import app
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant


def test_hold_20_json_is_the_acceptance_figure() -> None:
    data = run_json("evaluate", "hold:20", "--variant", "pig", "--json")
    assert data["average"] == pytest.approx(0.460080, abs=1e-6)  # issue 28; `pigdice compare` gives the same
    assert data["perfect_average"] == pytest.approx(0.5, abs=1e-12)
    assert data["gap"] == pytest.approx(0.5 - data["average"], abs=1e-9)
    assert data["method"] == "exact" and data["opponent"] == "the perfect player"
    assert len(data["costly_positions"]) == 10


def test_a_table_file_evaluates_as_its_spec(tmp_path: Path) -> None:
    pig = find_variant("pig", goal=30)
    path = tmp_path / "keep.npy"
    np.save(path, action_table(parse_strategy("keep-pace", pig), pig))
    by_file = run_json("evaluate", str(path), "--goal", "30", "--json")
    by_spec = run_json("evaluate", "keep-pace", "--goal", "30", "--json")
    assert by_file["seats"] == by_spec["seats"]
    assert by_file["agent"] == "keep.npy"


def test_the_table_for_people() -> None:
    result = runner.invoke(app, ["evaluate", "hold:25", "--goal", "30", "--against", "hold:20"])
    assert result.exit_code == 0, result.output
    for words in ("hold:25 against hold:20 in pig to 30", "both seats", "Where it gives away most", "exact"):
        assert words in " ".join(result.stdout.split()), words


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    text = tmp_path / "notes.npy"
    text.write_text("not a table")
    small = tmp_path / "small.npy"
    np.save(small, np.ones((5, 5, 5), dtype=np.int8))
    pipe = tmp_path / "pipe.npz"
    os.mkfifo(pipe)  # no writer: a plain open would wait for ever
    assert_one_line_error(["evaluate", "nonsense"], "unknown strategy")
    assert_one_line_error(["evaluate", "hold:20", "--variant", "nope"], "nope")
    assert_one_line_error(["evaluate", "hold:20", "--against", "hold:x"], "whole number")
    assert_one_line_error(["evaluate", str(text)], "not a numpy table file")
    assert_one_line_error(["evaluate", str(small)], "shape")
    assert_one_line_error(["evaluate", "/dev/zero"], "a device")
    assert_one_line_error(["evaluate", str(pipe)], "pipe")
    assert_one_line_error(["evaluate", str(tmp_path / "missing.npz")], "no file")
    assert_one_line_error(["evaluate", "you"], "human")
    assert_one_line_error(["evaluate", "hold:5", "--goal", "10", "--players", "3", "--against", "hold:6"], "perfect")
