"""Drawing a figure with matplotlib: a PNG of side-by-side panels under the title and its note.

matplotlib is optional: it is imported only when drawing, with an error that names the extra
to install (``pip install pigdice[plot]``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.study.plots.figures import PLOT_EXTRA, Figure, Panel

DPI = 100


def _pyplot() -> Any:
    """Return matplotlib.pyplot on the non-interactive Agg backend, or raise naming the extra."""
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BadParameterError(f"PNG figures need matplotlib: {PLOT_EXTRA}") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _norm(panel: Panel, plt: Any) -> Any:
    from matplotlib import colors

    low, high = panel.zrange if panel.zrange is not None else (float(np.nanmin(panel.z)), float(np.nanmax(panel.z)))
    if panel.log:
        return colors.LogNorm(vmin=max(low, 1e-12), vmax=max(high, low * 10))
    if panel.discrete:
        levels = np.arange(np.floor(low) - 0.5, np.ceil(high) + 1.0, 1.0)
        return colors.BoundaryNorm(levels, plt.get_cmap(panel.colormap).N)
    return colors.Normalize(vmin=low, vmax=high)


def _draw_surface(fig: Any, ax: Any, panel: Panel, plt: Any) -> None:
    xx, yy = np.meshgrid(panel.x, panel.y, indexing="ij")
    norm = _norm(panel, plt)
    cmap = plt.get_cmap(panel.colormap)
    count = min(len(panel.x), 120)
    surface = ax.plot_surface(
        xx, yy, panel.z, cmap=cmap, norm=norm, rcount=count, ccount=count, linewidth=0.1, edgecolor=(0, 0, 0, 0.15)
    )
    ax.set_xlabel(panel.xlabel, labelpad=8)
    ax.set_ylabel(panel.ylabel, labelpad=8)
    ax.set_zlabel(panel.zlabel, labelpad=8)
    ax.set_xlim(panel.x[0], panel.x[-1])
    ax.set_ylim(panel.y[0], panel.y[-1])
    if panel.zrange is not None:
        ax.set_zlim(*panel.zrange)
    ax.view_init(elev=panel.view[0], azim=panel.view[1])
    ax.set_title(panel.title)
    bar = fig.colorbar(surface, ax=ax, shrink=0.6, pad=0.08)
    bar.set_label(panel.zlabel)


def _draw_heatmap(fig: Any, ax: Any, panel: Panel, plt: Any) -> None:
    norm = _norm(panel, plt)
    cmap = plt.get_cmap(panel.colormap).with_extremes(bad="white")
    extent = (panel.x[0] - 0.5, panel.x[-1] + 0.5, panel.y[0] - 0.5, panel.y[-1] + 0.5)
    image = ax.imshow(
        np.ma.masked_invalid(panel.z.T), origin="lower", extent=extent, cmap=cmap, norm=norm, aspect="auto"
    )
    if panel.discrete:  # thin lines between the dice counts
        levels = np.arange(np.nanmin(panel.z) + 0.5, np.nanmax(panel.z), 1.0)
        if levels.size:
            ax.contour(panel.x, panel.y, panel.z.T, levels=levels, colors="black", linewidths=0.4, alpha=0.6)
    if panel.contour is not None:
        contour = ax.contour(panel.x, panel.y, panel.z.T, levels=[panel.contour], colors="black", linewidths=1.2)
        ax.clabel(contour, fmt={panel.contour: f"{panel.contour:g}"}, fontsize=9)
    for label, x, y in panel.series:
        ax.plot(x, y, color="cyan", linewidth=1.5, label=label)
    if panel.series:
        ax.legend(loc="upper right")
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.set_title(panel.title)
    bar = fig.colorbar(image, ax=ax)
    bar.set_label(panel.zlabel)
    if panel.discrete:
        low, high = int(np.nanmin(panel.z)), int(np.nanmax(panel.z))
        step = max(1, (high - low + 1) // 15)
        bar.set_ticks(list(range(low, high + 1, step)))


def _draw_lines(ax: Any, panel: Panel) -> None:
    colors = ["tab:blue", "tab:gray", "tab:green"]
    for index, (label, x, y) in enumerate(panel.series):
        style = "--" if index else "-"
        if panel.kind == "bars" and index == 0:
            ax.bar(x, y, width=0.85, color="tab:blue", label=label)
        elif panel.step:
            ax.step(x, y, where="mid", linestyle=style, color=colors[index % 3], label=label)
        else:
            ax.plot(x, y, linestyle=style, color=colors[index % 3], label=label)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.set_title(panel.title)
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if panel.right:
        twin = ax.twinx()
        for label, x, y in panel.right:
            twin.plot(x, y, color="tab:red", linewidth=1.5, label=label)
        twin.set_ylabel(panel.right_label, color="tab:red")
        twin.set_ylim(0.0, 1.02)
        more_handles, more_labels = twin.get_legend_handles_labels()
        handles += more_handles
        labels += more_labels
    ax.legend(
        handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=min(3, len(handles)), frameon=False
    )


def save_png(figure: Figure, path: Path) -> None:
    """Draw ``figure`` to a PNG at ``path`` with matplotlib, one subplot per panel side by side."""
    plt = _pyplot()
    width, height = figure.size
    fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    try:
        count = len(figure.panels)
        for index, panel in enumerate(figure.panels, start=1):
            if panel.kind == "surface":
                ax = fig.add_subplot(1, count, index, projection="3d")
                _draw_surface(fig, ax, panel, plt)
            else:
                ax = fig.add_subplot(1, count, index)
                if panel.kind == "heatmap":
                    _draw_heatmap(fig, ax, panel, plt)
                else:
                    _draw_lines(ax, panel)
        fig.suptitle(figure.title, fontsize=15, fontweight="bold", y=0.975)
        lines = 0
        if figure.note:
            note = _wrap(figure.note, width // 8)
            lines = note.count("\n") + 1
            fig.text(0.5, 0.925, note, ha="center", va="top", fontsize=10, color="0.25")
        top = 0.86 - lines * 16 / height
        legend_below = any(p.kind in ("lines", "bars") for p in figure.panels)
        bottom = 0.15 if legend_below else 0.09
        fig.subplots_adjust(left=0.07, right=0.93 if count == 1 else 0.96, bottom=bottom, top=top, wspace=0.25)
        fig.savefig(path, dpi=DPI)
    finally:
        plt.close(fig)


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width=max(40, width)))
