"""Figure data: what to draw for the roll/hold boundary, slices, Hog's dice map, turn scores, win maps.

A figure is described as data (``Figure`` of ``Panel``s: 3D surfaces, heat maps, line and bar
charts) computed from solved policies and analyses; ``static`` draws it with matplotlib (PNG)
and ``interactive`` with plotly (offline HTML).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.actions import dice_at_start, hold_thresholds

KINDS = ("boundary", "slice", "hog", "turn-score", "win")
KIND_HELP = {
    "boundary": "3D roll/hold boundary: the turn total at which the perfect player holds (Pigtail, Figures 1-8)",
    "slice": "hold threshold (or dice) and win probability against the player's score, opponent fixed",
    "hog": "dice-count map of a dice-choosing variant (Pigtail, Figure 9)",
    "turn-score": "expected points banked per turn under optimal play (Pigtail, Figure 10); VARIANT may be pig,hog",
    "win": "win-probability heat map at the start of a turn",
}
FORMATS = (".png", ".html")
SIZE = (1100, 800)  # pixels of a one-panel PNG
PANEL_WIDTH = 800  # pixels added per extra side-by-side panel
POLICY_PLOT = "plotting a solved policy"  # what a simultaneous variant cannot have (Variant.require_turns)
PLOT_EXTRA = "pip install pigdice[plot]"  # named by the renderers when their library is missing
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


# -- data ---------------------------------------------------------------------------------------
def _policy_and_actions(variant: Variant, progress: Callable[[float, str], None] | None = None) -> tuple[Any, Any]:
    from pigdice.solve.solver import solvable, solve

    policy = solve(solvable(variant), progress=progress)
    return policy, policy.action_table()


def _scores(goal: int) -> np.ndarray:
    return np.arange(goal)


def _variant_label(variant: Variant) -> str:
    return f"{variant.title} (goal {variant.goal})"


def _score_map(kind: str, title: str, goal: int, z: np.ndarray, zlabel: str, **style: Any) -> Panel:
    """Return a surface or heat map of ``z`` over (player score i, opponent score j) below the goal."""
    return Panel(
        kind=kind,
        title=title,
        xlabel="player score i",
        ylabel="opponent score j",
        zlabel=zlabel,
        x=_scores(goal),
        y=_scores(goal),
        z=z,
        **style,
    )


def boundary_figure(variant: Variant, thresholds: np.ndarray, actions: np.ndarray | None = None) -> Figure:
    """Return the 3D roll/hold boundary: z = the smallest turn total at which the player holds."""
    variant.require_turns(POLICY_PLOT)
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
    panel = _score_map(
        "surface",
        "Roll/hold boundary",
        goal,
        thresholds.astype(float),
        "hold at turn total k",
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
    variant.require_turns(POLICY_PLOT)
    if not variant.chooses_dice:
        raise BadParameterError(f"{variant.name} throws a fixed number of dice; the dice map is for hog-like variants")
    dice = dice_at_start(variant.choices, actions)
    what = "dice to throw this turn" if variant.decision is Decision.DICE_PER_TURN else "dice for the first roll"
    panel = _score_map(
        "heatmap", what.capitalize(), variant.goal, dice.astype(float), "dice", discrete=True, colormap="turbo"
    )
    note = f"At (0, 0) throw {int(dice[0, 0])} dice. Few dice near the goal, many when far behind."
    return Figure(f"{_variant_label(variant)}: optimal number of dice", [panel], note)


def win_figure(variant: Variant, values: np.ndarray) -> Figure:
    """Return the heat map of the mover's win probability at the start of a turn."""
    panel = _score_map(
        "heatmap",
        "Win probability at turn total 0",
        variant.goal,
        values,
        "P(player to move wins)",
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
        panels.append(
            _score_map(
                "surface",
                f"{_variant_label(variant)}: {scores[0, 0]:.2f} points at (0, 0)",
                variant.goal,
                scores,
                "expected points banked this turn",
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
        variant.require_turns(POLICY_PLOT)
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
