"""`pigdice analyze` and `pigdice plot`: JSON shapes, reports with figures, one-line errors (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from clihelpers import assert_one_line_error, run_json, runner

from pigdice.cli.app import app
from pigdice.rules import find_variant
from pigdice.solve import solve


# -- analyze ---------------------------------------------------------------------------------------
def test_analyze_json_shape_for_optimal_play() -> None:
    data = run_json("analyze", "pig", "--goal", "40", "--json")
    for key in (
        "variant",
        "goal",
        "strategies",
        "first_player_advantage",
        "p_first_wins",
        "mean_game_length_turns",
        "expected_scoring_turns",
        "winner_scoring_turns",
        "opening",
        "tail_mass",
        "seatings",
        "state_visits",
        "solver_first_player_win",
    ):
        assert key in data, key
    assert data["variant"] == "pig" and data["goal"] == 40
    assert data["strategies"] == ["optimal", "optimal"]
    assert data["first_player_advantage"] == pytest.approx(data["solver_first_player_win"] - 0.5, abs=1e-10)
    seating = data["seatings"][0]
    length = seating["game_length"]
    assert sum(length["distribution"]) + length["tail_mass"] == pytest.approx(1.0, abs=1e-9)
    assert length["tail_mass"] < 1e-12
    assert [p["seat"] for p in seating["per_player"]] == [1, 2]
    assert "scoring_turns" in seating["per_player"][0]
    assert data["first_player_advantage"] == pytest.approx(
        float(solve(find_variant("pig", goal=40)).values[0, 0]) - 0.5, abs=1e-10
    )


def test_analyze_a_pair_of_strategies() -> None:
    data = run_json("analyze", "two-dice-pig", "--goal", "30", "--strategies", "hold:8,hold:15", "--json")
    assert data["strategies"] == ["hold:8", "hold:15"]
    assert len(data["seatings"]) == 2
    assert [s["first"] for s in data["seatings"]] == ["hold:8", "hold:15"]
    assert 0.0 < data["a_win_rate"] < 1.0
    assert "solver_first_player_win" not in data


def test_analyze_hog_opening() -> None:
    data = run_json("analyze", "hog", "--goal", "30", "--json")
    assert list(data["opening"]) == ["dice"]


def test_analyze_table_for_people() -> None:
    result = runner.invoke(app, ["analyze", "piggy", "--goal", "30"])
    assert result.exit_code == 0, result.output
    assert "first-player advantage" in result.stdout
    assert "winner's scoring turns" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("suffix", "fmt"), [("md", None), ("html", None), ("txt", "html")])
def test_analyze_writes_a_report_with_figures(tmp_path: Path, suffix: str, fmt: str | None) -> None:
    out = tmp_path / f"report.{suffix}"
    args = ["analyze", "pig", "--goal", "25", "--out", str(out), "--json"]
    if fmt:
        args += ["--format", fmt]
    data = run_json(*args)
    files = [Path(f) for f in data["files"]]
    assert files[0] == out and out.exists()
    text = out.read_text(encoding="utf-8")
    html = suffix == "html" or fmt == "html"
    assert text.startswith("<!doctype html>") if html else text.startswith("# Exact analysis")
    pngs = [f for f in files if f.suffix == ".png"]
    assert {p.name for p in pngs} >= {"report-length.png", "report-boundary.png", "report-turn-score.png"}
    for png in pngs:
        assert png.parent == tmp_path and png.stat().st_size > 10_000
        assert png.name in text
    if html:  # the HTML report links an interactive boundary next to it
        assert (tmp_path / "report-boundary.html").exists()


def test_analyze_format_without_out_prints_the_report() -> None:
    result = runner.invoke(app, ["analyze", "pig", "--goal", "20", "--format", "md"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# Exact analysis: Pig, goal 20")
    assert "written with `--out FILE`" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["analyze", "swine-herd", "--strategies", "rolls:3"], ["optimal (the equilibrium) or hold:N"]),
        (["analyze", "pig", "--strategies", "a,b,c"], ["one or two strategies"]),
        (["analyze", "pig", "--goal", "20", "--strategies", "rolls:3"], ["simulation"]),
        (["analyze", "pig", "--goal", "20", "--strategies", "hold:x"], ["hold:x"]),
        (["analyze", "pig", "--format", "pdf"], ["--format"]),
        (["analyze", "pig", "--goal", "0"], ["goal"]),
        (["analyze", "nopig"], ["unknown variant"]),
        (["analyze", "pig", "--goal", "20", "--out", "/nonexistent-dir/r.md"], ["does not exist"]),
    ],
)
def test_analyze_bad_input(args: list[str], words: list[str]) -> None:
    assert_one_line_error(args, *words)


# -- plot ------------------------------------------------------------------------------------------
def test_plot_boundary_png_and_html(tmp_path: Path) -> None:
    png = tmp_path / "b.png"
    data = run_json("plot", "boundary", "pig", "--goal", "30", "--out", str(png), "--json")
    assert data["kind"] == "boundary" and data["format"] == "png" and data["bytes"] == png.stat().st_size
    import matplotlib.image

    assert matplotlib.image.imread(str(png)).shape[:2] == (800, 1100)
    html = tmp_path / "b.html"
    result = runner.invoke(app, ["plot", "boundary", "pig", "--goal", "30", "--out", str(html)])
    assert result.exit_code == 0, result.output
    text = html.read_text(encoding="utf-8")
    assert '"type":"surface"' in text and "plotly.js v" in text
    assert 'src="http' not in text


@pytest.mark.parametrize(
    ("kind", "variant", "extra"),
    [
        ("slice", "pig", ["--opponent", "10"]),
        ("hog", "hog", []),
        ("turn-score", "pig,hog", []),
        ("win", "piggy", []),
    ],
)
def test_plot_kinds(tmp_path: Path, kind: str, variant: str, extra: list[str]) -> None:
    out = tmp_path / f"{kind}.png"
    data = run_json("plot", kind, variant, "--goal", "30", "--out", str(out), "--json", *extra)
    assert out.stat().st_size > 10_000
    assert data["variants"] == variant.split(",")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["plot", "cube", "pig", "--out", "x.png"], ["unknown plot kind"]),
        (["plot", "boundary", "pig", "--out", "x.svg"], [".png or .html"]),
        (["plot", "boundary", "hog", "--out", "x.png"], ["plot hog hog"]),
        (["plot", "hog", "pig", "--goal", "20", "--out", "x.png"], ["dice"]),
        (["plot", "slice", "pig", "--goal", "20", "--opponent", "20", "--out", "x.png"], ["--opponent"]),
        (["plot", "win", "swine-herd", "--out", "x.png"], ["everyone at once"]),
        (["plot", "win", "pig,hog", "--goal", "20", "--out", "x.png"], ["several variants"]),
        (["plot", "win", "pig", "--out", "/nonexistent-dir/x.png"], ["does not exist"]),
    ],
)
def test_plot_bad_input(args: list[str], words: list[str]) -> None:
    assert_one_line_error(args, *words)


def test_analyze_compares_several_variants(tmp_path: Path) -> None:
    data = run_json("analyze", "pig,piggy,hog", "--goal", "30", "--json")
    assert [d["variant"] for d in data] == ["pig", "piggy", "hog"]
    assert all("winner_scoring_turns" in d for d in data)
    out = tmp_path / "compare.md"
    result = runner.invoke(app, ["analyze", "pig,hog", "--goal", "30", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "| pig | 30 |" in text and "| hog | 30 |" in text and "winner's scoring turns" in text
    table = runner.invoke(app, ["analyze", "pig,piggy", "--goal", "30"])
    assert table.exit_code == 0 and "piggy" in table.stdout


def test_analyze_arrays() -> None:
    data = run_json("analyze", "pig", "--goal", "12", "--arrays", "--json")
    arrays = data["arrays"]
    assert len(arrays["expected_turn_score"]) == 12 and len(arrays["expected_turn_score"][0]) == 12
    assert arrays["expected_turn_score"][0][0] == pytest.approx(data["expected_turn_score_at_start"], abs=1e-6)
    assert arrays["expected_turn_starts"][0][0] >= 1.0
    # Pig has no resets, so the chance that the first player ever starts a turn at (i, j) is exact
    assert arrays["first_player_turn_start_probability"][0][0] == pytest.approx(1.0)
