"""Commands on optimal play: ``solve``, ``policy`` and ``hint``."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from pigdice.cli.checks import number_option, numbers, numbers_option, output_option, writing
from pigdice.cli.options import (
    GoalOpt,
    JsonOpt,
    ParamOpt,
    VariantArg,
    VariantOptions,
    variant_from_options,
    with_variant_options,
)
from pigdice.cli.output import emit_json, stderr_console, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError
from pigdice.files import replacing
from pigdice.rules.variant import MAX_GOAL, Decision, Endgame, Variant
from pigdice.solve.positions import Position

if TYPE_CHECKING:  # the solver loads numba and numpy: imported where a command runs, so start-up stays quick
    from pigdice.solve import Policy
    from pigdice.solve.exact import ExactPolicy
    from pigdice.solve.n.equilibria import EquilibriumReport

NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Solve again even if a cached policy exists.")]
DISTRIBUTED_PLAYERS = 3  # the Dask solve is the n-player solver's
DISTRIBUTED_ESTIMATE_PLAYERS = 5  # from here on --dry-run also says what the Dask solve would take
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Say what the solve would take here (memory, rough time) without solving.")
]


def solved(variant: Variant, no_cache: bool = False) -> tuple[Policy, float]:
    """Return the 2-player first-to-goal policy of ``variant`` (from the cache unless ``no_cache``) and the seconds
    it took; a solve runs in a worker process, with a progress bar, and Ctrl-C stops it at once."""
    policy, seconds, _ = solved_exactly(variant.first_to_goal(), 2, no_cache, shipped=False)
    from pigdice.solve.exact import plain_policy

    return plain_policy(policy), seconds


def check_solve_fits(variant: Variant, players: int) -> None:
    """Raise ResourceLimitError at once if the exact solve's arrays cannot fit in this machine's memory.

    The solvers check again, exactly, before they allocate; this is their floor (``pigdice.solve.memory``'s
    sizes of the values every solver keeps), asked before a worker starts or any table is built, so a goal
    far too large is refused in a moment rather than after minutes of work.
    """
    from pigdice.solve.cost import memory_need
    from pigdice.solve.exact import solver_kind
    from pigdice.solve.memory import check_memory

    solver_kind(variant, players)  # no exact solver: its refusal names why
    need = memory_need(variant, players)
    ending = "" if variant.endgame is Endgame.FIRST_TO_GOAL else f" ({variant.endgame})"
    check_memory(f"solving {variant.name}{ending} for {players} players", variant.goal, need)


def solved_exactly(
    variant: Variant, players: int, no_cache: bool = False, shipped: bool = True
) -> tuple[ExactPolicy, float, float]:
    """Return the exact policy of ``variant`` with ``players`` players, the seconds it took (progress bar),
    and of those the seconds spent loading the solver's kernels (0 when the policy was cached).

    Unless ``no_cache``: the values shipped with the package where they hold the game (if ``shipped``),
    else the cache. A solve runs in a worker process: Ctrl-C stops it at once, leaving no cache file.
    """
    from pigdice.solve.cost import is_short
    from pigdice.solve.exact import exact_policy, is_cached, solve_in_worker
    from pigdice.solve.shipped import shipped_policy

    started = time.perf_counter()
    quick = shipped_policy(variant, players) if shipped and not no_cache else None
    if quick is not None:
        return quick, time.perf_counter() - started, 0.0
    check_solve_fits(variant, players)
    if not no_cache and is_cached(variant, players):
        return exact_policy(variant, players), time.perf_counter() - started, 0.0
    with progress_bar() as bar:

        def progress(fraction: float, label: str) -> None:
            bar(fraction, f"solving {variant.name} goal {variant.goal}, {players} players, {label}")

        short = is_short(variant, players)  # once its kernels are compiled, solved here: no second Python
        policy, kernels = solve_in_worker(variant, players, progress, use_cache=not no_cache, short=short)
    return policy, time.perf_counter() - started, kernels


def solve_summary(policy: ExactPolicy, seconds: float, kernel_seconds: float = 0.0) -> dict[str, Any]:
    """Return the stable JSON of ``pigdice solve``."""
    from pigdice.solve.exact import start_action

    seats = policy.win_probability_by_seat()
    variant = policy.variant
    return {
        "variant": variant.name,
        "goal": variant.goal,
        "endgame": str(variant.endgame),
        "ties": str(variant.ties),
        "final_turn": str(variant.final_turn),
        "players": policy.players,
        # 3+ players: cycles with no consistent pure choices mix (pigdice.solve.n.mixing); where no mixed
        # equilibrium is found (turn totals that can fall), the least-regret pure choices are kept
        "exact": policy.is_exact,
        "regret": float(policy.regret),
        "mixed_cycles": policy.mixed_cycles,
        # with resets a cycle whose mover sits at a breakpoint may keep its choices across passes
        # (pigdice.solve.n.nkernels.KEEP_GAIN); the most any mover of a mixed or kept cycle could gain
        "kept_cycles": policy.kept_cycles,
        "equilibrium_gain": policy.equilibrium_gain,
        "win_probability_first_player": seats[0],
        "win_probability_by_seat": seats,
        "start_action": start_action(policy),
        "states": policy.states,
        "iterations": policy.iterations,
        "residual": policy.residual,
        "seconds": seconds,
        "solve_seconds": policy.seconds,  # the solve alone
        "kernel_seconds": kernel_seconds,  # loading (or compiling) the solver's kernels, before the solve
        "from_cache": policy.from_cache,
    }


PlayersOpt = Annotated[
    int,
    number_option("--players", low=2, high=10, help="How many play (the exact solvers' memory decides how many fit)"),
]
DaskOpt = Annotated[
    bool,
    typer.Option(
        "--dask", help="Solve a 3+ player game first to the goal on two local Dask workers (separate processes)."
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="Solve on the workers of a running Dask scheduler, e.g. tcp://host:8786 (they need the --store folder).",
    ),
]
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        metavar="FOLDER",
        help="Where a Dask solve keeps the values while it runs (default: a temporary folder); "
        "on a cluster of several machines, a folder they all share.",
    ),
]


@with_variant_options
def solve_command(
    variant_name: VariantArg,
    options: VariantOptions,
    players: PlayersOpt = 2,
    no_cache: NoCacheOpt = False,
    dry_run: DryRunOpt = False,
    json_out: JsonOpt = False,
    dask: DaskOpt = False,
    scheduler: SchedulerOpt = None,
    store: StoreOpt = None,
) -> None:
    """Compute the policy that maximises each player's probability of winning, exactly."""
    variant = options.variant(variant_name)
    variant.check_players(players)
    distributed = dask or scheduler is not None
    if store is not None and not distributed:
        raise BadParameterError("--store is where a Dask solve keeps its values: give it with --dask or --scheduler")
    if distributed:
        check_distributed(variant, players, scheduler)
    if dry_run:
        show_estimate(variant, players, json_out)
        return
    from pigdice.cli.herdgroup import is_approximate, solve_answer

    if is_approximate(variant, players, solving=True):  # Swine Herd past its equilibria: the approximation, measured
        solve_answer(variant, solved_exactly(variant, 2)[0], players, json_out)
        return
    if distributed:
        policy, seconds, kernels = solved_on_dask(variant, players, scheduler, store)
    else:
        policy, seconds, kernels = solved_exactly(variant, players, no_cache)
    summary = solve_summary(policy, seconds, kernels)
    equilibria = other_equilibria(policy)
    if equilibria is not None:
        summary["equilibria"] = equilibria.to_json()
    herd = herd_group_summary(policy)
    summary.update(herd)
    if json_out:
        emit_json(summary)
        return
    console = stdout_console()
    table = Table(
        title=f"{variant.title}, goal {variant.goal}, {players} players: {variant.endgame_note()}", show_header=False
    )
    table.add_column(style="bold")
    table.add_column()
    start = summary["start_action"]
    start_text = f"roll {start} dice" if variant.decision is Decision.DICE_PER_TURN else f"hold at {start}"
    if variant.is_simultaneous:
        start_text = (
            f"sits down at {start}" if start < variant.goal else "stays standing until everyone reaches the goal"
        )
    for seat, chance in enumerate(summary["win_probability_by_seat"]):
        table.add_row(f"player {seat + 1} wins", f"{chance:.6f}")
    table.add_row("at the start the optimal player", start_text)
    table.add_row("states", f"{summary['states']:,}")
    table.add_row("passes", str(summary["iterations"]))
    table.add_row("residual", f"{summary['residual']:.2e}")
    from pigdice.solve.quickpolicy import QuickPolicy

    source = "from the cache" if policy.from_cache else "solved now"
    if isinstance(policy, QuickPolicy):
        source = "shipped with pigdice"
    loading = f"; loading the solver took {summary['kernel_seconds']:.3f} s" if summary["kernel_seconds"] else ""
    table.add_row("time", f"{seconds:.3f} s ({source}; solve took {policy.seconds:.3f} s{loading})")
    if equilibria is not None:
        for label, text in equilibria.lines():
            table.add_row(label, text)
    if herd:
        table.add_row(
            "most a player gains by playing otherwise",
            f"{herd['exploitability']:.1e} (at the start {herd['exploitability_at_start']:.1e})",
        )
        table.add_row("equilibrium", "exact" if summary["exact"] else "approximate: some turns did not settle")
    console.print(table)


def herd_group_summary(policy: ExactPolicy) -> dict[str, Any]:
    """Return what 3-player Swine Herd's answer adds to ``solve --json``: its exploitability and how its equilibrium
    was selected and settled (empty for any other policy)."""
    if not policy.variant.is_simultaneous or policy.players == 2:
        return {}  # asked first: the import below loads the solver's kernels
    from pigdice.solve.herd.swineherd_n_policy import SwineHerdNExact

    if not isinstance(policy, SwineHerdNExact):
        return {}
    gains = policy.gains
    return {
        # the most any seat gains by a best response against the others' strategies, exactly: over every turn
        # start, at the start, and per seat over every turn start
        "exploitability": gains.overall,
        "exploitability_at_start": gains.start,
        "exploitability_by_seat": list(gains.worst),
        "equilibria": policy.equilibrium_json(),
    }


def check_distributed(variant: Variant, players: int, scheduler: str | None) -> None:
    """Raise BadParameterError unless the Dask solve takes this game (3+ players, first to the goal)."""
    if players < DISTRIBUTED_PLAYERS:
        raise BadParameterError(
            f"the Dask solve is for {DISTRIBUTED_PLAYERS} or more players; {players} players solve here in one process"
        )
    if variant.endgame is not Endgame.FIRST_TO_GOAL:
        raise BadParameterError(
            f"the Dask solve plays first to the goal only; the {variant.endgame} ending is solved in one process"
        )
    if variant.is_simultaneous:
        raise BadParameterError(f"{variant.title} has no Dask solve: players sit down rather than take turns")
    if scheduler is not None:
        from pigdice.solve.n.distributed import check_address

        check_address(scheduler)


def solved_on_dask(
    variant: Variant, players: int, scheduler: str | None, store: Path | None
) -> tuple[ExactPolicy, float, float]:
    """Return the exact policy solved on Dask (a LocalCluster, or the scheduler's workers) and the seconds it took."""
    from pigdice.solve.n.distributed import dask_client, solve_distributed

    started = time.perf_counter()
    with progress_bar() as bar:

        def progress(fraction: float, label: str) -> None:
            bar(fraction, f"solving {variant.name} goal {variant.goal}, {players} players on Dask, {label}")

        with dask_client(scheduler) as client:
            policy = solve_distributed(variant, players, client, store, progress, flush=scheduler is not None)
    return policy, time.perf_counter() - started, 0.0


def show_estimate(variant: Variant, players: int, json_out: bool) -> None:
    """Print what the exact solve would take here (memory, a rough time range), without solving."""
    from pigdice.solve.cost import estimate
    from pigdice.solve.memory import format_bytes

    told = estimate(variant, players)
    low, high = told.seconds
    summary = {
        "variant": variant.name,
        "goal": variant.goal,
        "endgame": str(variant.endgame),
        "players": players,
        "exact_solver": told.exact is None,
        "why_not_exact": told.exact,
        "score_tuples": told.states,
        "memory_bytes": told.memory,
        "budget_bytes": told.budget,
        "fits_here": told.fits,
        "cpu_seconds_low": low,
        "cpu_seconds_high": high,
    }
    spread = None
    if players >= DISTRIBUTED_ESTIMATE_PLAYERS and variant.endgame is Endgame.FIRST_TO_GOAL and told.exact is None:
        from pigdice.solve.cost import distributed_estimate

        spread = distributed_estimate(variant, players)
        summary["dask"] = {
            "workers": spread.workers,
            "store_bytes": spread.store_bytes,
            "worker_bytes": spread.worker_bytes,
            "tasks": spread.tasks,
            "wall_seconds_low": spread.seconds[0],
            "wall_seconds_high": spread.seconds[1],
        }
    if json_out:
        emit_json(summary)
        return
    table = Table(title=f"{variant.title}, goal {variant.goal}, {players} players: what solving it would take")
    table.add_column(style="bold")
    table.add_column()
    table.add_row("exact solver", "yes" if told.exact is None else f"no: {told.exact}")
    table.add_row("score tuples", f"{told.states:,}")
    fits = "fits" if told.fits else "does not fit"
    table.add_row(
        "memory", f"{format_bytes(told.memory)} at least; {fits} here (pigdice uses up to {format_bytes(told.budget)})"
    )
    table.add_row("time", f"roughly {duration_text(low)} to {duration_text(high)} of one core (a rough estimate)")
    if spread is not None:
        wall_low, wall_high = spread.seconds
        table.add_row(
            "on Dask",
            f"{spread.workers} workers, each {format_bytes(spread.worker_bytes)} of its own plus the shared values; "
            f"{format_bytes(spread.store_bytes)} of values on disk (a folder every worker reaches); "
            f"{spread.tasks:,} tasks; roughly {duration_text(wall_low)} to {duration_text(wall_high)}",
        )
    stdout_console().print(table)


def duration_text(seconds: float) -> str:
    """Return ``seconds`` in the largest unit that keeps the number readable (s, min, h, days)."""
    for size, unit in ((86400.0, "days"), (3600.0, "h"), (60.0, "min")):
        if seconds >= 2 * size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"


def other_equilibria(policy: ExactPolicy) -> EquilibriumReport | None:
    """Return what the search for other equilibria finds for a 3+ player turn-taking policy (progress bar)."""
    if policy.players < 3:
        return None  # decided before the imports: they load numba, which a 2-player solve's caller never needs
    from pigdice.solve.n.equilibria import kept_equilibrium_report
    from pigdice.solve.n.nplayer import PlayersPolicy

    if not isinstance(policy, PlayersPolicy):
        return None
    with progress_bar() as bar:
        return kept_equilibrium_report(policy, bar)


def _csv_lines(policy: Policy) -> Iterator[str]:
    """Yield the CSV text of ``policy`` one (score, opponent) block at a time."""
    import numpy as np

    variant = policy.variant
    goal = policy.goal
    names = [f"roll:{n}" for n in variant.choices] if variant.chooses_dice else ["roll"]
    labels = np.array(["hold", *names], dtype=object)
    for i in range(goal):
        for j in range(goal):
            if variant.decision is Decision.DICE_PER_TURN:
                values = policy.dice_values(i, j)
                best = int(values.argmax())
                cells = ",".join(repr(float(v)) for v in values)
                yield f"{i},{j},dice:{variant.choices[best]},{float(values[best])!r},{cells}\n"
                continue
            row = policy.turn(i, j)
            best_roll = row.rolls.max(axis=0)
            numbers: list[np.ndarray] = [row.win, best_roll, row.hold]
            if variant.chooses_dice:
                numbers.extend(row.rolls)
            lines = []
            for k, (label, *values) in enumerate(zip(labels[row.action], *numbers, strict=True)):  # type: ignore[assignment]
                rest = ",".join(repr(float(v)) for v in values)
                lines.append(f"{i},{j},{k},{label},{rest}\n")
            yield "".join(lines)


def csv_header(variant: Variant) -> list[str]:
    """Return the header of ``pigdice policy --export``."""
    if variant.decision is Decision.DICE_PER_TURN:
        return ["score", "opponent", "action", "win_probability", *(f"dice_{n}_value" for n in variant.choices)]
    header = ["score", "opponent", "turn_total", "action", "win_probability", "roll_value", "hold_value"]
    if variant.chooses_dice:
        header.extend(f"roll_{n}_value" for n in variant.choices)
    return header


def export_csv(policy: Policy, path: Path, show_progress: bool = False) -> int:
    """Write every state of ``policy`` to ``path`` as CSV; return the number of rows."""
    blocks = policy.goal * policy.goal
    with replacing(path, newline="") as handle, progress_bar(show_progress) as bar:
        handle.write(",".join(csv_header(policy.variant)) + "\n")
        for index, block in enumerate(_csv_lines(policy)):
            handle.write(block)
            if index % 100 == 0:
                bar(index / blocks, f"writing {path}")
    return policy.states


def threshold_grid(policy: Policy, step: int) -> Table:
    """Return a table of hold thresholds (or Hog dice counts) by player and opponent score."""
    variant = policy.variant
    hog = variant.decision is Decision.DICE_PER_TURN
    what = "dice the optimal player throws" if hog else "turn total at which the optimal player holds"
    table = Table(
        title=f"{variant.title}, goal {variant.goal}: {what}",
        caption="rows: your score; columns: the opponent's score",
    )
    scores = list(range(0, policy.goal, step))
    table.add_column("you \\ opp", justify="right", style="bold")
    for j in scores:
        table.add_column(str(j), justify="right")
    for i in scores:
        cells = []
        for j in scores:
            if hog:
                cells.append(str(variant.choices[policy.best_choice(i, j, 0) - 1]))
            else:
                cells.append(str(policy.hold_threshold(i, j)))
        table.add_row(str(i), *cells)
    return table


def policy_command(
    variant_name: VariantArg,
    goal: GoalOpt = None,
    param: ParamOpt = None,
    export: Annotated[Path | None, output_option("--export", help="Write every state to this CSV file.")] = None,
    step: Annotated[int, number_option("--step", low=1, high=MAX_GOAL, help="Score step of the printed grid")] = 10,
    no_cache: NoCacheOpt = False,
) -> None:
    """Show the optimal policy as a grid of hold thresholds, or export every state as CSV."""
    from pigdice.solve import solvable

    variant = solvable(variant_from_options(variant_name, goal, params=param))
    solved_policy, _ = solved(variant, no_cache)
    if export is None:
        stdout_console().print(threshold_grid(solved_policy, step))
        return
    with writing(export):
        rows = export_csv(solved_policy, export, show_progress=sys.stderr.isatty())
    stderr_console().print(f"wrote {rows:,} states to {export}")


def cached_hint(
    variant: Variant, players: int, score: int, opponents: tuple[int, ...], turn_total: int
) -> tuple[dict[str, float], str] | None:
    """Return (each option's win probability, the best option) from a cached 2-player, first-to-goal
    policy without loading the solver's kernels, or None where that does not apply (solve as usual)."""
    from pigdice.rules.variant import Endgame
    from pigdice.solve.policyfile import cache_path, read_values
    from pigdice.solve.quickrow import action_values

    if players != 2 or variant.endgame is not Endgame.FIRST_TO_GOAL or variant.is_simultaneous:
        return None
    path = cache_path(variant)
    if not path.is_file():
        return None
    try:
        values = read_values(path, variant)[0]
    except BadParameterError:
        return None  # a damaged or stale file: the solver replaces it
    return action_values(variant, values, score, opponents[0], turn_total)


def _seats_text(first: int, players: int) -> str:
    """Return the seats first..players - 1 as a player writes them (from 1): '2', '2 or 3', '2 to 4'."""
    low, high = first + 1, players
    if low == high:
        return str(low)
    return f"{low} or {high}" if high == low + 1 else f"{low} to {high}"


def last_turn_seat(variant: Variant, players: int, reached: list[int]) -> int:
    """Return your seat (from 0) when the hint does not give it: the first seat, or under equal turns once
    opponents have reached the goal, the one seat those scores leave (they must be seated before you).

    Raises BadParameterError naming the seats ``--seat`` may take where more than one is possible.
    """
    if variant.endgame is not Endgame.EQUAL_TURNS or not reached:
        return 0
    first = players - min(reached)  # every opponent at the goal is seated before you
    if first == players - 1:
        return first
    raise BadParameterError(
        f"under equal turns an opponent at the goal is seated before you, so you are seat "
        f"{_seats_text(first, players)}: say which with --seat"
    )


def hint_position(
    variant: Variant, score: int, opponents: tuple[int, ...], turn_total: int, seat: int | None
) -> Position:
    """Return the position a hint is asked at, refusing one the game cannot be in.

    An opponent at or past the goal has reached it: the final round is on, and you play a last
    turn. Under a final round the players still owed a last turn are those after you and before
    the first one at the goal; under equal turns, those seated after you.
    """
    goal = variant.goal
    players = len(opponents) + 1
    reached = [r for r, other in enumerate(opponents, start=1) if other >= goal]
    if seat is None:
        seat = last_turn_seat(variant, players, reached)
    if not 0 <= seat < players:
        raise BadParameterError(f"--seat {seat + 1} does not exist with {players} players; give 1 to {players}")
    if variant.decision is Decision.DICE_PER_TURN and turn_total:
        raise BadParameterError(f"{variant.name} has no turn total (one throw per turn); leave out --turn-total")
    if score >= goal:
        raise BadParameterError(f"--score {score} has already reached the goal {goal}; give 0 to {goal - 1}")
    final: tuple[int, ...] | None = None
    if reached:
        if variant.endgame is Endgame.FIRST_TO_GOAL:
            raise BadParameterError(
                f"an opponent at {max(opponents)} has already reached the goal {goal}: first to the goal wins, "
                "so the game is over"
            )
        if variant.endgame is Endgame.EQUAL_TURNS:
            if any(seat + r < players for r in reached):
                raise BadParameterError(
                    "under equal turns only a player seated before you can have reached the goal while you still "
                    f"play: with these scores --seat takes {_seats_text(players - min(reached), players)}"
                )
            final = tuple(r for r in range(1, players) if seat + r < players)
        else:
            final = tuple(range(1, reached[0]))
    elif score + turn_total >= goal and variant.endgame is Endgame.FIRST_TO_GOAL:
        raise BadParameterError(
            f"--turn-total {turn_total} with --score {score} already reaches the goal {goal} (holding wins); "
            f"give a turn total from 0 to {goal - 1 - score}"
        )
    return Position((score, *opponents), turn_total, seat, final)


def herd_position(
    variant: Variant, score: int, opponents: tuple[int, ...], turn_total: int, seated: tuple[bool, ...]
) -> Position:
    """Return the Swine Herd position a hint is asked at (you stand; each opponent stands unless ``seated``)."""
    from pigdice.solve.exact import HERD_GROUP, exactness, herd_group_refusal

    players = len(opponents) + 1
    reason = exactness(variant, players if exactness(variant, 2) is not None else 2)  # else the approximation
    if reason is not None:
        if players == HERD_GROUP and herd_group_refusal(variant, players) is None:
            reason += f"; `pigdice solve {variant.name} --players {players} --goal {variant.goal}` works it out once"
        raise BadParameterError(f"no hint here: {reason}")
    goal = variant.goal
    if score >= goal:
        raise BadParameterError(f"--score {score} has already reached the goal {goal}; give 0 to {goal - 1}")
    option = "--seated" if players == 2 else "--seated-opponents"
    for other, sat in zip(opponents, seated, strict=True):
        if other >= goal and not sat:
            raise BadParameterError(
                f"an opponent at {other} has reached the goal {goal}: the game is over unless they sat down this "
                f"turn (add {option})"
            )
    if turn_total == 0 and any(seated):
        raise BadParameterError("nobody sits down before the first roll of a turn: give --turn-total")
    standing = [score, *(other for other, sat in zip(opponents, seated, strict=True) if not sat)]
    home = all(banked + turn_total >= goal for banked in standing)
    if len(standing) > 1 and turn_total and home and variant.sits_at_goal:
        who, sit = ("you both reach", "you both") if len(standing) == 2 else ("everyone standing reaches", "they all")
        raise BadParameterError(
            f"with --turn-total {turn_total} {who} the goal {goal}: {sit} sit down and the turn ends"
        )
    return Position((score, *opponents), turn_total, 0, None, (True, *(not sat for sat in seated)))


def seated_opponents(count: int, seated: bool, which: str | None) -> tuple[bool, ...]:
    """Return which of ``count`` opponents have sat down this turn: all with ``seated``, else those numbered in
    ``which`` (1 = the first listed); refuse numbers past the opponents."""
    chosen = set() if which is None else set(numbers(which))
    if seated and chosen:
        raise BadParameterError("--seated says every opponent has sat down: leave out --seated-opponents")
    wrong = sorted(n for n in chosen if n > count)
    if wrong:
        raise BadParameterError(f"--seated-opponents {wrong[0]} is not an opponent: give 1 to {count}")
    return tuple(seated or n + 1 in chosen for n in range(count))


@with_variant_options
def hint_command(
    variant_name: VariantArg,
    options: VariantOptions,
    score: Annotated[int, number_option("--score", low=0, high=MAX_GOAL - 1, help="Your score (below the goal)")] = 0,
    opponent: Annotated[
        str,
        numbers_option(
            "--opponent",
            low=0,
            high=MAX_GOAL - 1,
            most=9,
            help="The opponents' scores in turn order after you, e.g. 80 or 80,45 (one at or past the goal: the "
            "final round is on)",
        ),
    ] = "0",
    turn_total: Annotated[
        int, number_option("--turn-total", low=0, high=10 * MAX_GOAL, help="Your turn total so far")
    ] = 0,
    players: Annotated[
        int | None, number_option("--players", low=2, high=10, help="How many play (default: you and the opponents)")
    ] = None,
    seat: Annotated[
        int | None, number_option("--seat", low=1, high=10, help="Your seat, 1 = the first player (equal turns)")
    ] = None,
    seated: Annotated[
        bool, typer.Option("--seated", help="Swine Herd: the opponents have already sat down this turn")
    ] = False,
    seated_some: Annotated[
        str | None,
        numbers_option(
            "--seated-opponents",
            low=1,
            high=9,
            most=9,
            help="Swine Herd with 3 players: which opponents have already sat down this turn, 1 = the first listed",
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Say what the perfect player does in a state, with the win probability of each choice."""
    variant = options.variant(variant_name)
    opponents = numbers(opponent)
    count = len(opponents) + 1
    if players is not None and players != count:
        raise BadParameterError(
            f"--players {players} needs {players - 1} opponent scores in --opponent, got {count - 1}"
        )
    variant.check_players(count)
    if variant.is_simultaneous:
        position = herd_position(
            variant, score, opponents, turn_total, seated_opponents(len(opponents), seated, seated_some)
        )
    elif seated or seated_some is not None:
        option = "--seated" if seated else "--seated-opponents"
        raise BadParameterError(f"{option} is for Swine Herd, where players sit down; {variant.name} takes turns")
    else:
        position = hint_position(variant, score, opponents, turn_total, None if seat is None else seat - 1)
    from pigdice.cli.herdgroup import hint_answer, is_approximate

    if is_approximate(variant, count):  # Swine Herd past the equilibria: the approximation's hint, labelled
        hint_answer(variant, solved_exactly(variant, 2)[0], position, json_out)
        return
    from pigdice.solve.shipped import shipped_policy

    shipped = shipped_policy(variant, count)  # shipped with the package: answered in plain Python
    quick = None if shipped is not None else cached_hint(variant, count, score, opponents, turn_total)
    if quick is not None:  # a cached 2-player policy: the row in plain Python, no kernels to load
        values, best = quick
        chances: tuple[float, ...] = (values[best], 1.0 - values[best])
        strategy = {best: 1.0}
    else:
        policy = solved_exactly(variant, count)[0]  # the shipped values, the cache, or a solve
        values = policy.action_values(position)
        best = policy.best(position)
        chances = policy.win_vector(position)
        # 3+ players: where the equilibrium mixes, the perfect player takes each option with a chance
        strategy = policy.strategy(position)
    if json_out:
        emit_json(
            {
                "variant": variant.name,
                "goal": variant.goal,
                "endgame": str(variant.endgame),
                "players": count,
                "score": score,
                "opponent": max(opponents),
                "opponents": list(opponents),
                "turn_total": turn_total,
                "seat": position.seat + 1,
                "best": best,
                "values": values,
                "win_probability": values[best],
                "win_probability_by_player": list(chances),
                "play": strategy,
                "exact": True,
                "approximate": None,
            }
        )
        return
    others = ", ".join(str(o) for o in opponents)
    who = "opponent" if count == 2 else "opponents"
    table = Table(title=f"{variant.title}: you {score}, {who} {others}, turn total {turn_total}")
    table.add_column("choice")
    table.add_column("chance to win", justify="right")
    words = {"hold": "sit down", "roll": "stay standing"} if variant.is_simultaneous else {}
    for name, value in sorted(values.items(), key=lambda item: -item[1]):
        marker = "  ← best" if name == best else ""
        table.add_row(words.get(name, name), f"{100 * value:.2f}%{marker}")
    stdout_console().print(table)
    if len(strategy) > 1 and variant.is_simultaneous:
        mixed = " and ".join(f"{words[name]} {100 * p:.0f}% of the time" for name, p in strategy.items())
        whose, reader = ("the other's", "the other") if count == 2 else ("the others'", "they")
        stdout_console().print(
            f"Both are worth the same to you here, against {whose} best mix. So that {reader} cannot read "
            f"it, the perfect player chooses at random: {mixed} (a new draw at every roll)."
        )
    elif len(strategy) > 1:
        mixed = " and ".join(f"{name}s {100 * p:.0f}% of the time" for name, p in strategy.items())
        stdout_console().print(
            f"Both are worth the same to you here. So that the others' plans stay their best, the perfect player "
            f"{mixed} (it picks its plan at the start of the turn)."
        )
