"""What the commands print: rich consoles, one-line JSON and small text formatters."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import typer
from rich.console import Console
from rich.table import Table


def emit_json(data: Any) -> None:
    """Print ``data`` as one line of JSON on stdout."""
    typer.echo(json.dumps(data))


def stdout_console() -> Console:
    """Return a rich console on stdout (created per command, so test runners can capture it)."""
    return Console(highlight=False)


def stderr_console() -> Console:
    """Return a rich console on stderr (progress bars, notes)."""
    return Console(stderr=True, highlight=False)


def short_source(seed_id: str) -> str:
    """Return a seed id's short number, e.g. '003' for '003_93a05962de4ba912'."""
    return seed_id.split("_", 1)[0]


def fraction_text(probability: Fraction) -> str:
    """Return a probability as 'p/q' (the exact form used in JSON)."""
    return f"{probability.numerator}/{probability.denominator}"


def percent(probability: Fraction | float) -> str:
    """Return a probability as a percentage with two decimals."""
    return f"{100 * float(probability):.2f}%"


def bullets(lines: Sequence[str]) -> Table:
    """Return lines as a bulleted list that wraps with a hanging indent."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=3, justify="right")
    grid.add_column(ratio=1)
    for line in lines:
        grid.add_row("•", line)
    return grid
