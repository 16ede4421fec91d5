"""The ``levels`` command: the robots of every strength and each one's exact chance against the perfect player."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from pigdice.cli.options import NO_OPTIONS, JsonOpt, VariantOptions, with_variant_options
from pigdice.cli.output import emit_json, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.solve.background import Progress, run_in_worker

if TYPE_CHECKING:
    from pigdice.rules.variant import Variant
    from pigdice.study.levels import LevelLadder


@with_variant_options
def levels_command(
    variant_name: Annotated[
        str, typer.Argument(metavar="[VARIANT]", help="Variant name or alias (see `pigdice variants`).")
    ] = "pig",
    options: VariantOptions = NO_OPTIONS,
    json_out: JsonOpt = False,
) -> None:
    """List the robots level:1 (a beginner) to level:8 (perfect), each with its exact chance against perfect play."""
    variant = options.variant(variant_name)
    variant.check_players(2)
    with progress_bar(enabled=not json_out) as bar:  # in a worker process: Ctrl-C stops it at once
        ladder = run_in_worker(ladder_work, (variant,), bar)
    if json_out:
        emit_json(ladder.to_json())
        return
    print_ladder(ladder)


def ladder_work(variant: Variant, progress: Progress) -> LevelLadder:
    """Return every level's exact chance against the perfect player: the worker of ``levels``."""
    from pigdice.study.levels import level_ladder

    return level_ladder(variant, progress)


def print_ladder(ladder: LevelLadder) -> None:
    """Print the levels for people: name, the most each gives away at one decision, and its chance."""
    from pigdice.players.defaults import describe_robot

    console = stdout_console()
    console.print(Text(f"Robots of every strength in {ladder.evaluated}, each against the perfect player:"))
    table = Table(box=None, padding=(0, 1), header_style="bold")
    for column in ("robot", "who it is", "allowance", "its chance", "moving first", "moving second"):
        table.add_column(column, justify="left" if column in ("robot", "who it is") else "right")
    for level in ladder.levels:
        table.add_row(
            f"level:{level.number}",
            level.title,
            "nothing" if level.allowance == 0 else points(level.allowance),
            f"{100 * level.average:.2f}%",
            f"{100 * level.first:.2f}%",
            f"{100 * level.second:.2f}%",
        )
    console.print(table)
    console.print(
        Text(
            "A level-N robot takes the most cautious option (hold before roll, fewer dice before more) whose "
            "exact chance to win is within its allowance of the best one. The chances are exact, not simulated; "
            f"moving first is worth {100 * ladder.first_player_edge:.2f} points either way between perfect players.",
            style="dim",
        )
    )
    if not ladder.is_increasing():
        console.print(Text("In this game a higher level is not always stronger.", style="yellow"))
    if ladder.note:
        console.print(Text(f"Note: {ladder.note}.", style="dim"))
    example = f"pigdice play {ladder.variant.name} --players you,level:3"
    console.print(Text(f"Play one: {example} ({describe_robot('level:3')})"))


def points(chance: float) -> str:
    """Return a chance as points of winning chance, e.g. '1 point', '15 points'."""
    value = 100 * chance
    return f"{value:g} point{'' if value == 1 else 's'}"
