"""The ``pigdice`` command line (typer + rich): variants, rules, simulate, play.

Every command is one decorated function on ``app``. Commands that take a variant reuse the
shared option types below (``VariantArg``, ``GoalOpt``, ``EndgameOpt``, ``TiesOpt``,
``FinalTurnOpt``, ``ParamOpt``, ``JsonOpt``) and build the variant with
``variant_from_options``. Input errors (every ``PigdiceError``) are caught in one place,
``PigdiceGroup.invoke``, and printed as ``error: <message>`` on stderr with exit code 2.
"""

from __future__ import annotations

import importlib
import json
import math
import secrets
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from pigdice import __version__
from pigdice.errors import BadParameterError, PigdiceError
from pigdice.players.base import Strategy, parse_players
from pigdice.players.defaults import default_robot
from pigdice.rules import all_variants, find_variant
from pigdice.rules.effects import EffectKind
from pigdice.rules.outcomes import Outcome
from pigdice.rules.variant import Endgame, FinalTurn, TieRule, Variant

EXIT_BAD_INPUT = 2
SHOWN_TABLE_ROWS = 40  # outcome tables longer than this get only the per-choice summary for people


# -- progress: one place --------------------------------------------------------------------
PROGRESS_AFTER = 1.0  # seconds of work before a progress bar appears on a terminal


class LazyBar:
    """A progress callback that shows a rich bar on stderr once the work has taken over a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.started = time.perf_counter()
        self.bar: Progress | None = None
        self.task: Any = None

    def __call__(self, fraction: float, label: str) -> None:
        """Record progress; start the bar once the work has run for ``PROGRESS_AFTER`` seconds."""
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.started < PROGRESS_AFTER:
                return
            self.bar = Progress(
                TextColumn("{task.description:<22}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeElapsedColumn(),
                console=stderr_console(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(label, total=1.0)
        self.bar.update(self.task, completed=min(max(fraction, 0.0), 1.0), description=label)

    def stop(self) -> None:
        """Remove the bar if it was shown."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


@contextmanager
def progress_bar(enabled: bool) -> Iterator[LazyBar]:
    """Yield a lazy progress callback (a bar only for work over a second, on a terminal)."""
    bar = LazyBar(enabled and sys.stderr.isatty())
    try:
        yield bar
    finally:
        bar.stop()



# -- errors: one place ----------------------------------------------------------------------
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


# -- shared options (reuse these in new commands) ---------------------------------------------
def _values(enum_type: Any) -> str:
    return " | ".join(member.value for member in enum_type)


VariantArg = Annotated[
    str, typer.Argument(metavar="VARIANT", help="Variant name or alias (see `pigdice variants`).", show_default=False)
]
GoalOpt = Annotated[int | None, typer.Option("--goal", help="Points needed to win (default: the variant's goal).")]
EndgameOpt = Annotated[
    str | None, typer.Option("--endgame", help=f"How reaching the goal ends the game: {_values(Endgame)}.")
]
TiesOpt = Annotated[str | None, typer.Option("--ties", help=f"Who wins equal best scores: {_values(TieRule)}.")]
FinalTurnOpt = Annotated[
    str | None,
    typer.Option("--final-turn", help=f"What the others get under final-round: {_values(FinalTurn)}."),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option("--param", "-p", help="Variant parameter key=value (repeatable), e.g. --param max_dice=10."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of tables.")]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Random seed (default: a fresh one, printed).")]

RESERVED_PARAMS = ("name", "goal", "endgame", "ties", "final_turn")


def parse_param_value(text: str) -> int | str:
    """Return ``text`` as an int if it is a whole number, else the string itself."""
    stripped = text.strip()
    digits = stripped[1:] if stripped.startswith("-") else stripped
    return int(stripped) if digits.isdigit() else stripped


def parse_params(items: Sequence[str] | None) -> dict[str, int | str]:
    """Parse repeated ``key=value`` strings into variant parameters."""
    params: dict[str, int | str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key or not value.strip():
            raise BadParameterError(f"--param expects key=value (e.g. max_dice=10), got {item!r}")
        if key in RESERVED_PARAMS:
            option = "--" + key.replace("_", "-")
            raise BadParameterError(f"--param {key}=... is not a variant parameter; use {option} instead")
        if key in params:
            raise BadParameterError(f"--param {key} given twice")
        params[key] = parse_param_value(value)
    return params


def variant_from_options(
    name: str,
    goal: int | None = None,
    endgame: str | None = None,
    ties: str | None = None,
    final_turn: str | None = None,
    params: Sequence[str] | None = None,
) -> Variant:
    """Return the variant the shared command-line options describe (raises PigdiceError on bad input)."""
    return find_variant(name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **parse_params(params))


def resolve_seed(seed: int | None) -> int:
    """Return ``seed`` checked, or a fresh random seed when none was given."""
    if seed is None:
        return secrets.randbelow(2**31)
    if seed < 0:
        raise BadParameterError(f"seed must be a whole number >= 0, got {seed}")
    return seed


def players_from_option(specs: str, variant: Variant) -> list[Strategy]:
    """Return the strategies a ``--players`` option names, checked against the variant."""
    return parse_players(specs, variant)


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


# -- variants ---------------------------------------------------------------------------------
@app.command()
def variants(json_out: JsonOpt = False) -> None:
    """List every variant with its aliases, sources, players, goal, decision and endgame."""
    found = all_variants()
    if json_out:
        emit_json([variant.describe() for variant in found])
        return
    console = stdout_console()
    wide = console.width >= 120
    table = Table(title="Pig variants", title_style="bold", box=box.SIMPLE_HEAD)
    table.add_column("name", no_wrap=True, style="bold cyan")
    if wide:
        table.add_column("what it is", ratio=1)
        table.add_column("aliases", style="dim", max_width=24)
    table.add_column("players", justify="right", no_wrap=True)
    table.add_column("goal", justify="right")
    table.add_column("decision", no_wrap=True)
    table.add_column("endgame", no_wrap=True)
    table.add_column("sources", overflow="fold")
    for variant in found:
        cells: list[Any] = [variant.name]
        if wide:
            cells += [Text(variant.title, style="bold") + Text(": " + variant.summary), ", ".join(variant.aliases)]
        cells += [
            f"{variant.players_min}-{variant.players_max}",
            str(variant.goal),
            str(variant.decision),
            str(variant.endgame),
            " ".join(short_source(s) for s in variant.sources),
        ]
        table.add_row(*cells)
    console.print(table)
    console.print("Details: pigdice rules NAME    Play: pigdice play NAME", style="dim")


# -- rules ------------------------------------------------------------------------------------
def choice_summary(outcomes: Sequence[Outcome]) -> dict[str, Fraction]:
    """Return P(turn total lost), P(score lost) and the expected gain from a turn total of 0."""
    bust = sum((row.probability for row in outcomes if row.effect.kind is EffectKind.BUST), Fraction(0))
    reset = sum((row.probability for row in outcomes if row.effect.kind is EffectKind.RESET_SCORE), Fraction(0))
    gain = Fraction(0)
    for row in outcomes:
        score, turn_total, _ = row.effect.resolve(0, 0)
        gain += row.probability * (score + turn_total)
    return {"bust": bust, "reset": reset, "gain": gain}


def _summary_table(variant: Variant) -> Table:
    table = Table(title="Each roll choice", title_style="bold", title_justify="left")
    table.add_column("dice", justify="right")
    table.add_column("outcomes", justify="right")
    table.add_column("P(turn total lost)", justify="right")
    table.add_column("P(whole score lost)", justify="right")
    table.add_column("expected gain", justify="right")
    for dice in variant.choices:
        rows = variant.outcomes(dice)
        summary = choice_summary(rows)
        table.add_row(
            str(dice),
            str(len(rows)),
            f"{percent(summary['bust'])}",
            f"{percent(summary['reset'])}",
            f"{float(summary['gain']):.3f}",
        )
    return table


def _effect_style(kind: EffectKind) -> str:
    if kind is EffectKind.RESET_SCORE:
        return "bold red"
    if kind is EffectKind.BUST:
        return "red"
    if kind in (EffectKind.BANK, EffectKind.DOUBLE, EffectKind.SET):
        return "yellow"
    return "green"


def _outcome_table(variant: Variant, dice: int) -> Table:
    """Return the outcome table of one roll choice, grouped by effect when it has many rows."""
    rows = variant.outcomes(dice)
    label = f"{dice} dice" if variant.chooses_dice else "One roll"
    table = Table(title=f"{label}: every outcome", title_style="bold", title_justify="left")
    if len(rows) <= 12:
        table.add_column("roll")
        table.add_column("probability", justify="right")
        table.add_column("", justify="right", style="dim")
        table.add_column("effect")
        for row in rows:
            table.add_row(
                row.label,
                fraction_text(row.probability),
                percent(row.probability),
                Text(row.effect.describe(), style=_effect_style(row.effect.kind)),
            )
        return table
    groups: dict[Any, list[Outcome]] = {}
    for row in rows:
        groups.setdefault(row.effect, []).append(row)
    table.add_column("effect")
    table.add_column("probability", justify="right")
    table.add_column("", justify="right", style="dim")
    table.add_column("rolls", overflow="fold")
    for effect in sorted(groups, key=lambda e: (e.kind is not EffectKind.ADD, e.kind, e.amount)):
        members = groups[effect]
        total = sum((row.probability for row in members), Fraction(0))
        table.add_row(
            Text(effect.describe(), style=_effect_style(effect.kind)),
            fraction_text(total),
            percent(total),
            ", ".join(row.label for row in members),
        )
    return table


def bullets(lines: Sequence[str]) -> Table:
    """Return lines as a bulleted list that wraps with a hanging indent."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=3, justify="right")
    grid.add_column(ratio=1)
    for line in lines:
        grid.add_row("•", line)
    return grid


def print_rules(variant: Variant, console: Console) -> None:
    """Print a variant's rules, source, endgame and outcome tables for people."""
    console.print(Text(variant.title, style="bold magenta"), Text(f"({variant.name})", style="dim"))
    console.print(Text(variant.summary, style="italic"))
    console.print()
    console.print(bullets(variant.rules))
    console.print()
    details = Table.grid(padding=(0, 2))
    details.add_column(style="bold")
    details.add_column()
    details.add_row("goal", str(variant.goal))
    details.add_row("players", f"{variant.players_min} to {variant.players_max}")
    details.add_row("decision", str(variant.decision))
    endgame_text = str(variant.endgame)
    if variant.endgame is Endgame.FINAL_ROUND:
        endgame_text += f", one more {variant.final_turn} for the others"
    if variant.endgame is not Endgame.FIRST_TO_GOAL:
        endgame_text += f", ties {variant.ties}"
    details.add_row("endgame", endgame_text)
    details.add_row("", variant.endgame_note())
    if variant.parameters:
        details.add_row("parameters", ", ".join(f"{key}={value}" for key, value in variant.parameters))
    if variant.aliases:
        details.add_row("aliases", ", ".join(variant.aliases))
    details.add_row("source", ", ".join(variant.sources))
    console.print(details)
    console.print()
    console.print(_summary_table(variant))
    shown = [dice for dice in variant.choices if len(variant.outcomes(dice)) <= SHOWN_TABLE_ROWS]
    if len(variant.choices) > 3:
        shown = []
    for dice in shown:
        console.print()
        console.print(_outcome_table(variant, dice))
    if len(shown) < len(variant.choices):
        console.print()
        console.print(f"Full outcome tables: pigdice rules {variant.name} --json", style="dim")


def rules_json(variant: Variant) -> dict[str, Any]:
    """Return the JSON of ``pigdice rules --json``: the parameters plus every outcome table."""
    data = variant.describe()
    data["outcomes"] = [
        {"dice": dice, "outcomes": [row.to_json() for row in variant.outcomes(dice)]} for dice in variant.choices
    ]
    return data


@app.command()
def rules(
    variant_name: VariantArg,
    goal: GoalOpt = None,
    endgame: EndgameOpt = None,
    ties: TiesOpt = None,
    final_turn: FinalTurnOpt = None,
    param: ParamOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Show a variant's rules, endgame and exact outcome table."""
    variant = variant_from_options(variant_name, goal, endgame, ties, final_turn, param)
    if json_out:
        emit_json(rules_json(variant))
        return
    print_rules(variant, stdout_console())


# -- simulate ---------------------------------------------------------------------------------
@app.command()
def simulate(
    variant_name: VariantArg,
    players: Annotated[
        str | None,
        typer.Option("--players", help="Comma-separated robot specs, e.g. hold:20,hold:25 (default: two hold:20)."),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games to play.")] = 1000,
    seed: SeedOpt = None,
    goal: GoalOpt = None,
    endgame: EndgameOpt = None,
    ties: TiesOpt = None,
    final_turn: FinalTurnOpt = None,
    param: ParamOpt = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="auto: the numba simulator where every robot has an action table and the first to the goal "
            "wins, else the engine loop; fast; loop (the game engine, whose seeds replay game by game).",
        ),
    ] = "auto",
    json_out: JsonOpt = False,
) -> None:
    """Play many seeded games between robots and count the wins per seat."""
    from pigdice.study.evaluate import simulate_with_tables
    from pigdice.study.simulate import simulate as run_simulation

    variant = variant_from_options(variant_name, goal, endgame, ties, final_turn, param)
    specs = players if players is not None else ",".join([default_robot(variant)] * 2)
    strategies = players_from_option(specs, variant)
    if games < 1:
        raise BadParameterError(f"--games must be at least 1, got {games}")
    if engine not in ("auto", "fast", "loop"):
        raise BadParameterError(f"unknown --engine {engine!r}; allowed: auto, fast, loop")
    used_seed = resolve_seed(seed)
    fast = None if engine == "loop" else simulate_with_tables(variant, strategies, games, used_seed)
    if engine == "fast" and fast is None:
        raise BadParameterError(
            "--engine fast needs robots with action tables (not rolls:N or random) and the first-to-goal ending"
        )
    if fast is not None:
        result = fast
    else:
        with progress_bar(True) as bar:
            result = run_simulation(
                variant, strategies, games, used_seed, progress=lambda done: bar(done / games, "simulating")
            )
    if json_out:
        emit_json(result.to_json())
        return
    console = stdout_console()
    table = Table(title=f"{variant.title}: {games} games, seed {used_seed}", title_style="bold")
    table.add_column("seat", justify="right")
    table.add_column("player")
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% margin", justify="right", style="dim")
    for seat, (strategy, wins) in enumerate(zip(strategies, result.wins, strict=True), start=1):
        rate = wins / games
        margin = 1.96 * math.sqrt(rate * (1 - rate) / games)
        table.add_row(str(seat), strategy.name, f"{wins:g}", percent(rate), f"± {100 * margin:.2f}")
    console.print(table)
    console.print(f"Goal {variant.goal}: {variant.endgame_note()}.")
    console.print(f"Tied games: {result.ties}    mean turns per game: {result.mean_turns:.2f}")
    console.print(f"Engine: {'numba simulator' if fast is not None else 'game engine loop'}.", style="dim")


# -- play -------------------------------------------------------------------------------------
@app.command()
def play(
    variant_name: Annotated[
        str, typer.Argument(metavar="[VARIANT]", help="Variant name or alias (see `pigdice variants`).")
    ] = "pig",
    players: Annotated[
        str,
        typer.Option(
            "--players",
            help="Comma-separated seats: you, human:NAME (hot-seat), or robots like hold:20, rolls:3, dice:5.",
        ),
    ] = "you,hold:20",
    seed: SeedOpt = None,
    goal: GoalOpt = None,
    endgame: EndgameOpt = None,
    ties: TiesOpt = None,
    final_turn: FinalTurnOpt = None,
    param: ParamOpt = None,
) -> None:
    """Play a game in the terminal against robots or friends (hot-seat)."""
    from pigdice.terminal.game import run_game

    variant = variant_from_options(variant_name, goal, endgame, ties, final_turn, param)
    strategies = players_from_option(players, variant)
    code = run_game(variant, strategies, resolve_seed(seed))
    if code:
        raise typer.Exit(code)


def main() -> None:
    """Run the ``pigdice`` command line (the console-script entry point)."""
    try:
        app()
    except PigdiceError as exc:  # raised outside a command (the group catches the rest)
        typer.echo(error_line(exc), err=True)
        sys.exit(EXIT_BAD_INPUT)


# Command modules register themselves on ``app`` when imported; add a new one's name here.
COMMAND_MODULES = ("solving", "serving", "analyzing", "study")
for _module in COMMAND_MODULES:
    importlib.import_module(f"pigdice.cli.{_module}")

if __name__ == "__main__":
    main()
