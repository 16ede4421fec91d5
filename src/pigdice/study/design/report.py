"""The designer's report: the shortlist next to the named games, two plots, and playable rule files.

``write_report`` writes into the output folder:

- ``report.md``: the run, the measures, the shortlist and the reference rows side by side, and
  each proposal's rules in words;
- ``fairness-skill.png`` and ``pace-tension.png``: every measured game, the Pareto front, the
  shortlist and the named games;
- ``proposals/N-ID.json``: each shortlisted game as a rule file (``pigdice play designed:FILE``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pigdice.errors import BadParameterError
from pigdice.rules.designed import FIELD_NAMES, RuleFile, rule_set
from pigdice.study.design.measures import MEASURES
from pigdice.study.design.pareto import IDEAL_SCORING_TURNS, design_score, objectives, pareto_front
from pigdice.study.plots.figures import PLOT_EXTRA

REPORT = "report.md"
PROPOSALS = "proposals"
PLOTS = ("fairness-skill.png", "pace-tension.png")
PROPOSAL_NAME = re.compile(r"[0-9]{1,2}-r-[0-9a-f]{10}\.json")
TABLE_COLUMNS = (
    ("goal", "goal", "int"),
    ("fpa", "first-player edge", "pct"),
    ("mean_turns", "turns (mean ± sd)", "turns"),
    ("winner_scoring_turns", "winner's scoring turns", "num"),
    ("skill_edge", "skill edge", "pct"),
    ("close_decisions", "close decisions", "pct"),
    ("lead_changes", "lead changes", "num"),
    ("comeback", "comeback", "pct"),
    ("complexity", "effects", "int"),
)


def rules_of(row: dict[str, Any]) -> dict[str, Any]:
    """Return the rule fields of a designed row."""
    return {name: row[name] for name in FIELD_NAMES}


def cell(row: dict[str, Any], key: str, how: str) -> str:
    """Return one measure of a row as table text."""
    value = row.get(key)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if how == "pct":
        return f"{100 * value:+.1f}%" if key == "fpa" else f"{100 * value:.1f}%"
    if how == "turns":
        return f"{value:.1f} ± {row['sd_turns']:.1f}"
    if how == "int":
        return f"{value:.0f}"
    return f"{value:.2f}"


def proposal_title(row: dict[str, Any]) -> str:
    """Return a proposal's title, e.g. 'Proposal 1 (r-3fa94c1d2b)'."""
    return f"Proposal {row['rank']} ({row['id']})"


def write_proposals(out: Path, chosen: list[dict[str, Any]]) -> list[Path]:
    """Write each shortlisted game as a rule file under ``out/proposals``; return the paths."""
    folder = out / PROPOSALS
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.json"):
        if PROPOSAL_NAME.fullmatch(stale.name):
            stale.unlink()  # an earlier run's shortlist
    paths = []
    for row in chosen:
        measured = [(k, float(row[k])) for k in MEASURES if not math.isnan(row[k])]
        figures = (*measured, ("score", float(row["score"])))
        path = folder / f"{row['rank']}-{row['id']}.json"
        RuleFile(proposal_title(row), rule_set(rules_of(row)), figures).write(path)
        paths.append(path)
    return paths


def write_plots(
    out: Path, rows: list[dict[str, Any]], reference: list[dict[str, Any]], chosen: list[dict[str, Any]]
) -> list[Path]:
    """Draw the two scatter plots (every game, the front, the shortlist, the named games) as PNGs."""
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BadParameterError(f"the designer's plots need matplotlib: {PLOT_EXTRA}") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    front = pareto_front([objectives(r) for r in rows])
    on = [r for r, f in zip(rows, front, strict=True) if f]
    off = [r for r, f in zip(rows, front, strict=True) if not f]
    named = [r for r in reference if not math.isnan(r["fpa"])]
    goals = {r["goal"] for r in named}
    axes = (
        (
            PLOTS[0],
            lambda r: 100 * abs(r["fpa"]),
            lambda r: 100 * r["skill_edge"],
            "first player's advantage, |percentage points| (fairer to the left)",
            "skill edge over the better robot, points (more skill up)",
            "Fairness against skill",
        ),
        (
            PLOTS[1],
            lambda r: r["winner_scoring_turns"],
            lambda r: 100 * r["comeback"],
            "scoring turns the winner needed (4 to 5 is popular)",
            "comeback from a quarter of the goal behind, % (more tension up)",
            "Pace against tension",
        ),
    )
    paths = []
    for name, fx, fy, xlabel, ylabel, title in axes:
        fig, ax = plt.subplots(figsize=(9, 6.5), dpi=100)
        try:
            ax.scatter([fx(r) for r in off], [fy(r) for r in off], s=8, c="0.75", label=f"measured games ({len(rows)})")
            ax.scatter([fx(r) for r in on], [fy(r) for r in on], s=14, c="tab:blue", label=f"Pareto front ({len(on)})")
            ax.scatter(
                [fx(r) for r in chosen], [fy(r) for r in chosen], s=160, marker="*", c="tab:red", label="shortlist"
            )
            ax.scatter([fx(r) for r in named], [fy(r) for r in named], s=36, marker="D", c="black", label="named games")
            outside = _frame(ax, [(fx(r), fy(r)) for r in rows], [(fx(r), fy(r)) for r in (*named, *chosen)])
            if outside:
                ax.text(
                    0.99,
                    0.01,
                    f"{outside} {'game lies' if outside == 1 else 'games lie'} outside the frame",
                    transform=ax.transAxes,
                    ha="right",
                    va="bottom",
                    fontsize=8,
                    color="0.4",
                )
            if name == PLOTS[1]:
                ax.axvspan(4, 5, color="tab:green", alpha=0.08, label="4 to 5 scoring turns")
                ax.axvline(IDEAL_SCORING_TURNS, color="tab:green", lw=0.8)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.set_title(title, fontsize=14, fontweight="bold")
            ax.grid(alpha=0.3)
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize=9, frameon=False)
            fig.tight_layout()
            labels = [Label(fx(r), fy(r), str(r["rank"]), "tab:red", 9) for r in chosen]
            labels += [Label(fx(r), fy(r), named_label(r, goals), "black", 7) for r in named]
            markers = [(fx(r), fy(r), STAR_RADIUS) for r in chosen] + [(fx(r), fy(r), DIAMOND_RADIUS) for r in named]
            place_labels(fig, ax, labels, markers)
            path = out / name
            fig.savefig(path)
            paths.append(path)
        finally:
            plt.close(fig)
    return paths


@dataclass(frozen=True)
class Label:
    """A text to write next to a point of a plot, in data coordinates."""

    x: float
    y: float
    text: str
    color: str
    size: float


# where a label may go, in points from its point: close first, then further out with a leader line
NEAR = ((6, 4), (6, -12), (-6, 4), (-6, -12), (0, 9), (0, -17))
RINGS = (24, 40, 60, 84, 112, 144, 180, 220)
STAR_RADIUS = 7.0  # points: half the width of the shortlist's stars (s=160) ...
DIAMOND_RADIUS = 4.0  # ... and of the named games' diamonds (s=36)
ANGLES = tuple(range(0, 360, 20))


def named_label(row: dict[str, Any], goals: set[int]) -> str:
    """Return a named game's plot label, with its goal when the plot shows several goals."""
    return f"{row['name']} ({row['goal']})" if len(goals) > 1 else str(row["name"])


def place_labels(fig: Any, ax: Any, labels: list[Label], markers: list[tuple[float, float, float]]) -> list[Any]:
    """Write each label where it overlaps no marker and no label written before it, inside the axes.

    ``markers`` are the points to keep clear, (x, y, radius in points). Tries spots close to the
    point, then rings further out joined by a thin line; a label with no free spot goes where it
    overlaps least. Place the labels once the layout is final (after ``tight_layout``).
    """
    import numpy as np

    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    pixels = fig.dpi / 72.0
    taken = [_box(text.get_window_extent(renderer)) for text in ax.texts]
    for x, y, radius in markers:
        if not (math.isnan(x) or math.isnan(y)):
            cx, cy = ax.transData.transform((x, y))
            r = radius * pixels
            taken.append((cx - r, cy - r, cx + r, cy + r))
    boxes = np.array(taken, dtype=float).reshape(-1, 4)
    placed = []
    spots: list[tuple[float, float, bool]] = [(dx, dy, False) for dx, dy in NEAR]
    spots += [(r * math.cos(math.radians(a)), r * math.sin(math.radians(a)), True) for r in RINGS for a in ANGLES]
    for label in labels:
        if math.isnan(label.x) or math.isnan(label.y):
            continue
        best: tuple[float, Any] | None = None
        for dx, dy, far in spots:
            note = ax.annotate(
                label.text,
                (label.x, label.y),
                xytext=(dx, dy),
                textcoords="offset points",
                ha="left" if dx > 0.5 else ("right" if dx < -0.5 else "center"),
                va="bottom" if dy >= 0 else "top",
                fontsize=label.size,
                color=label.color,
                arrowprops={"arrowstyle": "-", "color": "0.5", "lw": 0.5, "shrinkB": 4} if far else None,
            )
            box = label_box(note, renderer)
            clash = float(_overlaps(box, boxes).sum()) + _outside(box, _box(frame))
            if best is None or clash < best[0]:
                if best is not None:
                    best[1].remove()
                best = (clash, note)
            else:
                note.remove()
            if clash == 0.0:
                break
        if best is not None:
            boxes = np.vstack([boxes, label_box(best[1], renderer)])
            placed.append(best[1])
    return placed


def label_box(note: Any, renderer: Any) -> tuple[float, float, float, float]:
    """Return the display box (x0, y0, x1, y1) of an annotation's text, its leader line left out."""
    from matplotlib.text import Text

    note.update_positions(renderer)
    return _box(Text.get_window_extent(note, renderer))


def _box(extent: Any) -> tuple[float, float, float, float]:
    """Return a display box as (x0, y0, x1, y1)."""
    return (float(extent.x0), float(extent.y0), float(extent.x1), float(extent.y1))


def _overlaps(box: tuple[float, float, float, float], boxes: Any) -> Any:
    """Return the area ``box`` shares with each row of ``boxes`` (x0, y0, x1, y1)."""
    import numpy as np

    width = np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])
    height = np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])
    return np.clip(width, 0.0, None) * np.clip(height, 0.0, None)


def _outside(box: tuple[float, float, float, float], frame: tuple[float, float, float, float]) -> float:
    """Return the area of ``box`` outside ``frame``."""
    import numpy as np

    inside = float(_overlaps(box, np.array([frame]))[0])
    return (box[2] - box[0]) * (box[3] - box[1]) - inside


def _frame(ax: Any, points: list[tuple[float, float]], keep: list[tuple[float, float]]) -> int:
    """Zoom to the middle 96% of the games (named games and shortlist always in); return how many lie outside."""
    import numpy as np

    values = np.array([p for p in points if not any(math.isnan(v) for v in p)] or [(0.0, 0.0)])
    kept = np.array([p for p in keep if not any(math.isnan(v) for v in p)] or [tuple(values[0])])
    low = np.minimum(np.quantile(values, 0.02, axis=0), kept.min(axis=0))
    high = np.maximum(np.quantile(values, 0.98, axis=0), kept.max(axis=0))
    pad = (high - low) * 0.06 + 1e-9
    low, high = low - pad, high + pad
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    inside = np.all((values >= low) & (values <= high), axis=1)
    return int((~inside).sum())


def report_text(run: dict[str, Any], reference: list[dict[str, Any]], chosen: list[dict[str, Any]]) -> str:
    """Return the Markdown report."""
    head = "| game | " + " | ".join(label for _, label, _ in TABLE_COLUMNS) + " | score |"
    rule = "|---" * (len(TABLE_COLUMNS) + 2) + "|"

    def line(row: dict[str, Any], label: str) -> str:
        score = design_score(row)
        shown = "-" if math.isnan(score) else f"{score:.2f}"
        return f"| {label} | " + " | ".join(cell(row, k, how) for k, _, how in TABLE_COLUMNS) + f" | {shown} |"

    lines = [
        "# The game designer: proposals",
        "",
        f"Space: {run['space_size']} distinct rule sets; measured {run['designed']} of them "
        f"(budget {run['budget']}), plus {len(reference)} named games as reference rows. "
        f"{run['measured']} measured in this run, {run['reused']} read back from the results; "
        f"{run['where']}; {run['seconds']:.0f} s. Games that could not be measured: {run['errors']}.",
        "",
        "Measures (exact, 2 players, optimal play; see `pigdice.study.design.measures`): "
        + "; ".join(f"**{k}**: {v}" for k, v in MEASURES.items())
        + ". The first-player edge follows each game's own ending; the others its first-to-goal form.",
        "",
        f"The Pareto front over fairness, skill, pace (winner's scoring turns near {IDEAL_SCORING_TURNS}), "
        "tension (comeback) and simplicity holds "
        f"{run['front']} games; the shortlist ranks it by the design score (the mean of the five, each 0..1).",
        "",
        "## Shortlist next to the named games",
        "",
        head,
        rule,
        *(line(r, f"**{r['rank']}.** `{r['id']}`") for r in chosen),
        *(line(r, r["name"]) for r in reference),
        "",
        "![fairness against skill](fairness-skill.png)",
        "",
        "![pace against tension](pace-tension.png)",
        "",
        "## The proposals in words",
        "",
    ]
    for row in chosen:
        rules = rule_set(rules_of(row))
        lines += [
            f"### {proposal_title(row)}",
            "",
            f"Play it: `pigdice play designed:{PROPOSALS}/{row['rank']}-{row['id']}.json`",
            "",
            *(f"- {text}" for text in rules.words()),
            "",
        ]
    return "\n".join(lines)


def write_report(
    out: Path,
    run: dict[str, Any],
    designed: list[dict[str, Any]],
    reference: list[dict[str, Any]],
    chosen: list[dict[str, Any]],
) -> dict[str, Any]:
    """Write the report, its plots and the proposals' rule files; return the paths written."""
    proposals = write_proposals(out, chosen)
    plots = write_plots(out, designed, reference, chosen)
    report = out / REPORT
    report.write_text(report_text(run, reference, chosen) + "\n", encoding="utf-8")
    return {"report": str(report), "plots": [str(p) for p in plots], "proposals": [str(p) for p in proposals]}
