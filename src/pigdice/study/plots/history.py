"""Your history as a picture: the Performance Rating game by game (and its moving average), and each game's luck.

A PNG (matplotlib, the ``plot`` extra): on top every game's rating with the rating over the last ten
games as a line and the bands as shaded steps; below, what the dice did in each game, in points of winning chance,
green for a win and red for a loss.
"""

from __future__ import annotations

import math
from pathlib import Path

from pigdice.study.history import TREND, History
from pigdice.study.plots.static import DPI, _pyplot
from pigdice.study.rating import BANDS


def plot_history(history: History, path: Path) -> None:
    """Draw ``history`` to the PNG file ``path``."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    games = list(range(1, len(history.games) + 1))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True, height_ratios=(3, 2))
    try:
        ratings = [g.rating.value for g in history.games]
        shown = [(n, r) for n, r in zip(games, ratings, strict=True) if r is not None]
        highest = max([r for _, r in shown] + [10.0]) * 1.3
        low = 0.0
        for index, (name, bound) in enumerate(BANDS):  # the bands, shaded in turn, named at the right
            high = min(bound, highest)
            top.axhspan(low, high, color=("#f1f3f5" if index % 2 else "#ffffff"), zorder=0)
            middle = math.sqrt(max(low, 0.2) * high)
            top.text(1.01, middle, name, fontsize=7, va="center", color="#868e96", transform=top.get_yaxis_transform())
            low = bound
            if bound >= highest:
                break
        if shown:
            top.scatter([n for n, _ in shown], [r for _, r in shown], s=14, color="#1c7ed6", label="one game", zorder=3)
        trend = history.trend()
        points = [(n, t) for n, t in zip(games, trend, strict=True) if t is not None]
        if points:
            top.plot([n for n, _ in points], [t for _, t in points], color="#d6336c", lw=2, zorder=4,
                     label=f"the last {TREND} games")  # fmt: skip
        top.set_yscale("symlog", linthresh=1.0)
        top.set_ylim(0, highest)
        top.set_ylabel("Performance Rating (lower is better)")
        if shown:
            top.legend(loc="lower left", fontsize=8)
        lucks = [100 * (g.dice or 0.0) for g in history.games]
        colours = [_colour(g.result, g.finished) for g in history.games]
        bottom.bar(games, lucks, color=colours)
        bottom.axhline(0, color="#495057", lw=0.8)
        bottom.set_ylabel("the dice's luck (points)")
        bottom.set_xlabel("game")
        bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
        fig.suptitle(f"Your games: {len(history.games)}, won {history.wins:g}")
        fig.tight_layout()
        fig.savefig(path, dpi=DPI)
    finally:
        plt.close(fig)


def _colour(result: float | None, finished: bool) -> str:
    """Return a game's bar colour: green for a win (or half a shared one), red for a loss, grey while it goes on."""
    if not finished:
        return "#adb5bd"
    return "#2b8a3e" if (result or 0.0) >= 0.5 else "#c92a2a"
