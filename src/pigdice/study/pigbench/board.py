"""Pig-Bench's leaderboard: its entries, and the Markdown, JSON and learning-curve PNG written from them."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pigdice import files

TITLES = {
    "hold": "best hold at N (Hog: best fixed dice)",
    "keep-pace": "keep pace and end race",
    "tabular": "tabular Q-learning (self-play)",
    "ppo": "MaskablePPO (sb3-contrib)",
    "dqn": "DQN (Stable-Baselines3)",
}

COLORS = {"hold": "C0", "keep-pace": "C1", "tabular": "C2", "ppo": "C3", "dqn": "C4"}
FLOOR = 1e-6  # a gap of 0 cannot be drawn on a log scale: drawn here


@dataclass(frozen=True)
class CurvePoint:
    """A learner's greedy table after ``steps`` training steps, played exactly against the perfect player."""

    steps: int
    seconds: float  # training time so far (evaluation excluded)
    average: float  # its win chance, each side starting half the games
    optimal_average: float  # the perfect player's in its place (0.5 against itself)

    @property
    def gap(self) -> float:
        """Return how much less often it wins than the perfect player would."""
        return self.optimal_average - self.average

    def to_json(self) -> dict[str, Any]:
        """Return the point as JSON-ready data."""
        return {"steps": self.steps, "train_seconds": self.seconds, "average": self.average, "gap": self.gap}


@dataclass(frozen=True)
class Entry:
    """One baseline on one variant: its exact figures (None when it does not apply, with the reason)."""

    baseline: str
    agent: str  # what was evaluated, e.g. 'hold:25' or 'the table after 1,000,000 steps'
    seats: tuple[float, ...] | None = None  # its exact win chance moving first, moving second
    perfect_seats: tuple[float, ...] | None = None  # the perfect player's in the same seats
    steps: int = 0  # training steps (decisions), 0 for a fixed rule
    seconds: float = 0.0  # training (or search) seconds
    games: int | None = None  # self-play games finished (tabular learner)
    curve: tuple[CurvePoint, ...] = ()
    note: str = ""
    table: np.ndarray | None = field(default=None, repr=False, compare=False)  # a learner's evaluated table

    @property
    def applies(self) -> bool:
        """Return True if the baseline was run on the variant."""
        return self.seats is not None

    @property
    def average(self) -> float | None:
        """Return its win chance averaged over the two seats."""
        return None if self.seats is None else sum(self.seats) / len(self.seats)

    @property
    def gap(self) -> float | None:
        """Return the perfect player's chance in its place minus its own (averaged over the seats)."""
        if self.seats is None or self.perfect_seats is None:
            return None
        return sum(self.perfect_seats) / len(self.perfect_seats) - sum(self.seats) / len(self.seats)

    def to_json(self) -> dict[str, Any]:
        """Return the entry as JSON-ready data."""
        return {
            "baseline": self.baseline,
            "title": TITLES.get(self.baseline, self.baseline),
            "agent": self.agent,
            "seats": None if self.seats is None else list(self.seats),
            "average": self.average,
            "perfect_seats": None if self.perfect_seats is None else list(self.perfect_seats),
            "gap": self.gap,
            "steps": self.steps,
            "train_seconds": self.seconds,
            "games": self.games,
            "curve": [point.to_json() for point in self.curve],
            "note": self.note,
        }


@dataclass(frozen=True)
class VariantBoard:
    """Every baseline's entry on one variant."""

    name: str
    title: str
    goal: int
    notes: tuple[str, ...]
    entries: tuple[Entry, ...]

    def ranked(self) -> list[Entry]:
        """Return the entries best first (the smallest gap), those that do not apply last."""
        return sorted(self.entries, key=lambda e: (e.gap is None, e.gap if e.gap is not None else 0.0))

    def to_json(self) -> dict[str, Any]:
        """Return the variant's board as JSON-ready data."""
        return {
            "variant": self.name,
            "title": self.title,
            "goal": self.goal,
            "notes": list(self.notes),
            "entries": [entry.to_json() for entry in self.ranked()],
        }


@dataclass(frozen=True)
class Leaderboard:
    """Pig-Bench's results: per variant, each baseline's exact gap to the perfect player."""

    seed: int
    date: str
    machine: dict[str, Any]
    settings: dict[str, Any]
    boards: tuple[VariantBoard, ...]
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """Return the leaderboard as JSON-ready data."""
        return {
            "benchmark": "Pig-Bench",
            "seed": self.seed,
            "date": self.date,
            "machine": self.machine,
            "settings": self.settings,
            "notes": list(self.notes),
            "variants": [board.to_json() for board in self.boards],
        }


def _chance(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def markdown(board: Leaderboard) -> str:
    """Return the leaderboard as a Markdown page."""
    lines = [
        "# Pig-Bench leaderboard",
        "",
        "How close do learning agents get to perfect play? Every figure below is **exact**: each agent's",
        "choices are written out as an action table and played against the perfect player by solving the",
        "game's equations (`pigdice.evaluate`), not by sampling games. *Win chance* is the agent's chance",
        "to beat the perfect player moving first, moving second, and averaged over the two seats; the",
        "*gap* is how much more often the perfect player would win in its place (0 is perfect play).",
        "",
        f"Run on {board.date} with seed {board.seed}; machine: {board.machine.get('summary', '')}.",
        "Written by `pigdice bench-learners`; the figures are in "
        "[leaderboard.json](leaderboard.json) and the learning curves in [curves.png](curves.png).",
        "",
        "## Settings",
        "",
        *[f"- {note}" for note in board.notes],
        "",
    ]
    for variant in board.boards:
        lines += [f"## {variant.title} (to {variant.goal})", ""]
        lines += [f"*{note}*" for note in variant.notes] + ([""] if variant.notes else [])
        lines += [
            "| rank | baseline | agent | moving first | moving second | averaged | gap | steps | seconds |",
            "|---:|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        rank = 0
        for entry in variant.ranked():
            if entry.seats is None:
                lines.append(f"| – | {TITLES.get(entry.baseline, entry.baseline)} | does not apply: {entry.note} "
                             "| | | | | | |")  # fmt: skip
                continue
            rank += 1
            steps = f"{entry.steps:,}" if entry.steps else "–"
            lines.append(
                f"| {rank} | {TITLES.get(entry.baseline, entry.baseline)} | {entry.agent} | {_chance(entry.seats[0])} "
                f"| {_chance(entry.seats[1])} | {_chance(entry.average)} | {_chance(entry.gap)} | {steps} "
                f"| {entry.seconds:.1f} |"
            )
        lines.append("")
    return "\n".join(lines)


def write_curves(board: Leaderboard, path: str) -> None:
    """Draw each variant's exact gap against training steps (log scales) into one PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    count = max(len(board.boards), 1)
    columns = min(count, 2)
    rows = -(-count // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(6.5 * columns, 4.6 * rows), dpi=100, squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    for ax, variant in zip(axes.flat, board.boards, strict=False):
        for entry in (e for e in variant.entries if e.applies):
            label = TITLES.get(entry.baseline, entry.baseline)
            color = COLORS.get(entry.baseline, "C7")
            if entry.curve:
                points = [p for p in entry.curve if p.steps > 0]
                ax.plot([p.steps for p in points], [max(p.gap, FLOOR) for p in points], "o-", color=color,
                        markersize=3, label=label)  # fmt: skip
            elif entry.gap is not None:
                ax.axhline(max(entry.gap, FLOOR), color=color, linestyle="--", linewidth=1,
                           label=f"{label}: {entry.agent}")  # fmt: skip
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{variant.title} (to {variant.goal})", fontsize=10)
        ax.set_xlabel("training steps (decisions)")
        ax.set_ylabel(f"exact gap to the perfect player (0 drawn at {FLOOR:g})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(f"Pig-Bench learning curves: exact gap against training steps (seed {board.seed})", fontsize=11)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    files.write_bytes(path, buffer.getvalue())


def write_board(board: Leaderboard, folder: str) -> list[str]:
    """Write leaderboard.md, leaderboard.json and curves.png into ``folder``; return their paths."""
    paths = [f"{folder}/leaderboard.md", f"{folder}/leaderboard.json", f"{folder}/curves.png"]
    files.write_text(paths[0], markdown(board) + "\n")
    files.write_text(paths[1], json.dumps(board.to_json(), indent=2) + "\n")
    write_curves(board, paths[2])
    return paths
