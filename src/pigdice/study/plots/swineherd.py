"""The picture of 2-player Swine Herd's best play: when to sit while the other still stands.

Left, in 3D over (my score, the other's score): the turn total at which I first sit with a chance
of at least 1/2 while the other stands, coloured by that chance (1: a sure sit; below 1 the
equilibrium mixes there, keeping the other guessing). Right: the chance to sit at every turn
total, the other's score fixed. PNG with matplotlib, interactive HTML with plotly (plotly.js
embedded), like the turn-based figures (``figures``, ``static``, ``interactive``).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant
from pigdice.solve.herd.swineherd import SwineHerdPolicy, solve_swine_herd
from pigdice.study.analysis.swineherd import mixing, reachable_totals
from pigdice.study.plots.figures import FORMATS, PANEL_WIDTH, PLOT_EXTRA, SIZE
from pigdice.study.plots.static import _pyplot

KINDS = ("boundary", "slice")  # boundary: the 3D surface and the slice; slice: the slice alone
HALF = 0.5  # the surface's height: the first total whose sit chance reaches this
COLORMAP = "viridis"
SIT_VIEW = (32.0, -150.0)  # elevation, azimuth: the other's score along the front, the roll-to-win plane behind
DPI = 100


@dataclass(frozen=True)
class SitPicture:
    """What the picture shows: the sit boundary and the slice at one score of the other's."""

    title: str
    note: str
    goal: int
    other: int
    totals: np.ndarray  # (goal, goal): [my score, other's score] the first total with a sit chance >= 1/2
    chances: np.ndarray  # (goal, goal): the sit chance there (0 where I never sit with the other standing)
    slice: np.ndarray  # (goal, goal + 1): [my score, t] the sit chance with the other at ``other``; nan: no choice


def sit_boundary(policy: SwineHerdPolicy) -> tuple[np.ndarray, np.ndarray]:
    """Return (totals, chances) over (my score, the other's score): the first reachable turn total at which
    I sit with a chance of at least 1/2 while the other stands, and that chance.

    Past goal - min(scores) both are at the goal (the house rule seats both): the total there, with
    its chance (1 under the house rule; 0 without it if I never sit).
    """
    goal = policy.goal
    reach = reachable_totals(policy)
    totals = np.zeros((goal, goal))
    chances = np.zeros((goal, goal))
    for a in range(goal):
        for b in range(goal):
            top = goal - min(a, b)
            rows = np.flatnonzero(reach[1 : top + 1]) + 1
            if rows.size == 0 or rows[-1] != top:
                rows = np.append(rows, top)
            p = policy.sit_a[a, b, rows]
            hit = np.flatnonzero(p >= HALF)
            index = int(hit[0]) if hit.size else rows.size - 1
            totals[a, b] = rows[index]
            chances[a, b] = p[index]
    return totals, chances


def sit_slice(policy: SwineHerdPolicy, other: int) -> np.ndarray:
    """Return the sit chance [my score, t] with the other standing at score ``other`` (nan: no choice there)."""
    goal = policy.goal
    reach = reachable_totals(policy)
    grid = np.full((goal, goal + 1), np.nan)
    for a in range(goal):
        top = goal - min(a, other)
        last = top - 1 if policy.sit_at_goal else top  # the house rule's seating at top is no choice
        for t in range(1, last + 1):
            if reach[t]:
                grid[a, t] = policy.sit_a[a, other, t]
    return grid


def sit_picture(
    variant: Variant, other: int = 0, policy: SwineHerdPolicy | None = None, kind: str = "boundary"
) -> SitPicture:
    """Return the picture's data for 2-player ``variant`` (Swine Herd), the slice at the other's score ``other``."""
    if policy is None:
        policy = solve_swine_herd(variant)
    goal = policy.goal
    if not 0 <= other < goal:
        raise BadParameterError(f"the other's score must be from 0 to {goal - 1}, got {other}")
    totals, chances = sit_boundary(policy)
    share = mixing(policy)
    mixed_starts = f"{share.turn_starts:,} of {share.all_turn_starts:,}"
    start = int(totals[0, 0])
    mixes = (
        f"{100 * share.share:.0f}% of the choices with both standing mix (in {mixed_starts} turn starts), "
        "keeping the other guessing."
    )
    slice_words = f"your chance to sit at each total while the other stands at {other}; white: no choice."
    if kind == "slice":
        note = f"Best play by both: {slice_words} {mixes}"
    else:
        at_start = " (the house rule seats you both at the goal)" if start >= goal and policy.sit_at_goal else ""
        note = (
            "Both standing, you sit from the height of the surface on (the first total where your chance to sit "
            "reaches 1/2); its colour is that chance: 1 is a sure sit, less means the best play mixes there. "
            f"{mixes} At 0-0 sit at {start}{at_start}. Right: {slice_words}"
        )
    rule = "house rule: all sit at the goal" if policy.sit_at_goal else "players may roll on at the goal"
    title = f"{variant.title} (goal {goal}, {rule}): when to sit while the other stands"
    return SitPicture(title, note, goal, other, totals, chances, sit_slice(policy, other))


# -- drawing --------------------------------------------------------------------------------------


def _slice_title(picture: SitPicture) -> str:
    return f"Chance to sit, the other standing at {picture.other}"


def save_png(picture: SitPicture, path: Path, kind: str = "boundary") -> None:
    """Draw the picture to a PNG: the 3D boundary and the slice (``kind`` 'boundary') or the slice alone."""
    plt = _pyplot()
    from matplotlib import colors
    from matplotlib.cm import ScalarMappable

    panels = 2 if kind == "boundary" else 1
    width, height = SIZE[0] + PANEL_WIDTH * (panels - 1), SIZE[1]
    fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    cmap = plt.get_cmap(COLORMAP)
    norm = colors.Normalize(vmin=0.0, vmax=1.0)
    goal = picture.goal
    scores = np.arange(goal)
    try:
        if kind == "boundary":
            ax = fig.add_subplot(1, 2, 1, projection="3d")
            xx, yy = np.meshgrid(scores, scores, indexing="ij")
            count = min(goal, 120)
            ax.plot_surface(
                xx,
                yy,
                picture.totals,
                facecolors=cmap(norm(picture.chances)),
                rcount=count,
                ccount=count,
                linewidth=0,
                antialiased=False,
                shade=False,
            )
            ax.set_xlabel("your score", labelpad=8)
            ax.set_ylabel("the other's score", labelpad=8)
            ax.set_zlabel("sit at turn total", labelpad=8)
            ax.set_xlim(0, goal - 1)
            ax.set_ylim(0, goal - 1)
            ax.set_zlim(0, goal)
            ax.view_init(elev=SIT_VIEW[0], azim=SIT_VIEW[1])
            ax.set_title("Sit from this total on, both standing")
            bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6, pad=0.08)
            bar.set_label("chance to sit at that total")
        ax2 = fig.add_subplot(1, panels, panels)
        grid = np.ma.masked_invalid(picture.slice.T)
        image = ax2.imshow(
            grid,
            origin="lower",
            extent=(-0.5, goal - 0.5, -0.5, goal + 0.5),
            cmap=cmap.with_extremes(bad="white"),
            norm=norm,
            aspect="auto",
            interpolation="nearest",
        )
        mine = scores.astype(float)
        ax2.plot(mine, goal - mine, color="red", linewidth=1.2, linestyle="--", label="you reach the goal")
        ax2.set_xlim(-0.5, goal - 0.5)
        ax2.set_ylim(-0.5, goal + 0.5)
        ax2.set_xlabel("your score")
        ax2.set_ylabel("turn total")
        ax2.set_title(_slice_title(picture))
        ax2.legend(loc="upper right")
        bar2 = fig.colorbar(image, ax=ax2)
        bar2.set_label("chance to sit (both standing)")
        fig.suptitle(picture.title, fontsize=15, fontweight="bold", y=0.975)
        note = "\n".join(textwrap.wrap(picture.note, width=max(40, width // 8)))
        fig.text(0.5, 0.925, note, ha="center", va="top", fontsize=10, color="0.25")
        top = 0.86 - (note.count("\n") + 1) * 16 / height
        fig.subplots_adjust(left=0.05, right=0.96, bottom=0.08, top=top, wspace=0.2)
        fig.savefig(path, dpi=DPI)
    finally:
        plt.close(fig)


def save_html(picture: SitPicture, path: Path, kind: str = "boundary") -> None:
    """Draw the picture to a self-contained HTML page with plotly (plotly.js embedded, works offline)."""
    try:
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BadParameterError(f"interactive HTML figures need plotly: {PLOT_EXTRA}") from exc
    goal = picture.goal
    scores = np.arange(goal)
    panels = 2 if kind == "boundary" else 1
    specs = [[{"type": "scene"}, {"type": "xy"}]] if panels == 2 else [[{"type": "xy"}]]
    titles = ["Sit from this total on, both standing", _slice_title(picture)][2 - panels :]
    fig = make_subplots(rows=1, cols=panels, specs=specs, subplot_titles=titles)
    if panels == 2:
        fig.add_trace(
            go.Surface(
                x=scores,
                y=scores,
                z=picture.totals.T,
                surfacecolor=picture.chances.T,
                cmin=0.0,
                cmax=1.0,
                colorscale="Viridis",
                colorbar={"title": {"text": "chance to sit there"}, "x": 0.46, "len": 0.75},
                hovertemplate="you %{x}<br>the other %{y}<br>sit at %{z}<br>chance %{surfacecolor:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        elevation, azimuth = np.radians(SIT_VIEW[0]), np.radians(SIT_VIEW[1])
        eye = {
            "x": float(2.2 * np.cos(elevation) * np.cos(azimuth)),
            "y": float(2.2 * np.cos(elevation) * np.sin(azimuth)),
            "z": float(2.2 * np.sin(elevation)),
        }
        fig.update_layout(
            scene={
                "xaxis_title": "your score",
                "yaxis_title": "the other's score",
                "zaxis_title": "sit at turn total",
                "zaxis_range": [0, goal],
                "camera": {"eye": eye},
            }
        )
    fig.add_trace(
        go.Heatmap(
            x=scores,
            y=np.arange(goal + 1),
            z=picture.slice.T,
            zmin=0.0,
            zmax=1.0,
            colorscale="Viridis",
            colorbar={"title": {"text": "chance to sit"}},
            hovertemplate="you %{x}<br>turn total %{y}<br>chance to sit %{z:.3f}<extra></extra>",
        ),
        row=1,
        col=panels,
    )
    fig.add_trace(
        go.Scatter(x=scores, y=goal - scores, name="you reach the goal", line={"color": "red", "dash": "dash"}),
        row=1,
        col=panels,
    )
    fig.update_xaxes(title_text="your score", row=1, col=panels)
    fig.update_yaxes(title_text="turn total", range=[0, goal], row=1, col=panels)
    width, height = SIZE[0] + PANEL_WIDTH * (panels - 1), SIZE[1]
    fig.update_layout(
        title={"text": f"{picture.title}<br><sup>{picture.note}</sup>"}, width=width, height=height, margin={"t": 110}
    )
    fig.write_html(str(path), include_plotlyjs=True, full_html=True)


def plot_swine_herd(
    variant: Variant, out: Path, kind: str = "boundary", other: int = 0, policy: SwineHerdPolicy | None = None
) -> SitPicture:
    """Draw Swine Herd's best play to ``out`` (.png or .html): ``kind`` 'boundary' (3D and slice) or 'slice'."""
    if kind not in KINDS:
        raise BadParameterError(
            f"{variant.name} is played by everyone at once; its figures are {' and '.join(KINDS)}, not {kind}"
        )
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise BadParameterError(f"the figure must end in .png or .html, not {out.name!r}")
    picture = sit_picture(variant, other, policy, kind)
    if suffix == ".png":
        save_png(picture, out, kind)
    else:
        save_html(picture, out, kind)
    return picture
