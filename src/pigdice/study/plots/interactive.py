"""Drawing a figure with plotly: an interactive HTML page that embeds plotly.js (works offline).

plotly is optional: it is imported only when drawing, with an error that names the extra to
install (``pip install pigdice[plot]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.study.plots.figures import PLOT_EXTRA, Figure, Panel


def _plotly() -> Any:
    """Return plotly.graph_objects, or raise naming the extra."""
    try:
        import plotly.graph_objects as go
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BadParameterError(f"interactive HTML figures need plotly: {PLOT_EXTRA}") from exc
    return go


_PLOTLY_SCALES = {"viridis": "Viridis", "plasma": "Plasma", "magma": "Magma", "RdBu": "RdBu", "turbo": "Turbo"}


def _scale(panel: Panel) -> str:
    """Return the plotly colour scale named like the panel's matplotlib colormap (Viridis if unknown)."""
    return _PLOTLY_SCALES.get(panel.colormap, "Viridis")


def _eye(view: tuple[float, float], distance: float = 2.2) -> dict[str, float]:
    """Return the plotly camera position that matches a matplotlib (elevation, azimuth) view."""
    elevation, azimuth = np.radians(view[0]), np.radians(view[1])
    return {
        "x": float(distance * np.cos(elevation) * np.cos(azimuth)),
        "y": float(distance * np.cos(elevation) * np.sin(azimuth)),
        "z": float(distance * np.sin(elevation)),
    }


def save_html(figure: Figure, path: Path) -> None:
    """Draw ``figure`` to a self-contained HTML page at ``path`` with plotly (plotly.js embedded)."""
    go = _plotly()
    from plotly.subplots import make_subplots

    count = len(figure.panels)
    specs = [[{"type": "scene" if p.kind == "surface" else "xy", "secondary_y": bool(p.right)} for p in figure.panels]]
    for spec in specs[0]:
        if spec["type"] == "scene":
            del spec["secondary_y"]
    fig = make_subplots(rows=1, cols=count, specs=specs, subplot_titles=[p.title for p in figure.panels])
    for index, panel in enumerate(figure.panels, start=1):
        draw = {"surface": _add_surface, "heatmap": _add_heatmap}.get(panel.kind, _add_lines)
        draw(go, fig, panel, index, bar_x=index / count - 0.02)
    width, height = figure.size
    fig.update_layout(
        title={"text": f"{figure.title}<br><sup>{figure.note}</sup>" if figure.note else figure.title},
        width=width,
        height=height,
        margin={"t": 110},
    )
    fig.write_html(str(path), include_plotlyjs=True, full_html=True)


def _add_surface(go: Any, fig: Any, panel: Panel, index: int, bar_x: float) -> None:
    fig.add_trace(
        go.Surface(
            x=panel.x,
            y=panel.y,
            z=panel.z.T,
            colorscale=_scale(panel),
            cmin=panel.zrange[0] if panel.zrange else None,
            cmax=panel.zrange[1] if panel.zrange else None,
            colorbar={"title": {"text": panel.zlabel}, "x": bar_x, "len": 0.75},
            hovertemplate=f"i=%{{x}}<br>j=%{{y}}<br>{panel.zlabel}=%{{z:.4g}}<extra></extra>",
        ),
        row=1,
        col=index,
    )
    scene = "scene" if index == 1 else f"scene{index}"
    fig.update_layout(
        {
            scene: {
                "xaxis_title": panel.xlabel,
                "yaxis_title": panel.ylabel,
                "zaxis_title": panel.zlabel,
                "zaxis_range": list(panel.zrange) if panel.zrange else None,
                "camera": {"eye": _eye(panel.view)},
            }
        }
    )


def _add_heatmap(go: Any, fig: Any, panel: Panel, index: int, bar_x: float) -> None:
    z = panel.z.T
    colorbar: dict[str, Any] = {"title": {"text": panel.zlabel}, "x": bar_x}
    if panel.log:
        z = np.log10(z)
        colorbar["title"] = {"text": f"log10 {panel.zlabel.replace(' (log scale)', '')}"}
    if panel.discrete:
        colorbar["dtick"] = 1
    fig.add_trace(
        go.Heatmap(
            x=panel.x,
            y=panel.y,
            z=z,
            colorscale=_scale(panel),
            zmin=None if panel.log or not panel.zrange else panel.zrange[0],
            zmax=None if panel.log or not panel.zrange else panel.zrange[1],
            colorbar=colorbar,
        ),
        row=1,
        col=index,
    )
    if panel.contour is not None:
        fig.add_trace(
            go.Contour(
                x=panel.x,
                y=panel.y,
                z=panel.z.T,
                contours={"start": panel.contour, "end": panel.contour, "size": 1, "coloring": "none"},
                line={"color": "black", "width": 2},
                showscale=False,
                name=f"{panel.contour:g}",
            ),
            row=1,
            col=index,
        )
    for label, x, y in panel.series:
        fig.add_trace(go.Scatter(x=x, y=y, name=label, line={"color": "cyan"}), row=1, col=index)
    fig.update_xaxes(title_text=panel.xlabel, row=1, col=index)
    fig.update_yaxes(title_text=panel.ylabel, row=1, col=index)


def _add_lines(go: Any, fig: Any, panel: Panel, index: int, bar_x: float) -> None:
    for number, (label, x, y) in enumerate(panel.series):
        if panel.kind == "bars" and number == 0:
            trace = go.Bar(x=x, y=y, name=label)
        else:
            shape = "hvh" if panel.step else "linear"
            trace = go.Scatter(x=x, y=y, name=label, line={"shape": shape, "dash": "dash" if number else "solid"})
        fig.add_trace(trace, row=1, col=index, secondary_y=False)
    for label, x, y in panel.right:
        fig.add_trace(go.Scatter(x=x, y=y, name=label, line={"color": "firebrick"}), row=1, col=index, secondary_y=True)
    fig.update_xaxes(title_text=panel.xlabel, row=1, col=index)
    fig.update_yaxes(title_text=panel.ylabel, row=1, col=index, secondary_y=False)
    if panel.right:
        fig.update_yaxes(title_text=panel.right_label, range=[0, 1.02], row=1, col=index, secondary_y=True)
