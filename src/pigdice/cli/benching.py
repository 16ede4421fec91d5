"""The ``bench-learners`` command: Pig-Bench, baselines trained and evaluated exactly, written as a leaderboard."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from pigdice.cli.checks import OutputError, number_option, output_path, shown_path, writing
from pigdice.cli.exitcodes import EXIT_INTERRUPTED
from pigdice.cli.options import JsonOpt
from pigdice.cli.output import emit_json, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import require_modules

if TYPE_CHECKING:
    from pigdice.study.pigbench import Leaderboard

FILES = ("leaderboard.md", "leaderboard.json", "curves.png")
MAX_SEED = 2**31 - 1


def bench_learners_command(
    variants: Annotated[
        str,
        typer.Option(
            "--variants",
            metavar="NAMES",
            help="The games, with commas: names from `pigdice variants` or designed:FILE.",
        ),
    ] = "pig,two-dice-pig,hog,pig-dice",
    baselines: Annotated[
        str,
        typer.Option(
            "--baselines",
            metavar="NAMES",
            help="The baselines, with commas: hold (the best hold at N), keep-pace, tabular (Q-learning), ppo "
            "(MaskablePPO), dqn.",
        ),
    ] = "hold,keep-pace,tabular,ppo,dqn",
    tabular_steps: Annotated[
        int, number_option("--tabular-steps", low=1, high=10**11, help="Training steps of the tabular learner")
    ] = 100_000_000,
    neural_steps: Annotated[
        int, number_option("--neural-steps", low=1, high=10**8, help="Training steps of each network")
    ] = 100_000,
    points: Annotated[int, number_option("--points", low=1, high=100, help="Points on each learning curve")] = 8,
    goal: Annotated[
        int | None, number_option("--goal", low=2, high=1000, help="Points needed to win (default: each game's)")
    ] = None,
    seed: Annotated[int, number_option("--seed", low=0, high=MAX_SEED, help="Random seed of every learner")] = 0,
    out: Annotated[
        str,
        typer.Option("--out", metavar="FOLDER", help="The folder for leaderboard.md, leaderboard.json and curves.png."),
    ] = "docs/research",
    json_out: JsonOpt = False,
) -> None:
    """Train baselines on Pig and its cousins, score each exactly against the perfect player, write a leaderboard."""
    from pigdice.study.pigbench import BenchSettings, run_bench, write_board
    from pigdice.study.pigbench.run import run_names

    settings = BenchSettings(
        run_names(variants), run_names(baselines.lower()), tabular_steps, neural_steps, points, seed, goal
    ).checked()  # bad input is refused here, before any work
    require_modules(("matplotlib",), "plot", "Pig-Bench's learning curves need")
    folder = output_folder(out)
    try:
        with progress_bar(enabled=not json_out) as bar:
            board = run_bench(settings, bar)
    except KeyboardInterrupt:
        typer.echo("stopped: nothing was written", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    with writing(folder):
        paths = write_board(board, str(folder))
    if json_out:
        emit_json(board.to_json() | {"files": paths})
        return
    print_board(board, paths)


def output_folder(text: str) -> Path:
    """Return the folder ``text`` names after checking that each of the leaderboard's files can be written there."""
    if not text.strip() or "\0" in text:
        raise OutputError(f"--out needs a folder name, got {shown_path(text)}")
    folder = Path(text)
    try:
        found = os.lstat(folder)
    except FileNotFoundError:
        raise OutputError(f"--out {shown_path(text)}: the folder does not exist") from None
    except OSError as exc:
        raise OutputError(f"--out {shown_path(text)}: cannot use it ({exc.strerror or exc})") from None
    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode):
        raise OutputError(f"--out {shown_path(text)} is not a folder (pigdice writes only into plain folders)")
    for name in FILES:
        output_path(folder / name, "--out")
    return folder


def print_board(board: Leaderboard, paths: list[str]) -> None:
    """Print each variant's ranking for people, then the files written."""
    from pigdice.study.pigbench.board import TITLES

    console = stdout_console()
    for variant in board.boards:
        console.print(Text(f"{variant.title} to {variant.goal}, against the perfect player:", style="bold"))
        table = Table(box=None, padding=(0, 1), header_style="bold")
        for column in ("baseline", "agent", "first", "second", "averaged", "gap", "steps", "seconds"):
            table.add_column(column, justify="left" if column in ("baseline", "agent") else "right")
        missing = []
        for entry in variant.ranked():
            if entry.seats is None or entry.gap is None or entry.average is None:
                title = TITLES.get(entry.baseline, entry.baseline)
                missing.append(Text(f"{entry.baseline} ({title}) does not apply: {entry.note}.", style="dim"))
                continue
            table.add_row(
                entry.baseline,
                entry.agent.removeprefix("its greedy table after "),
                f"{entry.seats[0]:.4f}",
                f"{entry.seats[1]:.4f}",
                f"{entry.average:.4f}",
                f"{entry.gap:.4f}",
                f"{entry.steps:,}" if entry.steps else "",
                f"{entry.seconds:.1f}",
            )
        console.print(table)
        for line in missing:
            console.print(line)
    console.print(Text("Every figure is exact, not simulated. Wrote " + ", ".join(paths) + ".", style="dim"))
