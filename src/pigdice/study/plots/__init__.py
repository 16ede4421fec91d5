"""Figures: the roll/hold boundary surface, slices, Hog's dice map, expected turn scores, win maps.

A figure is described as data first (``figures``: a ``Figure`` of ``Panel``s) and then drawn by
one of two renderers: ``static`` (matplotlib, ``.png``) and ``interactive`` (plotly, ``.html``,
with plotly.js embedded from the installed package so the file works offline). Both libraries
are optional, imported only when drawing, with an error that names the extra to install
(``pip install pigdice[plot]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant
from pigdice.study.plots.figures import (
    BOUNDARY_VIEW,
    FORMATS,
    KIND_HELP,
    KINDS,
    PANEL_WIDTH,
    PLOT_EXTRA,
    SIZE,
    TURN_SCORE_VIEW,
    Figure,
    Panel,
    boundary_figure,
    build_figure,
    dice_figure,
    dice_usage,
    length_figure,
    slice_figure,
    turn_score_figure,
    visits_figure,
    win_figure,
)
from pigdice.study.plots.interactive import save_html
from pigdice.study.plots.questions import last_turn_figure, margin_figure
from pigdice.study.plots.static import DPI, save_png

__all__ = [
    "BOUNDARY_VIEW",
    "DPI",
    "FORMATS",
    "KINDS",
    "KIND_HELP",
    "PANEL_WIDTH",
    "PLOT_EXTRA",
    "SIZE",
    "TURN_SCORE_VIEW",
    "Figure",
    "Panel",
    "boundary_figure",
    "build_figure",
    "dice_figure",
    "dice_usage",
    "last_turn_figure",
    "length_figure",
    "margin_figure",
    "plot",
    "save_figure",
    "save_html",
    "save_png",
    "slice_figure",
    "turn_score_figure",
    "visits_figure",
    "win_figure",
]


def _suffix(path: Path) -> str:
    """Return the lower-case suffix of an output file, or raise if it is neither .png nor .html."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise BadParameterError(f"--out must end in .png or .html, not {path.name!r}")
    return suffix


def save_figure(figure: Figure, path: Path) -> Path:
    """Draw ``figure`` to ``path``: PNG with matplotlib, HTML with plotly (plotly.js embedded)."""
    suffix = _suffix(path)
    if path.parent and not path.parent.exists():
        raise BadParameterError(f"folder {str(path.parent)!r} does not exist")
    if suffix == ".png":
        save_png(figure, path)
    else:
        save_html(figure, path)
    return path


def plot(
    kind: str,
    variants: Sequence[Variant],
    out: Path,
    opponent: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> Figure:
    """Build one KIND of figure and save it to ``out`` (.png or .html); return the figure."""
    _suffix(out)
    figure = build_figure(kind, variants, opponent, progress)
    save_figure(figure, out)
    return figure
