"""`pigdice analyze swine-herd` and `pigdice plot ... swine-herd`: JSON, tables, reports, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from clihelpers import assert_one_line_error, run_json, runner

from pigdice.cli.app import app
from pigdice.rules import find_variant
from pigdice.solve.herd.swineherd import solve_swine_herd


def test_analyze_json_for_the_equilibrium_against_itself() -> None:
    data = run_json("analyze", "swine-herd", "--goal", "20", "--json")
    assert data["variant"] == "swine-herd" and data["goal"] == 20 and data["sit_at_goal"] is True
    assert data["strategies"] == ["optimal", "optimal"]
    assert data["win_a"] == pytest.approx(data["win_b"], abs=1e-12)
    assert data["win_a"] + data["win_b"] + data["shared"] + data["never"] == pytest.approx(1.0, abs=1e-12)
    value = solve_swine_herd(find_variant("swine-herd", goal=20)).value(0, 0)
    assert data["chance_a"] == pytest.approx(value, abs=1e-9)
    assert data["equilibrium"]["value_at_start"] == pytest.approx(value)
    assert {"turns", "rolls", "together", "together_count", "home", "mixed", "seconds"} <= set(data)


def test_analyze_a_pair_and_the_table_for_people() -> None:
    data = run_json("analyze", "swine-herd", "--goal", "20", "--strategies", "optimal,hold:10", "--json")
    assert data["strategies"] == ["optimal", "hold:10"]
    assert data["chance_a"] > 0.5 and data["mixed"] > 0.0
    result = runner.invoke(app, ["analyze", "swine-herd", "--goal", "20", "--strategies", "hold:8,hold:12"])
    assert result.exit_code == 0, result.output
    for words in ("A (hold:8) wins", "shared win", "turns per game", "rolls per game", "same moment", "mixes"):
        assert words in result.stdout, words
    assert "your chance at the start of a turn" in result.stdout


def test_analyze_without_the_house_rule_says_games_never_end() -> None:
    data = run_json("analyze", "swine-herd", "--goal", "20", "--param", "at_goal=roll-on", "--json")
    assert data["sit_at_goal"] is False and data["never"] == pytest.approx(1.0)
    result = runner.invoke(app, ["analyze", "swine-herd", "--goal", "20", "--param", "at_goal=roll-on"])
    assert result.exit_code == 0, result.output
    assert "never end" in result.stdout


@pytest.mark.parametrize("suffix", ["md", "html"])
def test_analyze_writes_a_report_with_its_picture(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"report.{suffix}"
    data = run_json("analyze", "swine-herd", "--goal", "20", "--out", str(out), "--json")
    files = [Path(f) for f in data["files"]]
    assert files == [out, tmp_path / "report-sit.png"] and all(f.exists() for f in files)
    text = out.read_text(encoding="utf-8")
    assert "report-sit.png" in text
    assert text.startswith("<!doctype html>" if suffix == "html" else "# Exact analysis: Swine Herd, goal 20")


@pytest.mark.parametrize(("kind", "suffix"), [("boundary", "png"), ("slice", "png"), ("boundary", "html")])
def test_plot_when_to_sit(tmp_path: Path, kind: str, suffix: str) -> None:
    out = tmp_path / f"sit.{suffix}"
    data = run_json("plot", kind, "swine-herd", "--goal", "20", "--opponent", "5", "--out", str(out), "--json")
    assert data["kind"] == kind and data["variants"] == ["swine-herd"] and data["bytes"] == out.stat().st_size
    assert "when to sit" in data["title"]
    if suffix == "png":
        import matplotlib.image

        width = 1900 if kind == "boundary" else 1100
        assert matplotlib.image.imread(str(out)).shape[:2] == (800, width)
    else:
        text = out.read_text(encoding="utf-8")
        assert '"type":"surface"' in text and 'src="http' not in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["analyze", "swine-herd", "--goal", "201"], ["200"]),
        (["analyze", "swine-herd", "--goal", "20", "--strategies", "keep-pace"], ["optimal", "hold:N"]),
        (["analyze", "swine-herd", "--goal", "20", "--strategies", "hold:x"], ["hold:x"]),
        (["analyze", "swine-herd", "--goal", "20", "--strategies", "you"], ["optimal"]),
        (["analyze", "swine-herd", "--goal", "20", "--strategies", "a,b,c"], ["one or two strategies"]),
        (["analyze", "pig,swine-herd", "--goal", "20"], ["everyone at once", "on its own"]),
        (["analyze", "swine-herd", "--goal", "20", "--param", "at_goal=maybe"], ["at_goal"]),
        (["analyze", "swine-herd", "--goal", "20", "--out", "/nonexistent-dir/r.md"], ["does not exist"]),
        (["plot", "win", "swine-herd", "--goal", "20", "--out", "x.png"], ["everyone at once", "boundary"]),
        (["plot", "boundary", "swine-herd", "--goal", "20", "--opponent", "20", "--out", "x.png"], ["--opponent"]),
        (["plot", "boundary", "swine-herd", "--goal", "201", "--out", "x.png"], ["200"]),
        (["plot", "boundary", "pig,swine-herd", "--goal", "20", "--out", "x.png"], ["on its own"]),
    ],
)
def test_bad_input_is_one_line(args: list[str], words: list[str]) -> None:
    assert_one_line_error(args, *words)
