"""The ``play`` command: a game in the terminal against robots or friends."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pigdice.cli.checks import output_option
from pigdice.cli.options import (
    NO_OPTIONS,
    SeedOpt,
    VariantOptions,
    players_from_option,
    resolve_seed,
    with_variant_options,
)


@with_variant_options
def play_command(
    variant_name: Annotated[
        str, typer.Argument(metavar="[VARIANT]", help="Variant name or alias (see `pigdice variants`).")
    ] = "pig",
    players: Annotated[
        str,
        typer.Option(
            "--players",
            help=(
                "Comma-separated seats: you, human:NAME (hot-seat), or robots like hold:20, rolls:3, dice:5, "
                "or level:1 (a beginner) to level:8 (the perfect player); see `pigdice levels`."
            ),
        ),
    ] = "you,hold:20",
    seed: SeedOpt = None,
    save: Annotated[
        Path | None,
        output_option("--save", help="Save the game record here (default: a new file in the pigdice games folder)."),
    ] = None,
    options: VariantOptions = NO_OPTIONS,
) -> None:
    """Play a game in the terminal against robots or friends (hot-seat)."""
    from pigdice.terminal.records import run_game

    variant = options.variant(variant_name)
    strategies = players_from_option(players, variant)
    code = run_game(variant, strategies, resolve_seed(seed), save=save)
    if code:
        raise typer.Exit(code)
