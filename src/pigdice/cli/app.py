"""The ``pigdice`` command line (typer + rich): the app, its error handling and its commands.

The commands live in one module per topic (``catalog``, ``study``, ``playing``, ``solving``,
``serving``, ``analyzing``, ``levels``, ``improving``, ``evaluating``, ``benching``) as plain functions; this
module registers them below, in the order ``pigdice --help`` lists them. Command modules never import this
one: they take their shared options from ``cli.options``, print with ``cli.output`` and show progress with
``cli.progress``. Input errors (every ``PigdiceError``) are caught in one place,
``PigdiceGroup.invoke``, and printed as ``error: <message>`` on stderr with exit code 2, and so
are option values the strict parsers of ``cli.checks`` refuse (``OptionValueError``).
No command line ends in a traceback: any other exception is printed as one ``error:`` line
saying it is a bug (exit 1; ``PIGDICE_DEBUG=1`` shows the traceback instead), running out of
memory says so, and Ctrl-C and a closed pipe end quietly.
"""

from __future__ import annotations

import copy
import errno
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from pigdice import __version__
from pigdice.cli import (
    analyzing,
    benching,
    catalog,
    designing,
    evaluating,
    improving,
    levels,
    playing,
    preparing,
    records,
    serving,
    solving,
    study,
)
from pigdice.cli.checks import OptionValueError
from pigdice.cli.exitcodes import EXIT_BAD_INPUT, EXIT_FAILED
from pigdice.errors import PigdiceError

DEBUG_ENV = "PIGDICE_DEBUG"


def printable(text: str) -> str:
    """Return ``text`` safe to print on any terminal (undecodable command-line bytes escaped)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_line(exc: BaseException) -> str:
    """Return the one-line ``error: ...`` text for an input error."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    return printable(f"error: {message}")


def failure_line(exc: BaseException) -> str:
    """Return the one-line ``error: ...`` text for an exception that is not an input error."""
    if isinstance(exc, MemoryError):
        return "error: out of memory; try a smaller goal or fewer games"
    detail = " ".join(str(exc).split())
    what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    if len(what) > 300:
        what = what[:300] + "..."
    return printable(
        f"error: internal error, a bug in pigdice ({what}); please report it with the command line "
        f"(set {DEBUG_ENV}=1 to see the traceback)"
    )


def _passes_through(exc: BaseException) -> bool:
    """Return True for exceptions typer itself turns into messages and exit codes."""
    if isinstance(exc, typer.Exit | typer.Abort | typer.TyperException | EOFError):
        return True
    return isinstance(exc, OSError) and exc.errno == errno.EPIPE  # output piped into a closed reader


class NamedArgument(TyperArgument):
    """A positional argument whose help shows its name (VARIANT) and no Python type (``<str>``)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        """Return None: the argument's name already says what it takes."""
        return None

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:
        """Return the argument's name for help and the usage line, bracketed if it may be left out."""
        name = self.metavar or (self.name or "").upper()
        return f"[{name}]" if usage and not self.required else name


def _unnamed(param_type: Any) -> Any:
    """Return a copy of ``param_type`` that gives the help no type name (typer shows ``<str>`` otherwise)."""
    quiet = copy.copy(param_type)
    quiet.get_metavar = lambda *args, **kwargs: ""
    return quiet


def plain_help(params: list[Any]) -> list[Any]:
    """Make the help's option table speak words, not Python types; return ``params``.

    typer shows every parameter's type (``<bool>``, ``<str>``, ``<list[str]>``) unless it has a
    metavar: a flag gets none (it takes no value), a text option without one is named after
    itself (``--host HOST``), and a positional argument shows only its name. Commands still set
    their own metavars where a better word exists (SEATS, FILE, N).
    """
    for param in params:
        if isinstance(param, TyperOption):
            if param.is_flag or param.count:
                param.metavar = ""
            elif param.metavar is None:
                param.metavar = max(param.opts, key=len).rsplit("-", 1)[-1].upper()  # --log-level LEVEL
        elif isinstance(param, TyperArgument) and not isinstance(param, NamedArgument):
            if param.metavar and param.metavar.startswith("[") and param.metavar.endswith("]"):
                param.metavar = param.metavar[1:-1]  # the usage line brackets optional arguments itself
            param.__class__ = NamedArgument
            param.type = _unnamed(param.type)
    return params


class PigdiceCommand(TyperCommand):
    """A command whose help names what each option takes in words (see ``plain_help``)."""

    def get_params(self, ctx: Any) -> list[Any]:
        """Return the command's parameters, help option included, with plain help."""
        return plain_help(super().get_params(ctx))


class PigdiceGroup(TyperGroup):
    """The command group: one line on stderr for every error, never a traceback.

    ``PigdiceError`` (bad input) exits with code 2; anything else (a bug, or memory) with 1.
    """

    def get_params(self, ctx: Any) -> list[Any]:
        """Return the group's options (--version, --help) with plain help."""
        return plain_help(super().get_params(ctx))

    def invoke(self, ctx: Any) -> Any:
        """Run the chosen command, reporting errors as one ``error: ...`` line."""
        try:
            return super().invoke(ctx)
        except PigdiceError as exc:
            typer.echo(error_line(exc), err=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except OptionValueError as exc:  # an option value the strict parsers refused
            typer.echo(error_line(Exception(exc.line())), err=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except Exception as exc:
            if _passes_through(exc) or os.environ.get(DEBUG_ENV, "").strip() not in ("", "0"):
                raise
            typer.echo(failure_line(exc), err=True)
            raise typer.Exit(EXIT_FAILED) from None


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
    "replay": records.replay_command,
    "review": records.review_command,
    "verify": records.verify_command,
    "history": improving.history_command,
    "practice": improving.practice_command,
    "solve": solving.solve_command,
    "policy": solving.policy_command,
    "hint": solving.hint_command,
    "serve": serving.serve_command,
    "analyze": analyzing.analyze_command,
    "plot": analyzing.plot_command,
    "compare": study.compare_command,
    "evaluate": evaluating.evaluate_command,
    "bench-learners": benching.bench_learners_command,
    "tournament": study.tournament_command,
    "levels": levels.levels_command,
    "design": designing.design_command,
    "prepare": preparing.prepare_command,
}
for _name, _command in COMMANDS.items():
    app.command(_name, cls=PigdiceCommand)(_command)


def main() -> None:
    """Run the ``pigdice`` command line (the console-script entry point)."""
    try:
        app()
    except PigdiceError as exc:  # raised outside a command (the group catches the rest)
        typer.echo(error_line(exc), err=True)
        sys.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":
    main()
