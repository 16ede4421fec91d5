"""Figures: the roll/hold boundary surface, slices, Hog's dice map, expected turn scores, win maps.

A figure is described as data first (``Figure`` of ``Panel``s: 3D surfaces, heat maps, line
and bar charts) and then drawn by one of two renderers: matplotlib for PNG (``.png``) and
plotly for interactive HTML (``.html``, with plotly.js embedded from the installed package so
the file works offline). Both are optional dependencies, imported only when drawing, with an
error that names the extra to install (``pip install pigdice[plot]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import dice_at_start, hold_thresholds

KINDS = ("boundary", "slice", "hog", "turn-score", "win")
KIND_HELP = {
    "boundary": "3D roll/hold boundary: the turn total at which the perfect player holds (003, Figures 1-8)",
    "slice": "hold threshold (or dice) and win probability against the player's score, opponent fixed",
    "hog": "dice-count map of a dice-choosing variant (003, Figure 9)",
    "turn-score": "expected points banked per turn under optimal play (003, Figure 10); VARIANT may be pig,hog",
    "win": "win-probability heat map at the start of a turn",
}
FORMATS = (".png", ".html")
DPI = 100
SIZE = (1100, 800)  # pixels of a one-panel PNG
PANEL_WIDTH = 800  # pixels added per extra side-by-side panel
PLOT_EXTRA = "pip install pigdice[plot]"
BOUNDARY_VIEW = (28.0, -60.0)  # elevation, azimuth: i along the front, j going back, k up (like 003, Figure 1)
TURN_SCORE_VIEW = (30.0, -135.0)  # from the (0, 0) corner, so the low 'roll to win' strip at high j shows


@dataclass
class Panel:
    """One chart: a 3D surface, a heat map, lines or bars, with labelled axes."""

    kind: str  # "surface" | "heatmap" | "lines" | "bars"
    title: str
    xlabel: str
    ylabel: str
    zlabel: str = ""  # the colour bar (surface, heat map) or the vertical axis of a surface
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))
    y: np.ndarray = field(default_factory=lambda: np.zeros(0))
    z: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # z[x_index, y_index]
    series: list[tuple[str, np.ndarray, np.ndarray]] = field(default_factory=list)  # lines on the left axis
    right: list[tuple[str, np.ndarray, np.ndarray]] = field(default_factory=list)  # lines on a right axis
    right_label: str = ""
    discrete: bool = False  # integer colour levels (dice counts)
    log: bool = False  # logarithmic colour scale
    zrange: tuple[float, float] | None = None
    colormap: str = "viridis"
    contour: float | None = None  # a contour line at this level (heat maps)
    step: bool = False  # draw lines as steps
    view: tuple[float, float] = (28.0, -60.0)  # 3D elevation, azimuth


@dataclass
class Figure:
    """A titled figure of side-by-side panels, with a note under the title."""

    title: str
    panels: list[Panel]
    note: str = ""

    @property
    def size(self) -> tuple[int, int]:
        """Return the PNG size in pixels (width, height)."""
        return SIZE[0] + PANEL_WIDTH * (len(self.panels) - 1), SIZE[1]


# -- optional dependencies ----------------------------------------------------------------------
def _pyplot() -> Any:
    """Return matplotlib.pyplot on the non-interactive Agg backend, or raise naming the extra."""
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BadParameterError(f"PNG figures need matplotlib: {PLOT_EXTRA}") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _plotly() -> Any:
    """Return plotly.graph_objects, or raise naming the extra."""
    try:
        import plotly.graph_objects as go
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BadParameterError(f"interactive HTML figures need plotly: {PLOT_EXTRA}") from exc
    return go


# -- data ---------------------------------------------------------------------------------------
def _check(variant: Variant) -> None:
    if variant.decision is Decision.SIMULTANEOUS:
        raise BadParameterError(
            f"{variant.name} is simultaneous (everyone plays the same rolls): it has no solved policy to draw"
        )


def _policy_and_actions(variant: Variant, progress: Callable[[float, str], None] | None = None) -> tuple[Any, Any]:
    from pigdice.solve.solver import solvable, solve
    from pigdice.study.analysis import optimal_actions

    _check(variant)
    policy = solve(solvable(variant), progress=progress)
    return policy, optimal_actions(policy)


def _scores(goal: int) -> np.ndarray:
    return np.arange(goal)


def _variant_label(variant: Variant) -> str:
    return f"{variant.title} (goal {variant.goal})"


def boundary_figure(variant: Variant, thresholds: np.ndarray, actions: np.ndarray | None = None) -> Figure:
    """Return the 3D roll/hold boundary: z = the smallest turn total at which the player holds."""
    _check(variant)
    if not variant.can_hold:
        raise BadParameterError(
            f"{variant.name} has one throw per turn and no hold: "
            f"draw its dice map with `pigdice plot hog {variant.name}`"
        )
    goal = variant.goal
    note = (
        "Below the surface the perfect player rolls, on and above it holds; "
        f"at (0, 0) hold at {int(thresholds[0, 0])}. The plane on the right is 'roll to win': "
        f"hold only at the goal, k = {goal} - i."
    )
    if variant.chooses_dice and actions is not None:
        note += " " + dice_usage(variant, actions)
    panel = Panel(
        kind="surface",
        title="Roll/hold boundary",
        xlabel="player score i",
        ylabel="opponent score j",
        zlabel="hold at turn total k",
        x=_scores(goal),
        y=_scores(goal),
        z=thresholds.astype(float),
        zrange=(0.0, float(goal)),
        colormap="viridis",
        view=BOUNDARY_VIEW,
    )
    return Figure(f"{_variant_label(variant)}: optimal roll/hold boundary", [panel], note)


def dice_usage(variant: Variant, actions: np.ndarray) -> str:
    """Return a sentence on how many dice the rolls below the boundary throw (dice-per-roll variants)."""
    goal = variant.goal
    k = np.arange(goal)[None, None, :]
    i = np.arange(goal)[:, None, None]
    rolling = actions[(actions > 0) & (k < goal - i)].astype(np.int64)
    counts = np.bincount(rolling, minlength=len(variant.choices) + 1)[1:]
    total = max(int(counts.sum()), 1)
    parts = [
        f"{n} {'die' if n == 1 else 'dice'} {100 * c / total:.1f}%"
        for n, c in zip(variant.choices, counts, strict=True)
        if c
    ]
    first = variant.choices[int(actions[0, 0, 0]) - 1]
    return (
        f"Dice per roll over all roll states: {', '.join(parts)}; the first roll at (0, 0) throws {first} "
        f"({'see' if variant.decision is Decision.DICE_PER_ROLL else 'map:'} `pigdice plot hog {variant.name}`)."
    )


def dice_figure(variant: Variant, actions: np.ndarray) -> Figure:
    """Return the dice-count heat map (Hog: dice per turn; dice-per-roll: dice at turn total 0)."""
    _check(variant)
    if not variant.chooses_dice:
        raise BadParameterError(f"{variant.name} throws a fixed number of dice; the dice map is for hog-like variants")
    dice = dice_at_start(variant.choices, actions)
    goal = variant.goal
    what = "dice to throw this turn" if variant.decision is Decision.DICE_PER_TURN else "dice for the first roll"
    panel = Panel(
        kind="heatmap",
        title=what.capitalize(),
        xlabel="player score i",
        ylabel="opponent score j",
        zlabel="dice",
        x=_scores(goal),
        y=_scores(goal),
        z=dice.astype(float),
        discrete=True,
        colormap="turbo",
    )
    note = f"At (0, 0) throw {int(dice[0, 0])} dice. Few dice near the goal, many when far behind."
    return Figure(f"{_variant_label(variant)}: optimal number of dice", [panel], note)


def win_figure(variant: Variant, values: np.ndarray) -> Figure:
    """Return the heat map of the mover's win probability at the start of a turn."""
    goal = variant.goal
    panel = Panel(
        kind="heatmap",
        title="Win probability at turn total 0",
        xlabel="player score i",
        ylabel="opponent score j",
        zlabel="P(player to move wins)",
        x=_scores(goal),
        y=_scores(goal),
        z=values,
        zrange=(0.0, 1.0),
        colormap="RdBu",
        contour=0.5,
    )
    note = f"Optimal play by both; the line marks 50%. At (0, 0) the first player wins {values[0, 0]:.4f}."
    return Figure(f"{_variant_label(variant)}: win probability", [panel], note)


def slice_figure(
    variant: Variant, thresholds: np.ndarray | None, values: np.ndarray, opponent: int, actions: np.ndarray
) -> Figure:
    """Return hold threshold (or dice) and win probability against the player's score at one opponent score."""
    goal = variant.goal
    if not 0 <= opponent < goal:
        raise BadParameterError(f"--opponent must be from 0 to {goal - 1}, got {opponent}")
    i = _scores(goal).astype(float)
    if variant.can_hold and thresholds is not None:
        left = [("hold at turn total", i, thresholds[:, opponent].astype(float))]
        left.append(("points still needed (goal - i)", i, goal - i))
        ylabel = "turn total k"
        first = f"hold at {int(thresholds[0, opponent])}"
    else:
        dice = dice_at_start(variant.choices, actions)
        left = [("dice to throw", i, dice[:, opponent].astype(float))]
        ylabel = "dice"
        first = f"throw {int(dice[0, opponent])} dice"
    limit = "; the dashed line is the roll-to-win limit" if variant.can_hold and thresholds is not None else ""
    panel = Panel(
        kind="lines",
        title=f"Opponent score j = {opponent}",
        xlabel="player score i",
        ylabel=ylabel,
        series=left,
        right=[("win probability (turn start)", i, values[:, opponent])],
        right_label="P(player to move wins)",
        step=True,
    )
    note = f"At i = 0 the perfect player would {first}{limit}."
    return Figure(f"{_variant_label(variant)}: slice at opponent score {opponent}", [panel], note)


def turn_score_figure(entries: Sequence[tuple[Variant, np.ndarray]]) -> Figure:
    """Return 3D surfaces of the expected points banked per turn (one panel per variant)."""
    top = max(float(np.max(scores)) for _, scores in entries)
    panels = []
    for variant, scores in entries:
        goal = variant.goal
        panels.append(
            Panel(
                kind="surface",
                title=f"{_variant_label(variant)}: {scores[0, 0]:.2f} points at (0, 0)",
                xlabel="player score i",
                ylabel="opponent score j",
                zlabel="expected points banked this turn",
                x=_scores(goal),
                y=_scores(goal),
                z=scores,
                zrange=(0.0, top),
                colormap="plasma",
                view=TURN_SCORE_VIEW,
            )
        )
    names = " and ".join(v.title for v, _ in entries)
    note = "Optimal play; points banked by the turn (a bust banks 0), including the turn that wins."
    return Figure(f"Expected turn score: {names}", panels, note)


def length_figure(title: str, entries: Sequence[tuple[str, np.ndarray]], note: str = "") -> Figure:
    """Return the bar chart of game-length distributions (first as bars, others as lines) with the cumulative."""
    longest = max(len(length) for _, length in entries)
    shown = 10
    for _, length in entries:
        shown = max(shown, int(np.searchsorted(np.cumsum(length), 1.0 - 1e-4)) + 2)
    shown = min(shown, longest)
    n = np.arange(1, shown + 1, dtype=float)

    def padded(length: np.ndarray) -> np.ndarray:
        return np.pad(length, (0, max(0, shown - len(length))))[:shown]

    series = [
        (f"P(game ends on turn n): {label}" if label else "P(game ends on turn n)", n, padded(length))
        for label, length in entries
    ]
    right = [
        (f"P(game over by turn n): {label}" if label else "P(game over by turn n)", n, np.cumsum(padded(length)))
        for label, length in entries[:1]
    ]
    panel = Panel(
        kind="bars",
        title="Game length",
        xlabel="turns in the game (both players)",
        ylabel="probability",
        series=series,
        right=right,
        right_label="cumulative probability",
    )
    return Figure(title, [panel], note)


def _log_heatmap(title: str, xlabel: str, ylabel: str, z: np.ndarray, zlabel: str) -> Panel:
    positive = z[np.isfinite(z) & (z > 0)]
    low = max(float(positive.min()) if positive.size else 1e-6, 1e-6)
    high = float(positive.max()) if positive.size else 1.0
    return Panel(
        kind="heatmap",
        title=title,
        xlabel=xlabel,
        ylabel=ylabel,
        zlabel=zlabel,
        x=np.arange(z.shape[0]),
        y=np.arange(z.shape[1]),
        z=np.where(z > 0, z, np.nan),
        log=True,
        zrange=(low, high),
        colormap="magma",
    )


def visits_figure(
    title: str, turn_starts: np.ndarray, visits: np.ndarray | None, thresholds: np.ndarray | None
) -> Figure:
    """Return heat maps of expected turn starts at (i, j) and expected visits to (i, k), summed over j."""
    goal = turn_starts.shape[0]
    panels = [
        _log_heatmap(
            "Turn starts at (i, j)",
            "player score i (to move)",
            "opponent score j",
            turn_starts,
            "expected turn starts per game (log scale)",
        )
    ]
    if visits is not None:
        by_ik = visits.sum(axis=1)
        k = np.arange(goal)
        by_ik = np.where(k[None, :] < goal - np.arange(goal)[:, None], by_ik, 0.0)
        panel = _log_heatmap(
            "States (i, k), summed over the opponent's score",
            "player score i",
            "turn total k",
            by_ik,
            "expected visits per game (log scale)",
        )
        if thresholds is not None:
            panel.series = [("hold threshold at j = 0", _scores(goal).astype(float), thresholds[:, 0].astype(float))]
        panels.append(panel)
    note = (
        "Expected number of visits per game with either player to move (a state can recur after busts, "
        "so these are expected counts, not probabilities); white: never visited."
    )
    return Figure(title, panels, note)


# -- building a kind ------------------------------------------------------------------------------
def build_figure(
    kind: str,
    variants: Sequence[Variant],
    opponent: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> Figure:
    """Return the figure of one KIND for the given variant(s) under optimal play."""
    from pigdice.study.analysis import turn_outcomes

    if kind not in KINDS:
        raise BadParameterError(f"unknown plot kind {kind!r}; use one of: {', '.join(KINDS)}")
    if not variants:
        raise BadParameterError("name a variant to plot")
    if len(variants) > 1 and kind != "turn-score":
        raise BadParameterError(f"only turn-score draws several variants side by side, not {kind}")
    if len(variants) > 3:
        raise BadParameterError("turn-score draws at most three variants side by side")
    for variant in variants:
        _check(variant)
    if kind == "turn-score":
        entries = []
        for variant in variants:
            _, actions = _policy_and_actions(variant, progress)
            entries.append((variant, turn_outcomes(variant, actions, visits=False).banked))
        return turn_score_figure(entries)
    variant = variants[0]
    policy, actions = _policy_and_actions(variant, progress)
    if kind == "boundary":
        return boundary_figure(variant, hold_thresholds(actions) if variant.can_hold else actions[:, :, 0], actions)
    if kind == "hog":
        return dice_figure(variant, actions)
    if kind == "win":
        return win_figure(variant, policy.values)
    thresholds = hold_thresholds(actions) if variant.can_hold else None
    return slice_figure(variant, thresholds, policy.values, opponent, actions)


def save_figure(figure: Figure, path: Path) -> Path:
    """Draw ``figure`` to ``path``: PNG with matplotlib, HTML with plotly (plotly.js embedded)."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise BadParameterError(f"--out must end in .png or .html, not {path.name!r}")
    if path.parent and not path.parent.exists():
        raise BadParameterError(f"folder {str(path.parent)!r} does not exist")
    if suffix == ".png":
        _save_png(figure, path)
    else:
        _save_html(figure, path)
    return path


def plot(
    kind: str,
    variants: Sequence[Variant],
    out: Path,
    opponent: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> Figure:
    """Build one KIND of figure and save it to ``out`` (.png or .html); return the figure."""
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise BadParameterError(f"--out must end in .png or .html, not {out.name!r}")
    figure = build_figure(kind, variants, opponent, progress)
    save_figure(figure, out)
    return figure


# -- matplotlib -----------------------------------------------------------------------------------
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


def _save_png(figure: Figure, path: Path) -> None:
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
    import textwrap

    return "\n".join(textwrap.wrap(text, width=max(40, width)))


# -- plotly ---------------------------------------------------------------------------------------
_PLOTLY_SCALES = {"viridis": "Viridis", "plasma": "Plasma", "magma": "Magma", "RdBu": "RdBu", "turbo": "Turbo"}


def _eye(view: tuple[float, float], distance: float = 2.2) -> dict[str, float]:
    """Return the plotly camera position that matches a matplotlib (elevation, azimuth) view."""
    elevation, azimuth = np.radians(view[0]), np.radians(view[1])
    return {
        "x": float(distance * np.cos(elevation) * np.cos(azimuth)),
        "y": float(distance * np.cos(elevation) * np.sin(azimuth)),
        "z": float(distance * np.sin(elevation)),
    }


def _save_html(figure: Figure, path: Path) -> None:
    go = _plotly()
    from plotly.subplots import make_subplots

    count = len(figure.panels)
    specs = [[{"type": "scene" if p.kind == "surface" else "xy", "secondary_y": bool(p.right)} for p in figure.panels]]
    for spec in specs[0]:
        if spec["type"] == "scene":
            del spec["secondary_y"]
    fig = make_subplots(rows=1, cols=count, specs=specs, subplot_titles=[p.title for p in figure.panels])
    for index, panel in enumerate(figure.panels, start=1):
        scale = _PLOTLY_SCALES.get(panel.colormap, "Viridis")
        bar_x = index / count - 0.02
        if panel.kind == "surface":
            fig.add_trace(
                go.Surface(
                    x=panel.x,
                    y=panel.y,
                    z=panel.z.T,
                    colorscale=scale,
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
        elif panel.kind == "heatmap":
            z = panel.z.T
            colorbar = {"title": {"text": panel.zlabel}, "x": bar_x}
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
                    colorscale=scale,
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
        else:
            for number, (label, x, y) in enumerate(panel.series):
                if panel.kind == "bars" and number == 0:
                    trace = go.Bar(x=x, y=y, name=label)
                else:
                    shape = "hvh" if panel.step else "linear"
                    trace = go.Scatter(
                        x=x, y=y, name=label, line={"shape": shape, "dash": "dash" if number else "solid"}
                    )
                fig.add_trace(trace, row=1, col=index, secondary_y=False)
            for label, x, y in panel.right:
                fig.add_trace(
                    go.Scatter(x=x, y=y, name=label, line={"color": "firebrick"}), row=1, col=index, secondary_y=True
                )
            fig.update_xaxes(title_text=panel.xlabel, row=1, col=index)
            fig.update_yaxes(title_text=panel.ylabel, row=1, col=index, secondary_y=False)
            if panel.right:
                fig.update_yaxes(title_text=panel.right_label, range=[0, 1.02], row=1, col=index, secondary_y=True)
    width, height = figure.size
    fig.update_layout(
        title={"text": f"{figure.title}<br><sup>{figure.note}</sup>" if figure.note else figure.title},
        width=width,
        height=height,
        margin={"t": 110},
    )
    fig.write_html(str(path), include_plotlyjs=True, full_html=True)
