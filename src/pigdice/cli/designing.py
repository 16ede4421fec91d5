"""The game designer's command: ``pigdice design --space FILE --budget N --out DIR``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from pigdice.cli.checks import OutputError, number_option, output_option, shown_path, writing
from pigdice.cli.options import JsonOpt
from pigdice.cli.output import emit_json, stderr_console, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError, require_modules
from pigdice.files import write_text

MAX_BUDGET = 2_000_000
MAX_WORKERS = 256
MAX_SHORTLIST = 50
MAX_ADDRESS = 200  # characters of a scheduler address


def _out_dir(out: Path) -> Path:
    """Return the output folder, created if missing (its parent must exist); refuse a file."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {shown_path(out)} is a file; give a folder for the results and the report")
    if not out.exists():
        if not out.parent.is_dir():
            raise OutputError(f"--out {shown_path(out)}: the folder {shown_path(out.parent)} does not exist")
        with writing(out):
            out.mkdir()
    return out


def design_command(
    space: Annotated[
        Path | None,
        typer.Option("--space", metavar="FILE", dir_okay=False, help="The rule space to search (a JSON space file)."),
    ] = None,
    budget: Annotated[
        int | None,
        number_option("--budget", low=1, high=MAX_BUDGET, help="Measure the first N rule sets (default: all)"),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="Folder for the results (Parquet, resumed on a rerun), report and proposals."
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler, e.g. tcp://host:8786."),
    ] = None,
    workers: Annotated[
        int | None,
        number_option("--workers", low=1, high=MAX_WORKERS, help="Local cluster workers (default: one per core)"),
    ] = None,
    in_process: Annotated[bool, typer.Option("--in-process", help="Measure in this process, without Dask.")] = False,
    shortlist: Annotated[int, number_option("--shortlist", low=1, high=MAX_SHORTLIST, help="Proposals to write")] = 5,
    example_space: Annotated[
        Path | None,
        output_option("--example-space", help="Write the example space file here and stop."),
    ] = None,
    reference: Annotated[
        bool,
        typer.Option("--reference/--no-reference", help="Measure the named games too, as the reference rows."),
    ] = True,
    json_out: JsonOpt = False,
) -> None:
    """Search a rule space for better jeopardy dice games (exact measures, on Dask) and propose the best.

    Every rule set is measured exactly (first-player advantage, game length, the winner's scoring turns,
    skill edge over robots, close decisions, lead changes, comebacks, rule complexity); the Pareto front
    is ranked into a shortlist written as playable rule files (pigdice play designed:FILE) with a report.
    """
    from pigdice.study.design.space import example_space as example

    if example_space is not None:
        chosen = example()
        with writing(example_space):
            write_text(example_space, json.dumps(chosen.to_json(), indent=2) + "\n")
        size = len(chosen.points())
        if json_out:
            emit_json({"space": str(example_space), "rule_sets": size})
        else:
            stdout_console().print(f"wrote the example space ({size} rule sets) to {example_space}")
        return
    if space is None or out is None:
        raise BadParameterError(
            "give --space FILE and --out DIR (or --example-space FILE to write a space to start from)"
        )
    if scheduler is not None and (in_process or workers is not None):
        raise BadParameterError("--scheduler runs on that cluster's workers: leave out --in-process and --workers")
    if in_process and workers is not None:
        raise BadParameterError("--workers sizes the local cluster: leave it out with --in-process")
    if scheduler is not None and (not scheduler.strip() or len(scheduler) > MAX_ADDRESS or not scheduler.isprintable()):
        raise BadParameterError(f"--scheduler takes an address like tcp://host:8786 (at most {MAX_ADDRESS} characters)")
    from pigdice.study.design.space import read_space

    chosen_space = read_space(space)  # the file first: a device, a pipe or a bad space is refused at once
    chosen_space.check_not_empty()  # before any worker starts
    require_modules(
        ("pyarrow",) if in_process else ("dask", "distributed", "pyarrow"), "design", "the game designer needs"
    )
    from pigdice.study.design.designer import design
    from pigdice.study.design.search import REFERENCE_VARIANTS

    folder = _out_dir(out)
    with progress_bar(not json_out) as bar:
        result = design(
            chosen_space,
            budget,
            folder,
            scheduler,
            workers,
            in_process,
            shortlist,
            bar,
            REFERENCE_VARIANTS if reference else (),
            announce=lambda line: stderr_console().print(line, markup=False, highlight=False),
        )
    if json_out:
        emit_json(result.to_json())
        return
    _print(result.to_json())


def _print(data: dict[str, Any]) -> None:
    console = stdout_console()
    console.print(
        f"{data['designed']} rule sets measured ({data['measured']} now, {data['reused']} from earlier runs) "
        f"{data['where']} in {data['seconds']:.0f} s; Pareto front: {data['front']} games"
    )
    table = Table(title="Proposals next to the named games", box=box.SIMPLE_HEAD)
    for label in ("game", "goal", "first edge", "turns", "winner turns", "skill", "comeback", "effects"):
        if label == "game":
            table.add_column(label, no_wrap=True, min_width=14)  # a proposal's id whole: r- and ten digits
        else:
            table.add_column(label, justify="right", min_width=max(len(word) for word in label.split()))

    def number(value: Any, text: str) -> str:
        return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else text.format(value)

    rows = [(f"{r['rank']}. {r['id']}", r) for r in data["shortlist"]]
    rows += [(r["name"], r) for r in data["reference"] if r["name"] in ("pig", "two-dice-pig", "big-pig")]
    for label, r in rows:
        table.add_row(
            label,
            number(r["goal"], "{:d}"),
            number(r["fpa"] and 100 * r["fpa"], "{:+.1f}%"),
            number(r["mean_turns"], "{:.1f}"),
            number(r["winner_scoring_turns"], "{:.2f}"),
            number(r["skill_edge"] and 100 * r["skill_edge"], "{:.1f}%"),
            number(r["comeback"] and 100 * r["comeback"], "{:.1f}%"),
            number(r["complexity"], "{:.0f}"),
        )
    console.print(table)
    console.print(f"report: {data['report']}")
    for path in data["proposals"]:
        console.print(f"  pigdice play designed:{path}")
