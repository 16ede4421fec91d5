"""Figures: every kind draws a PNG of the expected size and an offline plotly HTML with the right traces."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from pigdice.errors import BadParameterError, PigdiceError
from pigdice.rules import find_variant
from pigdice.study import plots
from pigdice.study.analysis import analyze

GOAL = 30


def png_size(path: Path) -> tuple[int, int]:
    """Return (width, height) of a PNG read back with matplotlib."""
    import matplotlib.image

    image = matplotlib.image.imread(str(path))
    return image.shape[1], image.shape[0]


def assert_offline_plotly(text: str) -> None:
    """The HTML embeds plotly.js itself and loads no script from the network."""
    assert "plotly.js v" in text  # the library's own banner: embedded, not linked
    assert len(text) > 1_000_000
    assert not re.search(r"<script[^>]+src=[\"']https?:", text)


@pytest.mark.parametrize(
    ("kind", "names", "panels"),
    [
        ("boundary", ["pig"], 1),
        ("slice", ["pig"], 1),
        ("hog", ["hog"], 1),
        ("turn-score", ["pig", "hog"], 2),
        ("turn-score", ["two-dice-pig"], 1),
        ("win", ["big-pig"], 1),
        ("boundary", ["piggy-six-3dice"], 1),
        ("hog", ["hog-reroll"], 1),
        ("slice", ["hog"], 1),
    ],
)
def test_png_has_the_expected_size(tmp_path: Path, kind: str, names: list[str], panels: int) -> None:
    out = tmp_path / f"{kind}.png"
    figure = plots.plot(kind, [find_variant(n, goal=GOAL) for n in names], out)
    assert out.stat().st_size > 10_000
    assert len(figure.panels) == panels
    assert png_size(out) == (plots.SIZE[0] + plots.PANEL_WIDTH * (panels - 1), plots.SIZE[1])
    for panel in figure.panels:
        assert panel.xlabel and panel.ylabel and panel.title
        if panel.kind in ("surface", "heatmap"):
            assert panel.zlabel


def test_boundary_html_is_an_offline_3d_surface(tmp_path: Path) -> None:
    out = tmp_path / "boundary.html"
    plots.plot("boundary", [find_variant("pig", goal=GOAL)], out)
    text = out.read_text(encoding="utf-8")
    assert '"type":"surface"' in text
    assert "hold at turn total k" in text and "player score i" in text and "opponent score j" in text
    assert_offline_plotly(text)


@pytest.mark.parametrize(("kind", "names", "trace"), [("hog", ["hog"], "heatmap"), ("slice", ["pig"], "scatter")])
def test_other_kinds_draw_html_too(tmp_path: Path, kind: str, names: list[str], trace: str) -> None:
    out = tmp_path / f"{kind}.html"
    plots.plot(kind, [find_variant(n, goal=GOAL) for n in names], out)
    text = out.read_text(encoding="utf-8")
    assert f'"type":"{trace}"' in text
    if kind == "hog":
        assert '"text":"dice"' in text  # the colour bar says what the colours count
    assert_offline_plotly(text)


def test_boundary_data_looks_like_003_figure_1() -> None:
    figure = plots.build_figure("boundary", [find_variant("pig")])
    z = figure.panels[0].z
    assert z.shape == (100, 100)
    assert z[0, 0] == 21  # hold at 21 at the start (003)
    assert z[99, 0] == 1 and z[90, 50] == 10  # near the goal: roll for the rest, hold at 100 - i
    assert z[0, 99] == 100  # opponent about to win: roll for all 100
    assert "hold at 21" in figure.note


def test_hog_map_counts_dice() -> None:
    figure = plots.build_figure("hog", [find_variant("hog")])
    panel = figure.panels[0]
    assert panel.zlabel == "dice" and panel.discrete
    assert panel.z[0, 0] == 6  # 003: roll 6 dice on the first turn
    assert panel.z.max() <= 26


def test_dice_per_roll_boundary_mentions_the_dice() -> None:
    figure = plots.build_figure("boundary", [find_variant("piggy-six-3dice", goal=GOAL)])
    assert "Dice per roll" in figure.note and "die" in figure.note


def test_turn_score_of_pig_and_hog_is_similar_at_the_start() -> None:
    # 003, Figure 10: "a player seeks a similar expected turn score in most situations"
    figure = plots.build_figure("turn-score", [find_variant("pig"), find_variant("hog")])
    pig, hog = (panel.z for panel in figure.panels)
    assert pig[0, 0] == pytest.approx(8.14, abs=0.01)
    assert abs(pig[0, 0] - hog[0, 0]) < 0.5
    assert np.median(np.abs(pig - hog)) < 1.0


@pytest.mark.slow
def test_report_figures(tmp_path: Path) -> None:
    from pigdice.study.report import write_report

    a = analyze(find_variant("two-dice-pig", goal=GOAL))
    files = write_report(a, tmp_path / "r.md", "md")
    names = sorted(p.name for p in files)
    assert names == sorted(["r.md", "r-length.png", "r-boundary.png", "r-win.png", "r-turn-score.png", "r-visits.png"])
    text = (tmp_path / "r.md").read_text()
    for path in files[1:]:
        assert f"({path.name})" in text
    assert png_size(tmp_path / "r-visits.png") == (plots.SIZE[0] + plots.PANEL_WIDTH, plots.SIZE[1])


@pytest.mark.parametrize(
    ("kind", "name", "message"),
    [
        ("boundary", "hog", "no hold"),
        ("hog", "pig", "fixed number of dice"),
        ("win", "swine-herd", "everyone at once"),
        ("sideways", "pig", "unknown plot kind"),
    ],
)
def test_bad_requests_are_clear_errors(tmp_path: Path, kind: str, name: str, message: str) -> None:
    with pytest.raises(PigdiceError, match=message):
        plots.plot(kind, [find_variant(name, goal=GOAL)], tmp_path / "x.png")


def test_bad_output_names(tmp_path: Path) -> None:
    with pytest.raises(BadParameterError, match=r"\.png or \.html"):
        plots.plot("win", [find_variant("pig", goal=GOAL)], tmp_path / "x.svg")
    with pytest.raises(BadParameterError, match="several variants"):
        plots.build_figure("win", [find_variant("pig", goal=GOAL), find_variant("hog", goal=GOAL)])
    with pytest.raises(BadParameterError, match="opponent"):
        plots.build_figure("slice", [find_variant("pig", goal=GOAL)], opponent=GOAL)


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    figure = plots.build_figure("win", [find_variant("pig", goal=GOAL)])
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(BadParameterError, match=r"pip install pigdice\[plot\]"):
        plots.save_figure(figure, tmp_path / "x.png")
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    with pytest.raises(BadParameterError, match=r"pip install pigdice\[plot\]"):
        plots.save_figure(figure, tmp_path / "x.html")
