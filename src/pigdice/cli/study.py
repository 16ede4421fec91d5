"""Commands that study strategies: ``simulate`` (robots, many seeded games), ``compare`` (exact
head-to-head, or simulated) and ``tournament``."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from pigdice.cli.checks import number_option, output_option, writing
from pigdice.cli.options import (
    NO_OPTIONS,
    JsonOpt,
    SeedOpt,
    VariantArg,
    VariantOpt,
    VariantOptions,
    players_from_option,
    resolve_seed,
    with_variant_options,
)
from pigdice.cli.output import emit_json, percent, stderr_console, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.files import replacing
from pigdice.players.defaults import default_robot
from pigdice.rules.variant import Endgame, Variant
from pigdice.solve.background import Progress, run_in_worker
from pigdice.study.limits import MAX_GAMES  # the most games one simulation, comparison or match plays

if TYPE_CHECKING:  # the study modules load numba: imported where a command runs, so start-up stays quick
    from pigdice.players.base import Strategy
    from pigdice.study.evaluate import Comparison, TournamentResult
    from pigdice.study.simulate import SimulationResult

MAX_PLAYERS = 100  # players per game in the largest variant (Swine Herd)


def tidy(since: float) -> None:
    """Remove what a stopped worker left half-saved in the policy cache since ``since``."""
    from pigdice.solve.policyfile import remove_partial_files

    remove_partial_files(since)


def _strategy(spec: str, variant: Variant) -> Strategy:
    if not spec.strip():
        raise BadStrategyError("empty strategy name")
    from pigdice.players.specs import parse_strategy

    return parse_strategy(spec, variant)


# -- simulate -------------------------------------------------------------------------------------
@with_variant_options
def simulate_command(
    variant_name: VariantArg,
    players: Annotated[
        str | None,
        typer.Option(
            "--players",
            metavar="ROBOTS",
            help="Comma-separated robot specs, e.g. hold:20,hold:25 (default: two hold:20).",
        ),
    ] = None,
    games: Annotated[int, number_option("--games", "-n", low=1, high=MAX_GAMES, help="Number of games to play")] = 1000,
    seed: SeedOpt = None,
    options: VariantOptions = NO_OPTIONS,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            metavar="ENGINE",
            help="auto: the numba simulator where every robot has an action table (with a final round or equal "
            "turns: roll-or-hold games between hold:N, keep-pace and max-score), else the engine loop; fast; "
            "loop (the game engine, whose seeds replay game by game).",
        ),
    ] = "auto",
    json_out: JsonOpt = False,
) -> None:
    """Play many seeded games between robots and count the wins per seat."""
    variant = options.variant(variant_name)
    specs = players if players is not None else ",".join([default_robot(variant)] * 2)
    strategies = players_from_option(specs, variant)
    if engine not in ("auto", "fast", "loop"):
        raise BadParameterError(f"unknown --engine {engine!r}; allowed: auto, fast, loop")
    if engine != "loop":
        check_tables_fit(variant, strategies)
    used_seed = resolve_seed(seed)
    with progress_bar() as bar:  # in a worker process: Ctrl-C stops it at once, even inside the numba simulator
        result, fast = run_in_worker(simulation_work, (variant, specs, games, used_seed, engine), bar, None, tidy)
    if json_out:
        emit_json(simulation_json(strategies, result, used_seed))
        return
    print_simulation(variant, strategies, result, used_seed, fast)


def check_tables_fit(variant: Variant, strategies: list[Strategy]) -> None:
    """Raise ResourceLimitError at once if the fast simulator's action tables cannot fit in memory: one
    (goal, goal, goal) table per robot that has one, and their stack (``pigdice.solve.memory``)."""
    from pigdice.players.tables import has_table
    from pigdice.solve.memory import action_table_bytes, check_memory

    tables = sum(1 for strategy in strategies if has_table(strategy))
    if variant.is_simultaneous or not tables:
        return
    check_memory("simulating with action tables", variant.goal, lambda goal: action_table_bytes(goal, 2 * tables))


def simulation_work(
    variant: Variant, specs: str, games: int, seed: int, engine: str, progress: Progress
) -> tuple[SimulationResult, bool]:
    """Simulate ``games`` games between the robots ``specs``; return the result and whether the numba simulator ran.

    The work of ``pigdice simulate``'s worker process.
    """
    from pigdice.study.evaluate import simulate_with_tables
    from pigdice.study.simulate import simulate as run_simulation

    strategies = players_from_option(specs, variant)
    progress(0.0, "simulating")
    fast = None if engine == "loop" else simulate_with_tables(variant, strategies, games, seed)
    if engine == "fast" and fast is None:
        raise BadParameterError(
            "--engine fast needs robots with action tables (not rolls:N or random); with a final round or equal "
            "turns, a roll-or-hold game between hold:N, keep-pace and max-score robots"
        )
    if fast is not None:
        return fast, True
    return run_simulation(
        variant, strategies, games, seed, progress=lambda done: progress(done / games, "simulating")
    ), False


def whole(wins: float) -> int | float:
    """Return a win count as an int when it is whole (it is, unless tied players shared games)."""
    rounded = round(float(wins), 6)  # shares of 1/3 add up with rounding errors
    return int(rounded) if rounded.is_integer() else rounded


def simulation_json(strategies: list[Strategy], result: SimulationResult, seed: int) -> dict[str, object]:
    """Return the JSON of ``pigdice simulate --json``: the totals, and each seat's player and wins.

    ``wins`` lists the wins by seat; ``players`` labels them: seat number (from 1), the player's
    name, its wins and win rate, and as whole numbers the games it won alone (``outright_wins``) and
    those whose victory it shared with tied players (``shared_wins``). In ``wins`` a shared game counts
    as a share for each (1/2 for two), so only such games make a win count fractional.
    """
    data = result.to_json()
    data["wins"] = [whole(wins) for wins in result.wins]
    data["seed"] = seed
    data["players"] = [
        {
            "seat": seat,
            "player": strategy.name,
            "wins": whole(result.wins[seat - 1]),
            "win_rate": whole(result.wins[seat - 1]) / result.games,
            "outright_wins": result.outright[seat - 1] if result.outright else None,
            "shared_wins": result.shared[seat - 1] if result.shared else None,
        }
        for seat, strategy in enumerate(strategies, start=1)
    ]
    return data


def print_simulation(
    variant: Variant, strategies: list[Strategy], result: SimulationResult, seed: int, fast: bool
) -> None:
    """Print the wins per seat with their 95% (Wilson) intervals for people."""
    from pigdice.study.evaluate import wilson_interval

    console = stdout_console()
    table = Table(title=f"{variant.title}: {result.games} games, seed {seed}", title_style="bold")
    table.add_column("seat", justify="right")
    table.add_column("player")
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% interval", justify="right", style="dim")
    for seat, (strategy, wins) in enumerate(zip(strategies, result.wins, strict=True), start=1):
        low, high = wilson_interval(wins, result.games)
        interval = f"{percent(low)} .. {percent(high)}"
        table.add_row(str(seat), strategy.name, f"{wins:g}", percent(wins / result.games), interval)
    console.print(table)
    console.print(f"Goal {variant.goal}: {variant.endgame_note()}.")
    console.print(f"Tied games: {result.ties}    mean turns per game: {result.mean_turns:.2f}")
    console.print(f"Engine: {'numba simulator' if fast else 'game engine loop'}.", style="dim")


# -- compare --------------------------------------------------------------------------------------
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
    if result.variant.is_simultaneous:  # everyone moves at once: the seats only order who is named first
        labels = (f"{result.a} in seat 1", f"{result.b} in seat 1", "average")
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


@with_variant_options
def compare_command(
    a: Annotated[str, typer.Argument(metavar="A", help="First strategy, e.g. hold:20, keep-pace, optimal.")],
    b: Annotated[str, typer.Argument(metavar="B", help="Second strategy.")],
    variant_name: VariantOpt = "pig",
    options: VariantOptions = NO_OPTIONS,
    games: Annotated[
        int | None,
        number_option("--games", "-n", low=2, high=MAX_GAMES, help="Also simulate N games (each side starts half)"),
    ] = None,
    seed: SeedOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Give the probability that A beats B: exactly, and by simulation with --games N."""
    variant = options.variant(variant_name)
    variant.check_players(2)
    for spec in (a, b):
        _strategy(spec, variant)  # a bad spec is refused here, before any work
    used_seed = resolve_seed(seed) if games is not None else None
    with progress_bar() as bar:  # in a worker process: Ctrl-C stops it at once
        result = run_in_worker(comparison_work, (variant, a, b, games, used_seed), bar, None, tidy)
    if json_out:
        emit_json(result.to_json())
        return
    print_comparison(result)


def comparison_work(
    variant: Variant, a: str, b: str, games: int | None, seed: int | None, progress: Progress
) -> Comparison:
    """Compare the strategies ``a`` and ``b`` exactly (and by ``games`` simulated games): the worker of ``compare``."""
    from pigdice.study.evaluate import compare

    def report(done: int) -> None:
        progress(done / max(games or 1, 1), "simulating (engine loop)")

    progress(0.0, "comparing")
    return compare(variant, _strategy(a, variant), _strategy(b, variant), games, seed, report)


# -- tournament -----------------------------------------------------------------------------------
def ranking_note(result: TournamentResult) -> str | None:
    """Return why a strategy can rank above the perfect player in a round robin, when one does."""
    names = [s.name for s in result.standings]
    if "optimal" not in names or names[0] == "optimal":
        return None
    above = ", ".join(names[: names.index("optimal")])
    return (
        f"Why {above} can rank above the perfect player: the perfect player maximises its chance against a "
        "perfect opponent, not against the weaker strategies in this field. A strategy that plays riskier or "
        "safer than perfect can collect more wins from weak opponents."
        + (
            " Head to head, with each side starting half the games, the perfect player wins at least half"
            " against anyone (the table of who beats whom)."
            if result.players == 2
            else ""
        )
    )


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
    note = ranking_note(result)
    if note:
        console.print(Text(note, style="italic"))
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
    from pigdice.study.evaluate import CSV_FIELDS

    rows = result.csv_rows()
    with writing(path), replacing(path, newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(CSV_FIELDS))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return len(rows)


@with_variant_options
def tournament_command(
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies", "-s", metavar="ROBOTS", help="Comma-separated strategies, e.g. hold:20,keep-pace,optimal."
        ),
    ],
    variant_name: VariantOpt = "pig",
    players: Annotated[
        int,
        number_option(
            "--players", "-k", low=2, high=MAX_PLAYERS, help="Players per game (the variant may allow fewer)"
        ),
    ] = 2,
    games: Annotated[
        int,
        number_option(
            "--games",
            "-n",
            low=1,
            high=MAX_GAMES,
            help="Simulated games per match (exact 2-player matches need none)",
        ),
    ] = 2000,
    simulate_all: Annotated[
        bool, typer.Option("--simulate", help="Simulate every match, even those that could be exact.")
    ] = False,
    options: VariantOptions = NO_OPTIONS,
    seed: SeedOpt = None,
    json_out: JsonOpt = False,
    csv_path: Annotated[
        Path | None, output_option("--csv", help="Write one row per player per match to this CSV file.")
    ] = None,
) -> None:
    """Play a round robin between strategies and rank them (exact where possible)."""
    if json_out and csv_path is not None:
        raise BadParameterError("give --json or --csv, not both")
    variant = options.variant(variant_name)
    specs = [s.strip() for s in strategies.split(",")]
    if any(not s for s in specs):
        raise BadStrategyError(f"empty strategy in {strategies!r}; separate strategies with commas")
    robots = [_strategy(s, variant) for s in specs]  # bad specs are refused here, before any work
    used_seed = resolve_seed(seed)
    combos = math.comb(len(robots), players) if 1 <= players <= len(robots) else 0
    with progress_bar(combos > 1) as progress:  # in a worker process: Ctrl-C stops it at once
        work = (variant, specs, players, games, used_seed, not simulate_all)
        result = run_in_worker(tournament_work, work, progress, None, tidy)
    if json_out:
        emit_json(result.to_json())
        return
    if csv_path is not None:
        count = write_csv(result, csv_path)
        stderr_console().print(f"wrote {count} rows to {csv_path}")
    print_tournament(result)


def tournament_work(
    variant: Variant, specs: list[str], players: int, games: int, seed: int, exact: bool, progress: Progress
) -> TournamentResult:
    """Play the round robin of ``pigdice tournament`` (its worker process's work)."""
    from pigdice.study.evaluate import tournament

    robots = [_strategy(spec, variant) for spec in specs]
    return tournament(variant, robots, players, games, seed, progress, exact=exact)
