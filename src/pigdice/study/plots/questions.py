"""Figures of seed 003's open questions: by how much the player who reaches the goal goes past it, and
the last player's chance against a lead.

Data only (``Figure`` of ``Panel``s, as in ``figures``); ``static`` and ``interactive`` draw them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant
from pigdice.study.plots.figures import Figure, Panel


def margin_figure(variant: Variant, maps: Sequence[tuple[str, np.ndarray]]) -> Figure:
    """Return heat maps of how far past the goal the mover stops, over (score i, other's score j), one per ending.

    ``maps`` holds (ending label, stop[i, j]): the total at or past the goal at which the mover holds.
    """
    if not maps:
        raise BadParameterError("no margin maps to draw")
    goal = variant.goal
    top = max(1, max(int((stop - goal).max()) for _, stop in maps))
    panels = []
    for label, stop in maps:
        margin = (stop - goal).astype(float)
        widest = int(margin.max())
        panels.append(
            Panel(
                kind="heatmap",
                title=f"{label.capitalize()}: up to +{widest}",
                xlabel="score i of the player who can reach the goal",
                ylabel="other player's score j",
                zlabel="points past the goal at which they hold",
                x=np.arange(goal),
                y=np.arange(goal),
                z=margin,
                discrete=True,
                zrange=(0.0, float(top)),
                colormap="viridis",
            )
        )
    note = (
        "Exact 2-player play: the total the player stops at once at or past the goal, minus the goal, "
        "for every pair of scores (dark: stop at the goal). They go further the closer the other player "
        "is to the goal, whose last turn then has the better chance to pass them."
    )
    return Figure(f"{variant.title} (goal {goal}): by how much past the goal?", panels, note)


def last_turn_figure(variant: Variant, entries: Sequence[tuple[str, np.ndarray]]) -> Figure:
    """Return the last player's chance against a lead of d (d = 1, 2, ...: chance[d]), one line per ending."""
    if not entries:
        raise BadParameterError("no last-turn chances to draw")
    series = [
        (label, np.arange(1, len(chance), dtype=float), np.asarray(chance[1:], dtype=float))
        for label, chance in entries
    ]
    panel = Panel(
        kind="lines",
        title="The last player's chance to pass the leader",
        xlabel="lead d = the leader's total - the last player's score",
        ylabel="P(the last player wins)",
        series=series,
        zrange=(0.0, 1.0),
    )
    note = "Optimal last turn (or last roll) against a leader who reached the goal; a tie counts as the tie rule says."
    return Figure(f"{variant.title} (goal {variant.goal}): the last turn", [panel], note)
