"""Commands that study strategies: ``compare`` (exact head-to-head, or simulated) and ``tournament``."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pigdice.cli.app import (
    EndgameOpt,
    FinalTurnOpt,
    GoalOpt,
    JsonOpt,
    ParamOpt,
    SeedOpt,
    TiesOpt,
    app,
    emit_json,
    percent,
    progress_bar,
    resolve_seed,
    stderr_console,
    stdout_console,
    variant_from_options,
)
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Strategy, parse_strategy
from pigdice.rules.variant import Endgame, Variant
from pigdice.study.evaluate import CSV_FIELDS, Comparison, TournamentResult, compare, tournament

VariantOpt = Annotated[str, typer.Option("--variant", "-v", help="Variant name or alias (see `pigdice variants`).")]


def _strategy(spec: str, variant: Variant) -> Strategy:
    if not spec.strip():
        raise BadStrategyError("empty strategy name")
    return parse_strategy(spec, variant)


def print_comparison(result: Comparison) -> None:
    """Print a comparison for people."""
    console = stdout_console()
    table = Table(title=f"{result.a} vs {result.b} in {result.variant.title} (goal {result.variant.goal})")
    table.add_column(f"P({result.a} wins)", style="bold")
    exact, sim = result.exact, result.simulated
    if exact is not None:
        table.add_column("exact", justify="right")
    if sim is not None:
        table.add_column(f"simulated ({sim.games} games)", justify="right")
    labels = (f"{result.a} moves first", f"{result.b} moves first", "average")
    for row, label in enumerate(labels):
        cells = [label]
        if exact is not None:
            cells.append(f"{(exact.a_first, exact.b_first, exact.average)[row]:.6f}")
        if sim is not None:
            cells.append(percent((sim.a_first, sim.b_first, sim.average)[row]))
        table.add_row(*cells)
    console.print(table)
    if sim is not None:
        lo, hi = sim.ci95
        line = f"95% confidence interval of the simulated average: {percent(lo)} .. {percent(hi)}"
        if exact is not None and result.variant.endgame is Endgame.FIRST_TO_GOAL:
            inside = lo <= exact.average <= hi
            line += "  (exact value inside)" if inside else "  (exact value outside: 1 in 20 runs expect this)"
        console.print(line)
        console.print(f"seed {sim.seed}, {sim.engine} simulator, mean {sim.mean_turns:.2f} turns per game", style="dim")
    for note in result.notes:
        console.print(f"note: {note}", style="yellow")


@app.command("compare")
def compare_command(
    a: Annotated[str, typer.Argument(metavar="A", help="First strategy, e.g. hold:20, keep-pace, optimal.")],
    b: Annotated[str, typer.Argument(metavar="B", help="Second strategy.")],
    variant_name: VariantOpt = "pig",
    goal: GoalOpt = None,
    endgame: EndgameOpt = None,
    ties: TiesOpt = None,
    final_turn: FinalTurnOpt = None,
    param: ParamOpt = None,
    games: Annotated[
        int | None, typer.Option("--games", "-n", help="Also simulate N games (each side starts half).")
    ] = None,
    seed: SeedOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Give the probability that A beats B: exactly, and by simulation with --games N."""
    variant = variant_from_options(variant_name, goal, endgame, ties, final_turn, param)
    variant.check_players(2)
    strategy_a, strategy_b = _strategy(a, variant), _strategy(b, variant)
    if games is not None and games < 2:
        raise BadParameterError(f"--games must be at least 2 (each side starts half), got {games}")
    used_seed = resolve_seed(seed) if games is not None else None
    with progress_bar(True) as bar:

        def report(done: int) -> None:
            bar(done / max(games or 1, 1), "simulating (engine loop)")

        result = compare(variant, strategy_a, strategy_b, games, used_seed, report)
    if json_out:
        emit_json(result.to_json())
        return
    print_comparison(result)


# -- tournament -----------------------------------------------------------------------------------
def print_tournament(result: TournamentResult) -> None:
    """Print the standings (and for 2 players the table of who beats whom) for people."""
    console = stdout_console()
    exact = sum(m.method == "exact" for m in result.matches)
    how = f"{exact} exact, {len(result.matches) - exact} simulated ({result.games} games each, seed {result.seed})"
    table = Table(
        title=f"{result.variant.title} tournament, {result.players} players, goal {result.variant.goal}",
        caption=f"{len(result.matches)} matches: {how}",
    )
    table.add_column("rank", justify="right")
    table.add_column("strategy", style="bold cyan")
    table.add_column("win rate", justify="right")
    table.add_column("vs par", justify="right")
    table.add_column("matches", justify="right")
    for standing in result.standings:
        edge = standing.win_rate - standing.par
        style = "green" if edge > 0 else "red" if edge < 0 else ""
        table.add_row(
            str(standing.rank),
            standing.name,
            percent(standing.win_rate),
            f"[{style}]{100 * edge:+.2f}[/]" if style else "0.00",
            str(standing.matches),
        )
    console.print(table)
    if result.players == 2 and len(result.strategies) <= 12:
        pairs = result.pairwise()
        order = [s.name for s in result.standings]
        grid = Table(title="P(row beats column), each side starting half the games")
        grid.add_column("")
        for name in order:
            grid.add_column(name, justify="right")
        for row in order:
            cells = [row]
            for col in order:
                cells.append("" if row == col else f"{100 * pairs[(row, col)]:.1f}%")
            grid.add_row(*cells)
        console.print(grid)


def write_csv(result: TournamentResult, path: Path) -> int:
    """Write one row per player per match to ``path``; return the number of rows."""
    rows = result.csv_rows()
    try:
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(CSV_FIELDS))
            writer.writeheader()
            for row in rows:
                writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    except OSError as exc:
        raise BadParameterError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return len(rows)


@app.command("tournament")
def tournament_command(
    strategies: Annotated[
        str,
        typer.Option("--strategies", "-s", help="Comma-separated strategies, e.g. hold:20,keep-pace,optimal."),
    ],
    variant_name: VariantOpt = "pig",
    players: Annotated[int, typer.Option("--players", "-k", help="Players per game (2 to 10).")] = 2,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Simulated games per match (exact 2-player matches need none).")
    ] = 2000,
    simulate_all: Annotated[
        bool, typer.Option("--simulate", help="Simulate every match, even those that could be exact.")
    ] = False,
    goal: GoalOpt = None,
    endgame: EndgameOpt = None,
    ties: TiesOpt = None,
    final_turn: FinalTurnOpt = None,
    param: ParamOpt = None,
    seed: SeedOpt = None,
    json_out: JsonOpt = False,
    csv_path: Annotated[
        Path | None, typer.Option("--csv", help="Write one row per player per match to this CSV file.")
    ] = None,
) -> None:
    """Play a round robin between strategies and rank them (exact where possible)."""
    if json_out and csv_path is not None:
        raise BadParameterError("give --json or --csv, not both")
    variant = variant_from_options(variant_name, goal, endgame, ties, final_turn, param)
    specs = [s.strip() for s in strategies.split(",")]
    if any(not s for s in specs):
        raise BadStrategyError(f"empty strategy in {strategies!r}; separate strategies with commas")
    robots = [_strategy(s, variant) for s in specs]
    if games < 1:
        raise BadParameterError(f"--games must be at least 1, got {games}")
    used_seed = resolve_seed(seed)
    combos = math.comb(len(robots), players) if 1 <= players <= len(robots) else 0
    with progress_bar(combos > 1) as progress:
        result = tournament(variant, robots, players, games, used_seed, progress, exact=not simulate_all)
    if json_out:
        emit_json(result.to_json())
        return
    if csv_path is not None:
        count = write_csv(result, csv_path)
        stderr_console().print(f"wrote {count} rows to {csv_path}")
    print_tournament(result)
