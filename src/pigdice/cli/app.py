"""The ``pigdice`` command line (typer + rich): the app, its error handling and its commands.

The commands live in one module per topic (``catalog``, ``study``, ``playing``, ``solving``,
``serving``, ``analyzing``) as plain functions; this module registers them below, in the
order ``pigdice --help`` lists them. Command modules never import this one: they take their
shared options from ``cli.options``, print with ``cli.output`` and show progress with
``cli.progress``. Input errors (every ``PigdiceError``) are caught in one place,
``PigdiceGroup.invoke``, and printed as ``error: <message>`` on stderr with exit code 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from pigdice import __version__
from pigdice.cli import analyzing, catalog, playing, serving, solving, study
from pigdice.errors import PigdiceError

EXIT_BAD_INPUT = 2


def error_line(exc: BaseException) -> str:
    """Return the one-line ``error: ...`` text for an input error."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    return f"error: {message}"


class PigdiceGroup(TyperGroup):
    """The command group: turns every pigdice input error into one line on stderr and exit code 2."""

    def invoke(self, ctx: Any) -> Any:
        """Run the chosen command, reporting ``PigdiceError`` as ``error: ...`` (exit 2)."""
        try:
            return super().invoke(ctx)
        except PigdiceError as exc:
            typer.echo(error_line(exc), err=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None


app = typer.Typer(
    cls=PigdiceGroup,
    name="pigdice",
    help="Play, solve and study Pig and its family of jeopardy dice games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"pigdice {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Play, solve and study Pig and its family of jeopardy dice games."""


# every command, in the order `pigdice --help` lists them
COMMANDS: dict[str, Callable[..., None]] = {
    "variants": catalog.variants_command,
    "rules": catalog.rules_command,
    "simulate": study.simulate_command,
    "play": playing.play_command,
    "solve": solving.solve_command,
    "policy": solving.policy_command,
    "hint": solving.hint_command,
    "serve": serving.serve_command,
    "analyze": analyzing.analyze_command,
    "plot": analyzing.plot_command,
    "compare": study.compare_command,
    "tournament": study.tournament_command,
}
for _name, _command in COMMANDS.items():
    app.command(_name)(_command)


def main() -> None:
    """Run the ``pigdice`` command line (the console-script entry point)."""
    try:
        app()
    except PigdiceError as exc:  # raised outside a command (the group catches the rest)
        typer.echo(error_line(exc), err=True)
        sys.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":
    main()
