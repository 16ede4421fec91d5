"""`pigdice design`: the example space, a small in-process run (report, proposals), playing a proposal, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clihelpers import assert_one_line_error, run_json, runner

from pigdice.cli.app import app
from pigdice.study.design.space import example_space, parse_space

SMALL_SPACE = {
    "format": "pigdice-design-space",
    "version": 1,
    "mode": "grid",
    "seed": 1,
    "fields": {
        "dice": [1, 2],
        "sides": [6],
        "single_bad": ["bust", "harmless"],
        "doubles": ["normal", "bust"],
        "goal": [30],
    },
}


@pytest.fixture(scope="module")
def designed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("design")
    space = folder / "space.json"
    space.write_text(json.dumps(SMALL_SPACE))
    out = folder / "out"
    data = run_json("design", "--space", str(space), "--out", str(out), "--in-process", "--no-reference", "--json")
    return out, data


def test_the_example_space_is_written_and_parses(tmp_path: Path) -> None:
    path = tmp_path / "space.json"
    data = run_json("design", "--example-space", str(path), "--json")
    assert data["rule_sets"] == 3864
    assert parse_space(json.loads(path.read_text())) == example_space()


def test_a_small_design_run_writes_results_report_and_proposals(designed: tuple[Path, dict[str, Any]]) -> None:
    out, data = designed
    assert data["designed"] == data["space_size"] == 4 and data["measured"] == 4 and data["errors"] == 0
    assert 1 <= len(data["shortlist"]) <= 5 and data["shortlist"][0]["rank"] == 1
    assert (out / "report.md").is_file() and all(
        (out / name).is_file() for name in ("fairness-skill.png", "pace-tension.png")
    )
    assert list((out / "results").glob("part-*.parquet"))
    text = (out / "report.md").read_text()
    assert "Shortlist next to the named games" in text and "pigdice play designed:" in text
    assert "single_bad" not in text.split("## The proposals in words")[1]  # the rules in a player's words


def test_a_rerun_reads_the_results_and_measures_nothing(designed: tuple[Path, dict[str, Any]]) -> None:
    out, first = designed
    space = out.parent / "space.json"
    again = run_json("design", "--space", str(space), "--out", str(out), "--in-process", "--no-reference", "--json")
    assert (again["measured"], again["reused"]) == (0, 4)
    assert [r["id"] for r in again["shortlist"]] == [r["id"] for r in first["shortlist"]]


def test_the_table_shows_each_games_goal_and_rules_leaves_no_rule_out(designed: tuple[Path, dict[str, Any]]) -> None:
    out, data = designed
    space = out.parent / "space.json"
    result = runner.invoke(app, ["design", "--space", str(space), "--out", str(out), "--in-process", "--no-reference"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.split()[:2] == ["game", "goal"] for line in lines)
    for row in data["shortlist"]:
        shown = next(line for line in lines if row["id"] in line)
        assert shown.split()[2] == "30"  # the goal column
    proposal = json.loads(Path(data["proposals"][0]).read_text())
    rules = run_json("rules", f"designed:{data['proposals'][0]}", "--json")
    assert rules["rules"] == proposal["in_words"] and rules["goal"] == 30
    assert "first to 30 wins" in rules["summary"]
    assert not any("plus 0" in line for line in rules["rules"])


def test_reference_rows_are_measured_at_the_spaces_goal(tmp_path: Path) -> None:
    space = tmp_path / "space.json"
    space.write_text(json.dumps({**SMALL_SPACE, "fields": {"dice": [1], "sides": [6], "goal": [10]}}))
    data = run_json("design", "--space", str(space), "--out", str(tmp_path / "out"), "--in-process", "--json")
    assert data["reference"] and {r["goal"] for r in data["reference"]} == {10}
    assert data["dashboard"] == ""  # no cluster in process
    assert "| game | goal |" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.slow
def test_a_proposal_plays_and_shows_its_rules(designed: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    _, data = designed
    proposal = data["proposals"][0]
    result = runner.invoke(
        app,
        [
            "play",
            f"designed:{proposal}",
            "--players",
            "hold:20,hold:20",
            "--seed",
            "1",
            "--save",
            str(tmp_path / "g.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "wins" in result.output
    rules = runner.invoke(app, ["rules", f"designed:{proposal}"])
    assert rules.exit_code == 0, rules.output
    assert "Hold to bank the turn total" in rules.output
    # the record carries the rules: it replays, reviews and verifies without reading the rule file
    record = json.loads((tmp_path / "g.json").read_text())
    record["variant"] = f"designed:{tmp_path / 'no-such-rule-file.json'}"
    moved = tmp_path / "elsewhere.json"
    moved.write_text(json.dumps(record))
    for command in (["replay", str(moved)], ["review", str(moved), "--json"], ["verify", str(moved)]):
        again = runner.invoke(app, command)
        assert again.exit_code == 0, (command, again.output)
    assert "verified" in runner.invoke(app, ["verify", str(moved)]).output


def test_bad_input_is_one_error_line(tmp_path: Path) -> None:
    assert_one_line_error(["design", "--out", str(tmp_path)], "--space")
    assert_one_line_error(["design", "--space", str(tmp_path / "none.json"), "--out", str(tmp_path)], "cannot read")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**SMALL_SPACE, "fields": {"dice": [9]}}))
    assert_one_line_error(["design", "--space", str(bad), "--out", str(tmp_path), "--in-process"], "dice", "1 to 4")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(SMALL_SPACE))
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert_one_line_error(["design", "--space", str(good), "--out", str(afile), "--in-process"], "is a file")
    assert_one_line_error(["design", "--space", str(good), "--out", str(tmp_path), "--budget", "0"], "--budget")
    assert_one_line_error(
        ["design", "--space", str(good), "--out", str(tmp_path), "--in-process", "--scheduler", "tcp://x:1"],
        "--scheduler",
    )
    assert_one_line_error(
        ["play", "designed:" + str(tmp_path / "missing.json"), "--players", "hold:20,hold:20"], "rule file"
    )
